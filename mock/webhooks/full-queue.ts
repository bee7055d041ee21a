/**
 * The answer when a partner's queue of deliveries is full (the memory store bounds it, at --webhook-history): what
 * was asked is not queued, which the admin contract documents as 503 with Retry-After, the message saying what to do.
 */
import { serviceUnavailable, type ApiError } from '../http/api-error.ts';

export function queueFull(notQueued: string, then: string): ApiError {
  return serviceUnavailable(`The deliveries waiting for this partner fill its queue: ${notQueued} is not queued. ${then}`);
}
