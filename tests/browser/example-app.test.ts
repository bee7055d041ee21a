/**
 * The example app (examples/frontend/) in real Chromium, with the mock in its own service worker (Mock Service
 * Worker's `setupWorker`), as a team shows its app in a browser or in Storybook: the page is bundled with the mock's
 * browser build (mock/package/browser-bundle.ts, as the package ships it) and msw, and served with msw's worker
 * script. The same form as in the app's component tests creates a customer, shows a 400's field errors, sends a
 * create again with its key after a 503 and shows the 409 of a key reused; nothing goes over the network but the
 * page's own files.
 */
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildBrowserBundle } from '../../mock/package/browser-bundle.ts';
import { launchChromium } from './chromium.ts';
import type { PartnerFormationMock } from '../../mock/package/msw-api.ts';

/** What the page keeps on `window` (examples/frontend/src/mocked-page.ts), as its driver reads it. */
declare const window: { mock: PartnerFormationMock };

const root = join(import.meta.dirname, '..', '..');
const example = join(root, 'examples', 'frontend');
let browser: Browser;
let site: Server;
let siteUrl: string;
let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'example-app-'));
  await buildBrowserBundle(join(folder, 'mock'));
  // The page's bundle, as a team's bundler makes it: the mock's browser build under the package's name, and the one
  // msw that both the page's worker and the mock's handlers use.
  const page = await build({
    entryPoints: { page: join(example, 'src', 'mocked-page.ts') },
    outdir: join(folder, 'site'),
    bundle: true, splitting: true, format: 'esm', platform: 'browser', target: ['chrome120'],
    jsx: 'automatic', jsxImportSource: 'preact', write: false, logLevel: 'warning',
    alias: { '@partner-formation/mock/msw': join(folder, 'mock', 'msw-browser.mjs') },
    // msw, from the project's packages as from the app's: the bundle, in a folder of its own, imports it by name.
    nodePaths: [join(root, 'node_modules')],
  });
  const files = new Map<string, Uint8Array>(page.outputFiles.map((file) => [`/${file.path.slice(join(folder, 'site').length + 1)}`, file.contents]));
  files.set('/', await readFile(join(example, 'index.html')));
  files.set('/mockServiceWorker.js', await readFile(join(root, 'node_modules', 'msw', 'lib', 'mockServiceWorker.js')));
  site = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0] as string;
    const file = files.get(path);
    if (!file) return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': path === '/' ? 'text/html; charset=utf-8' : 'text/javascript' }).end(file);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  // localhost: a secure context over HTTP, where a page may register a service worker.
  siteUrl = `http://localhost:${(site.address() as AddressInfo).port}/`;
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  if (site) await new Promise((resolve) => site.close(resolve));
  if (folder) await rm(folder, { recursive: true, force: true });
});

async function openApp(): Promise<{ tab: Page; problems: string[] }> {
  const tab = await browser.newPage();
  const problems: string[] = [];
  tab.on('pageerror', (error) => problems.push(String(error)));
  // The browser logs every answer of 400 or more as a failed load: the API's refusals here are the point.
  tab.on('console', (message) => void (message.type() === 'error' && !/^Failed to load resource: the server responded with a status of (400|409|503)/.test(message.text()) && problems.push(message.text())));
  // Only the page's own files reach a server: the API's requests are answered by the worker.
  tab.on('response', (response) => void (!response.url().startsWith(siteUrl) && !response.fromServiceWorker() && problems.push(`answered past the worker: ${response.url()}`)));
  // A response whose body the client drops unread (a 503 it retries) shows as aborted: no failure.
  tab.on('requestfailed', (request) => void (request.failure()?.errorText !== 'net::ERR_ABORTED' && problems.push(`failed: ${request.url()} (${request.failure()?.errorText ?? ''})`)));
  await tab.goto(siteUrl);
  await tab.getByRole('button', { name: 'Create customer' }).waitFor({ timeout: 30_000 }).catch((error: unknown) => {
    throw new Error(`the app did not show its form: ${problems.join('; ') || String(error)}`);
  });
  return { tab, problems };
}

async function fill(tab: Page, values: Record<string, string>): Promise<void> {
  for (const [name, value] of Object.entries(values)) await tab.locator(`input[name="${name}"]`).fill(value);
}

/** The text of what `selector` finds, or empty while nothing is there: polled, each look brief. */
async function textOf(tab: Page, selector: string): Promise<string> {
  const found = tab.locator(selector);
  return (await found.count()) > 0 ? ((await found.first().textContent({ timeout: 1_000 })) ?? '') : '';
}

const ada = { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace', countryOfResidence: 'GBR' };

it('creates a customer through the worker, after showing the field errors of a 400', async () => {
  const { tab, problems } = await openApp();
  await fill(tab, { ...ada, email: 'ada@' });
  await tab.getByRole('button', { name: 'Create customer' }).click();
  await expect.poll(() => textOf(tab, '[data-field="email"]')).toMatch(/E_FORMAT/);
  await fill(tab, ada);
  await tab.getByRole('button', { name: 'Create customer' }).click();
  await expect.poll(() => textOf(tab, '[role=status]')).toMatch(/^Created cus_\w+$/);
  const sent = await tab.evaluate(async () => {
    const page = await window.mock.requests({ operationId: 'createCustomer' });
    return page.data.map((entry) => entry.status);
  });
  expect(sent).toEqual([400, 200]);
  expect(problems).toEqual([]);
  await tab.close();
}, 60_000);

it('sends a create again with the same key after a 503, and shows the 409 of the key sent with other details', async () => {
  const { tab, problems } = await openApp();
  await tab.evaluate(() => window.mock.arm({ operationId: 'createCustomer', status: 503 }));
  await fill(tab, ada);
  const button = tab.getByRole('button', { name: 'Create customer' });
  await button.click();
  // The app's client retries a 503 itself, with the same key, after its Retry-After.
  await expect.poll(() => textOf(tab, '[role=status]'), { timeout: 20_000 }).toMatch(/^Created cus_/);
  await fill(tab, { ...ada, email: 'grace@example.com' });
  await button.click();
  await expect.poll(() => textOf(tab, '[role=alert]')).toMatch(/E_IDEMPOTENCY_KEY_REUSED/);
  const sent = await tab.evaluate(async () => {
    const page = await window.mock.requests({ operationId: 'createCustomer' });
    const exchanges = await Promise.all(page.data.map((entry) => window.mock.exchange(entry.id)));
    return exchanges.map((exchange) => ({ status: exchange.status, key: exchange.request?.headers['idempotency-key'] }));
  });
  expect(sent.map((request) => request.status)).toEqual([503, 200, 409]);
  expect(new Set(sent.map((request) => request.key)).size).toBe(1);
  expect(problems).toEqual([]);
  await tab.close();
}, 60_000);
