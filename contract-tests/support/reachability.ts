/**
 * Fails a run against an external target once, plainly, when nothing answers at its URL, rather than every test
 * or transaction with "fetch failed". Any answer at all will do.
 */
import { TargetConfigError } from './target-variables.ts';

export async function assertReachable(baseUrl: string): Promise<void> {
  try {
    await fetch(baseUrl, { method: 'HEAD', signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    const cause = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message;
    throw new TargetConfigError(`CONTRACT_BASE_URL ${baseUrl} cannot be reached: ${cause}.`);
  }
}
