/**
 * `npm run review`: the review of this change to the contract (openapi/ against a git revision), in every format its
 * readers need from one run: a terminal, a pull-request comment, a page, a CI test report, annotations.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import type { ContractDocument, JsonObject } from '../../contract-model/document.ts';
import { buildReferenceDocs } from '../../scripts/reference-docs.ts';
import { projectRoot } from '../releases.ts';
import { GitProblem, type GitProblemCode } from '../review/contract-at-ref.ts';
import { formatGithub } from '../review/formats/github.ts';
import { formatHtml } from '../review/formats/html.ts';
import { formatJunit } from '../review/formats/junit.ts';
import { formatMarkdown } from '../review/formats/markdown.ts';
import { formatText } from '../review/formats/text.ts';
import { verdictSentence } from '../review/formats/words.ts';
import { reviewChange, type Review } from '../review/review.ts';
import { readTrafficFile, TrafficProblem, type TrafficFile } from '../traffic/traffic-file.ts';
import { exitWith, usageError } from './cli-support.ts';

/** Each format, and the file `--out DIR` writes it to. */
const files = {
  text: 'contract-review.txt',
  markdown: 'contract-review.md',
  html: 'contract-review.html',
  junit: 'contract-review.xml',
  github: 'contract-review.github.txt',
} as const;
type Format = keyof typeof files;
const formats = Object.keys(files) as Format[];
/** Where `--out DIR` writes the proposed contract's reference docs beside the page, which links there. */
const docsFile = 'docs/index.html';

/** One exit status per reason the revision cannot be read, so that CI can tell them apart. */
const gitProblemStatus: Record<GitProblemCode, number> = {
  'not-a-git-checkout': 3,
  'unknown-ref': 4,
  'no-merge-base': 5,
  'no-contract-at-ref': 6,
};

/** A traffic file that cannot be replayed: its own status, whichever `traffic-…` code says why. */
const trafficProblemStatus = 7;

