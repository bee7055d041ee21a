/**
 * `npm run review` on a branch with one additive and one breaking edit, in a git repository of its own: each
 * format says both, the breaking one at its file and line under openapi/, and the command exits 1 because the
 * change breaks the latest release. Unknown revisions and a folder outside git are refused with their own status.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOptionalAndRequireAnother, createReviewProject, type ReviewProject } from './support/review-project.ts';

const source = 'openapi/components/schemas/CustomerCreateRequest.yaml';
let project: ReviewProject;

beforeAll(async () => {
  project = await createReviewProject();
  await addOptionalAndRequireAnother(project);
}, 60_000);

afterAll(async () => {
  await project?.remove();
});

describe('a change with one additive and one breaking edit', () => {
  it('text: the verdict, both edits under their operation, the break at its file and line', async () => {
    const result = await project.review('--format', 'text');
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toContain('against the merge base with main');
    expect(result.stdout).toContain('Breaks release 1.0.0: this change brings 1 breaking change.');
    expect(result.stdout).toContain(`now required: phoneNumber\n      why: requests that leave it out are refused\n      at ${source}:5`);
    expect(result.stdout).toMatch(/POST \/v1\/partner\/customers \(createCustomer\)\n {3}✖ Changed {4}request body: now required: phoneNumber/);
    expect(result.stdout).toContain(`Added      request body › /middleName: new optional property  (${source}:17)`);
  }, 60_000);

  it('markdown (the default when piped): a table of the break and a list per operation', async () => {
    const result = await project.review();
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('**✖ Breaks release 1.0.0: this change brings 1 breaking change.**');
    expect(result.stdout).toContain(`| POST /v1/partner/customers (createCustomer) › request body | now required: phoneNumber | requests that leave it out are refused | \`${source}:5\` |`);
    expect(result.stdout).toContain(`- **Added** request body › /middleName: new optional property — \`${source}:17\``);
  }, 60_000);

  it("is the sample comment in the README's Releasing the contract section, word for word but the commit", async () => {
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    const sample = /<!-- sample review: begin -->\n```markdown\n([\s\S]*?)\n```\n<!-- sample review: end -->/.exec(readme)?.[1];
    const withoutCommit = (text: string) => text.replace(/\(([0-9a-f]{12})\)/g, '(COMMIT)');
    expect(sample).toBeDefined();
    expect(withoutCommit((await project.review('--format', 'markdown')).stdout.trim())).toBe(withoutCommit(sample!));
  }, 60_000);

  it('markdown with --source-url links each place to its line', async () => {
    const result = await project.review('--format', 'markdown', '--source-url', 'https://example.com/blob/abc/');
    expect(result.stdout).toContain(`[\`${source}:5\`](https://example.com/blob/abc/${source}#L5)`);
  }, 60_000);

  it('github: an error annotation on the breaking line, a notice on the additive one', async () => {
    const result = await project.review('--format', 'github');
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`::error file=${source},line=5,title=Breaks release 1.0.0%3A POST /v1/partner/customers (createCustomer)::request body: now required: phoneNumber — requests that leave it out are refused`);
    expect(result.stdout).toContain(`::notice file=${source},line=17,title=Added%3A POST /v1/partner/customers (createCustomer)::request body › /middleName: new optional property`);
  }, 60_000);

  it('junit: one test case per change, the breaking one failed', async () => {
    const result = await project.review('--format', 'junit');
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="contract review" tests="2" failures="1">/);
    expect(result.stdout).toContain(`name="Changed request body: now required: phoneNumber" file="${source}" line="5">\n      <failure`);
    expect(result.stdout).toContain(`name="Added request body › /middleName: new optional property" file="${source}" line="17"/>`);
  }, 60_000);

  it('html: a page whose operations link into the reference docs of the proposed contract', async () => {
    const result = await project.review('--format', 'html', '--docs', 'docs/index.html');
    expect(result.stdout).toMatch(/^<!doctype html>/);
    expect(result.stdout).toContain('<h3><a href="docs/index.html#tag/Customers/operation/createCustomer">POST /v1/partner/customers (createCustomer)</a></h3>');
    expect(result.stdout).toContain('<li class="breaking"><strong>✖ Changed</strong> request body: now required: phoneNumber');
  }, 60_000);
});

describe('what the change brings, not what was there', () => {
  it('against a base that already had the breaking edit, only the additive one is new and nothing breaks because of it', async () => {
    await project.git('stash', '--quiet');
    try {
      await project.edit(source, 'required: [email, firstName, lastName, countryOfResidence]', 'required: [email, firstName, lastName, countryOfResidence, phoneNumber]');
      await project.git('commit', '--quiet', '-am', 'Require a phone number');
      await project.git('stash', 'pop', '--quiet');
      const result = await project.review('--format', 'text', '--base', 'HEAD');
      expect(result.stdout).toContain('Breaks release 1.0.0: this change brings 0 breaking changes; 1 more were there before it.');
      expect(result.stdout).toContain('What changed (1 change):');
      expect(result.stdout).toContain('/middleName: new optional property');
    } finally {
      await project.git('reset', '--quiet', '--hard', 'main');
      await addOptionalAndRequireAnother(project);
    }
  }, 60_000);
});

describe('refusals', () => {
  it('an unknown revision: exit 4, error[unknown-ref]', async () => {
    const result = await project.review('--base', 'no-such-branch');
    expect(result).toMatchObject({ code: 4, stdout: '' });
    expect(result.stderr).toContain('review: error[unknown-ref]: no-such-branch: no such commit');
  });

  it('outside a git checkout: exit 3, error[not-a-git-checkout]', async () => {
    const result = await project.run(project.reviewCommand[0], [project.reviewCommand[1]], { GIT_DIR: '/nonexistent' });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('review: error[not-a-git-checkout]');
  });

  it('an unknown format: exit 2; --help: exit 0 with the exit statuses', async () => {
    expect(await project.review('--format', 'pdf')).toMatchObject({ code: 2, stderr: expect.stringContaining('--format pdf: one of text, markdown, html, junit, github') });
    expect(await project.review('--help')).toMatchObject({ code: 0, stdout: expect.stringContaining('4 unknown-ref') });
  });
});
