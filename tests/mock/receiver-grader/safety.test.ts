/**
 * The grader is safe by construction: it refuses what is not an http(s) URL or a signing secret before sending
 * anything, sends only to the URL it is given (and the probe), follows no redirect, sends one request at a time at a
 * bounded rate and no more than it counted, and reads an answer only up to its bound.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { loadContract } from '../../../contract-model/document.ts';
import { GradeRefused, gradeBounds, gradeReceiver } from '../../../mock/receiver-grader/grade.ts';
import { openWire } from '../../../mock/receiver-grader/wire.ts';
import { receiverSecret, startServer } from './support/receivers.ts';

const contract = await loadContract();
const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((close) => close()));
});

async function server(answer: Parameters<typeof startServer>[0]) {
  const started = await startServer(answer);
  closing.push(started.close);
  return started;
}

describe('what the grader refuses before sending anything', () => {
  const refusal = async (request: Partial<Parameters<typeof gradeReceiver>[0]>) => {
    const error = await gradeReceiver({ receiverUrl: 'http://127.0.0.1:9/webhooks', secret: receiverSecret, ...request }, { contract }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GradeRefused);
    return (error as GradeRefused).problems.map(({ subject, code }) => `${subject} ${code}`);
  };

  it('a URL that is not http(s), not absolute, or carries a user or password', async () => {
    expect(await refusal({ receiverUrl: 'ftp://example.com/webhooks' })).toEqual(['url E_FORMAT']);
    expect(await refusal({ receiverUrl: 'file:///etc/passwd' })).toEqual(['url E_FORMAT']);
    expect(await refusal({ receiverUrl: '/webhooks' })).toEqual(['url E_FORMAT']);
    expect(await refusal({ receiverUrl: 'http://user:pass@example.com/webhooks' })).toEqual(['url E_INVALID']);
    expect(await refusal({ probeUrl: 'gopher://example.com/' })).toEqual(['probe E_FORMAT']);
  });

  it('a secret that is not whsec_ and base64, and a case the battery does not have', async () => {
    expect(await refusal({ secret: 'not-a-secret' })).toEqual(['secret E_FORMAT']);
    expect(await refusal({ only: ['signatures', 'signature-forged'], skip: ['everything'] })).toEqual(['only E_NOT_ALLOWED_VALUE', 'skip E_NOT_ALLOWED_VALUE']);
  });
});

describe('what the grader sends', () => {
  it('goes to the URL given and the probe only, follows no redirect, and reports the redirect with its Location', async () => {
    const elsewhere = await server(() => ({ status: 200 }));
    const redirecting = await server(() => ({ status: 307, headers: { location: `${elsewhere.url}/stolen` } }));
    const report = await gradeReceiver({ receiverUrl: `${redirecting.url}/webhooks`, secret: receiverSecret, probeUrl: `${redirecting.url}/probe`, only: ['events', 'repeats'] }, { contract });
    expect(elsewhere.requests).toEqual([]);
    expect(new Set(redirecting.requests.map((request) => `${request.method} ${request.url.replace(/\?.*/, '')}`))).toEqual(new Set(['POST /webhooks', 'GET /probe']));
    const [first] = report.cases;
    expect(first?.outcome).toBe('failed');
    expect(first?.exchanges[0]?.response?.location).toBe(`${elsewhere.url}/stolen`);
    expect(first?.observation).toContain('a redirect is a failed attempt, never followed');
  });

  it(`sends one request at a time, at most ${gradeBounds.requestsPerSecond} a second`, async () => {
    const receiver = await server(() => ({ status: 200 }));
    const started = performance.now();
    await gradeReceiver({ receiverUrl: receiver.url, secret: receiverSecret, only: ['events', 'repeat-accepted'] }, { contract });
    const { requests } = receiver;
    expect(requests.length).toBeGreaterThan(5);
    // What a loaded machine cannot make shorter: the last request arrives no sooner than the pace allows after the
    // run began (arrivals may bunch as the receiver catches up, so the gaps between them prove nothing).
    const interval = 1000 / gradeBounds.requestsPerSecond;
    expect(requests.at(-1)!.at - started).toBeGreaterThanOrEqual((requests.length - 1) * interval * 0.99);
  });

  it('never sends more than the battery counted', async () => {
    const receiver = await server(() => ({ status: 200 }));
    const wire = openWire({ receiver: new URL(receiver.url), limits: { maxRequests: 1, requestsPerSecond: 1000, timeoutMs: 1000, answerBytesRead: 100, timeoutsBeforeStopping: 2 } });
    await wire.deliver({ headers: {}, body: '{}' });
    await expect(wire.deliver({ headers: {}, body: '{}' })).rejects.toThrow('the battery tried to send more than the 1 requests it counted');
    expect(receiver.requests).toHaveLength(1);
  });

  it('reads an answer up to its bound, however much more the receiver sends', async () => {
    const endless = await server(() => ({
      status: 200,
      body: async function* () {
        for (;;) yield 'x'.repeat(16_384);
      },
    }));
    const report = await gradeReceiver({ receiverUrl: endless.url, secret: receiverSecret, only: ['event-company.formation.submitted'] }, { contract });
    const response = report.cases[0]?.exchanges[0]?.response;
    expect(response?.truncated).toBe(true);
    expect(response?.body).toHaveLength(gradeBounds.answerBytesRead);
    expect(report.cases[0]?.outcome).toBe('passed');
  });
});
