/**
 * `npm run review` on a branch with one additive and one breaking edit, in a git repository of its own: each
 * format says both, the breaking one at its file and line under openapi/, and the command exits 1 because the
 * change breaks the latest release. The formats are checked on a review run in process; the command itself is run
 * for what only it does: print one format, write several in one run, exit with its statuses, refuse bad input.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatGithub } from '../../contract-changes/review/formats/github.ts';
import { formatHtml } from '../../contract-changes/review/formats/html.ts';
import { formatJunit } from '../../contract-changes/review/formats/junit.ts';
import { formatMarkdown } from '../../contract-changes/review/formats/markdown.ts';
import { formatText } from '../../contract-changes/review/formats/text.ts';
import { reviewChange, type Review } from '../../contract-changes/review/review.ts';
import { readTrafficFile } from '../../contract-changes/traffic/traffic-file.ts';
import { addOptionalAndRequireAnother, createReviewProject, reviewProject, type ReviewProject } from './support/review-project.ts';

const source = 'openapi/components/schemas/CustomerCreateRequest.yaml';
let project: ReviewProject;
let review: Review;

beforeAll(async () => {
  project = await createReviewProject();
  await addOptionalAndRequireAnother(project);
  review = await reviewProject(project);
}, 60_000);

afterAll(async () => {
  await project?.remove();
});

describe('a change with one additive and one breaking edit', () => {
  it('text: the verdict, then each edit once, the break first with why, each at its file and line', () => {
    const text = formatText(review);
    expect(text).toContain('against the merge base with main');
    expect(text).toContain('Breaks release 1.0.0: this change brings 1 breaking change.\n\nWhat changed (2 changes):\n');
    expect(text).toContain(`  ✖ Changed    CustomerCreateRequest  (${source}:5)\n      ✖ now required: phoneNumber — in the request body of createCustomer\n        why: requests that leave it out are refused\n`);
    expect(text).toContain(`    Added      CustomerCreateRequest › /middleName  (${source}:17)\n      new optional property — in the request body of createCustomer\n`);
  });

  it("markdown: is the sample comment in the README's Releasing the contract section, word for word but the commit", async () => {
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    const sample = /<!-- sample review: begin -->\n```markdown\n([\s\S]*?)\n```\n<!-- sample review: end -->/.exec(readme)?.[1];
    const withoutCommit = (text: string) => text.replace(/\(([0-9a-f]{12})\)/g, '(COMMIT)');
    expect(sample).toBeDefined();
    expect(withoutCommit(formatMarkdown(review))).toBe(withoutCommit(sample!));
  });

  it("markdown with recorded traffic: is the sample in the README's Reviewing a change section, word for word but the commit", async () => {
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    const sample = /<!-- sample traffic review: begin -->\n```markdown\n([\s\S]*?)\n```\n<!-- sample traffic review: end -->/.exec(readme)?.[1];
    const withoutCommit = (text: string) => text.replace(/\(([0-9a-f]{12})\)/g, '(COMMIT)');
    // Recorded through the proxy in front of a mock: customers with and without a phone number, and one refused.
    const { document } = await readTrafficFile(fileURLToPath(new URL('./support/sandbox-traffic.json', import.meta.url)));
    const withTraffic = await reviewChange({ projectRoot: project.folder, traffic: [{ file: 'sandbox-traffic.json', document }] });
    expect(sample).toBeDefined();
    expect(withoutCommit(formatMarkdown(withTraffic))).toBe(withoutCommit(sample!));
  }, 60_000);

  it('markdown says where the review as a page is: among the artifacts at a URL, or beside it', () => {
    const page = { file: 'contract-review.html', withDocs: true };
    expect(formatMarkdown(review, { page: { ...page, url: 'https://ci.example/runs/7' } }).split('\n').at(-1)).toBe(
      "The review as a page, with the one operation this change touches as its docs read before and after, side by side, and the proposed contract's reference docs, is `contract-review.html` among this job's artifacts: https://ci.example/runs/7.",
    );
    expect(formatMarkdown(review, { page: { ...page, withDocs: false } }).split('\n').at(-1)).toBe(
      "The review as a page, with the one operation this change touches as its docs read before and after, side by side, is `contract-review.html` in the folder this review was written to (in CI, among the job's artifacts).",
    );
  });

  it('markdown with a source URL links each place to its line', () => {
    expect(formatMarkdown(review, { sourceUrl: 'https://example.com/blob/abc/' })).toContain(`[\`${source}:5\`](https://example.com/blob/abc/${source}#L5)`);
  });

  it('github: an error annotation on the breaking line, a notice on the additive one, the verdict last', () => {
    expect(formatGithub(review).split('\n')).toEqual([
      `::error file=${source},line=5,title=Breaks release 1.0.0%3A CustomerCreateRequest::now required: phoneNumber — in the request body of createCustomer (requests that leave it out are refused)`,
      `::notice file=${source},line=17,title=Added%3A CustomerCreateRequest › /middleName::new optional property — in the request body of createCustomer`,
      '::error title=Contract review::Breaks release 1.0.0: this change brings 1 breaking change.',
    ]);
  });

  it('junit: one failing test case per break, never an empty suite of breaks while the verdict is broken, one passing case per other change', () => {
    const junit = formatJunit(review);
    expect(junit).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="contract review" tests="2" failures="1">/);
    expect(junit).toContain(`<testsuite name="breaks of release 1.0.0" tests="1" failures="1">\n    <testcase classname="the request body of createCustomer" name="Changed CustomerCreateRequest: now required: phoneNumber" file="${source}" line="5">\n      <failure`);
    expect(junit).toContain(`<testsuite name="other changes" tests="1" failures="0">\n    <testcase classname="the request body of createCustomer" name="Added CustomerCreateRequest › /middleName: new optional property" file="${source}" line="17">`);
  });

  it('html: a page of the same entries, linking no docs that may be stale; the proposed docs when given', () => {
    const html = formatHtml(review);
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain(`<li class="breaking"><strong>✖ Changed</strong> CustomerCreateRequest — <code>${source}:5</code>`);
    expect(html).not.toContain('generated/docs');
    expect(formatHtml(review, { docsUrl: 'docs/index.html' })).toContain('in the request body of <a href="docs/index.html#tag/Customers/operation/createCustomer">createCustomer</a>');
  });
});

describe('the command', () => {
  it('prints one format (markdown when piped) and exits 1 when the change breaks the release', async () => {
    const result = await project.review();
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout.trim()).toBe(formatMarkdown(review));
  }, 60_000);

  it('writes every format asked for into --out DIR in one run, each as the review formats it', async () => {
    const out = await mkdtemp(join(tmpdir(), 'review-out-'));
    try {
      const result = await project.review('--format', 'markdown,junit,github', '--out', out);
      expect(result.code, result.stderr).toBe(1);
      expect(result.stdout).toContain('Breaks release 1.0.0: this change brings 1 breaking change.');
      expect(await readFile(join(out, 'contract-review.md'), 'utf8')).toBe(`${formatMarkdown(review)}\n`);
      expect(await readFile(join(out, 'contract-review.xml'), 'utf8')).toBe(`${formatJunit(review)}\n`);
      expect(await readFile(join(out, 'contract-review.github.txt'), 'utf8')).toBe(`${formatGithub(review)}\n`);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  }, 60_000);

  it('writes the proposed contract\'s reference docs beside the page, which links there, unless --no-docs', async () => {
    const out = await mkdtemp(join(tmpdir(), 'review-out-'));
    try {
      const result = await project.review('--out', join(out, 'with'));
      expect(result.code, result.stderr).toBe(1);
      expect(result.stdout).toContain('/with/docs/index.html');
      const docs = await readFile(join(out, 'with', 'docs', 'index.html'), 'utf8');
      expect(docs).toContain('<title>Partner Formation API (proposed)</title>');
      expect(docs).toContain('middleName');
      expect(await readFile(join(out, 'with', 'contract-review.html'), 'utf8')).toContain('<a href="docs/index.html#tag/Customers/operation/createCustomer">');
      expect(await readFile(join(out, 'with', 'contract-review.md'), 'utf8')).toContain(", and the proposed contract's reference docs, is `contract-review.html` in the folder");

      expect((await project.review('--out', join(out, 'without'), '--no-docs')).code).toBe(1);
      expect(existsSync(join(out, 'without', 'docs'))).toBe(false);
      expect(await readFile(join(out, 'without', 'contract-review.html'), 'utf8')).not.toContain('docs/index.html');
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  }, 60_000);

  it('refuses an unknown format, and several formats without --out: exit 2; --help: exit 0 with the exit statuses', async () => {
    expect(await project.review('--format', 'pdf')).toMatchObject({ code: 2, stderr: expect.stringContaining('--format pdf: one of text, markdown, html, junit, github') });
    expect(await project.review('--format', 'text,junit')).toMatchObject({ code: 2, stderr: expect.stringContaining('give --out DIR') });
    expect(await project.review('--help')).toMatchObject({ code: 0, stdout: expect.stringContaining('4 unknown-ref') });
  }, 60_000);

  it('an unknown revision: exit 4, error[unknown-ref]', async () => {
    const result = await project.review('--base', 'no-such-branch');
    expect(result).toMatchObject({ code: 4, stdout: '' });
    expect(result.stderr).toContain('review: error[unknown-ref]: no-such-branch: no such commit');
  }, 60_000);

  it('outside a git checkout: exit 3, error[not-a-git-checkout]', async () => {
    const result = await project.run(project.reviewCommand[0], [project.reviewCommand[1]], { GIT_DIR: '/nonexistent' });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('review: error[not-a-git-checkout]');
  }, 60_000);
});

describe('what the change brings, not what was there', () => {
  it('lists the lint findings the change introduces, each once, at its file and line', async () => {
    await project.edit('openapi/paths/v1_partner_customers.yaml', '  summary: List customers\n', '');
    try {
      const { lint } = await reviewProject(project);
      expect(lint.map((finding) => `${finding.tool} ${finding.rule} ${finding.file}:${finding.line}`)).toEqual([
        'spectral operation-documented openapi/paths/v1_partner_customers.yaml:1',
        'redocly operation-summary openapi/paths/v1_partner_customers.yaml:1',
      ]);
    } finally {
      await project.git('checkout', '--quiet', 'openapi/paths/v1_partner_customers.yaml');
    }
  }, 60_000);

  it('against a base that already had the breaking edit, only the additive one is new, and the break is listed as there before', async () => {
    await project.git('stash', '--quiet');
    try {
      await project.edit(source, 'required: [email, firstName, lastName, countryOfResidence]', 'required: [email, firstName, lastName, countryOfResidence, phoneNumber]');
      await project.git('commit', '--quiet', '-am', 'Require a phone number');
      await project.git('stash', 'pop', '--quiet');
      const text = formatText(await reviewProject(project, 'HEAD'));
      expect(text).toContain('Breaks release 1.0.0: this change brings 0 breaking changes; 1 more were there before it.');
      expect(text).toContain('What changed (1 change):');
      expect(text).toContain('/middleName');
      expect(text).toContain(`Breaks of release 1.0.0 already there at HEAD`);
      expect(text).toContain('now required: phoneNumber — in the request body of createCustomer');
    } finally {
      await project.git('reset', '--quiet', '--hard', 'main');
      await addOptionalAndRequireAnother(project);
    }
  }, 60_000);
});
