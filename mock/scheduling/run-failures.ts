/**
 * How background work (the formation timeline, webhook delivery) reports the runs that fail, the store being
 * unavailable most often: the first of a series at error level with its cause, the next ones at debug (an outage
 * of a minute would otherwise write a line every few seconds for each kind of work), and its recovery at info.
 */
import type { Logger } from 'pino';

export function reportRunFailures(logger: Pick<Logger, 'error' | 'debug' | 'info'>, what: string) {
  return {
    onError(error: unknown, failures: { count: number; retryInMs: number }) {
      if (failures.count === 1) logger.error({ err: error, retryInMs: failures.retryInMs }, `${what} failed; retrying, less often while it keeps failing`);
      else logger.debug({ reason: (error as Error).message, failures: failures.count, retryInMs: failures.retryInMs }, `${what} failed again`);
    },
    onRecovered(failures: { count: number }) {
      logger.info({ failedRuns: failures.count }, `${what} resumed`);
    },
  };
}
