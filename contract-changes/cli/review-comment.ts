/**
 * `npm run review:comment -- github|gitlab FILE`: posts the review (FILE, `npm run review -- --format markdown`) as
 * one comment on the pull request or merge request, or updates the comment it posted before, found by its hidden
 * marker, so that a pull request carries one review however often it is pushed to. Talks to the forge's REST API
 * with the token CI gives it; the addresses come from the variables each CI sets, so a test can point them at a
 * server of its own.
 */
import { readFile } from 'node:fs/promises';
import { exitWith, usageError } from './cli-support.ts';

/** The first line of the comment: invisible once rendered, how the next run finds it. */
export const reviewMarker = '<!-- contract-review -->';

const help = `Usage: npm run review:comment -- github|gitlab FILE

Posts FILE (the review as Markdown) as one comment on the change under review, or updates the one posted before
(found by ${reviewMarker}).
  github: GITHUB_TOKEN, GITHUB_REPOSITORY (owner/name), PULL_REQUEST (its number), GITHUB_API_URL (set by Actions)
  gitlab: GITLAB_TOKEN (a token with the api scope), CI_API_V4_URL, CI_PROJECT_ID, CI_MERGE_REQUEST_IID (set by GitLab CI)`;

interface Comment {
  id: number;
  body: string;
}

/** A forge's comments on one pull or merge request, as its REST API names them. */
interface Thread {
  list(page: number): Promise<Comment[]>;
  create(body: string): Promise<void>;
  update(id: number, body: string): Promise<void>;
}

const pageSize = 100;

function env(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is not set`);
  return value;
}

async function call(url: string, init: RequestInit): Promise<unknown> {
  const response = await fetch(url, init);
  if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

function githubThread(): Thread {
  const api = `${process.env.GITHUB_API_URL ?? 'https://api.github.com'}/repos/${env('GITHUB_REPOSITORY')}/issues`;
  const headers = { authorization: `Bearer ${env('GITHUB_TOKEN')}`, accept: 'application/vnd.github+json', 'content-type': 'application/json' };
  const comments = `${api}/${env('PULL_REQUEST')}/comments`;
  return {
    list: async (page) => (await call(`${comments}?per_page=${pageSize}&page=${page}`, { headers })) as Comment[],
    create: async (body) => void (await call(comments, { method: 'POST', headers, body: JSON.stringify({ body }) })),
    update: async (id, body) => void (await call(`${api}/comments/${id}`, { method: 'PATCH', headers, body: JSON.stringify({ body }) })),
  };
}

function gitlabThread(): Thread {
  const notes = `${env('CI_API_V4_URL')}/projects/${encodeURIComponent(env('CI_PROJECT_ID'))}/merge_requests/${env('CI_MERGE_REQUEST_IID')}/notes`;
  const headers = { 'private-token': env('GITLAB_TOKEN'), 'content-type': 'application/json' };
  return {
    list: async (page) => (await call(`${notes}?per_page=${pageSize}&page=${page}`, { headers })) as Comment[],
    create: async (body) => void (await call(notes, { method: 'POST', headers, body: JSON.stringify({ body }) })),
    update: async (id, body) => void (await call(`${notes}/${id}`, { method: 'PUT', headers, body: JSON.stringify({ body }) })),
  };
}

async function findPosted(thread: Thread): Promise<Comment | undefined> {
  for (let page = 1; ; page += 1) {
    const comments = await thread.list(page);
    const posted = comments.find((comment) => comment.body.startsWith(reviewMarker));
    if (posted !== undefined || comments.length < pageSize) return posted;
  }
}

async function main(): Promise<number> {
  const [forge, file, ...extra] = process.argv.slice(2);
  if (forge === '-h' || forge === '--help') return exitWith(help, 0);
  if ((forge !== 'github' && forge !== 'gitlab') || file === undefined || extra.length > 0) return usageError(help);
  const review = (await readFile(file, 'utf8')).trim();
  if (review === '') return usageError(`${file} is empty: the review failed before it wrote anything.`);
  const thread = forge === 'github' ? githubThread() : gitlabThread();
  const body = `${reviewMarker}\n${review}`;
  const posted = await findPosted(thread);
  if (posted === undefined) await thread.create(body);
  else await thread.update(posted.id, body);
  return exitWith(`review:comment: ${posted === undefined ? 'posted' : `updated comment ${posted.id}`}`, 0);
}

process.exitCode = await main().catch((error: unknown) => exitWith(`review:comment: ${(error as Error).message}`, 2));
