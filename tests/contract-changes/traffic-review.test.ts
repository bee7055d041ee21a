/**
 * A change to the contract reviewed with recorded traffic (`npm run review -- --traffic FILE…`): the contract suite's
 * own traffic, which ships with the repository, and a recording made through the proxy. A change that makes
 * `phoneNumber` required names the recorded requests it would refuse, with an example and its field error; a
 * compatible change names none; a change that removes a field of what partners receive names the recorded answers
 * that carried it. Each in every format, and the command refuses a traffic file it cannot replay.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatGithub } from '../../contract-changes/review/formats/github.ts';
import { formatHtml } from '../../contract-changes/review/formats/html.ts';
import { formatJunit } from '../../contract-changes/review/formats/junit.ts';
import { formatMarkdown } from '../../contract-changes/review/formats/markdown.ts';
import { formatText } from '../../contract-changes/review/formats/text.ts';
import { reviewChange, type Review, type ReviewedChange } from '../../contract-changes/review/review.ts';
import { readTrafficFile, type TrafficExchange, type TrafficFile } from '../../contract-changes/traffic/traffic-file.ts';
import { corpusPath } from '../../contract-tests/traffic/corpus.ts';
import { customerBody, newIdempotencyKey } from '../mock/support/http-fixtures.ts';
import { createReviewProject, type ReviewProject } from './support/review-project.ts';
import { recordThroughProxy } from './support/proxy-recording.ts';

let folder: string;
let project: ReviewProject;
let traffic: TrafficFile[];
let proxyFile: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'traffic-review-'));
  proxyFile = await recordThroughProxy(folder, 'proxy.json', async (proxy) => {
    for (let count = 0; count < 3; count += 1) {
      const { phoneNumber: _left, ...withoutPhone } = customerBody();
      expect((await proxy.call('/v1/partner/customers', { body: withoutPhone, idempotencyKey: newIdempotencyKey() })).status).toBe(200);
    }
    const created = await proxy.call('/v1/partner/customers', { body: customerBody(), idempotencyKey: newIdempotencyKey() });
    await proxy.call(`/v1/partner/customers/${created.json.payload.serviceCustomerId}`);
    await proxy.call('/v1/partner/customers?limit=2');
  });
  traffic = [await readTrafficFile(corpusPath), await readTrafficFile(proxyFile)];
  project = await createReviewProject();
}, 60_000);

afterAll(async () => {
  await project?.remove();
  await rm(folder, { recursive: true, force: true });
});

const exchanges = (): TrafficExchange[] => traffic.flatMap(({ document }) => document.exchanges);
const bodyOf = (text: string | null | undefined): unknown => {
  try {
    return JSON.parse(text ?? '');
  } catch {
    return undefined;
  }
};
const recordedOf = (operationId: string) => exchanges().filter((exchange) => exchange.request.operationId === operationId);
const accepted = (exchange: TrafficExchange) => (exchange.answer?.status ?? 0) >= 200 && (exchange.answer?.status ?? 0) < 300;

async function reviewOf(edit: () => Promise<void>): Promise<Review> {
  await project.git('checkout', '--quiet', '--', 'openapi');
  await edit();
  return reviewChange({ projectRoot: project.folder, traffic });
}

const changeAt = (review: Review, file: string): ReviewedChange => review.changes.find((change) => change.place.file === file)!;

describe('a change that makes phoneNumber required', () => {
  const file = 'openapi/components/schemas/CustomerCreateRequest.yaml';
  let review: Review;
  beforeAll(async () => {
    review = await reviewOf(() => project.edit(file, 'required: [email, firstName, lastName, countryOfResidence]', 'required: [email, firstName, lastName, countryOfResidence, phoneNumber]'));
  }, 60_000);

  it('names the recorded requests it would refuse, of the suite and of the proxy, with an example and its field error', () => {
    // Those the mock accepted (so the base allows them) that leave phoneNumber out: the suite's, and the proxy's three.
    const refused = recordedOf('createCustomer').filter((exchange) => accepted(exchange) && !Object.hasOwn(bodyOf(exchange.request.body?.text) as object, 'phoneNumber'));
    expect(refused.length).toBeGreaterThanOrEqual(3);
    const traffic = review.traffic!.byChange.get(changeAt(review, file));
    expect(traffic?.lines).toEqual([
      expect.objectContaining({ kind: 'refuses', operationId: 'createCustomer', count: refused.length, of: recordedOf('createCustomer').length, example: expect.objectContaining({ detail: 'body /phoneNumber: Required. (E_REQUIRED)' }) }),
    ]);
    expect(review.traffic!.newlyFailing).toEqual({ request: refused.length, answer: 0 });
    expect(review.traffic!.unexplained).toEqual([]);
  });

  it('lists what failed the base already apart, not blamed on the change', () => {
    const failedBase = review.traffic!.failedBase.find((group) => group.side === 'request' && group.operationId === 'createCustomer');
    expect(failedBase?.count).toBeGreaterThan(0);
    expect(failedBase?.example.status).toBe(400);
  });

  it('says so in every format', () => {
    const said = `refuses ${review.traffic!.newlyFailing.request} of ${recordedOf('createCustomer').length} recorded requests of createCustomer, e.g. POST /v1/partner/customers`;
    for (const [format, text] of Object.entries({ text: formatText(review), markdown: formatMarkdown(review), html: formatHtml(review), junit: formatJunit(review), github: formatGithub(review) })) {
      expect(text, format).toContain(said);
      expect(text, format).toMatch(/phoneNumber: Required\. \(E(\\_|_)REQUIRED\)/);
    }
    expect(formatMarkdown(review)).toContain('### Recorded traffic');
    expect(formatGithub(review)).toMatch(/^::warning file=openapi\/components\/schemas\/CustomerCreateRequest\.yaml,line=5,title=Recorded traffic/m);
  });
});

describe('a compatible change', () => {
  it('names no recorded exchange', async () => {
    const review = await reviewOf(() => project.edit('openapi/components/schemas/CustomerCreateRequest.yaml', '  phoneNumber:\n    $ref: ./PhoneNumber.yaml\n', '  phoneNumber:\n    $ref: ./PhoneNumber.yaml\n  middleName:\n    $ref: ./PersonName.yaml\n'));
    expect(review.changes).toHaveLength(1);
    expect(review.traffic!.byChange.get(review.changes[0]!)).toEqual({ lines: [] });
    expect(review.traffic!.newlyFailing).toEqual({ request: 0, answer: 0 });
    expect(formatMarkdown(review)).not.toContain('recorded traffic:');
    expect(formatMarkdown(review)).toContain('None passes the base contract and fails the proposal.');
  }, 60_000);
});

describe('a change that removes a field partners receive', () => {
  it('names the recorded answers that carried it', async () => {
    const file = 'openapi/components/schemas/Customer.yaml';
    const review = await reviewOf(async () => {
      await project.edit(file, 'phoneNumber, created, companies, createdAt]', 'phoneNumber, companies, createdAt]');
      const text = await readFile(join(project.folder, file), 'utf8');
      await project.edit(file, text.slice(text.indexOf('  created:\n'), text.indexOf('  companies:\n')), '');
    });
    const removed = review.changes.find((change) => change.action === 'removed')!;
    const carried = (operationId: string, field: (json: any) => unknown[]) => recordedOf(operationId).filter((exchange) => exchange.answer?.status === 200 && field(bodyOf(exchange.answer.body?.text)).length > 0).length;
    const lines = review.traffic!.byChange.get(removed)!.lines;
    expect(Object.fromEntries(lines.map((line) => [line.operationId, [line.kind, line.field, line.count]]))).toEqual({
      createCustomer: ['carries', '/payload/created', carried('createCustomer', (json) => ('created' in (json?.payload ?? {}) ? [1] : []))],
      getCustomer: ['carries', '/payload/created', carried('getCustomer', (json) => ('created' in (json?.payload ?? {}) ? [1] : []))],
      listCustomers: ['carries', '/payload/data/[]/created', carried('listCustomers', (json) => (json?.payload?.data ?? []).filter((item: object) => 'created' in item))],
    });
    expect(lines.every((line) => line.count > 0)).toBe(true);
    expect(formatText(review)).toMatch(/recorded answers? of getCustomer carr(y|ies) \/payload\/created, e\.g\. GET \/v1\/partner\/customers\/cus_\w+ → 200 \(\S+ #\d+\): \/payload\/created: (true|false)/);
  }, 60_000);
});

describe('npm run review -- --traffic', () => {
  it('refuses a traffic file it cannot replay with its own status and code, and names after the option only', async () => {
    const notJson = join(folder, 'not.json');
    await import('node:fs/promises').then(({ writeFile }) => writeFile(notJson, 'not json'));
    const refused = await project.review('--traffic', notJson);
    expect([refused.code, refused.stderr]).toEqual([7, expect.stringContaining(`review: error[traffic-not-json]: ${notJson}: not JSON`)]);
    const stray = await project.review(proxyFile);
    expect([stray.code, stray.stderr]).toEqual([2, expect.stringContaining('files are named after --traffic')]);
  }, 60_000);

  it('reads several files after the option', async () => {
    await project.git('checkout', '--quiet', '--', 'openapi');
    const run = await project.review('--format', 'text', '--traffic', corpusPath, proxyFile);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Recorded traffic: ${exchanges().length.toLocaleString('en-US')} recorded exchanges from ${corpusPath}`);
  }, 60_000);
});
