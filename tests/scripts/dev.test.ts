/**
 * `npm run dev` on a copy of the project: an edit under openapi/ is served by the running mock, which keeps its
 * data; an edit that does not bundle or lint is refused, said so at its file and line, and the last good contract
 * keeps serving. Started on a contract that fails, it says that nothing is served and why, listens nowhere, and
 * serves once a save makes the contract pass. It says which store it uses, and `--start-store` shares `npm start`'s.
 */
import { execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, terminate } from '../../contract-tests/support/processes.ts';
import { copyProjectForDev, docsAsLoaded, until, type DevProject, type RunningDev } from '../../scripts/dev/dev-on-copy.ts';

const key = `dk_test_${'D3v'.repeat(8)}`;
const customersFile = join('openapi', 'paths', 'v1_partner_customers.yaml');

const summaryOfListCustomers = async (url: string) => {
  const contract = (await (await fetch(`${url}/openapi.json`)).json()) as { paths: Record<string, { get: { summary: string } }> };
  return contract.paths['/v1/partner/customers']?.get.summary;
};
const healthy = (url: string) => async () => ((await fetch(`${url}/_mock/health`)).ok ? true : undefined);

describe('npm run dev on a contract that passes', () => {
  let project: DevProject;
  let dev: RunningDev;
  let original: string;

  beforeAll(async () => {
    project = await copyProjectForDev();
    original = await project.read(customersFile);
    dev = await project.startDev(['--log-format', 'json']);
    await until('the mock', healthy(dev.url), dev, 60_000);
  }, 90_000);
  afterAll(() => project?.remove());

  const storeOf = async (url: string) => ((await (await fetch(`${url}/_mock/health`)).json()) as { payload: { store: string } }).payload.store;

  it('says at start which store it uses: its own SQLite file unless told otherwise', async () => {
    const devStore = `sqlite:${join(project.folder, '.mock-data', 'dev.db')}`;
    expect(dev.output()).toContain(`[dev] store: ${devStore} (dev's own`);
    expect(await storeOf(dev.url)).toBe(devStore);
  });

  it('shares npm start\'s store with --start-store, and says so in --help', async () => {
    const { stdout: help } = await promisify(execFile)(join(project.folder, 'node_modules', '.bin', 'tsx'), [join(project.folder, 'scripts', 'dev', 'main.ts'), '--help'], { cwd: project.folder });
    expect(help).toContain('--start-store');
    expect(help).toContain('sqlite:.mock-data/state.db');

    // A customer made on the mock as `npm start` runs it (its default store, in the project), which is then stopped.
    const startPort = await freePort();
    const started = spawn(process.execPath, [join(project.folder, '.build', 'main.mjs'), '--port', String(startPort), '--log-format', 'json'], { cwd: project.folder });
    const startUrl = `http://127.0.0.1:${startPort}`;
    try {
      await until('npm start\'s mock', healthy(startUrl), undefined);
      const created = await fetch(`${startUrl}/v1/partner/customers`, {
        method: 'POST',
        headers: { authorization: key, 'content-type': 'application/json', 'idempotency-key': 'start-1' },
        body: JSON.stringify({ email: 'start@example.com', firstName: 'Ada', lastName: 'Lovelace', countryOfResidence: 'GBR' }),
      });
      expect(created.status).toBe(200);
    } finally {
      await terminate(started);
    }

    const sharing = await project.startDev(['--start-store', '--log-format', 'json']);
    try {
      await until('dev on npm start\'s store', healthy(sharing.url), sharing, 60_000);
      const startStore = `sqlite:${join(project.folder, '.mock-data', 'state.db')}`;
      expect(sharing.output()).toContain(`[dev] store: ${startStore} (npm start's`);
      expect(await storeOf(sharing.url)).toBe(startStore);
      const listed = (await (await fetch(`${sharing.url}/v1/partner/customers`, { headers: { authorization: key } })).json()) as { payload: { data: { email: string }[] } };
      expect(listed.payload.data.map((customer) => customer.email)).toEqual(['start@example.com']);
    } finally {
      await sharing.stop();
    }
  }, 120_000);

  it('serves an edit of the contract, keeping the data, and keeps the last good contract on a broken edit, saying where it breaks', async () => {
    const created = await fetch(`${dev.url}/v1/partner/customers`, {
      method: 'POST',
      headers: { authorization: key, 'content-type': 'application/json', 'idempotency-key': 'dev-1' },
      body: JSON.stringify({ email: 'dev@example.com', firstName: 'Ada', lastName: 'Lovelace', countryOfResidence: 'GBR' }),
    });
    expect(created.status).toBe(200);

    await project.write(customersFile, original.replace('summary: List customers', 'summary: List every customer'));
    await until('the edited contract', async () => ((await summaryOfListCustomers(dev.url)) === 'List every customer' ? true : undefined), dev);
    const listed = (await (await fetch(`${dev.url}/v1/partner/customers`, { headers: { authorization: key } })).json()) as { payload: { data: { email: string }[] } };
    expect(listed.payload.data.map((customer) => customer.email)).toEqual(['dev@example.com']);

    const lines = original.split('\n').length;
    await project.write(customersFile, `${original.replace('summary: List customers', 'summary: Broken')}broken: [\n`);
    const refusal = await until('the refusal', async () => /\[dev\] [^\n]*changed: not served[^\n]*\n(?:.*\n)*?.*/.exec(dev.output())?.[0], dev);
    expect(refusal).toContain(`${dev.url} keeps serving the last good contract`);
    expect(dev.output()).toContain(`${customersFile}:${lines + 1}:1`);
    expect(await summaryOfListCustomers(dev.url)).toBe('List every customer');
  }, 90_000);

  it('serves the docs of the contract as it is after each save, not one save behind', async () => {
    for (const summary of ['List the customers, first edit', 'List the customers, second edit']) {
      await project.write(customersFile, original.replace('summary: List customers', `summary: ${summary}`));
      await until(`the docs of "${summary}"`, async () => ((await docsAsLoaded(dev.url)).includes(summary) ? true : undefined), dev, 60_000);
    }
  }, 150_000);

  it('leaves the mock as it is on a save that changes nothing it serves', async () => {
    const before = dev.output().length;
    // A comment: the bundle is the same.
    await project.write(customersFile, `${original.replace('summary: List customers', 'summary: List the customers, second edit')}# a note\n`);
    await until('the save', async () => (dev.output().slice(before).includes('the contract served is the same, nothing to do') ? true : undefined), dev);
  });
});

