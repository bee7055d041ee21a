/**
 * `npm run bench:stalled-uploads`: the mock's memory (resident set, from /proc) while clients hold bodies open,
 * side by side in one run: the shipped budget of body bytes (`--body-memory` left out) against the largest the
 * flag allows (1 GiB: as good as none for this attack). Two attacks, each on a fresh mock:
 *
 * - CONNECTIONS (1000) creates, each announcing a body just under the API's 1 MiB, sending all but a byte, stalling;
 * - SEEDS (200) seeds, each announcing 16 MiB, sending 15 MiB, stalling.
 *
 * Prints the resident set before, at its peak while the clients stall, and after they close, and how the requests
 * were answered. A benchmark, not a test: the numbers are read, not asserted.
 */
import { connect, type Socket } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildMock, startMockProcess, type MockProcess } from '../mock/launch/mock-process.ts';
import { memoryOf } from './process-memory.ts';

const connections = Number(process.env.CONNECTIONS ?? 1000);
const seeds = Number(process.env.SEEDS ?? 200);
const key = `dk_test_${'a'.repeat(24)}`;
const mib = 1024 * 1024;

const rssMiB = async (pid: number): Promise<number> => (await memoryOf(pid)).rss;

/** Opens a connection that sends `head`, then `sent` bytes of body, and stalls; counts how it was answered. */
function stall(url: URL, head: string, sent: number, answers: Map<string, number>): Promise<Socket> {
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.write(head);
      let left = sent;
      const pump = () => {
        while (left > 0) {
          const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
          left -= piece.length;
          if (!socket.write(piece)) return void socket.once('drain', pump);
        }
      };
      pump();
      resolve(socket);
    });
    socket.once('data', (data: Buffer) => {
      const status = /^HTTP\/1\.1 (\d{3})/.exec(data.toString('latin1'))?.[1] ?? 'other';
      answers.set(status, (answers.get(status) ?? 0) + 1);
    });
    socket.on('error', () => answers.set('reset', (answers.get('reset') ?? 0) + 1));
  });
}

/** `bodyMemory` undefined: the mock as it ships. */
async function attack(name: string, bodyMemory: string | undefined, open: (mock: MockProcess, answers: Map<string, number>) => Promise<Socket[]>) {
  const dir = await mkdtemp(join(tmpdir(), 'stalled-uploads-'));
  const budget = bodyMemory === undefined ? [] : ['--body-memory', bodyMemory];
  const mock = await startMockProcess({ args: ['--store', 'memory', ...budget, '--rate-limit', '500000', '--log-level', 'error', '--request-timeout', '10m', '--headers-timeout', '1m'], logDir: dir });
  try {
    const before = await rssMiB(mock.pid);
    const answers = new Map<string, number>();
    const sockets = await open(mock, answers);
    let peak = before;
    // Until the resident set stops growing for a second: everything sent has been read or refused.
    for (let still = 0; still < 10; ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const now = await rssMiB(mock.pid);
      still = now > peak + 1 ? 0 : still + 1;
      peak = Math.max(peak, now);
    }
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const after = await rssMiB(mock.pid);
    const answered = [...answers].map(([status, count]) => `${count}× ${status}`).join(', ') || 'none (all held)';
    console.log(`| ${name} | ${bodyMemory ?? 'as shipped'} | ${before.toFixed(0)} | ${peak.toFixed(0)} | ${after.toFixed(0)} | ${answered} |`);
  } finally {
    await mock.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

const apiUploads = (mock: MockProcess, answers: Map<string, number>) => {
  const url = new URL(mock.url);
  const length = mib - 16;
  const head = (n: number) => `POST /v1/partner/customers HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: ${key}\r\nContent-Type: application/json\r\nIdempotency-Key: stall-${n}\r\nContent-Length: ${length}\r\n\r\n`;
  return Promise.all(Array.from({ length: connections }, (_, n) => stall(url, head(n), length - 1, answers)));
};

const seedUploads = (mock: MockProcess, answers: Map<string, number>) => {
  const url = new URL(mock.url);
  const head = `POST /_mock/seed HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: ${key}\r\nContent-Type: application/json\r\nContent-Length: ${16 * mib}\r\n\r\n`;
  return Promise.all(Array.from({ length: seeds }, () => stall(url, head, 15 * mib, answers)));
};

await buildMock();
console.log(`Resident set of the mock (MiB), ${connections} stalled creates and ${seeds} stalled seeds, each on a fresh mock (--store memory):\n`);
console.log('| attack | --body-memory | before | peak | after close | answers while stalled |');
console.log('|---|---|---|---|---|---|');
for (const budget of [undefined, '1GiB']) await attack(`${connections} creates of 1 MiB`, budget, apiUploads);
for (const budget of [undefined, '1GiB']) await attack(`${seeds} seeds of 16 MiB`, budget, seedUploads);
