import { PDFArray, PDFDocument, PDFRawStream, decodePDFRawStream } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import type { Company, DocumentType } from '../../../generated/openapi.js';
import {
  SANDBOX_FOOTER,
  SANDBOX_WATERMARK,
  documentFileName,
  documentLines,
  documentTypesFor,
  renderDocumentPdf,
  type DocumentInput,
} from '../../../mock/documents/pdf.js';
import { contractErrors } from '../reference/contract-schemas.js';
import { ccorp, llc } from './fixtures.js';

const issuedAt = new Date('2026-11-24T09:00:05Z');
const ALL_TYPES: readonly DocumentType[] = [
  'ARTICLES_OF_ORGANIZATION',
  'CERTIFICATE_OF_INCORPORATION',
  'OPERATING_AGREEMENT',
  'BYLAWS',
  'EIN_CONFIRMATION_LETTER',
];
const cases = [
  ...documentTypesFor('LLC').map((type) => ({ type, company: llc as Company })),
  ...documentTypesFor('CCorp').map((type) => ({ type, company: ccorp as Company })),
];

function input(type: DocumentType, company: Company, environment: DocumentInput['environment'] = 'sandbox') {
  return { type, company, environment, issuedAt } satisfies DocumentInput;
}

function text(lines: readonly string[]): string {
  return lines.join('\n');
}

/**
 * The strings drawn on each page, read back from its content streams. Enough for the PDFs rendered here, which
 * only draw single-byte (WinAnsi) hex strings with Tj; it is not a general text extractor.
 */
async function drawnText(bytes: Uint8Array): Promise<string[]> {
  const pdf = await PDFDocument.load(bytes, { updateMetadata: false });
  return pdf.getPages().map((page) => {
    const contents = page.node.Contents();
    const refs = contents instanceof PDFArray ? contents.asArray() : contents ? [contents] : [];
    return refs
      .map((ref) => pdf.context.lookup(ref))
      .filter((stream): stream is PDFRawStream => stream instanceof PDFRawStream)
      .map((stream) => Buffer.from(decodePDFRawStream(stream).decode()).toString('latin1'))
      .join('\n')
      .split('\n')
      .flatMap((line) => /^<([0-9A-Fa-f]*)> Tj$/.exec(line)?.[1] ?? [])
      .map((hex) => Buffer.from(hex, 'hex').toString('latin1'))
      .join('\n');
  });
}

describe('the fixtures', () => {
  it('are companies as the contract describes them', () => {
    expect(contractErrors('Company', llc)).toBe('');
    expect(contractErrors('Company', ccorp)).toBe('');
  });
});

describe('documentTypesFor', () => {
  it('lists an LLC’s documents in the order they become ready', () => {
    expect(documentTypesFor('LLC')).toEqual([
      'ARTICLES_OF_ORGANIZATION',
      'OPERATING_AGREEMENT',
      'EIN_CONFIRMATION_LETTER',
    ]);
  });

  it('lists a CCorp’s documents in the order they become ready', () => {
    expect(documentTypesFor('CCorp')).toEqual(['CERTIFICATE_OF_INCORPORATION', 'BYLAWS', 'EIN_CONFIRMATION_LETTER']);
  });
});

describe('documentFileName', () => {
  it('names each type within the contract’s fileName pattern', () => {
    expect(documentFileName('ARTICLES_OF_ORGANIZATION')).toBe('articles-of-organization.pdf');
    expect(documentFileName('EIN_CONFIRMATION_LETTER')).toBe('ein-confirmation-letter.pdf');
    const names = ALL_TYPES.map(documentFileName);
    for (const name of names) expect(name).toMatch(/^[A-Za-z0-9._-]+\.pdf$/);
    expect(new Set(names).size).toBe(ALL_TYPES.length);
  });
});

