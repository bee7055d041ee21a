/**
 * Grades a webhook receiver: checks what it is asked to grade (an http(s) URL, a Standard Webhooks secret, an
 * optional probe, the cases named), runs the battery's cases one after the other through one bounded wire, and
 * reports each as the contract rates it: a `must` met is passed and unmet is failed, a `should` unmet or unseen is a
 * warning, and a `must` that cannot be seen (no probe) is skipped. Which obligations are `must`, the tolerance, the
 * delivery timeout and the event types are read from the contract, never typed here.
 */
import { performance } from 'node:perf_hooks';
import type { ObligationLevel, ReceiverObligation, ServiceLimits } from '../../contract-model/contract-facts-type.ts';
import type { ContractDocument } from '../../contract-model/document.ts';
import { contractFacts } from '../../generated/contract-facts.ts';
import type { AllowedTargets } from '../webhooks/allowed-targets.ts';
import { endpointUrlProblem, maskEndpointUrl } from '../webhooks/endpoint-url.ts';
import { isSigningSecret } from '../webhooks/signing.ts';
import { batteryCases } from './battery.ts';
import { contractExampleEvents, withFreshIds } from './battery-events.ts';
import type { CaseContext, Finding, GraderCase, Sent } from './case-types.ts';
import type { CaseOutcome, Exchange, GradedCase, GradeLimits, ReceiverGrade } from './report-types.ts';
import { selectCases } from './selection.ts';
import { openWire } from './wire.ts';

/** The grader's own bounds, beside the contract's delivery timeout: what it promises whatever the receiver does. */
export const gradeBounds = { requestsPerSecond: 10, answerBytesRead: 4096, timeoutsBeforeStopping: 2 } as const;

export interface GradeRequest {
  receiverUrl: string;
  /** The receiver's signing secret, `whsec_…`. */
  secret: string;
  probeUrl?: string;
  only?: readonly string[];
  skip?: readonly string[];
}

export interface GraderSetup {
  /** The bundled contract: its webhooks and their examples. */
  contract: ContractDocument;
  fetch?: typeof fetch;
  /** Where the mock may deliver (`--webhook-allow`): the receiver and the probe must be there too. */
  allowed?: AllowedTargets;
  /** The contract's webhook numbers and obligations (default: generated/contract-facts.ts). */
  webhooks?: ServiceLimits['webhooks'];
  obligations?: Record<ReceiverObligation, ObligationLevel>;
  now?: () => Date;
}

/** What is wrong with a request to grade, by what it names: `url`, `probe`, `secret`, or a case in `only` or `skip`. */
export interface GradeInputProblem {
  subject: 'url' | 'probe' | 'secret' | 'only' | 'skip';
  index?: number;
  code: 'E_FORMAT' | 'E_INVALID' | 'E_NOT_ALLOWED_VALUE';
  message: string;
}

export class GradeRefused extends Error {
  constructor(readonly problems: GradeInputProblem[]) {
    super(problems.map((problem) => problem.message).join(' '));
  }
}

/** Every case of the battery for this contract, in order; what `--help` counts. */
export function batteryFor(contract: ContractDocument, webhooks: ServiceLimits['webhooks'] = contractFacts.limits.webhooks): GraderCase[] {
  return batteryCases([...contractExampleEvents(contract).keys()], webhooks);
}

/** The most requests a battery of these cases sends. */
export const requestBound = (cases: readonly GraderCase[]): number => cases.reduce((sum, graderCase) => sum + graderCase.requests, 0);

export async function gradeReceiver(request: GradeRequest, setup: GraderSetup): Promise<ReceiverGrade> {
  const webhooks = setup.webhooks ?? contractFacts.limits.webhooks;
  const { cases, problems } = selectCases(batteryFor(setup.contract, webhooks), request.only, request.skip);
  const refused = [...inputProblems(request, setup.allowed), ...problems.map(({ list, index, message }) => ({ subject: list, index, code: 'E_NOT_ALLOWED_VALUE' as const, message }))];
  if (refused.length > 0) throw new GradeRefused(refused);
  return runBattery(cases, request, { ...setup, webhooks, obligations: setup.obligations ?? contractFacts.webhookReceiver, now: setup.now ?? (() => new Date()) });
}

