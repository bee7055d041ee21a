/**
 * What recorded traffic says of a change to the contract: every recorded exchange checked against the base and the
 * proposed contract (exchange-check.ts, each side as the mock and the response check would), and what the two
 * verdicts say set beside the review's changes (attribution.ts).
 */
import type { ContractDocument, JsonObject } from '../../contract-model/document.ts';
import { contractFacts } from '../../generated/contract-facts.ts';
import type { ReviewedChange } from '../entries.ts';
import { attributeTraffic, type Attribution } from './attribution.ts';
import { createExchangeCheck } from './exchange-check.ts';
import { replay, type ReplayedExchange } from './replay.ts';
import type { TrafficFile, TrafficRecording } from './traffic-file.ts';

export interface TrafficReview extends Attribution {
  files: { file: string; exchanges: number; omitted: number; recordedBy: TrafficRecording['recordedBy'] }[];
  /** Every exchange of every file. */
  exchanges: number;
}

export interface TrafficReplay {
  review: TrafficReview;
  /** Each exchange with both verdicts, for what reads them further (documentation patches). */
  replayed: ReplayedExchange[];
}

/** `contracts`: both bundled (what is checked against), and both prepared (what the changes' pointers are into). */
export function reviewTraffic(files: readonly TrafficFile[], contracts: { base: JsonObject; proposed: JsonObject; prepared: { before: JsonObject; after: JsonObject } }, changes: readonly ReviewedChange[]): TrafficReplay {
  const replayed = replay(files, { base: checkOf(contracts.base), proposed: checkOf(contracts.proposed) });
  return {
    review: {
      files: files.map(({ file, document }) => ({ file, exchanges: document.exchanges.length, omitted: document.omitted, recordedBy: document.recordedBy })),
      exchanges: replayed.length,
      ...attributeTraffic(changes, replayed, contracts.prepared),
    },
    replayed,
  };
}

/** A contract's check, with the body limit it states (a proposal may change it). */
function checkOf(contract: JsonObject) {
  const stated = (contract['x-service-limits'] as { requestBodyMaxBytes?: unknown } | undefined)?.requestBodyMaxBytes;
  return createExchangeCheck(contract as ContractDocument, typeof stated === 'number' ? stated : contractFacts.limits.requestBodyMaxBytes);
}
