/**
 * Recorded traffic set beside the changes of a review. An exchange side that the base contract allows and the
 * proposal does not is the doing of the changes whose places its problems fall in (the most precise of them): each
 * change says how many recorded requests of an operation it would refuse, and how many answers it would no longer
 * allow, with one example and its field error. A change that takes something from what partners receive (a field
 * removed, a value that may now be another) is met by the recorded answers that carry what it changes. A change the
 * gate calls breaking that no recorded exchange meets says so; one that fails the base already is no change's.
 */
import type { JsonObject } from '../../contract-model/document.ts';
import type { ReviewedChange } from '../entries.ts';
import type { Problem } from './exchange-check.ts';
import { outcomeOf, sides, type ReplayedExchange, type Side } from './replay.ts';
import { findField, precision, siteOf, statusMatches, takenFields, type UseSite } from './use-sites.ts';

/** One recorded exchange, as a reader finds it again. */
export interface TrafficExample {
  file: string;
  index: number;
  /** `POST /v1/partner/customers`, with its query when it has one. */
  request: string;
  status?: number;
  /** What the contract finds wrong with it, or what it carries that the change takes: `body /phoneNumber: Required. (E_REQUIRED)`. */
  detail: string;
}

export type TrafficLineKind = 'refuses' | 'no-longer-allows' | 'carries';

/** What a change does to the recorded exchanges of one operation. */
export interface TrafficLine {
  kind: TrafficLineKind;
  operationId: string;
  count: number;
  /** The recorded requests (or answers) of the operation. */
  of: number;
  /** For `carries`: the field the answers carry. */
  field?: string;
  example: TrafficExample;
}

export interface ChangeTraffic {
  lines: TrafficLine[];
  /** Set for a change the gate calls breaking that no recorded exchange meets: how many exchanges its operations had. */
  unmet?: { recorded: number };
}

/** Exchanges of one operation and side, counted together, with one example. */
export interface TrafficGroup {
  side: Side;
  operationId: string | null;
  count: number;
  example: TrafficExample;
}

export interface Attribution {
  byChange: Map<ReviewedChange, ChangeTraffic>;
  /** Passing the base and failing the proposal where no change of the review explains it. */
  unexplained: TrafficGroup[];
  /** Failing the base already: not blamed on the change. */
  failedBase: TrafficGroup[];
  notChecked: { why: string; count: number }[];
  /** How many request and answer sides pass the base and fail the proposal. */
  newlyFailing: Record<Side, number>;
}

interface Site {
  change: ReviewedChange;
  site: UseSite;
  breaking: boolean;
  /** What the change takes from what partners receive there: the fields an answer may carry (use-sites.ts). */
  taken: string[][];
}

/** `contracts`: the base and the proposal, prepared (prepare.ts), as the review's pointers are into. */
export function attributeTraffic(changes: readonly ReviewedChange[], replayed: readonly ReplayedExchange[], contracts: { before: JsonObject; after: JsonObject }): Attribution {
  const sitesOf = sitesByOperation(changes, contracts);
  const recorded = countByOperation(replayed);
  const lines = new Map<ReviewedChange, Map<string, TrafficLine>>();
  const unexplained = new Groups();
  const failedBase = new Groups();
  const notChecked = new Map<string, number>();
  const newlyFailing: Record<Side, number> = { request: 0, answer: 0 };
  for (const each of replayed) {
    const operationId = each.base.operationId ?? each.exchange.request.operationId;
    for (const side of sides) {
      const outcome = outcomeOf(each, side);
      if (outcome.kind === 'unchecked') notChecked.set(outcome.why, (notChecked.get(outcome.why) ?? 0) + 1);
      else if (outcome.kind === 'failed-base') failedBase.add(side, operationId, () => exampleOf(each, outcome.problems[0]));
      else if (outcome.kind === 'newly-fails') {
        newlyFailing[side] += 1;
        const blamed = blame(sitesOf, [each.base.operationId, each.proposed.operationId], side, outcome.problems, each.exchange.answer?.status);
        if (blamed.size === 0) unexplained.add(side, operationId, () => exampleOf(each, outcome.problems[0]));
        for (const [change, problem] of blamed) {
          const kind: TrafficLineKind = side === 'request' ? 'refuses' : 'no-longer-allows';
          count(lines, change, kind, operationId ?? '', recorded, () => exampleOf(each, problem));
        }
      }
    }
  }
  countCarriers(sitesOf, replayed, lines, recorded);
  return {
    byChange: new Map(changes.map((change) => [change, changeTraffic(change, lines.get(change), recorded)])),
    unexplained: unexplained.list(),
    failedBase: failedBase.list(),
    notChecked: [...notChecked].map(([why, total]) => ({ why, count: total })).sort((a, b) => b.count - a.count),
    newlyFailing,
  };
}

/** The places each change's statements apply, by operation. */
function sitesByOperation(changes: readonly ReviewedChange[], contracts: { before: JsonObject; after: JsonObject }): Map<string, Site[]> {
  const byOperation = new Map<string, Site[]>();
  for (const change of changes) {
    for (const statement of change.statements) {
      for (const use of statement.uses) {
        const site = siteOf(use);
        if (site === undefined) continue;
        const operationId = use.operation!.operationId;
        const taken = site.side === 'answer' && site.body ? takenFields(use, site, contracts) : [];
        byOperation.set(operationId, [...(byOperation.get(operationId) ?? []), { change, site, breaking: statement.category === 'breaking', taken }]);
      }
    }
  }
  return byOperation;
}

