import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedEvent {
  id: string;
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

export interface ReceivedRequest {
  /** 0-based arrival order across all requests. */
  index: number;
  path: string;
  headers: Record<string, string>;
  body: string;
  /** Whether `Webhook.verify` accepted the signature; an unverified request is answered 400. */
  verified: boolean;
  event?: ReceivedEvent;
  /** The status this receiver answered, or undefined while pending or when it never answered. */
  answered?: number;
}

/** What to do with one request: answer after an optional delay, or never answer at all. */
export type Reply = { status: number; delayMs?: number; headers?: Record<string, string> } | 'hang';

export type Policy = (request: ReceivedRequest) => Reply;

export interface Receiver {
  url: string;
  /** Every request that arrived, in arrival order. */
  requests: ReceivedRequest[];
  /** Events answered 2xx, in the order they were accepted. */
  accepted(): ReceivedEvent[];
  /** Most requests being handled at the same time, overall and for one ordering key. */
  maxConcurrent: number;
  maxConcurrentPerKey: number;
  policy: Policy;
  /** What a request must be signed with to be verified (any one of them): the secret given at start, until changed. */
  secrets: string[];
  close(): Promise<void>;
}

/** A webhook receiver on 127.0.0.1 that verifies every request as a partner would, with a swappable policy. */
export async function startReceiver(secret: string, policy: Policy, keyOf = defaultKeyOf): Promise<Receiver> {
  const inProgress = new Map<string, number>();
  let current = 0;
  const accepted: ReceivedEvent[] = [];

  const receiver: Receiver = {
    url: '',
    requests: [],
    accepted: () => [...accepted],
    maxConcurrent: 0,
    maxConcurrentPerKey: 0,
    policy,
    secrets: [secret],
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = flatten(req.headers);
      const request: ReceivedRequest = {
        index: receiver.requests.length,
        path: req.url ?? '',
        headers,
        body,
        verified: false,
      };
      for (const known of receiver.secrets) {
        try {
          request.event = new Webhook(known).verify(body, headers) as ReceivedEvent;
          request.verified = true;
          break;
        } catch {
          request.verified = false;
        }
      }
      receiver.requests.push(request);
      const key = request.event ? keyOf(request.event) : '';
      current += 1;
      inProgress.set(key, (inProgress.get(key) ?? 0) + 1);
      receiver.maxConcurrent = Math.max(receiver.maxConcurrent, current);
      receiver.maxConcurrentPerKey = Math.max(receiver.maxConcurrentPerKey, inProgress.get(key) ?? 0);
      const done = () => {
        current -= 1;
        inProgress.set(key, (inProgress.get(key) ?? 1) - 1);
      };
      res.on('close', done);
      const reply: Reply = request.verified ? receiver.policy(request) : { status: 400 };
      if (reply === 'hang') return;
      const answer = () => {
        request.answered = reply.status;
        if (request.event && reply.status >= 200 && reply.status < 300) {
          accepted.push(request.event);
        }
        send(res, reply.status, reply.headers);
      };
      if (reply.delayMs) setTimeout(answer, reply.delayMs);
      else answer();
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  return receiver;
}

/** Tests put the ordering key (the company id) in `data.serviceCompanyId`; endpoint events have their own key. */
function defaultKeyOf(event: ReceivedEvent): string {
  const company = event.data['serviceCompanyId'];
  return typeof company === 'string' ? company : event.type;
}

function send(res: ServerResponse, status: number, headers: Record<string, string> = {}) {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end('{}');
}

function flatten(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}
