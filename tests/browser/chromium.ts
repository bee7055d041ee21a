/**
 * Debian's Chromium driven by playwright-core, for the tests that need a real browser. Never a downloaded browser:
 * `npx playwright install` cannot reach its CDN here; .ci/run installs the `chromium` package where it is missing.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

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
