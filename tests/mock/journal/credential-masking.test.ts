/**
 * No API key or webhook secret sent to the mock, however it is written and wherever it is put, can be read back
 * from what the mock shows: the journal's list, each entry whole, its live stream, the webhook deliveries, health
 * and the log. The mock runs as a process, as `npm start` runs it (its real logger), and each request carries a key
 * or a secret the way a client, a proxy or an attacker might write one; what is read back is then searched for any
 * eight characters of the secret part, escapes undone and case ignored.
 */
import { once } from 'node:events';
import { createServer, request, type Server } from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMock, startMockProcess, type MockProcess } from '../../../mock/launch/mock-process.ts';
import { customerBody, eventually, llcBody, newIdempotencyKey } from '../support/http-fixtures.ts';

/** The key and the secret that must never be read back: mixed case, base64 with `/` and `+` in it. */
const tail = 'Zq8RvT3mWx5Kp2Ln7Yc4Hb9Fd6Gs1Ja';
const key = `dk_test_${tail}`;
const secretBody = 'MfKQ9r8GKYqrTwjU/PD8ILPZIo2u+LaLaSwXyZcV';
const secret = `whsec_${secretBody}`;
/** The partner the requests are sent for, unless a case sends the key itself. */
const partnerKey = `dk_test_${'p'.repeat(24)}`;

/** Every character written as a percent-escape, in upper or lower case by turns. */
const everyCharacterEscaped = (text: string) => [...text].map((character, index) => `%${character.charCodeAt(0).toString(16)[index % 2 ? 'toLowerCase' : 'toUpperCase']()}`).join('');

interface Case {
  name: string;
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
  contentType?: string;
  /** Set by cases whose request id is their point: they are not found by it. */
  ownRequestId?: true;
}

