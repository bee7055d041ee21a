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
import type { IncomingMessage } from 'node:http';
import { ApiError, serviceUnavailable } from '../http/api-error.ts';
import { RequestAborted } from '../http/client-error.ts';
import { readJsonText } from '../http/json-text.ts';
import { unboundedBodyBudget, type BodyBudget } from './body-budget.ts';
import type { Step } from './pipeline.ts';
import { respond } from './reply.ts';

export function readBody(options: { maxBytes: number; maxBytesOf?: (operationId: string) => number; budget?: BodyBudget }): Step {
  const budget = options.budget ?? unboundedBodyBudget;
  return async (exchange, next) => {
    const operation = exchange.operation;
    const maxBytes = (operation && options.maxBytesOf?.(operation.operationId)) ?? options.maxBytes;
    const hasBody = exchange.request.headers['content-length'] !== undefined ? exchange.request.headers['content-length'] !== '0' : exchange.request.headers['transfer-encoding'] !== undefined;
    if (!operation?.requestBody) {
      exchange.request.resume();
      return next();
    }
    const mediaType = exchange.request.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
    if (hasBody && mediaType !== 'application/json') {
      exchange.request.resume();
      respond(exchange, new ApiError(415, 'E_UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json.'));
      return;
    }
    const declared = Number(exchange.request.headers['content-length'] ?? 0);
    if (declared > maxBytes) {
      exchange.request.resume();
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
      const raw = await collect(exchange.request, maxBytes, holdChunk);
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

/** `hold` is told of each chunk's size before it is kept; false refuses the body (`busy`). */
function collect(request: IncomingMessage, maxBytes: number, hold: (bytes: number) => boolean): Promise<Buffer | 'too-large' | 'busy'> {
  return new Promise((resolve, reject) => {
    // Gone before this step ran (the client left while earlier steps waited).
    if (request.destroyed) {
      reject(new RequestAborted('the connection was closed'));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
      request.off('close', onClose);
    };
    const refuse = (why: 'too-large' | 'busy') => {
      // Keep nothing of it, whatever the client still sends (dropped as it comes, until the connection closes), and
      // answer: a refused body held until then would cost what refusing it is for.
      stop();
      request.resume();
      chunks.length = 0;
      resolve(why);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) return refuse('too-large');
      if (!hold(chunk.length)) return refuse('busy');
      chunks.push(chunk);
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      stop();
      reject(new RequestAborted(error.message));
    };
    // Closed without 'end' (and without 'error', which Node emits only to a listener that was there in time).
    const onClose = () => {
      stop();
      reject(new RequestAborted('the connection was closed'));
    };
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
    request.on('close', onClose);
  });
}
