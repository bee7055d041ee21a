/** The review's words, shared by its formats: where a change applies, what it did, the verdict in one sentence. */
import type { SourcePlace } from '../../source-lines.ts';
import type { Action, Review, ReviewedChange, Statement, Use } from '../review.ts';

export const actionNames: Record<Action, string> = { added: 'Added', changed: 'Changed', deprecated: 'Deprecated', removed: 'Removed' };

/** A file and line under openapi/: where an edit, a lint finding or an example is. */
export type Place = Pick<SourcePlace, 'file' | 'line'>;

export const placeText = (place: Place): string => `${place.file}:${place.line}`;

export function baseName(review: Review): string {
  return `${review.base.ref} (${review.base.commit.slice(0, 12)})`;
}

export function verdictSentence(review: Review): string {
  if (review.release === undefined) return 'No release in releases/ to compare with.';
  if (!review.breaksRelease) return `Compatible with release ${review.release}: no partner built on it breaks.`;
  const brought = review.changes.filter((change) => change.breaksRelease).length;
  const atBase = review.breaksAtBase.length === 0 ? '' : `; ${review.breaksAtBase.length} more were there before it`;
  return `Breaks release ${review.release}: this change brings ${plural(brought, 'breaking change')}${atBase}.`;
}

/** The changes, those that break the latest release first: the order every format lists them in. */
export function breaksFirst(review: Review): ReviewedChange[] {
  return [...review.changes.filter((change) => change.breaksRelease), ...review.changes.filter((change) => !change.breaksRelease)];
}

/** `FormationStatus` or, for an edit its file does not name, the operation or part it is in. */
export function titleOf(change: ReviewedChange): string {
  if (change.subject !== '') return change.subject;
  const [use] = change.statements[0]!.uses;
  return use === undefined ? '' : use.operation?.operationId ?? use.scope;
}

/** `enum values added: "ON_HOLD" — in the responses of 7 operations: listCompanies, …` */
export function statementText(statement: Statement): string {
  const where = appliesTo(statement.uses);
  return where === '' ? statement.what : `${statement.what} — in ${where}`;
}

/** The statement and, for a break, why it breaks and whether it was accepted on purpose. */
export function statementWithWhy(statement: Statement): string {
  const why = statement.category === 'breaking' && statement.why !== undefined ? ` (${statement.why})` : '';
  const accepted = statement.accepted === undefined ? '' : ` — accepted: ${statement.accepted}`;
  return `${statementText(statement)}${why}${accepted}`;
}

/** Every statement of a change, in one line. */
export const changeText = (change: ReviewedChange): string => change.statements.map(statementWithWhy).join('; ');

const maxNamed = 8;

/** How a format writes the words of `appliesTo`: plain text, or escaped with each operation linked. */
export interface Renderer {
  text(words: string): string;
  name(use: Use, shown: string): string;
}

const plainText: Renderer = { text: (words) => words, name: (_use, shown) => shown };

/**
 * Where a statement applies, by part of the exchange: "the responses of 7 operations: listCompanies, …", "the
 * query parameter status of listCompanies", "the payload of webhook document.ready".
 */
export function appliesTo(uses: readonly Use[], render: Renderer = plainText): string {
  const byRole = new Map<string, { role: Role | undefined; uses: Use[] }>();
  for (const use of uses) {
    const role = roleOf(use.part);
    const group = byRole.get(role?.singular ?? '') ?? { role, uses: [] };
    if (!group.uses.some((other) => nameOf(other) === nameOf(use))) group.uses.push(use);
    byRole.set(role?.singular ?? '', group);
  }
  return [...byRole.values()].map(({ role, uses: named }) => {
    const webhooks = named.length > 1 && named.every((use) => nameOf(use).startsWith('webhook '));
    const shown = named.slice(0, maxNamed).map((use) => render.name(use, webhooks ? nameOf(use).replace(/^webhook /, '') : nameOf(use)));
    const list = shown.join(render.text(', ')) + (named.length > maxNamed ? render.text(`, and ${named.length - maxNamed} more`) : '');
    if (role === undefined) return list;
    if (named.length === 1) return `${render.text(`${role.singular} of `)}${list}`;
    return `${render.text(`${role.plural} of ${named.length} ${webhooks ? 'webhooks' : 'operations'}: `)}${list}`;
  }).join(render.text('; '));
}

/** The operation as the docs name it (its operationId), or a webhook by its event, or the scope. */
export function nameOf(use: Use): string {
  return use.scope.startsWith('webhook ') ? use.scope : use.operation?.operationId ?? use.scope;
}

interface Role {
  singular: string;
  plural: string;
}

/** The part of an exchange, as a phrase: `response 200 body` → the response(s), `query parameter status` as it is. */
function roleOf(part: string): Role | undefined {
  if (part === '') return undefined;
  const same = (phrase: string): Role => ({ singular: phrase, plural: phrase });
  if (/^response \S+ header /.test(part)) return same(`the ${part.replace(/^response \S+ /, 'response ')}`);
  if (/^response\b/.test(part)) return { singular: 'the response', plural: 'the responses' };
  if (part.startsWith('request body')) return { singular: 'the request body', plural: 'the request bodies' };
  if (part === 'payload') return { singular: 'the payload', plural: 'the payloads' };
  if (part.startsWith("partner's answer")) return { singular: 'the answer', plural: 'the answers' };
  return same(`the ${part}`);
}

export const plural = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? '' : 's'}`;
