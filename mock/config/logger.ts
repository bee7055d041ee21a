/** Structured logs (pino): JSON lines for machines, or a readable one-liner per event on a terminal. */
import pino, { type Logger } from 'pino';
import type { MockConfig } from './config.ts';

export async function createLogger(config: Pick<MockConfig, 'logLevel' | 'logFormat'>): Promise<Logger> {
  const options = { level: config.logLevel, base: undefined, redact: { paths: ['authorization', '*.authorization'], censor: '[redacted]' } };
  if (config.logFormat === 'json') return pino(options, pino.destination({ sync: false }));
  // Loaded only when used: it costs a sixth of a second, which JSON logging need not pay.
  const { default: pretty } = await import('pino-pretty');
  return pino(options, pretty({ colorize: process.stdout.isTTY, translateTime: 'HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true, sync: true }));
}
