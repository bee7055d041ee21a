/** Every answer carries `x-request-id`: the caller's, when it is a valid one, or one made here. */
import { randomBytes } from 'node:crypto';
import { contractFacts } from '../../generated/contract-facts.ts';

/** The contract's RequestId pattern (generated/contract-facts.ts). */
export const validRequestId = new RegExp(contractFacts.headerFormats.requestId);

// Unique, not secret: a random prefix per process and a counter, so that no request pays for random bytes.
const processPrefix = randomBytes(6).toString('base64url');
let counter = 0;

export function newRequestId(): string {
  counter += 1;
  return `req_${processPrefix}${counter.toString(36)}`;
}

/** The id of a request: the one it sent when valid, else a new one. */
export function requestIdFor(sent: string | string[] | undefined): string {
  return typeof sent === 'string' && validRequestId.test(sent) ? sent : newRequestId();
}
