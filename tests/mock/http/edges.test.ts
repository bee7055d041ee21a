/**
 * The mock's edges, as an attacker trial found them: bytes that are not UTF-8, duplicate JSON keys, a client that
 * leaves mid-body, an oversized or stalled upload, and requests Node refuses before any route sees them. None of
 * these may get a 5xx, a crash, or an answer outside the contract's envelope. Framing cases go over raw sockets,
 * since an HTTP client would refuse to send them or hide how they were answered.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compiler } from '../../../contract-tests/support/contract.ts';
import { closeCheckingJournal, journalOf } from '../support/journal-check.ts';
import { customerBody, newIdempotencyKey } from '../support/http-fixtures.ts';
import { sandboxKey, startTestMock, type TestMock } from '../support/mock-harness.ts';

let mock: TestMock;

beforeAll(async () => {
  mock = await startTestMock();
});
afterAll(() => closeCheckingJournal(mock));

const errorEnvelope = compiler.component('ErrorEnvelope');
const validRequestId = compiler.component('RequestId');

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  json: any;
}

function open(target: TestMock): Socket {
  const { port } = new URL(target.url);
  const socket = connect(Number(port), '127.0.0.1');
  // A server that stops reading an upload may reset the connection under a client still writing: expected here.
  socket.on('error', () => undefined);
  return socket;
}

/** The first final (non-1xx) answer read off the socket: resolves once its Content-Length bytes are in, or at close. */
function readAnswer(socket: Socket): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    let bytes = Buffer.alloc(0);
    const parse = (atClose: boolean): RawAnswer | undefined => {
      for (;;) {
        const headEnd = bytes.indexOf('\r\n\r\n');
        if (headEnd < 0) return undefined;
        const [statusLine = '', ...lines] = bytes.subarray(0, headEnd).toString('latin1').split('\r\n');
        const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
        if (status >= 100 && status < 200) {
          bytes = bytes.subarray(headEnd + 4);
          continue;
        }
        const headers: Record<string, string> = {};
        for (const line of lines) {
          const colon = line.indexOf(':');
          const name = line.slice(0, colon).trim().toLowerCase();
          headers[name] = headers[name] === undefined ? line.slice(colon + 1).trim() : `${headers[name]}, ${line.slice(colon + 1).trim()}`;
        }
        const length = headers['content-length'] === undefined ? undefined : Number(headers['content-length']);
        const body = bytes.subarray(headEnd + 4);
        if (length === undefined ? !atClose : body.length < length) return undefined;
        const content = length === undefined ? body : body.subarray(0, length);
        let json: unknown;
        try {
          json = JSON.parse(content.toString('utf8'));
        } catch {
          json = undefined;
        }
        return { status, headers, body: content, json };
      }
    };
    socket.on('data', (chunk: Buffer) => {
      bytes = Buffer.concat([bytes, chunk]);
      const answer = parse(false);
      if (answer) resolve(answer);
    });
    socket.on('close', () => {
      const answer = parse(true);
      if (answer) resolve(answer);
      else reject(new Error(`the connection closed without an answer; got ${JSON.stringify(bytes.toString('latin1').slice(0, 200))}`));
    });
  });
}

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

