/**
 * `npm run review`: the review of this change to the contract (openapi/ against a git revision), in the format
 * its reader needs: a terminal, a pull-request comment, a page, a CI test report, annotations.
 */
import { parseArgs } from 'node:util';
import { projectRoot } from '../releases.ts';
import { GitProblem, type GitProblemCode } from '../review/contract-at-ref.ts';
import { formatGithub } from '../review/formats/github.ts';
import { defaultDocsUrl, formatHtml } from '../review/formats/html.ts';
import { formatJunit } from '../review/formats/junit.ts';
import { formatMarkdown } from '../review/formats/markdown.ts';
import { formatText } from '../review/formats/text.ts';
import { reviewChange, type Review } from '../review/review.ts';
import { exitWith, usageError } from './cli-support.ts';

const formats = ['text', 'markdown', 'html', 'junit', 'github'] as const;
type Format = (typeof formats)[number];

/** One exit status per reason the revision cannot be read, so that CI can tell them apart. */
const gitProblemStatus: Record<GitProblemCode, number> = {
  'not-a-git-checkout': 3,
  'unknown-ref': 4,
  'no-merge-base': 5,
  'no-contract-at-ref': 6,
};

const help = `Usage: npm run review [-- --base REF] [--format FORMAT] [--docs URL] [--source-url URL]

Reviews this change to the contract: what differs between openapi/ at REF and the working openapi/.
  - the verdict against the latest release in releases/: breaking or not, and which breaks this change brings
    (breaks already there at REF are counted, not blamed on it);
  - what it adds, changes, deprecates and removes, per operation and webhook, each at its file and line;
  - the lint findings (Spectral, Redocly) it introduces, and the examples it made invalid.

  --base REF          the revision to compare with (default: the merge base of HEAD with main)
  --format FORMAT     text (the default on a terminal), markdown (a pull-request comment; the default otherwise),
                      html (a page linking each changed operation into the reference docs), junit (JUnit XML),
                      github (GitHub Actions annotations: ::error, ::warning, ::notice)
  --docs URL          html: the reference docs of the proposed contract (default: ${defaultDocsUrl})
  --source-url URL    markdown and html: link each file:line to URL + file + #L<line>
                      (e.g. https://github.com/OWNER/REPO/blob/SHA/)
  -h, --help          show this help

Exit status: 0 the contract does not break the latest release; 1 it does; 2 bad usage;
${Object.entries(gitProblemStatus).map(([code, status]) => `${status} ${code}`).join('; ')} (also printed as "review: error[CODE]: …" on stderr).`;

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      options: {
        base: { type: 'string' }, format: { type: 'string' }, docs: { type: 'string' }, 'source-url': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    return usageError(`review: error[usage]: ${(error as Error).message}\n\n${help}`);
  }
  const { values } = parsed;
  if (values.help === true) return exitWith(help, 0);
  const format = (values.format ?? (process.stdout.isTTY ? 'text' : 'markdown')) as Format;
  if (!formats.includes(format)) return usageError(`review: error[usage]: --format ${format}: one of ${formats.join(', ')}.`);
  let review: Review;
  try {
    review = await reviewChange({ projectRoot, ...(values.base === undefined ? {} : { base: values.base }) });
  } catch (error) {
    if (error instanceof GitProblem) return exitWith(`review: error[${error.code}]: ${error.message}`, gitProblemStatus[error.code]);
    throw error;
  }
  const sourceUrl = values['source-url'];
  const output = {
    text: () => formatText(review),
    markdown: () => formatMarkdown(review, sourceUrl === undefined ? {} : { sourceUrl }),
    html: () => formatHtml(review, { ...(values.docs === undefined ? {} : { docsUrl: values.docs }), ...(sourceUrl === undefined ? {} : { sourceUrl }) }),
    junit: () => formatJunit(review),
    github: () => formatGithub(review),
  }[format]();
  console.log(output);
  return review.breaksRelease ? 1 : 0;
}

process.exitCode = await main().catch((error: unknown) => exitWith(`review: error[internal]: ${(error as Error).message}`, 2));
