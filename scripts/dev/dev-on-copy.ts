/**
 * `npm run dev` on a copy of the project, for its tests and `npm run bench:dev-reload`: the files dev reads and
 * builds from, copied from a checkout (this one, or another for a baseline) into a folder of their own with the
 * checkout's node_modules linked, and dev started there on a free port, its output kept.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, terminate } from '../../contract-tests/support/processes.ts';

const thisCheckout = new URL('../../', import.meta.url).pathname;
/** What dev reads: the contract and its lint rules, the mock and the console it builds, what generate writes and reads. */
const copied = ['openapi', 'contract-changes', 'contract-model', 'scripts', 'mock', 'console', 'client', 'generated', 'package.json', 'tsconfig.json', 'CHANGELOG.md', 'redocly.yaml', 'releases', '.spectral.yaml', 'spectral'];

export interface DevProject {
  folder: string;
  /** Replaces `from` by `to` in a file of the copy (a path under it), as an editor saves it. */
  edit(file: string, from: string, to: string): Promise<void>;
  /** Writes a file of the copy whole. */
  write(file: string, content: string): Promise<void>;
  read(file: string): Promise<string>;
  /** Starts `npm run dev -- ARGS` in the copy, on a free port. */
  startDev(args?: readonly string[]): Promise<RunningDev>;
  remove(): Promise<void>;
}

export interface RunningDev {
  process: ChildProcess;
  port: number;
  url: string;
  /** Everything dev and its mock printed so far, stdout and stderr together. */
  output(): string;
  stop(): Promise<void>;
}

export async function copyProjectForDev(checkout: string = thisCheckout): Promise<DevProject> {
  const folder = await mkdtemp(join(tmpdir(), 'dev-'));
  for (const path of copied) await cp(join(checkout, path), join(folder, path), { recursive: true });
  await symlink(join(checkout, 'node_modules'), join(folder, 'node_modules'));
  const running: RunningDev[] = [];
  const write = (file: string, content: string) => writeFile(join(folder, file), content);
  const read = (file: string) => readFile(join(folder, file), 'utf8');
  return {
    folder,
    write,
    read,
    async edit(file, from, to) {
      const before = await read(file);
      if (!before.includes(from)) throw new Error(`${file} has no ${JSON.stringify(from)} to replace`);
      await write(file, before.replace(from, to));
    },
    async startDev(args = []) {
      const port = await freePort();
      const child = spawn(join(folder, 'node_modules', '.bin', 'tsx'), [join(folder, 'scripts', 'dev', 'main.ts'), '--port', String(port), ...args], { cwd: folder, env: { ...process.env, NO_COLOR: '1' } });
      let output = '';
      child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const dev: RunningDev = { process: child, port, url: `http://127.0.0.1:${port}`, output: () => output, stop: () => terminate(child, 10_000) };
      running.push(dev);
      return dev;
    },
    async remove() {
      for (const dev of running) await dev.stop();
      await rm(folder, { recursive: true, force: true });
    },
  };
}

/** Polls `check` until it gives a value, or fails after `timeoutMs` saying what it waited for and what dev printed. */
export async function until<T>(what: string, check: () => Promise<T | undefined>, dev: RunningDev | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${dev ? `; dev printed:\n${dev.output()}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The docs as a browser opening `/docs` gets them: the page, and the JSON documents it names on its own origin (the
 * live page renders one in the browser; the built page carries the contract inline). What a reader can see is in
 * this text, whichever page the mock serves.
 */
export async function docsAsLoaded(url: string): Promise<string> {
  const page = await (await fetch(`${url}/docs`)).text();
  const named = [...page.matchAll(/(?:href|src|data-[a-z-]+)="(\/[^"]*\.json)"/g)].map((match) => match[1] as string);
  const documents = await Promise.all([...new Set(named)].map(async (path) => (await fetch(new URL(path, url))).text()));
  return [page, ...documents].join('\n');
}
