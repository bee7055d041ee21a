/**
 * The CI templates (.github/workflows/contract.yml, .gitlab-ci.yml) run what they say: both run `npm ci` and
 * `npm test`, and their review steps, run here as written against a git repository with one additive and one
 * breaking edit and a stand-in for the forge's API, write the review, annotate, post one comment and update that
 * same comment on the next run.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseYaml } from '@redocly/openapi-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOptionalAndRequireAnother, createReviewProject, type ReviewProject } from './support/review-project.ts';

const root = new URL('../../', import.meta.url).pathname;
const marker = '<!-- contract-review -->';

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  env?: Record<string, string>;
  if?: string;
}

interface Request {
  method: string;
  url: string;
  authorization: string;
  body?: { body: string };
}

/** A forge's comment API, as much as the comment script uses: comments kept in memory, every request recorded. */
async function startForge(): Promise<{ server: Server; url: string; requests: Request[]; comments: { id: number; body: string }[] }> {
  const requests: Request[] = [];
  const comments: { id: number; body: string }[] = [{ id: 1, body: 'Looks fine to me.' }];
  const server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      const body = text === '' ? undefined : (JSON.parse(text) as { body: string });
      const authorization = String(request.headers.authorization ?? request.headers['private-token'] ?? '');
      requests.push({ method: request.method!, url: request.url!, authorization, ...(body === undefined ? {} : { body }) });
      const id = Number(/\/(\d+)$/.exec(request.url!.split('?')[0]!)?.[1]);
      if (request.method === 'GET') return void response.end(JSON.stringify(comments));
      if (request.method === 'POST') comments.push({ id: comments.length + 1, body: body!.body });
      else comments.find((comment) => comment.id === id)!.body = body!.body;
      response.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, comments };
}

let project: ReviewProject;
let forge: Awaited<ReturnType<typeof startForge>>;

beforeAll(async () => {
  project = await createReviewProject();
  await addOptionalAndRequireAnother(project);
  forge = await startForge();
}, 60_000);

afterAll(async () => {
  forge?.server.close();
  await project?.remove();
});

/** Runs a step's script as the runner does: bash, stopping at the first failing command. */
async function runScript(script: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)('bash', ['-e', '-c', script], { cwd: project.folder, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout = '', stderr = '' } = error as { code: number; stdout?: string; stderr?: string };
    return { code, stdout, stderr };
  }
}

