/**
 * The reference docs as a designer opens them: from the file, from the mock, and live from the mock as `npm run dev`
 * runs it (`--docs live`, rendered in the browser from the contract served). Nothing may load from the network,
 * nor even be tried (Redoc's "API docs by" logo is written into the page: scripts/generate.ts), nothing may log an
 * error, every sidebar link must lead to its operation, and a link to an operation opened directly must show it.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMock, type TestMock } from '../mock/support/mock-harness.ts';
import { launchChromium, problemsOf } from './chromium.ts';

const docsFile = fileURLToPath(new URL('../../generated/docs/index.html', import.meta.url));
let browser: Browser;
let mock: TestMock;
let live: TestMock;

beforeAll(async () => {
  [browser, mock, live] = await Promise.all([launchChromium(), startTestMock(), startTestMock({ docs: 'live' })]);
});
afterAll(async () => {
  await browser?.close();
  await mock?.close();
  await live?.close();
});

interface Visit {
  page: Page;
  /** Requests that reached the network, or failed for another reason than the page's own policy. */
  problems: string[];
}

async function visit(url: string, origin: string | undefined): Promise<Visit> {
  const page = await browser.newPage();
  const problems = problemsOf(page, origin);
  await page.goto(url, { waitUntil: 'networkidle' });
  return { page, problems };
}

describe.each([
  ['from the file', () => `file://${docsFile}`, () => undefined],
  ['from the mock', () => `${mock.url}/docs`, () => mock.url],
  ['live from the mock', () => `${live.url}/docs`, () => live.url],
])('the reference docs %s', (_how, url, origin) => {
  // One page, as a reader keeps it open: it renders, a sidebar link leads to its operation, the Changes page is one
  // more link away. Each Redoc page of this contract costs Chromium about 2.5 s of CPU, so the checks share it; what
  // the page logged or loaded is checked after each step, and a link opened directly gets a page of its own.
  let opened: Visit;
  beforeAll(async () => {
    opened = await visit(url(), origin());
  });
  afterAll(async () => {
    await opened?.page.close();
  });

  it('load nothing from the network, and render the contract', async () => {
    await opened.page.getByText('Partner Formation API').first().waitFor({ state: 'visible' });
    expect(opened.problems).toEqual([]);
  });

  it('lead from a sidebar link to its operation, with nothing failing on the way', async () => {
    const { page, problems } = opened;
    await page.getByText('Customers', { exact: true }).first().click();
    await page.getByText('Create a customer').first().click();
    await page.waitForFunction('window.location.hash.toLowerCase().includes("createcustomer")');
    await page.locator('h1, h2', { hasText: 'Create a customer' }).first().waitFor({ state: 'visible' });
    expect(problems).toEqual([]);

    const direct = await visit(page.url(), origin());
    await direct.page.locator('h1, h2', { hasText: 'Create a customer' }).first().waitFor({ state: 'visible' });
    expect(direct.problems).toEqual([]);
    await direct.page.close();
  });

  it('have a Changes page, made from the changelog, in the sidebar', async () => {
    const { page, problems } = opened;
    const released = /^## (\S+) — (\S+)$/m.exec(readFileSync(new URL('../../CHANGELOG.md', import.meta.url), 'utf8'));
    await page.getByText('Changes', { exact: true }).first().click();
    await page.waitForFunction('window.location.hash.toLowerCase().includes("section/changes")');
    await page.locator('h2', { hasText: `${released?.[1]} — ${released?.[2]}` }).first().waitFor({ state: 'visible' });
    expect(problems).toEqual([]);
  });
});