function inputProblems(request: GradeRequest, allowed: AllowedTargets | undefined): GradeInputProblem[] {
  const problems: GradeInputProblem[] = [];
  const url = endpointUrlProblem(request.receiverUrl, allowed);
  if (url) problems.push({ subject: 'url', code: url.code, message: `The receiver's URL: ${url.message}` });
  const probe = request.probeUrl === undefined ? undefined : endpointUrlProblem(request.probeUrl, allowed);
  if (probe) problems.push({ subject: 'probe', code: probe.code, message: `The probe's URL: ${probe.message}` });
  if (!isSigningSecret(request.secret)) problems.push({ subject: 'secret', code: 'E_FORMAT', message: 'The secret must be a Standard Webhooks signing secret: whsec_ followed by base64.' });
  return problems;
}

type Setup = GraderSetup & Required<Pick<GraderSetup, 'webhooks' | 'obligations' | 'now'>>;

async function runBattery(cases: readonly GraderCase[], request: GradeRequest, setup: Setup): Promise<ReceiverGrade> {
  const { webhooks, obligations, now } = setup;
  const startedAt = now();
  const started = performance.now();
  const limits: GradeLimits = { maxRequests: requestBound(cases), requestsPerSecond: gradeBounds.requestsPerSecond, timeoutMs: webhooks.attemptTimeoutSeconds * 1000, answerBytesRead: gradeBounds.answerBytesRead, timeoutsBeforeStopping: gradeBounds.timeoutsBeforeStopping };
  const wire = openWire({ receiver: new URL(request.receiverUrl), ...(request.probeUrl === undefined ? {} : { probe: new URL(request.probeUrl) }), limits, ...(setup.fetch ? { fetch: setup.fetch } : {}) });
  const examples = contractExampleEvents(setup.contract);
  const history: Sent[] = [];
  const graded: GradedCase[] = [];
  let stopped: string | null = null;
  for (const graderCase of cases) {
    const level = obligations[graderCase.obligation];
    if (wire.timeouts >= limits.timeoutsBeforeStopping && !graderCase.runsWhenStopped) {
      stopped ??= `The receiver timed out ${wire.timeouts} times, so the battery stopped: the cases from ${graderCase.id} on were not sent.`;
      graded.push(gradedCase(graderCase, level, { verdict: 'unobservable', observation: 'Not sent: the battery had stopped (see stopped).' }, []));
      continue;
    }
    const exchanges: Exchange[] = [];
    const kept = (exchange: Exchange) => {
      exchanges.push(exchange);
      history.push({ caseId: graderCase.id, exchange });
      return exchange;
    };
    const context: CaseContext = {
      wire: { deliver: async (delivery) => kept(await wire.deliver(delivery)), readProbe: (webhookId) => wire.readProbe(webhookId)?.then(kept) },
      secret: request.secret,
      freshEvents: () => withFreshIds(examples, now()),
      webhooks,
      now,
      history: () => history,
    };
    graded.push(gradedCase(graderCase, level, await graderCase.run(context), exchanges));
  }
  const count = (outcome: CaseOutcome) => graded.filter((graderCase) => graderCase.outcome === outcome).length;
  return {
    receiver: maskEndpointUrl(request.receiverUrl),
    probe: request.probeUrl === undefined ? null : maskEndpointUrl(request.probeUrl),
    contractVersion: String((setup.contract.info as { version?: unknown } | undefined)?.version ?? 'unknown'),
    startedAt: startedAt.toISOString(),
    durationMs: Math.round((performance.now() - started) * 10) / 10,
    verdict: count('failed') > 0 ? 'failed' : 'passed',
    totals: { passed: count('passed'), failed: count('failed'), warning: count('warning'), skipped: count('skipped') },
    requests: wire.sent,
    limits,
    stopped,
    cases: graded,
  };
}

/** The contract's level decides what a finding is worth (see the opening comment). */
function outcomeOf(verdict: Finding['verdict'], level: ObligationLevel): CaseOutcome {
  if (verdict === 'met') return 'passed';
  if (level === 'should') return 'warning';
  return verdict === 'unmet' ? 'failed' : 'skipped';
}

function gradedCase(graderCase: GraderCase, level: ObligationLevel, finding: Finding, exchanges: Exchange[]): GradedCase {
  const { id, group, title, obligation, expectation } = graderCase;
  return { id, group, title, obligation, required: level === 'must', expectation, outcome: outcomeOf(finding.verdict, level), observation: finding.observation, exchanges };
}
