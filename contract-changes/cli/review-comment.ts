/**
 * `npm run review:comment -- github|gitlab FILE`: posts the review (FILE, `npm run review -- --format markdown`) as
 * one comment on the pull request or merge request, or updates the comment it posted before, found by its hidden
 * marker, so that a pull request carries one review however often it is pushed to. Talks to the forge's REST API
 * with the token CI gives it; the addresses come from the variables each CI sets, so a test can point them at a
 * server of its own.
 *
 * A comment is a courtesy, not the verdict (CI's job summary, artifacts and the gate's exit status are): without a
 * token, or with one the forge accepts but does not let comment (403: a pull request from a fork gets a read-only
 * token), it says in one line why nothing was posted and exits 0. A token the forge refuses (401: wrong, expired,
 * revoked), an unknown pull request (404), a failing forge (5xx) or an unreachable one are errors: exit 1, so that
 * a broken set-up is seen rather than silently leaving every pull request without its comment.
 */
import { readFile } from 'node:fs/promises';
import { exitWith, usageError } from './cli-support.ts';

/** The first line of the comment: invisible once rendered, how the next run finds it. */
export const reviewMarker = '<!-- contract-review -->';

const help = `Usage: npm run review:comment -- github|gitlab FILE

Posts FILE (the review as Markdown) as one comment on the change under review, or updates the one posted before
(found by ${reviewMarker}).
  github: GITHUB_TOKEN, GITHUB_REPOSITORY (owner/name), PULL_REQUEST (its number), GITHUB_API_URL (set by Actions)
  gitlab: GITLAB_TOKEN (a token with the api scope), CI_API_V4_URL, CI_MERGE_REQUEST_PROJECT_ID (or CI_PROJECT_ID),
          CI_MERGE_REQUEST_IID (set by GitLab CI)

Exit status: 0 posted or updated, or not posted for a reason it prints in one line: no token, or a token that may
not comment (403, as a pull request from a fork has); 1 the forge refused the token (401) or failed; 2 bad usage.`;

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

/** An answer of the forge other than a success, with its status. */
class ForgeError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

async function call(url: string, init: RequestInit): Promise<unknown> {
  const response = await fetch(url, init);
  if (!response.ok) throw new ForgeError(response.status, `${init.method ?? 'GET'} ${url}: ${response.status} ${(await response.text()).replace(/\s+/g, ' ').slice(0, 500)}`);
  return response.json();
}

/** Each forge: its name, the variable that holds its token, why it may refuse a token that comment, and the thread. */
const forges = {
  github: { name: 'GitHub', token: 'GITHUB_TOKEN', readOnly: 'a pull request from a fork gets a read-only token', thread: githubThread },
  gitlab: { name: 'GitLab', token: 'GITLAB_TOKEN', readOnly: 'the token lacks the api scope, or a role on the project that may comment', thread: gitlabThread },
} as const;

function githubThread(token: string): Thread {
  const api = `${process.env.GITHUB_API_URL ?? 'https://api.github.com'}/repos/${env('GITHUB_REPOSITORY')}/issues`;
  const headers = { authorization: `Bearer ${token}`, accept: 'application/vnd.github+json', 'content-type': 'application/json' };
  const comments = `${api}/${env('PULL_REQUEST')}/comments`;
  return {
    list: async (page) => (await call(`${comments}?per_page=${pageSize}&page=${page}`, { headers })) as Comment[],
    create: async (body) => void (await call(comments, { method: 'POST', headers, body: JSON.stringify({ body }) })),
    update: async (id, body) => void (await call(`${api}/comments/${id}`, { method: 'PATCH', headers, body: JSON.stringify({ body }) })),
  };
}

function gitlabThread(token: string): Thread {
  // The merge request's project: a merge request from a fork is the target project's, whichever project runs the pipeline.
  const project = process.env.CI_MERGE_REQUEST_PROJECT_ID || env('CI_PROJECT_ID');
  const notes = `${env('CI_API_V4_URL')}/projects/${encodeURIComponent(project)}/merge_requests/${env('CI_MERGE_REQUEST_IID')}/notes`;
  const headers = { 'private-token': token, 'content-type': 'application/json' };
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
  const [name, file, ...extra] = process.argv.slice(2);
  if (name === '-h' || name === '--help') return exitWith(help, 0);
  if ((name !== 'github' && name !== 'gitlab') || file === undefined || extra.length > 0) return usageError(help);
  const review = (await readFile(file, 'utf8').catch(() => '')).trim();
  if (review === '') return usageError(`review:comment: ${file} is missing or empty: the review failed before it wrote anything.`);
  const forge = forges[name];
  const token = process.env[forge.token];
  if (token === undefined || token === '') return exitWith(`review:comment: no comment posted: ${forge.token} is not set.`, 0);
  const thread = forge.thread(token);
  const body = `${reviewMarker}\n${review}`;
  try {
    const posted = await findPosted(thread);
    if (posted === undefined) await thread.create(body);
    else await thread.update(posted.id, body);
    return exitWith(`review:comment: ${posted === undefined ? 'posted' : `updated comment ${posted.id}`}`, 0);
  } catch (error) {
    if (error instanceof ForgeError && error.status === 403) {
      const reason = `${forge.name} does not let ${forge.token} comment here (403; ${forge.readOnly})`;
      return exitWith(`review:comment: no comment posted: ${reason}: ${error.message}`, 0);
    }
    throw error;
  }
}

process.exitCode = await main().catch((error: unknown) => exitWith(`review:comment: ${(error as Error).message}`, 1));