const help = `Usage: npm run review [-- --base REF] [--format FORMAT[,FORMAT…]] [--out DIR [--no-docs]] [--docs URL]
                                  [--source-url URL] [--artifact-url URL] [--traffic FILE…] [--no-cache]

Reviews this change to the contract: what differs between openapi/ at REF and the working openapi/.
  - the verdict against the latest release in releases/: breaking or not, and which breaks this change brings
    (breaks already there at REF are listed apart, not blamed on it);
  - what it adds, changes, deprecates and removes: one entry per edit, at its file and line, with what it does
    on each side of the exchange and the operations and webhooks it applies to;
  - the lint findings (Spectral, Redocly) it introduces, and the examples it made invalid;
  - html: each operation it touches as a reader of its docs sees it, before and after, side by side;
  - with --traffic: what recorded traffic says of it. Every recorded request is checked against the base and the
    proposed contract as the mock checks one, every recorded answer as the response check does: each change says
    how many recorded requests it would refuse and answers it would no longer allow (with an example each), a
    breaking change that no recorded exchange meets says so, and what failed the base already is listed apart.

  --base REF          the revision to compare with (default: the merge base of HEAD with main)
  --format FORMATS    one or more of ${formats.join(', ')}, or all, separated by commas:
                      text (the default on a terminal), markdown (a pull-request comment; the default otherwise),
                      html (a page), junit (JUnit XML: a failing test case per break), github (GitHub Actions
                      annotations: ::error, ::warning, ::notice)
  --out DIR           write each format to its file in DIR (${formats.map((format) => files[format]).join(', ')})
                      instead of printing it, and print the verdict; needed for more than one format, and
                      without --format it writes them all; with html, also the proposed contract's reference
                      docs, DIR/${docsFile}, built as npm run generate builds generated/docs/ (Redoc,
                      standalone), which the page links to (built beside the review: a fraction of a second)
  --no-docs           --out without the docs
  --docs URL          html: the reference docs of the proposed contract, elsewhere; each operation named
                      links into them
  --source-url URL    markdown and html: link each file:line to URL + file + #L<line>
                      (e.g. https://github.com/OWNER/REPO/blob/SHA/)
  --artifact-url URL  markdown: where CI keeps what --out DIR wrote (the job's artifacts), for the comment to
                      say where the html review is; without it, the comment says it is in the same folder
  --traffic FILE…     recorded traffic to replay: traffic documents, as GET /_mock/requests/export, the mock's
                      --record-traffic FILE and npm run test:contract (contract-tests/traffic/) write them; the
                      option may be repeated, and files named after it are read too
  --no-cache          lint both contracts again rather than take what the linters found of the same files before
                      (kept in node_modules/.cache/contract-review/, keyed by the contract's files, the linters'
                      configuration and versions), and build the proposed docs again rather than take the page built
                      before of the same contract (node_modules/.cache/reference-docs/)
  -h, --help          show this help

Exit status: 0 the contract does not break the latest release; 1 it does; 2 bad usage;
${Object.entries(gitProblemStatus).map(([code, status]) => `${status} ${code}`).join('; ')}; ${trafficProblemStatus} a traffic file is refused (traffic-unreadable,
traffic-too-large, traffic-not-json, traffic-invalid, traffic-holds-credential), each also printed as
"review: error[CODE]: …" on stderr.`;

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      options: {
        base: { type: 'string' }, format: { type: 'string' }, out: { type: 'string' }, docs: { type: 'string' },
        'source-url': { type: 'string' }, 'artifact-url': { type: 'string' }, 'no-docs': { type: 'boolean' },
        'no-cache': { type: 'boolean' }, traffic: { type: 'string', multiple: true }, help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
    });
  } catch (error) {
    return usageError(`review: error[usage]: ${(error as Error).message}\n\n${help}`);
  }
  const { values, positionals } = parsed;
  if (values.help === true) return exitWith(help, 0);
  if (positionals.length > 0 && values.traffic === undefined) return usageError(`review: error[usage]: ${positionals[0]}: files are named after --traffic.\n\n${help}`);
  // Read before anything is compared: a file that cannot be replayed stops the review at once, saying why.
  const traffic = values.traffic === undefined ? undefined : await readTraffic([...values.traffic, ...positionals]);
  if (typeof traffic === 'number') return traffic;
  const asked = chosenFormats(values.format, values.out !== undefined);
  if (typeof asked === 'string') return usageError(`review: error[usage]: ${asked}`);
  // The docs go with the page, into the folder it is written to, unless the page links to others.
  const withDocs = values.out !== undefined && asked.includes('html') && values['no-docs'] !== true && values.docs === undefined;
  // Docs that cannot be built are said, and the review goes on without them: it is the verdict CI waits for.
  let docsProblem: string | undefined;
  const buildDocs = (proposed: JsonObject) => buildProposedDocs(proposed, join(values.out!, docsFile), values['no-cache'] !== true).catch((error: unknown) => {
    docsProblem = ((error as { stderr?: string }).stderr || (error as Error).message).trim();
  });
  let review: Review;
  try {
    review = await reviewChange({ projectRoot, ...(values.base === undefined ? {} : { base: values.base }), ...(withDocs ? { alongside: buildDocs } : {}), ...(traffic === undefined ? {} : { traffic }), lintCache: values['no-cache'] !== true });
  } catch (error) {
    if (error instanceof GitProblem) return exitWith(`review: error[${error.code}]: ${error.message}`, gitProblemStatus[error.code]);
    throw error;
  }
  const sourceUrl = values['source-url'];
  if (docsProblem !== undefined) console.error(`review: the proposed contract's reference docs could not be built, the review goes on without them:\n${docsProblem}`);
  const docsBuilt = withDocs && docsProblem === undefined;
  const docsUrl = values.docs ?? (docsBuilt ? docsFile : undefined);
  // The page is there to be pointed at when this run writes it; a review printed alone says how to have it.
  const page = values.out !== undefined && asked.includes('html')
    ? { file: files.html, withDocs: docsUrl !== undefined, ...(values['artifact-url'] === undefined ? {} : { url: values['artifact-url'] }) }
    : undefined;
  const write: Record<Format, () => string> = {
    text: () => formatText(review),
    markdown: () => formatMarkdown(review, { ...(sourceUrl === undefined ? {} : { sourceUrl }), ...(page === undefined ? {} : { page }) }),
    html: () => formatHtml(review, { ...(docsUrl === undefined ? {} : { docsUrl }), ...(sourceUrl === undefined ? {} : { sourceUrl }) }),
    junit: () => formatJunit(review),
    github: () => formatGithub(review),
  };
  if (values.out === undefined) {
    console.log(write[asked[0]!]());
  } else {
    await mkdir(values.out, { recursive: true });
    const written = await Promise.all(asked.map(async (format) => {
      const file = join(values.out!, files[format]);
      await writeFile(file, `${write[format]()}\n`);
      return relative(process.cwd(), file) || file;
    }));
    if (docsBuilt) written.push(relative(process.cwd(), join(values.out, docsFile)) || docsFile);
    console.log(`${verdictSentence(review)}\nreview: wrote ${written.join(', ')}`);
  }
  return review.breaksRelease ? 1 : 0;
}

/** The traffic files, or the exit status of the first that cannot be replayed, said on stderr. */
async function readTraffic(files: readonly string[]): Promise<TrafficFile[] | number> {
  try {
    return await Promise.all(files.map((file) => readTrafficFile(file)));
  } catch (error) {
    if (error instanceof TrafficProblem) return exitWith(`review: error[${error.code}]: ${error.message}`, trafficProblemStatus);
    throw error;
  }
}

/** The reference docs as `npm run generate` builds them, of the proposed contract: what the change would publish. */
async function buildProposedDocs(proposed: JsonObject, file: string, cache: boolean): Promise<void> {
  const changelog = await readFile(join(projectRoot, 'CHANGELOG.md'), 'utf8').catch(() => '');
  const title = `${String((proposed.info as JsonObject | undefined)?.title ?? 'API')} (proposed)`;
  await buildReferenceDocs(proposed as ContractDocument, file, { projectRoot, title, changelog, cache });
}

/** The formats asked for, in the order asked, or why they cannot be written. */
function chosenFormats(option: string | undefined, toFiles: boolean): Format[] | string {
  if (option === undefined) return toFiles ? formats : [process.stdout.isTTY ? 'text' : 'markdown'];
  const names = option.split(',').map((name) => name.trim()).filter((name) => name !== '');
  const asked = [...new Set(names.flatMap((name) => (name === 'all' ? formats : [name])))];
  const unknown = asked.find((name) => !(formats as string[]).includes(name));
  if (unknown !== undefined || asked.length === 0) return `--format ${unknown ?? option}: one of ${formats.join(', ')} (or all), separated by commas.`;
  if (asked.length > 1 && !toFiles) return `--format ${option}: several formats are written to files: give --out DIR.`;
  return asked as Format[];
}

process.exitCode = await main().catch((error: unknown) => exitWith(`review: error[internal]: ${(error as Error).message}`, 2));
