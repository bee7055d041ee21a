/**
 * Who the console acts as, kept for the browser tab's session (sessionStorage: gone when the tab closes, never sent
 * anywhere but this mock): a partner's API key, or none for every partner; and the admin token, when the mock asks
 * for one (`--admin-token`, or the one it printed for a `--public-url` others reach).
 */
import { signal } from '@preact/signals';
import { maskCredentials } from '../contract-model/credentials.ts';

const keyItem = 'mock-console.partner-key';
const tokenItem = 'mock-console.admin-token';

function stored(item: string): string {
  try {
    return sessionStorage.getItem(item) ?? '';
  } catch {
    return '';
  }
}

function keep(item: string, value: string): void {
  try {
    if (value) sessionStorage.setItem(item, value);
    else sessionStorage.removeItem(item);
  } catch {
    // Storage refused (a private window's quota): the value lasts until the page reloads.
  }
}

/** The partner's key; empty for every partner (admin views only). */
export const partnerKey = signal(stored(keyItem));
export const adminToken = signal(stored(tokenItem));

export function setPartnerKey(value: string): void {
  partnerKey.value = value.trim();
  keep(keyItem, partnerKey.value);
}

export function setAdminToken(value: string): void {
  adminToken.value = value.trim();
  keep(tokenItem, adminToken.value);
}

/** The key shown as the mock's journal shows it (`dk_test_…wxyz`), by the same rule. */
export function maskedKey(key: string): string {
  return maskCredentials(key);
}
