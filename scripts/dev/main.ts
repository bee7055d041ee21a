/**
 * `npm run dev`: the mock, serving the contract as it is being edited. Each save under openapi/ is bundled and
 * linted (Redocly's rules, the fast structural check, in a worker beside the bundling: check-contract.ts) and, when
 * both pass, handed to the running mock, which serves it from the next request on without a restart (dev-mock.ts);
 * its store (a SQLite file of its own by default, or npm start's: dev-store.ts) keeps its data. Its /docs are the
 * live docs, rendered in the browser from the contract served, an open page following each save by itself. A save
 * that does not pass is printed, at file and line, and the last good contract keeps serving; started on a contract
 * that does not pass, nothing is served until a save makes it pass. generated/ is rewritten in the background once
 * the saves pause (types and the built docs), and Spectral's house rules run there too, reported but not blocking:
 * `npm test` is where they gate.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { watch } from 'chokidar';
import { mkdir } from 'node:fs/promises';
import { setPriority } from 'node:os';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { projectRoot } from '../../contract-changes/releases.ts';
import { defaultStoreSpec } from '../../mock/store/open-store.ts';
import { createContractChecker } from './check-contract.ts';
import { createDevMock } from './dev-mock.ts';
import { chooseDevStore, devStoreSpec, startStoreFlag } from './dev-store.ts';

const help = `Usage: npm run dev [-- [${startStoreFlag}] MOCK OPTIONS…]

Runs the mock and watches openapi/: each save is bundled and linted, and the running mock serves it within a
second or two, keeping its data; its /docs follow each save, an open page too. A save that does not pass is
printed at its file and line, and the last good contract keeps serving; until the contract first passes, nothing
is served. It says at start which store it uses:

  (default)        its own, ${devStoreSpec}, apart from npm start's data
  ${startStoreFlag}    npm start's, ${defaultStoreSpec}: the same customers and companies in both (one at a time:
                   a SQLite file is held by the mock using it, so stop npm start first)
  --store SPEC     any store the mock takes (memory, sqlite:PATH, redis://…)

Any other option is passed to the mock (see \`npm start -- --help\`), e.g.
\`npm run dev -- --port 4020 --webhook-url http://localhost:3000/hooks\`.`;

const devFolder = join(projectRoot, '.mock-data');
const servedContract = join(devFolder, 'dev-contract.json');
const bin = (name: string) => join(projectRoot, 'node_modules', '.bin', name);
/** How long the saves must pause before generated/ is rewritten: it takes a core for seconds. */
const regenerateAfterMs = 2_000;

function log(message: string): void {
  process.stdout.write(`[dev] ${message}\n`);
}

const listed = (problems: readonly string[]) => `${problems.length} problem${problems.length === 1 ? '' : 's'}:\n${problems.map((problem) => `  ${problem}`).join('\n')}`;

