/**
 * Seeds the mock with customers and companies (`--seed FILE`, `POST /_mock/seed`), each company taken to the
 * formation status it should reach. Everything goes through the API itself, with the typed client, so a seed obeys
 * the same rules as a partner's requests and a bad entry gets the same field-level errors, with pointers into the
 * seed document. Seeding again is harmless, and finishes what a seed left half-done: customers are unique per email,
 * and a company its customer already has (by name) is not made again, only taken on to the seed's status when it is
 * short of it.
 *
 * All or nothing: every entry is checked as the API would check it, and every partner's key by the API itself,
 * before anything is written (seed-check.ts), so a seed with an entry the API refuses applies none. The entries
 * are then applied in order, each a request of its own: what can still stop them is not in the seed (the store
 * failing, a forced answer armed for the partner, the process killed), and the refusal then says what was
 * created before it; seeding again adds the rest, and takes a company created but not simulated yet to its status.
 * (A seed written in one transaction per partner would not go through the API, whose rules a seed obeys.)
 */
import type { FieldError, FormationStatus, LlcFormationRequest } from '../../generated/openapi.js';
import { createPartnerClient, PartnerApiError, paginate, type PartnerClient } from '../../client/index.ts';
import { maskCredentials } from '../../contract-model/credentials.ts';
import { serviceUnavailable } from '../http/api-error.ts';
import { cut } from '../journal/captured-message.ts';
import { entryProblems, simulationFor, underSeedEntry, type RequestValidatorOf } from './seed-check.ts';
import type { SeedCustomer, SeedPartner } from './seed-document.ts';

export type { RecordedPartner, RecordingDocument, SeedCompany, SeedCustomer, SeedPartner } from './seed-document.ts';

export interface SeedReport {
  partners: number;
  customers: { created: number; existing: number };
  companies: { created: number; advanced: number; skipped: number };
}

/** A seed refused: its problems, as the API words field errors, with pointers into the seed document. */
export class SeedError extends Error {
  override name = 'SeedError';
  constructor(
    message: string,
    readonly details: FieldError[],
  ) {
    super(message);
  }
}

const reachable: readonly FormationStatus[] = ['PENDING', 'SUBMITTED', 'COMPLETED', 'FAILED'];

/** The partners of a seed document: `{ partners: [{ apiKey, customers }] }`, or `{ apiKey?, customers }` for one. */
export function readSeed(document: unknown, defaultApiKey?: string): { partners: SeedPartner[]; pointer: (index: number) => string } {
  const problems: FieldError[] = [];
  const report = (field: string, code: FieldError['code'], message: string) => problems.push({ in: 'body', field, code, message });
  if (!isObject(document)) throw new SeedError('A seed is a JSON object.', [{ in: 'body', field: '', code: 'E_TYPE', message: 'Must be an object with partners, or with customers.' }]);
  if (document.recording !== undefined) {
    const { partner, at } = recordedPartner(document, defaultApiKey);
    return { partners: [partner], pointer: () => at };
  }
  if (document.partners !== undefined && document.customers !== undefined) {
    throw new SeedError('A seed gives either customers (one partner) or partners, not both.', [{ in: 'body', field: '/partners', code: 'E_NOT_ALLOWED_VALUE', message: 'Give either customers (one partner) or partners, not both.' }]);
  }
  const single = document.partners === undefined;
  const partners = single ? [{ apiKey: document.apiKey ?? defaultApiKey, customers: document.customers }] : document.partners;
  const pointer = (index: number) => (single ? '' : `/partners/${index}`);
  if (!Array.isArray(partners)) report('/partners', 'E_TYPE', 'Must be an array of { apiKey, customers }.');
  else {
    partners.forEach((partner: unknown, index) => {
      const at = pointer(index);
      if (!isObject(partner)) return report(at, 'E_TYPE', 'Must be an object with apiKey and customers.');
      if (typeof partner.apiKey !== 'string') report(`${at}/apiKey`, 'E_REQUIRED', 'The API key of the partner to seed (or send the request with one in Authorization).');
      if (!Array.isArray(partner.customers)) return report(`${at}/customers`, 'E_TYPE', 'Must be an array of { customer, companies }.');
      partner.customers.forEach((entry: unknown, n) => checkCustomer(entry, `${at}/customers/${n}`, report));
    });
  }
  if (problems.length > 0) throw new SeedError('The seed is not well formed; see details.', problems);
  return { partners: partners as SeedPartner[], pointer };
}

/**
 * The section of a recording for the partner of `apiKey`: the one labelled with that key masked, or the only one. Two
 * keys that begin and end alike have the same label, and the file cannot tell which section is whose: a key whose
 * label several sections share is refused, naming them, rather than loaded with another partner's data. A recording
 * is data from a real sandbox: one whose answers broke the contract is refused, with what broke, until the
 * violations are read and removed from the file.
 */
