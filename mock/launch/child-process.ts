/** Stopping a child process politely first (SIGTERM, so that it can clean up) and then for sure (SIGKILL). */
import type { ChildProcess } from 'node:child_process';
import { constants } from 'node:os';

/** As a shell reports it: the exit code, or 128 + the number of the signal that ended the process. */
export function exitStatus(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  return signal ? 128 + (constants.signals[signal] ?? 0) : 1;
}

/** Resolves once the process has exited, sending SIGKILL when SIGTERM has not ended it within `graceMs`. */
export function terminate(child: ChildProcess, graceMs = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return Promise.resolve();
  return new Promise((resolve) => {
    const killer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(killer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
