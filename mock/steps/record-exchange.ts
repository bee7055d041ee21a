/** One log line per request (id, operation, status, duration), and the same in the request journal. */
import type { Logger } from 'pino';
import type { Step } from '../http/pipeline.ts';
import type { RequestJournal } from '../admin/request-journal.ts';

export function recordExchange(options: { logger: Logger; journal: RequestJournal }): Step {
  return async (exchange, next) => {
    try {
      await next();
    } finally {
      const durationMs = Number(process.hrtime.bigint() - exchange.startedAt) / 1e6;
      const status = exchange.response?.status ?? 500;
      const entry = {
        atMs: Date.now(),
        requestId: exchange.requestId,
        method: exchange.method,
        path: exchange.url.pathname,
        operationId: exchange.operation?.operationId ?? null,
        status,
        durationMs: Math.round(durationMs * 1000) / 1000,
        ...(exchange.partner ? { partnerId: exchange.partner.id } : {}),
        partner: exchange.partner?.maskedKey ?? null,
        replayed: exchange.replayed === true,
        errorCode: errorCodeOf(exchange.response?.json),
        ...(exchange.contractViolations ? { contractViolations: exchange.contractViolations } : {}),
      };
      options.journal.add(entry);
      if (options.logger.isLevelEnabled(status >= 500 ? 'error' : 'info')) {
        options.logger[status >= 500 ? 'error' : 'info'](
          { requestId: entry.requestId, operationId: entry.operationId, status, ms: entry.durationMs, ...(entry.errorCode ? { code: entry.errorCode } : {}), ...(entry.replayed ? { replayed: true } : {}) },
          `${entry.method} ${entry.path} ${status}`,
        );
      }
    }
  };
}

function errorCodeOf(json: unknown): string | null {
  const code = (json as { error?: { code?: unknown } } | undefined)?.error?.code;
  return typeof code === 'string' ? code : null;
}
