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
import { readAnswer, type SocketAnswer } from './read-answer.ts';

export type { SocketAnswer };
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
