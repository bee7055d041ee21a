/** Where `npm test` puts its stages' scratch files (scripts/test-stages/scratch.ts). */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chooseScratch, neededBytes, thisMachine, type ScratchMachine } from '../../scripts/test-stages/scratch.ts';

const tmpfs = 0x01021994;
const ext4 = 0xef53;

const machine = (overrides: Partial<ScratchMachine> = {}): ScratchMachine => ({
  platform: 'linux',
  uid: 1000,
  env: {},
  memoryFolder: '/dev/shm',
  statfs: () => ({ type: tmpfs, freeBytes: 8 * 1024 ** 3 }),
  freeMemory: () => 16 * 1024 ** 3,
  ownFolder: () => undefined,
  ...overrides,
});

describe('chooseScratch', () => {
  it('takes a folder of its own in a memory file system with room to spare', () => {
    expect(chooseScratch(machine())).toEqual({ folder: '/dev/shm/partner-formation-kit-1000', says: expect.stringContaining('/dev/shm/partner-formation-kit-1000, in memory (8.0 GiB free there') });
  });

  it('leaves the files where TMPDIR says, when it says', () => {
    expect(chooseScratch(machine({ env: { TMPDIR: '/var/scratch' } }))).toEqual({ says: 'scratch files in /var/scratch (TMPDIR)' });
    expect(chooseScratch(machine({ env: { TMPDIR: '' } })).folder).toBe('/dev/shm/partner-formation-kit-1000');
  });

  it.each([
    ['a system other than Linux', machine({ platform: 'darwin' }), 'no memory file system is looked for'],
    ['no /dev/shm', machine({ statfs: () => undefined }), '/dev/shm is not a memory file system'],
    ['a /dev/shm on disk', machine({ statfs: () => ({ type: ext4, freeBytes: 100 * 1024 ** 3 }) }), '/dev/shm is not a memory file system'],
    ["a container's 64 MB /dev/shm", machine({ statfs: () => ({ type: tmpfs, freeBytes: 64 * 1024 ** 2 }) }), '/dev/shm has 0.1 GiB free, less than the 2.0 GiB'],
    ['little memory free', machine({ freeMemory: () => neededBytes }), '2.0 GiB of memory free, less than 4.0 GiB'],
    ["a folder that is not this user's", machine({ ownFolder: () => 'belongs to another user' }), '/dev/shm/partner-formation-kit-1000 belongs to another user'],
  ])('keeps the system temporary directory on %s, saying why', (_, given, why) => {
    const choice = chooseScratch(given);
    expect(choice.folder).toBeUndefined();
    expect(choice.says).toContain(why);
    expect(choice.says).toContain('set TMPDIR to choose a folder');
  });
});

describe("this machine's folder check", () => {
  const scratch = mkdtempSync(join(tmpdir(), 'scratch-choice-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  const uid = process.getuid!();

  it('makes the folder for this user alone, and takes it again as it is', () => {
    const folder = join(scratch, 'mine');
    expect(thisMachine.ownFolder(folder, uid)).toBeUndefined();
    expect(thisMachine.ownFolder(folder, uid)).toBeUndefined();
  });

  it("refuses a link, a folder open to others, another user's, and one it cannot make", () => {
    mkdirSync(join(scratch, 'elsewhere'), { mode: 0o700 });
    symlinkSync(join(scratch, 'elsewhere'), join(scratch, 'link'));
    expect(thisMachine.ownFolder(join(scratch, 'link'), uid)).toBe('is not a folder');
    mkdirSync(join(scratch, 'open'));
    chmodSync(join(scratch, 'open'), 0o777);
    expect(thisMachine.ownFolder(join(scratch, 'open'), uid)).toBe('is open to other users');
    expect(thisMachine.ownFolder(join(scratch, 'elsewhere'), uid + 1)).toBe('belongs to another user');
    expect(thisMachine.ownFolder(join(scratch, 'missing', 'deeper'), uid)).toBe('cannot be made (ENOENT)');
  });
});
