/**
 * Debian's Chromium driven by playwright-core, for the tests that need a real browser. Never a downloaded browser:
 * `npx playwright install` cannot reach its CDN here; .ci/run installs the `chromium` package where it is missing.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(chromiumPath)) {
    throw new Error(`no Chromium at ${chromiumPath}: install Debian's chromium package (.ci/run does), or set CHROMIUM_PATH`);
  }
  return chromium.launch({
    executablePath: chromiumPath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
}

/**
 * What goes wrong on a page from now on, each as a line: a response from beyond `origin` (the page's own server;
 * data:, blob: and file: URLs are the page's own too), an answer of 400 or more, a request that failed, an error
 * logged to the console. A page that works offline and as it should leaves it empty.
 */
export function problemsOf(page: Page, origin: string | undefined): string[] {
  const problems: string[] = [];
  const local = (target: string) => /^(data|blob|file):/.test(target) || (origin !== undefined && target.startsWith(origin));
  page.on('response', (response) => {
    if (!local(response.url())) problems.push(`loaded from the network: ${response.url()}`);
    else if (response.status() >= 400) problems.push(`${response.status()} for ${response.url()}`);
  });
  page.on('requestfailed', (request) => problems.push(`failed: ${request.url()} (${request.failure()?.errorText ?? ''})`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  return problems;
}
