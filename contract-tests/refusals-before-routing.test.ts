/**
 * The contract's *Refusals before routing*: requests that are not HTTP/1.1 the API can read (`400
 * E_MALFORMED_REQUEST`), that do not arrive in time (`408`), whose body is over 1 MiB (`413`, answered as soon as the
 * limit is passed), that expect what the API does not meet (`417`), or whose line and headers are over 16 KiB
 * (`431`). Each is answered with the envelope, an `x-request-id` (the one sent when the request could be read that
 * far), `Content-Type: application/json` and `Connection: close`, and no `RateLimit-*` headers but on the 413 of a
 * body over 1 MiB (`checkRefusal`, run on every answer here). Written on sockets of their own (support/raw-socket.ts):
 * no HTTP client would send these requests as they are.
 */
import { describe, expect, it } from 'vitest';
import { refusalsBeforeRouting } from './support/check-response.ts';
import { newIdempotencyKey, target } from './support/fixtures.ts';
import { recordSkip } from './support/observe.ts';
import { apiPath, openExchange, socketExchange, targetHost, within, type SocketAnswer } from './support/raw-socket.ts';

/**
 * In process there is no socket and no HTTP/1.1 framing: a `Request` is whole and well formed before the mock sees
 * it, so none of these can be sent (the 413 of a body over 1 MiB is held in requests.test.ts, on every target).
 */
const onSockets = target.kind !== 'in-process';
if (!onSockets) recordSkip('the refusals before routing', 'in process (Mock Service Worker) a request reaches the mock as a whole Fetch API Request: no socket, no framing, no timeouts');
const describeOnSockets = onSockets ? describe : describe.skip;

/** A request id of this run, to see it echoed. */
const requestId = (label: string) => `ct-${target.runId}-${label}`;

/** A well-formed GET's head, with extra header lines (each ending in CRLF), ending with the blank line. */
const get = (headers: string) =>
  `GET ${apiPath('/v1/partner/reference/countries?limit=1')} HTTP/1.1\r\nHost: ${targetHost}\r\nAuthorization: ${target.apiKey}\r\n${headers}\r\n`;

/** A well-formed createCustomer with this (ASCII) body and its Content-Length, and extra header lines. */
const postCustomer = (body: string, headers = '') =>
  `POST ${apiPath('/v1/partner/customers')} HTTP/1.1\r\nHost: ${targetHost}\r\nAuthorization: ${target.apiKey}\r\n` +
  `Content-Type: application/json\r\nIdempotency-Key: ${newIdempotencyKey()}\r\nContent-Length: ${body.length}\r\n${headers}\r\n${body}`;

/** The same without a body, sent chunked: the chunks the test writes follow. */
const postCustomerChunked = (headers = '') => postCustomer('', headers).replace('Content-Length: 0', 'Transfer-Encoding: chunked');

function expectRefused(answer: SocketAnswer, status: number, code: string): void {
  expect([answer.status, answer.errorCode], answer.body.toString('utf8')).toEqual([status, code]);
  // Also held by checkRefusal; said here where a reader of the test looks for it.
  expect(answer.headers.get('connection')).toMatch(/\bclose\b/i);
}

