import {
  PDFDocument,
  PageSizes,
  StandardFonts,
  degrees,
  rgb,
  type PDFFont,
  type PDFPage,
  type PDFPageDrawTextOptions,
} from 'pdf-lib';
import {
  DOCUMENT_TITLES,
  documentBlocks,
  documentFooter,
  documentWatermark,
  type DocumentBlock,
  type DocumentInput,
} from './content.js';

export {
  DOCUMENT_TITLES,
  SANDBOX_FOOTER,
  SANDBOX_WATERMARK,
  documentBlocks,
  documentFileName,
  documentLines,
  documentTypesFor,
} from './content.js';
export type { DocumentBlock, DocumentEnvironment, DocumentInput } from './content.js';

const [PAGE_WIDTH, PAGE_HEIGHT] = PageSizes.Letter;
const MARGIN = 64;
const FOOTER_Y = 36;
const CONTENT_WIDTH = PAGE_WIDTH - 2 * MARGIN;
const FIELD_LABEL_WIDTH = 150;
const ITEM_INDENT = 14;
const LINE_SPACING = 1.35;
const INK = rgb(0.1, 0.1, 0.12);
const MUTED = rgb(0.4, 0.4, 0.45);
const WATERMARK_COLOR = rgb(0.8, 0.1, 0.1);

interface Style {
  readonly font: PDFFont;
  readonly size: number;
  readonly color: ReturnType<typeof rgb>;
}

interface Fonts {
  readonly regular: PDFFont;
  readonly bold: PDFFont;
}

/**
 * Renders a formation document as a PDF. The same input gives the same bytes: the dates pdf-lib would take from
 * the clock are taken from `issuedAt`, so a document's `sha256` stays stable across downloads.
 */
export async function renderDocumentPdf(input: DocumentInput): Promise<Uint8Array> {
  const blocks = documentBlocks(input);
  const title = DOCUMENT_TITLES[input.type];

  const pdf = await PDFDocument.create({ updateMetadata: false });
  pdf.setTitle(`${title} — ${input.company.name}`);
  pdf.setSubject(`${title} of ${input.company.name} (${input.company.serviceCompanyId})`);
  pdf.setAuthor('Partner Formation API');
  pdf.setCreator('Partner Formation API');
  pdf.setProducer('Partner Formation API');
  pdf.setKeywords([input.type, input.company.serviceCompanyId, input.environment]);
  pdf.setLanguage('en-US');
  pdf.setCreationDate(input.issuedAt);
  pdf.setModificationDate(input.issuedAt);

  const fonts: Fonts = {
    regular: await pdf.embedFont(StandardFonts.Helvetica),
    bold: await pdf.embedFont(StandardFonts.HelveticaBold),
  };
  const pages = new Layout(pdf, fonts).render(blocks);

  const footer = documentFooter(input.environment);
  const watermark = documentWatermark(input.environment);
  pages.forEach((page, index) => {
    drawFooter(page, fonts, footer ?? `${title} — ${input.company.name}`, `Page ${index + 1} of ${pages.length}`);
    // Drawn last, over the text, so that it cannot be hidden by anything on the page.
    if (watermark) drawWatermark(page, fonts.bold, watermark);
  });

  // A classic cross-reference table rather than object streams, so that PDF 1.4-era readers open it too.
  return pdf.save({ useObjectStreams: false });
}

/** Flows blocks down the page, wrapping words and starting new pages as needed. */
class Layout {
  private readonly pages: PDFPage[] = [];
  private page!: PDFPage;
  private y = 0;

  constructor(
    private readonly pdf: PDFDocument,
    private readonly fonts: Fonts,
  ) {}

  render(blocks: readonly DocumentBlock[]): PDFPage[] {
    this.newPage();
    for (const block of blocks) this.block(block);
    return this.pages;
  }

  private block(block: DocumentBlock): void {
    const { regular, bold } = this.fonts;
    switch (block.kind) {
      case 'title':
        this.text(block.text, { font: bold, size: 20, color: INK }, MARGIN, CONTENT_WIDTH);
        this.y -= 4;
        return;
      case 'subtitle':
        this.text(block.text, { font: regular, size: 13, color: MUTED }, MARGIN, CONTENT_WIDTH);
        return;
      case 'heading':
        this.y -= 10;
        this.keepRoom(3 * 16);
        this.text(block.text, { font: bold, size: 11.5, color: INK }, MARGIN, CONTENT_WIDTH);
        this.y -= 2;
        return;
      case 'paragraph':
        this.text(block.text, { font: regular, size: 10.5, color: INK }, MARGIN, CONTENT_WIDTH);
        this.y -= 4;
        return;
      case 'field':
        this.field(block.label, block.value);
        return;
      case 'item': {
        const style = { font: regular, size: 10.5, color: INK };
        this.keepRoom(lineHeight(style));
        drawString(this.page, encodable(regular, '•'), { x: MARGIN + 2, y: this.y - style.size, ...style });
        this.text(block.text, style, MARGIN + ITEM_INDENT, CONTENT_WIDTH - ITEM_INDENT);
        this.y -= 2;
        return;
      }
      case 'signature': {
        this.y -= 28;
        this.keepRoom(40);
        this.page.drawLine({
          start: { x: MARGIN, y: this.y },
          end: { x: MARGIN + 220, y: this.y },
          thickness: 0.75,
          color: INK,
        });
        this.y -= 4;
        this.text(block.text, { font: regular, size: 9.5, color: MUTED }, MARGIN, 220);
        return;
      }
      case 'space':
        this.y -= 10;
        return;
    }
  }

