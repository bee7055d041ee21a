/**
 * The review as a page: the verdict, then what changed, one entry per edit, each with where it applies, and each
 * operation the change touches as a reader of its docs sees it, before and after, side by side. Nothing links to
 * docs that may be stale (`generated/docs/` is only what the last `npm run generate` built): given the reference
 * docs of the proposed contract (`--out DIR` builds them beside the page, `--docs URL` names others), each
 * operation named links to its section there.
 */
import type { OperationView, Review, ReviewedChange, Use, ViewLine } from '../review.ts';
import { appliesTo, placeText, titleOf, type Place, type Renderer } from '../../entries.ts';
import { sharedEnds, sideBySide, type Row } from '../side-by-side.ts';
import { changeTrafficTexts, documentationHeading, groupText, hasDocumentation, newlyFailingText, notCheckedText, patchText, trafficSourcesText } from './traffic-words.ts';
import { actionNames, baseName, breaksFirst, verdictSentence } from './words.ts';

export interface HtmlOptions {
  /** The reference docs of the proposed contract: each operation named links to its section there. */
  docsUrl?: string;
  /** Where the files can be read on the web: each place links there. */
  sourceUrl?: string;
}

export function formatHtml(review: Review, { docsUrl, sourceUrl }: HtmlOptions = {}): string {
  const at = (place: Place): string => {
    const text = `<code>${escape(placeText(place))}</code>`;
    return sourceUrl === undefined ? text : `<a href="${escape(`${sourceUrl}${place.file}#L${place.line}`)}">${text}</a>`;
  };
  /** Where a statement applies, each operation linked to its section of the docs when they are given. */
  const render: Renderer = {
    text: escape,
    name: (use, shown) => {
      const anchor = docsAnchor(use);
      return docsUrl === undefined || anchor === undefined ? escape(shown) : `<a href="${escape(`${docsUrl}#${anchor}`)}">${escape(shown)}</a>`;
    },
  };
  const entry = (change: ReviewedChange): string => {
    const statements = change.statements.map((statement) => {
      const why = statement.category === 'breaking' && statement.why !== undefined ? `<br><span class="why">why: ${escape(statement.why)}</span>` : '';
      const accepted = statement.accepted === undefined ? '' : `<br><span class="why">accepted: ${escape(statement.accepted)}</span>`;
      const text = `${escape(statement.what)}${statement.uses.length === 0 ? '' : ` — in ${appliesTo(statement.uses, render)}`}`;
      return `<li${statement.breaksRelease ? ' class="breaking"' : ''}>${statement.breaksRelease ? '✖ ' : ''}${text}${why}${accepted}</li>`;
    });
    const traffic = changeTrafficTexts(review, change).map((text) => `<li class="traffic">recorded traffic: ${escape(text)}</li>`);
    return `<li class="${change.breaksRelease ? 'breaking' : change.action}"><strong>${change.breaksRelease ? '✖ ' : ''}${actionNames[change.action]}</strong> `
      + `${escape(titleOf(change))} — ${at(change.place)}<ul>${statements.join('')}${traffic.join('')}</ul></li>`;
  };
  const body: string[] = [
    '<h1>Contract review</h1>',
    `<p class="verdict ${review.breaksRelease ? 'breaking' : 'compatible'}">${review.breaksRelease ? '✖' : '✔'} ${escape(verdictSentence(review))}</p>`,
    `<p>Compared with ${escape(baseName(review))}.</p>`,
    '<h2>What changed</h2>',
  ];
  body.push(review.changes.length === 0 ? '<p>Nothing a partner sees.</p>' : `<ul>${breaksFirst(review).map(entry).join('\n')}</ul>`);
  if (review.breaksAtBase.length > 0) {
    body.push(`<h2>Breaks of release ${escape(review.release ?? '')} already there at the base</h2>`, `<ul>${review.breaksAtBase.map(entry).join('\n')}</ul>`);
  }
  body.push('<h2>Lint findings introduced</h2>', review.lint.length === 0 ? '<p>None.</p>' : '<ul>');
  for (const finding of review.lint) body.push(`<li><strong>${finding.severity}</strong> ${finding.tool} <code>${escape(finding.rule)}</code>: ${escape(finding.message)} — ${at(finding)}</li>`);
  if (review.lint.length > 0) body.push('</ul>');
  body.push('<h2>Examples that no longer validate</h2>', review.examples.length === 0 ? '<p>None.</p>' : '<ul>');
  for (const failure of review.examples) {
    body.push(`<li>${at(failure.place)}, in ${appliesTo(failure.uses, render)}<ul>${failure.problems.map((problem) => `<li>${escape(problem)}</li>`).join('')}</ul></li>`);
  }
  if (review.examples.length > 0) body.push('</ul>');
  body.push(...trafficSection(review));
  if (docsUrl !== undefined) body.push(`<p>The proposed contract's reference docs: <a href="${escape(docsUrl)}">${escape(docsUrl)}</a>.</p>`);
  if (review.operations.length > 0) {
    body.push('<h2>The docs before and after</h2>', '<p>Each operation the change touches, as its reference docs read: what changed beside what it was, under the sections and fields that hold it; the lines that did not change are counted.</p>');
    for (const view of review.operations) body.push(operationSection(view, render));
  }
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
li li { color: #1d1d1f; } li li.breaking { color: #a40e26; } li li.traffic { color: #5a3e00; }
.why { color: #555; font-size: 90%; }
code { font-size: 90%; }
table.docs { border-collapse: collapse; width: 100%; table-layout: fixed; font-size: 90%; margin-bottom: 1.5rem; }
table.docs th { text-align: left; border-bottom: 1px solid #ccc; }
table.docs td { vertical-align: top; padding: 1px 6px; overflow-wrap: anywhere; }
table.docs td.old { background: #fde8ea; } table.docs td.new { background: #e6f4ea; }
table.docs td.folded { color: #777; text-align: center; font-style: italic; }
table.docs del { background: #f8b9c1; text-decoration: none; } table.docs ins { background: #a6dfb4; text-decoration: none; }
</style>
</head>
<body>
${body.join('\n')}
</body>
</html>
`;
}

/** The section of recorded traffic (`--traffic FILE`): where it came from, what failed the base already. */
function trafficSection({ traffic }: Review): string[] {
  if (traffic === undefined) return [];
  const list = (groups: Parameters<typeof groupText>[0][]) => `<ul>${groups.map((group) => `<li>${escape(groupText(group))}</li>`).join('')}</ul>`;
  const body = ['<h2>Recorded traffic</h2>', `<p>${escape(trafficSourcesText(traffic))}. ${escape(newlyFailingText(traffic))}</p>`];
  if (traffic.unexplained.length > 0) body.push('<p>Refused by the proposal where no single change explains it:</p>', list(traffic.unexplained));
  body.push(traffic.failedBase.length === 0 ? '<p>Failing the base contract already: none.</p>' : `<p>Failing the base contract already (not blamed on this change):</p>${list(traffic.failedBase)}`);
  const unchecked = notCheckedText(traffic);
  if (unchecked !== undefined) body.push(`<p>${escape(unchecked)}</p>`);
  if (hasDocumentation(traffic)) {
    const items = [...traffic.documentation.patches.map(patchText), ...traffic.documentation.unplaced];
    body.push(`<h2>${escape(documentationHeading)}</h2>`, `<ul>${items.map((item) => `<li>${escape(item)}</li>`).join('')}</ul>`);
    if (traffic.documentation.diff !== '') body.push('<p>The smallest change to <code>openapi/</code> that would document it, for a designer to apply (<code>git apply</code>) or not:</p>', `<pre class="diff">${escape(traffic.documentation.diff)}</pre>`);
  }
  return body;
}

/** One operation's docs, before and after, in two columns; in a line that changed, what changed is marked. */
function operationSection(view: OperationView, render: Renderer): string {
  const use: Use = { scope: view.scope, ...(view.operation === undefined ? {} : { operation: view.operation }), part: '', field: '', pointer: '' };
  const state = view.before === undefined ? ' (added)' : view.after === undefined ? ' (removed)' : '';
  const cell = (line: ViewLine | undefined, side: 'old' | 'new' | '', marked = escape(line?.text ?? '')): string =>
    line === undefined ? '<td></td>' : `<td${side === '' ? '' : ` class="${side}"`} style="padding-left: ${0.4 + line.depth * 1.2}rem">${marked}</td>`;
  const row = (each: Row): string => {
    if (each.kind === 'folded') return `<tr><td class="folded" colspan="2">⋯ ${each.lines} unchanged line${each.lines === 1 ? '' : 's'}</td></tr>`;
    if (each.kind === 'same') return `<tr>${cell(each.before, '')}${cell(each.after, '')}</tr>`;
    if (each.kind === 'removed') return `<tr>${cell(each.before, 'old')}<td></td></tr>`;
    if (each.kind === 'added') return `<tr><td></td>${cell(each.after, 'new')}</tr>`;
    const { prefix, suffix } = sharedEnds(each.before.text, each.after.text);
    const mark = (text: string, tag: 'del' | 'ins') => {
      const changed = text.slice(prefix, text.length - suffix);
      return `${escape(text.slice(0, prefix))}${changed === '' ? '' : `<${tag}>${escape(changed)}</${tag}>`}${escape(text.slice(text.length - suffix))}`;
    };
    return `<tr>${cell(each.before, 'old', mark(each.before.text, 'del'))}${cell(each.after, 'new', mark(each.after.text, 'ins'))}</tr>`;
  };
  return `<h3>${render.name(use, view.scope)}${state}</h3>\n<table class="docs"><thead><tr><th>Before</th><th>After</th></tr></thead><tbody>\n`
    + `${sideBySide(view.before, view.after).map(row).join('\n')}\n</tbody></table>`;
}

/** Redoc's deep link to an operation: `tag/<tag>/operation/<operationId>`, the tag written as Redoc slugs it. */
function docsAnchor(use: Use): string | undefined {
  const { operation } = use;
  if (operation === undefined) return undefined;
  const tag = operation.tag === undefined ? '' : `tag/${encodeURIComponent(operation.tag.trim().replace(/\s+/g, '-'))}/`;
  return `${tag}operation/${encodeURIComponent(operation.operationId)}`;
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[character]!);
}
