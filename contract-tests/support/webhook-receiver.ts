/**
 * The webhook endpoint the target delivers to. It runs in the main process (globalSetup) because it must
 * outlive every test file, and keeps each delivery exactly as received — raw body and headers — so that the
 * tests, in their workers, verify signatures themselves with the client's `verifyWebhook`. Tests read the
 * deliveries and steer the answers through `/_receiver/…`, which only the suite calls.
 *
 * It answers 204 to every delivery, except the ones a test asked it to refuse (500), to make the target retry
 * and so deliver the same event twice: the next few deliveries of a company, or every other one.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedDelivery {
  /** Arrival order across the whole run. */
  sequence: number;
  receivedAt: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  answeredStatus: number;
}

export interface WebhookReceiver {
  /** Where the tests reach the receiver's own routes. */
  controlUrl: string;
  port: number;
  close(): Promise<void>;
}

interface RefusalRule {
  /** A substring of the raw body, typically a company id. */
  contains: string;
  remaining: number;
  /** Every other matching delivery is refused, starting with the first: each event is refused once, then accepted. */
  alternate: boolean;
  /** With `alternate`: the next matching delivery is let through. */
  passNext: boolean;
}

const maxBodyBytes = 1024 * 1024;
const maxDeliveries = 10_000;

/**
 * The receiver as a fetch handler: a delivery in, its answer out, and the suite's own routes. The HTTP receiver
 * below serves it on a port; against the mock in process, Mock Service Worker hands it the mock's deliveries and
 * the tests' calls (support/in-process-target.ts).
 */
export function createWebhookReceiver(): (request: Request) => Promise<Response> {
  const deliveries: ReceivedDelivery[] = [];
  const refusals: RefusalRule[] = [];
  let sequence = 0;
  return async (request) => {
    const url = new URL(request.url);
    const body = await readBody(request);
    if (url.pathname === '/_receiver/deliveries' && request.method === 'GET') {
      const contains = url.searchParams.get('contains');
      const selected = contains === null ? deliveries : deliveries.filter((delivery) => delivery.body.includes(contains));
      return Response.json({ deliveries: selected });
    }
    if (url.pathname === '/_receiver/refusals' && request.method === 'POST') {
      const rule = JSON.parse(body || '{}') as Partial<RefusalRule> & { count?: number };
      if (typeof rule.contains !== 'string' || rule.contains.length === 0) {
        return new Response('{"error":"send {\\"contains\\": \\"…\\", \\"count\\": N, \\"alternate\\": false}"}', { status: 400, headers: { 'content-type': 'application/json' } });
      }
      refusals.push({ contains: rule.contains, remaining: rule.count ?? 1, alternate: rule.alternate === true, passNext: false });
      return new Response(null, { status: 204 });
    }
    const rule = refusals.find((candidate) => candidate.remaining > 0 && body.includes(candidate.contains));
    const refused = rule !== undefined && !rule.passNext;
    if (rule && refused) rule.remaining -= 1;
    if (rule?.alternate) rule.passNext = !rule.passNext;
    const answeredStatus = refused ? 500 : 204;
    if (deliveries.length >= maxDeliveries) deliveries.shift();
    deliveries.push({
      sequence: ++sequence,
      receivedAt: new Date().toISOString(),
      method: request.method,
      path: url.pathname,
      headers: Object.fromEntries(request.headers),
      body,
      answeredStatus,
    });
    return new Response(null, { status: answeredStatus });
  };
}

/** The receiver on a port of this machine, for a target that delivers over HTTP. */
export async function startWebhookReceiver(options: { port: number; host: string }): Promise<WebhookReceiver> {
  const receive = createWebhookReceiver();
  const server: Server = createServer((request, response) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const method = request.method ?? 'GET';
      const headers = Object.entries(request.headers).map(([name, value]): [string, string] => [name, Array.isArray(value) ? value.join(', ') : (value ?? '')]);
      const answer = await receive(new Request(new URL(request.url ?? '/', 'http://receiver.invalid'), { method, headers, ...(method === 'GET' || method === 'HEAD' ? {} : { body: Buffer.concat(chunks) }) }));
      response.writeHead(answer.status, Object.fromEntries(answer.headers)).end(Buffer.from(await answer.arrayBuffer()));
    })().catch(() => {
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(`The webhook receiver cannot listen on ${options.host}:${options.port}: the port is in use.`)
          : error,
      ),
    );
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host === '0.0.0.0' || options.host === '::' ? '127.0.0.1' : options.host;
  return {
    controlUrl: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The body as text, kept whole up to the limit: a truncated body could never verify, which is what a test should see. */
async function readBody(request: Request): Promise<string> {
  const bytes = new Uint8Array(await request.arrayBuffer());
  return new TextDecoder().decode(bytes.byteLength <= maxBodyBytes ? bytes : bytes.subarray(0, maxBodyBytes));
}
