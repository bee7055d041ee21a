/** What every format of the report says alike: the verdict, the totals, each exchange as text. */
import type { CaseOutcome, Exchange, GradedCase, ReceiverGrade } from '../report-types.ts';

export function verdictLine(grade: ReceiverGrade): string {
  const { passed, failed, warning, skipped } = grade.totals;
  const seconds = (grade.durationMs / 1000).toFixed(1);
  return `${grade.verdict === 'passed' ? 'PASSED' : 'FAILED'}: ${passed} passed, ${failed} failed, ${warning} ${warning === 1 ? 'warning' : 'warnings'}, ${skipped} skipped; ${grade.requests} ${grade.requests === 1 ? 'request' : 'requests'} in ${seconds} s`;
}

export function headingLine(grade: ReceiverGrade): string {
  return `Receiver grade of ${grade.receiver}, against the Partner Formation API contract ${grade.contractVersion}`;
}

/** How the battery kept to its bounds, as the report states them. */
export function boundsLine(grade: ReceiverGrade): string {
  const { maxRequests, requestsPerSecond, timeoutMs, answerBytesRead } = grade.limits;
  return `Sent only to the receiver${grade.probe === null ? '' : ' and the probe'}, no redirect followed, at most ${maxRequests} requests, ${requestsPerSecond} a second, each answer waited for ${timeoutMs / 1000} s and read up to ${answerBytesRead} bytes.`;
}

export const outcomeMarks: Record<CaseOutcome, string> = { passed: '✔', failed: '✘', warning: '!', skipped: '–' };

/** `required`, or `should` for advice the contract gives. */
export const levelWord = (graded: GradedCase): string => (graded.required ? 'required' : 'should');

/** One exchange: what was sent (headers and body) and what came back, or why nothing did. */
export function exchangeText(exchange: Exchange): string {
  const { request, response } = exchange;
  const sent = [`→ ${request.method} ${request.to}`, ...Object.entries(request.headers).map(([name, value]) => `  ${name}: ${value}`), ...(request.body === null ? [] : [`  ${request.body}`])];
  if (!response) return [...sent, `← nothing after ${Math.round(exchange.durationMs)} ms: ${exchange.error ?? ''}`].join('\n');
  const about = [response.contentType, response.location === null ? null : `Location: ${response.location}`].filter((part) => part !== null).join(', ');
  const received = [`← ${response.status} in ${Math.round(exchange.durationMs)} ms${about ? ` (${about})` : ''}`, ...(response.body === '' ? [] : [`  ${response.body}${response.truncated ? ' …' : ''}`])];
  return [...sent, ...received].join('\n');
}
