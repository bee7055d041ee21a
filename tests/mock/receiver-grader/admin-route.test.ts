/**
 * The admin API's gradeWebhookReceiver: the battery against the receiver behind one of the partner's endpoints,
 * signed with the endpoint's newest secret, its report the admin contract's ReceiverGrade (the mock checks every
 * admin answer against it); another partner's endpoint is not found, bad input is a 400 at its field, and a mock
 * started with --webhook-allow sends nowhere it may not deliver.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookReceiver, verifyWith, type RunningReceiver } from '../../../examples/webhook-receiver/receiver.ts';
import { createEndpoint, otherSandboxKey, portal, sandboxKey, startPortalMock } from '../portal/support.ts';
import type { TestMock } from '../support/mock-harness.ts';

let mock: TestMock;
let receiver: RunningReceiver;
let endpointId: string;
/** The endpoint's secret, known once the mock made it: the receiver verifies with it from then on. */
let secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

beforeAll(async () => {
  [mock, receiver] = await Promise.all([
    startPortalMock({ webhookAllow: '127.0.0.0/8' }),
    startWebhookReceiver({ secret, host: '127.0.0.1', verify: (rawBody, headers) => verifyWith(secret)(rawBody, headers) }),
  ]);
  // The mock delivers to 127.0.0.1 only, as --webhook-allow says: the receiver is reached there, by its address.
  const created = await createEndpoint(mock, sandboxKey, { url: receiver.url.replace('localhost', '127.0.0.1') });
  [endpointId, secret] = [created.id, created.secret];
});
afterAll(async () => {
  await receiver?.close();
  await mock?.close();
});

const gradeAs = (key: string, body?: object) =>
  portal(mock, key).POST('/_mock/webhook-endpoints/{endpointId}/receiver-grade', { params: { path: { endpointId } }, ...(body ? { body: body as never } : {}) });

describe('gradeWebhookReceiver', () => {
  it("grades the endpoint's receiver with its secret, and answers with the report", async () => {
    const { response, data } = await gradeAs(sandboxKey, { probeUrl: receiver.probeUrl.replace('localhost', '127.0.0.1') });
    expect(response.status).toBe(200);
    const report = data!.payload;
    expect(report.verdict).toBe('passed');
    expect(report.totals).toEqual({ passed: report.cases.length - 1, failed: 0, warning: 1, skipped: 0 });
    expect(report.receiver).toBe(receiver.url.replace('localhost', '127.0.0.1'));
    // Nothing of it was an event of the mock's: the partner's events stay as they were.
    const events = await portal(mock, sandboxKey).GET('/_mock/events');
    expect(events.data?.payload.data).toEqual([]);
  });

  it("reads nothing of the mock's own admin routes through a probe naming one", async () => {
    const { data } = await gradeAs(sandboxKey, { only: ['repeats'], probeUrl: `${mock.url}/_mock/requests` });
    const probed = data!.payload.cases.find((graded) => graded.id === 'repeat-processed-once')!;
    expect(probed.outcome).toBe('failed');
    expect(JSON.stringify(probed)).toContain('E_CROSS_SITE_REQUEST');
    expect(JSON.stringify(probed)).not.toContain('createWebhookEndpoint');
  });

  it('runs the cases named, and refuses a case it lacks at its field, naming those it has', async () => {
    const only = await gradeAs(sandboxKey, { only: ['rotation'] });
    expect(only.data?.payload.cases.map((graded) => graded.id)).toEqual(['rotation-yours-first', 'rotation-yours-second']);
    const { response, error } = await gradeAs(sandboxKey, { only: ['rotation', 'signature-forged'] });
    expect(response.status).toBe(400);
    expect(error?.error.details).toEqual([{ in: 'body', field: '/only/1', code: 'E_NOT_ALLOWED_VALUE', message: expect.stringContaining('signature-forged is no case or group of the battery: give a group (events, additions, signatures, rotation, repeats, ordering, timing)') }]);
  });

  it('refuses a probe that is not http(s), or that the mock may not deliver to', async () => {
    const notHttp = await gradeAs(sandboxKey, { probeUrl: 'ftp://127.0.0.1/probe' });
    expect(notHttp.error?.error.details).toEqual([{ in: 'body', field: '/probeUrl', code: 'E_FORMAT', message: "The probe's URL: Must be an http(s) URL, not ftp." }]);
    const elsewhere = await gradeAs(sandboxKey, { probeUrl: 'http://10.1.2.3/probe' });
    expect(elsewhere.response.status).toBe(400);
    expect(elsewhere.error?.error.details?.[0]).toEqual(expect.objectContaining({ field: '/probeUrl', code: 'E_INVALID', message: expect.stringContaining('10.1.2.3 is not in --webhook-allow') }));
  });

  it("is another partner's endpoint not found, and needs a key", async () => {
    expect((await gradeAs(otherSandboxKey)).response.status).toBe(404);
    const anonymous = await fetch(`${mock.url}/_mock/webhook-endpoints/${endpointId}/receiver-grade`, { method: 'POST' });
    expect(anonymous.status).toBe(401);
  });
});
