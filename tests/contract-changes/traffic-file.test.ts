/**
 * A traffic file is data, read as such: one larger than a traffic document may be is refused before it is read, and
 * one that is not JSON, not a traffic document, or holds an API key or a webhook secret is refused with a code of
 * its own; a `$ref` in it is never followed, and a body is text that is only checked. Nothing it holds makes the
 * check of an exchange throw.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContract } from '../../contract-model/document.ts';
import { createExchangeCheck } from '../../contract-changes/traffic/exchange-check.ts';
import { readTrafficFile, TrafficProblem, type TrafficExchange, type TrafficRecording } from '../../contract-changes/traffic/traffic-file.ts';
import { contractFacts } from '../../generated/contract-facts.ts';

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'traffic-file-'));
});
afterAll(() => rm(folder, { recursive: true, force: true }));

const createCustomer = (body: string): TrafficExchange => ({
  request: { operationId: 'createCustomer', method: 'POST', path: '/v1/partner/customers', query: '', queryTruncated: false, headers: { 'content-type': 'application/json', 'idempotency-key': 'k-1' }, body: { bytes: Buffer.byteLength(body), text: body, truncated: false } },
  answer: null,
  answeredBy: 'mock',
});

const recording = (exchanges: unknown[]): TrafficRecording =>
  ({ format: 'partner-formation-traffic/1', recordedBy: { mode: 'mock', from: 'recording', contractVersion: '1.0.0', upstream: null }, exchanges, omitted: 0 }) as TrafficRecording;

async function fileWith(name: string, text: string): Promise<string> {
  const path = join(folder, name);
  await writeFile(path, text);
  return path;
}

async function refusal(path: string, bounds?: typeof contractFacts.traffic): Promise<TrafficProblem> {
  const error = await readTrafficFile(path, bounds).then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(TrafficProblem);
  return error as TrafficProblem;
}

describe('a traffic file refused', () => {
  it('when it is larger than a traffic document may be, before it is read', async () => {
    const path = await fileWith('large.json', JSON.stringify(recording([])));
    const problem = await refusal(path, { ...contractFacts.traffic, maxBytes: 10 });
    expect(problem.code).toBe('traffic-too-large');
    expect(problem.message).toMatch(/over the 10 a traffic document may take/);
  });

  it('when it cannot be read, or is not a file', async () => {
    expect((await refusal(join(folder, 'missing.json'))).code).toBe('traffic-unreadable');
    expect((await refusal(folder)).code).toBe('traffic-unreadable');
  });

  it('when it is not JSON, or not UTF-8', async () => {
    expect((await refusal(await fileWith('text.json', 'exchanges: []'))).code).toBe('traffic-not-json');
    const latin1 = join(folder, 'latin1.json');
    await writeFile(latin1, Buffer.from([0x7b, 0xff, 0x7d]));
    expect((await refusal(latin1)).code).toBe('traffic-not-json');
  });

  it('when it is not a traffic document: a reference in place of an exchange is not followed, but refused', async () => {
    const secretFile = await fileWith('secret.txt', 'do-not-read-me');
    const problem = await refusal(await fileWith('ref.json', JSON.stringify(recording([{ $ref: secretFile }]))));
    expect(problem.code).toBe('traffic-invalid');
    expect(problem.message).not.toContain('do-not-read-me');
    expect((await refusal(await fileWith('other.json', JSON.stringify({ ...recording([]), format: 'har/1.2' })))).code).toBe('traffic-invalid');
    const deep = JSON.stringify(recording([])).replace(/"recordedBy":\{[^}]*\}/, `"recordedBy":${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    expect((await refusal(await fileWith('deep.json', deep))).code).toBe('traffic-invalid');
  });

  it('when it holds an API key or a webhook secret, however it is written, naming the exchange', async () => {
    const key = `dk_test_${'k'.repeat(24)}`;
    const withKey = await fileWith('key.json', JSON.stringify(recording([createCustomer('{}'), createCustomer(JSON.stringify({ email: key.replaceAll('_', '\\u005f') }))])));
    const problem = await refusal(withKey);
    expect([problem.code, problem.message]).toEqual(['traffic-holds-credential', expect.stringContaining('(exchange 1)')]);
    const withSecret = await fileWith('secret.json', JSON.stringify(recording([createCustomer(JSON.stringify({ note: 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0' }))])));
    expect((await refusal(withSecret)).code).toBe('traffic-holds-credential');
  });
});

describe('a traffic file read', () => {
  it('holds masked keys and references as data: the exchange is checked, never followed', async () => {
    const path = await fileWith('data.json', JSON.stringify(recording([createCustomer(JSON.stringify({ $ref: '/etc/passwd', email: 'dk_test_…wxyz' }))])));
    const { document } = await readTrafficFile(path);
    const check = createExchangeCheck(await loadContract(), contractFacts.limits.requestBodyMaxBytes);
    const verdict = check(document.exchanges[0]!);
    expect(verdict.request).toMatchObject({ kind: 'fails', problems: expect.arrayContaining([expect.objectContaining({ field: '/$ref', code: 'E_UNKNOWN_FIELD' })]) });
  });

  it('checks a body nested past any stack as one it could not check, and a body over the limit as the mock refuses it', async () => {
    const check = createExchangeCheck(await loadContract(), 100);
    const deep = `{"email":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    expect(check(createCustomer(deep)).request.kind).not.toBe('passes');
    expect(check(createCustomer(JSON.stringify({ email: 'x'.repeat(200) }))).request).toMatchObject({ kind: 'fails', problems: [{ code: 'E_PAYLOAD_TOO_LARGE' }] });
  });
});
