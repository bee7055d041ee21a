/**
 * The client as a package, tried from its packed tarball as a consumer would: a fresh project with a default
 * `tsc --init` (strict, nodenext) installs it and compiles against its declarations, and esbuild bundles it for the
 * browser (no Node built-in needed) at a size that is printed and kept bounded.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildClientPackage } from '../../client/package/build.ts';
import { newProjectTsc, typescriptCompilers } from '../support/typescript.ts';

const root = new URL('../../', import.meta.url).pathname;
const bin = (name: string) => join(root, 'node_modules', '.bin', name);
let consumer: string;

const usage = (property: string) => `import { createPartnerClient, verifyWebhook, PartnerApiError } from '@partner-formation/client';

export async function main(): Promise<string> {
  const api = createPartnerClient({ baseUrl: 'http://localhost:4010', apiKey: \`dk_test_\${'a'.repeat(24)}\` });
  const { payload: customer } = await api.createCustomer({ email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace', countryOfResidence: 'GBR' });
  const { payload: company } = await api.getCompany({ companyId: 'com_000000000000000000000000' });
  const event = await verifyWebhook('{}', {}, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
  if (event.type === 'document.ready') return event.data.documentId;
  void PartnerApiError;
  return \`\${customer.serviceCustomerId} \${company.${property}}\`;
}
`;

function typecheck(tsc: string): { ok: boolean; output: string } {
  try {
    // Bounded: a compiler that never ends must fail the test, not hold the whole run (nor pass as a refusal).
    execFileSync(tsc, ['--noEmit', '-p', consumer], { encoding: 'utf8', timeout: 120_000 });
    return { ok: true, output: '' };
  } catch (error) {
    const { stdout, signal } = error as { stdout?: string; signal?: string | null };
    if (signal) throw new Error(`tsc ended by ${signal} (no answer within 2 minutes)`, { cause: error });
    return { ok: false, output: String(stdout ?? error) };
  }
}

beforeAll(async () => {
  const tarball = await buildClientPackage();
  consumer = await mkdtemp(join(tmpdir(), 'client-consumer-'));
  const npm = (...args: string[]) => execFileSync('npm', args, { cwd: consumer, stdio: 'pipe' });
  npm('init', '-y');
  // An ESM project (the package is ESM only, as most new TypeScript projects are).
  npm('pkg', 'set', 'type=module');
  npm('install', '--no-audit', '--no-fund', tarball);
  execFileSync(newProjectTsc, ['--init'], { cwd: consumer, stdio: 'pipe' });
}, 120_000);

afterAll(async () => {
  if (consumer) await rm(consumer, { recursive: true, force: true });
});

// The declarations as both compilers a consumer may have read them (tests/support/typescript.ts).
describe.each(typescriptCompilers)('with $name', ({ tsc }) => {
  it('compiles in a default tsc --init project, with the contract types, and refuses a property the contract lacks', async () => {
    await writeFile(join(consumer, 'index.ts'), usage('status'));
    expect(typecheck(tsc)).toEqual({ ok: true, output: '' });
    await writeFile(join(consumer, 'index.ts'), usage('statusOfIt'));
    const refused = typecheck(tsc);
    expect(refused.ok).toBe(false);
    expect(refused.output).toContain("Property 'statusOfIt' does not exist");
  }, 60_000);

  it('exports a type named after each schema of the contract, and payloads by operationId, refusing an unknown one', async () => {
    const contract = JSON.parse(await readFile(join(root, 'generated', 'openapi.json'), 'utf8')) as { components: { schemas: Record<string, unknown> } };
    const schemas = Object.keys(contract.components.schemas);
    await writeFile(join(consumer, 'index.ts'), [
      `import type { ${schemas.join(', ')}, OperationParams, Payload, RequestBody } from '@partner-formation/client';`,
      `export type EverySchema = [${schemas.join(', ')}];`,
      "export const shown = (company: Payload<'getCompany'>): Company => company;",
      "export const status = (page: Payload<'listCompanies'>): FormationStatus | undefined => page.data[0]?.status;",
      "export const body = (request: RequestBody<'createCompany'>): CompanyCreateRequest => request;",
      "export const id = (params: OperationParams<'getCustomer'>): string => params.customerId;",
      '',
    ].join('\n'));
    expect(typecheck(tsc)).toEqual({ ok: true, output: '' });
    await writeFile(join(consumer, 'index.ts'), "import type { Payload } from '@partner-formation/client';\nexport const unknownOperation = (payload: Payload<'getCompanny'>): string => payload.name;\n");
    const refused = typecheck(tsc);
    expect(refused.ok).toBe(false);
    expect(refused.output).toContain(`Type '"getCompanny"' does not satisfy the constraint`);
  }, 60_000);
});

it('bundles for the browser, minified, within 40 KB', async () => {
  await writeFile(join(consumer, 'browser.js'), "import { createPartnerClient, verifyWebhook } from '@partner-formation/client';\nglobalThis.client = { createPartnerClient, verifyWebhook };\n");
  execFileSync(bin('esbuild'), ['browser.js', '--bundle', '--minify', '--platform=browser', '--format=esm', '--outfile=bundle.js'], { cwd: consumer, stdio: 'pipe' });
  const { size } = await stat(join(consumer, 'bundle.js'));
  console.log(`the client bundled for the browser: ${(size / 1024).toFixed(1)} KB minified`);
  expect(size).toBeLessThan(40 * 1024);
}, 60_000);
