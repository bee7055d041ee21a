/**
 * The review as a page: the verdict, then *What changed* per operation and webhook, each heading linking to that
 * operation in the reference docs of the proposed contract (`generated/docs/index.html`, which
 * `npm run generate` builds from the working `openapi/`, or a copy of it published elsewhere).
 */
import type { SourcePlace } from '../../source-lines.ts';
import type { Review, ReviewedChange } from '../review.ts';
import { actionNames, baseName, byScope, partOf, placeText, verdictSentence, whereOf } from './words.ts';

export interface HtmlOptions {
  /** The reference docs of the proposed contract (default: `generated/docs/index.html`, relative to the page). */
  docsUrl?: string;
  /** Where the files can be read on the web: each place links there. */
  sourceUrl?: string;
}

export const defaultDocsUrl = 'generated/docs/index.html';

export function formatHtml(review: Review, { docsUrl = defaultDocsUrl, sourceUrl }: HtmlOptions = {}): string {
  const at = (place: SourcePlace): string => {
    const text = `<code>${escape(placeText(place))}</code>`;
    return sourceUrl === undefined ? text : `<a href="${escape(`${sourceUrl}${place.file}#L${place.line}`)}">${text}</a>`;
  };
  const body: string[] = [
    '<h1>Contract review</h1>',
    `<p class="verdict ${review.breaksRelease ? 'breaking' : 'compatible'}">${review.breaksRelease ? '✖' : '✔'} ${escape(verdictSentence(review))}</p>`,
    `<p>Compared with ${escape(baseName(review))}.</p>`,
  ];
  if (review.introducedBreaks.length > 0) {
    body.push('<h2>Breaking changes this change brings</h2>', '<table><tr><th>Where</th><th>What</th><th>Why</th><th>Source</th></tr>');
    for (const change of review.introducedBreaks) {
      body.push(`<tr><td>${escape(whereOf(change))}</td><td>${escape(change.what)}</td><td>${escape(change.why ?? '')}</td><td>${at(change.place)}</td></tr>`);
    }
    body.push('</table>');
  }
  body.push('<h2>What changed</h2>');
  if (review.changes.length === 0) body.push('<p>Nothing a partner sees.</p>');
  for (const [scope, changes] of byScope(review.changes)) {
    const anchor = docsAnchor(changes[0]!);
    const title = anchor === undefined ? escape(scope) : `<a href="${escape(`${docsUrl}#${anchor}`)}">${escape(scope)}</a>`;
    body.push(`<h3>${title}</h3>`, '<ul>');
    for (const change of changes) {
      const part = partOf(change);
      body.push(`<li class="${change.breaksRelease ? 'breaking' : change.action}"><strong>${change.breaksRelease ? '✖ ' : ''}${actionNames[change.action]}</strong> `
        + `${escape(part === '' ? '' : `${part}: `)}${escape(change.what)} — ${at(change.place)}</li>`);
    }
    body.push('</ul>');
  }
  body.push('<h2>Lint findings introduced</h2>', review.lint.length === 0 ? '<p>None.</p>' : '<ul>');
  for (const finding of review.lint) body.push(`<li><strong>${finding.severity}</strong> ${finding.tool} <code>${escape(finding.rule)}</code>: ${escape(finding.message)} — ${at(finding)}</li>`);
  if (review.lint.length > 0) body.push('</ul>');
  body.push('<h2>Examples that no longer validate</h2>', review.examples.length === 0 ? '<p>None.</p>' : '<ul>');
  for (const failure of review.examples) {
    body.push(`<li><strong>${escape(failure.scope)}</strong> <code>${escape(failure.pointer)}</code> — ${at(failure.place)}<ul>${failure.problems.map((problem) => `<li>${escape(problem)}</li>`).join('')}</ul></li>`);
  }
  if (review.examples.length > 0) body.push('</ul>');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Contract review</title>
<style>
body { font: 15px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #1d1d1f; }
.verdict { font-weight: 600; padding: .5rem .75rem; border-radius: 4px; }
.verdict.breaking, li.breaking { color: #a40e26; }
.verdict.breaking { background: #fde8ea; }
.verdict.compatible { background: #e6f4ea; color: #1b5e20; }
table { border-collapse: collapse; } td, th { border: 1px solid #ccc; padding: .25rem .5rem; text-align: left; vertical-align: top; }
code { font-size: 90%; }
</style>
</head>
<body>
${body.join('\n')}
</body>
</html>
`;
}

/** Redoc's deep link to an operation: `tag/<tag>/operation/<operationId>`, the tag written as Redoc slugs it. */
function docsAnchor(change: ReviewedChange): string | undefined {
  const { operation } = change;
  if (operation === undefined) return undefined;
  const tag = operation.tag === undefined ? '' : `tag/${encodeURIComponent(operation.tag.trim().replace(/\s+/g, '-'))}/`;
  return `${tag}operation/${encodeURIComponent(operation.operationId)}`;
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[character]!);
}
