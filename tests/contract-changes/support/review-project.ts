/**
 * A copy of the project in a git repository of its own, for running `npm run review` as CI does: the contract as
 * it is, committed on `main`, and a branch `change` checked out on top, where a test makes its edits.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { reviewChange, type Review } from '../../../contract-changes/review/review.ts';
import { runCommand, type CommandResult } from '../../support/run-command.ts';

const root = new URL('../../../', import.meta.url).pathname;
// What `npm run review` reads (with --out, the docs' build and CHANGELOG.md too; with --traffic, the mock's request
// checks, the admin contract's bundle in generated/ and the traffic corpus CI passes it), and the launcher its npm
// script starts through (not the pinned Node it may install).
const copied = [
  'openapi', 'releases', 'contract-changes', 'contract-model', 'mock', 'generated', 'spectral', '.spectral.yaml', 'redocly.yaml', 'package.json',
  '.ci/on-node.cjs', 'scripts', 'CHANGELOG.md', 'contract-tests/traffic/contract-suite.json',
];

export interface ReviewProject {
  folder: string;
  /** Replaces `from` by `to` in a file of the copy. */
  edit(file: string, from: string, to: string): Promise<void>;
  /** Runs a command in the copy, as CI would. */
  run(command: string, args: readonly string[], env?: Record<string, string>): Promise<CommandResult>;
  /** `npm run review -- …`, without npm's own lines. */
  review(...args: string[]): Promise<CommandResult>;
  /** The command `review` runs: tsx and the script. */
  reviewCommand: readonly [string, string];
  git(...args: string[]): Promise<string>;
  remove(): Promise<void>;
}

/** The kit's code: what the review runs (the contract, its releases and the linters' rules are always today's). */
const code = ['contract-changes', 'contract-model'];

/** `codeAt`: a revision of this repository whose code the copy runs instead of the working tree's (to compare). */
export async function createReviewProject({ codeAt }: { codeAt?: string } = {}): Promise<ReviewProject> {
  const folder = await mkdtemp(join(tmpdir(), 'contract-review-'));
  for (const path of copied.filter((path) => codeAt === undefined || !code.includes(path))) {
    await mkdir(dirname(join(folder, path)), { recursive: true });
    await cp(join(root, path), join(folder, path), { recursive: true });
  }
  if (codeAt !== undefined) {
    await promisify(execFile)('sh', ['-c', `git archive "$0" ${code.join(' ')} | tar -x -C "$1"`, codeAt, folder], { cwd: root });
  }
  await symlink(join(root, 'node_modules'), join(folder, 'node_modules'));
  const quiet = { REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
  const run = (command: string, args: readonly string[], env: Record<string, string> = {}): Promise<CommandResult> => runCommand(command, args, { cwd: folder, env: { ...process.env, ...quiet, ...env } });
  const git = async (...args: string[]): Promise<string> => {
    const result = await run('git', ['-c', 'user.name=Reviewer', '-c', 'user.email=reviewer@example.com', ...args]);
    if (result.code !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
    return result.stdout.trim();
  };
  await writeFile(join(folder, '.gitignore'), 'node_modules\n');
  await git('init', '--quiet', '--initial-branch', 'main');
  await git('add', '-A');
  await git('commit', '--quiet', '-m', 'The contract as released');
  await git('checkout', '--quiet', '-b', 'change');
  const reviewCommand = [join(folder, 'node_modules', '.bin', 'tsx'), join(folder, 'contract-changes', 'cli', 'review.ts')] as const;
  return {
    folder,
    async edit(file, from, to) {
      const path = join(folder, file);
      const text = await readFile(path, 'utf8');
      if (!text.includes(from)) throw new Error(`${file} has no ${from}`);
      await writeFile(path, text.replace(from, to));
    },
    run,
    review: (...args) => run(reviewCommand[0], [reviewCommand[1], ...args]),
    reviewCommand,
    git,
    remove: () => rm(folder, { recursive: true, force: true }),
  };
}

/** The review of the change in the copy, run in process: no CLI started, the same review the CLI formats. */
export function reviewProject(project: ReviewProject, base?: string): Promise<Review> {
  return reviewChange({ projectRoot: project.folder, ...(base === undefined ? {} : { base }) });
}

/** One additive and one breaking edit to createCustomer's request body, both in CustomerCreateRequest.yaml. */
export async function addOptionalAndRequireAnother(project: ReviewProject): Promise<void> {
  const file = 'openapi/components/schemas/CustomerCreateRequest.yaml';
  await project.edit(file, 'required: [email, firstName, lastName, countryOfResidence]', 'required: [email, firstName, lastName, countryOfResidence, phoneNumber]');
  await project.edit(file, '  phoneNumber:\n    $ref: ./PhoneNumber.yaml\n', '  phoneNumber:\n    $ref: ./PhoneNumber.yaml\n  middleName:\n    $ref: ./PersonName.yaml\n');
}

/**
 * Three edits a designer makes in one change: an optional field in a request (createCustomer's `middleName`), a
 * `writeOnly` field made required (the responsible party's `taxId`, sent and never returned), and a new value in a
 * closed enum that responses carry and a query parameter accepts (FormationStatus gains `ON_HOLD`).
 */
export async function addThreeEdits(project: ReviewProject): Promise<void> {
  await project.edit('openapi/components/schemas/CustomerCreateRequest.yaml', '  phoneNumber:\n    $ref: ./PhoneNumber.yaml\n', '  phoneNumber:\n    $ref: ./PhoneNumber.yaml\n  middleName:\n    $ref: ./PersonName.yaml\n');
  await project.edit('openapi/components/schemas/ResponsibleParty.yaml', 'required: [firstName, lastName, email]', 'required: [firstName, lastName, email, taxId]');
  await project.edit('openapi/components/schemas/FormationStatus.yaml', 'enum: [PENDING, SUBMITTED, COMPLETED, FAILED]', 'enum: [PENDING, SUBMITTED, ON_HOLD, COMPLETED, FAILED]');
}
