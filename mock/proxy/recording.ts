/**
 * A recording of what passed through the proxy (`--record FILE`), written as a seed the mock loads, so that a team
 * can start a mock from the data it has in the real sandbox. Every customer and company the upstream answered with
 * (created, read or listed) is kept as the seed creates it: the fields of its create request, taken from the answer
 * by the contract's own request schemas, and the formation status it had when last seen.
 *
 * No key is ever written. Each partner's data is a section labelled with its key masked (`dk_test_…wxyz`), and a
 * recording is loaded for the partner whose key loads it (seed/seed.ts); two keys that begin and end alike share a
 * label, and loading either is then refused until the other's section is removed. An upstream answer that broke the
 * contract while recording is listed in its section's `violations`, and such a recording is refused at load until
 * someone has read them: it must not pass for real data silently.
 *
 * The file is rewritten whole a moment after each change, to a temporary file renamed over it, so that a crash at
 * any point leaves the previous recording or the new one, never half of one.
 */
import { randomBytes } from 'node:crypto';
import { rename, unlink, writeFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { ContractDocument, JsonObject } from '../../contract-model/document.ts';
import { deref } from '../../contract-model/document.ts';
import type { CustomerCreateRequest, FormationFailureReason, FormationStatus } from '../../generated/openapi.js';
import { cut, withoutControls } from '../journal/captured-message.ts';
import { answeredByUpstream, type Exchange } from '../pipeline/exchange.ts';
import type { RecordedPartner, RecordingDocument, SeedCompany } from '../seed/seed-document.ts';
import { maskEndpointUrl } from '../webhooks/endpoint-url.ts';

export interface Recording {
  /** Takes what an exchange the upstream answered says of customers and companies. */
  observe(exchange: Exchange): void;
  /** Writes what is waiting. */
  flush(): Promise<void>;
}

/** Contract violations kept per section: enough to see what is wrong, never a file that grows without end. */
const maxViolations = 100;
/** As a field error's message may be, so that a refusal of the recording can quote each. */
const maxViolationLength = 1000;
const writeDelayMs = 200;
/** The operations whose answers hold customers, and those whose answers hold companies (one, or a page of them). */
const customerOperations = new Set(['createCustomer', 'getCustomer', 'listCustomers']);
const companyOperations = new Set(['createCompany', 'getCompany', 'listCompanies', 'simulateCompanyFormation']);

interface Section {
  /** The partner's key, masked: the section's label (two partners' labels may be alike; their sections are not). */
  label: string;
  customers: Map<string, { customer: CustomerCreateRequest; companies: Map<string, SeedCompany> }>;
  violations: string[];
}

/** The recording cannot start: what to do is in the message. */
export class RecordingRefused extends Error {
  override name = 'RecordingRefused';
}

/**
 * Starts a recording at `path`, which must not exist: a recording replaces no file (a previous recording, a seed
 * someone wrote). Its first, empty version is written at once, so that a path that cannot be written fails the start.
 */
export async function openRecording(options: { path: string; upstream: string; contract: ContractDocument; logger: Pick<Logger, 'info' | 'warn' | 'error'> }): Promise<Recording> {
  const recording = createRecording(options);
  try {
    // Only its owner may read it: it holds the partner's customers.
    await writeFile(options.path, '', { flag: 'wx', mode: 0o600 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new RecordingRefused(`--record ${options.path}: ${code === 'EEXIST' ? 'the file exists already; move it away or name another (a recording replaces no file)' : (error as Error).message}`);
  }
  await recording.flush();
  options.logger.info({ record: options.path }, 'recording what the upstream answers');
  return recording;
}

function createRecording(options: { path: string; upstream: string; contract: ContractDocument; logger: Pick<Logger, 'info' | 'warn' | 'error'> }): Recording {
  const fields = requestFields(options.contract);
  const sections = new Map<string, Section>();
  const startedAt = new Date().toISOString();
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();

  const sectionOf = (partner: { id: string; maskedKey: string }): Section => {
    let section = sections.get(partner.id);
    if (section) return section;
    // Loaded, such a section is refused for either key (seed/seed.ts): said now, while the keys are still at hand.
    if ([...sections.values()].some((other) => other.label === partner.maskedKey)) {
      options.logger.warn({ record: options.path, partner: partner.maskedKey }, 'two partners whose keys begin and end alike are recorded: their sections have the same label, and loading either is refused until the other is removed from the file');
    }
    sections.set(partner.id, (section = { label: partner.maskedKey, customers: new Map(), violations: [] }));
    return section;
  };
  const customer = (section: Section, view: Record<string, unknown>) => {
    const id = view.serviceCustomerId as string;
    const known = section.customers.get(id);
    const taken = pick(view, fields.customer) as unknown as CustomerCreateRequest;
    if (known) known.customer = taken;
    else section.customers.set(id, { customer: taken, companies: new Map() });
  };
  const company = (section: Section, view: Record<string, unknown>) => {
    const owner = section.customers.get(view.serviceCustomerId as string);
    // A company whose customer never passed through cannot be seeded: the seed creates it under its customer.
    if (!owner) return;
    const names = view.entityType === 'CCorp' ? fields.ccorp : fields.llc;
    const { serviceCustomerId: _owner, ...formation } = pick(view, names);
    const reason = (view.failure as { reason?: FormationFailureReason } | null | undefined)?.reason;
    owner.companies.set(view.serviceCompanyId as string, { formation: formation as SeedCompany['formation'], status: view.status as FormationStatus, ...(reason ? { failureReason: reason } : {}) });
  };

  const flush = (): Promise<void> => {
    clearTimeout(timer);
    timer = undefined;
    // Made when its turn comes, from what is known then: writes that queue behind a slow disk hold no copies.
    writing = writing.then(() => writeWhole(options.path, documentOf(sections, { upstream: maskEndpointUrl(options.upstream), startedAt }))).catch((error: unknown) => options.logger.error({ err: error, record: options.path }, 'the recording could not be written'));
    return writing;
  };

  return {
    observe(exchange) {
      const operationId = exchange.operation?.operationId;
      if (!exchange.partner || !operationId || !answeredByUpstream(exchange)) return;
      const section = sectionOf(exchange.partner);
      for (const violation of exchange.contractViolations ?? []) {
        if (section.violations.length < maxViolations) section.violations.push(cut(withoutControls(`${operationId} ${exchange.response?.status ?? ''}: ${violation}`), maxViolationLength));
      }
      const status = exchange.response?.status ?? 0;
      if (status < 200 || status > 299 || exchange.contractViolations) {
        if (exchange.contractViolations) schedule();
        return;
      }
      const payload = (exchange.response?.json as { payload?: unknown } | undefined)?.payload as Record<string, unknown> | undefined;
      if (!payload) return;
      const items = Array.isArray(payload.data) ? (payload.data as Record<string, unknown>[]) : [payload];
      if (customerOperations.has(operationId)) items.forEach((item) => customer(section, item));
      else if (companyOperations.has(operationId)) items.forEach((item) => company(section, item));
      else return;
      schedule();
    },
    flush,
  };

  function schedule(): void {
    timer ??= setTimeout(() => void flush(), writeDelayMs);
    timer.unref();
  }
}

/** The properties a create request takes, read from the contract's request schemas: what a seed entry may hold. */
function requestFields(document: ContractDocument): { customer: string[]; llc: string[]; ccorp: string[] } {
  const names = (schema: string) => Object.keys((deref(document, { $ref: `#/components/schemas/${schema}` }) as { properties?: JsonObject }).properties ?? {});
  return { customer: names('CustomerCreateRequest'), llc: names('LlcFormationRequest'), ccorp: names('CCorpFormationRequest') };
}

function pick(view: Record<string, unknown>, names: readonly string[]): Record<string, unknown> {
  // `null` is how an answer says "none"; a create request leaves the property out.
  return Object.fromEntries(names.filter((name) => view[name] !== undefined && view[name] !== null).map((name) => [name, view[name]]));
}

function documentOf(sections: Map<string, Section>, facts: { upstream: string; startedAt: string }): RecordingDocument {
  const recorded: RecordedPartner[] = [...sections.values()].map((section) => ({
    partner: section.label,
    violations: section.violations,
    customers: [...section.customers.values()].map(({ customer, companies }) => ({
      customer,
      ...(companies.size > 0 ? { companies: [...companies.values()] } : {}),
    })),
  }));
  return {
    recording: {
      upstream: facts.upstream,
      startedAt: facts.startedAt,
      writtenAt: new Date().toISOString(),
      about: 'Recorded by the mock as a proxy (--record). It holds no key: load it with the key of the partner it is for (POST /_mock/seed with that key, or --seed FILE --seed-key KEY).',
    },
    recorded,
  };
}

async function writeWhole(path: string, document: RecordingDocument): Promise<void> {
  const temporary = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, `${JSON.stringify(document, null, 2)}\n`, { flush: true, mode: 0o600 });
    await rename(temporary, path);
  } catch (error) {
    // A full disk leaves no half-written temporary behind; the last whole recording stays.
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}
