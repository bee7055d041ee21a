/**
 * Recorded traffic replayed against two contracts, the base and the proposal: each exchange with both verdicts, and
 * what they say together on each side (request, answer): it passes both, fails the proposal only (what the change
 * would do to it), failed the base already (not the change's doing), or one of them could not check it.
 */
import type { ExchangeCheck, ExchangeVerdict, Problem, SideVerdict } from './exchange-check.ts';
import type { TrafficExchange, TrafficFile } from './traffic-file.ts';

export type Side = 'request' | 'answer';
export const sides: readonly Side[] = ['request', 'answer'];

export interface ReplayedExchange {
  file: string;
  /** Its place in its file's `exchanges`. */
  index: number;
  exchange: TrafficExchange;
  base: ExchangeVerdict;
  proposed: ExchangeVerdict;
}

export type Outcome =
  | { kind: 'passes' }
  | { kind: 'newly-fails'; problems: Problem[] }
  | { kind: 'failed-base'; problems: Problem[] }
  | { kind: 'unchecked'; why: string };

export function replay(files: readonly TrafficFile[], checks: { base: ExchangeCheck; proposed: ExchangeCheck }): ReplayedExchange[] {
  return files.flatMap(({ file, document }) => document.exchanges.map((exchange, index) => ({ file, index, exchange, base: checks.base(exchange), proposed: checks.proposed(exchange) })));
}

/** What the two verdicts on one side of an exchange say together. */
export function outcomeOf(replayed: ReplayedExchange, side: Side): Outcome {
  const base: SideVerdict = replayed.base[side];
  const proposed: SideVerdict = replayed.proposed[side];
  if (base.kind === 'unchecked') return base;
  if (base.kind === 'fails') return { kind: 'failed-base', problems: base.problems };
  if (proposed.kind === 'unchecked') return { kind: 'unchecked', why: `the proposal cannot check it: ${proposed.why}` };
  return proposed.kind === 'fails' ? { kind: 'newly-fails', problems: proposed.problems } : { kind: 'passes' };
}