/** The envelope every refusal carries, whatever refused: the status, the code, and the request id in both places. */
function expectEnvelope(answer: RawAnswer, status: number, code: string): void {
  expect(answer.status, answer.body.toString('utf8')).toBe(status);
  expect(answer.headers['content-type']).toBe('application/json');
  expect(errorEnvelope(answer.json), JSON.stringify(errorEnvelope.errors)).toBe(true);
  expect(answer.json.error.code).toBe(code);
  expect(validRequestId(answer.headers['x-request-id'])).toBe(true);
  expect(answer.json.error.requestId).toBe(answer.headers['x-request-id']);
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
  ])('is refused as E_MALFORMED_JSON, not stored as U+FFFD: %s', async (_, bad) => {
    const [before, after] = valid.split('PLACEHOLDER') as [string, string];
    const body = Buffer.concat([Buffer.from(`${before}Ad`, 'utf8'), bad, Buffer.from(after, 'utf8')]);
    const answer = await rawExchange(postCustomer(body));
    expectEnvelope(answer, 400, 'E_MALFORMED_JSON');
    expect(answer.json.error.message).toMatch(/UTF-8/);
  });

  it('still takes well-formed non-ASCII text', async () => {
    const answer = await rawExchange(postCustomer(JSON.stringify(customerBody({ firstName: 'Åda Łovelace' }))));
    expect(answer.status, answer.body.toString('utf8')).toBe(200);
    expect(answer.json.payload.firstName).toBe('Åda Łovelace');
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
    expect(mock.logs.some((line) => line.msg === 'request failed in the pipeline')).toBe(false);
  });
});

describe('an oversized upload', () => {
  it('gets its 413 while the chunked body is still streaming, and the connection is closed', async () => {
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
    const result = await answer;
    expectEnvelope(result, 413, 'E_PAYLOAD_TOO_LARGE');
    expect(result.headers['x-request-id']).toBe('edge-upload-413');
    expect(result.headers.connection).toBe('close');
    expect(sent).toBeLessThan(most);
    await untilClosed(socket);
    expect((await journaled(mock, 'edge-upload-413')).status).toBe(413);
  });

  it('gets its 413 at once when its Content-Length is over the limit, without sending the body', async () => {
    const answer = await rawExchange(postCustomer('', 'x-request-id: edge-declared-413\r\n').toString('latin1').replace('Content-Length: 0', `Content-Length: ${64 * 1024 * 1024}`));
    expectEnvelope(answer, 413, 'E_PAYLOAD_TOO_LARGE');
    expect(answer.headers.connection).toBe('close');
  });
});

describe('a client too slow to send its request', () => {
  let slow: TestMock;

  beforeAll(async () => {
    slow = await startTestMock({ headersTimeoutMs: 200, requestTimeoutMs: 300 });
  });
  afterAll(() => closeCheckingJournal(slow));

  it('gets 408 E_REQUEST_TIMEOUT in the envelope when its headers do not arrive in time', async () => {
    const socket = open(slow);
    const answer = readAnswer(socket);
    socket.write(`GET /v1/partner/reference/countries HTTP/1.1\r\nHost: localhost\r\n`);
    expectEnvelope(await answer, 408, 'E_REQUEST_TIMEOUT');
    expect((await answer).headers.connection).toBe('close');
    await untilClosed(socket);
  });

  it('gets 408 E_REQUEST_TIMEOUT, journaled with its id, when its body stalls', async () => {
    const socket = open(slow);
    const answer = readAnswer(socket);
    socket.write(postCustomer('{"email":', 'x-request-id: edge-stalled\r\n').toString('latin1').replace('Content-Length: 9', 'Content-Length: 900'));
    const result = await answer;
    expectEnvelope(result, 408, 'E_REQUEST_TIMEOUT');
    expect(result.headers['x-request-id']).toBe('edge-stalled');
    socket.destroy();
    expect((await journaled(slow, 'edge-stalled')).status).toBe(408);
  });
});

