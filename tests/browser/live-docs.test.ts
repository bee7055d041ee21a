/**
 * The docs as a designer keeps them open under `npm run dev`: a save under openapi/ shows on the open page by itself,
 * with no reload of the page, where its reader was; nothing loads from the network, nothing fails, nothing logs an
 * error. Real processes: `npm run dev` on a copy of the project, and Chromium.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { copyProjectForDev, until, type DevProject, type RunningDev } from '../../scripts/dev/dev-on-copy.ts';
import { launchChromium, problemsOf } from './chromium.ts';

const customersFile = 'openapi/paths/v1_partner_customers.yaml';
let project: DevProject;
let dev: RunningDev;
let browser: Browser;

beforeAll(async () => {
  project = await copyProjectForDev();
  dev = await project.startDev(['--log-level', 'warn']);
  [browser] = await Promise.all([
    launchChromium(),
    until('the mock', async () => ((await fetch(`${dev.url}/_mock/health`)).ok ? true : undefined), dev, 90_000),
  ]);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await project?.remove();
});

/** Opens the docs, noting what reached the network, failed or logged an error. */
async function openDocs(): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage();
  const problems = problemsOf(page, dev.url);
  await page.goto(`${dev.url}/docs`);
  return { page, problems };
}

it('show a save on the open page, without a reload of it, where its reader was', async () => {
  const { page, problems } = await openDocs();
  await page.getByText('Customers', { exact: true }).first().click();
  await page.getByText('List customers', { exact: true }).first().click();
  const heading = page.locator('h1, h2', { hasText: 'List customers' }).first();
  await heading.waitFor({ state: 'visible' });
  // A mark on the page as it was loaded: a reload of the page would lose it.
  await page.evaluate('window.loadedOnce = true');

  await project.edit(customersFile, 'summary: List customers', 'summary: List the partner\'s customers');
  const edited = page.locator('h1, h2', { hasText: "List the partner's customers" }).first();
  await edited.waitFor({ state: 'visible', timeout: 60_000 });

  expect(await page.evaluate('window.loadedOnce')).toBe(true);
  expect(await edited.isVisible()).toBe(true);
  const box = await edited.boundingBox();
  const height = await page.evaluate<number>('window.innerHeight');
  // Still where its reader was: the operation they were reading is on the screen.
  expect(box && box.y >= 0 && box.y < height).toBe(true);
  expect(problems).toEqual([]);
  await page.close();
}, 120_000);
