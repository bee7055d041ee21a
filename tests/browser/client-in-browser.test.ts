/**
 * The client in a real browser, as a frontend team prototypes against the mock: a page served from another origin
 * loads the bundled client (esbuild, for the browser), creates a customer and a company through CORS, retries a
 * create with the same Idempotency-Key and reads `Idempotent-Replayed`, and shows a field error from a bad request.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestMock, type TestMock } from '../mock/support/mock-harness.ts';
import { launchChromium } from './chromium.ts';

let browser: Browser;
let mock: TestMock;
let site: Server;
let siteUrl: string;

const page = (mockUrl: string) => `<!doctype html><meta charset="utf-8"><title>Prototype</title><pre id="out"></pre>
<script type="module">
  import { createPartnerClient, PartnerApiError } from './client.js';
  const api = createPartnerClient({ baseUrl: ${JSON.stringify(mockUrl)}, apiKey: 'dk_test_${'B'.repeat(24)}' });
  const result = {};
  try {
    const body = { email: 'browser@example.com', firstName: 'Ada', lastName: 'Lovelace', countryOfResidence: 'GBR' };
    const first = await api.createCustomer(body, { idempotencyKey: 'browser-create-1' });
    const retry = await api.createCustomer(body, { idempotencyKey: 'browser-create-1' });
    result.customerId = first.payload.serviceCustomerId;
    result.replayed = [first.meta.idempotentReplayed, retry.meta.idempotentReplayed];
    const company = await api.createCompany({
      serviceCustomerId: first.payload.serviceCustomerId, entityType: 'LLC', state: 'DE', naicsCode: '541511',
      description: 'Software consulting.', nameOptions: ['Browser Engines LLC'],
      responsibleParty: { firstName: 'Ada', lastName: 'Lovelace', email: 'browser@example.com' },
      mailingAddress: { line1: '1 Main St', city: 'Wilmington', postalCode: '19801', country: 'USA', region: 'DE' },
      businessAddress: { line1: '1 Main St', city: 'Wilmington', postalCode: '19801', country: 'USA', region: 'DE' },
      members: [{ firstName: 'Ada', lastName: 'Lovelace', email: 'browser@example.com', ownershipPercent: 100 }],
    });
    result.companyStatus = company.payload.status;
    try {
      await api.createCustomer({ ...body, email: 'not an email' });
    } catch (error) {
      result.fieldError = error instanceof PartnerApiError ? error.details?.[0] : String(error);
    }
  } catch (error) {
    result.failure = String(error);
  }
  document.getElementById('out').textContent = JSON.stringify(result);
  window.result = result;
</script>`;

beforeAll(async () => {
  [browser, mock] = await Promise.all([launchChromium(), startTestMock()]);
  const bundled = await build({
    entryPoints: [fileURLToPath(new URL('../../client/index.ts', import.meta.url))],
    bundle: true, minify: true, format: 'esm', platform: 'browser', write: false,
  });
  const client = bundled.outputFiles[0]!.contents;
  const html = page(mock.url);
  site = createServer((request, response) => {
    if (request.url === '/client.js') response.writeHead(200, { 'content-type': 'text/javascript' }).end(client);
    else response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  // localhost, not 127.0.0.1: another origin than the mock's.
  siteUrl = `http://localhost:${(site.address() as AddressInfo).port}/`;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await mock?.close();
  await new Promise((resolve) => site?.close(resolve));
});

it('creates a customer and a company from another origin, reads a replay, and shows a field error', async () => {
  const tab = await browser.newPage();
  const errors: string[] = [];
  tab.on('pageerror', (error) => errors.push(String(error)));
  await tab.goto(siteUrl);
  await tab.waitForFunction('window.result !== undefined', undefined, { timeout: 20_000 });
  const result = (await tab.evaluate('window.result')) as Record<string, unknown>;
  expect(errors).toEqual([]);
  expect(result.failure).toBeUndefined();
  expect(result.customerId).toMatch(/^cus_/);
  expect(result.replayed).toEqual([false, true]);
  expect(result.companyStatus).toBe('PENDING');
  expect(result.fieldError).toMatchObject({ in: 'body', field: '/email', code: 'E_FORMAT' });
  await tab.close();
});
