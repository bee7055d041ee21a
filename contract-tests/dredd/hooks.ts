/**
 * Dredd hooks: turn each transaction Dredd compiled from the contract's examples into a request that really
 * produces the documented status, and skip, with the reason, only what cannot be produced.
 *
 * Dredd 14 loads a hook file into its own process with `require` (through proxyquire, which substitutes its Hooks
 * object for the module `hooks`). The runner starts Dredd with tsx's loader (`node --import tsx`), so that this
 * TypeScript file, and the suite's modules it imports, load like CommonJS. Without the loader Dredd would skip
 * the file with only a warning; the runner notices that by the marker file written below.
 *
 * Dredd runs with --sorted (POSTs before GETs, document order otherwise), so the creates come first and the GETs
 * read what they made:
 *   createCustomer 200  → the customer every later transaction names
 *   createCompany 202   → the LLC formation of that customer
 *   simulateCompanyFormation 200 (target COMPLETED) → its documents become ready
 *   listCompanyDocuments 200 → a document id;  getCompanyDocument 200 → a signed download URL
 *   downloadCompanyDocument 200/403/400 → that URL, as issued, altered, or malformed
 */
import { writeFileSync } from 'node:fs';
import hooks, { type Transaction } from 'hooks';
import type { OperationId, Payload, RequestBody } from '../../client/index.ts';
import { contractFacts } from '../../generated/contract-facts.ts';
import { contractOperations, type SuiteOperation } from '../support/contract.ts';
import { armMockFault } from '../support/mock-admin.ts';
import { readHooksEnvironment } from './hooks-environment.ts';

const settings = readHooksEnvironment(process.env);
if (settings?.loadedMarker) writeFileSync(settings.loadedMarker, '');

// Over the contract's request body limit (x-service-limits requestBodyMaxBytes).
const oversizedPadding = 'x'.repeat(contractFacts.limits.requestBodyMaxBytes + 1);

/** What earlier transactions created, for later ones to use. */
const state: {
  customerEmail: string;
  customerId?: string;
  customerKey?: string;
  customerBody?: RequestBody<'createCustomer'>;
  companyId?: string;
  companyKey?: string;
  companyBody?: RequestBody<'createCompany'>;
  companyStatus?: string;
  documentId?: string;
  downloadUrl?: string;
} = { customerEmail: `dredd.${settings?.runId}@example.com` };

const skipped: { name: string; reason: string }[] = [];
let requestCounter = 0;
let keyCounter = 0;

/** The target, once beforeAll has made sure the runner set it. */
function target(): NonNullable<typeof settings>['target'] {
  if (!settings) throw new Error('no target: run the hooks through `npm run test:dredd`');
  return settings.target;
}

// ---------------------------------------------------------------------------------------------------------------
// Which operation a transaction belongs to. Dredd names transactions by path and summary; the operationId (which
// /_mock/faults and the tables below use) comes from the bundled contract, so a reworded summary changes nothing.

function operationOf(transaction: Transaction): SuiteOperation {
  const found = contractOperations.find(
    (operation) => operation.method === transaction.request.method && operation.pathTemplate === transaction.origin.resourceName,
  );
  if (!found) throw new Error(`no operation in generated/openapi.json for ${transaction.request.method} ${transaction.origin.resourceName}`);
  return found;
}

// ---------------------------------------------------------------------------------------------------------------
// Request editing.

