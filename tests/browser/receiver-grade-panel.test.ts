/**
 * The console's "Test your receiver" panel (Webhooks view), in real Chromium: it runs the graded battery against the
 * receiver behind one of the partner's endpoints and shows the report: a receiver right in every case passes with
 * the late copy as a warning, a receiver that skips verification fails the signature cases, each case opening on
 * what was sent and what came back. The panel passes axe with no serious or critical violation, loads nothing from
 * outside the mock and logs no error; its screenshot is kept beside the console's (.build/test-artifacts/console/).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookReceiver, verifyWith, type RunningReceiver, type Verify } from '../../examples/webhook-receiver/receiver.ts';
import { createEndpoint } from '../mock/portal/support.ts';
import { sandboxKey, startTestMock, type TestMock } from '../mock/support/mock-harness.ts';
import { launchChromium, problemsOf } from './chromium.ts';

const screenshots = process.env.CONSOLE_SCREENSHOTS ?? join('.build', 'test-artifacts', 'console');
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let browser: Browser;
let mock: TestMock;
let page: Page;
let problems: string[];
/** What went wrong in the page, but for the request stream the Requests view closes as Webhooks opens: it is aborted. */
const wrong = () => problems.filter((problem) => !/requests\/stream.*ERR_ABORTED/.test(problem));
const receivers: RunningReceiver[] = [];

/** A receiver that verifies with the secret its endpoint was given (or, skipping verification, trusts anything). */
async function endpointWithReceiver(verifies: boolean): Promise<string> {
  let secret = '';
  const trusting: Verify = async (rawBody) => JSON.parse(Buffer.from(rawBody).toString('utf8'));
  const receiver = await startWebhookReceiver({ secret: 'whsec_placeholder', verify: verifies ? (rawBody, headers) => verifyWith(secret)(rawBody, headers) : trusting });
  receivers.push(receiver);
  const endpoint = await createEndpoint(mock, sandboxKey, { url: receiver.url });
  secret = endpoint.secret;
  return receiver.url;
}

beforeAll(async () => {
  // The console is built with the mock's bundle, as `npm start` does.
  execFileSync(process.execPath, ['scripts/build-mock.mjs', '--quiet', '--if-changed'], { stdio: 'inherit' });
  mkdirSync(screenshots, { recursive: true });
  [browser, mock] = await Promise.all([launchChromium(), startTestMock()]);
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  problems = problemsOf(page, mock.url);
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  await page.goto(`${mock.url}/_mock/console`);
  await page.getByLabel('Partner API key').fill(sandboxKey);
  await page.getByRole('button', { name: 'Use' }).click();
  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Webhooks', exact: true }).click();
});
afterAll(async () => {
  await browser?.close();
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await mock?.close();
});

async function seriousViolations(): Promise<string[]> {
  await page.evaluate(axeSource);
  const result = (await page.evaluate("axe.run(document, { resultTypes: ['violations'] })")) as { violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[] };
  return result.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical').map((violation) => `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`);
}

describe('Test your receiver', () => {
  const panel = () => page.getByRole('region', { name: 'Test your receiver' });

  it('grades a receiver right in every case: passed, the late copy a warning, each case opening on its exchanges', async () => {
    const url = await endpointWithReceiver(true);
    await panel().getByRole('combobox', { name: 'Endpoint' }).selectOption({ label: url });
    await panel().getByLabel(/Probe URL/).fill(url.replace('/webhooks', '/webhooks/probe'));
    await panel().getByRole('button', { name: 'Run the battery' }).click();
    const verdict = panel().getByRole('status').filter({ hasText: /^Passed/ });
    await verdict.waitFor({ timeout: 20_000 });
    expect(await verdict.textContent()).toMatch(/^Passed: \d+ passed, 0 failed, 1 warning, 0 skipped; \d+ requests in [\d.]+ s to http/);
    const lateCopy = panel().locator('li').filter({ hasText: 'late-copy' });
    expect(await lateCopy.locator('.tag').textContent()).toBe('warning');
    const missing = panel().locator('li').filter({ hasText: 'signature-missing' });
    await missing.locator('summary').click();
    await expect.poll(() => missing.getByRole('region', { name: 'Sent, signature-missing, request 1' }).textContent()).toContain('Sent: POST to the receiver');
    expect(await missing.getByRole('region', { name: 'Came back, signature-missing, request 1' }).textContent()).toMatch(/Came back400 in \d+ ms/);
    await page.screenshot({ path: join(screenshots, 'receiver-grade-1280.png'), fullPage: true });
    expect(await seriousViolations()).toEqual([]);
    expect(wrong()).toEqual([]);
  });

  it('fails a receiver that skips verification, its failed cases open with what came back', async () => {
    const url = await endpointWithReceiver(false);
    await panel().getByRole('combobox', { name: 'Endpoint' }).selectOption({ label: url });
    await panel().getByLabel(/Probe URL/).fill('');
    await panel().getByRole('button', { name: 'Run the battery' }).click();
    const verdict = panel().getByRole('status').filter({ hasText: /^Failed/ });
    await verdict.waitFor({ timeout: 20_000 });
    expect(await verdict.textContent()).toMatch(/^Failed: \d+ passed, 6 failed, 1 warning, 1 skipped/);
    const tampered = panel().locator('li').filter({ hasText: 'body-tampered' });
    expect(await tampered.locator('.tag').textContent()).toBe('failed');
    expect(await tampered.textContent()).toContain("Answered 200");
    expect(await tampered.getByRole('region', { name: 'Came back, body-tampered, request 1' }).isVisible()).toBe(true);
    expect(await seriousViolations()).toEqual([]);
    expect(wrong()).toEqual([]);
  });
});
