/**
 * Facts the contract states that JSON Schema cannot enforce by itself, read from the bundle once so that nothing
 * types them again: the API key's format and prefixes (`x-key-format`, `x-key-prefixes` on the `ApiKey` security
 * scheme), the entity-name suffixes (`x-entity-suffixes` on `CompanyName`), the officer roles a CCorp needs and
 * those one officer at most may hold (`x-required-roles`, `x-single-holder-roles` on its `executiveMembers`), and
 * the bounds of an error's `details` and of a field pointer, and the formats of `x-request-id` and `Idempotency-Key`
 * (checked by steps that run before request validation, which must still answer by the contract's rule), the page
 * size, the longest error message, the largest document (`Document.sizeBytes`), and the service's limits
 * (`x-service-limits` at the root: body and header sizes, retention, rates, the webhook timeout and retry schedule),
 * and what it asks of a webhook receiver (`x-webhook-receiver` at the root: each obligation `must` or `should`);
 * and, from the mock's admin contract, the pattern of a webhook signing secret (`WebhookSecret`), which the API's
 * contract describes only in words: with the key's format, what tells a credential wherever it appears
 * (credentials.ts); and the bounds of a traffic document (`TrafficRecording`), which the mock writes and the review
 * reads. `npm run generate` writes them to
 * generated/contract-facts.ts, which the mock, the client and the contract suite import.
 */
import { receiverObligations, type ContractFacts, type ObligationLevel, type ReceiverObligation, type ServiceLimits } from './contract-facts-type.ts';
import type { ContractDocument, JsonObject } from './document.ts';

export type { ContractFacts } from './contract-facts-type.ts';

export function readContractFacts(document: ContractDocument, adminDocument: ContractDocument): ContractFacts {
  const components = document.components as Record<string, Record<string, JsonObject>>;
  const webhookSecret = at(adminDocument.components, ['schemas', 'WebhookSecret'], "the admin contract's WebhookSecret schema");
  const traffic = at(adminDocument.components, ['schemas', 'TrafficRecording'], "the admin contract's TrafficRecording schema");
  const exchanges = at(traffic, ['properties', 'exchanges'], 'TrafficRecording.exchanges');
  const apiKey = at(components, ['securitySchemes', 'ApiKey'], 'the ApiKey security scheme');
  const prefixes = apiKey['x-key-prefixes'] as JsonObject | undefined;
  const companyName = at(components, ['schemas', 'CompanyName'], 'the CompanyName schema');
  const suffixes = companyName['x-entity-suffixes'] as JsonObject | undefined;
  const members = at(components, ['schemas', 'CCorpFormationRequest', 'properties', 'executiveMembers'], 'CCorpFormationRequest.executiveMembers');
  const details = at(components, ['schemas', 'Error', 'properties', 'details'], 'Error.details');
  const field = at(components, ['schemas', 'FieldError', 'properties', 'field'], 'FieldError.field');
  const requestId = at(components, ['schemas', 'RequestId'], 'the RequestId schema');
  const idempotencyKey = at(components, ['parameters', 'IdempotencyKey', 'schema'], 'the Idempotency-Key parameter schema');
  const limit = at(components, ['parameters', 'Limit', 'schema'], 'the limit parameter schema');
  const message = at(components, ['schemas', 'Error', 'properties', 'message'], 'Error.message');
  const documentSize = at(components, ['schemas', 'Document', 'properties', 'sizeBytes'], 'Document.sizeBytes');
  return {
    apiKey: {
      format: text(apiKey['x-key-format'], 'ApiKey x-key-format'),
      prefixes: { sandbox: text(prefixes?.sandbox, 'ApiKey x-key-prefixes.sandbox'), production: text(prefixes?.production, 'ApiKey x-key-prefixes.production') },
    },
    webhookSecret: { format: text(webhookSecret.pattern, 'WebhookSecret pattern') },
    entitySuffixes: { LLC: texts(suffixes?.LLC, 'CompanyName x-entity-suffixes.LLC'), CCorp: texts(suffixes?.CCorp, 'CompanyName x-entity-suffixes.CCorp') },
    officerRoles: {
      required: texts(members['x-required-roles'], 'executiveMembers x-required-roles'),
      singleHolder: texts(members['x-single-holder-roles'], 'executiveMembers x-single-holder-roles'),
    },
    errorDetails: { maxItems: count(details.maxItems, 'Error.details maxItems'), maxFieldLength: count(field.maxLength, 'FieldError.field maxLength') },
    headerFormats: { requestId: text(requestId.pattern, 'RequestId pattern'), idempotencyKey: text(idempotencyKey.pattern, 'Idempotency-Key pattern') },
    idempotencyKeyLength: { min: count(idempotencyKey.minLength, 'Idempotency-Key minLength'), max: count(idempotencyKey.maxLength, 'Idempotency-Key maxLength') },
    pageSize: { default: count(limit.default, 'limit default'), min: count(limit.minimum, 'limit minimum'), max: count(limit.maximum, 'limit maximum') },
    errorMessageMaxLength: count(message.maxLength, 'Error.message maxLength'),
    documentMaxBytes: count(documentSize.maximum, 'Document.sizeBytes maximum'),
    limits: serviceLimits(at(document, ['x-service-limits'], 'x-service-limits')),
    traffic: { maxExchanges: count(exchanges.maxItems, 'TrafficRecording.exchanges maxItems'), maxBytes: count(traffic['x-max-bytes'], 'TrafficRecording x-max-bytes') },
    webhookReceiver: receiverObligationsOf(at(document, ['x-webhook-receiver'], 'x-webhook-receiver')),
  };
}

