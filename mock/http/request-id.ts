/**
 * Every answer carries `x-request-id`: the caller's, when it is a valid one, or one made here. One that looks like
 * an API key or a webhook secret (or the start of one) is never taken, as the contract says: an id is echoed,
 * journaled and logged as it is, and a key sent there by mistake would travel with it.
 */
import { randomBytes } from 'node:crypto';
import { holdsCredential } from '../../contract-model/credentials.ts';
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

/** The id of a request: the one it sent when valid and no credential, else a new one. */
export function requestIdFor(sent: string | string[] | undefined): string {
  return typeof sent === 'string' && validRequestId.test(sent) && !holdsCredential(sent) ? sent : newRequestId();
}
