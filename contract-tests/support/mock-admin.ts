/**
 * The mock's own routes outside the contract (`/_mock/*`), for runs against a mock they started themselves:
 * faults to arm, and the request journal, where the mock notes every answer of its own that broke the contract.
 */
import type { OperationId } from '../../client/index.ts';
import type { Fault } from '../../mock/admin/faults.ts';
import type { JournalEntry } from '../../mock/admin/request-journal.ts';

/** What `POST /_mock/faults` takes: the next `count` (default 1) requests of the operation answer `status` or are held `delayMs`. */
export type FaultRequest = Omit<Fault, 'operationId' | 'count'> & { operationId: OperationId; count?: number };

export async function armMockFault(baseUrl: string, fault: FaultRequest): Promise<void> {
  const response = await fetch(`${baseUrl}/_mock/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(fault),
  });
  if (response.status !== 201) throw new Error(`Arming ${JSON.stringify(fault)} failed: ${response.status} ${await response.text()}`);
}

export async function clearMockFaults(baseUrl: string): Promise<void> {
  await fetch(`${baseUrl}/_mock/faults`, { method: 'DELETE' });
}

/**
 * Every answer the mock journaled as breaking the contract, one line each. The mock checks each of its answers
 * against the contract's schemas: where a tool compares less (Dredd compares bodies with examples only by their
 * keys), this is where a wrong type or enum value shows up.
 */
export async function mockContractViolations(baseUrl: string): Promise<string[]> {
  const requests = await readMockJournal(baseUrl);
  return requests
    .filter((entry) => (entry.contractViolations?.length ?? 0) > 0)
    .map((entry) => `${entry.method} ${entry.path} → ${entry.status} (${entry.requestId}): ${entry.contractViolations?.join('; ')}`);
}

/** The whole request journal, page by page (a page holds at most 1000 entries), oldest first. */
export async function readMockJournal(baseUrl: string): Promise<JournalEntry[]> {
  const pages: JournalEntry[][] = [];
  for (let cursor: string | null = null, first = true; first || cursor !== null; first = false) {
    const response = await fetch(`${baseUrl}/_mock/requests?limit=1000${cursor === null ? '' : `&cursor=${cursor}`}`);
    if (!response.ok) throw new Error(`GET /_mock/requests answered ${response.status}`);
    const page = (await response.json()) as { requests: JournalEntry[]; nextCursor: string | null };
    pages.unshift(page.requests);
    cursor = page.nextCursor;
  }
  return pages.flat();
}
