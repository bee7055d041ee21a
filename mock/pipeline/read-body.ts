/**
 * Reads the body of operations that take one: 415 for another content type, 413 past the size limit (counted
 * while reading: the 413 goes out as soon as the limit is passed, the rest is dropped as it comes, and the
 * connection is closed once the client stops sending), 503 with Retry-After when the process holds as many body
 * bytes as its budget allows (body-budget.ts), and the JSON parsed: the result says what the body is, JSON or not (a body that is not is refused by request
 * validation, after the idempotency step has taken the key, so that the refusal is stored like any 4xx), read as
 * I-JSON by json-text.ts.
 *
 * A client that leaves before its body is whole gets no answer: `RequestAborted` tells the steps it returns through.
 */
import { ApiError, serviceUnavailable } from '../http/api-error.ts';
import { readJsonText } from '../http/json-text.ts';
import { unboundedBodyBudget, type BodyBudget } from './body-budget.ts';
import type { Step } from './pipeline.ts';
import { respond } from './reply.ts';

export function readBody(options: { maxBytes: number; maxBytesOf?: (operationId: string) => number; budget?: BodyBudget }): Step {
  const budget = options.budget ?? unboundedBodyBudget;
  return async (exchange, next) => {
    const operation = exchange.operation;
    const maxBytes = (operation && options.maxBytesOf?.(operation.operationId)) ?? options.maxBytes;
    if (!operation?.requestBody) {
      exchange.request.discardBody();
      return next();
    }
    const mediaType = exchange.request.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
    if (exchange.request.hasBody && mediaType !== 'application/json') {
      exchange.request.discardBody();
      respond(exchange, new ApiError(415, 'E_UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json.'));
      return;
    }
    const declared = Number(exchange.request.headers['content-length'] ?? 0);
    if (declared > maxBytes) {
      exchange.request.discardBody();
      respond(exchange, tooLarge(maxBytes));
      return;
    }
    // Held as it arrives, declared or not: bytes announced but never sent hold no memory, and so hold no budget
    // (clients that only announce large bodies would otherwise refuse everyone else's for nothing).
    let held = 0;
    const holdChunk = (bytes: number) => {
      if (!budget.take(bytes)) return false;
      held += bytes;
      return true;
    };
    try {
      const raw = await exchange.request.readBody(maxBytes, holdChunk);
      if (raw === 'too-large' || raw === 'busy') {
        respond(exchange, raw === 'busy' ? busy() : tooLarge(maxBytes));
        return;
      }
      exchange.rawBody = raw;
      if (raw.length > 0) exchange.body = readJsonText(raw);
      return await next();
    } finally {
      budget.give(held);
    }
  };
}

/** The rest of the body is dropped as it comes, as for a 413: the client sends it again after Retry-After. */
function busy(): ApiError {
  return serviceUnavailable('The mock is reading as many request bodies as it can hold; retry after Retry-After.', { connection: 'close' });
}

/** The rest of the body is dropped as it comes: the connection closes once the client stops sending it. */
function tooLarge(maxBytes: number): ApiError {
  return new ApiError(413, 'E_PAYLOAD_TOO_LARGE', `The body is over ${Math.round(maxBytes / 1024)} KiB.`, undefined, { connection: 'close' });
}
