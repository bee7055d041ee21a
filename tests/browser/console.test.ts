/**
 * The console (`/_mock/console`) as a team uses it, in real Chromium: requests appear live and open whole; a
 * formation completes from the console, and its webhooks show with their payloads and attempts; an event is
 * redelivered; a document's PDF opens, at localhost as at 127.0.0.1; a forced 409 armed from the console answers the
 * next create and shows as forced; Try sends a request made from the contract. Every view follows the mock with no
 * click (a formation moved by the API, a fault used up, a redelivery's outcome), hides the console's own calls
 * unless asked, and shows an endpoint's relay URL before its secret. Every view passes axe with no serious or
 * critical violation at 1280 and 1920 px, reads there without cutting what marks a request, loads nothing from
 * outside the mock, logs no error, and is kept as a screenshot at both widths (CONSOLE_SCREENSHOTS, default
 * .build/test-artifacts/console/).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompany, createCustomer, customerBody, eventually, llcBody, newIdempotencyKey, simulate } from '../mock/support/http-fixtures.ts';
import { sandboxKey, startTestMock, type TestMock } from '../mock/support/mock-harness.ts';
import { completedFormation, createEndpoint } from '../mock/portal/support.ts';
import { startReceiver, type Receiver } from '../mock/webhooks/support/receiver.ts';
import { launchChromium, problemsOf } from './chromium.ts';

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
  execFileSync(process.execPath, ['scripts/build-mock.mjs', '--quiet', '--if-changed'], { stdio: 'inherit' });
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

/** The widths a view must read at: a laptop's, and a desktop's. */
const widths = [1280, 1920];

/** At each width: a screenshot (`NAME-WIDTH.png`), axe, and nothing gone wrong in the page; back at 1280. */
async function checkView(name: string): Promise<void> {
  for (const width of widths) {
    await page.setViewportSize({ width, height: 900 });
    await page.waitForTimeout(100);
    await page.screenshot({ path: join(screenshots, `${name}-${width}.png`) });
    expect(await seriousViolations(), `axe on ${name} at ${width} px`).toEqual([]);
  }
  await page.setViewportSize({ width: widths[0] as number, height: 900 });
  expect(problems).toEqual([]);
}

/** Whether an element shows all it holds: nothing of it cut off at its edge (an ellipsis). */
const showsWhole = (locator: ReturnType<Page['locator']>) => locator.evaluate((element) => element.scrollWidth <= element.clientWidth + 1);

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
    // At 1280 px, with a request open beside the list, what marks it reads whole: its operation, tag and code.
    await row.click();
    expect(await showsWhole(row.locator('.operation')), await row.locator('.operation').textContent() ?? '').toBe(true);
    expect(await row.locator('.operation').textContent()).toMatch(/createCompany.*forced.*E_IDEMPOTENCY_KEY_REUSED|createCompany.*forced.*E_/);
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

/** Opens a company in the Customers and companies view: its button, under its customer (names repeat). */
async function openCompany(on: Page, company: { name: string; serviceCustomerId: string }): Promise<void> {
  await on.locator('ul.customers > li', { hasText: company.serviceCustomerId }).getByRole('button', { name: company.name }).click();
}

