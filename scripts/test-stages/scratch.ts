/**
 * Where the stages of `npm test` write their scratch files: the temporary directory they get (`TMPDIR`). The tests
 * write and delete files that nothing needs afterwards (the CI templates' test installs the kit's 471 MB of packages
 * into a copy of the repository; the package tests install tarballs; the review, release and recording tests copy
 * the project into git repositories of their own): up to about 540 MB at once. On a disk the kernel journals and
 * trims every one of those writes and deletions, and what that costs grows with the churn: `npm ci` of this lockfile
 * took 29, 46 and 50 s of CPU in three runs in a row on this machine's ext4, and 24 to 27 s in memory
 * (BENCHMARKS.md, "Scratch files in memory"). So, unless `TMPDIR` says where they go, they go to a folder of
 * `/dev/shm` when that is a memory file system with room for that several times over, and to the system's temporary
 * directory otherwise (a container's default 64 MB `/dev/shm` is too small, and is left alone).
 */
import { lstatSync, mkdirSync, statfsSync } from 'node:fs';
import { freemem } from 'node:os';
import { join } from 'node:path';

/** Linux's `statfs` type of a tmpfs. */
const tmpfsType = 0x01021994;
/** What the memory file system must have free (the memory, twice that): a run peaks at about 540 MB of scratch files. */
export const neededBytes = 2 * 1024 ** 3;

export interface ScratchChoice {
  /** The folder the stages get as `TMPDIR`; none when they keep the one they would have had. */
  folder?: string;
  /** One line for the run's log: where the files go, and why. */
  says: string;
}

export interface ScratchMachine {
  platform: NodeJS.Platform;
  uid: number | undefined;
  env: NodeJS.ProcessEnv;
  /** `/dev/shm`, where a Linux machine has its memory file system. */
  memoryFolder: string;
  /** What statfs says of a folder: its file system type and the bytes free to an unprivileged user. */
  statfs(path: string): { type: number; freeBytes: number } | undefined;
  freeMemory(): number;
  /** Makes the folder, when missing, for this user alone; says why it cannot be used, or nothing when it can. */
  ownFolder(path: string, uid: number): string | undefined;
}

const gib = (bytes: number): string => `${(bytes / 1024 ** 3).toFixed(1)} GiB`;

export function chooseScratch(machine: ScratchMachine): ScratchChoice {
  const given = machine.env.TMPDIR;
  if (given !== undefined && given !== '') return { says: `scratch files in ${given} (TMPDIR)` };
  const fallback = (why: string): ScratchChoice => ({ says: `scratch files in the system's temporary directory (${why}; set TMPDIR to choose a folder)` });
  if (machine.platform !== 'linux' || machine.uid === undefined) return fallback('no memory file system is looked for on this system');
  const memory = machine.statfs(machine.memoryFolder);
  if (memory === undefined || memory.type !== tmpfsType) return fallback(`${machine.memoryFolder} is not a memory file system`);
  if (memory.freeBytes < neededBytes) return fallback(`${machine.memoryFolder} has ${gib(memory.freeBytes)} free, less than the ${gib(neededBytes)} a run may need`);
  const freeMemory = machine.freeMemory();
  if (freeMemory < 2 * neededBytes) return fallback(`${gib(freeMemory)} of memory free, less than ${gib(2 * neededBytes)}`);
  const folder = join(machine.memoryFolder, `partner-formation-kit-${machine.uid}`);
  const refused = machine.ownFolder(folder, machine.uid);
  if (refused !== undefined) return fallback(`${folder} ${refused}`);
  return { folder, says: `scratch files in ${folder}, in memory (${gib(memory.freeBytes)} free there; set TMPDIR to choose another folder)` };
}

/** This process's machine. */
export const thisMachine: ScratchMachine = {
  platform: process.platform,
  uid: process.getuid?.(),
  env: process.env,
  memoryFolder: '/dev/shm',
  statfs(path) {
    try {
      const stats = statfsSync(path);
      return { type: stats.type, freeBytes: stats.bavail * stats.bsize };
    } catch {
      return undefined;
    }
  },
  freeMemory: freemem,
  ownFolder(path, uid) {
    try {
      mkdirSync(path, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return `cannot be made (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
    }
    // A shared /dev/shm: a folder of that name made by someone else (or a link to elsewhere) is not this user's.
    const stats = lstatSync(path);
    if (!stats.isDirectory()) return 'is not a folder';
    if (stats.uid !== uid) return 'belongs to another user';
    if ((stats.mode & 0o077) !== 0) return 'is open to other users';
    return undefined;
  },
};
