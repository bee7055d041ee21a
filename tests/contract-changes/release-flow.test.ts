/**
 * The release flow as a maintainer runs it, on a copy of the project: `release:contract` refuses versions that do
 * not fit the changes and releases one that does (release file, info.version, generated/, CHANGELOG.md), and
 * `check:breaking` fails on a breaking edit with a report that names it.
 */
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addRelease, unreleasedNotes, unreleasedPlaceholder } from '../../contract-changes/changelog-file.ts';
import { parseVersion, refuseVersion } from '../../contract-changes/releases.ts';
import { runCommand, type CommandResult } from '../support/run-command.ts';

const root = new URL('../../', import.meta.url).pathname;
let project: string;

function run(script: string, ...args: string[]): Promise<CommandResult> {
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
  return runCommand(join(project, 'node_modules', '.bin', 'tsx'), [join(project, script), ...args], { cwd: project, env });
}

const release = (...args: string[]) => run('contract-changes/cli/release.ts', ...args);
const checkBreaking = () => run('contract-changes/cli/check-breaking.ts');

async function edit(file: string, from: string, to: string): Promise<void> {
  const path = join(project, file);
  const text = await readFile(path, 'utf8');
  if (!text.includes(from)) throw new Error(`${file} has no ${from}`);
  await writeFile(path, text.replace(from, to));
}

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), 'release-flow-'));
  const copied = ['openapi', 'releases', 'CHANGELOG.md', 'contract-changes', 'contract-model', 'scripts', 'mock/admin/openapi', 'package.json', 'redocly.yaml', 'generated'];
  for (const path of copied) await cp(join(root, path), join(project, path), { recursive: true });
  await symlink(join(root, 'node_modules'), join(project, 'node_modules'));
  // Start from the contract as it is, released as 1.0.0, whatever this clone has released or not yet.
  await rm(join(project, 'releases'), { recursive: true });
  await rm(join(project, 'CHANGELOG.md'));
  await writeFile(join(project, 'contract-changes', 'accepted-breaking-changes.yaml'), 'accepted: []\n');
  const first = await release('1.0.0', '--date', '2026-11-23');
  if (first.code !== 0) throw new Error(`the first release failed: ${first.stderr}`);
}, 300_000);

afterAll(async () => {
  if (project) await rm(project, { recursive: true, force: true });
});

describe('versions that fit the changes', () => {
  const latest = parseVersion('1.4.2')!;
  it.each([
    ['patch', '1.4.3', true], ['patch', '1.5.0', true], ['patch', '2.0.0', true], ['patch', '1.4.4', false], ['patch', '1.4.2', false],
    ['minor', '1.5.0', true], ['minor', '1.4.3', false], ['minor', '1.6.0', false],
    ['major', '2.0.0', true], ['major', '1.5.0', false],
    ['none', '1.4.3', false],
  ] as const)('%s changes: %s is %s', (level, version, fits) => {
    expect(refuseVersion(parseVersion(version)!, latest, level) === undefined).toBe(fits);
  });
});

