/**
 * The after-all check of every HTTP test file: the mock validates each of its responses against the contract and
 * keeps the verdict in its request journal, so a file whose requests all passed can still have made the mock
 * answer something the contract forbids. That must fail the file too.
 */
import { expect } from 'vitest';
import { readMockJournal } from '../../../contract-tests/support/mock-admin.ts';
import type { components } from '../../../generated/mock-admin/openapi.js';

type JournalEntry = components['schemas']['RequestJournalEntry'];

/** The mock's whole request journal, oldest first (with the admin token, when the mock runs with one, given or made). */
export function journalOf(mock: { url: string; config?: { adminToken?: string }; adminToken?: { value: string } | undefined }): Promise<JournalEntry[]> {
  const adminToken = mock.adminToken?.value ?? mock.config?.adminToken;
  return readMockJournal(mock.url, adminToken ? { adminToken } : {});
}

/**
 * Fails when a journaled request broke the contract, or was answered 5xx, without the test expecting it. A test that
 * provokes either on purpose sends its own `x-request-id` and lists it in `expected5xx` (an answer that breaks the
 * contract is always sent as a 500).
 */
export async function expectCleanJournal(mock: Parameters<typeof journalOf>[0] & { logs?: Record<string, unknown>[] }, options: { expected5xx?: Iterable<string> } = {}): Promise<void> {
  const expected = new Set(options.expected5xx ?? []);
  // The admin routes are not journaled, but an answer of theirs that breaks the admin contract is logged (and sent
  // as a 500), like one of the API's: the mock's log says so where the test can see it.
  const brokenAdminAnswers = (mock.logs ?? []).filter((line) => line.msg === 'response breaks the contract' && !expected.has(String(line.requestId)));
  expect(brokenAdminAnswers, 'answers that broke a contract, as logged').toEqual([]);
  const entries = await journalOf(mock);
  const violations = entries.filter((entry) => entry.contractViolations !== undefined && !expected.has(entry.requestId));
  // A 5xx the request asked for (Prefer) is no failure of the mock.
  const unexpected5xx = entries.filter((entry) => entry.status >= 500 && !entry.forced && !expected.has(entry.requestId));
  expect(violations, 'responses that broke the contract').toEqual([]);
  expect(unexpected5xx, 'unexpected 5xx answers').toEqual([]);
}

/** Checks the journal, then closes the mock whatever the check found. */
export async function closeCheckingJournal(mock: (Parameters<typeof journalOf>[0] & { logs?: Record<string, unknown>[]; close(): Promise<void> }) | undefined, options: { expected5xx?: Iterable<string> } = {}): Promise<void> {
  if (!mock) return;
  try {
    await expectCleanJournal(mock, options);
  } finally {
    await mock.close();
  }
}
