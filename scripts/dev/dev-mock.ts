/**
 * The mock `npm run dev` runs: started once the contract first passes, then handed each contract that passes
 * without a restart. A contract is written to the mock's `--contract` file (whole, by a rename, so that the mock
 * never reads half of one), then the mock is asked over its IPC channel to read it again (mock/app/run-mock.ts):
 * it serves it from the next request on, on the same port, keeping its store, or refuses it, saying why, and goes
 * on serving the one before.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { JsonObject } from '../../contract-model/document.ts';
import { projectRoot } from '../../contract-changes/releases.ts';
import { terminate } from '../../mock/launch/child-process.ts';

/** What became of a contract handed to the mock: `unchanged` when it is the one served already (a save that changed nothing it serves). */
export type Handover = { served: true; url: string; started: boolean; unchanged: boolean } | { served: false; problem: string };

export interface DevMock {
  /** Where the mock listens; undefined while none runs. */
  url(): string | undefined;
  serve(document: JsonObject): Promise<Handover>;
  stop(): Promise<void>;
}

type FromMock = { type: 'listening'; url: string } | { type: 'contract-reloaded' } | { type: 'contract-refused'; message: string };

/**
 * `args` are the mock's; `onExit` is told when a mock that was serving stops by itself (a crash, a port taken from
 * under it), with its exit status.
 */
export function createDevMock(options: { args: readonly string[]; contractFile: string; onExit: (status: string) => void }): DevMock {
  let child: ChildProcess | undefined;
  let url: string | undefined;
  let stopping = false;
  /** The answer awaited from the mock: one at a time, since main.ts hands over one contract at a time. */
  let awaiting: ((message: FromMock | { type: 'exit'; status: string }) => void) | undefined;
  const answer = () => new Promise<FromMock | { type: 'exit'; status: string }>((resolve) => (awaiting = resolve));
  const settle = (message: FromMock | { type: 'exit'; status: string }) => {
    const waiting = awaiting;
    awaiting = undefined;
    waiting?.(message);
  };

  const start = () => {
    // The live docs (mock/served-documents/live-docs.ts) follow each save; given first, so that a --docs of the
    // user's wins. Operations the contract gained before their handlers exist are answered from its examples.
    const started = spawn(process.execPath, ['--enable-source-maps', join(projectRoot, '.build', 'main.mjs'), '--docs', 'live', ...options.args, '--contract', options.contractFile, '--unhandled-operations', 'examples'], {
      stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    });
    child = started;
    started.on('message', (message: FromMock) => {
      if (message.type === 'listening') url = message.url;
      settle(message);
    });
    started.on('exit', (code, signal) => {
      const status = signal === null ? `exit ${code ?? '?'}` : signal;
      const wasServing = url !== undefined;
      child = undefined;
      url = undefined;
      settle({ type: 'exit', status });
      if (wasServing && !stopping) options.onExit(status);
    });
  };

  const write = async (text: string) => {
    const aside = `${options.contractFile}.${process.pid}.tmp`;
    await writeFile(aside, text);
    await rename(aside, options.contractFile);
  };

  /** The contract the mock serves: written back over one it refused, so that a mock started again serves it too. */
  let served: string | undefined;
  const refused = async (problem: string): Promise<Handover> => {
    if (served !== undefined) await write(served);
    return { served: false, problem };
  };
  return {
    url: () => url,
    async serve(document) {
      const text = JSON.stringify(document);
      if (child && url !== undefined && text === served) return { served: true, url, started: false, unchanged: true };
      await write(text);
      if (!child) {
        const listening = answer();
        start();
        const first = await listening;
        if (first.type !== 'listening') return refused(`the mock did not start (${first.type === 'exit' ? first.status : first.type}): it says why above`);
        served = text;
        return { served: true, url: first.url, started: true, unchanged: false };
      }
      const reloaded = answer();
      child.send({ type: 'reload-contract' });
      const outcome = await reloaded;
      if (outcome.type === 'contract-refused') return refused(`the mock refused it: ${outcome.message}`);
      if (outcome.type !== 'contract-reloaded') return refused(`the mock stopped (${outcome.type === 'exit' ? outcome.status : outcome.type}): it says why above`);
      served = text;
      return { served: true, url: url as string, started: false, unchanged: false };
    },
    async stop() {
      stopping = true;
      if (child) await terminate(child);
    },
  };
}
