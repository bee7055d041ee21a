/**
 * Structured logs (pino): JSON lines for machines, or a readable one-liner per event on a terminal. Every line is
 * written with the API keys and webhook secrets in it masked, whichever field holds one (a path, a URL, an error's
 * message), by the rule the journal's entries are masked with (contract-model/credentials.ts).
 */
import pino, { type Logger } from 'pino';
import { maskCredentials } from '../../contract-model/credentials.ts';
import type { MockConfig } from './config.ts';

/**
 * The logger of the mock in process (app/in-process.ts): lines written as they come, masked the same way, to the
 * test's output in Node, to the console in a browser (pino's browser build), which a test runner shows beside its test.
 */
export function createInProcessLogger(level: MockConfig['logLevel']): Logger {
  return pino({ level, base: undefined, redact: { paths: ['authorization', '*.authorization'], censor: '[redacted]' }, hooks: { streamWrite: (line: string) => maskCredentials(line) } });
}

export async function createLogger(config: Pick<MockConfig, 'logLevel' | 'logFormat'>): Promise<Logger> {
  const options = { level: config.logLevel, base: undefined, redact: { paths: ['authorization', '*.authorization'], censor: '[redacted]' }, hooks: { streamWrite: (line: string) => maskCredentials(line) } };
  // Lines are written 4 KiB at a time, and at least every 100 ms: one write per line went through Node's thread pool
  // and woke the event loop again at every request. On exit what waits is written; a process killed outright loses
  // at most those 100 ms of lines (its journal loses as many of its requests).
  if (config.logFormat === 'json') return pino(options, pino.destination({ sync: false, minLength: 4096, periodicFlush: 100 }));
  // Formatted in a worker thread of pino's (a transport): formatting a line readably took a request 50 µs, a third
  // of its time on a terminal, and the worker, loading pino-pretty while the mock starts, delays nothing.
  const transport = pino.transport({ target: 'pino-pretty', options: { colorize: process.stdout.isTTY === true, translateTime: 'HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true, destination: 1 } });
  return pino(options, transport);
}
