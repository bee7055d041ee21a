/**
 * Traffic recorded as it is served (`--record-traffic FILE`): every exchange of the API's routes, as a mock or as a
 * proxy, written to a traffic document (the admin contract's `TrafficRecording`) with each body whole up to the
 * API's body limit, for a review of a contract change to replay (`npm run review -- --traffic FILE`). The journal
 * keeps less (bodies cut to 16 KiB, and only what fits its budget); this keeps what a reader needs to check.
 *
 * The file is written as the exchanges come, a batch a moment after the first of it: each batch is written where
 * the document's tail was, followed by the tail again, so that after each write the file is a whole document and a
 * write costs the batch, not the file. It keeps to the document's bounds, counting in `omitted` what it leaves out.
 */
import { open, writeFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { RequestAborted } from '../http/cut-short.ts';
import { answeredByUpstream, type Exchange } from '../pipeline/exchange.ts';
import { capturedQuery } from './captured-message.ts';
import { encodeExchange, trafficBounds, trafficHead, trafficTail } from './traffic-document.ts';
import { headersToKeep, wholeBody, type TrafficExchange, type TrafficHeaderNames, type TrafficSource } from './traffic-exchange.ts';
import { toolOf } from './tool-mark.ts';

export interface TrafficRecording {
  /** Takes an exchange as it was answered (or left: `aborted`). */
  observe(exchange: Exchange, aborted?: RequestAborted): void;
  /** Writes what is waiting. */
  flush(): Promise<void>;
}

/** The recording cannot start: what to do is in the message. */
export class TrafficRecordingRefused extends Error {
  override name = 'TrafficRecordingRefused';
}

export interface TrafficRecordingOptions {
  path: string;
  source: Omit<TrafficSource, 'from'>;
  names: TrafficHeaderNames;
  /** The API's request body limit: bodies up to it are kept whole. */
  maxBodyBytes: number;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
}

const writeDelayMs = 200;
/** Long enough for any query a request line can carry: the journal's cut would leave parameters unchecked. */
const maxQueryLength = 65_536;

/** Starts recording to `path`, which must not exist (a recording replaces no file); an empty document is written at once. */
export async function openTrafficRecording(options: TrafficRecordingOptions): Promise<TrafficRecording> {
  const head = trafficHead({ ...options.source, from: 'recording' });
  try {
    // Only its owner may read it: it holds what partners sent.
    await writeFile(options.path, `${head}${trafficTail(0)}`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new TrafficRecordingRefused(`--record-traffic ${options.path}: ${code === 'EEXIST' ? 'the file exists already; move it away or name another (a recording replaces no file)' : (error as Error).message}`);
  }
  options.logger.info({ recordTraffic: options.path }, 'recording the traffic served');
  return createTrafficRecording(options, Buffer.byteLength(head));
}

function createTrafficRecording(options: TrafficRecordingOptions, headBytes: number): TrafficRecording {
  const bounds = trafficBounds(headBytes);
  let tailAt = headBytes;
  let waiting: string[] = [];
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();
  let warned = false;

  const flush = (): Promise<void> => {
    clearTimeout(timer);
    timer = undefined;
    const batch = waiting;
    waiting = [];
    writing = writing.then(async () => {
      const items = batch.length === 0 ? '' : `${tailAt === headBytes ? '' : ','}\n${batch.join(',\n')}`;
      const bytes = Buffer.from(`${items}${trafficTail(bounds.omitted)}`);
      const file = await open(options.path, 'r+');
      try {
        await file.write(bytes, 0, bytes.byteLength, tailAt);
      } finally {
        await file.close();
      }
      tailAt += Buffer.byteLength(items);
    }).catch((error: unknown) => options.logger.error({ err: error, recordTraffic: options.path }, 'recorded traffic could not be written'));
    return writing;
  };

  return {
    observe(exchange, aborted) {
      // A tool's own request (the console's reads) is not the partner's traffic.
      if (toolOf(exchange.request.headers) !== undefined) return;
      const line = encodeExchange(recordedExchange(exchange, aborted, options));
      if (bounds.take(Buffer.byteLength(line))) waiting.push(line);
      else if (!warned) {
        warned = true;
        options.logger.warn({ recordTraffic: options.path }, 'the traffic recording is full (the bounds of a traffic document): later exchanges are counted in omitted, not kept');
      }
      timer ??= setTimeout(() => void flush(), writeDelayMs);
      timer.unref();
    },
    flush,
  };
}

/** The exchange as a traffic document holds it: the request as sent, the answer as written (none when nobody got one). */
function recordedExchange(exchange: Exchange, aborted: RequestAborted | undefined, options: TrafficRecordingOptions): TrafficExchange {
  const { headers } = exchange.request;
  const { query, queryTruncated } = capturedQuery(exchange.request.url, maxQueryLength);
  const answer = exchange.response;
  const answered = answer !== undefined && !aborted && exchange.request.refusal === undefined;
  const answerHeaders = answer?.finalHeaders ?? answer?.headers ?? {};
  return {
    request: {
      operationId: exchange.operation?.operationId ?? null,
      method: exchange.method,
      path: exchange.url.pathname,
      query,
      queryTruncated,
      headers: headersToKeep(headers, options.names.request),
      body: requestBody(exchange, options.maxBodyBytes),
    },
    answer: answered
      ? { status: answer.status, headers: headersToKeep(answerHeaders, options.names.answer), body: exchange.method === 'HEAD' ? null : wholeBody(answer.body, { contentType: answerHeaders['content-type'], contentEncoding: answerHeaders['content-encoding'] }, options.maxBodyBytes) }
      : null,
    answeredBy: answeredByUpstream(exchange) ? 'upstream' : 'mock',
  };
}

/** The body as read; one announced and not read (refused for its size first) is known by its declared size only. */
function requestBody(exchange: Exchange, maxBodyBytes: number): TrafficExchange['request']['body'] {
  const { headers } = exchange.request;
  if (exchange.rawBody !== undefined) return wholeBody(exchange.rawBody, { contentType: headers['content-type'], contentEncoding: headers['content-encoding'] }, maxBodyBytes);
  const declared = Number(headers['content-length'] ?? 0);
  return Number.isSafeInteger(declared) && declared > 0 ? { bytes: declared, text: null, truncated: true } : null;
}