/** Every obligation the facts name, each `must` or `should`; one the contract does not know is refused too. */
function receiverObligationsOf(stated: JsonObject): Record<ReceiverObligation, ObligationLevel> {
  const unknown = Object.keys(stated).filter((name) => !(receiverObligations as readonly string[]).includes(name));
  if (unknown.length > 0) throw new Error(`x-webhook-receiver names obligations no tool reads: ${unknown.join(', ')} (contract-model/contract-facts-type.ts lists them)`);
  const levelOf = (name: ReceiverObligation): ObligationLevel => {
    const level = stated[name];
    if (level !== 'must' && level !== 'should') throw new Error(`the contract gives no x-webhook-receiver ${name} (must or should)`);
    return level;
  };
  return Object.fromEntries(receiverObligations.map((name) => [name, levelOf(name)])) as Record<ReceiverObligation, ObligationLevel>;
}

function serviceLimits(limits: JsonObject): ServiceLimits {
  const positive = (path: string[]): number => {
    const value = count(path.reduce<unknown>((node, key) => (node as JsonObject | undefined)?.[key], limits), `x-service-limits ${path.join('.')}`);
    if (value <= 0) throw new Error(`the contract gives no positive x-service-limits ${path.join('.')}`);
    return value;
  };
  const rate = (environment: string) => ({
    requestsPerSecond: positive(['rateLimits', environment, 'requestsPerSecond']),
    burst: positive(['rateLimits', environment, 'burst']),
  });
  const schedule = at(limits, ['webhooks'], 'x-service-limits webhooks').retryScheduleSeconds;
  if (!Array.isArray(schedule) || !schedule.every((delay) => Number.isInteger(delay) && (delay as number) > 0)) {
    throw new Error('the contract gives no x-service-limits webhooks.retryScheduleSeconds (whole seconds above 0)');
  }
  return {
    requestBodyMaxBytes: positive(['requestBodyMaxBytes']),
    requestHeadersMaxBytes: positive(['requestHeadersMaxBytes']),
    idempotencyKeyRetentionSeconds: positive(['idempotencyKeyRetentionSeconds']),
    downloadUrlValiditySeconds: positive(['downloadUrlValiditySeconds']),
    rateLimits: { sandbox: rate('sandbox'), production: rate('production') },
    webhooks: {
      attemptTimeoutSeconds: positive(['webhooks', 'attemptTimeoutSeconds']),
      retryScheduleSeconds: schedule as number[],
      timestampToleranceSeconds: positive(['webhooks', 'timestampToleranceSeconds']),
    },
  };
}

function at(root: unknown, path: string[], what: string): JsonObject {
  let node = root;
  for (const key of path) node = (node as JsonObject | undefined)?.[key];
  if (node === null || typeof node !== 'object') throw new Error(`the contract has no ${what}`);
  return node as JsonObject;
}

function text(value: unknown, what: string): string {
  if (typeof value !== 'string' || value === '') throw new Error(`the contract gives no ${what}`);
  return value;
}

function texts(value: unknown, what: string): string[] {
  if (!Array.isArray(value) || value.length === 0 || !value.every((item) => typeof item === 'string')) throw new Error(`the contract gives no ${what}`);
  return value as string[];
}

function count(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new Error(`the contract gives no ${what}`);
  return value;
}
