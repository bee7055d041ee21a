/**
 * One review of a change with three edits, in every format: an optional request field, a `writeOnly` field made
 * required, a new value in a closed enum that responses carry. Each format states exactly those three changes, each
 * once, at its file and line, with its verdict: the enum value breaks the responses of seven operations (and is
 * accepted by listCompanies' filter), the required field breaks createCompany's requests (and says nothing of the
 * responses that never carry it), the optional field is an addition. The review runs in process, once.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAccepted } from '../../contract-changes/accepted.ts';
import { compareContracts } from '../../contract-changes/compare.ts';
import { createPlacer } from '../../contract-changes/entries.ts';
import { bundleContract } from '../../contract-changes/prepare.ts';
import { formatBreakingReport } from '../../contract-changes/report.ts';
import { createSourceLines } from '../../contract-changes/source-lines.ts';
import { formatGithub } from '../../contract-changes/review/formats/github.ts';
import { formatHtml } from '../../contract-changes/review/formats/html.ts';
import { formatJunit } from '../../contract-changes/review/formats/junit.ts';
import { formatMarkdown } from '../../contract-changes/review/formats/markdown.ts';
import { formatText } from '../../contract-changes/review/formats/text.ts';
import type { Review } from '../../contract-changes/review/review.ts';
import { sideBySide } from '../../contract-changes/review/side-by-side.ts';
import type { JsonObject } from '../../contract-model/document.ts';
import { addThreeEdits, createReviewProject, reviewProject, type ReviewProject } from './support/review-project.ts';

const enumValue = { place: 'openapi/components/schemas/FormationStatus.yaml:6', breaks: true };
const writeOnlyRequired = { place: 'openapi/components/schemas/ResponsibleParty.yaml:7', breaks: true };
const optionalField = { place: 'openapi/components/schemas/CustomerCreateRequest.yaml:17', breaks: false };
const edits = [enumValue, writeOnlyRequired, optionalField];

const statements = [
  'enum values added: "ON_HOLD" — in the responses of 7 operations: listCompanies, createCompany, getCompany, listCustomers, createCustomer, getCustomer, simulateCompanyFormation',
  'enum values accepted: "ON_HOLD" — in the query parameter status of listCompanies',
  'now required: taxId — in the request body of createCompany',
  'new optional property — in the request body of createCustomer',
];

let project: ReviewProject;
let review: Review;

beforeAll(async () => {
  project = await createReviewProject();
  await addThreeEdits(project);
  review = await reviewProject(project);
}, 60_000);

afterAll(async () => {
  await project?.remove();
});

const count = (text: string, part: string): number => text.split(part).length - 1;

it('finds three changes, two of them breaking the latest release, each at the line of its edit', () => {
  expect(review.changes.map((change) => [`${change.place.file}:${change.place.line}`, change.breaksRelease])).toEqual(
    [[optionalField.place, false], [enumValue.place, true], [writeOnlyRequired.place, true]],
  );
  expect(review.breaksRelease).toBe(true);
  expect(review.breaksAtBase).toEqual([]);
});

it('says nothing of a writeOnly field in the responses that never carry it', () => {
  const said = review.changes.flatMap((change) => change.statements.map((statement) => statement.what));
  expect(said.filter((what) => what.includes('always present'))).toEqual([]);
});

it('checks an example against the side and the branch it illustrates, each problem once', () => {
  // The CCorp request example lacks the taxId now required; the responses' examples never carry it, rightly.
  expect(review.examples.map((failure) => [`${failure.place.file}:${failure.place.line}`, failure.problems])).toEqual([
    ['openapi/components/examples/CCorpFormationRequest.yaml:2', ["the example/responsibleParty: must have required property 'taxId'"]],
    ['openapi/components/schemas/ResponsibleParty.yaml:27', ["the example: must have required property 'taxId'"]],
  ]);
});

/** How each format writes a file and line. */
const asFileAndLine = (place: string) => place.split(':') as [string, string];
const placeIn = {
  text: (place: string) => place,
  junit: (place: string) => `file="${asFileAndLine(place)[0]}" line="${asFileAndLine(place)[1]}"`,
  github: (place: string) => `file=${asFileAndLine(place)[0]},line=${asFileAndLine(place)[1]},`,
};

describe.each([
  ['text', () => formatText(review), placeIn.text],
  ['markdown', () => formatMarkdown(review), placeIn.text],
  // The page's statements; its docs before and after, every field of every branch as the docs read, are checked below.
  ['html', () => formatHtml(review).split('<h2>The docs before and after</h2>')[0]!, placeIn.text],
  ['junit', () => formatJunit(review), placeIn.junit],
  ['github', () => formatGithub(review), placeIn.github],
])('%s', (_format, write, written) => {
  it('states each of the three changes once, at its file and line, and nothing of another oneOf branch', () => {
    const text = write().replaceAll('&quot;', '"').replaceAll('\\_', '_');
    for (const { place } of edits) expect(count(text, written(place)), place).toBe(1);
    for (const statement of statements) expect(count(text, statement), statement).toBe(1);
    expect(text).not.toContain('always present');
    expect(text).not.toContain('executiveMembers');
  });
});

