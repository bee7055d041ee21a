/**
 * Values made up for one run. A long-lived sandbox remembers emails and idempotency keys, so each run marks its
 * own with a run id; the mock makes every new well-formed key a partner of its own, so a fresh key starts empty.
 */
import { randomBytes } from 'node:crypto';

const alphanumerics = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function randomAlphanumerics(length: number): string {
  return [...randomBytes(length)].map((byte) => alphanumerics[byte % alphanumerics.length]).join('');
}

export function newSandboxKey(): string {
  return `dk_test_${randomAlphanumerics(32)}`;
}

/** Short enough to go into emails and keys, unique enough to keep runs apart. */
export function newRunId(): string {
  return randomBytes(6).toString('hex');
}
