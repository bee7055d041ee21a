import type {
  Address,
  CCorpCompany,
  Company,
  DocumentType,
  EntityType,
  LlcCompany,
  OfficerRole,
} from '../../generated/openapi.js';
import { getCountry, getNaicsIndustry, getState } from '../reference/index.js';

export type DocumentEnvironment = 'sandbox' | 'production';

export interface DocumentInput {
  readonly type: DocumentType;
  readonly company: Company;
  readonly environment: DocumentEnvironment;
  readonly issuedAt: Date;
}

/**
 * One unit of a document's layout. The renderer decides fonts and positions; everything a reader can see is in
 * the text of these blocks, so the content can be checked without extracting text from a PDF.
 */
export type DocumentBlock =
  | { readonly kind: 'title'; readonly text: string }
  | { readonly kind: 'subtitle'; readonly text: string }
  | { readonly kind: 'heading'; readonly text: string }
  | { readonly kind: 'paragraph'; readonly text: string }
  | { readonly kind: 'field'; readonly label: string; readonly value: string }
  | { readonly kind: 'item'; readonly text: string }
  | { readonly kind: 'signature'; readonly text: string }
  | { readonly kind: 'space' };

export const SANDBOX_WATERMARK = 'SANDBOX';
export const SANDBOX_FOOTER = 'Sandbox document — no legal value';

export const DOCUMENT_TITLES: Readonly<Record<DocumentType, string>> = Object.freeze({
  ARTICLES_OF_ORGANIZATION: 'Articles of Organization',
  CERTIFICATE_OF_INCORPORATION: 'Certificate of Incorporation',
  OPERATING_AGREEMENT: 'Operating Agreement',
  BYLAWS: 'Bylaws',
  EIN_CONFIRMATION_LETTER: 'EIN Confirmation Letter',
});

// The order is the order in which the documents become ready (see the Companies tag of the contract).
const DOCUMENT_TYPES: Readonly<Record<EntityType, readonly DocumentType[]>> = Object.freeze({
  LLC: Object.freeze(['ARTICLES_OF_ORGANIZATION', 'OPERATING_AGREEMENT', 'EIN_CONFIRMATION_LETTER'] as const),
  CCorp: Object.freeze(['CERTIFICATE_OF_INCORPORATION', 'BYLAWS', 'EIN_CONFIRMATION_LETTER'] as const),
});

/** The documents of a completed formation of this entity type, in the order they become ready. */
export function documentTypesFor(entityType: EntityType): readonly DocumentType[] {
  return DOCUMENT_TYPES[entityType];
}

/** A file name for the document, within the contract's `fileName` pattern `^[A-Za-z0-9._-]+\.pdf$`. */
export function documentFileName(type: DocumentType): string {
  return `${type.toLowerCase().replace(/_/g, '-')}.pdf`;
}

/** The footer printed on every page; the sandbox one is what tells a reader the file has no legal value. */
export function documentFooter(environment: DocumentEnvironment): string | null {
  return environment === 'sandbox' ? SANDBOX_FOOTER : null;
}

export function documentWatermark(environment: DocumentEnvironment): string | null {
  return environment === 'sandbox' ? SANDBOX_WATERMARK : null;
}

/** The body of the document, top to bottom, without the watermark and footer that every page repeats. */
export function documentBlocks(input: DocumentInput): DocumentBlock[] {
  const { type, company } = input;
  if (type === 'EIN_CONFIRMATION_LETTER') return einConfirmationLetter(input);
  if (company.entityType === 'LLC') {
    if (type === 'ARTICLES_OF_ORGANIZATION') return articlesOfOrganization(input, company);
    if (type === 'OPERATING_AGREEMENT') return operatingAgreement(input, company);
  } else {
    if (type === 'CERTIFICATE_OF_INCORPORATION') return certificateOfIncorporation(input, company);
    if (type === 'BYLAWS') return bylaws(input, company);
  }
  throw new RangeError(`a ${company.entityType} has no ${type} document`);
}

