/**
 * Node's request as the pipeline reads it (incoming-request.ts): the same headers object Node parsed, the peer's
 * address read only when asked, and the body read from the stream as it comes, counted against its limit and the
 * process's budget. One small object per request and no copy, so the server path costs what it did before the
 * pipeline took other transports.
 */
import type { IncomingMessage } from 'node:http';
import { noteExchange, refusalOf } from './client-error.ts';
import { RequestAborted, type Refusal } from './cut-short.ts';
import type { BodyBytes, IncomingRequest, RequestHeaders } from './incoming-request.ts';

export class NodeRequest implements IncomingRequest {
  constructor(readonly message: IncomingMessage) {}

  get method(): string {
    return this.message.method ?? 'GET';
  }

  get url(): string {
    return this.message.url ?? '/';
  }

  get headers(): RequestHeaders {
    return this.message.headers;
  }

  get remoteAddress(): string | undefined {
    return this.message.socket.remoteAddress;
  }

  get hasBody(): boolean {
    const { headers } = this.message;
    return headers['content-length'] !== undefined ? headers['content-length'] !== '0' : headers['transfer-encoding'] !== undefined;
  }

  get refusal(): Refusal | undefined {
    return refusalOf(this.message);
  }

  attach(exchange: { readonly requestId: string }): void {
    noteExchange(this.message, exchange);
  }

  discardBody(): void {
    this.message.resume();
  }

  readBody(maxBytes: number, hold: (bytes: number) => boolean): Promise<BodyBytes> {
    return collect(this.message, maxBytes, hold);
  }
}

function collect(request: IncomingMessage, maxBytes: number, hold: (bytes: number) => boolean): Promise<BodyBytes> {
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