function recordedPartner(document: Record<string, unknown>, apiKey: string | undefined): { partner: SeedPartner; at: string } {
  if (apiKey === undefined) throw new SeedError('A recording holds no key: load it with the key of the partner it is for.', [{ in: 'body', field: '/apiKey', code: 'E_REQUIRED', message: 'Send the partner\'s key in Authorization (POST /_mock/seed), or give --seed-key with --seed.' }]);
  // Filtered, the indexes stay the document's: a pointer names the section in the file.
  const sections = (Array.isArray(document.recorded) ? (document.recorded as unknown[]) : []).map((section, index) => ({ section, index })).filter((entry): entry is { section: Record<string, unknown>; index: number } => isObject(entry.section));
  const masked = maskCredentials(apiKey);
  const labelled = sections.length === 1 ? sections : sections.filter(({ section }) => section.partner === masked);
  if (labelled.length > 1) {
    throw new SeedError(
      `The recording has ${labelled.length} sections for ${masked}: keys that begin and end alike, which the file cannot tell apart. Remove the sections that are not this partner's, then load it again.`,
      labelled.slice(0, 100).map(({ section, index }) => ({ in: 'body', field: `/recorded/${index}/partner`, code: 'E_NOT_ALLOWED_VALUE', message: `One of ${labelled.length} sections labelled ${masked}, with ${Array.isArray(section.customers) ? section.customers.length : 0} customers: keep only the one recorded for this key.` })),
    );
  }
  const [found] = labelled;
  if (!found) {
    const labels = cut(sections.map(({ section }) => String(section.partner)).join(', ') || 'none', 800);
    throw new SeedError(`The recording has no section for ${masked}.`, [{ in: 'body', field: '/recorded', code: 'E_NOT_ALLOWED_VALUE', message: `Its sections are for ${labels}: load it with one of those keys.` }]);
  }
  const { section, index } = found;
  const violations = Array.isArray(section.violations) ? section.violations.map(String) : [];
  if (violations.length > 0) {
    throw new SeedError(
      `The recording for ${String(section.partner)} holds ${violations.length} answers of the upstream that broke the contract; read them, then remove them from the file to load it anyway.`,
      violations.slice(0, 100).map((violation, n) => ({ in: 'body', field: `/recorded/${index}/violations/${n}`, code: 'E_INVALID', message: cut(violation, 1000) })),
    );
  }
  const problems: FieldError[] = [];
  const at = `/recorded/${index}`;
  if (!Array.isArray(section.customers)) problems.push({ in: 'body', field: `${at}/customers`, code: 'E_TYPE', message: 'Must be an array of { customer, companies }.' });
  else section.customers.forEach((entry: unknown, n) => checkCustomer(entry, `${at}/customers/${n}`, (field, code, message) => problems.push({ in: 'body', field, code, message })));
  if (problems.length > 0) throw new SeedError('The recording is not well formed; see details.', problems);
  return { partner: { apiKey, customers: section.customers as SeedCustomer[] }, at };
}

function checkCustomer(entry: unknown, at: string, report: (field: string, code: FieldError['code'], message: string) => void): void {
  if (!isObject(entry)) return report(at, 'E_TYPE', 'Must be an object with customer and, optionally, companies.');
  if (!isObject(entry.customer)) report(`${at}/customer`, 'E_REQUIRED', 'The customer to create, as createCustomer takes it.');
  if (entry.companies === undefined) return;
  if (!Array.isArray(entry.companies)) return report(`${at}/companies`, 'E_TYPE', 'Must be an array of { formation, status }.');
  entry.companies.forEach((company: unknown, n) => {
    const where = `${at}/companies/${n}`;
    if (!isObject(company)) return report(where, 'E_TYPE', 'Must be an object with formation and, optionally, status.');
    if (!isObject(company.formation)) report(`${where}/formation`, 'E_REQUIRED', 'The formation to submit, as createCompany takes it, without serviceCustomerId.');
    else if (company.formation.serviceCustomerId !== undefined) report(`${where}/formation/serviceCustomerId`, 'E_NOT_ALLOWED_VALUE', 'Leave it out: it is the customer the company is listed under.');
    if (company.status !== undefined && !reachable.includes(company.status as FormationStatus)) report(`${where}/status`, 'E_NOT_ALLOWED_VALUE', `Must be one of ${reachable.join(', ')}.`);
  });
}

export interface SeedOptions {
  /** Where the API answers: the seed calls it there. */
  baseUrl: string;
  /** How it calls the API: `fetch`, or in process the mock's own fetch handler. */
  fetch?: (request: Request) => Promise<Response>;
  defaultApiKey?: string;
  sandbox: boolean;
  /** The API's request validators, to check every entry before anything is written. */
  validatorOf: RequestValidatorOf;
}