/** Every text line of the document as a reader sees it: watermark, body, footer. */
export function documentLines(input: DocumentInput): string[] {
  const watermark = documentWatermark(input.environment);
  const footer = documentFooter(input.environment);
  return [
    ...(watermark ? [watermark] : []),
    ...documentBlocks(input).flatMap(blockText),
    ...(footer ? [footer] : []),
  ];
}

export function blockText(block: DocumentBlock): string[] {
  switch (block.kind) {
    case 'space':
      return [];
    case 'field':
      return [`${block.label}: ${block.value}`];
    case 'item':
      return [`• ${block.text}`];
    default:
      return [block.text];
  }
}

function articlesOfOrganization(input: DocumentInput, company: LlcCompany): DocumentBlock[] {
  const state = stateName(company.state);
  return [
    ...header(input),
    paragraph(
      `The undersigned organizer forms a limited liability company under the laws of the State of ${state} and ` +
        'adopts the following articles of organization.',
    ),
    heading('Article I — Name'),
    paragraph(`The name of the limited liability company is ${company.name}.`),
    heading('Article II — Principal office and mailing address'),
    field('Principal office', formatAddress(company.businessAddress)),
    field('Mailing address', formatAddress(company.mailingAddress)),
    heading('Article III — Purpose'),
    paragraph(
      `${sentence(company.description)} The company may also engage in any lawful business for which a limited ` +
        `liability company may be formed in ${state}.`,
    ),
    heading('Article IV — Management'),
    paragraph('The company is managed by its members, who are:'),
    ...memberItems(company),
    ...companyRecord(input),
    ...signatures(['Organizer']),
  ];
}

function operatingAgreement(input: DocumentInput, company: LlcCompany): DocumentBlock[] {
  const single = company.members.length === 1;
  return [
    ...header(input),
    paragraph(
      `This operating agreement of ${company.name}, a limited liability company formed in the State of ` +
        `${stateName(company.state)}, is made by its ${single ? 'sole member' : 'members'} and governs the ` +
        'affairs of the company and the conduct of its business.',
    ),
    heading('1. Members and ownership'),
    paragraph(
      single
        ? 'The company has one member, who owns all of its membership interests:'
        : 'The members own the membership interests of the company in these percentages, which total 100%:',
    ),
    ...memberItems(company),
    heading('2. Management'),
    paragraph(
      'The company is member-managed. Decisions are taken by members holding a majority of the membership ' +
        'interests, except that admitting a new member or amending this agreement requires all members.',
    ),
    heading('3. Allocations and distributions'),
    paragraph(
      'Profits, losses and distributions are allocated among the members in proportion to their ownership ' +
        'percentages.',
    ),
    heading('4. Transfers'),
    paragraph('A member may transfer membership interests only with the written consent of the other members.'),
    ...companyRecord(input),
    ...signatures(company.members.map((member) => `${personName(member)}, Member`)),
  ];
}

function certificateOfIncorporation(input: DocumentInput, company: CCorpCompany): DocumentBlock[] {
  const state = stateName(company.state);
  return [
    ...header(input),
    paragraph(
      `The undersigned incorporator forms a corporation under the general corporation law of the State of ${state} ` +
        'and certifies as follows.',
    ),
    heading('First — Name'),
    paragraph(`The name of the corporation is ${company.name}.`),
    heading('Second — Principal office and mailing address'),
    field('Principal office', formatAddress(company.businessAddress)),
    field('Mailing address', formatAddress(company.mailingAddress)),
    heading('Third — Purpose'),
    paragraph(
      `${sentence(company.description)} The corporation may also engage in any lawful act or activity for which a ` +
        `corporation may be organized under the laws of ${state}.`,
    ),
    heading('Fourth — Authorized stock'),
    ...shareStructure(company),
    heading('Fifth — Directors and officers'),
    ...executiveItems(company),
    ...companyRecord(input),
    ...signatures(['Incorporator']),
  ];
}