describe('refusals before routing', () => {
  const get = (headers: string) => `GET /v1/partner/reference/countries?limit=1 HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${sandboxKey}\r\n${headers}\r\n`;

  it.each([
    { label: 'headers over 16 KiB', text: get(`X-Padding: ${'a'.repeat(20_000)}\r\n`), status: 431, code: 'E_HEADERS_TOO_LARGE' },
    { label: 'a request line over 16 KiB', text: `GET /v1/partner/reference/countries?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`, status: 431, code: 'E_HEADERS_TOO_LARGE' },
    { label: 'a Content-Length that is not a number', text: postCustomer('{}').toString('latin1').replace('Content-Length: 2', 'Content-Length: abc'), status: 400, code: 'E_MALFORMED_REQUEST' },
    { label: 'two Content-Length headers', text: postCustomer('{}').toString('latin1').replace('Content-Length: 2', 'Content-Length: 2\r\nContent-Length: 3'), status: 400, code: 'E_MALFORMED_REQUEST' },
    { label: 'both Content-Length and Transfer-Encoding', text: postCustomer('{}').toString('latin1').replace('Content-Length: 2', 'Content-Length: 2\r\nTransfer-Encoding: chunked'), status: 400, code: 'E_MALFORMED_REQUEST' },
    { label: 'a Transfer-Encoding that does not end in chunked', text: postCustomer('{}').toString('latin1').replace('Content-Length: 2', 'Transfer-Encoding: gzip'), status: 400, code: 'E_MALFORMED_REQUEST' },
    { label: 'a chunk size that is not hexadecimal', text: postCustomer('').toString('latin1').replace('Content-Length: 0', 'Transfer-Encoding: chunked') + 'zz\r\n{}\r\n0\r\n\r\n', status: 400, code: 'E_MALFORMED_REQUEST' },
    { label: 'chunk extensions over 16 KiB', text: postCustomer('').toString('latin1').replace('Content-Length: 0', 'Transfer-Encoding: chunked') + `2;x=${'a'.repeat(20_000)}\r\n{}\r\n0\r\n\r\n`, status: 413, code: 'E_PAYLOAD_TOO_LARGE' },
    { label: 'a header name with a space', text: get('Bad Header: 1\r\n'), status: 400, code: 'E_MALFORMED_REQUEST' },
    { label: 'a request line that is not HTTP', text: 'HELLO\r\n\r\n', status: 400, code: 'E_MALFORMED_REQUEST' },
    { label: 'two Host headers', text: get('Host: evil.example\r\n'), status: 400, code: 'E_MALFORMED_REQUEST' },
    { label: 'no Host header', text: `GET /v1/partner/reference/countries?limit=1 HTTP/1.1\r\nAuthorization: ${sandboxKey}\r\n\r\n`, status: 400, code: 'E_MALFORMED_REQUEST' },
    { label: 'an expectation the mock cannot meet', text: postCustomer('{}', 'Expect: bogus\r\n'), status: 417, code: 'E_EXPECTATION_FAILED' },
  ])('$label: $status $code with the envelope, x-request-id and Connection: close', async ({ text, status, code }) => {
    const answer = await rawExchange(text);
    expectEnvelope(answer, status, code);
    expect(answer.headers.connection).toBe('close');
  });

  it('echoes a valid x-request-id when the request could be read', async () => {
    const twoHosts = await rawExchange(get('Host: evil.example\r\nx-request-id: edge-two-hosts\r\n'));
    expect(twoHosts.headers['x-request-id']).toBe('edge-two-hosts');
    const expectation = await rawExchange(postCustomer('{}', 'Expect: bogus\r\nx-request-id: edge-expect\r\n'));
    expect(expectation.headers['x-request-id']).toBe('edge-expect');
  });

  it('answers a body whose chunk framing breaks after it was routed with the same request id as its journal entry', async () => {
    const text = postCustomer('', 'x-request-id: edge-bad-chunk\r\n').toString('latin1').replace('Content-Length: 0', 'Transfer-Encoding: chunked');
    const answer = await rawExchange(`${text}2\r\n{}\r\nzz\r\n`);
    expectEnvelope(answer, 400, 'E_MALFORMED_REQUEST');
    expect(answer.headers['x-request-id']).toBe('edge-bad-chunk');
    expect((await journaled(mock, 'edge-bad-chunk')).status).toBe(400);
  });

  it('logs each refusal below error level', () => {
    expect(mock.logs.filter((line) => (line.level as number) >= 50)).toEqual([]);
  });
});
