/**
 * `npm run bench:dev-reload`: how long `npm run dev` takes from a save under openapi/ to serving it, over several
 * edits of a summary, on a copy of the project: until `/openapi.json` has the edit, and until the docs a browser
 * opening `/docs` would load have it (the page and the JSON documents it names: scripts/dev/dev-on-copy.ts). Each
 * edit waits for both (a minute at most), then 1.5 s, as a designer saves. The goal is 2 s or less for both.
 * `--browser` also keeps the docs open in Chromium, at the operation edited, and times until the open page shows
 * the edit, as its reader sees it: the live docs render it by themselves (a built page shows it only once reloaded,
 * so it is not timed). `--baseline DIR` runs another checkout's `npm run dev` (say a `git worktree` of the version before, its
 * node_modules installed) the same way, after this one, side by side in one run. A benchmark, not a test: this
 * machine is shared, so the numbers are read, not asserted.
 */
import { parseArgs } from 'node:util';
import type { Page } from 'playwright-core';
import { copyProjectForDev, docsAsLoaded } from '../scripts/dev/dev-on-copy.ts';
import { launchChromium } from '../tests/browser/chromium.ts';

const usage = `Usage: npm run bench:dev-reload -- [--baseline DIR] [--edits N] [--browser]

Times npm run dev from a save of openapi/paths/v1_partner_customers.yaml to the edit in /openapi.json and in the
docs a browser opening /docs loads, over N edits (default 8), on a copy of this checkout.

  --baseline DIR  also time another checkout of this project (its node_modules installed), side by side
  --edits N       how many edits (default 8)
  --browser       also time until the docs open in Chromium show the edit
  --help          this text`;

const { values } = parseArgs({ options: { baseline: { type: 'string' }, edits: { type: 'string', default: process.env.EDITS ?? '8' }, browser: { type: 'boolean' }, help: { type: 'boolean' } } });
if (values.help) {
  console.log(usage);
  process.exit(0);
}
const edits = Number(values.edits);
const file = 'openapi/paths/v1_partner_customers.yaml';
const giveUpMs = 60_000;
const pollMs = 50;

interface Times {
  contract: number[];
  docs: number[];
  openPage: number[];
}

const browser = values.browser ? await launchChromium() : undefined;

/** The docs open at listCustomers, as a designer keeps them; the summary shown there. */
async function openDocs(url: string): Promise<Page> {
  const page = await (browser as NonNullable<typeof browser>).newPage();
  await page.goto(`${url}/docs`);
  await page.getByText('Customers', { exact: true }).first().click();
  await page.getByText('List customers', { exact: true }).first().click();
  return page;
}
const shows = (page: Page, text: string) => page.locator('h1, h2', { hasText: text }).first().isVisible();

async function measure(checkout: string | undefined): Promise<Times> {
  const project = await copyProjectForDev(checkout);
  const dev = await project.startDev(['--log-level', 'warn']);
  const summary = async () => {
    const contract = (await (await fetch(`${dev.url}/openapi.json`)).json()) as { paths: Record<string, { get: { summary: string } }> };
    return contract.paths['/v1/partner/customers']?.get.summary;
  };
  /** Milliseconds from `since` until each check passes, polled together; a check not passed within a minute fails the run. */
  const timesUntil = async (since: number, checks: (() => Promise<boolean>)[]): Promise<number[]> => {
    const times: (number | undefined)[] = checks.map(() => undefined);
    while (times.includes(undefined)) {
      if (performance.now() - since > giveUpMs) throw new Error(`not served within ${giveUpMs / 1000} s; dev printed:\n${dev.output()}`);
      await Promise.all(checks.map(async (check, index) => {
        if (times[index] === undefined && (await check().catch(() => false))) times[index] = performance.now() - since;
      }));
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
    return times as number[];
  };
  try {
    await timesUntil(performance.now(), [async () => (await summary()) === 'List customers']);
    const page = browser ? await openDocs(dev.url) : undefined;
    const live = page ? await page.evaluate<boolean>('document.querySelector(\'script[src="/docs/live.js"]\') !== null') : false;
    const pageShows = async (text: string) => !page || !live || (await shows(page, text));
    const original = await project.read(file);
    const times: Times = { contract: [], docs: [], openPage: [] };
    for (let edit = 1; edit <= edits; edit += 1) {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const text = `List customers, edit ${edit}`;
      const saved = performance.now();
      await project.write(file, original.replace('summary: List customers', `summary: ${text}`));
      const [contract, docs, openPage] = await timesUntil(saved, [async () => (await summary()) === text, async () => (await docsAsLoaded(dev.url)).includes(text), () => pageShows(text)]);
      times.contract.push(contract as number);
      times.docs.push(docs as number);
      if (live) times.openPage.push(openPage as number);
    }
    return times;
  } finally {
    await project.remove();
  }
}

const row = (label: string, what: string, times: number[]) => {
  const sorted = [...times].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] as number;
  return `${label.padEnd(9)} ${what.padEnd(14)} ${times.map((time) => time.toFixed(0).padStart(6)).join('')}   median ${median.toFixed(0).padStart(6)}   max ${(sorted.at(-1) as number).toFixed(0).padStart(6)}`;
};

console.log(`npm run dev, save to served (ms), ${edits} edits; goal: 2000 ms or less`);
const runs: [string, string | undefined][] = [['this', undefined], ...(values.baseline === undefined ? [] : [['baseline', values.baseline] as [string, string]])];
for (const [label, checkout] of runs) {
  const times = await measure(checkout);
  console.log(row(label, '/openapi.json', times.contract));
  console.log(row(label, '/docs', times.docs));
  if (browser) console.log(times.openPage.length > 0 ? row(label, 'open page', times.openPage) : `${label.padEnd(9)} open page      not timed: its /docs is the built page, which shows a save only once reloaded`);
}
await browser?.close();
if (values.baseline !== undefined) console.log(`\nbaseline: ${values.baseline}`);