function bylaws(input: DocumentInput, company: CCorpCompany): DocumentBlock[] {
  const directors = company.executiveMembers.filter((member) => member.roles.includes('DIRECTOR'));
  return [
    ...header(input),
    paragraph(
      `These bylaws govern the internal affairs of ${company.name}, a corporation incorporated in the State of ` +
        `${stateName(company.state)}.`,
    ),
    heading('Article I — Offices'),
    field('Principal office', formatAddress(company.businessAddress)),
    field('Mailing address', formatAddress(company.mailingAddress)),
    heading('Article II — Stockholders'),
    paragraph(
      'The annual meeting of stockholders elects the directors. Each share of common stock carries one vote; a ' +
        'majority of the outstanding shares is a quorum.',
    ),
    ...shareStructure(company),
    heading('Article III — Board of directors'),
    paragraph(
      `The business of the corporation is managed by a board of ${directors.length} ` +
        `director${directors.length === 1 ? '' : 's'}. A majority of the directors in office is a quorum.`,
    ),
    heading('Article IV — Officers'),
    paragraph(
      'The officers are a President, a Secretary and a Treasurer, appointed by the board. One person may hold ' +
        'more than one office. The officers and directors are:',
    ),
    ...executiveItems(company),
    heading('Article V — Fiscal year and amendments'),
    paragraph('The fiscal year is the calendar year. The board may amend these bylaws by majority vote.'),
    ...companyRecord(input),
    ...signatures(['Secretary']),
  ];
}

function einConfirmationLetter(input: DocumentInput): DocumentBlock[] {
  const { company } = input;
  const ein = company.ein ?? 'not yet assigned';
  return [
    { kind: 'paragraph', text: 'Department of the Treasury' },
    { kind: 'paragraph', text: 'Internal Revenue Service' },
    ...header(input),
    field('Date of this notice', formatDate(input.issuedAt)),
    field('Employer Identification Number', ein),
    field('Form', 'SS-4'),
    field('Notice', 'CP 575 style confirmation'),
    space(),
    { kind: 'paragraph', text: company.name },
    { kind: 'paragraph', text: `c/o ${personName(company.responsibleParty)}` },
    { kind: 'paragraph', text: formatAddress(company.mailingAddress) },
    heading('WE ASSIGNED YOU AN EMPLOYER IDENTIFICATION NUMBER'),
    paragraph(
      `Thank you for applying for an Employer Identification Number (EIN). We assigned you EIN ${ein}. This EIN ` +
        'will identify you, your business accounts, tax returns, and documents, even if you have no employees. ' +
        'Please keep this notice in your permanent records.',
    ),
    paragraph(
      `When filing tax documents, payments, and related correspondence, use your EIN and the complete name and ` +
        `address shown above. ${taxFiling(company)}`,
    ),
    paragraph(
      `The responsible party we have on record for this EIN is ${personName(company.responsibleParty)}. If the ` +
        'responsible party changes, tell us within 60 days on Form 8822-B.',
    ),
    ...companyRecord(input),
  ];
}

function taxFiling(company: Company): string {
  if (company.entityType === 'CCorp') {
    return 'As a corporation, file Form 1120, U.S. Corporation Income Tax Return, each year.';
  }
  return company.members.length === 1
    ? 'As a single-member LLC, you are a disregarded entity unless you elect otherwise: report the income on your ' +
        "owner's return."
    : 'As a multi-member LLC, you are a partnership unless you elect otherwise: file Form 1065, U.S. Return of ' +
        'Partnership Income, each year.';
}

function header(input: DocumentInput): DocumentBlock[] {
  return [
    { kind: 'title', text: DOCUMENT_TITLES[input.type] },
    { kind: 'subtitle', text: input.company.name },
    space(),
  ];
}

