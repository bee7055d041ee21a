/**
 * The CI templates (.github/workflows/contract.yml, .gitlab-ci.yml) pass as they come, for a team that copies the
 * repository. Their contract job, run step by step as each runner runs it (support/ci-runner.ts) in a clean copy of
 * the repository, with no `redis-server`, Chromium or Chrome on the PATH, `CI=true` and no token
 * (support/ci-machine.ts): on a compatible change it passes, the review written once (the job summary, annotations,
 * the artifact with the page and the proposed docs, the JUnit report) and one line saying why no comment was
 * posted; on a breaking one the same review is written and the job's verdict is the gate's. The kit's own tests are a
 * job of their own that installs what they need and runs when more than the contract changed. With a token, against
 * a stand-in for each forge's API, the review is posted as one comment and that comment updated on the next run; a
 * token that may not comment (403) is one line, a refused one (401) or a failing forge an error.
 *
 * Both templates run the same `npm ci` and the same checks (`npm run test:contract-job`, the test makes sure the
 * text is the same): in one copy in one state, each runs once and stands for both, which keeps this test to about
 * one contract job's time.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, matchesGlob } from 'node:path';
import { parseYaml } from '@redocly/openapi-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stageGroups } from '../../scripts/test-stages/stages.ts';
import { createCiMachine, type CiMachine } from './support/ci-machine.ts';
import { createCommandRunner, expand, runGithubJob, runGitlabJob, type CommandRunner, type GithubJob, type GithubStep, type GitlabJob } from './support/ci-runner.ts';
import { addOptionalAndRequireAnother, createReviewProject, type ReviewProject } from './support/review-project.ts';

const root = new URL('../../', import.meta.url).pathname;
const marker = '<!-- contract-review -->';
const checks = 'npm run test:contract-job';

const workflow = parseYaml(await readFile(join(root, '.github/workflows/contract.yml'), 'utf8')) as { on: Record<string, unknown>; jobs: Record<string, GithubJob> };
const pipeline = parseYaml(await readFile(join(root, '.gitlab-ci.yml'), 'utf8')) as Record<string, unknown>;
const github = { contract: workflow.jobs.contract!, kit: workflow.jobs.kit! };
const gitlab = { contract: pipeline.contract as GitlabJob, kit: pipeline.kit as GitlabJob };
const githubStep = (name: string): GithubStep => github.contract.steps.find((step) => step.name === name)!;
const reviewEntry = (): string => gitlab.contract.script!.find((entry) => entry.includes('npm run --silent review --'))!;

/** What a pull request's run on GitHub knows; the token is empty, as a run without one has it. */
const githubContexts: Record<string, string> = {
  'github.event_name': 'pull_request', 'github.base_ref': 'main', 'github.server_url': 'https://github.example',
  'github.repository': 'partner/contract', 'github.event.pull_request.head.sha': 'abc123', 'github.event.pull_request.number': '7',
  'github.run_id': '99', 'secrets.GITHUB_TOKEN': '',
};

