import { describe, expect, it } from 'vitest';
import { listOperations, listWebhooks, type ContractOperation } from '../../contract-model/operations.ts';
import { sampleContract } from './fixtures.ts';

const contract = sampleContract();
const operations = listOperations(contract);
const operation = (operationId: string) => operations.find((candidate) => candidate.operationId === operationId) as ContractOperation;

describe('listOperations', () => {
  it('lists every operation of every path, with its method in upper case and its path template', () => {
    expect(operations.map(({ operationId, method, pathTemplate }) => `${operationId} ${method} ${pathTemplate}`)).toEqual([
      'listThings GET /things',
      'createThing POST /things',
      'getThing GET /things/{id}',
      'deleteThing DELETE /things/{id}',
      'getPart GET /things/{id}/parts/{part}',
      'getSpecialPart GET /things/special/parts/{part}',
      'getSpecial GET /things/special',
      'downloadThing GET /things/{id}/file',
    ]);
  });

  it("merges the path's parameters with the operation's, the operation's winning", () => {
    expect(operation('deleteThing').parameters).toEqual([{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }]);
    expect(operation('getThing').parameters).toEqual([{ name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^t_' } }]);
  });

  it('tells a create by its required Idempotency-Key, and an open operation by its empty security', () => {
    expect(operations.filter((op) => op.idempotent).map((op) => op.operationId)).toEqual(['createThing']);
    expect(operations.filter((op) => !op.requiresApiKey).map((op) => op.operationId)).toEqual(['getThing']);
  });

  it('resolves the request body and every response through their $refs', () => {
    expect(operation('createThing').requestBody).toEqual({
      required: true,
      content: new Map([['application/json', { $ref: '#/components/schemas/Thing' }]]),
    });
    const ok = operation('getThing').responses.get('200');
    expect(ok?.headers).toEqual([
      { name: 'x-remaining', required: true, schema: { type: 'integer', minimum: 0 } },
      { name: 'idempotent-replayed', required: false, schema: { type: 'string', enum: ['true', 'false'] } },
    ]);
    expect([...(ok?.content.keys() ?? [])]).toEqual(['application/json']);
    expect([...operation('createThing').responses.keys()]).toEqual(['200', 'default']);
  });

  it('keeps every media type in order, with no schema where none is declared, and no content where there is no body', () => {
    const file = operation('downloadThing').responses.get('200');
    expect([...(file?.content ?? [])]).toEqual([
      ['application/pdf', { type: 'string', format: 'binary', maxLength: 8 }],
      ['text/plain', undefined],
    ]);
    expect(operation('deleteThing').responses.get('204')?.content.size).toBe(0);
  });
});

describe('listWebhooks', () => {
  it('lists each webhook by its event type, read like an operation', () => {
    const webhooks = listWebhooks(contract);
    expect([...webhooks.keys()]).toEqual(['thing.created']);
    const created = webhooks.get('thing.created');
    expect(created).toMatchObject({ operationId: 'thingCreated', method: 'POST', pathTemplate: 'thing.created' });
    expect(created?.parameters).toEqual([{ name: 'Webhook-Id', in: 'header', required: true, schema: { type: 'string' } }]);
    expect(created?.requestBody?.content.get('application/json')).toEqual({ $ref: '#/components/schemas/Thing' });
  });

  it('is empty for a contract without webhooks', () => {
    expect(listWebhooks({ ...contract, webhooks: undefined }).size).toBe(0);
  });
});
