/** The token of a claim (a formation step, a delivery lane): random, so that no other holder can forge it. */
import { randomBytes } from 'node:crypto';

export function newClaimToken(): string {
  return randomBytes(12).toString('base64url');
}
