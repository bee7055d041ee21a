/**
 * Idempotency of the creates, as the contract publishes it: same key and body → the stored answer again with
 * `Idempotent-Replayed: true` (nothing runs, nothing is sent); same key, other body → 409 REUSED; same key while
 * the first is still running → 409 IN_PROGRESS with Retry-After. 4xx outcomes are stored, 429 and 5xx are not.
 *
 * The create's change and the record of its answer are one transaction: the handler answers with a change (see
 * pipeline/handler.ts), which this step commits together with the finalised answer, so after any crash a retry
 * either replays the answer or runs for the first time, never twice. An answer whose record could not be stored
 * is not sent as a success: the change was not stored either, and the client is told to retry (503).
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { contractFacts } from '../../generated/contract-facts.ts';
import { ApiError, serviceUnavailable } from '../http/api-error.ts';
import type { Exchange } from '../pipeline/exchange.ts';
import { outageAnswer } from '../pipeline/failure.ts';
import type { Step } from '../pipeline/pipeline.ts';
import { answerOf, respond } from '../pipeline/reply.ts';
import { CommitOutcomeUnknown, StoreDamaged } from '../store/store-error.ts';
import type { Store } from '../store/store.ts';
import { fingerprintOf } from './fingerprint.ts';
import { completionReads, type IdempotencyLock, type idempotencyRecords, type StoredResponse } from './idempotency-records.ts';

/** The contract's Idempotency-Key pattern (generated/contract-facts.ts). */
const validKey = new RegExp(contractFacts.headerFormats.idempotencyKey);
const { min: shortestKey, max: longestKey } = contractFacts.idempotencyKeyLength;

/** How long a key stays held without a sign of life from its request; renewed while the request runs. */
export const idempotencyLockMs = 10_000;
const renewEveryMs = idempotencyLockMs / 3;

type Records = ReturnType<typeof idempotencyRecords>;

/** The lock was taken over meanwhile (the request outlived it): neither the change nor the answer is stored. */
class LockLost extends Error {}
/** The answer became a 5xx (it broke the contract): nothing is stored, and the key is left free. */
class NotStorable extends Error {}

export function enforceIdempotency(options: { store: Store; records: Records; finalise: (exchange: Exchange) => void; logger: Pick<Logger, 'warn' | 'error'> }): Step {
  const { store, records, logger } = options;
  // Owners must differ across processes too: a random prefix per process, a counter per request.
  const ownerPrefix = randomBytes(6).toString('base64url');
  let requests = 0;

  return async (exchange, next) => {
    const operation = exchange.operation;
    if (!operation?.idempotent) return next();
    const key = keyOf(exchange);
    if (key instanceof ApiError) return respond(exchange, key);
    const lock: IdempotencyLock = { partnerId: exchange.partner?.id ?? '', scope: `${operation.operationId}:${key}`, owner: `${ownerPrefix}.${(requests += 1)}` };
    const fingerprint = fingerprintOf(exchange.body.kind === 'json' ? exchange.body.value : undefined, exchange.rawBody);
    // Every body takes its time from outside: a body runs again on a change, and must read the same keys each time.
    const beganAt = Date.now();
    const begun = await store.hold((tx) => records.begin(tx, lock, fingerprint, beganAt, idempotencyLockMs));
    if (!begun.began) return answerTaken(exchange, begun.record, fingerprint);
    exchange.idempotentReplayed = 'false';
    const renew = (now: number) => store.hold((tx) => records.renew(tx, lock, now, idempotencyLockMs));
    const renewal = setInterval(() => void renew(Date.now()).catch(() => undefined), renewEveryMs);
    renewal.unref();
    try {
      await next();
      await (exchange.change ? commitChange(exchange, lock) : storeAnswer(exchange, lock));
    } finally {
      clearInterval(renewal);
    }
  };

  /** The change, its answer and the record of the answer, in one transaction. */
  async function commitChange(exchange: Exchange, lock: IdempotencyLock): Promise<void> {
    const change = exchange.change as NonNullable<Exchange['change']>;
    const completedAt = Date.now();
    try {
      await store.write(function (tx) {
        const reply = change(tx);
        // Sure to run again: only what completing reads matters (fetched with the change's reads), not the answer.
        if (tx.rerun) return void completionReads(tx, lock);
        exchange.response = answerOf(exchange, reply);
        options.finalise(exchange);
        const answer = exchange.response;
        if (answer.status >= 500) throw new NotStorable();
        if (!(records.complete(tx, lock, storedFrom(answer), completedAt))) throw new LockLost();
      });
    } catch (error) {
      if (error instanceof ApiError) {
        // Refused by the change itself (a rule it checks): nothing was stored but the refusal, stored like any 4xx.
        respond(exchange, error);
        return storeAnswer(exchange, lock);
      }
      await settleFailure(exchange, lock, error);
    }
  }

  /** An answer decided without a change (a refusal after the key was taken): a 4xx is stored, a 429 or 5xx not. */
  async function storeAnswer(exchange: Exchange, lock: IdempotencyLock): Promise<void> {
    if (exchange.response) options.finalise(exchange);
    const answer = exchange.response;
    // A 429 is not stored either: the real limiter answers before the key is looked at, and an injected one must
    // leave the key free for the retry after Retry-After just the same. Nor is a forced answer (a fault armed):
    // the operation did not run, and the same key without the fault runs it.
    if (!answer || answer.status >= 500 || answer.status === 429 || exchange.forced) return abandon(lock);
    try {
      const completedAt = Date.now();
      const stored = await store.write((tx) => records.complete(tx, lock, storedFrom(answer), completedAt));
      if (!stored) logger.warn({ requestId: exchange.requestId }, 'the answer of a create was not stored for replay: its key was taken over (the request outlived its lock) or reset');
    } catch (error) {
      // A refusal changed nothing: it is still the answer, though a retry with this key will run again.
      logger.error({ err: error, requestId: exchange.requestId }, 'the refusal of a create could not be stored for replay');
    }
  }

  async function settleFailure(exchange: Exchange, lock: IdempotencyLock, error: unknown): Promise<void> {
    if (error instanceof NotStorable) return abandon(lock);
    exchange.response = undefined;
    exchange.idempotentReplayed = undefined;
    if (error instanceof LockLost) {
      logger.warn({ requestId: exchange.requestId }, 'a create outlived the lock on its key and another request took it over: nothing was stored');
      respond(exchange, inProgress());
      return;
    }
    const { logged, answer } = unstored(error);
    logger.error({ err: error, requestId: exchange.requestId }, logged);
    respond(exchange, answer);
    // Freed for the retry; a commit that was made deleted the lock already, and this finds none of its own.
    await abandon(lock);
  }

  async function abandon(lock: IdempotencyLock): Promise<void> {
    await store.hold((tx) => records.abandon(tx, lock)).catch((error: unknown) => logger.error({ err: error }, 'the lock of a create could not be released; it runs out by itself'));
  }
}