describe('the console following the mock', () => {
  it("shows a company's status as the API moves it, without a click, and turns its controls off once it is final", async () => {
    const customer = await createCustomer(mock);
    const company = await createCompany(mock, llcBody(customer.serviceCustomerId));
    await show('Customers and companies');
    await openCompany(page, company);
    const facts = page.locator('.facts');
    await expect.poll(() => facts.textContent()).toContain('PENDING');
    expect((await simulate(mock, company.serviceCompanyId, { target: 'NEXT' })).status).toBe(200);
    await expect.poll(() => facts.textContent(), { timeout: 10_000 }).toContain('SUBMITTED');
    expect((await simulate(mock, company.serviceCompanyId, { target: 'COMPLETED' })).status).toBe(200);
    await expect.poll(() => facts.textContent(), { timeout: 10_000 }).toContain('COMPLETED');
    expect(await page.getByRole('button', { name: 'Advance one step' }).isDisabled()).toBe(true);
    // Its documents come with it, and its status in the customers' list too.
    await expect.poll(() => page.getByRole('button', { name: 'Show PDF' }).count(), { timeout: 10_000 }).toBe(3);
    await expect.poll(() => page.locator('ul.customers > li', { hasText: company.serviceCustomerId }).locator('.companies li').textContent()).toContain('COMPLETED');
  });

  it("counts a fault down as requests use it, to nothing, without a click", async () => {
    await show('Scenarios and settings');
    const form = page.getByRole('form', { name: 'Arm a forced answer' });
    await form.getByLabel('Operation').selectOption('listStates');
    await form.getByLabel('Delay (ms)').fill('1');
    await form.getByLabel('Next calls').fill('2');
    await form.getByRole('button', { name: 'Arm' }).click();
    const armed = page.locator('table.grid tbody tr', { hasText: 'listStates' });
    await expect.poll(() => armed.textContent()).toContain('2');
    await mock.call('/v1/partner/reference/states?limit=1');
    await expect.poll(() => armed.locator('td').nth(3).textContent(), { timeout: 10_000 }).toBe('1');
    await mock.call('/v1/partner/reference/states?limit=1');
    await expect.poll(() => armed.count(), { timeout: 10_000 }).toBe(0);
  });

  it("shows a redelivery's outcome as it happens, without a click", async () => {
    await show('Webhooks');
    const events = page.getByRole('region', { name: 'Events' });
    const event = events.locator('li', { has: page.locator('summary', { hasText: 'company.formation.submitted' }) }).first();
    await event.locator('summary').click();
    const attempts = event.locator('table tbody tr');
    await expect.poll(() => attempts.count(), { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
    const before = await attempts.count();
    await event.getByRole('button', { name: 'Redeliver' }).first().click();
    await expect.poll(() => attempts.count(), { timeout: 10_000 }).toBe(before + 1);
    await expect.poll(() => attempts.last().textContent()).toContain('delivered');
    await expect.poll(() => event.locator('summary').textContent()).toContain(': delivered');
  });

  it('shows an endpoint\'s relay URL before the sandbox\'s secret is set, and takes the secret there', async () => {
    const other = await createEndpoint(mock, sandboxKey, { url: receiver.url, description: 'to relay a sandbox' });
    await show('Webhooks');
    const row = page.locator('table.endpoints tbody tr', { hasText: other.id });
    await expect.poll(() => row.textContent()).toContain(`${mock.url}/_mock/relay/${other.id}`);
    const secretForm = row.getByRole('form', { name: `The sandbox's secret for ${other.id}` });
    await secretForm.getByLabel("The sandbox's secret for it").fill('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
    await secretForm.getByRole('button', { name: 'Set' }).click();
    await expect.poll(() => row.textContent(), { timeout: 10_000 }).toContain('relaying');
  });

  it("lists what the partner's app sent, the console's own calls only when asked, marked", async () => {
    await show('Requests');
    const sent = await mock.call('/v1/partner/customers?limit=3');
    const rows = page.locator('.row.entry');
    await expect.poll(() => page.locator(`.row.entry[data-request-id="${sent.headers.get('x-request-id')}"]`).count()).toBe(1);
    // The views above read through the console's own calls: none of them is listed.
    expect(await rows.filter({ hasText: 'console' }).count()).toBe(0);
    expect(await rows.filter({ hasText: 'getCompany' }).count()).toBe(0);
    await page.getByLabel("The console's own calls").check();
    await expect.poll(() => rows.filter({ hasText: 'getCompany' }).count()).toBeGreaterThan(0);
    expect(await rows.filter({ hasText: 'getCompany' }).first().locator('.tag-tool').textContent()).toBe('console');
    await page.getByLabel("The console's own calls").uncheck();
    await expect.poll(() => rows.filter({ hasText: 'getCompany' }).count()).toBe(0);
  });

  it('forces an in-progress 409 from Try, with the Retry-After the real one sends', async () => {
    await show('Try');
    await page.getByLabel('Operation').selectOption('createCustomer');
    await page.getByLabel('Answer with (Prefer)').selectOption({ label: '409 — idempotencyKeyInProgress' });
    await page.getByRole('button', { name: 'Send' }).click();
    const answer = page.getByRole('region', { name: 'Answer' });
    await expect.poll(() => answer.locator('.status').textContent()).toBe('409');
    expect(await answer.locator('table.headers').textContent()).toMatch(/retry-after\s*1/);
    expect(await answer.textContent()).toContain('E_IDEMPOTENCY_KEY_IN_PROGRESS');
  });
});

describe('a document shown at the host the page came from', () => {
  it.each(['localhost', '127.0.0.1'])('opens the PDF in the page at %s', async (host) => {
    const origin = `http://${host}:${new URL(mock.url).port}`;
    const companyId = await completedFormation(mock, sandboxKey);
    const own = await browser.newPage();
    const seen = problemsOf(own, origin);
    try {
      await own.goto(`${origin}/_mock/console#/formations`);
      await own.getByLabel('Partner API key').fill(sandboxKey);
      await own.getByRole('button', { name: 'Use' }).click();
      await openCompany(own, (await mock.call(`/v1/partner/companies/${companyId}`)).json.payload);
      await expect.poll(() => own.getByRole('button', { name: 'Show PDF' }).count(), { timeout: 10_000 }).toBe(3);
      const pdf = own.waitForResponse((response) => response.url().startsWith(`${origin}/v1/partner/companies/${companyId}/documents/`) && response.headers()['content-type'] === 'application/pdf');
      await own.getByRole('button', { name: 'Show PDF' }).first().click();
      expect((await pdf).status()).toBe(200);
      const frame = own.locator('figure.pdf iframe');
      expect(await frame.getAttribute('src')).toMatch(new RegExp(`^${origin.replaceAll('.', '\\.')}/`));
      await own.waitForTimeout(300);
      // Headless Chromium has no PDF viewer: it takes the frame's document as a download, which ends the frame's
      // load as aborted. Refused by the page's policy, the frame would never have asked (a console error says so).
      const pdfDownloaded = (problem: string) => problem.startsWith(`failed: ${origin}/v1/partner/companies/${companyId}/documents/`) && problem.endsWith('(net::ERR_ABORTED)');
      expect(seen.filter((problem) => !pdfDownloaded(problem)), 'nothing refused, framing included').toEqual([]);
    } finally {
      await own.close();
    }
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

/** The height of a request's row in the list (two lines: console.css). */
const rowHeight = 46;

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
    const watched = page.locator(`[role=listitem][style*="top: ${20 * rowHeight}px"] .row.entry`);
    // The list renders what a scroll brings into view a frame later, and may render it once more: the row is measured
    // once it is there and has stopped moving (read at once, a loaded run found it there and then no box for it).
    const box = await eventually(async () => {
      const [first, again] = [await watched.boundingBox(), await watched.boundingBox()];
      return first !== null && JSON.stringify(first) === JSON.stringify(again) ? first : undefined;
    }, 10_000, 'row 20 in view, still');
    const requestId = await watched.getAttribute('data-request-id');
    for (let sent = 0; sent < 5; sent += 1) await mock.call('/v1/partner/customers');
    await eventually(async () => (await list.evaluate((element) => element.scrollTop)) >= 600 + 5 * rowHeight || undefined, 10_000, 'the list to move with the five new rows');
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
