/**
 * The console (`/_mock/console`) as a team uses it, in real Chromium: requests appear live and open whole; a
 * formation completes from the console, and its webhooks show with their payloads and attempts; an event is
 * redelivered; a document's PDF opens; a forced 409 armed from the console answers the next create and shows as
 * forced; Try sends a request made from the contract. Every view passes axe with no serious or critical violation,
 * loads nothing from outside the mock, logs no error, and is kept as a screenshot (CONSOLE_SCREENSHOTS, default
 * .build/test-artifacts/console/).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompany, createCustomer, customerBody, eventually, llcBody, newIdempotencyKey } from '../mock/support/http-fixtures.ts';
import { sandboxKey, startTestMock, type TestMock } from '../mock/support/mock-harness.ts';
import { createEndpoint } from '../mock/portal/support.ts';
import { startReceiver, type Receiver } from '../mock/webhooks/support/receiver.ts';
import { launchChromium } from './chromium.ts';

const screenshots = process.env.CONSOLE_SCREENSHOTS ?? join('.build', 'test-artifacts', 'console');
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let browser: Browser;
let mock: TestMock;
let receiver: Receiver;
let context: BrowserContext;
let page: Page;
/** What went wrong in the page: a request outside the mock, a 5xx, a failed load, a console error. */
const problems: string[] = [];

beforeAll(async () => {
  // The console is built with the mock's bundle, as `npm start` does.
  execFileSync(process.execPath, ['scripts/build-mock.mjs', '--quiet'], { stdio: 'inherit' });
  mkdirSync(screenshots, { recursive: true });
  [browser, mock, receiver] = await Promise.all([launchChromium(), startTestMock({ formationTimeline: 'manual', webhookRetryDelaysMs: [10, 10] }), startReceiver('whsec_placeholder', () => ({ status: 200 }))]);
  const endpoint = await createEndpoint(mock, sandboxKey, { url: receiver.url });
  receiver.secrets = [endpoint.secret];
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: mock.url });
  page = await context.newPage();
  page.on('response', (response) => {
    if (!response.url().startsWith(mock.url) && !/^(data|blob):/.test(response.url())) problems.push(`loaded from outside the mock: ${response.url()}`);
    else if (response.status() >= 500) problems.push(`${response.status()} for ${response.url()}`);
  });
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  await page.goto(`${mock.url}/_mock/console`);
  await page.getByLabel('Partner API key').fill(sandboxKey);
  await page.getByRole('button', { name: 'Use' }).click();
  await page.getByRole('status').filter({ hasText: 'Acting for dk_test_…aaaa' }).waitFor();
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await receiver?.close();
  await mock?.close();
});

async function show(view: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: view, exact: true }).click();
}

/** axe-core in the page (evaluated through the debugger, so that the page's own policy does not refuse it). */
async function seriousViolations(): Promise<string[]> {
  await page.evaluate(axeSource);
  const result = (await page.evaluate("axe.run(document, { resultTypes: ['violations'] })")) as { violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[] };
  return result.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical').map((violation) => `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`);
}

async function checkView(name: string): Promise<void> {
  await page.screenshot({ path: join(screenshots, `${name}.png`) });
  expect(await seriousViolations(), `axe on ${name}`).toEqual([]);
  expect(problems).toEqual([]);
}