/** What a create whose change could not be stored is answered, and the log line that says so. */
function unstored(error: unknown): { logged: string; answer: ApiError } {
  // Nothing was stored, and a retry meets the damage too until the store is made again: its answer says so.
  if (error instanceof StoreDamaged) return { logged: 'a create could not be stored: the store is damaged', answer: outageAnswer(error) };
  // A commit not confirmed took its record with it, or nothing did: the retry with this key replays the one, or
  // runs for the first time.
  if (error instanceof CommitOutcomeUnknown) {
    return {
      logged: 'a create may or may not have been stored (the store did not confirm it), and the client is told to retry with its key',
      answer: serviceUnavailable('The request could not be confirmed as stored. Retry with the same Idempotency-Key after Retry-After: it answers what was done, or does it then.'),
    };
  }
  return {
    logged: 'a create could not be stored: nothing was created, and the client is told to retry',
    answer: serviceUnavailable('The request could not be stored; nothing was created. Retry with the same Idempotency-Key after Retry-After.'),
  };
}

/** The key sent, or the refusal of a missing or malformed one. */
function keyOf(exchange: Exchange): string | ApiError {
  const key = exchange.request.headers['idempotency-key'];
  if (key === undefined) return new ApiError(400, 'E_IDEMPOTENCY_KEY_REQUIRED', 'Idempotency-Key is required on this operation.');
  if (typeof key !== 'string' || !validKey.test(key)) return new ApiError(400, 'E_IDEMPOTENCY_KEY_INVALID', `Idempotency-Key must be ${shortestKey} to ${longestKey} visible ASCII characters.`);
  return key;
}

const inProgress = () =>
  new ApiError(409, 'E_IDEMPOTENCY_KEY_IN_PROGRESS', 'A request with this Idempotency-Key is still being processed; retry after Retry-After.', undefined, { 'retry-after': '1' });

/** Another request holds the key, or its answer is stored: refuse, or replay what was stored. */
function answerTaken(exchange: Exchange, record: { state: 'in-flight'; fingerprint: string } | { state: 'done'; fingerprint: string; response: StoredResponse }, fingerprint: string): void {
  if (record.fingerprint !== fingerprint) {
    respond(exchange, new ApiError(409, 'E_IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different body; use a fresh key for a new request.'));
    return;
  }
  if (record.state === 'in-flight') return respond(exchange, inProgress());
  exchange.replayed = true;
  exchange.idempotentReplayed = 'true';
  // The original's status, body and headers, but this request's own x-request-id (finalising adds it, with fresh
  // RateLimit-* headers): records stored before it was left out may still carry the original's.
  const { 'x-request-id': _original, ...headers } = record.response.headers;
  const body = record.response.body;
  exchange.response = { status: record.response.status, headers, body, ...(typeof body === 'string' ? { json: JSON.parse(body) as unknown } : {}) };
}

/**
 * What is stored for replay: the answer's own headers (without x-request-id: each replay is a request of its own,
 * and says so in its own id) and its bytes, so that a replayed error's requestId still names the original request.
 */
function storedFrom(answer: { status: number; headers: Record<string, string>; body: string | Uint8Array }): StoredResponse {
  return { status: answer.status, headers: answer.headers, body: answer.body };
}
