/**
 * The grader's only way out, safe by construction: it sends to the receiver's URL and reads the probe's, and to
 * nothing else; it follows no redirect (a 3xx is an answer, reported with its Location); it sends one request at a
 * time, at most `requestsPerSecond`, and no more than the battery counted; it waits for each answer at most the
 * contract's delivery timeout, and reads at most `answerBytesRead` of its body. What comes back is masked of any
 * credential before it is kept, as the mock's delivery journal does.
 */
import { performance } from 'node:perf_hooks';
import { maskCredentials } from '../../contract-model/credentials.ts';
import type { Exchange, GradeLimits } from './report-types.ts';

/** A delivery as sent: its headers and the exact body its signatures are over. */
export interface Delivery {
  headers: Record<string, string>;
  body: string;
}

export interface Wire {
  /** POSTs a delivery to the receiver. Never rejects: a failure is an exchange with its `error`. */
  deliver(delivery: Delivery): Promise<Exchange>;
  /** GETs the probe for one webhook id; undefined when no probe was given. */
  readProbe(webhookId: string): Promise<Exchange> | undefined;
  /** Requests sent so far, and answers that timed out. */
  readonly sent: number;
  readonly timeouts: number;
}

export interface WireOptions {
  receiver: URL;
  probe?: URL;
  limits: GradeLimits;
  fetch?: typeof fetch;
}

export function openWire(options: WireOptions): Wire {
  const { limits, receiver, probe } = options;
  const send = options.fetch ?? fetch;
  const minIntervalMs = 1000 / limits.requestsPerSecond;
  let sent = 0;
  let timeouts = 0;
  let lastStart = -Infinity;

  const exchange = async (to: Exchange['request']['to'], url: URL, init: { method: 'POST' | 'GET'; headers: Record<string, string>; body: string | null }): Promise<Exchange> => {
    // A case that sends more than it declared is a fault of the battery, never a reason to exceed the bound.
    if (sent >= limits.maxRequests) throw new Error(`the battery tried to send more than the ${limits.maxRequests} requests it counted`);
    const wait = lastStart + minIntervalMs - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    lastStart = performance.now();
    sent += 1;
    const request = { to, method: init.method, headers: init.headers, body: init.body };
    const timeout = AbortSignal.timeout(limits.timeoutMs);
    const elapsed = () => Math.round((performance.now() - lastStart) * 10) / 10;
    try {
      const response = await send(url, { method: init.method, headers: init.headers, ...(init.body === null ? {} : { body: init.body }), redirect: 'manual', signal: timeout });
      const { text, truncated } = await readBounded(response, limits.answerBytesRead);
      const header = (name: string) => response.headers.get(name);
      return {
        request,
        response: { status: response.status, contentType: header('content-type'), location: maskOrNull(header('location')), body: maskCredentials(text), truncated },
        error: null,
        durationMs: elapsed(),
      };
    } catch (error) {
      if (timeout.aborted) timeouts += 1;
      return { request, response: null, error: maskCredentials(failureOf(error, timeout.aborted, limits.timeoutMs)), durationMs: elapsed() };
    }
  };

  return {
    deliver: (delivery) => exchange('receiver', receiver, { method: 'POST', headers: delivery.headers, body: delivery.body }),
    readProbe: (webhookId) => {
      if (!probe) return undefined;
      const url = new URL(probe);
      url.searchParams.set('webhook-id', webhookId);
      // The id as a header too, as a delivery carries it: the mock's admin routes refuse what carries one, so a probe
      // URL naming one of them (`/_mock/requests`: every partner's journal) reads nothing (admin/admin-guard.ts).
      return exchange('probe', url, { method: 'GET', headers: { accept: 'application/json', 'webhook-id': webhookId }, body: null });
    },
    get sent() {
      return sent;
    },
    get timeouts() {
      return timeouts;
    },
  };
}

/** The body's first `maxBytes` as text, and whether it went on; the rest is never read. */
async function readBounded(response: Response, maxBytes: number): Promise<{ text: string; truncated: boolean }> {
  if (!response.body) return { text: '', truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  while (size <= maxBytes) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
  }
  if (size > maxBytes) {
    truncated = true;
    await reader.cancel().catch(() => undefined);
  }
  const bytes = Buffer.concat(chunks).subarray(0, maxBytes);
  return { text: new TextDecoder().decode(bytes).replaceAll('\u0000', '\uFFFD'), truncated };
}

function maskOrNull(value: string | null): string | null {
  return value === null ? null : maskCredentials(value);
}

/** Why nothing came back, as fetch words it: its bare "fetch failed" names its cause (ECONNREFUSED, …). */
function failureOf(error: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `timeout: no answer within ${timeoutMs} ms`;
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause;
  if (cause instanceof Error) return `${error.message}: ${cause.message || (cause as NodeJS.ErrnoException).code}`;
  return error.message;
}