const cases: Case[] = [
  { name: 'the key as Authorization', headers: { authorization: key } },
  // In a query string.
  { name: 'after %3D in a query value', path: `/v1/partner/customers?filter=ref%3D${key}` },
  { name: 'after %20 in a query value', path: `/v1/partner/customers?q=ref%20${key}` },
  { name: 'after + (a space) in a query value', path: `/v1/partner/customers?q=ref+${key}` },
  { name: 'followed by _ in a query value', path: `/v1/partner/customers?ref=${key}_1` },
  { name: 'percent-encoded in a query', path: `/v1/partner/customers?ref=dk%5Ftest%5F${tail}` },
  { name: 'percent-encoded in lower case', path: `/v1/partner/customers?ref=dk%5ftest%5f${tail}` },
  { name: 'every character percent-encoded', path: `/v1/partner/customers?ref=${everyCharacterEscaped(key)}` },
  { name: 'percent-encoded twice', path: `/v1/partner/customers?ref=dk%255Ftest%255F${tail}` },
  { name: 'as a query parameter name', path: `/v1/partner/customers?${key}=1` },
  { name: 'split across a query parameter name and value', path: `/v1/partner/customers?${key.slice(0, 18)}=${key.slice(18)}` },
  { name: 'run on into more of its characters', path: `/v1/partner/customers?ref=${key}${'Q'.repeat(48)}` },
  { name: 'a whsec_ secret percent-encoded in a query', path: `/v1/partner/customers?s=${encodeURIComponent(secret)}` },
  { name: 'a whsec_ secret with its escapes in lower case', path: `/v1/partner/customers?s=${encodeURIComponent(secret).replace(/%2F/g, '%2f').replace(/%2B/g, '%2b')}` },
  // In a path or a fragment.
  { name: 'percent-encoded in a path', path: `/v1/partner/customers/dk%5Ftest%5F${tail}` },
  { name: 'after a letter in a path', path: `/v1/partner/customers/cus${key}` },
  { name: 'in the path of a route that does not exist', path: `/v1/nothing-here/${key}` },
  { name: 'in a fragment', path: `/v1/partner/customers#${key}` },
  { name: 'in a fragment after a query', path: `/v1/partner/customers?a=1#${key}` },
  // In headers.
  { name: "as a header's name", headers: { [key]: '1' } },
  { name: "split across a header's name and value", headers: { [key.slice(0, 20)]: key.slice(20) } },
  { name: "the prefix as a header's name, the rest its value", headers: { dk_test_: tail } },
  { name: 'in Referer', headers: { referer: `https://partner.example.com/settings?key=${key}` } },
  { name: 'in Origin', headers: { origin: `https://${key}.example.com` } },
  { name: 'in User-Agent', headers: { 'user-agent': `integration/1.0 (${key})` } },
  { name: 'percent-encoded in a custom header', headers: { 'x-note': `dk%5Ftest%5F${tail}` } },
  { name: 'a secret in a custom header', headers: { 'x-note': `signed with ${secret}` } },
  { name: 'as x-request-id', headers: { 'x-request-id': key }, ownRequestId: true },
  { name: 'percent-encoded as x-request-id', headers: { 'x-request-id': `dk%5Ftest%5F${tail}` }, ownRequestId: true },
  // In bodies.
  { name: 'after \\n in a JSON string', body: `{"email":"\\n${key}"}` },
  { name: 'after \\t in a JSON string', body: `{"email":"\\t${key}"}` },
  { name: 'after a letter in a JSON string', body: `{"email":"x${key}"}` },
  { name: 'followed by _ in a JSON string', body: `{"email":"${key}_x"}` },
  { name: 'as a JSON key', body: `{"${key}":1}` },
  { name: 'written with \\u escapes in JSON', body: `{"email":"dk\\u005ftest\\u005f${tail}"}` },
  { name: 'written with \\u escapes in JSON in JSON', body: JSON.stringify({ email: `{"k":"dk\\u005ftest\\u005f${tail}"}` }) },
  { name: 'written with HTML character references', body: `{"email":"dk&#95;test&#x5F;${tail}"}` },
  { name: 'a secret with \\/ in JSON', body: JSON.stringify({ email: secret }).replace('/', '\\/') },
  { name: 'a form body', contentType: 'application/x-www-form-urlencoded', body: `key=${encodeURIComponent(key)}&other=dk%5Ftest%5F${tail}` },
  { name: 'a multipart body', contentType: 'multipart/form-data; boundary=b', body: `--b\r\ncontent-disposition: form-data; name="key"\r\n\r\n${key}\r\n--b--\r\n` },
  { name: 'a text body', contentType: 'text/plain', body: `the key is ${key}.` },
  // Logged, not journaled.
  { name: 'on an admin route', path: `/_mock/requests?limit=1&ref=${key}` },
];

/** Lower-cased, with every escape a reader could undo undone: what someone reading it could make of it. */
function asRead(text: string): string {
  let read = text;
  for (let round = 0; round < 8; round += 1) {
    const next = read
      .replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
      .replace(/\\u([0-9a-f]{4})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
      .replace(/&#x([0-9a-f]+);/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
      .replace(/&#(\d+);/g, (_, decimal: string) => String.fromCharCode(Number(decimal)))
      .replace(/\\([\\/])/g, '$1');
    if (next === read) break;
    read = next;
  }
  return read.toLowerCase();
}

/** Eight characters in a row of the key's or the secret's secret part, as they are or read through escapes. */
const pieces = [tail, secretBody].flatMap((part) => Array.from({ length: part.length - 7 }, (_, index) => part.slice(index, index + 8).toLowerCase()));
function leaksIn(text: string): string[] {
  const plain = text.toLowerCase();
  const read = asRead(text);
  return pieces.filter((piece) => plain.includes(piece) || read.includes(piece));
}

function send(baseUrl: string, one: Case, requestId: string | undefined): Promise<{ status: number; requestId: string | undefined }> {
  const { hostname, port } = new URL(baseUrl);
  const headers: Record<string, string> = { authorization: partnerKey, ...(requestId ? { 'x-request-id': requestId } : {}), ...one.headers };
  if (one.body !== undefined) headers['content-type'] = one.contentType ?? 'application/json';
  if (one.body !== undefined && headers['content-type'] === 'application/json') headers['idempotency-key'] = newIdempotencyKey();
  return new Promise((resolve, reject) => {
    const sent = request({ host: hostname, port, method: one.method ?? (one.body === undefined ? 'GET' : 'POST'), path: one.path ?? '/v1/partner/customers', headers }, (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode ?? 0, requestId: response.headers['x-request-id'] as string | undefined }));
    });
    sent.on('error', reject);
    sent.end(one.body);
  });
}

