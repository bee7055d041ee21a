/** Answers are framed by Content-Length, as most API servers send them, not by chunked transfer encoding. */
import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeCheckingJournal } from '../support/journal-check.ts';
import { sandboxKey, startTestMock, type TestMock } from '../support/mock-harness.ts';

let mock: TestMock;

beforeAll(async () => {
  mock = await startTestMock();
});
afterAll(() => closeCheckingJournal(mock));

/** The raw answer as it came off the wire; fetch would hide how it was framed. */
function rawCall(method: string, path: string, body?: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(`${mock.url}${path}`, { method, headers: { authorization: sandboxKey, ...(body ? { 'content-type': 'application/json' } : {}) } }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body: Buffer.concat(chunks) }));
      incoming.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

describe('response framing', () => {
  it.each([
    ['a JSON answer', '/v1/partner/reference/countries?limit=3', 200],
    ['an error answer', '/v1/partner/customers/cus_000000000000000000000000', 404],
  ])('gives %s a Content-Length equal to its bytes, and no chunked encoding', async (_, path, status) => {
    const answer = await rawCall('GET', path);
    expect(answer.status).toBe(status);
    expect(answer.headers['transfer-encoding']).toBeUndefined();
    expect(Number(answer.headers['content-length'])).toBe(answer.body.length);
  });

  it('counts bytes, not characters, for a body with non-ASCII text', async () => {
    const answer = await rawCall('GET', '/v1/partner/reference/countries?limit=20');
    expect(answer.status).toBe(200);
    expect(answer.body.toString('utf8')).toContain('Åland');
    expect(Number(answer.headers['content-length'])).toBe(answer.body.length);
  });

  it('answers HEAD with the length its GET would have, and no body', async () => {
    const get = await rawCall('GET', '/v1/partner/reference/states?limit=2');
    // Read off the socket: Node's HTTP client drops whatever follows the head of a HEAD answer.
    const { port } = new URL(mock.url);
    const bytes = await new Promise<Buffer>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.end(`HEAD /v1/partner/reference/states?limit=2 HTTP/1.1\r\nHost: mock\r\nAuthorization: ${sandboxKey}\r\nConnection: close\r\n\r\n`);
      });
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('end', () => resolve(Buffer.concat(chunks)));
      socket.on('error', reject);
    });
    const text = bytes.toString('latin1');
    const headEnd = text.indexOf('\r\n\r\n');
    expect(text.startsWith('HTTP/1.1 200')).toBe(true);
    expect(text.slice(headEnd + 4)).toBe('');
    expect(/\r\ncontent-length: (\d+)\r\n/i.exec(text.slice(0, headEnd + 2))?.[1]).toBe(String(get.body.length));
  });
});
