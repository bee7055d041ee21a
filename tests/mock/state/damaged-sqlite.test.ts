/**
 * A SQLite file damaged on disk (8 KiB overwritten in its middle, as a bad sector or a stray write leaves it): a
 * mock refuses to start on it, saying what to do, with no stack trace. A file that goes bad under a running mock is
 * answered 503 naming the damage (in the answer, the health and the log) for every request from the first that meets
 * it, where reads that met it answered 500 before, until a full reset makes it again (its secrets kept); and no
 * SQLite failure leaves a transaction open behind it. A normal file is checked at start too: its start stays under a
 * second.
 */
import { spawn } from 'node:child_process';
import { existsSync, openSync, closeSync, fstatSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secrets } from '../../../mock/app/secrets.ts';
import { createKeyChecker } from '../../../mock/auth/api-keys.ts';
import { createCustomer } from '../../../mock/customers/customer-records.ts';
import { newId } from '../../../mock/ids.ts';
import { openStore } from '../../../mock/store/open-store.ts';
import { StoreDamaged } from '../../../mock/store/store-error.ts';
import { table } from '../../../mock/store/store.ts';
import { customerBody, eventually, newIdempotencyKey } from '../support/http-fixtures.ts';
import { sandboxKey, startTestMock, type TestMock } from '../support/mock-harness.ts';
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

/** Overwrites the given pages (numbered from 1, as SQLite numbers them) with bytes no page holds. */
function damagePages(path: string, pages: readonly number[], pageSize: number): void {
  const file = openSync(path, 'r+');
  try {
    for (const page of pages) writeSync(file, Buffer.alloc(pageSize, 0x5a), 0, pageSize, (page - 1) * pageSize);
  } finally {
    closeSync(file);
  }
}

/** The leaf pages of a SQL table, and the file's page size (SQLite's dbstat; the file must not be in use). */
function leafPagesOf(path: string, sqlTable: string): { pages: number[]; pageSize: number } {
  const db = new DatabaseSync(path);
  try {
    const rows = db.prepare("SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf'").all(sqlTable) as { pageno: number }[];
    const pageSize = Number((db.prepare('PRAGMA page_size').get() as { page_size: number }).page_size);
    return { pages: rows.map((row) => Number(row.pageno)), pageSize };
  } finally {
    db.close();
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

  it('checks a normal file at start and serves what it holds', async () => {
    const path = join(fixture.folder, 'normal.db');
    const first = await fixture.start(['--store', `sqlite:${path}`]);
    for (let index = 0; index < 200; index += 1) await first.call('/v1/partner/customers', { body: customerBody(), idempotencyKey: newIdempotencyKey() });
    await first.stop();
    const again = await fixture.start(['--store', `sqlite:${path}`]);
    // The check's cost is a figure to read, not to assert (this machine is shared): quick_check reads each page once,
    // 1 to 3 ms a MiB as measured in sqlite-file.ts.
    console.log(`start on a checked SQLite file: ${again.startupMs} ms`);
    expect((await again.call('/v1/partner/customers?limit=1')).json.payload.data).toHaveLength(1);
    await again.stop();
  });
});