/** An admin route's answer: its text, and its payload. Without a key, the journal is every partner's. */
async function adminRead(baseUrl: string, path: string, key?: string): Promise<{ text: string; payload: any }> {
  const response = await fetch(`${baseUrl}${path}`, { headers: key ? { authorization: key } : {} });
  const text = await response.text();
  expect(response.status, `${path}: ${text}`).toBe(200);
  return { text, payload: (JSON.parse(text) as { payload: unknown }).payload };
}

/** A receiver that answers every delivery with a redirect to a URL holding the key: each attempt fails, naming it. */
async function redirectingReceiver(): Promise<Server> {
  const server = createServer((incoming, answer) => {
    incoming.resume();
    answer.writeHead(302, { location: `http://127.0.0.1:9/moved/${key}?token=${key}` }).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

describe('keys and secrets are masked wherever the mock shows what it was sent', () => {
  let logDir: string;
  let mock: MockProcess;
  let proxy: MockProcess;
  let receiver: Server;
  const sources = new Map<string, string>();
  /** Request id → the case that sent it. */
  const caseOf = new Map<string, string>();
  const answers = new Map<string, { status: number; requestId: string | undefined }>();

  beforeAll(async () => {
    logDir = await mkdtemp(join(tmpdir(), 'credential-masking-'));
    receiver = await redirectingReceiver();
    const webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/${key}/in`;
    await buildMock();
    // prettier-ignore
    mock = await startMockProcess({ args: ['--store', 'memory', '--log-level', 'debug', '--rate-limit', '100000', '--formation-timeline', 'auto', '--formation-step-delay', '20ms', '--webhook-url', webhookUrl, '--webhook-retry-delays', '20ms'], logDir });

    const stop = new AbortController();
    const stream = await fetch(`${mock.url}/_mock/requests/stream`, { signal: stop.signal });
    const reader = (stream.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
    let streamed = '';
    const reading = (async () => {
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
        if (done) return;
        streamed += value;
      }
    })();

    for (const [index, one] of cases.entries()) {
      const requestId = one.ownRequestId ? undefined : `req_case_${index}`;
      if (requestId) caseOf.set(requestId, one.name);
      answers.set(one.name, await send(mock.url, one, requestId));
    }
    // A formation whose events go to the receiver: each attempt is redirected, the last one disables the endpoint.
    const customer = await fetch(`${mock.url}/v1/partner/customers`, { method: 'POST', headers: { authorization: partnerKey, 'content-type': 'application/json', 'idempotency-key': newIdempotencyKey() }, body: JSON.stringify(customerBody()) });
    const customerId = ((await customer.json()) as { payload: { serviceCustomerId: string } }).payload.serviceCustomerId;
    const company = await fetch(`${mock.url}/v1/partner/companies`, { method: 'POST', headers: { authorization: partnerKey, 'content-type': 'application/json', 'idempotency-key': newIdempotencyKey() }, body: JSON.stringify(llcBody(customerId)) });
    expect(company.status, await company.text()).toBe(202);
    await eventually(async () => (await readFile(mock.logFile, 'utf8')).includes('webhook endpoint disabled'), 20_000, 'the endpoint disabled');
    await send(mock.url, { name: 'the last' }, 'req_masking_end');
    await eventually(() => streamed.includes('req_masking_end'), 10_000, 'the stream to reach the last request');
    stop.abort();
    await reading;
    sources.set('the journal stream', streamed);

    await readJournal(mock, '');
    for (const path of ['/_mock/deliveries', '/_mock/events', '/_mock/health']) sources.set(path, (await adminRead(mock.url, path, partnerKey)).text);

    // A proxy whose upstream's URL holds the key: its start line and its journal show that URL.
    proxy = await startMockProcess({ args: ['--store', 'memory', '--rate-limit', '100000', '--upstream', `${mock.url}/${key}`], logDir: await mkdtemp(join(logDir, 'proxy-')) });
    await send(proxy.url, { name: 'through the proxy' }, 'req_through_proxy');
    await readJournal(proxy, 'proxy ');
    for (const [running, label] of [[mock, ''], [proxy, 'proxy ']] as const) {
      await running.stop();
      const log = await readFile(running.logFile, 'utf8');
      log.split('\n').forEach((line, index) => sources.set(`${label}log line ${index + 1}: ${line.slice(0, 300)}`, line));
    }
  }, 120_000);

  /** The journal's pages and each entry whole, kept as sources to search. */
  async function readJournal(running: MockProcess, label: string): Promise<void> {
    const listed: { id: string; requestId: string }[] = [];
    for (let cursor: string | null = null, first = true; first || cursor !== null; first = false) {
      const page = await adminRead(running.url, `/_mock/requests?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
      sources.set(`${label}the journal list${cursor ? ` after ${cursor}` : ''}`, page.text);
      listed.push(...page.payload.data);
      cursor = page.payload.nextCursor;
    }
    for (const entry of listed) sources.set(`${label}journal entry ${entry.requestId} (${caseOf.get(entry.requestId) ?? 'no case'})`, (await adminRead(running.url, `/_mock/requests/${entry.id}`)).text);
  }

  afterAll(async () => {
    await proxy?.stop();
    await mock?.stop();
    receiver?.close();
    if (logDir) await rm(logDir, { recursive: true, force: true });
  });

  it('journals every case that reached the API (the test reads back what it sent)', () => {
    const read = [...sources.entries()].filter(([source]) => source.startsWith('journal entry')).map(([source]) => source);
    for (const [requestId, name] of caseOf) if (!name.includes('admin route')) expect(read.some((source) => source.startsWith(`journal entry ${requestId} `)), name).toBe(true);
    expect([...sources.values()].some((text) => text.includes('webhook endpoint disabled')), 'the delivery failures logged').toBe(true);
    const proxied = JSON.parse([...sources.entries()].find(([source]) => source.startsWith('proxy journal entry req_through_proxy '))?.[1] ?? 'null') as { payload?: { upstream?: { url?: string } } } | null;
    expect(proxied?.payload?.upstream?.url, 'the upstream, as the proxy journals it').toBe(`${mock.url}/***`);
  });

  it('shows no eight characters of a key or a secret anywhere', () => {
    const leaks = [...sources.entries()].flatMap(([source, text]) => {
      const found = leaksIn(text);
      return found.length === 0 ? [] : [`${source} → ${found.slice(0, 3).join(', ')}`];
    });
    expect(leaks).toEqual([]);
  });

  it('gives a request whose x-request-id holds a credential a new id, and says so in the log', async () => {
    for (const name of ['as x-request-id', 'percent-encoded as x-request-id']) {
      const answer = answers.get(name);
      expect(answer?.status, name).toBe(200);
      expect(answer?.requestId, name).toMatch(/^req_/);
      expect(leaksIn(answer?.requestId ?? ''), name).toEqual([]);
      const said = [...sources.values()].filter((line) => line.includes(`"requestId":"${answer?.requestId}"`) && line.includes('x-request-id'));
      expect(said, `${name}: a log line saying the id sent was not taken`).not.toEqual([]);
    }
  });
});
