/**
 * Reads the body of operations that take one: 415 for another content type, 413 past the size limit (counted
 * while reading, so a large body is never buffered whole), and the JSON parsed — a parse failure is kept for the
 * idempotency step to store, and answered as E_MALFORMED_JSON after it.
 */
import { ApiError } from '../http/api-error.ts';
import { respond } from '../http/exchange.ts';
import type { Step } from '../http/pipeline.ts';

export function readBody(options: { maxBytes: number; maxBytesOf?: (operationId: string) => number }): Step {
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
    const raw = await collect(exchange.request, maxBytes);
    if (raw === 'too-large') {
      respond(exchange, tooLarge(maxBytes));
      return;
    }
    exchange.rawBody = raw;
    if (raw.length > 0) {
      try {
        exchange.body = JSON.parse(raw.toString('utf8'));
      } catch (error) {
        exchange.bodyMalformed = (error as Error).message;
      }
    }
    return next();
  };
}

/** Answers E_MALFORMED_JSON; runs after idempotency, so the outcome is stored like any other 4xx. */
export const refuseMalformedJson: Step = (exchange, next) => {
  if (exchange.bodyMalformed !== undefined) {
    respond(exchange, new ApiError(400, 'E_MALFORMED_JSON', `The body is not valid JSON: ${exchange.bodyMalformed}.`));
    return;
  }
  return next();
};

function tooLarge(maxBytes: number): ApiError {
  return new ApiError(413, 'E_PAYLOAD_TOO_LARGE', `The body is over ${Math.round(maxBytes / 1024)} KiB.`);
}

function collect(stream: NodeJS.ReadableStream, maxBytes: number): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    stream.on('data', (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > maxBytes) {
        over = true;
        chunks.length = 0;
        return;
      }
      chunks.push(chunk);
    });
    stream.on('end', () => resolve(over ? 'too-large' : Buffer.concat(chunks, size)));
    stream.on('error', reject);
  });
}
