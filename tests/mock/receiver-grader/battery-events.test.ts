/**
 * What the battery sends as a valid delivery is one: each event type's example from the contract, under ids of its
 * own (consistent within a set, new at each), its body and headers kept by the contract's webhook check, signed so
 * that the standardwebhooks package verifies it with the receiver's secret. Its made-up additions are not in the
 * contract.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContract } from '../../../contract-model/document.ts';
import { schemaCompilerOf } from '../../../contract-model/schema-compiler.ts';
import { compileWebhookCheck } from '../../../contract-model/webhook-check.ts';
import { contractExampleEvents, withFreshIds } from '../../../mock/receiver-grader/battery-events.ts';
import { gradeReceiver } from '../../../mock/receiver-grader/grade.ts';
import type { ReceiverGrade } from '../../../mock/receiver-grader/report-types.ts';
import { receiverSecret, startServer } from './support/receivers.ts';

const contract = await loadContract();
const check = compileWebhookCheck(contract, schemaCompilerOf(contract));
let report: ReceiverGrade;
let close: () => Promise<void>;

beforeAll(async () => {
  const receiver = await startServer(() => ({ status: 200 }));
  close = receiver.close;
  report = await gradeReceiver({ receiverUrl: receiver.url, secret: receiverSecret, only: ['events', 'additions', 'rotation'] }, { contract });
});
afterAll(() => close?.());

const sentOf = (id: string) => report.cases.find((graded) => graded.id === id)!.exchanges.map((exchange) => exchange.request);

describe('the deliveries the battery sends as valid', () => {
  it('keep the contract, body and headers, for every event type', () => {
    const events = report.cases.filter((graded) => graded.group === 'events');
    expect(events).toHaveLength(Object.keys(contract.webhooks ?? {}).length);
    for (const graded of events) {
      const [request] = sentOf(graded.id);
      expect(check.problems(JSON.parse(request!.body!), request!.headers), graded.id).toEqual([]);
    }
  });

  it('verify with the standardwebhooks package, during a rotation too', () => {
    for (const id of ['event-document.ready', 'rotation-yours-first', 'rotation-yours-second']) {
      const [request] = sentOf(id);
      expect(() => new Webhook(receiverSecret).verify(request!.body!, request!.headers), id).not.toThrow();
    }
    expect(sentOf('rotation-yours-first')[0]!.headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
  });

  it('are the examples of the contract, with a type or a property it does not define where the case says so', () => {
    const [first, firstExample] = [...contractExampleEvents(contract)][0]!;
    const sent = JSON.parse(sentOf(`event-${first}`)[0]!.body!);
    expect(sent.data).toEqual(expect.objectContaining({ status: (firstExample.data as { status?: string }).status }));
    const added = JSON.parse(sentOf('addition-event-type')[0]!.body!);
    expect(check.knows(added.type)).toBe(false);
    expect(check.problems(added, {})).toEqual([expect.stringContaining("is not one of the contract's webhooks")]);
    const withProperty = JSON.parse(sentOf('addition-property')[0]!.body!);
    expect([withProperty.addedLater, withProperty.data.addedLater]).toEqual([expect.any(String), expect.any(String)]);
  });
});

describe('the ids of the events', () => {
  it('are new ones, the same new one wherever the examples share one, and others at each set', () => {
    const examples = contractExampleEvents(contract);
    const [one, two] = [withFreshIds(examples, new Date()), withFreshIds(examples, new Date())];
    const company = (events: typeof one, type: string) => (events.get(type as never)!.data as { serviceCompanyId?: string }).serviceCompanyId;
    const exampleCompany = company(examples, 'company.formation.submitted');
    expect(company(one, 'company.formation.submitted')).not.toBe(exampleCompany);
    expect(company(one, 'company.formation.completed')).toBe(company(one, 'company.formation.submitted'));
    expect(company(one, 'document.ready')).toBe(company(one, 'company.formation.submitted'));
    expect(company(two, 'company.formation.submitted')).not.toBe(company(one, 'company.formation.submitted'));
    // The event a disabled endpoint failed on is, in the examples, the submitted one: so it stays.
    expect((one.get('webhook_endpoint.disabled')!.data as { failedEventId: string }).failedEventId).toBe(one.get('company.formation.submitted')!.id);
    expect(new Set([...one.values()].map((event) => event.id)).size).toBe(one.size);
  });
});