/** The company's data as the service holds it, repeated on every document so each one stands alone. */
function companyRecord({ company, issuedAt }: DocumentInput): DocumentBlock[] {
  const industry = getNaicsIndustry(company.naicsCode);
  return [
    heading('Company record'),
    field('Company name', company.name),
    field('Entity type', company.entityType === 'LLC' ? 'Limited liability company (LLC)' : 'C corporation (CCorp)'),
    field('State of formation', `${stateName(company.state)} (${company.state})`),
    field('Service company ID', company.serviceCompanyId),
    field('Filing date', company.filingDate ? formatIsoDate(company.filingDate) : 'Not yet filed'),
    ...(company.ein ? [field('EIN', company.ein)] : []),
    field('Industry (NAICS)', industry ? `${industry.code} ${industry.title}` : company.naicsCode),
    field('Business address', formatAddress(company.businessAddress)),
    field('Mailing address', formatAddress(company.mailingAddress)),
    // The responsible party's taxId is write-only in the contract: only the name is ever printed.
    field('Responsible party', personName(company.responsibleParty)),
    field('Issued on', formatDate(issuedAt)),
  ];
}

function memberItems(company: LlcCompany): DocumentBlock[] {
  return company.members.map((member) => ({
    kind: 'item',
    text: `${personName(member)} (${member.email}) — Member, ${member.ownershipPercent}% ownership`,
  }));
}

function executiveItems(company: CCorpCompany): DocumentBlock[] {
  return company.executiveMembers.map((member) => ({
    kind: 'item',
    text: `${personName(member)} (${member.email}) — ${member.roles.map(roleName).join(', ')}`,
  }));
}

function shareStructure(company: CCorpCompany): DocumentBlock[] {
  const { authorizedShares, parValueUsd } = company.shareStructure;
  return [
    paragraph(
      `The corporation is authorized to issue ${groupDigits(authorizedShares)} shares of common stock with a par ` +
        `value of $${parValueUsd} per share.`,
    ),
    field('Authorized shares', `${groupDigits(authorizedShares)} common`),
    field('Par value', `$${parValueUsd} per share`),
  ];
}

function signatures(roles: readonly string[]): DocumentBlock[] {
  return [space(), ...roles.map((role): DocumentBlock => ({ kind: 'signature', text: role }))];
}

const ROLE_NAMES: Readonly<Record<OfficerRole, string>> = {
  PRESIDENT: 'President',
  SECRETARY: 'Secretary',
  TREASURER: 'Treasurer',
  DIRECTOR: 'Director',
};

function roleName(role: OfficerRole): string {
  return ROLE_NAMES[role];
}

function personName(person: { firstName: string; lastName: string }): string {
  return `${person.firstName} ${person.lastName}`;
}

function stateName(code: string): string {
  return getState(code)?.name ?? code;
}

export function formatAddress(address: Address): string {
  const locality = [address.city, [address.region, address.postalCode].filter(Boolean).join(' ')].join(', ');
  const country = getCountry(address.country)?.name ?? address.country;
  return [address.line1, address.line2, locality, country].filter(Boolean).join(', ');
}

const MONTHS = [
  'January', 'February', 'March', 'April', 'May', 'June',
  'July', 'August', 'September', 'October', 'November', 'December',
] as const;

// Spelled out by hand, in UTC, so that the text never depends on the host's locale or time zone.
function formatDate(date: Date): string {
  return `${MONTHS[date.getUTCMonth()]} ${date.getUTCDate()}, ${date.getUTCFullYear()}`;
}

function formatIsoDate(date: string): string {
  const parsed = new Date(`${date}T00:00:00Z`);
  return Number.isNaN(parsed.getTime()) ? date : formatDate(parsed);
}

function groupDigits(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

function heading(text: string): DocumentBlock {
  return { kind: 'heading', text };
}

function paragraph(text: string): DocumentBlock {
  return { kind: 'paragraph', text };
}

function field(label: string, value: string): DocumentBlock {
  return { kind: 'field', label, value };
}

function space(): DocumentBlock {
  return { kind: 'space' };
}
