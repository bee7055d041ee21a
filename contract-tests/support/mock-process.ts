/**
 * Builds and starts the mock as a separate process, the way a developer runs it, so that the suite talks to it
 * over HTTP only, exactly as it would to a sandbox. Its log goes to a file, named when something goes wrong.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

export interface MockProcess {
  url: string;
  pid: number;
  /** What the mock reports of its own start-up, from process start to listening. */
  startupMs: number | undefined;
  logFile: string;
  /** Set when the process ended before it was stopped. */
  exitedEarly(): string | undefined;
  stop(): Promise<void>;
}

const startTimeoutMs = 30_000;

export async function buildMock(projectRoot: string): Promise<void> {
  try {
    await promisify(execFile)(process.execPath, ['scripts/build-mock.mjs'], { cwd: projectRoot });
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    throw new Error(`Building the mock (node scripts/build-mock.mjs) failed:\n${stderr ?? String(error)}`);
  }
}

export async function startMockProcess(options: { projectRoot: string; args: string[]; logDir: string }): Promise<MockProcess> {
  const logFile = join(options.logDir, 'mock.log');
  const log = createWriteStream(logFile);
  const child: ChildProcess = spawn(process.execPath, ['--enable-source-maps', '.build/main.mjs', ...options.args], {
    cwd: options.projectRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let exit: string | undefined;
  let stopping = false;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      if (!stopping) exit = `the mock exited (${signal ?? `code ${code}`}); its log: ${logFile}`;
      resolve();
    });
  });
  child.stderr?.pipe(log, { end: false });

  const started = await new Promise<StartLine>((resolve, reject) => {
    let pending = '';
    const timer = setTimeout(() => reject(new Error(`The mock did not start within ${startTimeoutMs / 1000} s; its log: ${logFile}`)), startTimeoutMs);
    child.stdout?.on('data', (chunk: Buffer) => {
      log.write(chunk);
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        const announced = startLine(line);
        if (announced) {
          clearTimeout(timer);
          resolve(announced);
        }
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`The mock exited before it listened; its log: ${logFile}`));
    });
  });

  return {
    url: started.url,
    pid: child.pid as number,
    startupMs: started.startupMs,
    logFile,
    exitedEarly: () => exit,
    async stop() {
      stopping = true;
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(killer);
      }
      await new Promise<void>((resolve) => log.end(() => resolve()));
    },
  };
}

interface StartLine {
  url: string;
  startupMs: number | undefined;
}

/** The start-up line of `--log-format json` carries the URL the mock listens on (it may have picked the port). */
function startLine(line: string): StartLine | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const entry = JSON.parse(line) as { url?: unknown; msg?: unknown; startupMs?: unknown };
    if (typeof entry.url !== 'string' || typeof entry.msg !== 'string' || !entry.msg.includes('listening')) return undefined;
    return { url: entry.url, startupMs: typeof entry.startupMs === 'number' ? entry.startupMs : undefined };
  } catch {
    return undefined;
  }
}