/** Applies a seed document through the API at `baseUrl`, all of it or, when the API would refuse an entry, none. */
export async function applySeed(document: unknown, options: SeedOptions): Promise<SeedReport> {
  const { partners, pointer } = readSeed(document, options.defaultApiKey);
  const problems = partners.flatMap((partner, index) => partner.customers.flatMap((entry, n) => entryProblems(entry, `${pointer(index)}/customers/${n}`, options)));
  if (problems.length > 0) throw new SeedError(`Nothing was applied: the API would refuse the seed at ${[...new Set(problems.map((problem) => entryOf(problem.field)))].join(', ')}.`, problems);
  const clients = partners.map((partner) => createPartnerClient({ baseUrl: options.baseUrl, apiKey: partner.apiKey, ...(options.fetch ? { fetch: options.fetch } : {}) }));
  // The API's own verdict on each key (the environment, --api-keys), by a read that changes nothing.
  for (const [index, api] of clients.entries()) await refusedAt({ at: `${pointer(index)}/apiKey`, keyAt: `${pointer(index)}/apiKey` }, () => api.listCustomers({ limit: 1 }));
  const report: SeedReport = { partners: partners.length, customers: { created: 0, existing: 0 }, companies: { created: 0, advanced: 0, skipped: 0 } };
  try {
    for (const [index, partner] of partners.entries()) {
      for (const [n, entry] of partner.customers.entries()) {
        await seedCustomer(clients[index] as PartnerClient, entry, { at: `${pointer(index)}/customers/${n}`, keyAt: `${pointer(index)}/apiKey` }, report);
      }
    }
  } catch (error) {
    if (!(error instanceof SeedError)) throw error;
    const { customers, companies } = report;
    const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
    throw new SeedError(`${error.message} Before it, the seed created ${count(customers.created, 'customer', 'customers')} and ${count(companies.created, 'company', 'companies')}, which stay: seeding again adds the rest.`, error.details);
  }
  return report;
}

/** The seed entry a pointer is in: `/customers/2` of `/customers/2/companies/0/formation/state`. */
function entryOf(field: string): string {
  return /^(\/partners\/\d+)?\/(customers|recorded\/\d+\/customers)\/\d+/.exec(field)?.[0] ?? (field || '/');
}

type Where = { at: string; keyAt: string };

/**
 * A customer and its companies. A company its customer already has (by name) is not made again, but taken on to the
 * seed's status when it is short of it: a seed stopped between creating a company and simulating it (the process
 * killed) is finished by seeding again. One past the seed's status (the automatic timeline moved it on) stays.
 */
async function seedCustomer(api: PartnerClient, entry: SeedCustomer, where: Where, report: SeedReport): Promise<void> {
  const { payload: customer } = await refusedAt({ ...where, at: `${where.at}/customer` }, () => api.createCustomer(entry.customer));
  report.customers[customer.created ? 'created' : 'existing'] += 1;
  const existing = new Map<string, { serviceCompanyId: string; status: FormationStatus }>();
  if (!customer.created) for await (const company of paginate(api.listCompanies, { serviceCustomerId: customer.serviceCustomerId, limit: 100 })) if (!existing.has(company.name)) existing.set(company.name, company);
  // The names this seed has seen for the customer: a second entry of one names the first's company, and is skipped.
  const seen = new Set<string>();
  for (const [n, seed] of (entry.companies ?? []).entries()) {
    const at = `${where.at}/companies/${n}`;
    // A company is named by its first name option (company-handlers.ts).
    const name = seed.formation.nameOptions[0] as string;
    const found = existing.get(name);
    if (seen.has(name)) {
      report.companies.skipped += 1;
      continue;
    }
    seen.add(name);
    if (found) {
      const simulation = simulationFor(seed, found.status);
      if (simulation) await refusedAt({ ...where, at }, () => api.simulateCompanyFormation({ companyId: found.serviceCompanyId }, simulation));
      report.companies[simulation ? 'advanced' : 'skipped'] += 1;
      continue;
    }
    const { payload: company } = await refusedAt({ ...where, at: `${at}/formation` }, () => api.createCompany({ ...seed.formation, serviceCustomerId: customer.serviceCustomerId } as LlcFormationRequest));
    report.companies.created += 1;
    const simulation = simulationFor(seed);
    if (simulation) await refusedAt({ ...where, at }, () => api.simulateCompanyFormation({ companyId: company.serviceCompanyId }, simulation));
  }
}

/** Runs one API call; its refusal becomes the seed's, with the field pointers moved under `at` (a key's to `keyAt`). */
async function refusedAt<T>(where: Where, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof PartnerApiError)) throw error;
    // Not the entry's fault: the API could not serve (its store down) even after the client's retries.
    if (error.status === 503) throw serviceUnavailable();
    const details: FieldError[] = error.details.length > 0
      ? underSeedEntry(where.at, error.details)
      : [{ in: 'body', field: error.code.startsWith('E_AUTH') ? where.keyAt : where.at, code: 'E_INVALID', message: `${error.code}: ${error.message}` }];
    throw new SeedError(`The API refused the seed entry at ${where.at || '/'}: ${error.message}`, details);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