function header(transaction: Transaction, name: string): string | undefined {
  const key = Object.keys(transaction.request.headers).find((candidate) => candidate.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : transaction.request.headers[key];
}

function setHeader(transaction: Transaction, name: string, value: string): void {
  removeHeader(transaction, name);
  transaction.request.headers[name] = value;
}

function removeHeader(transaction: Transaction, name: string): void {
  for (const key of Object.keys(transaction.request.headers)) {
    if (key.toLowerCase() === name.toLowerCase()) delete transaction.request.headers[key];
  }
}

/** The path parameters of the request as Dredd built it, from the examples the contract gives them. */
function pathParameters(transaction: Transaction): Record<string, string> {
  const segments = new URL(transaction.request.uri, 'http://request.invalid').pathname.split('/');
  const values: Record<string, string> = {};
  transaction.origin.resourceName.split('/').forEach((segment, index) => {
    const name = /^\{(.+)\}$/.exec(segment)?.[1];
    const value = segments[index];
    if (name !== undefined && value !== undefined) values[name] = decodeURIComponent(value);
  });
  return values;
}

interface UriChange {
  path?: Record<string, string>;
  query?: Record<string, string | number>;
  dropQuery?: string[];
}

/**
 * Rewrites the request target: path parameters by name (per the path template), query parameters set or
 * dropped. Dredd requests `fullPath` (the server URL's path + `request.uri`); `request.uri` is what it reports.
 */
function setUri(transaction: Transaction, { path = {}, query = {}, dropQuery = [] }: UriChange = {}): void {
  const prefix = transaction.fullPath.slice(0, transaction.fullPath.length - transaction.request.uri.length);
  const url = new URL(transaction.request.uri, 'http://request.invalid');
  const segments = url.pathname.split('/');
  transaction.origin.resourceName.split('/').forEach((segment, index) => {
    const name = /^\{(.+)\}$/.exec(segment)?.[1];
    const value = name === undefined ? undefined : path[name];
    if (value !== undefined) segments[index] = encodeURIComponent(value);
  });
  url.pathname = segments.join('/');
  for (const name of dropQuery) url.searchParams.delete(name);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, String(value));
  transaction.request.uri = `${url.pathname}${url.search}`;
  transaction.fullPath = `${prefix}${transaction.request.uri}`;
}

/** Points the request at an absolute URL the API issued (a download link), on the server under test. */
function setTargetUrl(transaction: Transaction, absoluteUrl: string): void {
  const url = new URL(absoluteUrl);
  const base = new URL(target().baseUrl);
  // Dredd sends every request to the server it was given; a link elsewhere (a CDN) cannot be followed.
  if (url.origin !== base.origin) throw new Error(`${absoluteUrl} is not on ${target().baseUrl}, the only server Dredd calls`);
  const prefix = transaction.fullPath.slice(0, transaction.fullPath.length - transaction.request.uri.length);
  const basePath = base.pathname.replace(/\/+$/, '');
  // Dredd adds the server URL's path itself; the issued URL already contains it.
  const path = basePath && url.pathname.startsWith(basePath) ? url.pathname.slice(basePath.length) : url.pathname;
  transaction.request.uri = `${path}${url.search}`;
  transaction.fullPath = `${prefix}${transaction.request.uri}`;
}

function jsonBody<T>(transaction: Transaction): T {
  return JSON.parse(transaction.request.body) as T;
}

function setJsonBody(transaction: Transaction, value: unknown): void {
  transaction.request.body = JSON.stringify(value);
}

function freshIdempotencyKey(): string {
  keyCounter += 1;
  return `dredd-${settings?.runId}-${keyCounter}`;
}

function need<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`needs ${what}, which an earlier transaction did not produce (see its failure above)`);
  return value;
}

function skip(transaction: Transaction, reason: string): void {
  transaction.skip = true;
  skipped.push({ name: transaction.name, reason });
}