describe('npm run dev on a contract that fails', () => {
  let project: DevProject;
  afterAll(() => project?.remove());

  it('says that nothing is served and why, at file and line, listens nowhere, and serves once a save makes the contract pass', async () => {
    project = await copyProjectForDev();
    const original = await project.read(customersFile);
    // listCustomers takes createCustomer's operationId: Redocly's operation-operationId-unique, at line 2.
    await project.edit(customersFile, 'operationId: listCustomers', 'operationId: createCustomer');
    const dev = await project.startDev();

    await until('the refusal', async () => (dev.output().includes('nothing is served') ? true : undefined), dev, 60_000);
    const output = dev.output();
    expect(output).toMatch(/\[dev\] start: nothing is served: the contract does not pass/);
    expect(output).toContain(`${customersFile}:26:3`);
    expect(output).toContain('operation-operationId-unique');
    expect(output).not.toContain('keeps serving');
    await expect(fetch(`${dev.url}/_mock/health`)).rejects.toThrow();
    expect(dev.process.exitCode).toBeNull();

    await project.write(customersFile, original.replace('summary: List customers', 'summary: List customers, fixed'));
    await until('the mock, once the contract passes', healthy(dev.url), dev, 60_000);
    expect(await summaryOfListCustomers(dev.url)).toBe('List customers, fixed');
    expect(dev.output()).toContain(`serving the contract at ${dev.url}`);
  }, 150_000);
});
