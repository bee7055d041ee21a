/**
 * Per-key rate limiting as the contract publishes it: a token bucket refilled at `perSecond` with bursts of
 * twice that. Every answer carries the RateLimit-* headers; an empty bucket answers 429 with Retry-After.
 */
import { ApiError } from '../http/api-error.ts';
import { respond } from '../http/exchange.ts';
import type { Step } from '../http/pipeline.ts';

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export function limitRate(options: { perSecond: number; maxBuckets?: number; now?: () => number }): Step {
  const now = options.now ?? Date.now;
  const capacity = options.perSecond * 2;
  const buckets = new Map<string, Bucket>();
  const maxBuckets = options.maxBuckets ?? 50_000;
  return (exchange, next) => {
    const key = bucketKey(exchange.request.headers.authorization, exchange.request.socket.remoteAddress);
    const time = now();
    let bucket = buckets.get(key);
    if (!bucket) {
      // Forgetting buckets only forgives callers; it keeps memory bounded whatever keys are sent.
      if (buckets.size >= maxBuckets) buckets.clear();
      bucket = { tokens: capacity, updatedAt: time };
      buckets.set(key, bucket);
    }
    bucket.tokens = Math.min(capacity, bucket.tokens + ((time - bucket.updatedAt) / 1000) * options.perSecond);
    bucket.updatedAt = time;
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    exchange.commonHeaders['ratelimit-limit'] = String(options.perSecond);
    exchange.commonHeaders['ratelimit-remaining'] = String(Math.floor(bucket.tokens));
    exchange.commonHeaders['ratelimit-reset'] = String(Math.ceil((capacity - bucket.tokens) / options.perSecond));
    if (allowed) return next();
    const retryAfter = String(Math.max(1, Math.ceil((1 - bucket.tokens) / options.perSecond)));
    respond(exchange, new ApiError(429, 'E_RATE_LIMITED', 'Too many requests for this key; retry after Retry-After seconds.', undefined, { 'retry-after': retryAfter }));
  };
}

function bucketKey(authorization: string | undefined, address: string | undefined): string {
  return authorization ? `k:${authorization}` : `a:${address ?? '?'}`;
}
