/**
 * Checks a webhook event against the contract's `webhooks`: its `type` must be one of them, its body must keep that
 * webhook's body schema, its headers the webhook's header parameters, and its `id` must be the `webhook-id` it came
 * under. Used by the contract suite on what a target delivers, and by the mock's relay on what a sandbox sends.
 */
import type { ContractDocument } from './document.ts';
import { compileHeadersCheck, type HeadersCheck } from './headers-check.ts';
import { listWebhooks } from './operations.ts';
import { describeSchemaErrors } from './schema-errors.ts';
import type { SchemaCheck, SchemaCompiler } from './schema-compiler.ts';

interface CompiledWebhook {
  body: SchemaCheck;
  headers: HeadersCheck;
}

export interface WebhookCheck {
  /** What is wrong with an event; empty when it keeps the contract. `headers` by lower-case name. */
  problems(body: unknown, headers: Readonly<Record<string, string | undefined>>): string[];
  /** Whether the contract has a webhook of this event type. */
  knows(type: string): boolean;
}

export function compileWebhookCheck(document: ContractDocument, compiler: SchemaCompiler): WebhookCheck {
  const webhooks = listWebhooks(document);
  const compiled = new Map<string, CompiledWebhook>();
  const checkOf = (eventType: string): CompiledWebhook | undefined => {
    const known = compiled.get(eventType);
    if (known) return known;
    const operation = webhooks.get(eventType);
    if (!operation) return undefined;
    const bodySchema = operation.requestBody?.content.get('application/json');
    // Every webhook of the contract documents a JSON body: one without a schema would go unchecked.
    if (!bodySchema) throw new Error(`the contract's webhook ${eventType} documents no application/json body schema`);
    const headers = operation.parameters
      .filter((parameter) => parameter.in === 'header')
      .map((parameter) => ({ name: parameter.name.toLowerCase(), required: parameter.required, schema: parameter.schema }));
    const check = { body: compiler.compile(bodySchema), headers: compileHeadersCheck(document, headers, compiler) };
    compiled.set(eventType, check);
    return check;
  };
  const types = [...webhooks.keys()];
  const problems: WebhookCheck['problems'] = (body, headers) => {
    const type = (body as { type?: unknown } | null)?.type;
    const check = typeof type === 'string' ? checkOf(type) : undefined;
    if (!check) return [`body/type: ${typeof type === 'string' ? `${JSON.stringify(type.slice(0, 100))} is not` : 'must be'} one of the contract's webhooks (${types.join(', ')})`];
    const found: string[] = [];
    if (!check.body(body)) found.push(...describeSchemaErrors('body', check.body.errors, check.body.more));
    check.headers(headers, found);
    const id = (body as { id?: unknown }).id;
    const webhookId = headers['webhook-id'];
    if (webhookId !== undefined && id !== webhookId) found.push(`body/id: must equal the webhook-id header (${JSON.stringify(webhookId.slice(0, 100))})`);
    return found;
  };
  return { problems, knows: (type) => webhooks.has(type) };
}
