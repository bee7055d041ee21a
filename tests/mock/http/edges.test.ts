/**
 * The mock's own edges, as an attacker trial found them: bytes that are not UTF-8 (its message), duplicate JSON keys
 * (which JSON allows and the mock refuses), a client that leaves mid-body, an oversized or stalled upload, and
 * requests Node refuses before any route sees them: none may get a 5xx, a crash, an error-level log line, or go
 * unjournaled. Its configurable timeouts (--headers-timeout, --request-timeout) are tested here too. Framing cases
 * go over raw sockets, since an HTTP client would refuse to send them or hide how they were answered.
 *
 * What the contract promises of those requests is tested in contract-tests/, against the mock and any sandbox:
 * the refusals before routing (400 E_MALFORMED_REQUEST, 408, 413, 417, 431, with the envelope, x-request-id and
 * Connection: close) in refusals-before-routing.test.ts, a body that is not UTF-8 refused as E_MALFORMED_JSON in
 * requests.test.ts.
 */
import { connect, type Socket } from 'node:net';
import { readAnswer as readSocketAnswer, type SocketAnswer } from '../../../contract-tests/support/read-answer.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeCheckingJournal, journalOf } from '../support/journal-check.ts';
import { customerBody, newIdempotencyKey } from '../support/http-fixtures.ts';
import { sandboxKey, startTestMock, type TestMock } from '../support/mock-harness.ts';

let mock: TestMock;

beforeAll(async () => {
  mock = await startTestMock();
});
afterAll(() => closeCheckingJournal(mock));

/** An answer as read off the socket; `json` loosely typed, as these tests reach into the envelope. */
type RawAnswer = Omit<SocketAnswer, 'json'> & { json: any };

function open(target: TestMock): Socket {
  const { port } = new URL(target.url);
  const socket = connect(Number(port), '127.0.0.1');
  // A server that stops reading an upload may reset the connection under a client still writing: expected here.
  socket.on('error', () => undefined);
  return socket;
}

/** The first final (non-1xx) answer read off the socket. */
const readAnswer = (socket: Socket): Promise<RawAnswer> => readSocketAnswer(socket);

/** Sends the bytes as they are and reads the answer. */
async function rawExchange(text: string | Buffer, target: TestMock = mock): Promise<RawAnswer> {
  const socket = open(target);
  try {
    const answer = readAnswer(socket);
    socket.write(text);
    return await answer;
  } finally {
    socket.destroy();
  }
}

function untilClosed(socket: Socket): Promise<void> {
  return new Promise((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));
}

