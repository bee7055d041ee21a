/**
 * One entry per edit of `openapi/`. The gate judges a change at each place of the bundled contract it shows up in
 * (a shared enum in the responses of seven operations and in a query parameter); a reviewer reads the edit once, at
 * its file and line, with what it does on each side and where it applies.
 */
import type { Category, ClassifiedChange, Judgement } from '../classify.ts';
import { fieldPath, isMethod, parsePointer, schemaPosition, valueAt } from '../location.ts';
import type { SourcePlace } from '../source-lines.ts';
import type { JsonObject } from '../../contract-model/document.ts';

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
    return {
      action: actionOf(first.change),
      place: first.place,
      subject: subjectOf(first.place),
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
export function subjectOf(place: SourcePlace): string {
  const inRoot = place.path[0] === 'components' && place.path.length >= 3;
  const name = inRoot ? place.path[2]! : /(^|\/)components\/[^/]+\/([^/]+)\.ya?ml$/.exec(place.file)?.[2];
  if (name === undefined) return '';
  const { schemaPath } = schemaPosition(place.path.slice(inRoot ? 3 : 0));
  const field = fieldPath(schemaPath);
  return field === '' ? name : `${name} › ${field}`;
}
