/**
 * Reads `Retry-After`. The contract sends delay-seconds; an HTTP-date (the other form RFC 9110 allows) is also
 * understood because a proxy in front of the API may answer with one.
 */
export function parseRetryAfterSeconds(headers: Headers, now: () => number = Date.now): number | undefined {
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now()) / 1000));
}