/** Waits (without a deadline of its own: the test's timeout is one) for the journal entry of a request. */
async function journaled(target: TestMock, requestId: string) {
  for (;;) {
    const entry = (await journalOf(target)).find((candidate) => candidate.requestId === requestId);
    if (entry) return entry;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function postCustomer(body: Buffer | string, extraHeaders = ''): string | Buffer {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const head =
    `POST /v1/partner/customers HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${sandboxKey}\r\nContent-Type: application/json\r\n` +
    `Idempotency-Key: ${newIdempotencyKey()}\r\nContent-Length: ${bytes.length}\r\n${extraHeaders}\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), bytes]);
}

describe('a JSON body that is not UTF-8', () => {
  const valid = JSON.stringify(customerBody({ firstName: 'PLACEHOLDER' }));
  it.each([
    ['two bytes that start no character', Buffer.from([0xff, 0xfe])],
    ['an overlong encoding of "/"', Buffer.from([0xc0, 0xaf])],
    ['an encoded surrogate', Buffer.from([0xed, 0xa0, 0x80])],
    ['a sequence cut short', Buffer.from([0xe2, 0x82])],
  ])('is refused as E_MALFORMED_JSON with a message that names UTF-8: %s', async (_, bad) => {
    const [before, after] = valid.split('PLACEHOLDER') as [string, string];
    const body = Buffer.concat([Buffer.from(`${before}Ad`, 'utf8'), bad, Buffer.from(after, 'utf8')]);
    const answer = await rawExchange(postCustomer(body));
    expect([answer.status, answer.json?.error?.code]).toEqual([400, 'E_MALFORMED_JSON']);
    expect(answer.json.error.message).toMatch(/UTF-8/);
  });
});

describe('a JSON body with a lone surrogate', () => {
  const rest = JSON.stringify(customerBody()).slice(1);
  it.each([
    ['in a value', `{"firstName":"Ad\\ud800",${rest}`, /the string at \/firstName/],
    ['in a value nested in an array', `{"tags":[1,"\\udc00x"],${rest}`, /the string at \/tags\/1/],
    ['in a key', `{"a\\ud800b":1,${rest}`, /the key "a\\ud800b" at the top/],
  ])('is refused as E_MALFORMED_JSON naming where, with the surrogate written as an escape: %s', async (_, text, where) => {
    const result = await mock.call('/v1/partner/customers', { rawBody: text, idempotencyKey: newIdempotencyKey() });
    expect([result.status, result.json.error.code], JSON.stringify(result.json)).toEqual([400, 'E_MALFORMED_JSON']);
    expect(result.json.error.message).toMatch(where);
    expect(result.json.error.message).toMatch(/lone surrogate/);
    // The answer itself is text: the message shows the surrogate as an escape, never as the character.
    expect(result.json.error.message).not.toMatch(/[\ud800-\udfff]/);
  });
});

describe('a JSON body with a duplicate key', () => {
  const body = customerBody();
  const rest = JSON.stringify(body).slice(1);
  it.each([
    ['at the top, the first value invalid', `{"email":"not an email",${rest}`, 'email', '/email'],
    ['spelt with an escape', `{"\\u0065mail":"not an email",${rest}`, 'email', '/email'],
    ['in a nested object', `{"address":{"line1":"1 Main St","line1":"2 Main St"},${rest}`, 'line1', '/address/line1'],
    ['in an object inside an array', `{"tags":[{},{"a/b~c":1,"a/b~c":2}],${rest}`, 'a/b~c', '/tags/1/a~1b~0c'],
  ])('is refused as E_MALFORMED_JSON naming the key and its pointer: %s', async (_, text, key, pointer) => {
    const result = await mock.call('/v1/partner/customers', { rawBody: text, idempotencyKey: newIdempotencyKey() });
    expect(result.status, JSON.stringify(result.json)).toBe(400);
    expect(result.json.error.code).toBe('E_MALFORMED_JSON');
    expect(result.json.error.message).toContain(JSON.stringify(key));
    expect(result.json.error.message).toContain(pointer);
  });

  it('is no duplicate when the same name is in two different objects: the body goes on to validation', async () => {
    const result = await mock.call('/v1/partner/customers', { rawBody: `{"x":{"k":1},"y":[{"k":1},{"k":2}],${rest}`, idempotencyKey: newIdempotencyKey() });
    expect(result.status, JSON.stringify(result.json)).toBe(400);
    expect(result.json.error.code).toBe('E_VALIDATION_FAILED');
    expect(result.json.error.details.map((detail: { field: string }) => detail.field)).toEqual(['/x', '/y']);
  });
});

describe('a client that leaves in the middle of its body', () => {
  it.each([
    ['with a Content-Length', 'Content-Length: 200', '{"email":"ada@'],
    ['chunked', 'Transfer-Encoding: chunked', '10\r\n{"email":"ada@ex'],
  ])('is journaled as 499, not a 5xx, and logged below error level (%s)', async (label, framing, partial) => {
    const requestId = `edge-left-${label.replace(/\W+/g, '-')}`;
    const socket = open(mock);
    // Expect: 100-continue makes the mock say when the request reached it: only then does the client leave.
    const continued = new Promise<void>((resolve) => socket.on('data', (chunk: Buffer) => chunk.toString('latin1').startsWith('HTTP/1.1 100') && resolve()));
    socket.write(
      `POST /v1/partner/customers HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${sandboxKey}\r\nContent-Type: application/json\r\n` +
        `Idempotency-Key: ${newIdempotencyKey()}\r\nx-request-id: ${requestId}\r\nExpect: 100-continue\r\n${framing}\r\n\r\n`,
    );
    await continued;
    socket.write(partial);
    socket.destroy();

    const entry = await journaled(mock, requestId);
    expect(entry.status).toBe(499);
    expect(entry.errorCode).toBeNull();
    const lines = mock.logs.filter((line) => line.requestId === requestId);
    expect(lines.filter((line) => (line.level as number) >= 50)).toEqual([]);
    expect(lines.some((line) => line.level === 30 && line.status === 499)).toBe(true);
    expect(mock.logs.some((line) => line.msg === 'request failed')).toBe(false);
  });
});

describe('an oversized upload', () => {
  it('refused while its chunked body is still streaming, is journaled as 413 with its id', async () => {
    const socket = open(mock);
    const answer = readAnswer(socket);
    let answered = false;
    void answer.then(
      () => (answered = true),
      () => (answered = true),
    );
    socket.write(
      `POST /v1/partner/customers HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${sandboxKey}\r\nContent-Type: application/json\r\n` +
        `Idempotency-Key: ${newIdempotencyKey()}\r\nx-request-id: edge-upload-413\r\nTransfer-Encoding: chunked\r\n\r\n`,
    );
    // JSON white space, 64 KiB a chunk; the final chunk (0) is never sent.
    const data = Buffer.alloc(64 * 1024, 0x20);
    const frame = Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')]);
    const most = 16 * 1024 * 1024;
    let sent = 0;
    while (!answered && sent < most) {
      await Promise.race([new Promise((resolve) => socket.write(frame, resolve)), answer]);
      sent += data.length;
    }
    expect(answered, `no answer after ${sent} bytes of an unfinished upload`).toBe(true);
    expect((await answer).status).toBe(413);
    await untilClosed(socket);
    expect((await journaled(mock, 'edge-upload-413')).status).toBe(413);
  });
  it('reaches a client on a slow link that writes its whole body (4 MiB over about 2 s) before it reads', async () => {
    // The 413 goes out at once; the mock must go on reading and dropping what the client sends for as long as it
    // keeps coming (within bounds), or it resets the connection under the client and the answer is lost unread.
    const socket = open(mock);
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const chunks = 64;
    socket.pause();
    const answer = readAnswer(socket);
    const errors: string[] = [];
    socket.on('error', (error: NodeJS.ErrnoException) => errors.push(error.code ?? error.message));
    socket.write(postCustomer('').toString('latin1').replace('Content-Length: 0', `Content-Length: ${chunk.length * chunks}`));
    for (let index = 0; index < chunks && !socket.destroyed; index += 1) {
      socket.write(chunk);
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    socket.resume();
    try {
      expect(errors, 'errors while the body was written').toEqual([]);
      expect((await answer).status).toBe(413);
    } finally {
      socket.destroy();
    }
  });

  it('is not read for ever: a client that never stops sending is disconnected within the lingering bounds', async () => {
    // Half-open allowed: the mock's end of its answer does not end this side, which goes on writing.
    const socket = connect({ port: Number(new URL(mock.url).port), host: '127.0.0.1', allowHalfOpen: true });
    socket.on('error', () => undefined);
    socket.write(postCustomer('').toString('latin1').replace('Content-Length: 0', `Content-Length: ${1024 * 1024 * 1024}`));
    const answer = readAnswer(socket);
    const chunk = Buffer.alloc(256 * 1024, 0x20);
    const startedAt = Date.now();
    // Sends as fast as the mock reads, until the mock closes the connection.
    while (!socket.destroyed && Date.now() - startedAt < 30_000) await new Promise((resolve) => socket.write(chunk, resolve));
    expect(socket.destroyed, 'still connected after 30 s').toBe(true);
    console.log(`a client that never stops sending was disconnected after ${Date.now() - startedAt} ms`);
    expect((await answer).status).toBe(413);
  }, 40_000);

  it('lingers on 64 connections at most: past them, a refused upload is closed once its answer is out (an attack costs no gigabyte read)', async () => {
    const port = Number(new URL(mock.url).port);
    const sockets = Array.from({ length: 70 }, () => {
      const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
      socket.on('error', () => undefined);
      socket.write(postCustomer('').toString('latin1').replace('Content-Length: 0', `Content-Length: ${1024 * 1024 * 1024}`));
      return socket;
    });
    try {
      const answers = await Promise.all(sockets.map((socket) => readAnswer(socket)));
      expect(answers.every((answer) => answer.status === 413)).toBe(true);
      // Each keeps sending a little: a lingering connection stays open, one past the bound is closed.
      const feeding = setInterval(() => {
        for (const socket of sockets) if (!socket.destroyed) socket.write(' ');
      }, 100);
      try {
        await expect.poll(() => sockets.filter((socket) => socket.destroyed).length, { timeout: 5_000 }).toBeGreaterThanOrEqual(6);
        expect(sockets.filter((socket) => !socket.destroyed).length).toBeLessThanOrEqual(64);
      } finally {
        clearInterval(feeding);
      }
    } finally {
      for (const socket of sockets) socket.destroy();
    }
  });

  it("reaches Node's fetch, which writes its whole body before it reads, every time: 50 tries over 1 MiB, all 413, none EPIPE", async () => {
    // A body that declares its length over the limit is answered at once, while fetch is still writing it: the
    // connection must then stay readable until the client has read the answer (RFC 9112 section 9.6).
    const body = Buffer.alloc(2 * 1024 * 1024 + 1, 0x20);
    const outcomes: string[] = [];
    for (let attempt = 0; attempt < 50; attempt += 1) {
      try {
        const response = await fetch(`${mock.url}/v1/partner/customers`, {
          method: 'POST',
          headers: { authorization: sandboxKey, 'content-type': 'application/json', 'idempotency-key': newIdempotencyKey() },
          body,
        });
        outcomes.push(`${response.status} ${((await response.json()) as { error: { code: string } }).error.code}`);
      } catch (error) {
        const cause = (error as { cause?: { code?: string; message?: string } }).cause;
        outcomes.push(`failed: ${cause?.code ?? cause?.message ?? (error as Error).message}`);
      }
    }
    expect(outcomes.filter((outcome) => outcome !== '413 E_PAYLOAD_TOO_LARGE')).toEqual([]);
  }, 60_000);
});

describe('a client too slow to send its request, against the timeouts the mock was started with', () => {
  let slow: TestMock;
  // Far below the defaults (10 s and 30 s): an answer this soon can only come from the settings.
  const headersTimeoutMs = 200;
  const requestTimeoutMs = 300;

  beforeAll(async () => {
    slow = await startTestMock({ headersTimeoutMs, requestTimeoutMs });
  });
  afterAll(() => closeCheckingJournal(slow));

  it('gets 408 E_REQUEST_TIMEOUT once --headers-timeout passes without its headers', async () => {
    const socket = open(slow);
    const answer = readAnswer(socket);
    const started = Date.now();
    socket.write(`GET /v1/partner/reference/countries HTTP/1.1\r\nHost: localhost\r\n`);
    const result = await answer;
    expect([result.status, result.json?.error?.code]).toEqual([408, 'E_REQUEST_TIMEOUT']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(headersTimeoutMs - 50);
    expect(Date.now() - started).toBeLessThan(5_000);
    await untilClosed(socket);
  });

  it('gets 408 E_REQUEST_TIMEOUT once --request-timeout passes without its body, journaled with its id', async () => {
    const socket = open(slow);
    const answer = readAnswer(socket);
    const started = Date.now();
    socket.write(postCustomer('{"email":', 'x-request-id: edge-stalled\r\n').toString('latin1').replace('Content-Length: 9', 'Content-Length: 900'));
    const result = await answer;
    expect([result.status, result.json?.error?.code]).toEqual([408, 'E_REQUEST_TIMEOUT']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(requestTimeoutMs - 50);
    expect(Date.now() - started).toBeLessThan(5_000);
    socket.destroy();
    expect((await journaled(slow, 'edge-stalled')).status).toBe(408);
  });
});

describe('refusals before routing', () => {
  const get = (headers: string) => `GET /v1/partner/reference/countries?limit=1 HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${sandboxKey}\r\n${headers}\r\n`;
  // The requests of contract-tests/refusals-before-routing.test.ts, sent here for what only the mock has: its log.
  const refused = [
    { text: get(`X-Padding: ${'a'.repeat(20_000)}\r\n`), status: 431 },
    { text: `GET /v1/partner/reference/countries?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`, status: 431 },
    { text: postCustomer('{}').toString('latin1').replace('Content-Length: 2', 'Content-Length: abc'), status: 400 },
    { text: postCustomer('{}').toString('latin1').replace('Content-Length: 2', 'Content-Length: 2\r\nContent-Length: 3'), status: 400 },
    { text: postCustomer('{}').toString('latin1').replace('Content-Length: 2', 'Content-Length: 2\r\nTransfer-Encoding: chunked'), status: 400 },
    { text: postCustomer('{}').toString('latin1').replace('Content-Length: 2', 'Transfer-Encoding: gzip'), status: 400 },
    { text: postCustomer('').toString('latin1').replace('Content-Length: 0', 'Transfer-Encoding: chunked') + 'zz\r\n{}\r\n0\r\n\r\n', status: 400 },
    { text: postCustomer('').toString('latin1').replace('Content-Length: 0', 'Transfer-Encoding: chunked') + `2;x=${'a'.repeat(20_000)}\r\n{}\r\n0\r\n\r\n`, status: 413 },
    { text: get('Bad Header: 1\r\n'), status: 400 },
    { text: 'HELLO\r\n\r\n', status: 400 },
    { text: get('Host: evil.example\r\n'), status: 400 },
    { text: `GET /v1/partner/reference/countries?limit=1 HTTP/1.1\r\nAuthorization: ${sandboxKey}\r\n\r\n`, status: 400 },
    { text: postCustomer('{}', 'Expect: bogus\r\n'), status: 417 },
  ];

  it('logs each at info level, as refused before routing with its status, and none at error level', async () => {
    const before = mock.logs.length;
    for (const { text, status } of refused) expect((await rawExchange(text)).status).toBe(status);
    const logged = mock.logs.slice(before).filter((line) => line.msg === 'request refused before routing');
    expect(logged.map((line) => line.status)).toEqual(refused.map(({ status }) => status));
    expect(logged.every((line) => line.level === 30)).toBe(true);
    expect(mock.logs.filter((line) => (line.level as number) >= 50)).toEqual([]);
  });

  it('journals a body whose chunk framing breaks after it was routed with the request id it was answered with', async () => {
    const text = postCustomer('', 'x-request-id: edge-bad-chunk\r\n').toString('latin1').replace('Content-Length: 0', 'Transfer-Encoding: chunked');
    const answer = await rawExchange(`${text}2\r\n{}\r\nzz\r\n`);
    expect([answer.status, answer.headers.get('x-request-id')]).toEqual([400, 'edge-bad-chunk']);
    expect((await journaled(mock, 'edge-bad-chunk')).status).toBe(400);
  });
});
