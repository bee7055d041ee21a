/**
 * `npm run dev`: the mock, serving the contract as it is being edited. An edit under openapi/ is bundled and
 * linted (Redocly's rules, the fast structural check) and, when both pass, the mock restarts on the new contract;
 * its store (a SQLite file of its own by default, or npm start's: dev-store.ts) keeps the data across the restart. A bundle or lint error is printed and the
 * last good contract keeps serving. generated/ is then rewritten in the background (types, docs), and Spectral's
 * house rules run there too, reported but not blocking: `npm test` is where they gate.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { watch } from 'chokidar';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { bundleContract } from '../../contract-changes/prepare.ts';
import { contractRoot, projectRoot } from '../../contract-changes/releases.ts';
import { defaultStoreSpec } from '../../mock/store/open-store.ts';
import { chooseDevStore, devStoreSpec, startStoreFlag } from './dev-store.ts';
import { lintContract } from './lint-bundle.ts';

const help = `Usage: npm run dev [-- [${startStoreFlag}] MOCK OPTIONS…]

Runs the mock and watches openapi/: each edit is bundled and linted, and the mock restarts on the new contract
within a couple of seconds, keeping its data. An error is printed, and the last good contract keeps serving. It says
at start which store it uses:

  (default)        its own, ${devStoreSpec}, apart from npm start's data
  ${startStoreFlag}    npm start's, ${defaultStoreSpec}: the same customers and companies in both (one at a time:
                   a SQLite file is held by the mock using it, so stop npm start first)
  --store SPEC     any store the mock takes (memory, sqlite:PATH, redis://…)

Any other option is passed to the mock (see \`npm start -- --help\`), e.g.
\`npm run dev -- --port 4020 --webhook-url http://localhost:3000/hooks\`.`;

const devFolder = join(projectRoot, '.mock-data');
const servedContract = join(devFolder, 'dev-contract.json');
const bin = (name: string) => join(projectRoot, 'node_modules', '.bin', name);

function log(message: string): void {
  process.stdout.write(`[dev] ${message}\n`);
}

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
  await run(process.execPath, [join(projectRoot, 'scripts', 'build-mock.mjs')]);

  let mock: ChildProcess | undefined;
  let serving = false;
  const startMock = () => {
    // Operations the contract gained before their handlers exist are answered from its examples meanwhile.
    mock = spawn(process.execPath, ['--enable-source-maps', join(projectRoot, '.build', 'main.mjs'), ...args, '--contract', servedContract, '--unhandled-operations', 'examples'], { stdio: 'inherit' });
    mock.on('exit', (code, signal) => {
      if (serving && signal === null) log(`the mock stopped (exit ${code ?? '?'}); fix what it says, then save a file under openapi/ to start it again`);
      mock = undefined;
    });
  };
  const stopMock = () =>
    new Promise<void>((resolve) => {
      if (!mock) return resolve();
      mock.once('exit', () => resolve());
      mock.kill('SIGTERM');
    });

  let running: Promise<void> = Promise.resolve();
  let pending = false;
  const reload = async (reason: string) => {
    const started = performance.now();
    let document;
    try {
      document = await bundleContract(contractRoot);
      const problems = await lintContract();
      if (problems.length > 0) throw new Error(`lint:\n${problems.map((problem) => `  ${problem}`).join('\n')}`);
    } catch (error) {
      log(`${reason}: not served, the last good contract keeps serving.\n${(error as Error).message}`);
      return;
    }
    await writeFile(servedContract, JSON.stringify(document));
    serving = false;
    await stopMock();
    serving = true;
    startMock();
    log(`${reason}: contract bundled, linted and handed to the mock in ${Math.round(performance.now() - started)} ms`);
    regenerateInBackground();
  };
  const schedule = (reason: string) => {
    if (pending) return;
    pending = true;
    running = running.then(async () => {
      await new Promise((resolve) => setTimeout(resolve, 100));
      pending = false;
      await reload(reason);
    });
  };

  await reload('start');
  // chokidar rather than fs.watch: editors save by writing a new file and renaming it over the old one, which
  // Node's recursive watcher on Linux loses track of after the first time.
  watch(join(projectRoot, 'openapi'), { ignoreInitial: true }).on('all', (event, file) => schedule(`${file.replace(`${projectRoot}/`, '')} ${event === 'change' ? 'changed' : event}`));
  log('watching openapi/ (Ctrl-C to stop)');
  const shutdown = async () => {
    serving = false;
    await stopMock();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());
}

let generating: ChildProcess | undefined;
function regenerateInBackground(): void {
  generating?.kill('SIGTERM');
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
  const child = spawn(bin('tsx'), [join(projectRoot, 'scripts', 'generate.ts')], { cwd: projectRoot, env, stdio: ['ignore', 'ignore', 'pipe'] });
  generating = child;
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  child.on('exit', (code) => {
    if (generating !== child) return;
    generating = undefined;
    if (code === 0) {
      log('generated/ rewritten (types and docs)');
      const spectral = spawn('npm', ['run', '--silent', 'lint:spectral'], { cwd: projectRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      spectral.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      spectral.on('exit', (status) => {
        if (status !== 0) log(`Spectral's house rules report problems (npm test will fail until they are fixed):\n${output.trim()}`);
      });
    } else if (code !== null) {
      log(`npm run generate failed:\n${errors.trim()}`);
    }
  });
}

function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: projectRoot, stdio: 'inherit' });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited with ${code ?? 'a signal'}`))));
  });
}

await main();
