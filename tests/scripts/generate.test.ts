/**
 * `npm run generate` on a contract that does not bundle: it stops with exit 1 and says where, at the file and line
 * of the source an editor jumps to, and leaves generated/ as it was. (That it writes generated/ as committed is
 * `npm run check:generated`, a stage of `npm test`.)
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;

describe('npm run generate on a contract that does not bundle', () => {
  let copy: string;

  beforeAll(async () => {
    copy = await mkdtemp(join(tmpdir(), 'generate-'));
    const entries = ['scripts', 'contract-model', 'contract-changes', 'openapi', 'mock/admin/openapi', 'generated', 'redocly.yaml', 'CHANGELOG.md', 'package.json'];
    await Promise.all(entries.map((entry) => cp(join(root, entry), join(copy, entry), { recursive: true })));
    await symlink(join(root, 'node_modules'), join(copy, 'node_modules'), 'dir');
  });

  afterAll(async () => {
    if (copy) await rm(copy, { recursive: true, force: true });
  });

  it('exits 1, naming the file and line of the $ref it cannot resolve, and leaves generated/ as it was', async () => {
    const rootFile = join(copy, 'openapi/openapi.yaml');
    const text = await readFile(rootFile, 'utf8');
    const ref = '$ref: paths/v1_partner_customers.yaml';
    expect(text).toContain(ref);
    await writeFile(rootFile, text.replace(ref, '$ref: paths/v1_partner_nothing.yaml'));
    const line = text.slice(0, text.indexOf(ref)).split('\n').length;
    const before = await readFile(join(copy, 'generated/openapi.json'), 'utf8');

    const outcome = await promisify(execFile)(join(copy, 'node_modules/.bin/tsx'), [join(copy, 'scripts/generate.ts')], { cwd: copy }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(outcome.code).toBe(1);
    expect(outcome.stderr.trim().split('\n')).toEqual([
      'generating openapi.json failed:',
      expect.stringMatching(new RegExp(`^  openapi/openapi\\.yaml:${line}:\\d+: Can't resolve \\$ref: .*paths/v1_partner_nothing\\.yaml.* \\(bundler\\)$`)),
    ]);
    expect(await readFile(join(copy, 'generated/openapi.json'), 'utf8')).toBe(before);
  });
});
