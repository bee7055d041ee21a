/**
 * The small pure pieces the webhook pipeline is built from, with no formation or store: ids shaped as the
 * contract's and the `webhook_endpoint.disabled` event.
 */
import { describe, expect, it } from 'vitest';
import { newId } from '../../../mock/ids.ts';
import { buildEndpointDisabledEvent, toTimestamp } from '../../../mock/webhooks/event-payloads.ts';
import { contractValidator } from './support/fixtures.ts';

const newEventId = () => newId('evt');

describe('newId', () => {
  it.each([
    ['cus', 'CustomerId'],
    ['com', 'CompanyId'],
    ['doc', 'DocumentId'],
    ['evt', 'EventId'],
  ] as const)('makes %s ids shaped as the contract\'s %s, that do not repeat', async (prefix, schema) => {
    const validate = await contractValidator(schema);
    const ids = Array.from({ length: 2_000 }, () => newId(prefix));

    expect(ids.every((id) => validate(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('buildEndpointDisabledEvent', () => {
  it('builds a WebhookEndpointDisabledEvent of the contract', async () => {
    const validate = await contractValidator('WebhookEndpointDisabledEvent');
    const event = buildEndpointDisabledEvent(
      {
        endpointUrl: 'https://partner.example.com/webhooks/formation',
        disabledAt: new Date('2026-11-22T10:15:30.123Z'),
        failedEventId: newEventId(),
      },
      new Date('2026-11-23T08:00:00Z'),
    );

    expect(validate(event), JSON.stringify(validate.errors)).toBe(true);
    expect(event).toMatchObject({
      type: 'webhook_endpoint.disabled',
      timestamp: '2026-11-23T08:00:00Z',
      data: { disabledAt: '2026-11-22T10:15:30Z' },
    });
    expect(toTimestamp(new Date(0))).toBe('1970-01-01T00:00:00Z');
  });
});