it('marks the two breaks in each format, and the addition as none', () => {
  const text = formatText(review);
  expect(text).toContain('Breaks release 1.0.0: this change brings 2 breaking changes.');
  expect(text).toContain('What changed (3 changes):');
  expect(text).toMatch(/✖ Changed {4}FormationStatus {2}\(openapi\/components\/schemas\/FormationStatus\.yaml:6\)/);
  expect(text).toMatch(/✖ Changed {4}ResponsibleParty {2}\(openapi\/components\/schemas\/ResponsibleParty\.yaml:7\)/);
  expect(text).toMatch(/ {3}Added {6}CustomerCreateRequest › \/middleName {2}\(openapi\/components\/schemas\/CustomerCreateRequest\.yaml:17\)/);

  expect(formatMarkdown(review)).toContain('- ✖ **Changed** FormationStatus — `openapi/components/schemas/FormationStatus.yaml:6`');
  expect(formatMarkdown(review)).toContain('- **Added** CustomerCreateRequest › /middleName — `openapi/components/schemas/CustomerCreateRequest.yaml:17`');

  const junit = formatJunit(review);
  expect(junit).toContain('<testsuite name="breaks of release 1.0.0" tests="2" failures="2">');
  expect(junit).toContain('<testsuite name="other changes" tests="1" failures="0">');
  expect(junit).toContain('name="Added CustomerCreateRequest › /middleName: new optional property" file="openapi/components/schemas/CustomerCreateRequest.yaml" line="17">\n      <system-out>');

  const github = formatGithub(review).split('\n');
  expect(github.filter((line) => line.includes('title=Breaks release 1.0.0'))).toEqual([
    expect.stringMatching(/^::error file=openapi\/components\/schemas\/FormationStatus\.yaml,line=6,/),
    expect.stringMatching(/^::error file=openapi\/components\/schemas\/ResponsibleParty\.yaml,line=7,/),
  ]);
  expect(github).toContain('::notice file=openapi/components/schemas/CustomerCreateRequest.yaml,line=17,title=Added%3A CustomerCreateRequest › /middleName::new optional property — in the request body of createCustomer');

  const html = formatHtml(review);
  expect(html.match(/<li class="breaking"><strong>✖ Changed<\/strong>/g)).toHaveLength(2);
  expect(html).toContain('<li class="added"><strong>Added</strong> CustomerCreateRequest › /middleName');
});

it('check:breaking says each breaking edit once too, with where it applies', async () => {
  const root = join(project.folder, 'openapi', 'openapi.yaml');
  const [released, working] = [JSON.parse(await readFile(join(project.folder, 'releases', 'openapi-1.0.0.json'), 'utf8')) as JsonObject, await bundleContract(root)];
  const { changes } = await compareContracts(released, working, await readAccepted(join(project.folder, 'contract-changes', 'accepted-breaking-changes.yaml')));
  const report = formatBreakingReport(changes, 'release 1.0.0', createPlacer(createSourceLines(root, project.folder), { before: released, after: working }));
  expect(report).toMatch(/^2 breaking changes against release 1\.0\.0:\n/);
  expect(count(report, '✖ FormationStatus  (openapi/components/schemas/FormationStatus.yaml:6)')).toBe(1);
  expect(report).toContain(`    ${statements[0]}\n    why: clients may switch over the documented values exhaustively`);
  expect(count(report, '✖ ResponsibleParty  (openapi/components/schemas/ResponsibleParty.yaml:7)')).toBe(1);
});

it('links nothing of the docs unless given the proposed contract\'s, then each operation it names', () => {
  expect(formatHtml(review)).not.toMatch(/href="[^"]*docs/);
  expect(formatHtml(review, { docsUrl: 'proposed/docs.html' })).toContain('<a href="proposed/docs.html#tag/Companies/operation/createCompany">createCompany</a>');
});

it('shows each operation the change touches as its docs read, before and after: what changed marked, on the side that carries it', () => {
  expect(review.operations.map((view) => view.operation?.operationId)).toEqual([
    'listCustomers', 'createCustomer', 'getCustomer', 'listCompanies', 'createCompany', 'getCompany', 'simulateCompanyFormation',
  ]);
  const changedRows = (operationId: string) => {
    const view = review.operations.find((each) => each.operation?.operationId === operationId)!;
    return sideBySide(view.before, view.after).filter((row) => row.kind !== 'same' && row.kind !== 'folded')
      .map((row) => [row.kind, 'before' in row ? row.before.text.split('  ')[0] : '', 'after' in row ? row.after.text.split('  ')[0] : '']);
  };
  // The writeOnly taxId: required in each branch of the request, never in a response; ON_HOLD in each response's status.
  expect(changedRows('createCompany')).toEqual([
    ['changed', 'taxId', 'taxId*'], ['changed', 'taxId', 'taxId*'], ['changed', 'status*', 'status*'], ['changed', 'status*', 'status*'],
  ]);
  expect(changedRows('listCompanies')).toEqual([['changed', 'query status', 'query status'], ['changed', 'status*', 'status*'], ['changed', 'status*', 'status*']]);
  expect(changedRows('createCustomer')).toEqual([['added', '', 'middleName'], ['changed', 'status*', 'status*']]);

  const html = formatHtml(review, { docsUrl: 'docs/index.html' });
  const section = html.slice(html.indexOf('<h2>The docs before and after</h2>'));
  expect(section).toContain('<h3><a href="docs/index.html#tag/Companies/operation/createCompany">POST /v1/partner/companies (createCompany)</a></h3>');
  expect(section).toContain('Enum: &quot;PENDING&quot; &quot;SUBMITTED&quot; <ins>&quot;ON_HOLD&quot; </ins>&quot;COMPLETED&quot;');
  expect(section).toContain('<td class="old" style="padding-left: 5.2rem"><del>taxId </del> string, 11 characters');
  expect(section).toContain('<td class="new" style="padding-left: 5.2rem"><ins>taxId* </ins> string, 11 characters');
  expect(section).toMatch(/<td class="folded" colspan="2">⋯ \d+ unchanged lines<\/td>/);
});
