/**
 * The mock's launcher: builds and starts the mock as a separate process, the way a developer runs it, so that
 * whoever started it (the contract suite, the Dredd and Arazzo runners, the benchmarks, the tests of state that
 * outlives a process) talks to it over HTTP only, exactly as to a sandbox. Its log goes to a file, named when
 * something goes wrong.
 */
import { execFile, spawn, type ChildProcessByStdio } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { optionVariables } from '../config/config.ts';
import { terminate } from './child-process.ts';

/** The project's root folder (this file is two folders below it): where the build is and runs from. */
const projectRoot = fileURLToPath(new URL('../../', import.meta.url));

export interface MockProcess {
  url: string;
  pid: number;
  /** What the mock reports of its own start-up, from process start to listening. */
  startupMs: number | undefined;
  logFile: string;
  /** Set when the process ended before it was stopped. */
  exitedEarly(): string | undefined;
  /** Stops it (SIGTERM, then SIGKILL) and closes its log; calling it again waits for the same stop. */
  stop(): Promise<void>;
}

const defaultStartTimeoutMs = 30_000;

/**
 * `node scripts/build-mock.mjs --if-changed`: writes the bundle in .build/ that `npm start` runs too, when anything it
 * is built from changed since it was. Another checkout (`root`, a benchmark's baseline) is built whatever it holds:
 * an older one may not know the flag.
 */
export async function buildMock(options: { signal?: AbortSignal; root?: string } = {}): Promise<void> {
  try {
    await promisify(execFile)(process.execPath, ['scripts/build-mock.mjs', ...(options.root === undefined ? ['--if-changed'] : [])], { cwd: options.root ?? projectRoot, signal: options.signal });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    const { stderr } = error as { stderr?: string };
    throw new Error(`Building the mock (node scripts/build-mock.mjs) failed:\n${stderr || String(error)}`);
  }
}

/**
 * Starts the built mock with `args` (its options: timeline, rate limit, webhooks…) on a port it picks itself
 * (`--port 0`, so no port chosen in advance can be taken by another process meanwhile), and resolves once its
 * start line (`--log-format json`, unless `args` ask for `pretty`) says where it listens. A start that fails or is
 * aborted leaves no process.
 */
export async function startMockProcess(options: {
  args: readonly string[];
  logDir: string;
  signal?: AbortSignal;
  /** A command to run Node under, with its arguments (the instruction-count benchmark uses valgrind). */
  runUnder?: readonly string[];
  /** Options for Node itself, before the mock's script (`--single-threaded`). */
  nodeOptions?: readonly string[];
  /** The checkout whose build runs: this project unless given (a benchmark compares another version with it). */
  root?: string;
  /** How long to wait for the start line; 30 s unless given. */
  startTimeoutMs?: number;
  /** How long `stop()` lets the process end after SIGTERM before SIGKILL; 5 s unless given. */
  stopGraceMs?: number;
}): Promise<MockProcess> {
  const logFile = join(options.logDir, 'mock.log');
  const log = createWriteStream(logFile, { flags: 'a' });
  // The default store, SQLite, in the run's own folder: never the developer's .mock-data/.
  const store = options.args.includes('--store') ? [] : ['--store', `sqlite:${join(options.logDir, 'state.db')}`];
  const nodeCommand = [process.execPath, ...(options.nodeOptions ?? []), '--enable-source-maps', '.build/main.mjs', '--port', '0', '--log-format', 'json', ...store, ...options.args];
  const [command, ...args] = [...(options.runUnder ?? []), ...nodeCommand] as [string, ...string[]];
  const startTimeoutMs = options.startTimeoutMs ?? defaultStartTimeoutMs;
  const child = spawn(command, args, {
    cwd: options.root ?? projectRoot,
    env: withoutMockOptions(process.env),
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
  child.stderr.pipe(log, { end: false });

  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      stopping = true;
      await terminate(child, options.stopGraceMs);
      await new Promise<void>((resolve) => log.end(() => resolve()));
    })();
    return stopped;
  };

  let started: StartLine;
  try {
    started = await waitForStartLine(child, log, exited, { logFile, startTimeoutMs, ...(options.signal ? { signal: options.signal } : {}) });
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    url: started.url,
    pid: child.pid as number,
    startupMs: started.startupMs,
    logFile,
    exitedEarly: () => exit,
    stop,
  };
}

/** Resolves with the start line once the mock prints it; rejects when it exits, fails to spawn, times out or is aborted. */
function waitForStartLine(child: ChildProcessByStdio<null, Readable, Readable>, log: WriteStream, exited: Promise<void>, options: { logFile: string; startTimeoutMs: number; signal?: AbortSignal }): Promise<StartLine> {
  const { logFile, startTimeoutMs } = options;
  return new Promise<StartLine>((resolve, reject) => {
    let pending = '';
    const timer = setTimeout(() => reject(new Error(`The mock did not start within ${startTimeoutMs / 1000} s; its log: ${logFile}`)), startTimeoutMs);
    const settle = () => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    };
    const onAbort = () => {
      settle();
      reject(options.signal?.reason);
    };
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.once('error', (error) => {
      settle();
      reject(new Error(`Could not start the mock: ${error.message}`));
    });
    let announcedOnce = false;
    child.stdout.on('data', (chunk: Buffer) => {
      log.write(chunk);
      // Past the start line the output only goes to the log: a busy mock's request lines are not parsed.
      if (announcedOnce) return;
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        const announced = startLine(line);
        if (announced) {
          announcedOnce = true;
          settle();
          resolve(announced);
          return;
        }
      }
    });
    void exited.then(() => {
      settle();
      reject(new Error(`The mock exited before it listened; its log: ${logFile}`));
    });
  });
}

interface StartLine {
  url: string;
  startupMs: number | undefined;
}

/**
 * The start-up line carries the URL the mock listens on (it picked the port): as JSON, or, when the caller asked for
 * `--log-format pretty` (a benchmark measuring the terminal's format), as pino-pretty prints it, its fields after
 * the message.
 */
function startLine(line: string): StartLine | undefined {
  if (!line.startsWith('{')) {
    // The address itself is among the fields (`url`); the message writes the loopback address as localhost.
    const url = /\] INFO: .* listening on http:\/\/\S+/.test(line) ? /"url":"(http:\/\/[^"]+)"/.exec(line)?.[1] : undefined;
    const startupMs = /"startupMs":(\d+)/.exec(line)?.[1];
    return url === undefined ? undefined : { url, startupMs: startupMs === undefined ? undefined : Number(startupMs) };
  }
  try {
    const entry = JSON.parse(line) as { url?: unknown; msg?: unknown; startupMs?: unknown };
    if (typeof entry.url !== 'string' || typeof entry.msg !== 'string' || !entry.msg.includes('listening')) return undefined;
    return { url: entry.url, startupMs: typeof entry.startupMs === 'number' ? entry.startupMs : undefined };
  } catch {
    return undefined;
  }
}

/**
 * The caller's environment without the mock's own variables (HOST, LOG_LEVEL, API_KEYS, VALIDATE_RESPONSES…):
 * the launcher decides the mock's options through its arguments, and a variable set for another purpose, or for
 * a mock started by hand, must not change them (a flag cannot unset API_KEYS or WEBHOOK_URL).
 */
function withoutMockOptions(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const cleaned = { ...env };
  for (const name of optionVariables) delete cleaned[name];
  return cleaned;
}
