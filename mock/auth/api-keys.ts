/**
 * API keys: `dk_test_` (sandbox) or `dk_live_` (production) followed by 24 to 64 letters and digits, sent raw in
 * `Authorization`. Each key is its own partner. A configured list of keys restricts which are accepted; it is
 * compared in constant time, and keys are only ever logged masked.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { maskCredentials } from '../../contract-model/credentials.ts';
import { contractFacts } from '../../generated/contract-facts.ts';
import type { ErrorCode } from '../../generated/openapi.js';

export type Environment = 'sandbox' | 'production';

/** The key format and prefixes are the contract's (x-key-format, x-key-prefixes on its ApiKey scheme). */
export const keyPrefixOf: Record<Environment, string> = contractFacts.apiKey.prefixes;

export const wellFormedKey = new RegExp(contractFacts.apiKey.format);

export interface Partner {
  /** Stable id derived from the key: data is partitioned by it. */
  id: string;
  /** The key as it is shown (`dk_test_…wxyz`: contract-model/credentials.ts). */
  maskedKey: string;
  /** The key itself, for the mock's own calls on the partner's behalf (a seed); never logged or shown. */
  key: string;
}

export type KeyVerdict = { ok: true; partner: Partner } | { ok: false; code: Extract<ErrorCode, 'E_AUTH_MISSING' | 'E_AUTH_INVALID'>; reason: string };

export interface KeyChecker {
  check(authorization: string | undefined): KeyVerdict;
}

export function createKeyChecker(environment: Environment, acceptedKeys?: readonly string[]): KeyChecker {
  const prefix = keyPrefixOf[environment];
  const accepted = acceptedKeys?.map(digest);
  const partners = new Map<string, Partner>();
  return {
    check(authorization) {
      if (authorization === undefined || authorization === '') return { ok: false, code: 'E_AUTH_MISSING', reason: 'no Authorization header' };
      if (/^bearer\s/i.test(authorization)) return { ok: false, code: 'E_AUTH_INVALID', reason: 'Bearer prefix' };
      if (!wellFormedKey.test(authorization)) return { ok: false, code: 'E_AUTH_INVALID', reason: 'malformed key' };
      if (!authorization.startsWith(prefix)) return { ok: false, code: 'E_AUTH_INVALID', reason: 'key of the other environment' };
      // With a list, every request pays the constant-time comparison; without one, a known key is a map read.
      if (accepted && !includesInConstantTime(accepted, digest(authorization))) return { ok: false, code: 'E_AUTH_INVALID', reason: 'unknown key' };
      let partner = partners.get(authorization);
      if (!partner) {
        partner = { id: `ptn_${digest(authorization).subarray(0, 12).toString('hex')}`, maskedKey: maskCredentials(authorization), key: authorization };
        // Bounded: the map only speeds up repeat lookups; forgetting an entry is harmless.
        if (partners.size >= 100_000) partners.clear();
        partners.set(authorization, partner);
      }
      return { ok: true, partner };
    },
  };
}

function digest(key: string): Buffer {
  return createHash('sha256').update(key).digest();
}

/** Compares against every accepted digest, so the time taken does not tell which, or whether one, matched. */
function includesInConstantTime(accepted: readonly Buffer[], candidate: Buffer): boolean {
  let found = false;
  for (const key of accepted) found = timingSafeEqual(key, candidate) || found;
  return found;
}
