/**
 * A scripted HTTP server for the client's tests: each request it receives is recorded and answered by the next
 * scripted reply, so a test states exactly what the API says on each attempt. It speaks the contract's
 * envelopes (`{ payload, error }`) and echoes `x-request-id` as the API does.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ErrorCode, FieldError } from '../../generated/openapi.js';

export interface RecordedRequest {
  method: string;
  /** Path and query, as received. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export type Reply =
  | { status: number; json?: unknown; body?: string | Uint8Array; headers?: Record<string, string> }
  /** Destroy the socket without answering: the client sees a network failure. */
  | 'drop';

type Script = Reply | ((request: RecordedRequest) => Reply);

export interface FakeServer {
  baseUrl: string;
  requests: RecordedRequest[];
  /** Queues the answers to the next requests, in order. */
  reply(...replies: Script[]): void;
  close(): Promise<void>;
}

export async function startFakeServer(): Promise<FakeServer> {
  const requests: RecordedRequest[] = [];
  const script: Script[] = [];

  const server: Server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const request: RecordedRequest = {
        method: incoming.method ?? '',
        url: incoming.url ?? '',
        headers: incoming.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(request);
      const next = script.shift();
      const reply: Reply =
        next === undefined
          ? fail(500, 'E_INTERNAL', `The fake server has no reply scripted for request #${requests.length}.`)
          : typeof next === 'function'
            ? next(request)
            : next;
      if (reply === 'drop') {
        incoming.socket.destroy();
        return;
      }
      const requestId = incoming.headers['x-request-id'];
      const headers: Record<string, string> = {
        ...(typeof requestId === 'string' ? { 'x-request-id': requestId } : {}),
        ...reply.headers,
      };
      let body = reply.body;
      if (reply.json !== undefined) {
        body = JSON.stringify(withRequestId(reply.json, typeof requestId === 'string' ? requestId : 'req_fake'));
        headers['content-type'] ??= 'application/json';
      }
      outgoing.writeHead(reply.status, headers).end(body);
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    reply: (...replies) => script.push(...replies),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** A success envelope. */
export function ok(payload: unknown, status = 200, headers: Record<string, string> = {}): Reply {
  return { status, json: { payload, error: {} }, headers };
}

/** An error envelope; its `requestId` is filled in with the request's `x-request-id`. */
export function fail(
  status: number,
  code: ErrorCode,
  message: string,
  extra: { details?: FieldError[]; headers?: Record<string, string> } = {},
): Reply {
  const error = { code, message, requestId: undefined, ...(extra.details ? { details: extra.details } : {}) };
  return { status, json: { payload: null, error }, headers: extra.headers ?? {} };
}

function withRequestId(json: unknown, requestId: string): unknown {
  if (typeof json !== 'object' || json === null || !('error' in json)) return json;
  const { error } = json;
  if (typeof error !== 'object' || error === null || !('requestId' in error) || error.requestId !== undefined) {
    return json;
  }
  return { ...json, error: { ...error, requestId } };
}
