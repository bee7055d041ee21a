import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

const bundle = JSON.parse(await readFile(new URL('../../generated/openapi.json', import.meta.url), 'utf8'));
const methods = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;

const operationIds: string[] = Object.values(bundle.paths as Record<string, Record<string, { operationId?: string }>>)
  .flatMap((item) => methods.map((method) => item[method]?.operationId))
  .filter((id): id is string => typeof id === 'string');

describe('the bundled contract', () => {
  it('is OpenAPI 3.1', () => {
    expect(bundle.openapi).toMatch(/^3\.1\./);
  });

  it.each([
    'createCustomer', 'getCustomer', 'listCustomers',
    'createCompany', 'getCompany', 'listCompanies',
    'listCompanyDocuments', 'getCompanyDocument', 'downloadCompanyDocument',
    'listCountries', 'listStates', 'listNaicsCodes', 'listFilingFees',
    'simulateCompanyFormation',
  ])('has the operation %s', (operationId) => {
    expect(operationIds).toContain(operationId);
  });

  it('names each operation once', () => {
    expect(new Set(operationIds).size).toBe(operationIds.length);
  });

  it.each([
    'company.formation.submitted', 'company.formation.completed', 'company.formation.failed',
    'company.ein.issued', 'document.ready', 'webhook_endpoint.disabled',
  ])('has the webhook %s with the three Standard Webhooks headers required', (event) => {
    const operation = bundle.webhooks?.[event]?.post;
    expect(operation).toBeDefined();
    const headers = (operation.parameters as { $ref?: string; in?: string; name?: string; required?: boolean }[])
      .map((parameter) => (parameter.$ref ? resolvePointer(parameter.$ref) : parameter))
      .filter((parameter) => parameter.in === 'header' && parameter.required)
      .map((parameter) => parameter.name);
    expect(headers).toEqual(expect.arrayContaining(['webhook-id', 'webhook-timestamp', 'webhook-signature']));
  });

  // Tools that send requests from the description (Dredd among them) read a parameter's own `example`, and stop at
  // a required one that has none; a schema's `examples` are not enough for them.
  it('gives every parameter of every operation and webhook an example of its own', () => {
    const parameters = [...Object.values(bundle.paths), ...Object.values(bundle.webhooks)].flatMap((item) => {
      const pathItem = item as Record<string, { parameters?: { $ref?: string }[] } | undefined> & { parameters?: { $ref?: string }[] };
      return [pathItem.parameters ?? [], ...methods.map((method) => pathItem[method]?.parameters ?? [])].flat();
    });
    expect(parameters.length).toBeGreaterThan(0);
    const withoutExample = parameters
      .map((parameter) => (parameter.$ref ? resolvePointer(parameter.$ref) : parameter) as { in?: string; name?: string; example?: unknown })
      .filter((parameter) => parameter.example === undefined)
      .map((parameter) => `${parameter.in} ${parameter.name}`);
    expect(withoutExample).toEqual([]);
  });

  it('has a sandbox and a production server', () => {
    const descriptions = (bundle.servers as { description: string }[]).map((server) => server.description);
    expect(descriptions.some((text) => /sandbox/i.test(text) && text.includes('dk_test_'))).toBe(true);
    expect(descriptions.some((text) => /production/i.test(text) && text.includes('dk_live_'))).toBe(true);
  });
});

function resolvePointer(ref: string): { in?: string; name?: string; required?: boolean } {
  return ref
    .replace(/^#\//, '')
    .split('/')
    .reduce((node, key) => node[key.replace(/~1/g, '/').replace(/~0/g, '~')], bundle);
}
