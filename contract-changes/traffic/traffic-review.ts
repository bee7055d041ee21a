/**
 * What recorded traffic says of a change to the contract: every recorded exchange checked against the base and the
 * proposed contract (exchange-check.ts, each side as the mock and the response check would), what the two verdicts
 * say set beside the review's changes (attribution.ts), and what a sandbox answered that the proposal does not
 * document, as the patch of `openapi/` that would (undocumented.ts, documentation-patch.ts).
 */
import type { ContractDocument, JsonObject } from '../../contract-model/document.ts';
import { contractFacts } from '../../generated/contract-facts.ts';
import type { ReviewedChange } from '../entries.ts';
import type { SourceLines } from '../source-lines.ts';
import { attributeTraffic, type Attribution } from './attribution.ts';
import { documentationPatches, type DocumentationPatches } from './documentation-patch.ts';
import { createExchangeCheck, type ExchangeCheck } from './exchange-check.ts';
import { replay } from './replay.ts';
import type { TrafficFile, TrafficRecording } from './traffic-file.ts';
import { findUndocumented } from './undocumented.ts';

export interface TrafficReview extends Attribution {
  files: { file: string; exchanges: number; omitted: number; recordedBy: TrafficRecording['recordedBy'] }[];
  /** Every exchange of every file. */
  exchanges: number;
  /** What the sandbox answered (through the proxy) that the proposal does not document, as a patch of it. */
  documentation: DocumentationPatches;
}

/** The proposed contract as the patches of it are made: bundled, prepared, and its source read at `projectRoot`. */
export interface ProposedContract {
  bundled: JsonObject;
  prepared: JsonObject;
  projectRoot: string;
  placeOf: SourceLines;
}

/** `base`: bundled and prepared (prepare.ts), as the changes' pointers of what it had are into. */
export function reviewTraffic(files: readonly TrafficFile[], contracts: { base: { bundled: JsonObject; prepared: JsonObject }; proposed: ProposedContract }, changes: readonly ReviewedChange[]): TrafficReview {
  const { base, proposed } = contracts;
  const replayed = replay(files, { base: checkOf(base.bundled), proposed: checkOf(proposed.bundled) });
  return {
    files: files.map(({ file, document }) => ({ file, exchanges: document.exchanges.length, omitted: document.omitted, recordedBy: document.recordedBy })),
    exchanges: replayed.length,
    ...attributeTraffic(changes, replayed, { before: base.prepared, after: proposed.prepared }),
    documentation: documentUndocumented(files, proposed),
  };
}

/** What the sandbox answered in these files that the contract does not document, as the patch that would. */
export function documentUndocumented(files: readonly TrafficFile[], proposed: ProposedContract): DocumentationPatches {
  const recorded = files.flatMap(({ file, document }) => document.exchanges.map((exchange, index) => ({ file, index, exchange })));
  return documentationPatches(findUndocumented(recorded, proposed.bundled, proposed.prepared), { projectRoot: proposed.projectRoot, working: proposed.bundled, placeOf: proposed.placeOf });
}

/** A contract's check, with the body limit it states (a proposal may change it). */
function checkOf(contract: JsonObject): ExchangeCheck {
  const stated = (contract['x-service-limits'] as { requestBodyMaxBytes?: unknown } | undefined)?.requestBodyMaxBytes;
  return createExchangeCheck(contract as ContractDocument, typeof stated === 'number' ? stated : contractFacts.limits.requestBodyMaxBytes);
}
