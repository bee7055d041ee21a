/**
 * What a stock CI runner gives a team that copies the repository: a clean checkout (the files a commit of the working
 * tree holds, nothing installed, nothing built), a PATH with Node 24 and the usual tools but no `redis-server`, no
 * Chromium and no Chrome, `CI=true`, and no token of any forge.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';

const root = new URL('../../../', import.meta.url).pathname;
const run = promisify(execFile);

/** What a stock runner lacks: the kit's own tests need them, the contract job must not. */
export const absentTools = /^(redis-.*|chromium.*|google-chrome.*|chrome)$/;

export interface CiMachine {
  /** The checkout: a git repository whose `main` holds the repository as it is. */
  folder: string;
  /** The environment a job starts with. */
  env: Record<string, string>;
  git(...args: string[]): Promise<string>;
  /**
   * A pull request: `from` replaced by `to` in `file`, committed on the branch `change` with generated/ written
   * from it, as a designer commits it; then checked out as actions/checkout checks out a pull request, merged into
   * `main`, which is fetched as `origin/main`. Each call adds a commit to the same pull request.
   */
  propose(file: string, from: string, to: string): Promise<void>;
  remove(): Promise<void>;
}

export async function createCiMachine(): Promise<CiMachine> {
  const scratch = await mkdtemp(join(tmpdir(), 'ci-machine-'));
  const folder = join(scratch, 'checkout');
  const bin = join(scratch, 'bin');
  await Promise.all([copyRepository(folder), barePath(bin)]);
  const env: Record<string, string> = {
    ...network(),
    PATH: bin, HOME: process.env.HOME ?? scratch, TMPDIR: tmpdir(), LANG: 'C.UTF-8', CI: 'true',
    GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
  };
  const git = async (...args: string[]): Promise<string> =>
    (await run('git', ['-c', 'user.name=Designer', '-c', 'user.email=designer@example.com', ...args], { cwd: folder, env })).stdout.trim();
  await git('init', '--quiet', '--initial-branch', 'main');
  await git('add', '-A');
  await git('commit', '--quiet', '-m', 'The repository as it is');
  await git('branch', 'change');
  const propose = async (file: string, from: string, to: string): Promise<void> => {
    await git('checkout', '--quiet', 'change');
    const path = join(folder, file);
    const text = await readFile(path, 'utf8');
    if (!text.includes(from)) throw new Error(`${file} has no ${from}`);
    await writeFile(path, text.replace(from, to));
    // generated/ as `npm run generate` writes it, with this repository's packages when the copy has none yet.
    const modules = join(folder, 'node_modules');
    const borrowed = !existsSync(modules);
    if (borrowed) await symlink(join(root, 'node_modules'), modules);
    try {
      await run(join(modules, '.bin', 'tsx'), ['scripts/generate.ts'], { cwd: folder, env });
    } finally {
      if (borrowed) await rm(modules);
    }
    // The edit and generated/: what the jobs write in the checkout (the review's folder, builds) is theirs.
    await git('add', '--', file, 'generated');
    await git('commit', '--quiet', '-m', `Edit ${file}`);
    await git('checkout', '--quiet', '-B', 'pull-request', 'main');
    await git('merge', '--quiet', '--no-ff', '-m', 'Merge the change', 'change');
    await git('update-ref', 'refs/remotes/origin/main', 'main');
  };
  return { folder, env, git, propose, remove: () => rm(scratch, { recursive: true, force: true }) };
}

/**
 * How this machine reaches the network (its proxy, the certificates it trusts), which a runner has its own of: without
 * them `npm ci` retries the registry for minutes before it settles for its cache.
 */
function network(): Record<string, string> {
  const reaches = /^(https?_proxy|no_proxy|all_proxy)$|CERT|CA_BUNDLE|CAINFO/i;
  return Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => reaches.test(entry[0]) && entry[1] !== undefined));
}

/** The files a commit of the working tree would hold (tracked and new, not ignored, not deleted), and no other. */
async function copyRepository(folder: string): Promise<void> {
  const { stdout } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, maxBuffer: 64 * 1024 * 1024 });
  const files = [...new Set(stdout.split('\0').filter((file) => file !== ''))].filter((file) => existsSync(join(root, file)));
  for (const file of files) {
    await mkdir(dirname(join(folder, file)), { recursive: true });
    await copyFile(join(root, file), join(folder, file));
  }
}

/** A folder that holds every command of this PATH, the first of each name as the shell would find it, but those a runner lacks. */
async function barePath(bin: string): Promise<void> {
  await mkdir(bin);
  const linked = new Set<string>();
  for (const folder of (process.env.PATH ?? '').split(delimiter).filter((folder) => folder !== '')) {
    const names = await readdir(folder).catch(() => [] as string[]);
    for (const name of names) {
      if (linked.has(name) || absentTools.test(name)) continue;
      linked.add(name);
      await symlink(join(folder, name), join(bin, name));
    }
  }
}
