/**
 * Every response the suite receives goes through here: it is checked against the contract, and the
 * (operation, status) pair is recorded for the coverage table. The typed client gets this as its `fetch`; the
 * few malformed requests the client cannot send go through `rawRequest`, which uses the same path.
 *
 * A contract violation does not throw from `fetch` (the client would take it for a network failure and retry):
 * it is kept, and the per-file setup fails the test that caused it in `afterEach`.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { appendFileSync } from 'node:fs';
import { relative } from 'node:path';
import { randomUUID } from 'node:crypto';
import { expect, inject } from 'vitest';
import type { FetchLike, OperationId } from '../../client/index.ts';
import { checkResponse } from './check-response.ts';
import { contractOperation, matchRoute, type SuiteRoute } from './contract.ts';
import type { TargetInfo } from './provided.ts';

export const target: TargetInfo = inject('contractTarget');

export type RunRecord =
  | { kind: 'file'; file: string }
  | { kind: 'response'; file: string; operationId: OperationId | null; status: number; method: string; path: string; violations: number }
  | { kind: 'skip'; file: string; check: string; reason: string; pairs: { operationId: OperationId; status: number }[] };

const pendingViolations: string[] = [];
const operationHint = new AsyncLocalStorage<OperationId>();
const basePath = new URL(target.baseUrl).pathname.replace(/\/+$/, '');

export function currentTestFile(): string {
  const path = expect.getState().testPath;
  return path ? relative(process.cwd(), path) : 'unknown';
}

export function record(line: RunRecord): void {
  // One short line per write, with O_APPEND: lines from sequential workers never interleave.
  appendFileSync(target.recordFile, `${JSON.stringify(line)}\n`);
}

/** Notes a check that cannot run against this target, and the documented pairs it would have exercised. */
export function recordSkip(check: string, reason: string, pairs: { operationId: OperationId; status: number }[] = []): void {
  record({ kind: 'skip', file: currentTestFile(), check, reason, pairs });
}

/** Keeps what a response broke, for the per-file setup to fail the test during which it was received. */
export function noteProblems(what: string, problems: string[]): void {
  if (problems.length > 0) pendingViolations.push(`${what} breaks the contract:\n  - ${problems.join('\n  - ')}`);
}

/** The violations seen since the last call (the per-file setup fails the test with them). */
export function takeViolations(): string[] {
  return pendingViolations.splice(0);
}

/**
 * Runs `work` with its requests attributed to `operationId` when their path is not one of the contract's — a
 * document download URL "may point anywhere the API said".
 */
export function asOperation<T>(operationId: OperationId, work: () => Promise<T>): Promise<T> {
  return operationHint.run(operationId, work);
}

function routeOf(method: string, url: URL): SuiteRoute {
  const pathname = basePath && url.pathname.startsWith(`${basePath}/`) ? url.pathname.slice(basePath.length) : url.pathname;
  const route = matchRoute(method.toUpperCase(), pathname);
  const hint = operationHint.getStore();
  if (route.kind === 'not-found' && hint) return { kind: 'operation', operation: contractOperation(hint), pathParams: {} };
  return route;
}

async function observe(request: Request, sentRequestId: string | null, response: Response): Promise<unknown> {
  const url = new URL(request.url);
  const route = routeOf(request.method, url);
  const body = new Uint8Array(await response.clone().arrayBuffer());
  const verdict = checkResponse(route, { status: response.status, headers: response.headers, body, sentRequestId });
  const operationId = route.kind === 'operation' ? route.operation.operationId : null;
  noteProblems(`${request.method} ${url.pathname} → ${response.status} (${operationId ?? 'no operation'})`, verdict.problems);
  record({
    kind: 'response',
    file: currentTestFile(),
    operationId,
    status: response.status,
    method: request.method,
    path: url.pathname,
    violations: verdict.problems.length,
  });
  return verdict.json;
}

let nextSlot = 0;
/** Spaces requests out to the target's pace (files run one at a time, so one worker's pace is the run's). */
export async function pace(): Promise<void> {
  if (target.maxRequestsPerSecond === null) return;
  const now = Date.now();
  const slot = Math.max(now, nextSlot);
  nextSlot = slot + 1000 / target.maxRequestsPerSecond;
  if (slot > now) await new Promise((resolve) => setTimeout(resolve, slot - now));
}

/** The transport for `createPartnerClient({ fetch })`: the global fetch, with every response observed. */
export const validatingFetch: FetchLike = async (request) => {
  const sentRequestId = request.headers.get('x-request-id');
  await pace();
  const response = await fetch(request);
  await observe(request, sentRequestId, response);
  return response;
};

export interface RawCall {
  method: string;
  /** A path under the base URL (`/v1/partner/customers`), or an absolute URL. */
  path: string;
  headers?: Record<string, string>;
  /** A stream is sent chunked, as it is read: how a body's size is checked while it arrives. */
  body?: string | Uint8Array | ReadableStream<Uint8Array>;
  /** The `Authorization` value: the target's key unless given; `null` sends none. */
  authorization?: string | null;
  /** `null` sends no `x-request-id` (the target must generate one). */
  requestId?: string | null;
}

export interface RawResult {
  status: number;
  headers: Headers;
  /** The body as received, and as text. */
  bytes: Uint8Array;
  text: string;
  /** The parsed body when it was JSON. */
  json: unknown;
  /** `error.code` of the error envelope, when there was one. */
  errorCode: string | undefined;
  /** `error.details` of the error envelope. */
  details: { in: string; field: string; code: string; message: string }[];
}

/** Sends a request the typed client cannot (malformed on purpose), observed like any other. */
export async function rawRequest(call: RawCall): Promise<RawResult> {
  const url = /^https?:\/\//.test(call.path) ? call.path : `${target.baseUrl}${call.path}`;
  const headers = new Headers(call.headers);
  const authorization = call.authorization === undefined ? target.apiKey : call.authorization;
  if (authorization !== null) headers.set('authorization', authorization);
  const requestId = call.requestId === undefined ? `req_raw_${randomUUID().replaceAll('-', '')}` : call.requestId;
  if (requestId !== null) headers.set('x-request-id', requestId);
  const request = new Request(url, {
    method: call.method,
    headers,
    ...(call.body === undefined ? {} : { body: call.body }),
    // Required by fetch for a stream body: the request is sent while the body is still being read.
    ...(call.body instanceof ReadableStream ? { duplex: 'half' } : {}),
    signal: AbortSignal.timeout(30_000),
  } as RequestInit);
  await pace();
  const response = await fetch(request);
  const json = await observe(request, requestId, response);
  const bytes = new Uint8Array(await response.arrayBuffer());
  const text = new TextDecoder().decode(bytes);
  const error = (json as { error?: { code?: unknown; details?: unknown } } | undefined)?.error;
  return {
    status: response.status,
    headers: response.headers,
    bytes,
    text,
    json,
    errorCode: typeof error?.code === 'string' ? error.code : undefined,
    details: Array.isArray(error?.details) ? (error.details as RawResult['details']) : [],
  };
}