/** The changes whose places hold the problems most precisely, each with the problem it holds. */
function blame(sitesOf: Map<string, Site[]>, operationIds: readonly (string | undefined)[], side: Side, problems: readonly Problem[], status: number | undefined): Map<ReviewedChange, Problem> {
  const sites = [...new Set(operationIds)].flatMap((operationId) => (operationId === undefined ? [] : (sitesOf.get(operationId) ?? [])));
  const blamed = new Map<ReviewedChange, Problem>();
  for (const problem of problems) {
    const held = sites.map((site) => ({ site, precision: precision(site.site, side, problem, status) })).filter((each) => each.precision !== undefined);
    const best = Math.max(...held.map((each) => each.precision!));
    for (const { site } of held.filter((each) => each.precision === best)) if (!blamed.has(site.change)) blamed.set(site.change, problem);
  }
  return blamed;
}

/** The answers that carry what a breaking change takes from what partners receive, counted per operation. */
function countCarriers(sitesOf: Map<string, Site[]>, replayed: readonly ReplayedExchange[], lines: Map<ReviewedChange, Map<string, TrafficLine>>, recorded: Recorded): void {
  for (const each of replayed) {
    const operationId = each.base.operationId;
    const answer = each.exchange.answer;
    if (operationId === undefined || answer === null || each.base.answer.kind !== 'passes' || typeof answer.body?.text !== 'string') continue;
    const carrying = (sitesOf.get(operationId) ?? []).filter(({ site, breaking, taken }) => breaking && taken.some((field) => field.length > 0) && statusMatches(site.status, answer.status));
    if (carrying.length === 0) continue;
    let json: unknown;
    try {
      json = JSON.parse(answer.body.text);
    } catch {
      continue;
    }
    const seen = new Set<ReviewedChange>();
    for (const { change, taken } of carrying) {
      if (seen.has(change)) continue;
      for (const field of taken.filter((path) => path.length > 0)) {
        const found = findField(json, field);
        if (found === undefined) continue;
        seen.add(change);
        const shown = `/${field.join('/')}`;
        count(lines, change, 'carries', operationId, recorded, () => exampleOf(each, undefined, `${shown}: ${cutText(JSON.stringify(found.value) ?? 'null', 60)}`), shown);
        break;
      }
    }
  }
}

type Recorded = Map<string, Record<Side, number>>;

/** The recorded requests and answers of each operation (as the base routes them). */
function countByOperation(replayed: readonly ReplayedExchange[]): Recorded {
  const counts: Recorded = new Map();
  for (const { base, exchange } of replayed) {
    if (base.operationId === undefined) continue;
    const held = counts.get(base.operationId) ?? { request: 0, answer: 0 };
    held.request += 1;
    if (exchange.answer !== null) held.answer += 1;
    counts.set(base.operationId, held);
  }
  return counts;
}

function count(lines: Map<ReviewedChange, Map<string, TrafficLine>>, change: ReviewedChange, kind: TrafficLineKind, operationId: string, recorded: Recorded, example: () => TrafficExample, field?: string): void {
  const ofChange = lines.get(change) ?? new Map<string, TrafficLine>();
  lines.set(change, ofChange);
  const key = `${kind}\u0000${operationId}\u0000${field ?? ''}`;
  const line = ofChange.get(key);
  if (line) line.count += 1;
  else ofChange.set(key, { kind, operationId, count: 1, of: recorded.get(operationId)?.[kind === 'refuses' ? 'request' : 'answer'] ?? 0, ...(field === undefined ? {} : { field }), example: example() });
}

function changeTraffic(change: ReviewedChange, lines: Map<string, TrafficLine> | undefined, recorded: Recorded): ChangeTraffic {
  const listed = [...(lines?.values() ?? [])].sort((a, b) => b.count - a.count);
  const breaking = change.statements.some((statement) => statement.category === 'breaking');
  if (listed.length > 0 || !breaking) return { lines: listed };
  const operations = new Set(change.statements.flatMap((statement) => statement.uses.flatMap((use) => (use.operation ? [use.operation.operationId] : []))));
  return { lines: [], unmet: { recorded: [...operations].reduce((sum, operationId) => sum + (recorded.get(operationId)?.request ?? 0), 0) } };
}

/** `carried`: what the answer carries that the change takes (`/payload/created: true`), for an answer that carries it. */
function exampleOf(each: ReplayedExchange, problem: Problem | undefined, carried?: string): TrafficExample {
  const { request, answer } = each.exchange;
  const query = request.query === '' ? '' : `?${cutText(request.query, 60)}`;
  return { file: each.file, index: each.index, request: `${request.method} ${request.path}${query}`, ...(answer === null ? {} : { status: answer.status }), detail: problem === undefined ? (carried ?? '') : problemText(problem) };
}

const cutText = (text: string, length: number): string => (text.length > length ? `${text.slice(0, length)}…` : text);

/** A request's field error as the API words it (`body /phoneNumber: Required. (E_REQUIRED)`); an answer's problem as the check worded it. */
function problemText(problem: Problem): string {
  if (problem.code === undefined) return problem.message;
  return `${problem.in}${problem.field === '' ? '' : ` ${problem.field}`}: ${problem.message} (${problem.code})`;
}

/** Exchanges counted by side and operation, the first of each kept as its example. */
class Groups {
  private readonly groups = new Map<string, TrafficGroup>();
  add(side: Side, operationId: string | null | undefined, example: () => TrafficExample): void {
    const key = `${side}\u0000${operationId ?? ''}`;
    const group = this.groups.get(key);
    if (group) group.count += 1;
    else this.groups.set(key, { side, operationId: operationId ?? null, count: 1, example: example() });
  }
  list(): TrafficGroup[] {
    return [...this.groups.values()].sort((a, b) => b.count - a.count);
  }
}
