/** The facts the contract states as extensions: read from the bundle, the same as generated, and as its prose says. */
import { describe, expect, it } from 'vitest';
import { readContractFacts } from '../../contract-model/contract-facts.ts';
import { loadContractSync } from '../../contract-model/document.ts';
import { generatedPath } from '../../contract-model/generated-files.ts';
import { contractFacts } from '../../generated/contract-facts.ts';

const contract = loadContractSync();
const adminContract = loadContractSync(generatedPath('mock-admin', 'openapi.json'));
const schemas = (contract.components as { schemas: Record<string, { description?: string; properties?: Record<string, { description?: string }> }> }).schemas;

const prose = (text: string | undefined) => (text ?? '').replace(/\s+/g, ' ');

describe('the contract facts', () => {
  const facts = readContractFacts(contract, adminContract);

  it('are what generated/contract-facts.ts holds', () => {
    expect(contractFacts).toEqual(facts);
  });

  it('agree with the prose that states them to readers', () => {
    for (const suffix of [...facts.entitySuffixes.LLC, ...facts.entitySuffixes.CCorp]) expect(prose(schemas.CompanyName?.description)).toContain(`\`${suffix}\``);
    const officers = prose(schemas.CCorpFormationRequest?.properties?.executiveMembers?.description);
    for (const role of facts.officerRoles.required) expect(officers).toContain(`\`${role}\``);
    expect(new RegExp(facts.apiKey.format).test(`${facts.apiKey.prefixes.sandbox}${'a'.repeat(24)}`)).toBe(true);
    expect(new RegExp(facts.apiKey.format).test(`${facts.apiKey.prefixes.production}${'a'.repeat(23)}`)).toBe(false);
    // The API's contract says in words what the admin contract's WebhookSecret states as a pattern.
    expect(JSON.stringify(contract)).toContain('signing secret (`whsec_…`');
    expect(new RegExp(facts.webhookSecret.format).test('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')).toBe(true);
  });

  it('state in x-service-limits what the description says in words', () => {
    const description = prose((contract.info as { description?: string } | undefined)?.description);
    const { limits } = facts;
    const words = (seconds: number) => {
      const [amount, unit] = seconds % 3600 === 0 ? [seconds / 3600, 'hour'] : seconds % 60 === 0 ? [seconds / 60, 'minute'] : [seconds, 'second'];
      return `${amount} ${unit}${amount === 1 ? '' : 's'}`;
    };
    expect(description).toContain(`a body over **${limits.requestBodyMaxBytes / 1024 ** 2} MiB**`);
    expect(description).toContain(`| Request line and headers | ${limits.requestHeadersMaxBytes / 1024} KiB together |`);
    expect(description).toContain(`kept for **${words(limits.idempotencyKeyRetentionSeconds)}**`);
    expect(description).toContain(`| Document download URL | valid ${words(limits.downloadUrlValiditySeconds)} |`);
    const { sandbox, production } = limits.rateLimits;
    expect(description).toContain(`**${production.requestsPerSecond} requests per second** in production and **${sandbox.requestsPerSecond} per second** in the sandbox, with short bursts of twice that`);
    expect([sandbox.burst, production.burst]).toEqual([sandbox.requestsPerSecond * 2, production.requestsPerSecond * 2]);
    expect(description).toContain(`\`${sandbox.requestsPerSecond};w=1;burst=${sandbox.burst}\``);
    const webhooks = prose((contract.tags as { name: string; description?: string }[] | undefined)?.find((tag) => tag.name === 'Webhooks')?.description);
    expect(webhooks).toContain(`answer any \`2xx\` within **${words(limits.webhooks.attemptTimeoutSeconds)}**`);
    expect(webhooks).toContain(`reject a timestamp more than **${words(limits.webhooks.timestampToleranceSeconds)}**`);
    const schedule = limits.webhooks.retryScheduleSeconds.map(words);
    expect(webhooks).toContain(`**Retry schedule** after a failure: ${schedule.slice(0, -1).join(', ')} and ${schedule.at(-1)} (`);
    // The first attempt and one per retry, in words.
    const attempts = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'][schedule.length];
    expect(webhooks).toContain(`(${attempts} attempts over about ${Math.round(limits.webhooks.retryScheduleSeconds.reduce((sum, delay) => sum + delay, 0) / 3600)} hours)`);
    expect(description).toContain(`Ask for up to \`limit\` items (${facts.pageSize.min} to ${facts.pageSize.max}, default ${facts.pageSize.default})`);
    expect(description).toContain(`| \`Idempotency-Key\` | ${facts.idempotencyKeyLength.min} to ${facts.idempotencyKeyLength.max} visible ASCII characters, kept ${words(limits.idempotencyKeyRetentionSeconds)} |`);
  });

  it('state in x-webhook-receiver what the Webhooks section asks of a receiver in words', () => {
    const webhooks = prose((contract.tags as { name: string; description?: string }[] | undefined)?.find((tag) => tag.name === 'Webhooks')?.description);
    const { webhookReceiver } = facts;
    // Each obligation, and the words that make it one: a must is said as an order, a should as advice.
    const words: Record<keyof typeof webhookReceiver, string> = {
      acceptEveryEventType: 'answer any `2xx`',
      answerWithinAttemptTimeout: 'within **',
      refuseUnverified: 'with a `4xx`, never a `2xx`',
      acceptAnyMatchingSignature: 'accept the delivery when any one signature matches',
      acceptRepeats: '**At least once**',
      processRepeatsOnce: 'Deduplicate on `id`',
      acceptAdditions: 'ignore the properties you do not know, never refusing an event for them',
      keepLateCopiesFromMovingBack: 'never let an event move a company back',
    };
    for (const phrase of Object.values(words)) expect(webhooks).toContain(phrase);
    expect(Object.entries(webhookReceiver).filter(([, level]) => level === 'should').map(([name]) => name)).toEqual(['keepLateCopiesFromMovingBack']);
  });

  it('refuse an x-webhook-receiver that lacks an obligation, gives another level, or names one no tool reads', () => {
    const without = structuredClone(contract) as Record<string, unknown>;
    delete (without['x-webhook-receiver'] as Record<string, unknown>).refuseUnverified;
    expect(() => readContractFacts(without as typeof contract, adminContract)).toThrow('the contract gives no x-webhook-receiver refuseUnverified (must or should)');
    const may = structuredClone(contract) as Record<string, unknown>;
    (may['x-webhook-receiver'] as Record<string, unknown>).acceptRepeats = 'may';
    expect(() => readContractFacts(may as typeof contract, adminContract)).toThrow('the contract gives no x-webhook-receiver acceptRepeats (must or should)');
    const more = structuredClone(contract) as Record<string, unknown>;
    (more['x-webhook-receiver'] as Record<string, unknown>).answerInJson = 'must';
    expect(() => readContractFacts(more as typeof contract, adminContract)).toThrow('x-webhook-receiver names obligations no tool reads: answerInJson');
  });

  it('refuse a contract that lacks one, naming it', () => {
    const broken = structuredClone(contract);
    delete (broken.components as { schemas: Record<string, Record<string, unknown>> }).schemas.CompanyName!['x-entity-suffixes'];
    expect(() => readContractFacts(broken, adminContract)).toThrow('the contract gives no CompanyName x-entity-suffixes.LLC');
    const slower = structuredClone(contract) as Record<string, unknown>;
    delete (slower['x-service-limits'] as { rateLimits: Record<string, unknown> }).rateLimits.production;
    expect(() => readContractFacts(slower as typeof contract, adminContract)).toThrow('the contract gives no x-service-limits rateLimits.production.requestsPerSecond');
  });
});
