/** Serves the rendered reference docs (generated/docs/index.html) at http://localhost:$PORT/. */
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';

const port = Number(process.env.PORT ?? 4010);
const html = await readFile(new URL('../generated/docs/index.html', import.meta.url));

createServer((request, response) => {
  if (request.method !== 'GET' || (request.url !== '/' && request.url !== '/docs')) {
    response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: the docs are at /\n');
    return;
  }
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
}).listen(port, () => console.log(`Partner Formation API docs: http://localhost:${port}/`));
