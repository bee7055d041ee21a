/**
 * Which cases run: every case, or those `only` names, less those `skip` names, each name a case's id or a group's.
 * A name the battery does not know is refused, listing what it knows, rather than running nothing or everything.
 */
import { caseGroups } from './battery.ts';
import type { GraderCase } from './case-types.ts';

export interface SelectionProblem {
  /** Which list, and where in it: `only`, 0. */
  list: 'only' | 'skip';
  index: number;
  message: string;
}

export function selectCases(cases: readonly GraderCase[], only?: readonly string[], skip?: readonly string[]): { cases: GraderCase[]; problems: SelectionProblem[] } {
  const problems: SelectionProblem[] = [];
  // The event cases are one per event type of the contract, as many as it has: named by their form and a first one.
  const [eventCase] = cases.filter((graderCase) => graderCase.group === 'events');
  const others = cases.filter((graderCase) => graderCase.group !== 'events').map((graderCase) => graderCase.id);
  const known = `give a group (${caseGroups.join(', ')}) or a case's id: event- and an event type of the contract${eventCase ? ` (${eventCase.id}, …)` : ''}, or one of ${others.join(', ')}`;
  const matching = (list: 'only' | 'skip', names: readonly string[]): Set<string> => {
    const ids = new Set<string>();
    names.forEach((name, index) => {
      const named = cases.filter((graderCase) => graderCase.id === name || graderCase.group === name);
      if (named.length === 0) problems.push({ list, index, message: `${name} is no case or group of the battery: ${known}.` });
      for (const graderCase of named) ids.add(graderCase.id);
    });
    return ids;
  };
  const kept = only === undefined ? undefined : matching('only', only);
  const left = matching('skip', skip ?? []);
  return { cases: cases.filter((graderCase) => (kept === undefined || kept.has(graderCase.id)) && !left.has(graderCase.id)), problems };
}
