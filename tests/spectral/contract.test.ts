import { cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { houseRules, lint, repoRoot, type LintResult } from './lint.ts';

/** Breaks the copy at `file` by replacing `from`, which must be there, so that a reshaped contract fails loudly. */
async function breakFile(root: string, file: string, from: string, to: string): Promise<void> {
  const path = join(root, file);
  const text = await readFile(path, 'utf8');
  if (!text.includes(from)) throw new Error(`${file} no longer contains ${JSON.stringify(from)}: update this test`);
  await writeFile(path, text.replace(from, to));
}

// That the contract itself has no Spectral error or warning is `npm run lint:spectral` (the first stage of npm test,
// failing on a warning): linting it here again took 3 s of CPU for the same answer.
let broken: LintResult[];
let copy: string;

beforeAll(async () => {
  // The copy keeps the repository's layout, so the ruleset's overrides, functionsDir and extended rulesets (found in
  // node_modules) apply to it unchanged.
  copy = await mkdtemp(join(tmpdir(), 'house-rules-'));
  const entries = ['openapi', 'spectral', '.spectral.yaml'];
  await Promise.all(entries.map((entry) => cp(join(repoRoot, entry), join(copy, entry), { recursive: true })));
  await symlink(join(repoRoot, 'node_modules'), join(copy, 'node_modules'), 'dir');

  const idempotencyKey = '    - $ref: ../components/parameters/IdempotencyKey.yaml\n';
  await breakFile(copy, 'openapi/paths/v1_partner_customers.yaml', idempotencyKey, '');
  const createdExamples = '    type: boolean\n    examples: [true]\n';
  await breakFile(copy, 'openapi/components/schemas/Customer.yaml', createdExamples, '    type: boolean\n');
  // The field error codes' catalogue is in a file Spectral's own resolver never reads; the rule must still see it.
  const validationExample = 'openapi/components/examples/ErrorValidationFailed.yaml';
  await breakFile(copy, validationExample, 'code: E_FORMAT', 'code: E_NOT_A_FIELD_CODE');

  broken = await lint(join(copy, 'openapi/openapi.yaml'), join(copy, '.spectral.yaml'));
}, 60_000);

afterAll(async () => {
  if (copy) await rm(copy, { recursive: true, force: true });
});

describe('the contract', () => {
  it('is guarded by the house rules: breaking a copy of it makes them fire there', () => {
    const fired = broken
      .filter((result) => houseRules.includes(result.code))
      .map(({ code, source, path }) => ({ code, file: relative(copy, source ?? ''), path }));
    expect(fired).toEqual(
      expect.arrayContaining([
        { code: 'create-idempotency-key', file: 'openapi/paths/v1_partner_customers.yaml', path: ['post'] },
        {
          code: 'property-description-and-example',
          file: 'openapi/components/schemas/Customer.yaml',
          path: ['properties', 'created'],
        },
        {
          code: 'error-example-codes-in-enum',
          file: 'openapi/components/examples/ErrorValidationFailed.yaml',
          path: ['value', 'error', 'details', '0', 'code'],
        },
      ]),
    );
    expect(fired).toHaveLength(3);
  });
});
