/**
 * The report a run through the mock as a proxy ends with (`npm run test:sandbox` with `CONTRACT_BASE_URL` pointing
 * at a mock started with `--upstream`): every contract violation the proxy journaled while the suite ran, counted
 * per operation and side (the request the suite sent, the answer the upstream gave, the webhook event the sandbox
 * sent the relay, counted under its type), with one example each, as a Markdown table a partner can send to the
 * API's owners; then, given the partner's key, the events the relay refused (their signature did not hold), which
 * are counted on the partner's endpoints rather than journaled. Read from the proxy's admin API; nothing when the
 * target is not a proxy.
 */
import { mockAdminClient, type JournalEntry, type MockAdminClient } from './mock-admin.ts';

export interface ViolationRow {
  operation: string;
  side: 'request' | 'response' | 'webhook';
  count: number;
  example: string;
}

/** The journal's violations, per operation and side, most frequent first. */
export function violationRows(entries: readonly JournalEntry[]): ViolationRow[] {
  const rows = new Map<string, ViolationRow>();
  const add = (entry: JournalEntry, side: ViolationRow['side'], violations: readonly string[] | undefined, operation = entry.operationId ?? `${entry.method} ${entry.path}`) => {
    for (const violation of violations ?? []) {
      const key = `${operation} ${side}`;
      const row = rows.get(key) ?? { operation, side, count: 0, example: violation };
      row.count += 1;
      rows.set(key, row);
    }
  };
  for (const entry of entries) {
    if (entry.operationId === 'relayWebhook') {
      addWebhook(entry, add);
      continue;
    }
    add(entry, 'request', entry.requestViolations);
    // Only an upstream's answer: the proxy's own answers (a refusal, a fallback) are the mock's, checked apart.
    if (entry.upstream?.outcome === 'answered' && !entry.upstream.fallback) add(entry, 'response', entry.contractViolations);
  }
  return [...rows.values()].sort((a, b) => b.count - a.count || a.operation.localeCompare(b.operation));
}

/** An event the webhook relay received and verified (only those are journaled): its contract violations, under its type. */
function addWebhook(entry: JournalEntry, add: (entry: JournalEntry, side: ViolationRow['side'], violations: readonly string[] | undefined, operation?: string) => void): void {
  const verdict = entry.webhook;
  if (verdict) add(entry, 'webhook', verdict.violations, verdict.type ?? 'relayWebhook');
}

/** A line per endpoint of the partner whose relay refused events since `since`: a wrong `relay.secret`, most often. */
async function relayRefusalLines(admin: MockAdminClient, since: string | undefined): Promise<string[]> {
  const endpoints = (await admin.GET('/_mock/webhook-endpoints')).data?.payload.data ?? [];
  return endpoints.flatMap(({ id, relay }) => {
    const last = relay.refusals.last;
    if (!last || (since !== undefined && last.at < since.replace(/\.\d+Z$/, 'Z'))) return [];
    return [`The relay of ${id} refused ${relay.refusals.count} event(s) since its secret was set (signature ${last.signature}), the last at ${last.at}: ${last.reason}`];
  });
}

export function violationsTable(rows: readonly ViolationRow[], upstream: string): string {
  if (rows.length === 0) return `Contract violations seen through the proxy (upstream ${upstream}): none.`;
  const cell = (text: string) => text.replaceAll('|', '\\|').replace(/\s+/g, ' ');
  return [
    `Contract violations seen through the proxy (upstream ${upstream}):`,
    '',
    '| Operation | Side | Count | Example |',
    '|---|---|---:|---|',
    ...rows.map((row) => `| ${cell(row.operation)} | ${row.side} | ${row.count} | ${cell(row.example)} |`),
  ].join('\n');
}

/**
 * The report of a proxy at `baseUrl` over its journal since `since` (ISO time), with the refusals of the relay URLs
 * of the partner of `apiKey`, when given; undefined when it is not a proxy.
 */
export async function proxyViolationsReport(baseUrl: string, options: { since?: string; adminToken?: string; apiKey?: string } = {}): Promise<string | undefined> {
  const admin = mockAdminClient(baseUrl, options.adminToken ? { adminToken: options.adminToken } : {});
  const health = await admin.GET('/_mock/health');
  const upstream = health.data?.payload.upstream;
  if (!upstream) return undefined;
  const entries: JournalEntry[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await admin.GET('/_mock/requests', { params: { query: { limit: 1000, ...(cursor ? { cursor } : {}) } } });
    const data = page.data?.payload;
    if (!data) break;
    entries.push(...data.data.filter((entry) => options.since === undefined || entry.at >= options.since));
    const oldest = data.data[0];
    if (!data.nextCursor || (options.since !== undefined && oldest !== undefined && oldest.at < options.since)) break;
    cursor = data.nextCursor;
  }
  const table = violationsTable(violationRows(entries), upstream);
  const refusals = options.apiKey === undefined ? [] : await relayRefusalLines(mockAdminClient(baseUrl, { apiKey: options.apiKey, ...(options.adminToken ? { adminToken: options.adminToken } : {}) }), options.since);
  return [table, ...(refusals.length > 0 ? ['', ...refusals] : [])].join('\n');
}
