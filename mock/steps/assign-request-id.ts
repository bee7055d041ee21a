/** Every answer carries `x-request-id`: the caller's, when it is a valid one, or a generated one. */
import { randomBytes } from 'node:crypto';
import { contractFacts } from '../../generated/contract-facts.ts';
import type { Step } from '../http/pipeline.ts';

/** The contract's RequestId pattern (generated/contract-facts.ts). */
export const validRequestId = new RegExp(contractFacts.headerFormats.requestId);

export const assignRequestId: Step = (exchange, next) => {
  const sent = exchange.request.headers['x-request-id'];
  // An invalid one is reported by request validation (header /x-request-id); the answer still needs an id.
  exchange.requestId = typeof sent === 'string' && validRequestId.test(sent) ? sent : newRequestId();
  return next();
};

// Unique, not secret: a random prefix per process and a counter, so that no request pays for random bytes.
const processPrefix = randomBytes(6).toString('base64url');
let counter = 0;

export function newRequestId(): string {
  counter += 1;
  return `req_${processPrefix}${counter.toString(36)}`;
}
