/** Everything known about one request while it walks a pipeline, and the answer once one is decided. */
import type { components } from '../../generated/mock-admin/openapi.js';
import type { ContractOperation } from '../../contract-model/operations.ts';
import type { Partner } from '../auth/api-keys.ts';
import type { IncomingRequest } from '../http/incoming-request.ts';
import type { RequestTarget } from '../http/request-target.ts';
import type { Answer, AnswerStream } from '../http/answer.ts';
import type { TxBody } from '../store/store.ts';
import type { ValidatedRequest } from './request-validator.ts';

/** What the upstream did with a request the mock forwarded as a proxy (`--upstream`). */
export interface UpstreamOutcome {
  /** The upstream's base URL. */
  url: string;
  /** `too-large`: it answered, with a body over `--upstream-max-body`, which the proxy stopped reading. */
  outcome: 'answered' | 'unreachable' | 'timeout' | 'too-large' | 'malformed';
  /** Its status, when it answered. */
  status?: number;
  /** From sending the request to the whole answer, in milliseconds. */
  durationMs: number;
  /** Set when the mock answered instead (`--upstream-fallback`): the upstream lacked the operation or failed. */
  fallback?: boolean;
}

/** Whether the answer is an upstream's, passed through as it came (not the mock's, nor the proxy's own 502/504). */
export function answeredByUpstream(exchange: Pick<Exchange, 'upstream'>): boolean {
  return exchange.upstream?.outcome === 'answered' && exchange.upstream.fallback !== true;
}

/** Whether the answer is the proxy's own 502 or 504: the upstream failed, and the mock did not answer instead. */
export function upstreamFailed(exchange: Pick<Exchange, 'upstream'>): boolean {
  return exchange.upstream !== undefined && exchange.upstream.outcome !== 'answered' && exchange.upstream.fallback !== true;
}

/**
 * What a handler adds to its request's journal entry: the partner the request belongs to when no key said so (an
 * event the webhook relay received belongs to the relaying endpoint's partner), and the relay's verdict.
 */
export interface JournalNote {
  partnerId: string;
  webhook?: components['schemas']['RelayedWebhook'];
}

/** What a step or a handler answers with: a payload to wrap in the envelope, bytes sent as they are, or a stream of events. */
export type Reply =
  | { status: number; payload: unknown; headers?: Record<string, string> }
  | { status: number; file: Uint8Array; contentType: string; headers?: Record<string, string> }
  | { status: number; stream: AnswerStream; headers?: Record<string, string> };

/** What reading the body found: none, JSON, or bytes that are not (answered once the key is taken, so stored). */
export type Body = { kind: 'none' } | { kind: 'json'; value: unknown } | { kind: 'malformed'; problem: string };

export interface Exchange {
  /** The request as its transport hands it to the pipeline (Node's server, or a Fetch API `Request`). */
  readonly request: IncomingRequest;
  readonly method: string;
  readonly url: RequestTarget;
  readonly startedAt: bigint;
  requestId: string;
  operation?: ContractOperation;
  pathParams: Record<string, string>;
  partner?: Partner;
  rawBody?: Buffer;
  body: Body;
  validated?: ValidatedRequest;
  /** Headers every answer carries, whatever decided it (rate-limit headers, CORS). */
  commonHeaders: Record<string, string>;
  response?: Answer;
  /**
   * A create's change, decided by its handler and not yet stored: the idempotency step commits it in one
   * transaction with the answer it makes, so that the change and the record of its answer are stored together.
   */
  change?: TxBody<Reply>;
  /** Set when the answer is the replay of a stored one. */
  replayed?: boolean;
  /** Set when the answer is a documented one the request asked for (`Prefer`), instead of the operation's own. */
  forced?: { status: number; example: string };
  /** Set when the mock is a proxy (`--upstream`): what the upstream did with the request. */
  upstream?: UpstreamOutcome;
  /** `Idempotent-Replayed`, once the idempotency step took the key (`false`) or replays (`true`). */
  idempotentReplayed?: 'true' | 'false';
  contractViolations?: string[];
  /** How the request broke the contract, when a proxy forwarded it anyway (`--upstream-requests forward`). */
  requestViolations?: string[];
  journalNote?: JournalNote;
}

const noBody: Body = Object.freeze({ kind: 'none' });

export function newExchange(request: IncomingRequest, url: RequestTarget): Exchange {
  return { request, method: request.method, url, startedAt: process.hrtime.bigint(), requestId: '', pathParams: {}, body: noBody, commonHeaders: {} };
}