describe('the console', () => {
  let companyId: string;
  let companyName: string;

  it('shows requests live as they are answered, and opens one with what was sent and answered', async () => {
    await show('Requests');
    await expect.poll(() => page.getByText('Live', { exact: true }).count()).toBe(1);
    const customer = await createCustomer(mock);
    const company = await createCompany(mock, llcBody(customer.serviceCustomerId));
    companyId = company.serviceCompanyId;
    companyName = company.name;
    const rows = page.locator('.row.entry');
    await expect.poll(() => rows.allTextContents()).toEqual([expect.stringContaining('createCompany'), expect.stringContaining('createCustomer')]);
    await rows.filter({ hasText: 'createCustomer' }).click();
    const detail = page.getByRole('region', { name: 'Request', exact: true });
    await expect.poll(() => detail.getByRole('region', { name: 'Request' }).textContent()).toContain(customer.email);
    expect(await detail.getByRole('region', { name: 'Answer' }).textContent()).toContain(customer.serviceCustomerId);
    await page.getByRole('button', { name: 'Copy as curl' }).click();
    const curl = String(await page.evaluate('navigator.clipboard.readText()'));
    expect(curl).toMatch(new RegExp(`^curl -i -X POST '${mock.url}/v1/partner/customers' `));
    expect(curl).toContain(`'authorization: ${sandboxKey}'`);
    expect(curl).toContain(`--data-raw '{`);
    await checkView('requests');
  });

  it('completes a formation, and shows its timeline of webhooks with their payloads, and its documents as PDFs', async () => {
    await show('Customers and companies');
    await page.getByRole('button', { name: companyName }).click();
    await page.getByRole('button', { name: 'Complete' }).click();
    await expect.poll(() => page.locator('.facts').textContent()).toContain('COMPLETED');
    const timeline = page.locator('.timeline');
    await expect.poll(() => timeline.textContent()).toContain('company.formation.completed');
    await timeline.locator('summary', { hasText: 'company.ein.issued' }).click();
    expect(await timeline.getByLabel('Payload of company.ein.issued').textContent()).toContain(companyId);
    const pdf = page.waitForResponse((response) => response.url().includes('/content?') && response.headers()['content-type'] === 'application/pdf');
    await page.getByRole('button', { name: 'Show PDF' }).first().click();
    expect((await pdf).status()).toBe(200);
    await checkView('customers-and-companies');
  });

  it('shows each webhook event with its payload and attempts, and redelivers one', async () => {
    await eventually(() => receiver.accepted().length >= 4 || undefined, 10_000, 'the formation webhooks delivered');
    await show('Webhooks');
    const events = page.getByRole('region', { name: 'Events' });
    await expect.poll(() => events.locator('summary').count()).toBeGreaterThanOrEqual(4);
    const completed = events.locator('li', { has: page.locator('summary', { hasText: 'company.formation.completed' }) });
    await completed.locator('summary').click();
    expect(await completed.locator('.json').textContent()).toContain(companyId);
    expect(await completed.locator('table').textContent()).toContain('delivered');
    const before = receiver.accepted().filter((event) => event.type === 'company.formation.completed').length;
    await completed.getByRole('button', { name: 'Redeliver' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'sent again' }).count()).toBe(1);
    await eventually(() => receiver.accepted().filter((event) => event.type === 'company.formation.completed').length > before || undefined, 10_000, 'the redelivery');
    await checkView('webhooks');
  });

  it('arms a forced 409 for createCompany, and the next create answers it, shown as forced', async () => {
    await show('Scenarios and settings');
    const form = page.getByRole('form', { name: 'Arm a forced answer' });
    await form.getByLabel('Operation').selectOption('createCompany');
    const answer = (await form.getByLabel('Answer').locator('option').allTextContents()).find((text) => text.startsWith('409'));
    expect(answer).toBeDefined();
    await form.getByLabel('Answer').selectOption({ label: answer as string });
    await form.getByRole('button', { name: 'Arm' }).click();
    await expect.poll(() => page.locator('table.grid').textContent()).toContain('createCompany');
    await checkView('scenarios-and-settings');

    const customer = await createCustomer(mock);
    const refused = await mock.call('/v1/partner/companies', { body: llcBody(customer.serviceCustomerId), idempotencyKey: newIdempotencyKey() });
    expect(refused.status).toBe(409);
    await show('Requests');
    const row = page.locator(`.row.entry[data-request-id="${refused.headers.get('x-request-id')}"]`);
    await expect.poll(() => row.textContent()).toContain('forced');
    expect(await row.textContent()).toContain('409');
  });

  it('sends an operation from a form made from its contract, and shows the answer with its headers', async () => {
    await show('Try');
    await page.getByLabel('Operation').selectOption('createCustomer');
    await page.getByLabel('email').fill('grace@example.com');
    await page.getByRole('button', { name: 'Send' }).click();
    const answer = page.getByRole('region', { name: 'Answer' });
    await expect.poll(() => answer.textContent()).toContain('grace@example.com');
    expect(await answer.textContent()).toContain('idempotent-replayed');
    expect(await answer.locator('.status').textContent()).toBe('200');
    await checkView('try');
  });
});

