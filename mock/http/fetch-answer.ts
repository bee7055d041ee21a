/**
 * Writes an answer as a Fetch API `Response`: the fetch adapter's counterpart of write-answer.ts, for Mock Service
 * Worker and for a test calling the mock in process. The answer is made ready exactly as for Node's server
 * (sendable-answer.ts: the same escaped headers, the same 500 in place of what cannot be sent), with the length a
 * wire would carry; a HEAD answer, and a status that has no body (204, 304), carry none. A stream (server-sent
 * events) becomes the response's body stream, written until the reader cancels it or `InProcessStreams.endAll`
 * ends it, its writer waiting while its reader leaves much unread: no socket holds it, so the server's other bounds
 * on streams (how many, how old, event-streams.ts) have nothing to bound.
 */
import type { Answer, AnswerStream } from './answer.ts';
import type { ApiError } from './api-error.ts';
import { readyToSend, type AnswerWriter, type Sendable, type Sent } from './sendable-answer.ts';

/** Statuses whose response has no body, which the `Response` constructor refuses one for. */
const bodiless = new Set([101, 103, 204, 205, 304]);

/**
 * What a stream's reader may leave unread before its writer waits for it, as on the server (event-streams.ts's
 * `maxUnsentBytes`): a test that opens a stream and stops reading holds about this much, not all that follows.
 */
const maxUnreadBytes = 256 * 1024;

/** The streams the in-process answers are writing, so that the mock's close ends them. */
export class InProcessStreams {
  private readonly open = new Set<AbortController>();

  body(stream: AnswerStream): ReadableStream<Uint8Array> {
    const closed = new AbortController();
    const encoder = new TextEncoder();
    // Writers waiting for the reader to take what is queued; let go when it does, or when the stream ends.
    const waiting: (() => void)[] = [];
    const letGo = () => waiting.splice(0).forEach((resume) => resume());
    return new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.open.add(closed);
          closed.signal.addEventListener('abort', () => {
            this.open.delete(closed);
            letGo();
            try {
              controller.close();
            } catch {
              // Already cancelled by its reader.
            }
          });
          stream.start((piece) => {
            if (closed.signal.aborted) return Promise.resolve();
            controller.enqueue(encoder.encode(piece));
            if ((controller.desiredSize ?? 0) > 0) return Promise.resolve();
            return new Promise<void>((resume) => waiting.push(resume));
          }, closed.signal);
        },
        pull: letGo,
        cancel: () => closed.abort(),
      },
      new ByteLengthQueuingStrategy({ highWaterMark: maxUnreadBytes }),
    );
  }

  endAll(): void {
    for (const closed of [...this.open]) closed.abort();
  }
}

/** One per request: the `Response` it was answered with, once `sendAnswer` wrote it. */
export class FetchAnswerWriter implements AnswerWriter {
  response: Response | undefined;

  constructor(private readonly streams: InProcessStreams) {}

  streamRefusal(): ApiError | undefined {
    return undefined;
  }

  write(answer: Answer, method: string): Sent {
    const { sendable, unwritable } = readyToSend(answer);
    this.response = responseOf(sendable, method, this.streams);
    return unwritable === undefined ? { answer: sendable } : { answer: sendable, unwritable };
  }
}

function responseOf(answer: Sendable, method: string, streams: InProcessStreams): Response {
  if (answer.stream) return new Response(method === 'HEAD' ? null : streams.body(answer.stream), { status: answer.status, headers: answer.finalHeaders });
  const bytes = typeof answer.body === 'string' ? new TextEncoder().encode(answer.body) : answer.body;
  const headers = new Headers(bodiless.has(answer.status) ? answer.finalHeaders : { ...answer.finalHeaders, 'content-length': String(bytes.byteLength) });
  // Each cookie a header of its own, as on the wire (a browser's Response drops them: they are not the page's to read).
  for (const cookie of answer.setCookies ?? []) headers.append('set-cookie', cookie);
  const body = method === 'HEAD' || bodiless.has(answer.status) ? null : (bytes as Uint8Array<ArrayBuffer>);
  return new Response(body, { status: answer.status, headers });
}
