/**
 * `writeAnswer`, the one place an answer goes on the wire: every header value it writes is made of characters a
 * header may carry (the rest escaped, never dropped, and no text ever ends a header line early), and an answer it
 * cannot write at all goes out as a 500 saying so, with the reason phrase of a 500, and is what it hands back.
 * `sendAnswer` journals what was sent, even when the answer's check itself failed.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Answer } from '../../../mock/http/answer.ts';
import { headerValue } from '../../../mock/http/header-value.ts';
import { NodeRequest } from '../../../mock/http/node-request.ts';
import { NodeAnswerWriter, writeAnswer, type Sent } from '../../../mock/http/write-answer.ts';
import { parseRequestTarget } from '../../../mock/http/request-target.ts';
import { newExchange, type Exchange } from '../../../mock/pipeline/exchange.ts';
import { respond } from '../../../mock/pipeline/reply.ts';
import { sendAnswer } from '../../../mock/pipeline/send-answer.ts';
import { rawRequest } from '../support/http-call.ts';

let server: Server | undefined;
afterEach(() => {
  server?.closeAllConnections();
  server?.close();
  server = undefined;
});

/** Serves `answer` once through writeAnswer; resolves with what writeAnswer said it sent and what the client read. */
async function serve(answer: Answer, destination: 'response' | 'socket' = 'response'): Promise<{ sent: Sent; status: number; reason: string; headers: IncomingHttpHeaders; body: string }> {
  let sent: Sent | undefined;
  server = createServer((request, response) => {
    sent = destination === 'response' ? writeAnswer({ response }, answer, request.method ?? 'GET') : writeAnswer({ socket: response.socket as NonNullable<typeof response.socket> }, answer, request.method ?? 'GET');
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const got = await rawRequest(`http://127.0.0.1:${port}`, 'GET', '/');
  if (!sent) throw new Error('writeAnswer was not called');
  return { sent, ...got, body: got.body.toString() };
}

function answerWith(headers: Record<string, string>, status = 200): Answer {
  return { status, headers: {}, finalHeaders: { 'content-type': 'application/json', 'x-request-id': 'req-write', ...headers }, body: '{}' };
}

describe('header values', () => {
  it('escapes what a header may not carry as the percent-escapes of its UTF-8 bytes, and leaves the rest as it is', () => {
    expect(headerValue('3: body/a: must be string | body: … and 2 more')).toBe('3: body/a: must be string | body: %E2%80%A6 and 2 more');
    expect(headerValue('ключ')).toBe('%D0%BA%D0%BB%D1%8E%D1%87');
    expect(headerValue('café')).toBe('caf%C3%A9');
    expect(headerValue('a\r\nset-cookie: x=1')).toBe('a%0D%0Aset-cookie: x=1');
    expect(headerValue('nul\u0000 del\u007F')).toBe('nul%00 del%7F');
    expect(headerValue('half \ud800 a character')).toBe('half %EF%BF%BD a character');
    // A value with nothing to escape is written as it is, its own escapes included; escaping twice changes nothing.
    expect(headerValue('</v1/x?a=%20b>; rel="next"\tq')).toBe('</v1/x?a=%20b>; rel="next"\tq');
    expect(headerValue(headerValue('… ключ'))).toBe(headerValue('… ключ'));
    expect(decodeURIComponent(headerValue('… ключ café'))).toBe('… ключ café');
  });

  for (const destination of ['response', 'socket'] as const) {
    it(`are escaped on the wire (${destination}), and handed back as sent`, async () => {
      const got = await serve(answerWith({ 'x-note': 'a … b', 'x-injected': 'one\r\nx-two: 2' }), destination);
      expect([got.status, got.reason]).toEqual([200, 'OK']);
      expect(got.headers['x-note']).toBe('a %E2%80%A6 b');
      expect(got.headers['x-injected']).toBe('one%0D%0Ax-two: 2');
      expect(got.headers['x-two']).toBeUndefined();
      expect(got.sent.unwritable).toBeUndefined();
      expect(got.sent.answer.finalHeaders).toMatchObject({ 'x-note': 'a %E2%80%A6 b', 'x-injected': 'one%0D%0Ax-two: 2' });
    });
  }
});

describe('an answer that cannot be written', () => {
  it('goes out as a 500 with the reason phrase of a 500, under its request id, and is what writeAnswer hands back', async () => {
    const got = await serve(answerWith({ 'bad name': 'x' }));
    expect([got.status, got.reason]).toEqual([500, 'Internal Server Error']);
    expect(JSON.parse(got.body).error).toMatchObject({ code: 'E_INTERNAL', requestId: 'req-write', message: expect.stringContaining('"bad name"') });
    expect(got.headers['x-request-id']).toBe('req-write');
    expect(got.sent.unwritable).toMatch(/header name "bad name"/);
    expect(got.sent.answer.status).toBe(500);
    expect(got.sent.answer.json).toEqual(JSON.parse(got.body));
  });

  it('is a 500 too when its status is none HTTP has', async () => {
    const got = await serve(answerWith({}, 42));
    expect([got.status, got.reason]).toEqual([500, 'Internal Server Error']);
    expect(got.sent.unwritable).toMatch(/status 42/);
  });

  it('is never "500 OK" when a first attempt to write it failed', async () => {
    // What server.ts does when the pipeline itself failed: a second writeAnswer on a response whose head Node refused.
    let second: Sent | undefined;
    server = createServer((request, response) => {
      try {
        response.writeHead(200, { 'x-broken': '…' });
      } catch {
        second = writeAnswer({ response }, answerWith({}, 500), request.method ?? 'GET');
      }
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const statusLine = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
      socket.on('end', () => resolve(text.split('\r\n')[0] ?? ''));
      socket.on('error', reject);
    });
    expect(statusLine).toBe('HTTP/1.1 500 Internal Server Error');
    expect(second?.answer.status).toBe(500);
  });
});

describe('sendAnswer', () => {
  it('answers a 500 under the request id when the check of the answer fails, and journals that 500', async () => {
    const recorded: Answer[] = [];
    const logged: unknown[] = [];
    const logger = { error: (...line: unknown[]) => logged.push(line), warn: (...line: unknown[]) => logged.push(line) };
    let checks = 0;
    server = createServer((request, response) => {
      const exchange: Exchange = newExchange(new NodeRequest(request), parseRequestTarget(request.url));
      exchange.requestId = 'req-check-broke';
      respond(exchange, { status: 200, payload: { fine: true } });
      const channel = {
        finalise: () => {
          checks += 1;
          throw new RangeError('Maximum call stack size exceeded');
        },
        record: (done: Exchange) => void recorded.push(done.response as Answer),
      };
      sendAnswer(channel, exchange, new NodeAnswerWriter(response), logger);
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const got = await rawRequest(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 'GET', '/');
    expect([got.status, got.reason]).toEqual([500, 'Internal Server Error']);
    expect(got.headers['x-request-id']).toBe('req-check-broke');
    expect(JSON.parse(got.body.toString()).error).toMatchObject({ code: 'E_INTERNAL', requestId: 'req-check-broke' });
    expect(recorded).toHaveLength(1);
    expect(recorded[0]?.status).toBe(500);
    expect(recorded[0]?.finalHeaders?.['x-request-id']).toBe('req-check-broke');
    expect(recorded[0]?.body).toEqual(got.body.toString());
    // Tried on the answer, then on the 500; logged once as the failure it is.
    expect(checks).toBe(2);
    expect(logged).toHaveLength(1);
  });
});
