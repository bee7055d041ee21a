/**
 * What a request-journal entry costs, in bytes, for the journal's byte budget: every string it holds plus a fixed
 * allowance for the field names and numbers. Cheaper than serialising the entry on the hot path. The request's own
 * strings (path, id, method, header-derived values) are ASCII as HTTP carries them, so their length is their size;
 * violation messages may quote anything and are measured in UTF-8.
 */
import type { RequestRecord } from './store.ts';

const fixedBytes = 256;

export function journalRecordBytes(record: RequestRecord): number {
  let bytes = fixedBytes + record.requestId.length + record.method.length + record.path.length;
  bytes += (record.operationId?.length ?? 0) + (record.partnerId?.length ?? 0) + (record.partner?.length ?? 0) + (record.errorCode?.length ?? 0);
  for (const violation of record.contractViolations ?? []) bytes += Buffer.byteLength(violation) + 4;
  return bytes;
}