const framingCases = [
  { label: 'headers over 16 KiB', text: get(`X-Padding: ${'a'.repeat(20_000)}\r\n`), status: 431, code: 'E_HEADERS_TOO_LARGE' },
  {
    label: 'a request line over 16 KiB',
    text: `GET ${apiPath(`/v1/partner/reference/countries?q=${'a'.repeat(20_000)}`)} HTTP/1.1\r\nHost: ${targetHost}\r\n\r\n`,
    status: 431,
    code: 'E_HEADERS_TOO_LARGE',
  },
  { label: 'a Content-Length that is not a number', text: postCustomer('{}').replace('Content-Length: 2', 'Content-Length: abc'), status: 400, code: 'E_MALFORMED_REQUEST' },
  { label: 'two Content-Length headers', text: postCustomer('{}').replace('Content-Length: 2', 'Content-Length: 2\r\nContent-Length: 3'), status: 400, code: 'E_MALFORMED_REQUEST' },
  {
    label: 'both Content-Length and Transfer-Encoding',
    text: postCustomer('{}').replace('Content-Length: 2', 'Content-Length: 2\r\nTransfer-Encoding: chunked'),
    status: 400,
    code: 'E_MALFORMED_REQUEST',
  },
  {
    label: 'a Transfer-Encoding that does not end in chunked',
    text: postCustomer('{}').replace('Content-Length: 2', 'Transfer-Encoding: gzip'),
    status: 400,
    code: 'E_MALFORMED_REQUEST',
  },
  { label: 'a chunk size that is not hexadecimal', text: `${postCustomerChunked()}zz\r\n{}\r\n0\r\n\r\n`, status: 400, code: 'E_MALFORMED_REQUEST' },
  { label: 'chunk extensions over 16 KiB', text: `${postCustomerChunked()}2;x=${'a'.repeat(20_000)}\r\n{}\r\n0\r\n\r\n`, status: 413, code: 'E_PAYLOAD_TOO_LARGE' },
  { label: 'a header name with a space', text: get('Bad Header: 1\r\n'), status: 400, code: 'E_MALFORMED_REQUEST' },
  { label: 'a request line that is not HTTP', text: 'HELLO\r\n\r\n', status: 400, code: 'E_MALFORMED_REQUEST' },
  { label: 'two Host headers', text: get('Host: evil.example\r\n'), status: 400, code: 'E_MALFORMED_REQUEST' },
  {
    label: 'no Host header',
    text: `GET ${apiPath('/v1/partner/reference/countries?limit=1')} HTTP/1.1\r\nAuthorization: ${target.apiKey}\r\n\r\n`,
    status: 400,
    code: 'E_MALFORMED_REQUEST',
  },
  { label: 'an expectation other than 100-continue', text: postCustomer('{}', 'Expect: bogus\r\n'), status: 417, code: 'E_EXPECTATION_FAILED' },
];

describe('the refusals before routing', () => {
  it("has a scenario for every refusal of the contract's table", () => {
    expect(refusalsBeforeRouting.length).toBeGreaterThanOrEqual(5);
    // The 408s and the 413 of a body over 1 MiB have tests of their own below.
    const covered = new Set([...framingCases.map(({ status, code }) => `${status} ${code}`), '408 E_REQUEST_TIMEOUT', '413 E_PAYLOAD_TOO_LARGE']);
    for (const { status, code } of refusalsBeforeRouting) expect(covered, `a scenario for ${status} ${code}`).toContain(`${status} ${code}`);
  });
});

describeOnSockets('a request the API cannot read as HTTP/1.1, or will not', () => {
  it.each(framingCases)('$label: $status $code with the envelope, x-request-id and Connection: close', async ({ text, status, code }) => {
    expectRefused(await socketExchange(text), status, code);
  });

  it('echoes the x-request-id sent when the request could be read that far', async () => {
    const twoHosts = await socketExchange(get(`Host: evil.example\r\nx-request-id: ${requestId('two-hosts')}\r\n`));
    expectRefused(twoHosts, 400, 'E_MALFORMED_REQUEST');
    expect(twoHosts.headers.get('x-request-id')).toBe(requestId('two-hosts'));
    const expectation = await socketExchange(postCustomer('{}', `Expect: bogus\r\nx-request-id: ${requestId('expect')}\r\n`));
    expectRefused(expectation, 417, 'E_EXPECTATION_FAILED');
    expect(expectation.headers.get('x-request-id')).toBe(requestId('expect'));
  });

  it('answers a body whose chunk framing breaks after its head was read with 400 E_MALFORMED_REQUEST and the x-request-id sent', async () => {
    const answer = await socketExchange(`${postCustomerChunked(`x-request-id: ${requestId('bad-chunk')}\r\n`)}2\r\n{}\r\nzz\r\n`);
    expectRefused(answer, 400, 'E_MALFORMED_REQUEST');
    expect(answer.headers.get('x-request-id')).toBe(requestId('bad-chunk'));
  });
});

