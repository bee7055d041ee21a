/**
 * What the mock says about versions. A deprecated operation answers with the `Deprecation` and `Sunset` headers its
 * contract declares, from the dates of its `x-deprecation`; others do not (the mock serves a copy of the contract
 * in which getCustomer is deprecated). The changelog the reference docs link to is served beside them.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseYaml } from '@redocly/openapi-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { deprecationHeaders } from '../../../contract-model/deprecation.ts';
import { contract, createCustomer } from '../support/http-fixtures.ts';
import { sandboxKey, startTestMock, type TestMock } from '../support/mock-harness.ts';

let mock: TestMock;
let folder: string;

const dating = { since: '2026-11-01', sunset: '2027-06-30', replacement: 'Use `listCustomers` filtered by email.' };

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'deprecated-contract-'));
  const deprecated = structuredClone(contract);
  const getCustomer = deprecated.paths['/v1/partner/customers/{customerId}'].get;
  Object.assign(getCustomer, { deprecated: true, 'x-deprecation': dating });
  const header = async (name: string) => parseYaml(await readFile(new URL(`../../../openapi/components/headers/${name}.yaml`, import.meta.url), 'utf8'));
  getCustomer.responses['200'].headers = { ...getCustomer.responses['200'].headers, Deprecation: await header('Deprecation'), Sunset: await header('Sunset') };
  const contractPath = join(folder, 'openapi.json');
  await writeFile(contractPath, JSON.stringify(deprecated));
  mock = await startTestMock({ contractPath });
});

afterAll(async () => {
  await mock?.close();
  await rm(folder, { recursive: true, force: true });
});

it('turns the dates into RFC 9745 and RFC 8594 header values', () => {
  expect(deprecationHeaders(dating)).toEqual({ deprecation: '@1793491200', sunset: 'Wed, 30 Jun 2027 00:00:00 GMT' });
});

it('answers a deprecated operation with Deprecation and Sunset, valid against the headers it declares', async () => {
  const customer = await createCustomer(mock);
  const answer = await mock.call(`/v1/partner/customers/${customer.serviceCustomerId}`, { key: sandboxKey });
  expect(answer.status).toBe(200);
  expect(answer.headers.get('deprecation')).toBe('@1793491200');
  expect(answer.headers.get('sunset')).toBe('Wed, 30 Jun 2027 00:00:00 GMT');
  expect(mock.logs.filter((line) => line.msg === 'response breaks the contract')).toEqual([]);
});

it('sends neither header for an operation that is not deprecated', async () => {
  const answer = await mock.call('/v1/partner/customers', { key: sandboxKey });
  expect(answer.status).toBe(200);
  expect(answer.headers.get('deprecation')).toBeNull();
  expect(answer.headers.get('sunset')).toBeNull();
});

it('serves the changelog the reference docs link to', async () => {
  const answer = await fetch(`${mock.url}/CHANGELOG.md`);
  expect(answer.status).toBe(200);
  expect(answer.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
  expect(await answer.text()).toMatch(/^# Changelog\n[\s\S]*## 1\.0\.0 — /);
});
