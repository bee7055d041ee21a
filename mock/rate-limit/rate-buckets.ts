/**
 * The rate limiter's token buckets, one per caller: refilled at `perSecond`, holding at most `capacity` (the
 * published burst). They are kept in the process that answers, whatever the store, by design: a bucket changes at every
 * request, and a write per request to a file or a round trip to Redis would cost more than the request. So a
 * restart refills them, and replicas on one Redis each count on their own (two replicas allow twice the rate).
 */
export interface RateBuckets {
  /** Takes a token from the caller's bucket if it has one; says what is left either way. */
  take(key: string, now: number, perSecond: number, capacity: number): { allowed: boolean; tokens: number };
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export function createProcessRateBuckets(maxBuckets = 50_000): RateBuckets {
  const buckets = new Map<string, Bucket>();
  return {
    take(key, now, perSecond, capacity) {
      let bucket = buckets.get(key);
      if (!bucket) {
        // Forgetting buckets only forgives callers; it keeps memory bounded whatever keys are sent.
        if (buckets.size >= maxBuckets) buckets.clear();
        bucket = { tokens: capacity, updatedAt: now };
        buckets.set(key, bucket);
      }
      bucket.tokens = Math.min(capacity, bucket.tokens + ((now - bucket.updatedAt) / 1000) * perSecond);
      bucket.updatedAt = now;
      const allowed = bucket.tokens >= 1;
      if (allowed) bucket.tokens -= 1;
      return { allowed, tokens: bucket.tokens };
    },
  };
}
