/**
 * The contract as it was at a git revision: `openapi/` at REF, unpacked from `git archive` into a temporary
 * folder (the working tree and the index are never touched) and bundled as the working one is.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** Why the revision to review against cannot be read; each is its own exit status of `npm run review`. */
export type GitProblemCode = 'not-a-git-checkout' | 'unknown-ref' | 'no-merge-base' | 'no-contract-at-ref';

export class GitProblem extends Error {
  constructor(readonly code: GitProblemCode, message: string) {
    super(message);
  }
}

const run = promisify(execFile);

async function git(cwd: string, ...args: string[]): Promise<string> {
  return (await run('git', args, { cwd, maxBuffer: 256 * 1024 * 1024 })).stdout.trim();
}

export async function checkGitCheckout(cwd: string): Promise<void> {
  const inside = await git(cwd, 'rev-parse', '--is-inside-work-tree').catch(() => 'false');
  if (inside !== 'true') throw new GitProblem('not-a-git-checkout', `${cwd} is not a git checkout: the review compares the contract with a git revision.`);
}

/** The commit REF names. */
export async function resolveRef(cwd: string, ref: string): Promise<string> {
  const commit = await git(cwd, 'rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`).catch(() => '');
  if (commit === '') throw new GitProblem('unknown-ref', `${ref}: no such commit, branch or tag here (fetch it first, e.g. \`git fetch origin ${ref}\`).`);
  return commit;
}

/** Where this branch left `branch`: what the change is compared with by default. */
export async function mergeBase(cwd: string, branch: string): Promise<string> {
  await resolveRef(cwd, branch);
  const base = await git(cwd, 'merge-base', 'HEAD', branch).catch(() => '');
  if (base === '') throw new GitProblem('no-merge-base', `HEAD and ${branch} have no common commit: give the revision to compare with, --base REF.`);
  return base;
}

export interface ContractCheckout {
  /** `contractFolder` as it was at the commit. */
  folder: string;
  remove(): Promise<void>;
}

/** `contractFolder`: the contract's folder, relative to `cwd` (`openapi`). */
export async function checkoutContract(cwd: string, commit: string, contractFolder: string): Promise<ContractCheckout> {
  const scratch = await mkdtemp(join(tmpdir(), 'contract-at-ref-'));
  const remove = () => rm(scratch, { recursive: true, force: true });
  try {
    // The project may be a folder of a larger repository: the archive holds paths from the repository's top.
    const inRepository = `${await git(cwd, 'rev-parse', '--show-prefix')}${contractFolder}`;
    const archive = join(scratch, 'contract.tar');
    await git(await git(cwd, 'rev-parse', '--show-toplevel'), 'archive', '--format=tar', '-o', archive, commit, '--', inRepository).catch(() => {
      throw new GitProblem('no-contract-at-ref', `${commit.slice(0, 12)} has no ${contractFolder}/ to compare with.`);
    });
    await run('tar', ['-xf', archive, '-C', scratch]);
    await rm(archive);
    return { folder: join(scratch, inRepository), remove };
  } catch (error) {
    await remove();
    throw error;
  }
}