describe('the templates', () => {
  it('run the same checks in a contract job that needs nothing but Node, and npm test in a kit job that installs what it needs', async () => {
    expect(workflow.on).toHaveProperty('pull_request');
    const githubRuns = github.contract.steps.map((step) => step.run).filter((run) => run !== undefined);
    expect(githubRuns[0]).toBe('npm ci');
    expect(githubRuns.at(-1)).toBe(checks);
    expect(gitlab.contract.script![0]).toBe('npm ci');
    expect(gitlab.contract.script!.at(-1)).toBe(checks);
    expect(stageGroups['contract-job']).toEqual(expect.arrayContaining(['lint', 'check:generated', 'check:breaking', 'test:contract', 'test:dredd', 'test:workflows']));
    // Nothing of the contract job asks for what a stock runner lacks.
    expect(JSON.stringify(github.contract)).not.toMatch(/redis|chrom|apt-get/i);
    expect(JSON.stringify(gitlab.contract)).not.toMatch(/redis|chrom|apt-get/i);

    expect(github.kit.steps.map((step) => step.run).filter(Boolean)).toEqual(expect.arrayContaining(['sudo apt-get update -qq && sudo apt-get install -y -qq redis-server', 'npm ci', 'npm test']));
    expect(github.kit.steps.find((step) => step.run === 'npm test')!.env).toEqual({ CHROMIUM_PATH: '/usr/bin/google-chrome' });
    expect(gitlab.kit.script).toEqual([expect.stringMatching(/^apt-get update -qq && .*apt-get install -y -qq redis-server chromium/), 'npm ci', 'npm test']);
    // .ci/run, the kit's own CI, runs exactly the README's test command.
    const ciRun = (await readFile(join(root, '.ci/run'), 'utf8')).trim().split('\n');
    expect(ciRun.at(-1)).toBe('npm test');
  });

  it('review pull requests with the right to comment, and keep the review as an artifact and GitLab\'s JUnit report', () => {
    expect(github.contract.permissions).toMatchObject({ 'pull-requests': 'write' });
    expect(github.contract.steps.find((step) => step.uses?.startsWith('actions/checkout'))).toMatchObject({ with: { 'fetch-depth': 0 } });
    expect(github.contract.steps.find((step) => step.uses?.startsWith('actions/upload-artifact'))).toMatchObject({ with: { path: 'contract-review/' } });
    expect(gitlab.contract.variables).toMatchObject({ GIT_DEPTH: 0 });
    expect(gitlab.contract.artifacts).toMatchObject({ when: 'always', paths: ['contract-review/'], reports: { junit: 'contract-review/contract-review.xml' } });
    // One review run per job, writing every format, replaying the repository's traffic corpus.
    expect(JSON.stringify(github.contract).match(/npm run --silent review --/g)).toHaveLength(1);
    expect(JSON.stringify(gitlab.contract).match(/npm run --silent review --/g)).toHaveLength(1);
    for (const review of [github.contract.steps.find((step) => step.name === 'Review the change to the contract')!.run!, reviewEntry()]) {
      expect(review).toMatch(/npm run --silent review -- .* --traffic contract-tests\/traffic\/\*\.json \|\| status=\$\?/);
    }
  });
});