describe('GitHub Actions: .github/workflows/contract.yml', async () => {
  const workflow = parseYaml(await readFile(join(root, '.github/workflows/contract.yml'), 'utf8')) as {
    on: Record<string, unknown>;
    jobs: Record<string, { steps: Step[]; env?: Record<string, string>; permissions?: Record<string, string>; if?: string }>;
  };
  const { test, review } = workflow.jobs;
  const step = (name: string): Step => review!.steps.find((candidate) => candidate.name === name)!;
  // The values GitHub puts in the expressions the workflow uses; an expression not listed here fails the test.
  const contexts: Record<string, string> = {
    'github.base_ref': 'main', 'github.server_url': 'https://github.example', 'github.repository': 'partner/contract',
    'github.event.pull_request.head.sha': 'abc123', 'github.event.pull_request.number': '7', 'secrets.GITHUB_TOKEN': 'gh-token',
  };
  const expand = (value: string): string => value.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_match, expression: string) => {
    if (!(expression in contexts)) throw new Error(`the test does not know \${{ ${expression} }}`);
    return contexts[expression]!;
  });
  const envOf = (candidate: Step): Record<string, string> =>
    Object.fromEntries(Object.entries({ ...review!.env, ...candidate.env }).map(([name, value]) => [name, expand(String(value))]));

  it('runs npm ci and npm test, and reviews pull requests with the right to comment', () => {
    expect(workflow.on).toHaveProperty('pull_request');
    expect(test!.steps.map((candidate) => candidate.run).filter(Boolean)).toEqual(['npm ci', 'npm test']);
    expect(review!.if).toBe("github.event_name == 'pull_request'");
    expect(review!.permissions).toMatchObject({ 'pull-requests': 'write' });
    expect(review!.steps.find((candidate) => candidate.uses?.startsWith('actions/checkout'))).toMatchObject({ with: { 'fetch-depth': 0 } });
    expect(review!.steps.map((candidate) => candidate.run)).toContain('npm ci');
    expect(step('Fail when the change breaks the latest release').if).toBe("steps.review.outputs.status != ''");
  });

  it('writes the review as Markdown, records that it failed, annotates, and posts then updates one comment', async () => {
    // actions/checkout with the whole history fetches the base branch as origin/<base>.
    await project.git('update-ref', 'refs/remotes/origin/main', 'main');
    const output = join(project.folder, 'github-output');
    const reviewed = await runScript(step('Review the change to the contract').run!, { ...envOf(step('Review the change to the contract')), GITHUB_OUTPUT: output });
    expect(reviewed.code, reviewed.stderr).toBe(0);
    expect(await readFile(output, 'utf8')).toBe('status=1\n');
    const markdown = await readFile(join(project.folder, 'contract-review.md'), 'utf8');
    expect(markdown).toContain('**✖ Breaks release 1.0.0: this change brings 1 breaking change.**');
    expect(markdown).toContain('[`openapi/components/schemas/CustomerCreateRequest.yaml:5`](https://github.example/partner/contract/blob/abc123/openapi/components/schemas/CustomerCreateRequest.yaml#L5)');

    const annotated = await runScript(step('Annotate the files under openapi/').run!, envOf(step('Annotate the files under openapi/')));
    expect(annotated.code).toBe(0);
    expect(annotated.stdout).toContain('::error file=openapi/components/schemas/CustomerCreateRequest.yaml,line=5,');
    expect(annotated.stdout).toContain('::notice file=openapi/components/schemas/CustomerCreateRequest.yaml,line=17,');

    const comment = step('Post or update the review comment');
    const env = { ...envOf(comment), GITHUB_API_URL: forge.url, GITHUB_REPOSITORY: 'partner/contract' };
    forge.requests.length = 0;
    expect(await runScript(comment.run!, env)).toMatchObject({ code: 0 });
    expect(await runScript(comment.run!, env)).toMatchObject({ code: 0 });
    expect(forge.requests.map((request) => `${request.method} ${request.url}`)).toEqual([
      'GET /repos/partner/contract/issues/7/comments?per_page=100&page=1',
      'POST /repos/partner/contract/issues/7/comments',
      'GET /repos/partner/contract/issues/7/comments?per_page=100&page=1',
      'PATCH /repos/partner/contract/issues/comments/2',
    ]);
    expect(forge.requests.every((request) => request.authorization === 'Bearer gh-token')).toBe(true);
    expect(forge.comments).toHaveLength(2);
    expect(forge.comments[1]!.body).toBe(`${marker}\n${markdown.trim()}`);
  }, 120_000);
});

describe('GitLab CI: .gitlab-ci.yml', async () => {
  const pipeline = parseYaml(await readFile(join(root, '.gitlab-ci.yml'), 'utf8')) as Record<string, { script?: string[]; rules?: { if: string }[]; artifacts?: unknown }>;
  const job = pipeline['contract-review']!;

  it('runs npm ci and npm test, and reviews merge requests, keeping the JUnit report', () => {
    expect(pipeline.test!.script).toEqual(['npm ci', 'npm test']);
    expect(job.rules).toEqual([{ if: '$CI_PIPELINE_SOURCE == "merge_request_event"' }]);
    expect(job.script![0]).toBe('npm ci');
    expect(job.artifacts).toMatchObject({ when: 'always', reports: { junit: 'contract-review.xml' } });
  });

  it('writes the review, its JUnit report and one note, updated on the next run, and fails the job', async () => {
    forge.requests.length = 0;
    forge.comments.splice(1);
    const env = {
      CI_MERGE_REQUEST_DIFF_BASE_SHA: await project.git('merge-base', 'HEAD', 'main'),
      CI_PROJECT_URL: 'https://gitlab.example/partner/contract', CI_COMMIT_SHA: 'abc123',
      CI_API_V4_URL: `${forge.url}/api/v4`, CI_PROJECT_ID: '42', CI_MERGE_REQUEST_IID: '7', GITLAB_TOKEN: 'gl-token',
    };
    // The runner runs a job's script lines in one shell; `npm ci` is done already here.
    const script = job.script!.slice(1).join('\n');
    const first = await runScript(script, env);
    expect(first.code, first.stderr).toBe(1);
    expect(await readFile(join(project.folder, 'contract-review.xml'), 'utf8')).toContain('<testsuites name="contract review" tests="2" failures="1">');
    expect(await readFile(join(project.folder, 'contract-review.md'), 'utf8')).toContain('https://gitlab.example/partner/contract/-/blob/abc123/openapi/components/schemas/CustomerCreateRequest.yaml#L5');
    const noteLine = job.script!.find((line) => line.includes('review:comment'))!;
    expect(await runScript(noteLine, env)).toMatchObject({ code: 0 });
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
