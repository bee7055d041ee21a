/**
 * Child processes of a run: a tool run to completion under a time limit, and stopping a process politely first
 * (SIGTERM, so that it can clean up) and then for sure (SIGKILL).
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { exitStatus, terminate } from '../../mock/launch/child-process.ts';
import { projectRoot } from './project-files.ts';

export { exitStatus, terminate };

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