describeOnSockets('a body over 1 MiB', () => {
  it('declared by its Content-Length: 413 E_PAYLOAD_TOO_LARGE at once, before any of the body is sent, and the connection closed', async () => {
    const head = postCustomer('').replace('Content-Length: 0', `Content-Length: ${64 * 1024 * 1024}`);
    expectRefused(await socketExchange(head, { answeredBy: 'operation' }), 413, 'E_PAYLOAD_TOO_LARGE');
  });

  it('sent chunked without end: 413 E_PAYLOAD_TOO_LARGE while it is still streaming, and the connection closed', async () => {
    const exchange = await openExchange({ answeredBy: 'operation' });
    let answered = false;
    void exchange.answer.then(
      () => (answered = true),
      () => (answered = true),
    );
    try {
      await exchange.write(postCustomerChunked(`x-request-id: ${requestId('upload-413')}\r\n`));
      // JSON white space, 64 KiB a chunk; the last chunk (0) is never sent.
      const data = Buffer.alloc(64 * 1024, 0x20);
      const frame = Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')]);
      const most = 16 * 1024 * 1024;
      let sent = 0;
      while (!answered && sent < most) {
        await Promise.race([exchange.write(frame), exchange.answer.catch(() => undefined)]);
        sent += data.length;
        // A write the system takes at once calls back before any I/O is read: without a turn of the event loop
        // here, a fast reader could take all 16 MiB before the answer it sent was seen.
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(answered, `no answer after ${sent} bytes of an unfinished upload`).toBe(true);
      const answer = await exchange.answer;
      expectRefused(answer, 413, 'E_PAYLOAD_TOO_LARGE');
      expect(answer.headers.get('x-request-id')).toBe(requestId('upload-413'));
      expect(sent).toBeLessThan(most);
      // The rest is not read: the API closes the connection.
      await exchange.closed;
    } finally {
      exchange.socket.destroy();
    }
  });

  it.each([
    { label: 'over 1 MiB, sent chunked', head: () => postCustomerChunked(), status: 413, code: 'E_PAYLOAD_TOO_LARGE' },
    { label: 'whose chunk framing breaks', head: () => `${postCustomerChunked()}zz\r\n`, status: 400, code: 'E_MALFORMED_REQUEST' },
  ])('$label, from a client that goes on writing before it reads: the $status still arrives, the connection closed in stages rather than reset', async ({ head, status, code }) => {
    // RFC 9112 section 9.6: a server that closed at once would reset the connection under the bytes still coming,
    // and the reset can erase its answer from the client's buffers before the client has read it.
    const exchange = await openExchange({ answeredBy: status === 413 ? 'operation' : 'before-routing' });
    try {
      exchange.socket.pause();
      void exchange.write(head());
      const data = Buffer.alloc(64 * 1024, 0x20);
      const frame = Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')]);
      // About 2 MiB over about 300 ms, not waiting for any write to be taken: the API has answered long before the end.
      for (let index = 0; index < 32; index += 1) {
        exchange.socket.write(frame);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      exchange.socket.resume();
      expectRefused(await exchange.answer, status, code);
    } finally {
      exchange.socket.destroy();
    }
  });
});

/**
 * The contract names no timeout. The suite's mock is started with --headers-timeout 3s --request-timeout 10s, and
 * waited for as long as the test lasts; another target gets a bound, past which the check is reported skipped.
 */
const slowBoundMs = target.kind === 'self-started-mock' ? undefined : 45_000;

async function answerOfSlowRequest(
  exchange: Awaited<ReturnType<typeof openExchange>>,
  check: string,
  skip: (note: string) => void,
): Promise<SocketAnswer | undefined> {
  const answer = slowBoundMs === undefined ? await exchange.answer : await within(slowBoundMs, exchange.answer);
  if (answer === undefined) {
    const reason = `no answer within ${slowBoundMs} ms: the target waits longer for a slow request (the contract names no timeout; the suite's mock is started with --headers-timeout 3s --request-timeout 10s for this check)`;
    recordSkip(check, reason);
    skip(reason);
  }
  return answer;
}

// Concurrent: against a target with long timeouts the two waits overlap.
describeOnSockets.concurrent('a request that does not arrive in time', () => {
  it('its line and headers: 408 E_REQUEST_TIMEOUT with the envelope, and the connection closed', async (context) => {
    const exchange = await openExchange();
    try {
      await exchange.write(`GET ${apiPath('/v1/partner/reference/countries')} HTTP/1.1\r\nHost: ${targetHost}\r\n`);
      const answer = await answerOfSlowRequest(exchange, '408 on headers that do not arrive in time', (note) => context.skip(note));
      if (!answer) return;
      expectRefused(answer, 408, 'E_REQUEST_TIMEOUT');
      await exchange.closed;
    } finally {
      exchange.socket.destroy();
    }
  });

  it('its body: 408 E_REQUEST_TIMEOUT with the x-request-id sent, and the connection closed', async (context) => {
    const exchange = await openExchange();
    try {
      const head = postCustomer('{"email":', `x-request-id: ${requestId('stalled')}\r\n`).replace('Content-Length: 9', 'Content-Length: 900');
      await exchange.write(head);
      const answer = await answerOfSlowRequest(exchange, '408 on a body that does not arrive in time', (note) => context.skip(note));
      if (!answer) return;
      expectRefused(answer, 408, 'E_REQUEST_TIMEOUT');
      expect(answer.headers.get('x-request-id')).toBe(requestId('stalled'));
      await exchange.closed;
    } finally {
      exchange.socket.destroy();
    }
  });
});
