/**
 * The battery: every case, in the order it runs (what a receiver must accept, then what it must refuse, rotation,
 * repeats, the late copy, and last the timing, which judges all that went before), built from the contract's event
 * types and its numbers, so that an event type it adds is one case more, and a limit it changes is the one graded.
 */
import type { ServiceLimits } from '../../contract-model/contract-facts-type.ts';
import type { WebhookEventType } from '../webhooks/event-payloads.ts';
import type { GraderCase } from './case-types.ts';
import { additionCases, eventCases } from './event-cases.ts';
import type { CaseGroup } from './report-types.ts';
import { lateCopyCase, repeatCases } from './repeat-cases.ts';
import { rotationCases, signatureCases } from './signature-cases.ts';
import { timingCase } from './timing-case.ts';

/** The groups, in the order their cases run: what `only` and `skip` take besides case ids. */
export const caseGroups = ['events', 'additions', 'signatures', 'rotation', 'repeats', 'ordering', 'timing'] as const satisfies readonly CaseGroup[];
// Every group the admin contract's ReceiverGradeCase names has its place in the order: one it adds fails to compile.
const everyGroupOrdered: Exclude<CaseGroup, (typeof caseGroups)[number]> extends never ? true : never = true;
void everyGroupOrdered;

export function batteryCases(eventTypes: readonly WebhookEventType[], webhooks: ServiceLimits['webhooks']): GraderCase[] {
  const cases = [
    ...eventCases(eventTypes, webhooks),
    ...additionCases(eventTypes),
    ...signatureCases(eventTypes, webhooks),
    ...rotationCases(eventTypes),
    ...repeatCases(eventTypes),
    lateCopyCase(eventTypes),
    timingCase(eventTypes, webhooks),
  ];
  return caseGroups.flatMap((group) => cases.filter((graderCase) => graderCase.group === group));
}
