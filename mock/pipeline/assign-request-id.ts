/** Every answer carries `x-request-id`: the caller's, when it is a valid one, or a generated one. */
import { requestIdFor } from '../http/request-id.ts';
import type { Step } from './pipeline.ts';

export const assignRequestId: Step = (exchange, next) => {
  // An invalid one is reported by request validation (header /x-request-id); the answer still needs an id.
  exchange.requestId = requestIdFor(exchange.request.headers['x-request-id']);
  return next();
};