describe('a SQLite page damaged under a running mock process', () => {
  it('is answered 503 naming the cause, reads and writes alike, never 500, until a full reset makes the file again', async () => {
    const path = join(fixture.folder, 'damaged-under-a-process.db');
    // A partner with many customers, written as the mock writes them, before it starts: more pages than SQLite's
    // page cache holds (2 MiB), so that after the check at start most of them are read from disk again.
    const partner = createKeyChecker('sandbox').check(sandboxKey);
    if (!partner.ok) throw new Error('the test key is refused');
    const store = await openStore({ kind: 'sqlite', path });
    for (let batch = 0; batch < 12; batch += 1) {
      await store.write((tx) => {
        for (let n = 0; n < 1000; n += 1) {
          const body = customerBody();
          createCustomer(tx, partner.partner.id, { serviceCustomerId: newId('cus'), email: body.email, firstName: body.firstName, lastName: body.lastName, countryOfResidence: body.countryOfResidence, phoneNumber: null, createdAt: new Date().toISOString() });
        }
      });
    }
    await store.close();
    const { pages, pageSize } = leafPagesOf(path, 't_customers');
    expect(pages.length * pageSize).toBeGreaterThan(2 * 1024 * 1024);

    const mock = await fixture.start(['--store', `sqlite:${path}`]);
    damagePages(path, pages, pageSize);

    // Every customer listed, a page at a time, until a read meets the damage.
    let read = await mock.call('/v1/partner/customers?limit=100');
    for (let pagesRead = 0; read.status === 200 && read.json.payload.hasMore && pagesRead < 200; pagesRead += 1) {
      read = await mock.call(`/v1/partner/customers?limit=100&cursor=${encodeURIComponent(read.json.payload.nextCursor)}`);
    }
    expect(read.status).toBe(503);
    expect(read.json.error.code).toBe('E_SERVICE_UNAVAILABLE');
    expect(read.json.error.message).toMatch(/damaged/);
    expect(read.json.error.message).toContain('POST /_mock/reset');

    // Once met, the damage is the store's answer to everything: a write, and a read of what was never damaged.
    const write = await mock.call('/v1/partner/customers', { body: customerBody(), idempotencyKey: newIdempotencyKey() });
    expect(write.status).toBe(503);
    expect(write.json.error.code).toBe('E_SERVICE_UNAVAILABLE');
    expect(write.json.error.message).toMatch(/damaged/);
    expect((await mock.call('/v1/partner/customers?limit=1')).status).toBe(503);

    // The health names the cause and the way out; retrying alone never helps, so it sets no Retry-After.
    const health = await mock.call('/_mock/health', { key: null });
    expect(health.status).toBe(503);
    expect(health.json.payload.status).toBe('unavailable');
    expect(health.json.payload.checks.store.status).toBe('damaged');
    expect(health.json.payload.checks.store.error).toContain(`the SQLite store ${path} is damaged`);
    expect(health.json.payload.checks.store.error).toContain('POST /_mock/reset');
    expect(health.headers.get('retry-after')).toBeNull();
    // And so does the log, as an error: someone has to act. (Lines are written a few KiB at a time.)
    const logged = () => readFileSync(mock.logFile, 'utf8').split('\n').filter((line) => line.includes(`the SQLite store ${path} is damaged`));
    await eventually(() => logged().length > 0, 10_000, 'the damage logged');
    expect(logged().every((line) => JSON.parse(line).level === 50)).toBe(true);

    // A partner's reset cannot mend the file: it meets the damage too, and says what can.
    const partnerReset = await mock.call('/_mock/reset', { method: 'POST' });
    expect(partnerReset.status).toBe(503);
    expect(partnerReset.json.error.message).toContain("without a partner's key");
    // A full reset makes the file again, and the mock serves again.
    expect((await mock.call('/_mock/reset', { method: 'POST', key: null })).status).toBe(200);
    expect(existsSync(`${path}.damaged`)).toBe(true);
    expect((await mock.call('/_mock/health', { key: null })).status).toBe(200);
    const created = await mock.call('/v1/partner/customers', { body: customerBody(), idempotencyKey: newIdempotencyKey() });
    expect(created.status).toBe(200);
    expect((await mock.call(`/v1/partner/customers/${created.json.payload.serviceCustomerId}`)).status).toBe(200);
    await mock.stop();
    expect(quickCheck(path)).toBe('ok');
  }, 90_000);
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

    // A write that meets the damage fails with it, the store's own error (a 503), not SQLite's (a 500); and from
    // then on so does everything, a read or a write elsewhere as much, until the file is made again.
    const writing = await mock.store.write((tx) => tx.put(filler, 'after-damage', String(tx.scan(filler, { low: '', high: '~', reverse: false, limit: 100_000 }).length))).catch((error: Error) => error);
    expect(writing).toBeInstanceOf(StoreDamaged);
    expect((writing as Error).message).toContain(`the SQLite store ${path} is damaged`);
    const other = table<number>('other_writes');
    await expect(mock.store.write((tx) => tx.put(other, 'after-damage', 1))).rejects.toBe(writing);
    await expect(mock.store.read((tx) => tx.get(other, 'after-damage'))).rejects.toBe(writing);
    await expect(mock.store.hold((tx) => tx.get(other, 'after-damage'))).rejects.toBe(writing);

    const reset = await mock.call('/_mock/reset', { method: 'POST', key: null });
    expect(reset.status).toBe(200);
    expect(existsSync(`${path}.damaged`)).toBe(true);
    expect(await mock.store.read((tx) => tx.get(secrets, 'cursor-key'))).toBe(cursorKey);
    expect(await mock.store.read((tx) => tx.get(secrets, 'webhook-secret'))).toBe(webhookSecret);
    expect(await mock.store.read((tx) => tx.get(filler, '00000-0000'))).toBeUndefined();

    // No transaction was left open behind the failures: the new file takes writes.
    await mock.store.write((tx) => tx.put(other, 'after-reset', 1));
    const created = await mock.call('/v1/partner/customers', { body: customerBody(), idempotencyKey: newIdempotencyKey() });
    expect(created.status).toBe(200);
    expect((await mock.call(`/v1/partner/customers/${created.json.payload.serviceCustomerId}`)).status).toBe(200);
    // The process holds the file while it runs.
    await mock.close();
    mock = undefined;
    expect(quickCheck(path)).toBe('ok');
  }, 60_000);
});
