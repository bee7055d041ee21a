/**
 * What the Dredd and Arazzo runners share: choosing the target (the mock, built and started here as its own
 * process, or the server named by CONTRACT_BASE_URL), running a tool as a child process, and always stopping
 * what was started. Plain Node ESM, so that `npm run test:dredd` and `npm run test:workflows` need no TypeScript
 * loader. It lives next to the Dredd runner and the Arazzo runner imports it, so that a fix to the shutdown logic
 * lands in both.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

/** A problem the user fixes (a missing file, a missing variable): reported as one line, without a stack. */
export class UsageError extends Error {
  name = 'UsageError';
}

const keyAlphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A key the mock has never seen: it makes every well-formed key its own partner, so each run starts empty. */
export function freshSandboxKey() {
  return `dk_test_${[...randomBytes(32)].map((byte) => keyAlphabet[byte % keyAlphabet.length]).join('')}`;
}

/** Short and unique per run: goes into emails and idempotency keys, which a long-lived sandbox remembers. */
export function newRunId() {
  return randomBytes(6).toString('hex');
}

export function makeRunDir(prefix) {
  return mkdtempSync(join(tmpdir(), `${prefix}-`));
}

/** Fails early, naming the command that writes the files, instead of letting a tool report a missing path. */
export function requireGenerated(files) {
  const missing = files.filter((file) => !existsSync(join(projectRoot, file)));
  if (missing.length > 0) {
    throw new UsageError(`${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} missing: run \`npm run generate\` first.`);
  }
}

const apiKeyFormat = /^dk_(test|live)_[A-Za-z0-9]{24,64}$/;

/**
 * `undefined` when CONTRACT_BASE_URL is unset (the runner then starts the mock); otherwise the external target.
 * Refuses production keys: both suites create customers and formations, which production would file and charge.
 */
