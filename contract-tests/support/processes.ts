/**
 * Child processes of a run: a tool run to completion under a time limit, and stopping a process politely first
 * (SIGTERM, so that it can clean up) and then for sure (SIGKILL).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { constants } from 'node:os';
import { projectRoot } from './project-files.ts';

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

export interface ToolOptions {
  /** For messages: what the tool is called. */
  name: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  /** Stops the tool when aborted (Ctrl-C); its status is then what the signal made it. */
  signal?: AbortSignal;
}

/** Runs a command in the project's root with its output passed through, and resolves with its exit status (124 on timeout, as `timeout` does). */
export function runTool(command: string, args: readonly string[], options: ToolOptions): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: projectRoot, env: options.env ?? process.env, stdio: ['ignore', 'inherit', 'inherit'] });
    let timedOut = false;
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            console.error(`\n${options.name} did not finish within ${Math.round((options.timeoutMs as number) / 1000)} s: stopping it.`);
            void terminate(child);
          }, options.timeoutMs);
    const onAbort = () => void terminate(child);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.once('error', (error) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      reject(new Error(`could not run ${options.name}: ${error.message}`));
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve(timedOut ? 124 : exitStatus(code, signal));
    });
  });
}

/** A TCP port free on loopback now, for a server that cannot pick its own (it may be taken again before use). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
