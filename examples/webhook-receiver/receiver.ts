/**
 * A webhook receiver of the Partner Formation API done right, to copy from: it verifies each delivery with the
 * kit's client (`verifyWebhook`, Standard Webhooks, the contract's tolerance) on the raw body, refuses what does not
 * verify with a 4xx, acknowledges an event type it does not know with a 2xx, deduplicates on the event id (delivery
 * is at least once), never lets a late copy move a company back, and answers at once. A probe beside it tells how
 * many times an event's effects were applied, which is what `npm run grade:receiver -- … --probe URL` reads.
 *
 * In a project of your own, import from `@partner-formation/client` (`npm run build:client`).
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook, WebhookVerificationError, type WebhookEvent } from '../../client/index.ts';

/** Turns a delivery into a trusted event, or throws: a `Refusal` or a `WebhookVerificationError` (a 4xx). */
export type Verify = (rawBody: Uint8Array, headers: IncomingHttpHeaders) => Promise<WebhookEvent>;

/** What a receiver does with a trusted event, and what it can tell of that (for the probe). */
export interface Effects {
  /** Applies the event's effects, unless they were applied already. */
  apply(event: WebhookEvent): void;
  /** How many times the event's effects were applied. */
  processed(eventId: string): number;
}

/** A delivery refused on purpose, with its status. */
export class Refusal extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

/** Deliveries are small JSON events; a body past this is refused before it is all read. */
const maxBodyBytes = 1024 * 1024;

export const verifyWith = (secret: string | string[]): Verify => (rawBody, headers) => verifyWebhook(rawBody, headers as Record<string, string | string[] | undefined>, secret);

/**
 * The effects of this example: each event applied once (deduplicated on its id), and each company's last status,
 * kept only from an event at least as recent as the one that set it, so that a late copy never moves it back.
 */
export class FormationLedger implements Effects {
  readonly companies = new Map<string, { status: string; at: string }>();
  private readonly applied = new Map<string, number>();

  apply(event: WebhookEvent): void {
    if (this.applied.has(event.id)) return;
    this.applied.set(event.id, 1);
    const data = event.data as { serviceCompanyId?: string; status?: string };
    if (data.serviceCompanyId === undefined || data.status === undefined) return;
    const held = this.companies.get(data.serviceCompanyId);
    if (held === undefined || held.at <= event.timestamp) this.companies.set(data.serviceCompanyId, { status: data.status, at: event.timestamp });
  }

  processed(eventId: string): number {
    return this.applied.get(eventId) ?? 0;
  }
}

export interface ReceiverOptions {
  secret: string | string[];
  /** Where deliveries are POSTed, and where the probe answers. */
  path?: string;
  probePath?: string;
  verify?: Verify;
  effects?: Effects;
}

/** The receiver's request handler: deliveries at `path`, the probe at `probePath`, 404 elsewhere. */
export function webhookHandler(options: ReceiverOptions): (request: IncomingMessage, response: ServerResponse) => void {
  const path = options.path ?? '/webhooks';
  const probePath = options.probePath ?? '/webhooks/probe';
  const verify = options.verify ?? verifyWith(options.secret);
  const effects = options.effects ?? new FormationLedger();
  return (request, response) => {
    const url = new URL(request.url ?? '/', 'http://receiver');
    if (request.method === 'GET' && url.pathname === probePath) return answer(response, 200, { processed: effects.processed(url.searchParams.get('webhook-id') ?? '') });
    if (request.method !== 'POST' || url.pathname !== path) return answer(response, 404, { code: 'not_found' });
    void receive(request, verify, effects).then(({ status, body }) => answer(response, status, body));
  };
}

async function receive(request: IncomingMessage, verify: Verify, effects: Effects): Promise<{ status: number; body: object }> {
  try {
    const event = await verify(await rawBodyOf(request), request.headers);
    // The work an event starts is queued in a real receiver, so that the answer is not kept waiting on it.
    effects.apply(event);
    return { status: 200, body: { received: event.id } };
  } catch (error) {
    if (error instanceof WebhookVerificationError) {
      // A type newer than this contract is genuine: acknowledged, so that it is not sent again, and ignored.
      if (error.code === 'E_WEBHOOK_UNKNOWN_EVENT_TYPE') return { status: 202, body: { ignored: error.eventType } };
      return { status: error.code === 'E_WEBHOOK_SIGNATURE_INVALID' ? 401 : 400, body: { code: error.code, message: error.message } };
    }
    if (error instanceof Refusal) return { status: error.status, body: { code: error.code, message: error.message } };
    return { status: 500, body: { code: 'internal', message: 'The delivery could not be handled.' } };
  }
}

/** The body's bytes, exactly as received: the signature is over them. */
async function rawBodyOf(request: IncomingMessage): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.byteLength;
    if (size > maxBodyBytes) throw new Refusal(413, 'too_large', `A delivery is at most ${maxBodyBytes} bytes.`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function answer(response: ServerResponse, status: number, body: object): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

export interface RunningReceiver {
  /** Where deliveries go, and the probe. */
  url: string;
  probeUrl: string;
  server: Server;
  close(): Promise<void>;
}

/** Starts a receiver on `host:port` (port 0: any free one). */
export async function startWebhookReceiver(options: ReceiverOptions & { port?: number; host?: string }): Promise<RunningReceiver> {
  const server = createServer(webhookHandler(options));
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(options.port ?? 0, host, resolve));
  const base = `http://${host === '127.0.0.1' ? 'localhost' : host}:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}${options.path ?? '/webhooks'}`,
    probeUrl: `${base}${options.probePath ?? '/webhooks/probe'}`,
    server,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