export function externalTarget(env) {
  const baseUrl = env.CONTRACT_BASE_URL?.trim();
  if (!baseUrl) return undefined;
  const apiKey = env.CONTRACT_API_KEY?.trim();
  if (!apiKey) throw new UsageError('CONTRACT_BASE_URL is set, so the run targets it, but CONTRACT_API_KEY (a dk_test_ key of the partner to act as) is not set.');
  let url;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new UsageError(`CONTRACT_BASE_URL must be an absolute http(s) URL; it is ${JSON.stringify(baseUrl)}.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`CONTRACT_BASE_URL must be an http(s) URL; it is ${JSON.stringify(baseUrl)}.`);
  if (!apiKeyFormat.test(apiKey)) throw new UsageError('CONTRACT_API_KEY must be a raw key: dk_test_ followed by 24 to 64 letters and digits, with no "Bearer ".');
  if (apiKey.startsWith('dk_live_')) throw new UsageError('CONTRACT_API_KEY is a production (dk_live_) key. These tests create formations: run them against a sandbox only.');
  return { baseUrl: baseUrl.replace(/\/+$/, ''), apiKey };
}

/** Every child process still running, for the interrupt handler to stop whatever the runner was doing. */
const liveChildren = new Set();

function track(child) {
  liveChildren.add(child);
  child.once('exit', () => liveChildren.delete(child));
  child.once('error', () => liveChildren.delete(child));
  return child;
}

/** Runs a command to completion with its output passed through, and resolves with its exit code. */
export function runTool(command, args, { env, cwd = projectRoot, timeoutMs, name = command } = {}) {
  const child = track(spawn(command, args, { cwd, env, stdio: ['ignore', 'inherit', 'inherit'] }));
  let timedOut = false;
  const timer = timeoutMs
    ? setTimeout(() => {
        timedOut = true;
        console.error(`\n${name} did not finish within ${Math.round(timeoutMs / 1000)} s: stopping it.`);
        void terminate(child);
      }, timeoutMs)
    : undefined;
  const done = new Promise((resolve, reject) => {
    child.once('error', (error) => reject(new Error(`could not run ${name}: ${error.message}`)));
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(timedOut ? 124 : (code ?? (signal ? 128 + (signalNumbers[signal] ?? 1) : 1)));
    });
  });
  return { done };
}

const signalNumbers = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };

/** SIGTERM, then SIGKILL when the process is still there after `graceMs`. Resolves once it has exited. */
export function terminate(child, graceMs = 5_000) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const killer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(killer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Runs `node scripts/build-mock.mjs`; the bundle it writes (.build/) is what `npm start` runs too. */
export async function buildMock() {
  const child = track(spawn(process.execPath, ['scripts/build-mock.mjs'], { cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'] }));
  let output = '';
  for (const stream of [child.stdout, child.stderr]) {
    stream.on('data', (chunk) => {
      output += chunk;
    });
  }
  const code = await new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (exitCode) => resolve(exitCode));
  });
  if (code !== 0) throw new Error(`building the mock (node scripts/build-mock.mjs) failed:\n${output.trim()}`);
}

const startTimeoutMs = 20_000;

/**
 * Starts the built mock on a port the OS picks (`--port 0`: no window in which another process could take a port
 * chosen in advance) and resolves once it announces its URL. Everything it prints goes to `logFile`.
 */
export async function startMock({ logFile, args = [] }) {
  const log = createWriteStream(logFile, { flags: 'a' });
  const child = track(
    spawn(process.execPath, ['--enable-source-maps', '.build/main.mjs', '--port', '0', '--host', '127.0.0.1', '--log-format', 'json', ...args], {
      cwd: projectRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  child.stderr.pipe(log, { end: false });
  let stopping = false;
  let earlyExit;
  const exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      if (!stopping) earlyExit = `the mock exited on its own (${signal ?? `exit code ${code}`})`;
      resolve();
    });
  });

  const url = await new Promise((resolve, reject) => {
    let pending = '';
    const timer = setTimeout(() => reject(new Error(`the mock did not announce its URL within ${startTimeoutMs / 1000} s`)), startTimeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(earlyExit ?? 'the mock exited before it started'));
    });
    child.stdout.on('data', (chunk) => {
      log.write(chunk);
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        const announced = announcedUrl(line);
        if (announced) {
          clearTimeout(timer);
          resolve(announced);
        }
      }
    });
  }).catch(async (error) => {
    stopping = true;
    await terminate(child);
    log.end();
    throw error;
  });

  let stopped;
  return {
    url,
    logFile,
    earlyExit: () => earlyExit,
    stop() {
      stopped ??= (async () => {
        stopping = true;
        await terminate(child);
        await new Promise((resolve) => log.end(resolve));
      })();
      return stopped;
    },
  };
}

/** The start-up line is JSON (`--log-format json`) carrying `url`; the generated webhook secret line is not. */
function announcedUrl(line) {
  if (!line.startsWith('{')) return undefined;
  try {
    const entry = JSON.parse(line);
    return typeof entry.url === 'string' && /listening on/.test(entry.msg ?? '') ? entry.url : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The mock checks each of its own answers against the contract and journals any violation. Dredd compares bodies
 * with examples only by their keys, so this is where a wrong type or enum value in an answer shows up.
 */
export async function mockContractViolations(mockUrl) {
  const response = await fetch(`${mockUrl}/_mock/requests?limit=10000`);
  if (!response.ok) throw new Error(`GET /_mock/requests answered ${response.status}`);
  const { requests } = await response.json();
  return requests
    .filter((entry) => Array.isArray(entry.contractViolations) && entry.contractViolations.length > 0)
    .map((entry) => `${entry.method} ${entry.path} → ${entry.status} (${entry.requestId}): ${entry.contractViolations.join('; ')}`);
}

/**
 * After the tool has run: a mock that died meanwhile, or that answered against the contract, fails the run too.
 * Returns the run's status and, when the mock died, what it said.
 */
export async function settleWithMock(mock, status) {
  if (!mock) return { status };
  const died = mock.earlyExit();
  if (died) return { status: status || 1, note: died };
  const violations = await mockContractViolations(mock.url);
  if (violations.length > 0) {
    console.error(`\nThe mock answered ${violations.length} request(s) in breach of the contract (its own response check):`);
    for (const violation of violations) console.error(`  - ${violation}`);
    return { status: status || 1 };
  }
  return { status };
}

/** After a success the run's folder goes; after a failure, the user is told where to look. */
export function reportRun({ status, runDir, logFile, note, hints = [] }) {
  if (status === 0) {
    rmSync(runDir, { recursive: true, force: true });
    return;
  }
  if (note) console.error(note);
  if (existsSync(logFile)) console.error(`The mock's log: ${logFile}`);
  for (const hint of hints) console.error(hint);
}

/**
 * Ctrl-C or a CI cancellation must still stop the mock, even one still starting: the handler stops every child
 * process, then exits with the conventional 128 + signal number. Returns whether that happened, for the runner
 * to stay quiet meanwhile.
 */
export function onInterrupt() {
  let interrupted = false;
  const handler = (signal) => {
    if (interrupted) return;
    interrupted = true;
    console.error(`\n${signal}: stopping…`);
    void Promise.all([...liveChildren].map((child) => terminate(child))).finally(() => process.exit(128 + signalNumbers[signal]));
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => interrupted;
}

/** Where a package's bin script is, without going through npx (which adds a second or two and npm's warnings). */
export function binOf(packageName, bin) {
  return join(projectRoot, 'node_modules', packageName, bin);
}