async function main(): Promise<void> {
  const mockArgs = process.argv.slice(2);
  if (mockArgs.includes('--help') || mockArgs.includes('-h')) {
    console.log(help);
    return;
  }
  parseArgs({ args: mockArgs, strict: false });
  let chosen;
  try {
    chosen = chooseDevStore(mockArgs, projectRoot);
  } catch (error) {
    console.error(`error: ${(error as Error).message}`);
    process.exitCode = 2;
    return;
  }
  const { mockArgs: args, announcement } = chosen;
  log(announcement);
  await mkdir(devFolder, { recursive: true });
  await run(process.execPath, [join(projectRoot, 'scripts', 'build-mock.mjs'), '--if-changed']);

  const checker = createContractChecker();
  const mock = createDevMock({
    args,
    contractFile: servedContract,
    onExit: (status) => log(`the mock stopped (${status}): nothing is served. Fix what it says, then save a file under openapi/ to start it again`),
  });
  const generation = backgroundGeneration();

  const serveSave = async (reason: string, savedAt: number) => {
    generation.stop();
    const checked = await checker.check();
    const checkedMs = Math.round(performance.now() - savedAt);
    const serving = mock.url();
    if (!checked.passes) {
      if (serving) log(`${reason}: not served; ${serving} keeps serving the last good contract. The contract does not pass, ${listed(checked.problems)}`);
      else log(`${reason}: nothing is served: the contract does not pass, ${listed(checked.problems)}\n[dev] fix it and save: dev serves the contract as soon as it passes`);
      return;
    }
    const handed = await mock.serve(checked.document);
    const servedMs = Math.round(performance.now() - savedAt);
    if (!handed.served) {
      const stillServing = mock.url();
      if (stillServing) log(`${reason}: not served: ${handed.problem}; ${stillServing} keeps serving the last good contract`);
      else log(`${reason}: nothing is served: ${handed.problem}. Fix it and save: dev serves the contract as soon as it passes`);
      return;
    }
    if (handed.started) log(`${reason}: serving the contract at ${handed.url} (docs: ${handed.url}/docs)${reason === 'start' ? '' : `, ${servedMs} ms after the save`}`);
    else if (handed.unchanged) log(`${reason}: the contract served is the same, nothing to do`);
    else log(`${reason}: served ${servedMs} ms after the save (bundled and linted in ${checkedMs} ms)`);
    generation.schedule();
  };

  let running: Promise<void> = Promise.resolve();
  let pending = false;
  const schedule = (reason: string) => {
    const savedAt = performance.now();
    if (pending) return;
    pending = true;
    running = running.then(async () => {
      // Saves that come together (an editor writing several files, or one file twice) are served once.
      await new Promise((resolve) => setTimeout(resolve, 50));
      pending = false;
      await serveSave(reason, savedAt);
    });
  };

  // Watching from before the first check, so that a save made meanwhile is served after it.
  // chokidar rather than fs.watch: editors save by writing a new file and renaming it over the old one, which
  // Node's recursive watcher on Linux loses track of after the first time.
  watch(join(projectRoot, 'openapi'), { ignoreInitial: true }).on('all', (event, file) => schedule(`${relative(projectRoot, file)} ${event === 'change' ? 'changed' : event}`));
  running = serveSave('start', performance.now());
  await running;
  log('watching openapi/ (Ctrl-C to stop)');
  const shutdown = async () => {
    generation.stop();
    await mock.stop();
    await checker.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());
}

/**
 * `npm run generate` (types, the built docs) and then Spectral's house rules, once the saves pause, at a low
 * priority: they take seconds of a core, which the next save's check should not wait behind. A save stops them.
 */
function backgroundGeneration(): { schedule(): void; stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  let child: ChildProcess | undefined;
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
  // Each in a process group of its own, so that stopping it stops the tools it started too (redocly, Spectral).
  const start = (command: string, args: string[], stdio: ('ignore' | 'pipe')[]) => {
    const started = spawn(command, args, { cwd: projectRoot, env, stdio, detached: true });
    try {
      if (started.pid !== undefined) setPriority(started.pid, 10);
    } catch {
      // It ended already: nothing to lower.
    }
    child = started;
    return started;
  };
  const spectral = () => {
    const lint = start('npm', ['run', '--silent', 'lint:spectral'], ['ignore', 'pipe', 'pipe']);
    let output = '';
    lint.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    lint.on('exit', (status) => {
      if (child === lint) child = undefined;
      if (status !== null && status !== 0) log(`Spectral's house rules report problems (npm test will fail until they are fixed):\n${output.trim()}`);
    });
  };
  const generate = () => {
    const generating = start(bin('tsx'), [join(projectRoot, 'scripts', 'generate.ts')], ['ignore', 'ignore', 'pipe']);
    let errors = '';
    generating.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    generating.on('exit', (code) => {
      if (child !== generating) return;
      child = undefined;
      if (code === 0) {
        log('generated/ rewritten (types and the built docs)');
        spectral();
      } else if (code !== null) {
        log(`npm run generate failed:\n${errors.trim()}`);
      }
    });
  };
  return {
    schedule() {
      clearTimeout(timer);
      timer = setTimeout(generate, regenerateAfterMs);
    },
    stop() {
      clearTimeout(timer);
      const stopped = child;
      child = undefined;
      if (stopped?.pid !== undefined && stopped.exitCode === null) {
        try {
          process.kill(-stopped.pid, 'SIGTERM');
        } catch {
          // Already gone.
        }
      }
    },
  };
}

function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: projectRoot, stdio: 'inherit' });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited with ${code ?? 'a signal'}`))));
  });
}

await main();