/** Sends `count` requests, `concurrency` at a time. */
async function sendMany(count: number, concurrency = 16): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next += 1;
        await mock.call('/v1/partner/customers?limit=1');
      }
    }),
  );
}

describe('the request list', () => {
  it('holds 10 000 entries streamed in while rendering only those in view, and keeps the rows in view where they are as more come', async () => {
    await show('Requests');
    await sendMany(10_000);
    const list = page.getByRole('list', { name: 'Requests, newest first' });
    await expect.poll(() => page.locator('.list-foot').textContent(), { timeout: 90_000 }).toMatch(/^10000 shown/);
    expect(await page.locator('.row.entry').count()).toBeLessThan(60);
    // The oldest kept, at the bottom.
    await list.evaluate((element) => (element.scrollTop = element.scrollHeight));
    await expect.poll(() => page.locator('.row.entry').last().textContent()).toContain('listCustomers');
    expect(await page.locator('.row.entry').count()).toBeLessThan(60);
    // Scrolled down: row 20 in view, a little below the top.
    await list.evaluate((element) => (element.scrollTop = 600));
    const watched = page.locator(`[role=listitem][style*="top: ${20 * 34}px"] .row.entry`);
    const requestId = await watched.getAttribute('data-request-id');
    const box = await watched.boundingBox();
    expect(box).not.toBeNull();
    for (let sent = 0; sent < 5; sent += 1) await mock.call('/v1/partner/customers');
    await eventually(async () => (await list.evaluate((element) => element.scrollTop)) >= 600 + 5 * 34 || undefined, 10_000, 'the list to move with the five new rows');
    expect(await page.locator(`.row.entry[data-request-id="${requestId}"]`).boundingBox({ timeout: 5_000 })).toEqual(box);
    // Ten thousand requests sent and rendered: what it checks is the list, not the machine's speed.
  }, 120_000);
});

describe('the way in', () => {
  it('is linked from the reference docs and the admin docs, and works from the keyboard', async () => {
    await mock.call('/v1/partner/customers');
    const docs = await browser.newPage();
    try {
      for (const path of ['/docs', '/_mock/docs']) {
        await docs.goto(`${mock.url}${path}`);
        await docs.locator('a[href="/_mock/console"]').first().click();
        await docs.waitForURL(`${mock.url}/_mock/console`);
        await docs.locator('.row.entry').first().waitFor();
      }
      // Tab through the page to the first request, and open it with Enter.
      let focused = '';
      for (let tabs = 0; tabs < 40 && !focused.includes('row entry'); tabs += 1) {
        await docs.keyboard.press('Tab');
        focused = String(await docs.evaluate('document.activeElement.className'));
      }
      expect(focused).toContain('row entry');
      await docs.keyboard.press('Enter');
      await docs.getByRole('button', { name: 'Copy as curl' }).waitFor();
    } finally {
      await docs.close();
    }
  });
});

describe('a console on a mock that asks for its admin token', () => {
  it.each([
    { given: 'given (--admin-token)', settings: { adminToken: 'correct-horse-battery-staple' }, says: /E_ADMIN_TOKEN_MISSING.*Enter the admin token above/ },
    // A tunnel's address: the mock made a token and printed it.
    { given: 'made for a --public-url of another host', settings: { publicUrl: 'https://relay.partner.example' }, says: /E_ADMIN_TOKEN_MISSING.*printed when the mock started.*Enter the admin token above/ },
  ])('says the token $given is needed, and works once it is given', async ({ settings, says }) => {
    const guarded = await startTestMock(settings);
    const own = await browser.newPage();
    try {
      await own.goto(`${guarded.url}/_mock/console`);
      await expect.poll(() => own.getByRole('alert').first().textContent()).toMatch(says);
      await own.getByLabel('Admin token').fill(guarded.adminToken?.value ?? 'no token');
      await own.getByRole('button', { name: 'Use' }).click();
      await expect.poll(() => own.getByRole('alert').count()).toBe(0);
      await guarded.call('/v1/partner/customers', { body: customerBody(), idempotencyKey: newIdempotencyKey() });
      await expect.poll(() => own.locator('.row.entry').count()).toBe(1);
    } finally {
      await own.close();
      await guarded.close();
    }
  });
});
