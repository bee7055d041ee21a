/**
 * A small contract made up for the contract model's tests: every case the model must read right (shared and
 * overridden parameters, `$ref`s at each level, a binary body, a response without one, ranges and `default`,
 * a webhook) in a few lines, so that a test says which one broke.
 */
import type { ContractDocument } from '../../contract-model/document.ts';

const json = (schema: object) => ({ 'application/json': { schema } });

export function sampleContract(): ContractDocument {
  return {
    openapi: '3.1.0',
    security: [{ apiKey: [] }],
    paths: {
      '/things': {
        get: {
          operationId: 'listThings',
          tags: ['Things'],
          responses: { '200': { $ref: '#/components/responses/Things' }, '4XX': { $ref: '#/components/responses/Problem' } },
        },
        post: {
          operationId: 'createThing',
          parameters: [{ $ref: '#/components/parameters/IdempotencyKey' }],
          requestBody: { $ref: '#/components/requestBodies/NewThing' },
          responses: { '200': { $ref: '#/components/responses/Thing' }, default: { $ref: '#/components/responses/Problem' } },
        },
      },
      '/things/{id}': {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        get: {
          operationId: 'getThing',
          security: [],
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^t_' } }],
          responses: { '200': { $ref: '#/components/responses/Thing' } },
        },
        delete: { operationId: 'deleteThing', responses: { '204': { description: 'Gone.' } } },
      },
      '/things/{id}/parts/{part}': { get: { operationId: 'getPart', responses: { '200': { $ref: '#/components/responses/Thing' } } } },
      '/things/special/parts/{part}': { get: { operationId: 'getSpecialPart', responses: { '200': { $ref: '#/components/responses/Thing' } } } },
      '/things/special': { get: { operationId: 'getSpecial', responses: { '200': { $ref: '#/components/responses/Thing' } } } },
      '/things/{id}/file': {
        get: {
          operationId: 'downloadThing',
          responses: {
            '200': {
              description: 'The file.',
              content: { 'application/pdf': { schema: { type: 'string', format: 'binary', maxLength: 8 } }, 'text/plain': {} },
            },
          },
        },
      },
    },
    webhooks: {
      'thing.created': {
        post: {
          operationId: 'thingCreated',
          parameters: [{ name: 'Webhook-Id', in: 'header', required: true, schema: { type: 'string' } }],
          requestBody: { content: json({ $ref: '#/components/schemas/Thing' }) },
          responses: { '204': { description: 'Received.' } },
        },
      },
    },
    components: {
      schemas: {
        Thing: {
          type: 'object',
          required: ['id'],
          additionalProperties: false,
          properties: { id: { type: 'string' }, parts: { type: 'array', items: { type: 'string' }, maxItems: 3 } },
        },
        Problem: { type: 'object', required: ['code'], properties: { code: { type: 'string' } } },
      },
      parameters: {
        IdempotencyKey: { name: 'Idempotency-Key', in: 'header', required: true, schema: { type: 'string' } },
      },
      requestBodies: { NewThing: { required: true, content: json({ $ref: '#/components/schemas/Thing' }) } },
      headers: {
        Remaining: { required: true, schema: { type: 'integer', minimum: 0 } },
        Replayed: { schema: { type: 'string', enum: ['true', 'false'] } },
      },
      responses: {
        Thing: {
          description: 'A thing.',
          headers: { 'X-Remaining': { $ref: '#/components/headers/Remaining' }, 'Idempotent-Replayed': { $ref: '#/components/headers/Replayed' } },
          content: json({ $ref: '#/components/schemas/Thing' }),
        },
        Things: { description: 'Things.', content: json({ type: 'array', items: { $ref: '#/components/schemas/Thing' } }) },
        Problem: { description: 'A problem.', content: json({ $ref: '#/components/schemas/Problem' }) },
      },
    },
  };
}
