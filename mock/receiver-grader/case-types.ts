/** What a case of the battery is, what it is given to run, and what it finds. */
import type { ReceiverObligation, ServiceLimits } from '../../contract-model/contract-facts-type.ts';
import type { WebhookEvent, WebhookEventType } from '../webhooks/event-payloads.ts';
import type { CaseGroup, Exchange } from './report-types.ts';
import type { Wire } from './wire.ts';

/**
 * `met` and `unmet`: the receiver did or did not do what the case asks. `unobservable`: what the case asks cannot be
 * seen from outside (a processing without a probe, a state a receiver keeps to itself); `observation` says why, and
 * what a receiver should do.
 */
export type Verdict = 'met' | 'unmet' | 'unobservable';

export interface Finding {
  verdict: Verdict;
  observation: string;
}

export interface GraderCase {
  id: string;
  group: CaseGroup;
  title: string;
  /** The obligation of the contract's `x-webhook-receiver` it checks: whether it is required is the contract's. */
  obligation: ReceiverObligation;
  /** What the contract asks of the receiver here, in words (its numbers read from the contract). */
  expectation: string;
  /** The most requests it sends: the battery's bound is their sum. */
  requests: number;
  /** Run even after the battery stopped for timeouts (it judges what was sent, and sends only when nothing was). */
  runsWhenStopped?: boolean;
  run(context: CaseContext): Promise<Finding>;
}

/** One exchange of the battery so far, with the case that made it. */
export interface Sent {
  caseId: string;
  exchange: Exchange;
}

export interface CaseContext {
  /** The battery's wire, each exchange kept for the case and the battery's history. */
  wire: Pick<Wire, 'deliver' | 'readProbe'>;
  /** The receiver's signing secret. */
  secret: string;
  /** A set of the contract's example events, one per type, with ids of their own: another company at each call. */
  freshEvents(): Map<WebhookEventType, WebhookEvent>;
  webhooks: ServiceLimits['webhooks'];
  now(): Date;
  /** Every exchange of the battery so far, in order. */
  history(): readonly Sent[];
}