  private field(label: string, value: string): void {
    const labelStyle = { font: this.fonts.bold, size: 10, color: INK };
    const valueStyle = { font: this.fonts.regular, size: 10, color: INK };
    const labelLines = wrap(labelStyle.font, encodable(labelStyle.font, label), labelStyle.size, FIELD_LABEL_WIDTH - 8);
    const valueLines = wrap(
      valueStyle.font,
      encodable(valueStyle.font, value),
      valueStyle.size,
      CONTENT_WIDTH - FIELD_LABEL_WIDTH,
    );
    const step = lineHeight(valueStyle);
    for (let index = 0; index < Math.max(labelLines.length, valueLines.length); index += 1) {
      this.keepRoom(step);
      const baseline = this.y - valueStyle.size;
      const labelLine = labelLines[index];
      const valueLine = valueLines[index];
      if (labelLine) drawString(this.page, labelLine, { x: MARGIN, y: baseline, ...labelStyle });
      if (valueLine) drawString(this.page, valueLine, { x: MARGIN + FIELD_LABEL_WIDTH, y: baseline, ...valueStyle });
      this.y -= step;
    }
    this.y -= 2;
  }

  private text(text: string, style: Style, x: number, width: number): void {
    for (const line of wrap(style.font, encodable(style.font, text), style.size, width)) {
      this.keepRoom(lineHeight(style));
      drawString(this.page, line, { x, y: this.y - style.size, ...style });
      this.y -= lineHeight(style);
    }
  }

  private keepRoom(height: number): void {
    if (this.y - height < FOOTER_Y + 24) this.newPage();
  }

  private newPage(): void {
    this.page = this.pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    this.pages.push(this.page);
    this.y = PAGE_HEIGHT - MARGIN;
  }
}

const currentFonts = new WeakMap<PDFPage, PDFFont>();

/**
 * drawText with a `font` option registers that font in the page's resources again on every call; switching the
 * page's font only when it changes keeps one resource entry per font and page.
 */
function drawString(page: PDFPage, text: string, options: PDFPageDrawTextOptions & { font: PDFFont }): void {
  const { font, ...rest } = options;
  if (currentFonts.get(page) !== font) {
    page.setFont(font);
    currentFonts.set(page, font);
  }
  page.drawText(text, rest);
}

function lineHeight(style: Style): number {
  return style.size * LINE_SPACING;
}

function drawFooter(page: PDFPage, fonts: Fonts, left: string, right: string): void {
  const size = 8;
  const leftText = encodable(fonts.regular, left);
  const fitted = wrap(fonts.regular, leftText, size, CONTENT_WIDTH - 80)[0] ?? '';
  const style = { size, font: fonts.regular, color: MUTED };
  drawString(page, fitted, { x: MARGIN, y: FOOTER_Y, ...style });
  const rightWidth = fonts.regular.widthOfTextAtSize(right, size);
  drawString(page, right, { x: PAGE_WIDTH - MARGIN - rightWidth, y: FOOTER_Y, ...style });
}

/** A large semi-transparent word across the page's diagonal, centred. */
function drawWatermark(page: PDFPage, font: PDFFont, text: string): void {
  const { width, height } = page.getSize();
  const angle = Math.atan2(height, width);
  const size = 120;
  const textWidth = font.widthOfTextAtSize(text, size);
  const textHeight = font.heightAtSize(size, { descender: false });
  // drawText rotates around the text's origin (its lower left corner), so the origin is moved back from the
  // page centre by half the text's extent along and across the rotated baseline.
  const x = width / 2 - (textWidth / 2) * Math.cos(angle) + (textHeight / 2) * Math.sin(angle);
  const y = height / 2 - (textWidth / 2) * Math.sin(angle) - (textHeight / 2) * Math.cos(angle);
  drawString(page, text, {
    x,
    y,
    size,
    font,
    color: WATERMARK_COLOR,
    opacity: 0.15,
    rotate: degrees((angle * 180) / Math.PI),
  });
}

/** Greedy word wrap; a word wider than the line is cut where it overflows. */
function wrap(font: PDFFont, text: string, size: number, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const candidate = line ? `${line} ${word}` : word;
    if (font.widthOfTextAtSize(candidate, size) <= width) {
      line = candidate;
      continue;
    }
    if (line) lines.push(line);
    line = '';
    let rest = word;
    while (font.widthOfTextAtSize(rest, size) > width) {
      let cut = rest.length - 1;
      while (cut > 1 && font.widthOfTextAtSize(rest.slice(0, cut), size) > width) cut -= 1;
      lines.push(rest.slice(0, cut));
      rest = rest.slice(cut);
    }
    line = rest;
  }
  if (line) lines.push(line);
  return lines.length > 0 ? lines : [''];
}

const characterSets = new WeakMap<PDFFont, ReadonlySet<number>>();

/**
 * The standard PDF fonts only encode WinAnsi (Latin-1 and a few more), and pdf-lib throws on anything else, while
 * names in the contract may be in any script. Accented letters outside the set lose their accents; what still
 * cannot be encoded becomes "?".
 */
function encodable(font: PDFFont, text: string): string {
  let supported = characterSets.get(font);
  if (!supported) {
    supported = new Set(font.getCharacterSet());
    characterSets.set(font, supported);
  }
  const set = supported;
  const fits = (char: string) => set.has(char.codePointAt(0) ?? -1);
  let result = '';
  for (const char of text.replace(/[\t\r\n]+/g, ' ')) {
    if (fits(char)) {
      result += char;
      continue;
    }
    const base = char.normalize('NFKD').replace(/\p{M}/gu, '');
    result += base && [...base].every(fits) ? base : '?';
  }
  return result;
}
