/**
 * Per-key rate limiting as the contract publishes it: a token bucket refilled at `perSecond` with bursts of
 * twice that. Every answer carries the RateLimit-* headers; an empty bucket answers 429 with Retry-After. The
 * buckets are the store's (kept in the process, whatever the backend: see store/rate-buckets.ts).
 */
import { ApiError } from '../http/api-error.ts';
import { respond } from '../http/exchange.ts';
import type { Step } from '../http/pipeline.ts';
import type { RateBuckets } from '../store/rate-buckets.ts';

export function limitRate(options: { perSecond: number; buckets: RateBuckets; now?: () => number }): Step {
  const now = options.now ?? Date.now;
  const capacity = options.perSecond * 2;
  return (exchange, next) => {
    const key = bucketKey(exchange.request.headers.authorization, exchange.request.socket.remoteAddress);
    const { allowed, tokens } = options.buckets.take(key, now(), options.perSecond);
    exchange.commonHeaders['ratelimit-limit'] = String(options.perSecond);
    exchange.commonHeaders['ratelimit-remaining'] = String(Math.floor(tokens));
    exchange.commonHeaders['ratelimit-reset'] = String(Math.ceil((capacity - tokens) / options.perSecond));
    if (allowed) return next();
    const retryAfter = String(Math.max(1, Math.ceil((1 - tokens) / options.perSecond)));
    respond(exchange, new ApiError(429, 'E_RATE_LIMITED', 'Too many requests for this key; retry after Retry-After seconds.', undefined, { 'retry-after': retryAfter }));
  };
}

function bucketKey(authorization: string | undefined, address: string | undefined): string {
  return authorization ? `k:${authorization}` : `a:${address ?? '?'}`;
}
