/**
 * One entry per edit of `openapi/`. The gate judges a change at each place of the bundled contract it shows up in
 * (a shared enum in the responses of seven operations and in a query parameter); a reader (of the review, of
 * `check:breaking`) reads the edit once, at its file and line, with what it does on each side and where it applies.
 */
import type { JsonObject } from '../contract-model/document.ts';
import type { Category, ClassifiedChange, Judgement } from './classify.ts';
import { fieldPath, isMethod, namedSubschemas, parsePointer, schemaPosition, valueAt } from './location.ts';
import type { SourceLines, SourcePlace } from './source-lines.ts';

/** How a partner would say it: what the edit did to the thing at its place. */
export type Action = 'added' | 'changed' | 'deprecated' | 'removed';

/** One place of the bundled contract where an edit shows. */
export interface Use {
  /** `GET /v1/partner/companies (listCompanies)`, `webhook document.ready`, `servers`… */
  scope: string;
  /** The operation or webhook it is in, as the reference docs name it. */
  operation?: { operationId: string; tag?: string };
  /** `response 200 body`, `query parameter status`… (empty for the scope as a whole) */
  part: string;
  /** The field inside a schema: `/payload/data/[]/status`. */
  field: string;
  pointer: string;
}

/** What an edit does on one side, with every place it does it. */
export interface Statement extends Judgement {
  /** For a breaking change made on purpose: why it is accepted. */
  accepted?: string;
  /** One of the breaks of the latest release, brought by this change. */
  breaksRelease: boolean;
  uses: Use[];
}

export interface ReviewedChange {
  action: Action;
  /** Where the edit was made (or, for something removed, where it was). */
  place: SourcePlace;
  /** What the edit is to, when its file names it: `FormationStatus`, `CustomerCreateRequest › /middleName`. */
  subject: string;
  /** The most telling first: breaks, then deprecations, additions, other changes. */
  statements: Statement[];
  /** Some statement is a break of the latest release this change brings. */
  breaksRelease: boolean;
}

/** A classified change with what the review knows of it: its place, and whether it breaks the latest release. */
export interface PlacedChange {
  change: ClassifiedChange;
  place: SourcePlace;
  breaksRelease: boolean;
  /** The contract the change's pointer is read in: the working one, or the base for something removed. */
  contract: JsonObject;
}

const severity: Category[] = ['breaking', 'deprecated', 'added', 'changed'];

/**
 * Places changes found between two bundled contracts in the source of the later one (`placeOf` reads its files):
 * what was removed is found where it was, and read in the earlier contract.
 */
export function createPlacer(placeOf: SourceLines, contracts: { before: JsonObject; after: JsonObject }): (change: ClassifiedChange, breaksRelease: boolean) => PlacedChange {
  return (change, breaksRelease) => {
    const removed = change.kind === 'removed';
    return { change, place: placeOf(change.location.pointer, removed), breaksRelease, contract: removed ? contracts.before : contracts.after };
  };
}

/** Groups the changes into one entry per edit: the same file, line, keyword and kind of change. */
export function toEntries(placed: readonly PlacedChange[]): ReviewedChange[] {
  const byEdit = new Map<string, PlacedChange[]>();
  for (const item of placed) {
    const key = [item.place.file, item.place.line, parsePointer(item.change.location.pointer).at(-1), item.change.kind].join('\u0000');
    byEdit.set(key, [...(byEdit.get(key) ?? []), item]);
  }
  const entries = [...byEdit.values()].map((items): ReviewedChange => {
    const statements = toStatements(items);
    const first = items.find((item) => item.change.category === statements[0]!.category)!;
    const segments = parsePointer(first.change.location.pointer);
    // Something removed is found where it was: the map that held it, which does not name it.
    const removed = first.change.kind === 'removed' && namedSubschemas.has(segments.at(-2) ?? '') ? segments.at(-1) : undefined;
    return {
      action: actionOf(first.change),
      place: first.place,
      subject: subjectOf(first.place, removed),
      statements,
      breaksRelease: statements.some((statement) => statement.breaksRelease),
    };
  });
  return entries.sort((a, b) => a.place.file.localeCompare(b.place.file) || a.place.line - b.place.line);
}

function toStatements(items: readonly PlacedChange[]): Statement[] {
  const byVerdict = new Map<string, Statement>();
  for (const { change, breaksRelease, contract } of items) {
    const key = [change.category, change.level, change.what, change.why, change.accepted, breaksRelease].join('\u0000');
    const statement = byVerdict.get(key) ?? {
      category: change.category, level: change.level, what: change.what,
      ...(change.why === undefined ? {} : { why: change.why }), ...(change.accepted === undefined ? {} : { accepted: change.accepted }),
      breaksRelease, uses: [],
    };
    statement.uses.push(useOf(change, contract));
    byVerdict.set(key, statement);
  }
  return [...byVerdict.values()].sort((a, b) => severity.indexOf(a.category) - severity.indexOf(b.category) || Number(b.breaksRelease) - Number(a.breaksRelease));
}

function useOf(change: ClassifiedChange, contract: JsonObject): Use {
  const { scope, part, field, pointer } = change.location;
  const operation = operationAt(pointer, contract);
  return { scope, ...(operation === undefined ? {} : { operation }), part, field, pointer };
}

/** The operation or webhook a pointer is in (`#/paths/<path>/<method>/…`), read from a bundled contract. */
export function operationAt(pointer: string, contract: JsonObject): Use['operation'] {
  const [root, name, method] = parsePointer(pointer);
  if ((root !== 'paths' && root !== 'webhooks') || name === undefined || !isMethod(method)) return undefined;
  const operation = valueAt(contract, [root, name, method!]) as { operationId?: unknown; tags?: unknown } | undefined;
  if (typeof operation?.operationId !== 'string') return undefined;
  const [tag] = Array.isArray(operation.tags) ? operation.tags : [];
  return { operationId: operation.operationId, ...(typeof tag === 'string' ? { tag } : {}) };
}

function actionOf(change: ClassifiedChange): Action {
  if (change.category === 'deprecated') return 'deprecated';
  if (change.kind === 'removed') return 'removed';
  return change.category === 'added' || change.kind === 'added' ? 'added' : 'changed';
}

/**
 * The component an edit is in, named as its file is (`components/schemas/FormationStatus.yaml`, or an entry of the
 * root's `components`), with the field below it. Nothing for an edit to a path or the root: its uses name it.
 */
export function subjectOf(place: SourcePlace, removed?: string): string {
  const inRoot = place.path[0] === 'components' && place.path.length >= 3;
  const name = inRoot ? place.path[2]! : /(^|\/)components\/[^/]+\/([^/]+)\.ya?ml$/.exec(place.file)?.[2];
  if (name === undefined) return '';
  const { schemaPath } = schemaPosition(place.path.slice(inRoot ? 3 : 0));
  const field = `${fieldPath(schemaPath)}${removed === undefined ? '' : `/${removed}`}`;
  return field === '' ? name : `${name} › ${field}`;
}

// ——— Their words, shared by the review's formats and check:breaking's report ———

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


/** A file and line under openapi/: where an edit, a lint finding or an example is. */
export type Place = Pick<SourcePlace, 'file' | 'line'>;

export const placeText = (place: Place): string => `${place.file}:${place.line}`;

export const plural = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? '' : 's'}`;

/** `FormationStatus` or, for an edit its file does not name, the operation or part it is in. */
export function titleOf(change: ReviewedChange): string {
  if (change.subject !== '') return change.subject;
  const [use] = change.statements[0]!.uses;
  return use === undefined ? '' : nameOf(use);
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
