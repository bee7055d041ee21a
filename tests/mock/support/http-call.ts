/** One HTTP call to a mock, in-process or not: the raw key, an Idempotency-Key when given, JSON in and out. */
import { request, type IncomingHttpHeaders } from 'node:http';

export const sandboxKey = 'dk_test_' + 'a'.repeat(24);
export const otherSandboxKey = 'dk_test_' + 'b'.repeat(24);
export const productionKey = 'dk_live_' + 'c'.repeat(24);

export interface CallOptions {
  method?: string;
  key?: string | null;
  body?: unknown;
  rawBody?: string;
  idempotencyKey?: string;
  headers?: Record<string, string>;
}

export interface CallResult {
  status: number;
  headers: Headers;
  json: any;
  bytes: Uint8Array;
}

export async function call(baseUrl: string, path: string, options: CallOptions = {}): Promise<CallResult> {
  const headers: Record<string, string> = { ...options.headers };
  const key = options.key === undefined ? sandboxKey : options.key;
  if (key !== null) headers.authorization = key;
  if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
  const body = options.body === undefined ? options.rawBody : JSON.stringify(options.body);
  if (body !== undefined && headers['content-type'] === undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${baseUrl}${path}`, { method: options.method ?? (body === undefined ? 'GET' : 'POST'), headers, body });
  const bytes = new Uint8Array(await response.arrayBuffer());
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json, bytes };
}

/**
 * A request sent with node:http as it is, headers exactly as given: no client decompresses the answer or adds
 * Accept-Encoding, Host or Origin behind the test's back. `reason` is the status line's reason phrase.
 */
export function rawRequest(baseUrl: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<{ status: number; reason: string; headers: IncomingHttpHeaders; rawHeaders: string[]; body: Buffer }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const sent = request({ host: hostname, port, path, method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, reason: response.statusMessage ?? '', headers: response.headers, rawHeaders: response.rawHeaders, body: Buffer.concat(chunks) }));
    });
    sent.on('error', reject);
    sent.end(body);
  });
}
