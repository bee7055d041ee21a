import { describe, expect, it } from 'vitest';
import { loadContractSync } from '../../contract-model/document.ts';
import { listOperations, type ContractOperation } from '../../contract-model/operations.ts';
import { compileResponseValidator, type CheckedResponse } from '../../contract-model/response-validator.ts';
import { schemaCompilerOf } from '../../contract-model/schema-compiler.ts';
import { sampleContract } from './fixtures.ts';

const contract = sampleContract();
const compiler = schemaCompilerOf(contract);
const validatorOf = (operationId: string) =>
  compileResponseValidator(contract, listOperations(contract).find((op) => op.operationId === operationId) as ContractOperation, compiler);

const thing = { id: 't_1' };
const jsonResponse = (status: number, json: unknown, headers: Record<string, string> = {}): CheckedResponse => ({
  status,
  headers: { 'content-type': 'application/json; charset=utf-8', 'x-remaining': '3', ...headers },
  body: JSON.stringify(json),
  json,
});

describe('compileResponseValidator', () => {
  it('accepts a response as documented', () => {
    expect(validatorOf('getThing')(jsonResponse(200, thing, { 'idempotent-replayed': 'false' }))).toEqual([]);
  });

  it('refuses a status the operation does not document, naming the operation and what it documents', () => {
    expect(validatorOf('getThing')(jsonResponse(201, thing))).toEqual(['status 201 is not documented for getThing (documented: 200)']);
  });

  it('falls back on a range, then on default', () => {
    expect(validatorOf('listThings')(jsonResponse(404, { code: 'E_NOT_FOUND' }))).toEqual([]);
    expect(validatorOf('listThings')(jsonResponse(404, {}))).toEqual(["body: must have required property 'code'"]);
    expect(validatorOf('listThings')(jsonResponse(503, { code: 'E_DOWN' }))).toEqual(['status 503 is not documented for listThings (documented: 200, 4XX)']);
    expect(validatorOf('createThing')(jsonResponse(503, { code: 'E_DOWN' }))).toEqual([]);
  });

  it('wants the required headers, and every header valid, reading integers from their text', () => {
    const validate = validatorOf('getThing');
    expect(validate({ ...jsonResponse(200, thing), headers: { 'content-type': 'application/json' } })).toEqual(['required header x-remaining is missing']);
    expect(validate(jsonResponse(200, thing, { 'x-remaining': '-1' }))).toEqual(['header x-remaining "-1": must be >= 0']);
    expect(validate(jsonResponse(200, thing, { 'x-remaining': 'many' }))).toEqual(['header x-remaining "many": must be integer']);
    expect(validate(jsonResponse(200, thing, { 'idempotent-replayed': 'yes' }))).toEqual([
      'header idempotent-replayed "yes": must be equal to one of the allowed values',
    ]);
  });

  it('wants a media type the status documents', () => {
    expect(validatorOf('getThing')({ ...jsonResponse(200, thing), headers: { 'x-remaining': '3', 'content-type': 'text/csv' } })).toEqual([
      'content type text/csv is not documented for 200 (documented: application/json)',
    ]);
    expect(validatorOf('getThing')({ ...jsonResponse(200, thing), headers: { 'x-remaining': '3' } })).toEqual([
      'content type (none) is not documented for 200 (documented: application/json)',
    ]);
  });

  it("checks a JSON body against its schema, saying where it breaks and which property it refuses", () => {
    expect(validatorOf('getThing')(jsonResponse(200, { id: 't_1', colour: 'red' }))).toEqual([
      'body: must NOT have additional properties (colour)',
    ]);
    expect(validatorOf('listThings')(jsonResponse(200, [thing, { id: 7 }]))).toEqual(['body/1/id: must be string']);
  });

  it('says so when a JSON body is not JSON', () => {
    expect(validatorOf('getThing')({ ...jsonResponse(200, thing), json: undefined })).toEqual([
      'the body is declared application/json but is not JSON',
    ]);
  });

  it('checks a binary body by its size, and lets a media type without a schema through', () => {
    const file = (body: Uint8Array | string, contentType = 'application/pdf'): CheckedResponse => ({
      status: 200,
      headers: { 'content-type': contentType },
      body,
    });
    const validate = validatorOf('downloadThing');
    expect(validate(file(new Uint8Array(8)))).toEqual([]);
    expect(validate(file(new Uint8Array(9)))).toEqual(['body is 9 bytes, over the documented 8']);
    expect(validate(file('ééééé'))).toEqual(['body is 10 bytes, over the documented 8']);
    expect(validate(file(new Uint8Array(0)))).toEqual(['the body is empty']);
    expect(validate(file('anything at all', 'text/plain'))).toEqual([]);
  });

  it('refuses a body where the status documents none', () => {
    const validate = validatorOf('deleteThing');
    expect(validate({ status: 204, headers: {} })).toEqual([]);
    expect(validate({ status: 204, headers: {}, body: '{}', json: {} })).toEqual(['status 204 documents no body, but one was sent']);
  });
});

describe('a header the contract sends with some error codes only (x-sent-with-error-codes)', () => {
  const api = loadContractSync();
  const create = compileResponseValidator(api, listOperations(api).find((op) => op.operationId === 'createCustomer') as ContractOperation, schemaCompilerOf(api));
  const conflict = (code: string, headers: Record<string, string> = {}) =>
    jsonResponse(409, { payload: null, error: { code, message: 'A request with this key…', requestId: 'req_1' } }, {
      'x-request-id': 'req_1', 'ratelimit-limit': '100', 'ratelimit-remaining': '99', 'ratelimit-policy': '100;w=1;burst=100', 'ratelimit-reset': '1', ...headers,
    });

  it('is required on an answer with one of them, and only then', () => {
    expect(create(conflict('E_IDEMPOTENCY_KEY_IN_PROGRESS'))).toEqual(['header retry-after is missing, which the contract sends with E_IDEMPOTENCY_KEY_IN_PROGRESS']);
    expect(create(conflict('E_IDEMPOTENCY_KEY_IN_PROGRESS', { 'retry-after': '1' }))).toEqual([]);
    expect(create(conflict('E_IDEMPOTENCY_KEY_REUSED'))).toEqual([]);
  });
});