/** A call outside Dredd's transactions, for state that no transaction of its own creates. */
async function call(method: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: unknown; text: string }> {
  const response = await fetch(`${target().baseUrl}${path}`, {
    method,
    headers: { authorization: target().apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, json, text };
}

// ---------------------------------------------------------------------------------------------------------------
// The request each operation sends when it is meant to succeed, with the ids of what earlier transactions
// created. The error scenarios start from it and change one thing, so that the error they expect is the only
// thing wrong with the request.

type Edit = (transaction: Transaction) => void;

const succeeding: Record<OperationId, Edit> = {
  listCustomers(t) {
    // The example's cursor was never issued by this server (400 E_CURSOR_INVALID): first pages only.
    setUri(t, { query: { email: state.customerEmail }, dropQuery: ['cursor'] });
  },
  createCustomer(t) {
    // Customers are unique per email: a fixed email would return an existing customer with created: false.
    setJsonBody(t, { ...jsonBody<object>(t), email: state.customerEmail });
  },
  getCustomer(t) {
    setUri(t, { path: { customerId: need(state.customerId, 'the customer of createCustomer 200') } });
  },
  listCompanies(t) {
    setUri(t, { query: { serviceCustomerId: need(state.customerId, 'the customer of createCustomer 200') }, dropQuery: ['cursor'] });
  },
  createCompany(t) {
    setJsonBody(t, { ...jsonBody<object>(t), serviceCustomerId: need(state.customerId, 'the customer of createCustomer 200') });
  },
  getCompany(t) {
    setUri(t, { path: { companyId: need(state.companyId, 'the company of createCompany 202') } });
  },
  listCompanyDocuments(t) {
    setUri(t, { path: { companyId: need(state.companyId, 'the company of createCompany 202') }, dropQuery: ['cursor'] });
  },
  getCompanyDocument(t) {
    setUri(t, {
      path: {
        companyId: need(state.companyId, 'the company of createCompany 202'),
        documentId: need(state.documentId, 'a document listed by listCompanyDocuments 200'),
      },
    });
  },
  downloadCompanyDocument(t) {
    setTargetUrl(t, need(state.downloadUrl, 'the downloadUrl of getCompanyDocument 200'));
  },
  listCountries(t) {
    setUri(t, { dropQuery: ['cursor'] });
  },
  listStates(t) {
    setUri(t, { dropQuery: ['cursor'] });
  },
  listNaicsCodes(t) {
    setUri(t, { dropQuery: ['cursor'] });
  },
  listFilingFees(t) {
    setUri(t, { dropQuery: ['cursor'] });
  },
  simulateCompanyFormation(t) {
    setUri(t, { path: { companyId: need(state.companyId, 'the company of createCompany 202') } });
  },
};

/**
 * Changes a succeeding request into one that gets the documented error. `described` holds the path parameters as
 * Dredd first built the request, from the contract's parameter examples.
 */
type Scenario = (transaction: Transaction, described: Record<string, string>) => void | Promise<void>;

/** `limit` must be 1 to 100: a 0 fails validation whatever else the request says. */
const outOfRangeLimit: Scenario = (t) => setUri(t, { query: { limit: 0 } });

/**
 * The contract's example id for a path parameter: well-formed, and naming nothing this run's partner has (the
 * mock gets a fresh API key per run; on a sandbox the example ids are no one's, or another partner's).
 */
const exampleId =
  (name: string): Scenario =>
  (t, described) =>
    setUri(t, { path: { [name]: need(described[name], `an example of the path parameter ${name} in the contract`) } });

/** Scenarios by "operationId status", applied after `succeeding`. 401, 413, 415, 429, 500 and 503 are handled for all. */
const scenarios: Record<string, Scenario> = {
  'listCustomers 400': outOfRangeLimit,
  'listCompanies 400': outOfRangeLimit,
  'listCompanyDocuments 400': outOfRangeLimit,
  'listCountries 400': outOfRangeLimit,
  'listStates 400': outOfRangeLimit,
  'listNaicsCodes 400': outOfRangeLimit,
  'listFilingFees 400': outOfRangeLimit,
  'getCustomer 400': (t) => setUri(t, { path: { customerId: 'cus_not-an-id' } }),
  'getCompany 400': (t) => setUri(t, { path: { companyId: 'com_not-an-id' } }),
  'getCompanyDocument 400': (t) => setUri(t, { path: { documentId: 'doc_not-an-id' } }),
  'downloadCompanyDocument 400': (t) => setUri(t, { query: { expires: 'soon' } }),

  'getCustomer 404': exampleId('customerId'),
  'getCompany 404': exampleId('companyId'),
  'listCompanyDocuments 404': exampleId('companyId'),
  'getCompanyDocument 404': exampleId('documentId'),
  'simulateCompanyFormation 404': exampleId('companyId'),
  'downloadCompanyDocument 404': (t) =>
    skip(
      t,
      'a download URL is signed over its company and document ids and only issued for an existing document ' +
        '(documents are never deleted), while any other URL is refused with 403 before the lookup',
    ),

  'downloadCompanyDocument 403': (t) => {
    // Any change to a signed URL must read as tampering: alter the last character of the signature.
    const url = new URL(need(state.downloadUrl, 'the downloadUrl of getCompanyDocument 200'));
    const signature = need(url.searchParams.get('signature') ?? undefined, 'a signature in the downloadUrl of getCompanyDocument 200');
    url.searchParams.set('signature', `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`);
    setTargetUrl(t, url.toString());
  },

  'listCompanies 200': async (t) => {
    // Dredd wants every key of the page's example, whose company is a FAILED formation (a `failure` object, not
    // null) with a US mailing address (`region`). This run's formation is COMPLETED with a London address, so a
    // second one, failed that way, is listed instead.
    await createFailedFormation();
    setUri(t, { query: { status: 'FAILED' } });
  },

  // Kept for the 409, which sends the same key with another body.
  'createCustomer 200': (t) => {
    state.customerBody = jsonBody(t);
  },
  // A property the contract does not define: bodies are strict (E_UNKNOWN_FIELD).
  'createCustomer 400': (t) => setJsonBody(t, { ...jsonBody<object>(t), nickname: 'Ada' }),
  'createCustomer 409': (t) => {
    // The key of createCustomer 200 with another body: E_IDEMPOTENCY_KEY_REUSED.
    setHeader(t, 'Idempotency-Key', need(state.customerKey, 'the Idempotency-Key of createCustomer 200'));
    setJsonBody(t, { ...need(state.customerBody, 'the body of createCustomer 200'), firstName: 'Augusta' });
    // Retry-After is documented for E_IDEMPOTENCY_KEY_IN_PROGRESS only (required: false); Dredd 14 ignores
    // `required` on response headers and would expect it here.
    delete t.expected.headers['Retry-After'];
  },

  // Kept for the 409, and for the failed formation of listCompanies 200.
  'createCompany 202': (t) => {
    state.companyBody = jsonBody(t);
  },
  // Members of an LLC must own exactly 100 percent (E_OWNERSHIP_TOTAL_INVALID): a rule, not a schema error.
  'createCompany 400': (t) => {
    const body = jsonBody<RequestBody<'createCompany'>>(t);
    if (body.entityType !== 'LLC') throw new Error(`the example of createCompany is a ${body.entityType} formation; an LLC one is needed`);
    body.members = body.members.map((member, index) => (index === 0 ? { ...member, ownershipPercent: member.ownershipPercent - 10 } : member));
    setJsonBody(t, body);
  },
  'createCompany 409': (t) => {
    setHeader(t, 'Idempotency-Key', need(state.companyKey, 'the Idempotency-Key of createCompany 202'));
    setJsonBody(t, { ...need(state.companyBody, 'the body of createCompany 202'), nameOptions: ['Difference Engines LLC'] });
    delete t.expected.headers['Retry-After'];
  },

  // The example's first body takes one step; completing the formation is what makes its documents ready.
  'simulateCompanyFormation 200': (t) => setJsonBody(t, { target: 'COMPLETED' }),
  'simulateCompanyFormation 400': (t) => setJsonBody(t, { target: 'SIDEWAYS' }),
  // The formation was completed by simulateCompanyFormation 200: E_FORMATION_ALREADY_FINAL.
  'simulateCompanyFormation 409': (t) => {
    if (state.companyStatus !== 'COMPLETED') throw new Error('needs the formation completed by simulateCompanyFormation 200, which did not succeed');
    setJsonBody(t, { target: 'NEXT' });
  },
};

async function createFailedFormation(): Promise<void> {
  const companyBody = need(state.companyBody, 'the body of createCompany 202');
  const body = { ...companyBody, nameOptions: ['Lovelace Engines LLC'], mailingAddress: companyBody.businessAddress };
  const created = await call('POST', '/v1/partner/companies', body, { 'idempotency-key': freshIdempotencyKey() });
  if (created.status !== 202) throw new Error(`creating a second formation answered ${created.status}: ${created.text}`);
  const companyId = (created.json as { payload: Payload<'createCompany'> }).payload.serviceCompanyId;
  const failed = await call('POST', `/v1/partner/sandbox/companies/${companyId}/simulate-formation`, { target: 'FAILED', failureReason: 'NAME_UNAVAILABLE' });
  const failedStatus = (failed.json as { payload?: Payload<'simulateCompanyFormation'> } | undefined)?.payload?.status;
  if (failed.status !== 200 || failedStatus !== 'FAILED') throw new Error(`failing the second formation answered ${failed.status}: ${failed.text}`);
}

// The same for every operation that takes a body.
const bodyScenarios: Record<413 | 415, Edit> = {
  // Past the 1 MiB limit: refused on its size before the body is read, whatever it contains.
  413: (t) => setJsonBody(t, { ...jsonBody<object>(t), padding: oversizedPadding }),
  415: (t) => setHeader(t, 'Content-Type', 'text/plain'),
};

// ---------------------------------------------------------------------------------------------------------------

hooks.beforeAll((transactions, done) => {
  if (!settings) {
    for (const transaction of transactions) {
      transaction.fail = 'CONTRACT_BASE_URL, CONTRACT_API_KEY and CONTRACT_RUN_ID are not set: run the hooks through `npm run test:dredd`';
    }
  }
  done();
});

hooks.beforeEach((transaction, done) => {
  prepare(transaction).then(
    () => {
      // Dredd reports a transaction by an id made from the example's URI; report the request really sent.
      transaction.id = `${transaction.request.method} (${transaction.expected.statusCode}) ${transaction.request.uri}`;
      done();
    },
    (error: unknown) => {
      transaction.fail = `could not prepare the request: ${(error as Error).message}`;
      done();
    },
  );
});

async function prepare(t: Transaction): Promise<void> {
  if (t.fail) return;
  const { operationId, requiresApiKey } = operationOf(t);
  const status = Number(t.expected.statusCode);
  const described = pathParameters(t);

  // Dredd does not apply security schemes: the key goes in by hand, raw (no "Bearer").
  if (requiresApiKey) setHeader(t, 'Authorization', target().apiKey);
  // A key already used with another body is refused (409): every create starts with its own.
  if (header(t, 'Idempotency-Key') !== undefined) setHeader(t, 'Idempotency-Key', freshIdempotencyKey());
  // Echoed in the answer and journaled by the mock: finds this transaction in the mock's log.
  requestCounter += 1;
  setHeader(t, 'x-request-id', `dredd_${settings?.runId}_${requestCounter}`);

  if (status === 401) {
    // No key at all: E_AUTH_MISSING. Everything else about the request is valid.
    succeeding[operationId](t);
    removeHeader(t, 'Authorization');
    return;
  }
  if (status === 429 || status === 500 || status === 503) {
    if (!target().mockAdmin) {
      skip(t, `429, 500 and 503 need the mock's fault injection (/_mock/faults), and ${target().baseUrl} is not a mock this run started`);
      return;
    }
    // A valid request that would succeed; the fault answers it instead of the operation.
    succeeding[operationId](t);
    await armMockFault(target().baseUrl, { operationId, status, count: 1 });
    return;
  }
  if (status === 413 || status === 415) {
    succeeding[operationId](t);
    bodyScenarios[status](t);
    return;
  }

  const scenario = scenarios[`${operationId} ${status}`];
  if (status >= 300 && scenario === undefined) throw new Error(`no scenario produces ${status} for ${operationId}: add one to contract-tests/dredd/hooks.ts`);
  succeeding[operationId](t);
  await scenario?.(t, described);
}

// What the creates and reads answered, for the transactions after them.
hooks.afterEach((t, done) => {
  try {
    remember(t);
  } catch {
    // A body that does not parse has already failed the transaction; later ones report what they miss.
  }
  done();
});

function remember(t: Transaction): void {
  if (t.skip || !t.real || String(t.real.statusCode) !== String(t.expected.statusCode)) return;
  const { operationId } = operationOf(t);
  const body = t.real.body;
  const payload = <K extends OperationId>(_operation: K) => (JSON.parse(body) as { payload: Payload<K> }).payload;
  switch (`${operationId} ${Number(t.expected.statusCode)}`) {
    case 'createCustomer 200':
      state.customerId = payload('createCustomer').serviceCustomerId;
      state.customerKey = header(t, 'Idempotency-Key');
      break;
    case 'createCompany 202':
      state.companyId = payload('createCompany').serviceCompanyId;
      state.companyKey = header(t, 'Idempotency-Key');
      break;
    case 'simulateCompanyFormation 200':
      state.companyStatus = payload('simulateCompanyFormation').status;
      break;
    case 'listCompanyDocuments 200':
      state.documentId = payload('listCompanyDocuments').data[0]?.documentId;
      break;
    case 'getCompanyDocument 200':
      state.downloadUrl = payload('getCompanyDocument').downloadUrl;
      break;
    default:
  }
}

hooks.afterAll((transactions, done) => {
  if (skipped.length > 0) {
    const byReason = new Map<string, string[]>();
    for (const { name, reason } of skipped) byReason.set(reason, [...(byReason.get(reason) ?? []), name]);
    console.log(`\nSkipped ${skipped.length} of ${transactions.length} transactions:`);
    for (const [reason, names] of byReason) {
      console.log(`  ${names.length} because ${reason}:`);
      for (const name of names) console.log(`    - ${name}`);
    }
  }
  done();
});
