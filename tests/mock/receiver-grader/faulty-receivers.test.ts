/**
 * The grader against receivers that are wrong in known ways, each a real HTTP server: the example receiver (the
 * kit's verifyWebhook) passes every required case, and each faulty one fails exactly the cases of its fault.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { loadContract } from '../../../contract-model/document.ts';
import { contractFacts } from '../../../generated/contract-facts.ts';
import { gradeReceiver, type GraderSetup } from '../../../mock/receiver-grader/grade.ts';
import type { ReceiverGrade } from '../../../mock/receiver-grader/report-types.ts';
import { receiverSecret, startReceiver, type Fault, type RunningReceiver } from './support/receivers.ts';

const contract = await loadContract();
let receiver: RunningReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

async function grade(fault: Fault, options: { probe?: boolean; only?: string[]; delayMs?: number; setup?: Partial<GraderSetup> } = {}): Promise<ReceiverGrade> {
  receiver = await startReceiver(fault, options.delayMs === undefined ? {} : { delayMs: options.delayMs });
  return gradeReceiver({ receiverUrl: receiver.url, secret: receiverSecret, ...(options.probe ? { probeUrl: receiver.probeUrl } : {}), ...(options.only ? { only: options.only } : {}) }, { contract, ...options.setup });
}

const withOutcome = (report: ReceiverGrade, outcome: string) => report.cases.filter((graded) => graded.outcome === outcome).map((graded) => graded.id);

describe('the grader', () => {
  it('passes the example receiver in every case, the late copy stated as a warning with what to do', async () => {
    const report = await grade('none', { probe: true });
    expect(report.verdict).toBe('passed');
    expect(withOutcome(report, 'failed')).toEqual([]);
    expect(withOutcome(report, 'skipped')).toEqual([]);
    expect(withOutcome(report, 'warning')).toEqual(['late-copy']);
    const lateCopy = report.cases.find((graded) => graded.id === 'late-copy');
    expect(lateCopy?.observation).toContain('deduplicate on id');
    expect(lateCopy?.required).toBe(false);
    // Every event type of the contract has its case, and the battery kept to the bound it counted.
    expect(report.cases.filter((graded) => graded.group === 'events').map((graded) => graded.id)).toEqual(Object.keys(contract.webhooks ?? {}).map((type) => `event-${type}`));
    // The timing case judges what the others sent, and sends only when run alone: one request under the bound.
    expect(report.requests).toBe(report.limits.maxRequests - 1);
    expect(report.cases.filter((graded) => graded.exchanges.length === 0).map((graded) => graded.id)).toEqual(['timing']);
  });

  it('without a probe, cannot see that a repeat was processed once, and says so rather than passing it', async () => {
    const report = await grade('none');
    expect(report.verdict).toBe('passed');
    expect(withOutcome(report, 'skipped')).toEqual(['repeat-processed-once']);
    expect(report.cases.find((graded) => graded.id === 'repeat-processed-once')?.observation).toContain('--probe');
  });

  const faults: [Fault, string[]][] = [
    ['skips-verification', ['signature-missing', 'signature-wrong', 'signature-other-secret', 'timestamp-too-old', 'timestamp-too-new', 'body-tampered']],
    ['fixed-tolerance', ['timestamp-too-old', 'timestamp-too-new']],
    ['rejects-unknown-fields', ['addition-property']],
    ['rejects-second-signature', ['rotation-yours-first', 'rotation-yours-second']],
    ['processes-repeats-again', ['repeat-processed-once']],
  ];
  for (const [fault, failing] of faults) {
    it(`fails a receiver that ${fault.replaceAll('-', ' ')} in ${failing.join(', ')}, and in nothing else`, async () => {
      const report = await grade(fault, { probe: true });
      expect(report.verdict).toBe('failed');
      expect(withOutcome(report, 'failed')).toEqual(failing);
      expect(report.totals.failed).toBe(failing.length);
      for (const id of failing) {
        const graded = report.cases.find((candidate) => candidate.id === id)!;
        // What was sent and what came back, for the partner to see why.
        expect(graded.exchanges.at(-1)?.response?.status).toBeGreaterThan(0);
        expect(graded.observation).toMatch(/^(first: )?Answered \d{3}/);
      }
    });
  }

  it("says of a forged delivery taken that the receiver took it as the service's", async () => {
    const report = await grade('skips-verification', { only: ['signature-missing'] });
    expect(report.cases[0]?.observation).toBe(`Answered 200 in ${Math.round(report.cases[0]!.exchanges[0]!.durationMs)} ms: it carries no signature, and the receiver took it as the service's.`);
    expect(report.cases[0]?.exchanges[0]?.request.headers['webhook-signature']).toBeUndefined();
  });

  it('reports a slow receiver with its times, and stops sending once it has timed out twice', async () => {
    // The contract's delivery timeout, made a second so that the test waits seconds rather than the contract's.
    const webhooks = { ...contractFacts.limits.webhooks, attemptTimeoutSeconds: 1 };
    const report = await grade('answers-slowly', { delayMs: 1_500, only: ['events', 'timing'], setup: { webhooks } });
    const [first, second] = Object.keys(contract.webhooks ?? {}).map((type) => `event-${type}`);
    expect(withOutcome(report, 'failed')).toEqual([first, second, 'timing']);
    expect(report.cases.find((graded) => graded.id === first)?.observation).toBe('No answer: timeout: no answer within 1000 ms: the service would send it again on its retry schedule, and disable the endpoint after the last attempt.');
    expect(report.stopped).toContain(`timed out 2 times`);
    expect(withOutcome(report, 'skipped')).toHaveLength(Object.keys(contract.webhooks ?? {}).length - 2);
    expect(report.requests).toBe(2);
    expect(report.cases.find((graded) => graded.id === 'timing')?.observation).toMatch(new RegExp(`2 beyond the 1 s the contract allows: ${first} \\(no answer within the timeout\\), ${second} \\(no answer within the timeout\\)`));
  }, 20_000);

  it('rates a case by the level the contract gives its obligation: a should unmet is a warning, not a failure', async () => {
    const obligations = { ...contractFacts.webhookReceiver, refuseUnverified: 'should' as const };
    const report = await grade('skips-verification', { setup: { obligations } });
    expect(report.verdict).toBe('passed');
    expect(withOutcome(report, 'warning')).toEqual(expect.arrayContaining(['signature-missing', 'body-tampered']));
    expect(report.cases.find((graded) => graded.id === 'signature-missing')?.required).toBe(false);
  });

  it("grades the contract's own tolerance: a receiver allowing an hour passes once the contract allows two", async () => {
    const webhooks = { ...contractFacts.limits.webhooks, timestampToleranceSeconds: 7200 };
    const report = await grade('fixed-tolerance', { only: ['signatures'], setup: { webhooks } });
    // 7260 s off is beyond both; the receiver's hour refuses it. Its title says the contract's number.
    expect(report.cases.find((graded) => graded.id === 'timestamp-too-old')?.title).toBe('A webhook-timestamp 7260 s old');
    expect(withOutcome(report, 'failed')).toEqual([]);
  });
});
