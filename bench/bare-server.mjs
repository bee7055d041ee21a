// The floor of the comparison: node:http answering every request with one fixed envelope, doing nothing else.
import { createServer } from 'node:http';

const body = JSON.stringify({
  payload: { serviceCustomerId: 'cus_8sWq2LmX4pTn7VbK3dRz9YhC', email: 'ada.lovelace@example.com', firstName: 'Ada', lastName: 'Lovelace', countryOfResidence: 'GBR', phoneNumber: null, created: false, companies: [], createdAt: '2026-11-22T10:15:30Z' },
  error: {},
});
const length = String(Buffer.byteLength(body));

const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => response.writeHead(200, { 'content-type': 'application/json', 'content-length': length }).end(body));
});
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));
