/**
 * From what a sandbox answered to a patch of the contract (`npm run propose -- FILE…`, and the review with
 * `--traffic`): where the proxy saw the sandbox answer with a property or a status the contract does not document,
 * the smallest change to `openapi/` that would document it, as a diff at its file and line that `git apply` takes;
 * once applied, nothing is left to document. A status reuses the response another operation documents for it when
 * its body fits. The mock's own answers never count.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatMarkdown } from '../../contract-changes/review/formats/markdown.ts';
import { reviewChange } from '../../contract-changes/review/review.ts';
import { readTrafficFile } from '../../contract-changes/traffic/traffic-file.ts';
import { corpusPath } from '../../contract-tests/traffic/corpus.ts';
import { customerBody, newIdempotencyKey } from '../mock/support/http-fixtures.ts';
import { startTestMock, type TestMock } from '../mock/support/mock-harness.ts';
import { listen } from '../mock/support/upstream-server.ts';
import { recordThroughProxy } from './support/proxy-recording.ts';
import { createReviewProject, type ReviewProject } from './support/review-project.ts';

let folder: string;
let project: ReviewProject;
let recorded: string;
let sandbox: TestMock;

/**
 * A sandbox that answers as the mock does, but for what the contract does not say: a `loyaltyTier` in a customer, a
 * `409` to a list, a `418` to a request whose id is `teapot`.
 */
async function startLooseSandbox(): Promise<{ url: string; close(): void }> {
  sandbox = await startTestMock();
  const { server, url } = await listen(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const { host: _host, connection: _connection, 'content-length': _length, ...headers } = request.headers as Record<string, string>;
    const answer = await fetch(`${sandbox.url}${request.url}`, { method: request.method!, headers, ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}) });
    const json = (await answer.json()) as { payload: Record<string, unknown> | null; error: unknown };
    const requestId = answer.headers.get('x-request-id');
    let status = answer.status;
    if (request.url!.startsWith('/v1/partner/customers/') && status === 200) json.payload!.loyaltyTier = 'gold';
    if (request.url === '/v1/partner/customers?limit=7') [status, json.payload, json.error] = [409, null, { code: 'E_IDEMPOTENCY_KEY_REUSED', message: 'Busy.', requestId }];
    if (request.headers['x-request-id'] === 'teapot') [status, json.payload, json.error] = [418, null, { code: 'E_TEAPOT', message: 'I am one.', requestId }];
    const passed: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (!['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'content-encoding'].includes(name)) passed[name] = value;
    });
    response.writeHead(status, passed).end(JSON.stringify(json));
  });
  return { url, close: () => server.close() };
}

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'propose-'));
  const loose = await startLooseSandbox();
  try {
    recorded = await recordThroughProxy(folder, 'sandbox.json', async (proxy) => {
      const created = await proxy.call('/v1/partner/customers', { body: customerBody(), idempotencyKey: newIdempotencyKey() });
      await proxy.call(`/v1/partner/customers/${created.json.payload.serviceCustomerId}`);
      await proxy.call('/v1/partner/customers?limit=7');
      await proxy.call(`/v1/partner/customers/${created.json.payload.serviceCustomerId}`, { headers: { 'x-request-id': 'teapot' } });
    }, loose.url);
  } finally {
    loose.close();
    await sandbox.close();
  }
  project = await createReviewProject();
}, 60_000);

afterAll(async () => {
  await project?.remove();
  await rm(folder, { recursive: true, force: true });
});

const propose = (...args: string[]) => project.run(project.reviewCommand[0], [join(project.folder, 'contract-changes', 'cli', 'propose.ts'), ...args]);

describe('npm run propose', () => {
  it('writes the smallest change that documents what the sandbox answered, at each file and line', async () => {
    const patch = join(folder, 'documented.diff');
    const run = await propose(recorded, '--out', patch);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/propose: property loyaltyTier, at openapi\/components\/schemas\/Customer\.yaml:6 — seen 1 time in the sandbox's answers of getCustomer, e\.g\. GET \/v1\/partner\/customers\/cus_\w+ → 200 \(sandbox\.json #1\)/);
    expect(run.stderr).toContain('propose: status 409 of listCustomers, at openapi/paths/v1_partner_customers.yaml:');
    expect(run.stderr).toContain('propose: status 418 of getCustomer, at openapi/paths/v1_partner_customers_{customerId}.yaml:');
    const diff = await import('node:fs/promises').then(({ readFile }) => readFile(patch, 'utf8'));
    expect(diff).toContain("+  loyaltyTier:\n+    description: Seen in the sandbox's answers of getCustomer; say what it is.\n+    type: string\n+    examples: [\"gold\"]\n");
    // Another operation documents a 409 whose body fits: reused. No response of the contract fits the 418's unknown code.
    expect(diff).toContain("+    '409':\n+      $ref: ../components/responses/IdempotencyConflict.yaml\n");
    expect(diff).toMatch(/\+    '418':\n\+      description: Seen in the sandbox's answers of getCustomer; say when it is answered\.\n     '429':/);
    expect((await project.git('apply', '--check', patch))).toBe('');
  }, 60_000);

  it('leaves nothing to document once the change is applied', async () => {
    const patch = join(folder, 'applied.diff');
    await propose(recorded, '--out', patch);
    await project.git('apply', patch);
    try {
      const again = await propose(recorded);
      expect([again.code, again.stdout, again.stderr.trim()]).toEqual([0, '', 'propose: nothing to document: the contract documents every status and property of the 4 answers of the sandbox here.']);
    } finally {
      await project.git('checkout', '--quiet', '--', 'openapi');
    }
  }, 60_000);

  it("takes no answer of the mock's own for the sandbox's", async () => {
    const run = await propose(corpusPath);
    expect([run.code, run.stdout]).toEqual([0, '']);
    expect(run.stderr).toContain("nothing to document: no answer here is a sandbox's (answeredBy: upstream)");
  }, 30_000);

  it('needs a file, and refuses one it cannot read with its code', async () => {
    expect((await propose()).code).toBe(2);
    const missing = await propose(join(folder, 'missing.json'));
    expect([missing.code, missing.stderr]).toEqual([7, expect.stringContaining('propose: error[traffic-unreadable]:')]);
    expect((await propose('--help')).stdout).toContain('Usage: npm run propose -- FILE… [--out PATCH]');
  }, 30_000);
});

describe('the review with the recording', () => {
  it('proposes the same change, as a diff in its comment', async () => {
    const review = await reviewChange({ projectRoot: project.folder, traffic: [await readTrafficFile(recorded)] });
    const markdown = formatMarkdown(review);
    expect(markdown).toContain('### What the sandbox answered that the contract does not document');
    expect(markdown).toMatch(/```diff\n--- a\/openapi\/components\/schemas\/Customer\.yaml\n\+\+\+ b\/openapi\/components\/schemas\/Customer\.yaml\n@@ /);
    expect(review.traffic!.documentation.patches.map((patch) => patch.what).sort()).toEqual(['property loyaltyTier', 'status 409 of listCustomers', 'status 418 of getCustomer']);
  }, 60_000);
});