describe('CHANGELOG.md', () => {
  it('moves the hand-written notes under the new version, above its changes, and empties Unreleased', () => {
    const before = `# Changelog\n\n## Unreleased\n\n${unreleasedPlaceholder}\n\nPartners may now filter by colour.\n\n## 1.0.0 — 2026-11-23\n\nFirst release.\n`;
    const after = addRelease(before, { version: '1.1.0', date: '2026-12-01', changes: '### Added\n\n- a filter.' });
    expect(unreleasedNotes(after)).toBe('');
    expect(after).toMatch(/## 1\.1\.0 — 2026-12-01\n\nPartners may now filter by colour\.\n\n### Added\n\n- a filter\.\n\n## 1\.0\.0 — 2026-11-23\n\nFirst release\./);
  });
});

describe('the release flow on a copy of the project', () => {
  it('refuses to release when nothing changed, and a malformed version', async () => {
    expect(await release('1.0.1')).toMatchObject({ code: 2, stderr: expect.stringContaining('nothing to release') });
    expect(await release('one')).toMatchObject({ code: 2, stderr: expect.stringContaining('not a semantic version') });
  });

  it('releases a description edit as a patch, and only as the next version', async () => {
    await edit('openapi/paths/v1_partner_customers.yaml', 'summary: Create a customer', 'summary: Create one customer');
    expect(await release('1.0.2')).toMatchObject({ code: 2, stderr: expect.stringContaining('the version is 1.0.1 or 1.1.0 or 2.0.0') });
    const changelog = await readFile(join(project, 'CHANGELOG.md'), 'utf8');
    await writeFile(join(project, 'CHANGELOG.md'), changelog.replace(unreleasedPlaceholder, 'A clearer createCustomer.'));

    const released = await release('1.0.1', '--date', '2026-12-01');
    expect(released.stderr).toBe('');
    expect(released.code).toBe(0);
    const file = JSON.parse(await readFile(join(project, 'releases', 'openapi-1.0.1.json'), 'utf8'));
    expect(file.info.version).toBe('1.0.1');
    expect(await readFile(join(project, 'openapi', 'openapi.yaml'), 'utf8')).toMatch(/^info:\n(?:.*\n)*?  version: 1\.0\.1$/m);
    expect(JSON.parse(await readFile(join(project, 'generated', 'openapi.json'), 'utf8')).info.version).toBe('1.0.1');
    const updated = await readFile(join(project, 'CHANGELOG.md'), 'utf8');
    expect(updated).toMatch(/## 1\.0\.1 — 2026-12-01\n\nA clearer createCustomer\.\n\n### Changed\n\n- \*\*(GET|POST) \/v1\/partner\/customers/);
    expect(await checkBreaking()).toMatchObject({ code: 0, stdout: expect.stringContaining('No breaking change against release 1.0.1') });
  }, 120_000);

  it('fails check:breaking on a breaking edit, naming its file and line, where it applies, why, and its pointer', async () => {
    await edit('openapi/components/schemas/CustomerCreateRequest.yaml', 'required: [email, firstName, lastName, countryOfResidence]', 'required: [email, firstName, lastName, countryOfResidence, phoneNumber]');
    const result = await checkBreaking();
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('1 breaking change against release 1.0.1:\n\n✖ CustomerCreateRequest  (openapi/components/schemas/CustomerCreateRequest.yaml:5)\n');
    expect(result.stdout).toContain('    now required: phoneNumber — in the request body of createCustomer\n    why: requests that leave it out are refused\n');
    expect(result.stdout).toContain('    at #/paths/~1v1~1partner~1customers/post/requestBody/content/application~1json/schema/required\n');
    expect(await release('1.1.0')).toMatchObject({ code: 2, stderr: expect.stringContaining('they need a major release') });
  }, 60_000);

  it('lets a break made on purpose through once it is listed with its reason, and releases it as a minor', async () => {
    const accepted = join(project, 'contract-changes', 'accepted-breaking-changes.yaml');
    await writeFile(accepted, 'accepted:\n  - what: "^now required: phoneNumber$"\n    reason: A phone number is needed to file with the state, which now calls the responsible party.\n');
    const checked = await checkBreaking();
    expect(checked.code).toBe(0);
    expect(checked.stdout).toContain('No breaking change against release 1.0.1');
    expect(checked.stdout).toContain('✔ 1 place: A phone number is needed to file with the state');

    expect(await release('1.1.0', '--date', '2026-12-02')).toMatchObject({ code: 0 });
    expect(await readFile(join(project, 'CHANGELOG.md'), 'utf8')).toMatch(/## 1\.1\.0 — 2026-12-02\n\n### Breaking, accepted within v1\n\n- A phone number is needed/);
    expect(await readFile(accepted, 'utf8')).toMatch(/^accepted: \[\]$/m);

    await writeFile(accepted, 'accepted:\n  - what: "^nothing like this$"\n    reason: An entry that matches no change at all, left behind.\n');
    expect(await checkBreaking()).toMatchObject({ code: 1, stderr: expect.stringContaining('accepts a change that is not there') });
    await writeFile(accepted, 'accepted: []\n');
  }, 120_000);

  it('fails check:breaking when info.version is set by hand', async () => {
    await edit('openapi/openapi.yaml', 'version: 1.1.0', 'version: 1.2.0');
    const result = await checkBreaking();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('the version is set by `npm run release:contract -- VERSION`');
  }, 60_000);
});
