/**
 * The review's words for recorded traffic, shared by its formats: what a change does to the recorded exchanges
 * ("refuses 3 of 1,240 recorded requests of createCustomer, e.g. …"), a breaking change no recorded exchange meets,
 * and the section's lines (what failed the base already, what could not be checked).
 */
import { basename } from 'node:path';
import type { ReviewedChange } from '../../entries.ts';
import type { ChangeTraffic, TrafficExample, TrafficGroup, TrafficLine } from '../../traffic/attribution.ts';
import type { DocumentationPatch } from '../../traffic/documentation-patch.ts';
import type { Review, TrafficReview } from '../review.ts';

const number = (value: number): string => value.toLocaleString('en-US');
const counted = (count: number, noun: string): string => `${number(count)} ${noun}${count === 1 ? '' : 's'}`;

/** `POST /v1/partner/customers → 200 (contract-suite.json #12): body /phoneNumber: Required. (E_REQUIRED)` */
export function exampleText(example: TrafficExample): string {
  return `${example.request}${example.status === undefined ? '' : ` → ${example.status}`} (${basename(example.file)} #${example.index}): ${example.detail}`;
}

export function trafficLineText(line: TrafficLine): string {
  const of = `${number(line.count)} of ${counted(line.of, line.kind === 'refuses' ? 'recorded request' : 'recorded answer')} of ${line.operationId}`;
  const what = line.kind === 'refuses' ? `refuses ${of}` : line.kind === 'no-longer-allows' ? `no longer allows ${of}` : `${of} ${line.count === 1 ? 'carries' : 'carry'} ${line.field ?? ''}`;
  return `${what}, e.g. ${exampleText(line.example)}`;
}

export function unmetText(unmet: NonNullable<ChangeTraffic['unmet']>): string {
  return `no recorded traffic meets it (${unmet.recorded === 0 ? 'none of its operations was recorded' : `${counted(unmet.recorded, 'recorded exchange')} of its operations, none of them refused or carrying what it changes`})`;
}

/** What the recorded traffic says of one change, one line each; none for a change it says nothing of. */
export function changeTrafficTexts(review: Review, change: ReviewedChange): string[] {
  const traffic = review.traffic?.byChange.get(change);
  if (traffic === undefined) return [];
  return [...traffic.lines.map(trafficLineText), ...(traffic.unmet ? [unmetText(traffic.unmet)] : [])];
}

/** `1,240 recorded exchanges from contract-suite.json (1,234 exchanges), proxy.json (6 exchanges)` */
export function trafficSourcesText(traffic: TrafficReview): string {
  const [only] = traffic.files;
  const omitted = (count: number) => (count === 0 ? '' : `${number(count)} left out when recorded`);
  if (traffic.files.length === 1 && only !== undefined) return `${counted(traffic.exchanges, 'recorded exchange')} from ${only.file}${only.omitted === 0 ? '' : ` (${omitted(only.omitted)})`}`;
  const files = traffic.files.map((file) => `${file.file} (${[counted(file.exchanges, 'exchange'), omitted(file.omitted)].filter(Boolean).join(', ')})`);
  return `${counted(traffic.exchanges, 'recorded exchange')} from ${files.join(', ')}`;
}

/** How many exchanges pass the base and fail the proposal, on each side. */
export function newlyFailingText(traffic: TrafficReview): string {
  const { request, answer } = traffic.newlyFailing;
  if (request + answer === 0) return 'None passes the base contract and fails the proposal.';
  return `${counted(request, 'request')} and ${counted(answer, 'answer')} pass the base contract and fail the proposal: each is under the change that explains it.`;
}

/** `12 requests of createCompany, e.g. …` */
export function groupText(group: TrafficGroup): string {
  return `${counted(group.count, group.side)} of ${group.operationId ?? 'no operation'}, e.g. ${exampleText(group.example)}`;
}

export function notCheckedText(traffic: TrafficReview): string | undefined {
  if (traffic.notChecked.length === 0) return undefined;
  const total = traffic.notChecked.reduce((sum, each) => sum + each.count, 0);
  return `Not checked: ${number(total)} ${total === 1 ? 'request or answer' : 'requests or answers'} (${traffic.notChecked.map((each) => `${number(each.count)}: ${each.why}`).join('; ')}).`;
}

/** `status 409 of getCustomer, at openapi/paths/…:10 — seen 3 times, e.g. GET /v1/… → 409 (proxy.json #4)` */
export function patchText(patch: DocumentationPatch): string {
  const [first] = patch.seen;
  const example = first === undefined ? '' : `, e.g. ${first.exchange.request.method} ${first.exchange.request.path}${first.exchange.answer ? ` → ${first.exchange.answer.status}` : ''} (${basename(first.file)} #${first.index})`;
  return `${patch.what}, at ${patch.place.file}:${patch.place.line} — seen ${counted(patch.seen.length, 'time')} in the sandbox's answers of ${patch.operations.join(', ')}${example}`;
}

export const documentationHeading = 'What the sandbox answered that the contract does not document';

/** Whether there is documentation to propose, or something seen that could not be placed. */
export function hasDocumentation({ documentation }: TrafficReview): boolean {
  return documentation.patches.length > 0 || documentation.unplaced.length > 0;
}