describe('documentLines', () => {
  it.each([
    ['ARTICLES_OF_ORGANIZATION', llc, 'Articles of Organization'],
    ['OPERATING_AGREEMENT', llc, 'Operating Agreement'],
    ['CERTIFICATE_OF_INCORPORATION', ccorp, 'Certificate of Incorporation'],
    ['BYLAWS', ccorp, 'Bylaws'],
    ['EIN_CONFIRMATION_LETTER', llc, 'EIN Confirmation Letter'],
  ] as const)('titles %s "%s"', (type, company, title) => {
    expect(documentLines(input(type, company))).toContain(title);
  });

  it.each(cases)('carries the company’s data in $type of $company.entityType', ({ type, company }) => {
    const all = text(documentLines(input(type, company)));
    expect(all).toContain(company.name);
    expect(all).toContain(company.serviceCompanyId);
    expect(all).toContain(company.entityType === 'LLC' ? 'Limited liability company (LLC)' : 'C corporation (CCorp)');
    expect(all).toContain(company.entityType === 'LLC' ? 'Delaware (DE)' : 'Wyoming (WY)');
    expect(all).toContain('Filing date: November 24, 2026');
    expect(all).toContain('EIN: 12-3456789');
    expect(all).toContain('251 Little Falls Drive, Suite 400, Wilmington, DE 19808, United States of America');
    expect(all).toContain('10 Downing Street, London, SW1A 2AA, United Kingdom');
    const { firstName, lastName } = company.responsibleParty;
    expect(all).toContain(`Responsible party: ${firstName} ${lastName}`);
    expect(all).toContain('541511 Custom Computer Programming Services');
  });

  it('lists an LLC’s members with their ownership', () => {
    for (const type of documentTypesFor('LLC').slice(0, 2)) {
      const all = text(documentLines(input(type, llc)));
      expect(all).toContain('Ada Lovelace (ada.lovelace@example.com) — Member, 60% ownership');
      expect(all).toContain('Charles Babbage (charles.babbage@example.com) — Member, 40% ownership');
    }
  });

  it('lists a CCorp’s executive members with their roles, and its share structure', () => {
    for (const type of documentTypesFor('CCorp').slice(0, 2)) {
      const all = text(documentLines(input(type, ccorp)));
      expect(all).toContain('Grace Hopper (grace.hopper@example.com) — President, Director');
      expect(all).toContain('Jean Sammet (jean.sammet@example.com) — Secretary, Treasurer, Director');
      expect(all).toContain('10,000,000 shares of common stock with a par value of $0.00001 per share');
    }
  });

  it('writes the EIN letter in the style of an IRS CP 575 notice', () => {
    const all = text(documentLines(input('EIN_CONFIRMATION_LETTER', ccorp)));
    expect(all).toContain('Internal Revenue Service');
    expect(all).toContain('WE ASSIGNED YOU AN EMPLOYER IDENTIFICATION NUMBER');
    expect(all).toContain('We assigned you EIN 12-3456789.');
    expect(all).toContain('Form 1120');
    expect(text(documentLines(input('EIN_CONFIRMATION_LETTER', llc)))).toContain('Form 1065');
  });

  it('leaves out the EIN until it is issued, except on the EIN letter', () => {
    const pending = { ...llc, ein: null, filingDate: null };
    expect(text(documentLines(input('ARTICLES_OF_ORGANIZATION', pending)))).not.toContain('EIN:');
    expect(text(documentLines(input('ARTICLES_OF_ORGANIZATION', pending)))).toContain('Filing date: Not yet filed');
    expect(text(documentLines(input('EIN_CONFIRMATION_LETTER', pending)))).toContain('not yet assigned');
  });

  it('never prints the responsible party’s taxId', () => {
    const withTaxId = { ...llc, responsibleParty: { ...llc.responsibleParty, taxId: '123-45-6789' } };
    for (const type of documentTypesFor('LLC')) {
      expect(text(documentLines(input(type, withTaxId)))).not.toContain('123-45-6789');
    }
  });

  it('marks sandbox documents with the watermark and the footer, and production ones with neither', () => {
    const sandbox = documentLines(input('ARTICLES_OF_ORGANIZATION', llc, 'sandbox'));
    expect(sandbox).toContain(SANDBOX_WATERMARK);
    expect(SANDBOX_WATERMARK).toBe('SANDBOX');
    expect(sandbox).toContain('Sandbox document — no legal value');
    expect(SANDBOX_FOOTER).toBe('Sandbox document — no legal value');
    const production = text(documentLines(input('ARTICLES_OF_ORGANIZATION', llc, 'production')));
    expect(production).not.toContain('SANDBOX');
    expect(production).not.toMatch(/no legal value/);
  });

  it('refuses a document type of the other entity type', () => {
    expect(() => documentLines(input('BYLAWS', llc))).toThrow(RangeError);
    expect(() => documentLines(input('OPERATING_AGREEMENT', ccorp))).toThrow(RangeError);
  });
});

