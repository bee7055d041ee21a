/**
 * Mocks as separate processes, the way a team runs them, for the tests of state that outlives a process: started
 * from the build on a given store, called over HTTP, stopped politely or killed outright (`kill -9`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildMock, startMockProcess, type MockProcess } from '../../../../mock/launch/mock-process.ts';
import { call, type CallOptions, type CallResult } from '../../support/http-call.ts';

export interface RunningProcess extends MockProcess {
  call(path: string, options?: CallOptions): Promise<CallResult>;
  /** SIGKILL: no shutdown, nothing flushed, leases left held. */
  kill9(): Promise<void>;
}

export interface ProcessFixture {
  folder: string;
  start(args: readonly string[]): Promise<RunningProcess>;
  /** Stops every process started, and removes the folder. */
  cleanUp(): Promise<void>;
}

let built: Promise<void> | undefined;

export async function processFixture(label: string): Promise<ProcessFixture> {
  built ??= buildMock();
  await built;
  const folder = mkdtempSync(join(tmpdir(), `mock-${label}-`));
  const started: MockProcess[] = [];
  let count = 0;
  return {
    folder,
    async start(args) {
      const logDir = mkdtempSync(join(folder, `process-${(count += 1)}-`));
      const mock = await startMockProcess({ args: ['--log-level', 'warn', ...args], logDir });
      started.push(mock);
      return {
        ...mock,
        call: (path, options) => call(mock.url, path, options),
        async kill9() {
          process.kill(mock.pid, 'SIGKILL');
          await mock.stop();
        },
      };
    },
    async cleanUp() {
      await Promise.all(started.map((mock) => mock.stop()));
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
