/**
 * What the request list shows: one operation, one status, one error code, as the journal filters them; and whether
 * the console's own calls are among them (its reads of what the views show, its controls): hidden unless asked, so
 * that the list is what the partner's app sent.
 */
import { contract } from '../../contract.ts';

export interface Filters {
  operationId: string;
  status: string;
  errorCode: string;
  withConsole: boolean;
}

export const noFilters: Filters = { operationId: '', status: '', errorCode: '', withConsole: false };

/** The journal's query for the filters: only those set. */
export function queryOf(filters: Filters): Record<string, string | number | boolean> {
  return {
    ...(filters.operationId ? { operationId: filters.operationId } : {}),
    ...(filters.status ? { status: Number(filters.status) } : {}),
    ...(filters.errorCode ? { errorCode: filters.errorCode } : {}),
    ...(filters.withConsole ? {} : { tool: 'none' }),
  };
}

export function RequestFilters({ filters, onFilters }: { filters: Filters; onFilters: (filters: Filters) => void }) {
  const operations = contract.value?.operations ?? [];
  return (
    <form class="filters" onSubmit={(event) => event.preventDefault()}>
      <label>
        Operation
        <select value={filters.operationId} onChange={(event) => onFilters({ ...filters, operationId: (event.currentTarget as HTMLSelectElement).value })}>
          <option value="">Any</option>
          {operations.map((operation) => (
            <option value={operation.operationId}>{operation.operationId}</option>
          ))}
        </select>
      </label>
      <label>
        Status
        <input inputMode="numeric" size={4} value={filters.status} onChange={(event) => onFilters({ ...filters, status: (event.currentTarget as HTMLInputElement).value.trim() })} placeholder="409" />
      </label>
      <label>
        Error code
        <input size={18} value={filters.errorCode} onChange={(event) => onFilters({ ...filters, errorCode: (event.currentTarget as HTMLInputElement).value.trim() })} placeholder="E_NAME_UNAVAILABLE" />
      </label>
      <label class="check">
        <input type="checkbox" checked={filters.withConsole} onChange={(event) => onFilters({ ...filters, withConsole: (event.currentTarget as HTMLInputElement).checked })} /> The console's own calls
      </label>
    </form>
  );
}
