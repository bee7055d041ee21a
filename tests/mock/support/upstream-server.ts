/** A plain HTTP server on a free local port, playing an upstream (or a receiver) a test shapes answer by answer. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
