/**
 * Requests no HTTP client sends — broken framing, two Host headers, a request line or headers over 16 KiB, an
 * `Expect` other than `100-continue`, a request that stalls — written byte for byte on a connection of their own,
 * and the answer read back off it: how the suite reaches the contract's *Refusals before routing*. A client such as
 * fetch would refuse to send them, or would hide how they were answered (`Connection: close`, an answer that comes
 * while the body is still being sent). Each answer is checked (`checkRefusal`) and recorded like every other
 * response the suite receives.
 */
import { isIP, connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { checkRefusal, type ObservedRefusal } from './check-response.ts';
import { matchRoute } from './contract.ts';
import { currentTestFile, noteProblems, pace, record, target } from './observe.ts';

const base = new URL(target.baseUrl);
const basePath = base.pathname.replace(/\/+$/, '');

/** The target's `Host`, for the request heads the tests write. */
export const targetHost = base.host;

/** A path of the API (`/v1/partner/customers`) as the target serves it, under its base URL's path. */
export function apiPath(path: string): string {
  return `${basePath}${path}`;
}

export interface SocketAnswer {
  status: number;
  headers: Headers;
  body: Buffer;
  /** The parsed body when it was JSON. */
  json: unknown;
  /** `error.code` of the error envelope, when there was one. */
  errorCode: string | undefined;
}

export interface ExchangeOptions {
  /**
   * Which promises the answer is held to (see `checkRefusal`): `operation` for the 413 of a body over 1 MiB, which
   * the request's operation documents; `before-routing` (the default) for every other refusal.
   */
  answeredBy?: 'before-routing' | 'operation';
}

export interface OpenExchange {
  socket: Socket;
  /** The first final (non-1xx) answer read off the connection, checked and recorded; rejects if it closes without one. */
  answer: Promise<SocketAnswer>;
  /** Writes bytes on the connection; resolves once they are handed to the system. */
  write(bytes: string | Buffer): Promise<void>;
  /** Resolves when the connection is closed, by either side. */
  closed: Promise<void>;
}

/** Opens a connection to the target (TLS for an https base URL) for one request sent in parts. */
export async function openExchange(options: ExchangeOptions = {}): Promise<OpenExchange> {
  await pace();
  const hostname = base.hostname.replace(/^\[|\]$/g, '');
  const port = Number(base.port || (base.protocol === 'https:' ? 443 : 80));
  const socket: Socket =
    base.protocol === 'https:'
      ? connectTls({ host: hostname, port, ALPNProtocols: ['http/1.1'], ...(isIP(hostname) ? {} : { servername: hostname }) })
      : connectTcp(port, hostname);
  // A server that stops reading an upload may reset the connection under a client still writing: expected here.
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  let requestLine: string | undefined;
  const answer = readAnswer(socket).then((read) => {
    observe(requestLine ?? '', read, options.answeredBy ?? 'before-routing');
    return read;
  });
  // Settled by the test; a rejection nobody awaits (the test failed first) must not end the run.
  answer.catch(() => undefined);
  return {
    socket,
    answer,
    closed,
    write(bytes) {
      requestLine ??= Buffer.from(bytes).toString('latin1').split('\r\n', 1)[0];
      return new Promise((resolve) => socket.write(bytes, () => resolve()));
    },
  };
}

/** Sends the bytes as they are, reads the answer, and closes the connection. */
export async function socketExchange(bytes: string | Buffer, options: ExchangeOptions = {}): Promise<SocketAnswer> {
  const exchange = await openExchange(options);
  try {
    await exchange.write(bytes);
    return await exchange.answer;
  } finally {
    exchange.socket.destroy();
  }
}

/** Settles with `work`, or with `undefined` when it has not settled after `ms` milliseconds. */
export function within<T>(ms: number, work: Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

function observe(requestLine: string, answer: SocketAnswer, answeredBy: 'before-routing' | 'operation'): void {
  const [method = '', requestTarget = ''] = requestLine.split(' ');
  const pathname = requestTarget.split('?')[0] ?? '';
  const path = basePath && pathname.startsWith(`${basePath}/`) ? pathname.slice(basePath.length) : pathname;
  const route = matchRoute(method, path);
  const by: ObservedRefusal['answeredBy'] = answeredBy === 'operation' ? { kind: 'operation', route } : { kind: 'before-routing' };
  const verdict = checkRefusal({ status: answer.status, headers: answer.headers, body: answer.body, answeredBy: by });
  const operationId = by.kind === 'operation' && route.kind === 'operation' ? route.operation.operationId : null;
  const shown = requestLine.length > 120 ? `${requestLine.slice(0, 120)}…` : requestLine;
  noteProblems(`${JSON.stringify(shown)} (raw) → ${answer.status}`, verdict.problems);
  record({ kind: 'response', file: currentTestFile(), operationId, status: answer.status, method, path: pathname, violations: verdict.problems.length });
}

/** The first final answer read off the socket: settles once its Content-Length bytes are in, or at close. */
function readAnswer(socket: Socket): Promise<SocketAnswer> {
  return new Promise((resolve, reject) => {
    let bytes = Buffer.alloc(0);
    const parse = (atClose: boolean): SocketAnswer | undefined => {
      for (;;) {
        const headEnd = bytes.indexOf('\r\n\r\n');
        if (headEnd < 0) return undefined;
        const [statusLine = '', ...lines] = bytes.subarray(0, headEnd).toString('latin1').split('\r\n');
        const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
        if (status >= 100 && status < 200) {
          bytes = bytes.subarray(headEnd + 4);
          continue;
        }
        const headers = new Headers();
        for (const line of lines) {
          const colon = line.indexOf(':');
          headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
        }
        const declared = headers.get('content-length');
        const length = declared === null ? undefined : Number(declared);
        const rest = bytes.subarray(headEnd + 4);
        if (length === undefined ? !atClose : rest.length < length) return undefined;
        const body = length === undefined ? rest : rest.subarray(0, length);
        let json: unknown;
        try {
          json = JSON.parse(body.toString('utf8'));
        } catch {
          json = undefined;
        }
        const code = (json as { error?: { code?: unknown } } | undefined)?.error?.code;
        return { status, headers, body, json, errorCode: typeof code === 'string' ? code : undefined };
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
