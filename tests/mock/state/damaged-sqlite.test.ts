/**
 * A SQLite file damaged on disk (8 KiB overwritten in its middle, as a bad sector or a stray write leaves it): a
 * mock refuses to start on it, saying what to do, with no stack trace; a file that goes bad while the mock runs is
 * made again by a full reset (its secrets kept), where it answered 500 before; and no SQLite failure leaves a
 * transaction open behind it. A normal file is checked at start too: its start stays under a second.
 */
import { spawn } from 'node:child_process';
import { existsSync, openSync, closeSync, fstatSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secrets } from '../../../mock/app/secrets.ts';
import { table } from '../../../mock/store/store.ts';
import { customerBody, newIdempotencyKey } from '../support/http-fixtures.ts';
import { startTestMock, type TestMock } from '../support/mock-harness.ts';
import { processFixture, type ProcessFixture } from './support/mock-processes.ts';

const projectRoot = fileURLToPath(new URL('../../../', import.meta.url));

let fixture: ProcessFixture;
beforeAll(async () => {
  fixture = await processFixture('damaged-sqlite');
});
afterAll(() => fixture.cleanUp());

/** Overwrites 8 KiB in the middle of the file (on a page boundary) with bytes no page holds. */
function damage(path: string): void {
  const file = openSync(path, 'r+');
  try {
    const middle = Math.floor(fstatSync(file).size / 2 / 4096) * 4096;
    writeSync(file, Buffer.alloc(8192, 0x5a), 0, 8192, middle);
  } finally {
    closeSync(file);
  }
}

/** What SQLite's quick_check finds: `ok`, the problems, or the error that stopped it. */
function quickCheck(path: string): string {
  const db = new DatabaseSync(path);
  try {
    return (db.prepare('PRAGMA quick_check').all() as { quick_check: string }[]).map((row) => row.quick_check).join('; ');
  } catch (error) {
    return (error as Error).message;
  } finally {
    db.close();
  }
}

/**
 * A table of the tests' own, filled well past SQLite's page cache (2 MiB), so that the middle of the file is read
 * from disk; its rows small, so that the middle of the file is pages of its tree (not of values spilled over), whose
 * damage SQLite sees as such.
 */
const filler = table<string>('filler', { ordered: true });

async function fill(mock: TestMock, megabytes: number): Promise<void> {
  const value = 'x'.repeat(200);
  for (let batch = 0; batch < megabytes * 4; batch += 1) {
    await mock.store.write((tx) => {
      for (let row = 0; row < 1000; row += 1) tx.put(filler, `${String(batch).padStart(5, '0')}-${String(row).padStart(4, '0')}`, value);
    });
  }
}

function runMock(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['.build/main.mjs', '--port', '0', '--log-format', 'json', ...args], { cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // A mock that starts on the file serves instead of exiting: stopped, so that the test fails rather than hangs.
    const serving = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.on('exit', (code) => {
      clearTimeout(serving);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('a SQLite file damaged on disk', () => {
  it('is refused at start with what to do, exiting non-zero without a stack trace', async () => {
    const path = join(fixture.folder, 'refused.db');
    const mock = await fixture.start(['--store', `sqlite:${path}`]);
    // A few megabytes, as a mock used for a while holds.
    for (let index = 0; index < 200; index += 1) await mock.call('/v1/partner/customers', { body: customerBody(), idempotencyKey: newIdempotencyKey() });
    await mock.stop();
    damage(path);
    expect(quickCheck(path)).not.toBe('ok');

    const started = await runMock(['--store', `sqlite:${path}`]);
    expect(started.code).not.toBe(0);
    expect(started.code).not.toBeNull();
    expect(started.stderr).toContain(`the SQLite store ${path} is damaged`);
    expect(started.stderr).toContain(`mv ${path}`);
    expect(started.stderr).toContain('--store sqlite:');
    expect(started.stderr).not.toMatch(/^\s+at /m);
    expect(started.stdout).not.toContain('listening');
  });

  it('checks a normal file at start, and the start stays under a second', async () => {
    const path = join(fixture.folder, 'normal.db');
    const first = await fixture.start(['--store', `sqlite:${path}`]);
    for (let index = 0; index < 200; index += 1) await first.call('/v1/partner/customers', { body: customerBody(), idempotencyKey: newIdempotencyKey() });
    await first.stop();
    const again = await fixture.start(['--store', `sqlite:${path}`]);
    console.log(`start on a checked SQLite file: ${again.startupMs} ms`);
    // Generous for a loaded machine; the figure is printed.
    expect(again.startupMs).toBeLessThan(3_000);
    expect((await again.call('/v1/partner/customers?limit=1')).json.payload.data).toHaveLength(1);
    await again.stop();
  });
});

describe('a SQLite file that goes bad while the mock runs', () => {
  let mock: TestMock | undefined;
  afterAll(() => mock?.close());

  it('is made again by a full reset, its secrets kept, and serves again', async () => {
    const path = join(fixture.folder, 'goes-bad.db');
    mock = await startTestMock({ store: { kind: 'sqlite', path } });
    const webhookSecret = await mock.store.read((tx) => tx.get(secrets, 'webhook-secret'));
    const cursorKey = await mock.store.read((tx) => tx.get(secrets, 'cursor-key'));
    expect(cursorKey).toBeDefined();
    await fill(mock, 12);
    damage(path);

    // What meets the damage fails, and leaves no transaction open behind it: a write elsewhere still commits.
    const reading = await mock.store.read((tx) => tx.scan(filler, { low: '', high: '~', reverse: false, limit: 100_000 }).length).catch((error: Error) => error);
    expect(reading).toBeInstanceOf(Error);
    const other = table<number>('other_writes');
    await mock.store.write((tx) => tx.put(other, 'after-damage', 1));

    const reset = await mock.call('/_mock/reset', { method: 'POST', key: null });
    expect(reset.status).toBe(200);
    expect(existsSync(`${path}.damaged`)).toBe(true);
    expect(await mock.store.read((tx) => tx.get(secrets, 'cursor-key'))).toBe(cursorKey);
    expect(await mock.store.read((tx) => tx.get(secrets, 'webhook-secret'))).toBe(webhookSecret);
    expect(await mock.store.read((tx) => tx.get(filler, '00000-0000'))).toBeUndefined();

    const created = await mock.call('/v1/partner/customers', { body: customerBody(), idempotencyKey: newIdempotencyKey() });
    expect(created.status).toBe(200);
    expect((await mock.call(`/v1/partner/customers/${created.json.payload.serviceCustomerId}`)).status).toBe(200);
    // The process holds the file while it runs.
    await mock.close();
    mock = undefined;
    expect(quickCheck(path)).toBe('ok');
  }, 60_000);
});