describe('the contract job as it comes, on a runner with nothing but Node and no token', () => {
  let machine: CiMachine;
  let runner: CommandRunner;

  const gitlabVariables = async (): Promise<Record<string, string>> => ({
    CI_PIPELINE_SOURCE: 'merge_request_event', CI_PROJECT_DIR: machine.folder, CI_MERGE_REQUEST_DIFF_BASE_SHA: await machine.git('rev-parse', 'main'),
    CI_PROJECT_URL: 'https://gitlab.example/partner/contract', CI_COMMIT_SHA: await machine.git('rev-parse', 'HEAD'),
    CI_JOB_URL: 'https://gitlab.example/partner/contract/-/jobs/5', CI_API_V4_URL: 'https://gitlab.example/api/v4', CI_PROJECT_ID: '42', CI_MERGE_REQUEST_IID: '7',
  });

  const reviewFolder = () => join(machine.folder, 'contract-review');

  beforeAll(async () => {
    machine = await createCiMachine();
    runner = createCommandRunner(machine.folder, machine.env, new Set(['npm ci', checks]));
    await machine.propose('openapi/components/schemas/CustomerCreateRequest.yaml', '  phoneNumber:\n    $ref: ./PhoneNumber.yaml\n', '  phoneNumber:\n    $ref: ./PhoneNumber.yaml\n  middleName:\n    $ref: ./PersonName.yaml\n');
  }, 300_000);

  afterAll(async () => {
    await machine?.remove();
  });

  it('has no redis-server, Chromium or Chrome to find, and Node 24', async () => {
    expect(await runner.run('command -v redis-server chromium chromium-browser google-chrome || true')).toMatchObject({ stdout: '' });
    expect((await runner.run('node --version')).stdout).toMatch(/^v24\./);
    expect(Object.keys(machine.env).filter((name) => /token/i.test(name))).toEqual([]);
  });

  it('GitHub: passes on a compatible change: the review in the summary, annotations and the artifact, one line for the comment', async () => {
    await rm(reviewFolder(), { recursive: true, force: true });
    const job = await runGithubJob(github.contract, runner, githubContexts);
    const ran = (name: string) => job.steps.find(({ step }) => step.name === name || step.run === name)?.ran;
    for (const { step, ran: result } of job.steps) {
      if (result !== undefined) expect(result.code, `${step.name ?? step.run}: ${result.stdout.slice(-3000)}${result.stderr.slice(-3000)}`).toBe(0);
    }
    expect(job.code).toBe(0);
    expect(ran(checks)!.stdout).toContain(`All ${stageGroups['contract-job'].length} stages passed`);

    expect(job.summary).toContain('**✔ Compatible with release 1.0.0: no partner built on it breaks.**');
    expect(job.summary).toContain('- **Added** CustomerCreateRequest › /middleName — [`openapi/components/schemas/CustomerCreateRequest.yaml:17`](https://github.example/partner/contract/blob/abc123/openapi/components/schemas/CustomerCreateRequest.yaml#L17)');
    expect(job.summary).toContain("is `contract-review.html` among this job's artifacts: https://github.example/partner/contract/actions/runs/99.");
    // The corpus replayed: the compatible change refuses none of it.
    expect(job.summary).toContain('### Recorded traffic\n\n');
    expect(job.summary).toMatch(/recorded exchanges from contract-tests\/traffic\/contract-suite\.json\. None passes the base contract and fails the proposal\./);
    expect(ran('Review the change to the contract')!.stdout).toContain('::notice file=openapi/components/schemas/CustomerCreateRequest.yaml,line=17,');
    expect(ran('Post or update the review comment')!.stdout.trim()).toBe('review:comment: no comment posted: GITHUB_TOKEN is not set.');
    // The artifact holds the review in every format and the proposed contract's docs, which the page links to.
    const artifact = github.contract.steps.find((step) => step.uses?.startsWith('actions/upload-artifact'))!;
    expect(job.steps.find(({ step }) => step === artifact)).toBeDefined();
    const kept = join(machine.folder, String(artifact.with!.path));
    for (const file of ['contract-review.html', 'contract-review.md', 'contract-review.xml', 'contract-review.github.txt', 'docs/index.html']) expect(existsSync(join(kept, file)), file).toBe(true);
    const page = await readFile(join(kept, 'contract-review.html'), 'utf8');
    expect(page).toContain('<a href="docs/index.html#tag/Customers/operation/createCustomer">');
    expect(await readFile(join(kept, 'docs/index.html'), 'utf8')).toContain('middleName');
  }, 900_000);

  it('GitLab: passes on the same change: the artifacts, the JUnit report, one line for the note', async () => {
    await rm(reviewFolder(), { recursive: true, force: true });
    const job = await runGitlabJob(pipeline, gitlab.contract, runner, await gitlabVariables());
    expect(job.code, job.entries.map((entry) => `${entry.stdout.slice(-3000)}${entry.stderr.slice(-3000)}`).join('\n')).toBe(0);
    expect(job.entries).toHaveLength(gitlab.contract.script!.length);
    const reviewed = job.entries[gitlab.contract.script!.indexOf(reviewEntry())]!;
    expect(reviewed.stdout).toContain('review:comment: no comment posted: GITLAB_TOKEN is not set.');
    for (const path of gitlab.contract.artifacts!.paths!) expect(existsSync(join(machine.folder, path)), path).toBe(true);
    expect(await readFile(join(machine.folder, gitlab.contract.artifacts!.reports!.junit!), 'utf8')).toContain('<testsuites name="contract review" tests="1" failures="0">');
    expect(await readFile(join(reviewFolder(), 'contract-review.md'), 'utf8')).toContain('https://gitlab.example/partner/contract/-/jobs/5/artifacts/file/contract-review/contract-review.html');
  }, 900_000);

  it("on a breaking change, writes the same review and the job's verdict is the gate's", async () => {
    await machine.propose('openapi/components/schemas/CustomerCreateRequest.yaml', 'required: [email, firstName, lastName, countryOfResidence]', 'required: [email, firstName, lastName, countryOfResidence, phoneNumber]');
    const beforeChecks = (step: GithubStep | string) => (typeof step === 'string' ? step : step.run) === checks;
    await rm(reviewFolder(), { recursive: true, force: true });
    const githubJob = await runGithubJob(github.contract, runner, githubContexts, beforeChecks);
    expect(githubJob.code).toBe(0);
    expect(githubJob.summary).toContain('**✖ Breaks release 1.0.0: this change brings 1 breaking change.**');
    expect(githubJob.summary).toMatch(/  - recorded traffic: refuses \d+ of [\d,]+ recorded requests of createCustomer, e\.g\. POST \/v1\/partner\/customers → 200 \(contract-suite\.json #\d+\): body \/phoneNumber: Required\. \(E\\_REQUIRED\)/);
    expect(githubJob.steps.find(({ step }) => step.name === 'Post or update the review comment')!.ran!.stdout).toContain('no comment posted');
    expect(existsSync(join(reviewFolder(), 'contract-review.html'))).toBe(true);

    await rm(reviewFolder(), { recursive: true, force: true });
    const gitlabJob = await runGitlabJob(pipeline, gitlab.contract, runner, await gitlabVariables(), beforeChecks);
    expect(gitlabJob.code).toBe(0);
    expect(await readFile(join(reviewFolder(), 'contract-review.xml'), 'utf8')).toContain('<testsuite name="breaks of release 1.0.0" tests="1" failures="1">');
    expect(await readFile(join(reviewFolder(), 'contract-review.xml'), 'utf8')).toContain('<testsuite name="recorded traffic" tests="1" failures="1">');

    // What both jobs run next is the checks, the gate among them: it fails them on this change, and only it.
    expect(stageGroups['contract-job']).toContain('check:breaking');
    const gate = await runner.run('npm run --silent check:breaking');
    expect(gate.code).toBe(1);
    expect(gate.stdout + gate.stderr).toContain('now required: phoneNumber');
  }, 900_000);

  it("runs the kit's tests when more than openapi/ and generated/ changed, and only then", async () => {
    const scope = github.kit.steps.find((step) => step.id === 'scope')!;
    const changed = async () => (await machine.git('diff', '--name-only', 'HEAD^1', 'HEAD')).split('\n');
    const decide = async () => {
      const output = join(await mkdtemp(join(tmpdir(), 'scope-')), 'output');
      await writeFile(output, '');
      expect((await runner.run(scope.run!, { GITHUB_EVENT_NAME: 'pull_request', GITHUB_OUTPUT: output })).code).toBe(0);
      const onGithub = (await readFile(output, 'utf8')).trim();
      await rm(join(output, '..'), { recursive: true, force: true });
      const [mergeRequest] = gitlab.kit.rules!.filter((rule) => rule.changes !== undefined);
      const onGitlab = (await changed()).some((file) => mergeRequest!.changes!.some((pattern) => matchesGlob(file, pattern)));
      return { github: onGithub, gitlab: onGitlab };
    };
    expect(await changed()).toEqual(expect.arrayContaining(['generated/openapi.json', 'openapi/components/schemas/CustomerCreateRequest.yaml']));
    expect(await decide()).toEqual({ github: 'kit=false', gitlab: false });
    await machine.propose('contract-tests/README.md', '# Contract tests', '# Contract tests\n');
    expect(await decide()).toEqual({ github: 'kit=true', gitlab: true });
    // On a push, and on GitLab's branch pipelines, always.
    expect(gitlab.kit.rules).toContainEqual({ if: '$CI_PIPELINE_SOURCE != "merge_request_event"' });
    for (const path of ['package.json', '.gitlab-ci.yml', '.github/workflows/contract.yml', 'mock/app/main.ts', 'opening/x', 'generate/x', 'generated.txt']) {
      expect(gitlab.kit.rules![1]!.changes!.some((pattern) => matchesGlob(path, pattern)), path).toBe(true);
    }
  }, 300_000);
});

interface Request {
  method: string;
  url: string;
  authorization: string;
  body?: { body: string };
}

/** A forge's comment API, as much as the comment script uses: comments kept in memory, every request recorded. */
async function startForge() {
  const requests: Request[] = [];
  const comments: { id: number; body: string }[] = [{ id: 1, body: 'Looks fine to me.' }];
  /** Every request is answered this status instead when set: a forge refusing the token, or failing. */
  const state = { refuseWith: 0 };
  const server: Server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      const body = text === '' ? undefined : (JSON.parse(text) as { body: string });
      const authorization = String(request.headers.authorization ?? request.headers['private-token'] ?? '');
      requests.push({ method: request.method!, url: request.url!, authorization, ...(body === undefined ? {} : { body }) });
      if (state.refuseWith !== 0) return void response.writeHead(state.refuseWith).end(JSON.stringify({ message: 'Resource not accessible by integration' }));
      const id = Number(/\/(\d+)$/.exec(request.url!.split('?')[0]!)?.[1]);
      if (request.method === 'GET') return void response.end(JSON.stringify(comments));
      if (request.method === 'POST') comments.push({ id: comments.length + 1, body: body!.body });
      else comments.find((comment) => comment.id === id)!.body = body!.body;
      response.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, comments, state };
}

describe('the review steps with a token, against a stand-in forge', () => {
  let project: ReviewProject;
  let forge: Awaited<ReturnType<typeof startForge>>;
  let runner: CommandRunner;

  beforeAll(async () => {
    project = await createReviewProject();
    await addOptionalAndRequireAnother(project);
    forge = await startForge();
    runner = createCommandRunner(project.folder, process.env as Record<string, string>, new Set());
  }, 60_000);

  afterAll(async () => {
    forge?.server.close();
    await project?.remove();
  });

  it('GitHub: reviews, annotates, posts one comment and updates it; a token that may not comment is one line, a refused one an error', async () => {
    // actions/checkout with the whole history fetches the base branch as origin/<base>.
    await project.git('update-ref', 'refs/remotes/origin/main', 'main');
    const contexts = { ...githubContexts, 'secrets.GITHUB_TOKEN': 'gh-token' };
    const envOf = (step: GithubStep) => Object.fromEntries(Object.entries(step.env ?? {}).map(([name, value]) => [name, expand(String(value), contexts)]));
    const review = githubStep('Review the change to the contract');
    const summary = join(project.folder, 'summary.md');
    await writeFile(summary, '');
    const reviewed = await runner.run(review.run!, { ...envOf(review), GITHUB_STEP_SUMMARY: summary });
    expect(reviewed.code, reviewed.stderr).toBe(0);
    expect(reviewed.stdout).toContain('::error file=openapi/components/schemas/CustomerCreateRequest.yaml,line=5,');
    const markdown = await readFile(join(project.folder, 'contract-review/contract-review.md'), 'utf8');
    expect(await readFile(summary, 'utf8')).toBe(markdown);
    expect(markdown).toContain('**✖ Breaks release 1.0.0: this change brings 1 breaking change.**');

    const comment = githubStep('Post or update the review comment');
    const env = { ...envOf(comment), GITHUB_API_URL: forge.url, GITHUB_REPOSITORY: 'partner/contract' };
    forge.requests.length = 0;
    expect(await runner.run(comment.run!, env)).toMatchObject({ code: 0, stdout: 'review:comment: posted\n' });
    expect(await runner.run(comment.run!, env)).toMatchObject({ code: 0, stdout: 'review:comment: updated comment 2\n' });
    expect(forge.requests.map((request) => `${request.method} ${request.url}`)).toEqual([
      'GET /repos/partner/contract/issues/7/comments?per_page=100&page=1',
      'POST /repos/partner/contract/issues/7/comments',
      'GET /repos/partner/contract/issues/7/comments?per_page=100&page=1',
      'PATCH /repos/partner/contract/issues/comments/2',
    ]);
    expect(forge.requests.every((request) => request.authorization === 'Bearer gh-token')).toBe(true);
    expect(forge.comments).toHaveLength(2);
    expect(forge.comments[1]!.body).toBe(`${marker}\n${markdown.trim()}`);

    try {
      // A pull request from a fork: the token may read, not write.
      forge.state.refuseWith = 403;
      const readOnly = await runner.run(comment.run!, env);
      expect(readOnly.code).toBe(0);
      expect(readOnly.stdout.trim().split('\n')).toEqual([expect.stringMatching(/^review:comment: no comment posted: GitHub does not let GITHUB_TOKEN comment here \(403; a pull request from a fork gets a read-only token\): GET .* 403 \{"message":"Resource not accessible by integration"\}$/)]);
      for (const status of [401, 404, 500]) {
        forge.state.refuseWith = status;
        const refused = await runner.run(comment.run!, env);
        expect(refused.code, String(status)).toBe(1);
        expect(refused.stderr).toContain(`: ${status} `);
      }
    } finally {
      forge.state.refuseWith = 0;
    }
  }, 120_000);

  it('GitLab: reviews, posts one note and updates it on the next run, to the merge request\'s project', async () => {
    forge.requests.length = 0;
    forge.comments.splice(1);
    const env = {
      CI_PIPELINE_SOURCE: 'merge_request_event', CI_MERGE_REQUEST_DIFF_BASE_SHA: await project.git('merge-base', 'HEAD', 'main'),
      CI_PROJECT_URL: 'https://gitlab.example/partner/contract', CI_COMMIT_SHA: 'abc123', CI_JOB_URL: 'https://gitlab.example/partner/contract/-/jobs/5',
      CI_API_V4_URL: `${forge.url}/api/v4`, CI_PROJECT_ID: '43', CI_MERGE_REQUEST_PROJECT_ID: '42', CI_MERGE_REQUEST_IID: '7', GITLAB_TOKEN: 'gl-token',
    };
    const first = await runner.run(reviewEntry(), env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('review:comment: posted');
    // The break and the addition, and the recorded requests the break would refuse (the traffic corpus CI replays).
    expect(await readFile(join(project.folder, 'contract-review/contract-review.xml'), 'utf8')).toContain('<testsuites name="contract review" tests="3" failures="2">');
    expect(await readFile(join(project.folder, 'contract-review/contract-review.md'), 'utf8')).toContain('https://gitlab.example/partner/contract/-/blob/abc123/openapi/components/schemas/CustomerCreateRequest.yaml#L5');
    expect(await runner.run(reviewEntry(), env)).toMatchObject({ code: 0, stdout: expect.stringContaining('review:comment: updated comment 2') });
    expect(forge.requests.map((request) => `${request.method} ${request.url}`)).toEqual([
      'GET /api/v4/projects/42/merge_requests/7/notes?per_page=100&page=1',
      'POST /api/v4/projects/42/merge_requests/7/notes',
      'GET /api/v4/projects/42/merge_requests/7/notes?per_page=100&page=1',
      'PUT /api/v4/projects/42/merge_requests/7/notes/2',
    ]);
    expect(forge.requests.every((request) => request.authorization === 'gl-token')).toBe(true);
    expect(forge.comments.filter((comment) => comment.body.startsWith(marker))).toHaveLength(1);
  }, 120_000);
});
