/**
 * The mock's package used as a frontend's tests use it: its tarball installed in an empty project beside msw and
 * vitest (the versions the kit pins), and a vitest test there runs the handlers of `@partner-formation/mock/msw`
 * behind `setupServer`: a create answered, replayed, refused with field errors and forced to 409; the journal read,
 * a seed loaded, a webhook delivered to the handler the test registered; an unknown option refused with its code.
 * The project's TypeScript compiles against the package's declarations, and a browser bundler takes the entry's
 * browser build, with nothing of Node in it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { newProjectTsc, typescriptCompilers } from '../support/typescript.ts';

const root = join(import.meta.dirname, '..', '..');
let consumer: string;

const frontendTest = (seed: string) => `import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { createMock, MockAdminError, type SeedDocument } from '@partner-formation/mock/msw';

const mock = await createMock({ options: { 'formation-timeline': 'manual' } });
const server = setupServer(...mock.handlers);
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterEach(() => mock.reset());
afterAll(() => (server.close(), mock.close()));

const key = 'dk_test_${'P'.repeat(24)}';
const ada = { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace', countryOfResidence: 'GBR' };
const create = (body: unknown, idempotencyKey: string) =>
  fetch(\`\${mock.baseUrl}/v1/partner/customers\`, { method: 'POST', headers: { authorization: key, 'content-type': 'application/json', 'idempotency-key': idempotencyKey }, body: JSON.stringify(body) });

it('answers, replays, refuses and forces as the mock does, and journals what was sent', async () => {
  const first = await create(ada, 'k-1');
  expect(first.status).toBe(200);
  const replay = await create(ada, 'k-1');
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  const refused = await create({ ...ada, email: 'ada@' }, 'k-2');
  expect(refused.status).toBe(400);
  expect((await refused.json()).error.details[0]).toMatchObject({ field: '/email', code: 'E_FORMAT' });
  await mock.arm({ operationId: 'createCustomer', status: 409, example: 'idempotencyKeyInProgress' }, key);
  const forced = await create(ada, 'k-3');
  expect([forced.status, forced.headers.get('retry-after')]).toEqual([409, '1']);
  const page = await mock.requests({ operationId: 'createCustomer' }, key);
  expect(page.data.map((entry) => entry.status)).toEqual([200, 200, 400, 409]);
  expect((await mock.exchange(page.data[0]!.id, key)).request?.body?.text).toBe(JSON.stringify(ada));
});

it('loads a seed, and delivers the webhooks of its formations to the handler the test registered', async () => {
  const deliveries: Request[] = [];
  const stop = mock.onWebhook((delivery) => void deliveries.push(delivery));
  const report = await mock.seed(${seed} as SeedDocument);
  expect(report.customers.created).toBeGreaterThan(0);
  await expect.poll(() => deliveries.length, { timeout: 10_000 }).toBeGreaterThan(0);
  stop();
  expect(deliveries[0]!.headers.get('webhook-signature')).toMatch(/^v1,/);
  expect(((await deliveries[0]!.json()) as { type: string }).type).toMatch(/^company\\./);
});

it('refuses an option that is not one, with a code to branch on', async () => {
  await expect(createMock({ options: { 'no-such-option': 'x' } })).rejects.toMatchObject({ code: 'E_MOCK_OPTION_INVALID' });
  await expect(mock.arm({ operationId: 'createCustomer', status: 418 } as never, key)).rejects.toBeInstanceOf(MockAdminError);
});
`;

beforeAll(async () => {
  const tarball = inject('mockPackage');
  const kit = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
  consumer = await mkdtemp(join(tmpdir(), 'mock-msw-consumer-'));
  const npm = (...args: string[]) => execFileSync('npm', args, { cwd: consumer, stdio: 'pipe' });
  npm('init', '-y');
  npm('pkg', 'set', 'type=module');
  // What a frontend's project has: msw and its test runner, at the versions the kit pins; then the mock's tarball.
  npm('install', '--no-audit', '--no-fund', '--prefer-offline', tarball, `msw@${kit.devDependencies.msw}`, `vitest@${kit.devDependencies.vitest}`);
  execFileSync(newProjectTsc, ['--init'], { cwd: consumer, stdio: 'pipe' });
  const seed = await readFile(join(root, 'examples', 'seed.json'), 'utf8');
  await writeFile(join(consumer, 'mock.test.ts'), frontendTest(seed.trim()));
}, 300_000);

afterAll(async () => {
  if (consumer) await rm(consumer, { recursive: true, force: true });
});

it('gives working handlers in a vitest test of the project that installed it with msw', () => {
  // Fails (throws, with the run's output) when any test there fails; the count shows that all three ran.
  const output = execFileSync(join(consumer, 'node_modules', '.bin', 'vitest'), ['run'], { cwd: consumer, encoding: 'utf8', timeout: 120_000, env: { ...withoutVitest(process.env), CI: 'true', NO_COLOR: '1' } });
  expect(stripVTControlCharacters(output)).toMatch(/Tests\s+3 passed \(3\)/);
}, 150_000);

it.each(typescriptCompilers)("compiles against the package's declarations in a default tsc --init project, with $name", ({ tsc }) => {
  // Strict, nodenext: the test above as the project's own TypeScript reads it.
  const compiled = (() => {
    try {
      return execFileSync(tsc, ['--noEmit', '-p', consumer], { encoding: 'utf8', timeout: 120_000 });
    } catch (error) {
      return String((error as { stdout?: string }).stdout ?? error);
    }
  })();
  expect(compiled).toBe('');
}, 150_000);

it('is bundled for a browser from its browser build, with nothing of Node in it', async () => {
  await writeFile(join(consumer, 'page.ts'), "import { createMock } from '@partner-formation/mock/msw';\nexport const mock = await createMock();\n");
  const bundled = await build({ entryPoints: [join(consumer, 'page.ts')], absWorkingDir: consumer, bundle: true, format: 'esm', platform: 'browser', write: false, metafile: true, external: ['msw'], logLevel: 'silent' });
  const inputs = Object.keys(bundled.metafile.inputs);
  expect(inputs.some((input) => input.endsWith('dist/browser/msw-browser.mjs'))).toBe(true);
  expect(bundled.outputFiles.map((file) => new TextDecoder().decode(file.contents)).join('')).not.toMatch(/from\s*"node:|require\("node:/);
});

/** The environment without this run's VITEST* variables, which would tell the project's vitest it runs inside a worker. */
function withoutVitest(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('VITEST')));
}