describe('renderDocumentPdf', () => {
  it.each(cases)('renders $type of $company.entityType as a PDF that parses back', async ({ type, company }) => {
    const bytes = await renderDocumentPdf(input(type, company));
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(bytes.subarray(0, 5)).toString('latin1')).toBe('%PDF-');
    const parsed = await PDFDocument.load(bytes, { updateMetadata: false });
    expect(parsed.getPageCount()).toBeGreaterThanOrEqual(1);
    expect(parsed.getTitle()).toContain(company.name);
    expect(parsed.getCreationDate()?.toISOString()).toBe('2026-11-24T09:00:05.000Z');
    expect(parsed.getModificationDate()?.toISOString()).toBe('2026-11-24T09:00:05.000Z');
  });

  it('draws the company’s name, and on every sandbox page the watermark and footer', async () => {
    const sandbox = await drawnText(await renderDocumentPdf(input('CERTIFICATE_OF_INCORPORATION', ccorp)));
    expect(sandbox.join('\n')).toContain(ccorp.name);
    for (const page of sandbox) {
      expect(page.split('\n')).toContain('SANDBOX');
      // The em dash is one byte (0x97) in the standard fonts' WinAnsi encoding.
      expect(page).toContain('Sandbox document \x97 no legal value');
    }
    const production = await drawnText(
      await renderDocumentPdf(input('CERTIFICATE_OF_INCORPORATION', ccorp, 'production')),
    );
    expect(production.join('\n')).toContain(ccorp.name);
    expect(production.join('\n')).not.toContain('SANDBOX');
  });

  it('sets its own document information, not the library’s', async () => {
    const parsed = await PDFDocument.load(await renderDocumentPdf(input('BYLAWS', ccorp)), { updateMetadata: false });
    expect(parsed.getProducer()).toBe('Partner Formation API');
    expect(parsed.getCreator()).toBe('Partner Formation API');
    expect(parsed.getKeywords()).toContain(ccorp.serviceCompanyId);
  });

  it('gives the same bytes for the same input', async () => {
    const first = await renderDocumentPdf(input('BYLAWS', ccorp));
    const second = await renderDocumentPdf(input('BYLAWS', ccorp));
    expect(Buffer.from(first).equals(Buffer.from(second))).toBe(true);
  });

  it('differs between the sandbox and production', async () => {
    const sandbox = await renderDocumentPdf(input('ARTICLES_OF_ORGANIZATION', llc, 'sandbox'));
    const production = await renderDocumentPdf(input('ARTICLES_OF_ORGANIZATION', llc, 'production'));
    expect(Buffer.from(sandbox).equals(Buffer.from(production))).toBe(false);
  });

  it('renders names outside the standard fonts’ character set instead of failing', async () => {
    const company: Company = {
      ...llc,
      name: 'Łódź Ωmega 東京 LLC',
      members: [{ firstName: 'Zoë', lastName: 'Dvořák', email: 'zoe@example.com', ownershipPercent: 100 }],
    };
    const bytes = await renderDocumentPdf(input('OPERATING_AGREEMENT', company));
    expect((await PDFDocument.load(bytes)).getPageCount()).toBeGreaterThanOrEqual(1);
  });

  it('flows a long document onto more pages', async () => {
    const members = Array.from({ length: 50 }, (_, index) => ({
      firstName: `Member${index}`,
      lastName: 'Withaverylonglastnamethatkeepsgoingandgoingwellpastthewidthofthecolumnitisprintedin',
      email: `member${index}@example.com`,
      ownershipPercent: 2,
    }));
    const bytes = await renderDocumentPdf(input('OPERATING_AGREEMENT', { ...llc, members }));
    expect((await PDFDocument.load(bytes)).getPageCount()).toBeGreaterThan(1);
  });
});
