/**
 * Per-caller rate limiting as the contract publishes it: a token bucket refilled at `perSecond` with bursts as
 * large, in proportion, as the contract's (`x-service-limits` rateLimits: 25 a second and bursts of 50). Every
 * answer carries the RateLimit-* headers; an empty bucket answers 429 with Retry-After. The buckets are kept in the
 * answering process (see rate-buckets.ts).
 *
 * Who the caller is, the step is told (`callerOf`): in the API, a request with a valid key counts against its
 * partner, any other against the caller's address, so that a client cycling through junk keys is limited like one
 * sending none; at the webhook relay, each relay URL is a caller. RateLimit-Remaining never exceeds
 * RateLimit-Limit: the burst is stated in RateLimit-Policy (`25;w=1;burst=50`), not in a remainder above the limit.
 */
import { contractFacts } from '../../generated/contract-facts.ts';
import type { Environment, KeyChecker } from '../auth/api-keys.ts';
import { ApiError } from '../http/api-error.ts';
import type { Exchange } from '../pipeline/exchange.ts';
import type { Step } from '../pipeline/pipeline.ts';
import { respond } from '../pipeline/reply.ts';
import type { RateBuckets } from './rate-buckets.ts';

/** The burst for a rate: as many times the rate as the contract's burst is its rate, in this environment. */
export function burstFor(perSecond: number, environment: Environment): number {
  const published = contractFacts.limits.rateLimits[environment];
  return Math.max(1, Math.round((perSecond * published.burst) / published.requestsPerSecond));
}

/** The bucket a request counts against, and what its 429 says. */
export interface RateCaller {
  bucket: string;
  refusal: string;
}

/** The API's callers: a partner by its valid key, else the caller's address. */
export function byKeyOrAddress(keys: KeyChecker): (exchange: Exchange) => RateCaller {
  const refusal = 'Too many requests for this key; retry after Retry-After seconds.';
  return (exchange) => {
    const verdict = keys.check(exchange.request.headers.authorization);
    return { bucket: verdict.ok ? `k:${verdict.partner.id}` : `a:${exchange.request.remoteAddress ?? '?'}`, refusal };
  };
}

/** `callerOf` answers undefined for a request the limit does not apply to. */
export function limitRate(options: { perSecond: number; environment: Environment; buckets: RateBuckets; callerOf: (exchange: Exchange) => RateCaller | undefined; now?: () => number }): Step {
  const now = options.now ?? Date.now;
  const capacity = burstFor(options.perSecond, options.environment);
  const policy = `${options.perSecond};w=1;burst=${capacity}`;
  return (exchange, next) => {
    const caller = options.callerOf(exchange);
    if (!caller) return next();
    const { allowed, tokens } = options.buckets.take(caller.bucket, now(), options.perSecond, capacity);
    exchange.commonHeaders['ratelimit-limit'] = String(options.perSecond);
    exchange.commonHeaders['ratelimit-remaining'] = String(Math.min(options.perSecond, Math.floor(tokens)));
    exchange.commonHeaders['ratelimit-reset'] = String(Math.ceil((capacity - tokens) / options.perSecond));
    exchange.commonHeaders['ratelimit-policy'] = policy;
    if (allowed) return next();
    const retryAfter = String(Math.max(1, Math.ceil((1 - tokens) / options.perSecond)));
    respond(exchange, new ApiError(429, 'E_RATE_LIMITED', caller.refusal, undefined, { 'retry-after': retryAfter }));
  };
}
