/** How the views show what the mock sent: JSON, headers, times and statuses, and tables' heads. */
import type { ComponentChildren } from 'preact';
export function Json({ value, label }: { value: unknown; label?: string }) {
  const text = typeof value === 'string' ? prettyText(value) : JSON.stringify(value, null, 2);
  return (
    <pre class="json" tabIndex={0} aria-label={label}>
      {text}
    </pre>
  );
}

/** JSON text indented when it parses, as it is otherwise. */
export function prettyText(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

export function StatusBadge({ status }: { status: number }) {
  const kind = status >= 500 ? 'server' : status >= 400 ? 'client' : status >= 300 ? 'redirect' : 'ok';
  return <span class={`status status-${kind}`}>{status}</span>;
}

export function When({ at }: { at: string }) {
  const date = new Date(at);
  return (
    <time dateTime={at} title={at}>
      {date.toLocaleTimeString(undefined, { hour12: false })}.{String(date.getMilliseconds()).padStart(3, '0')}
    </time>
  );
}

/** Headers as a two-column table, name and value. */
export function HeadersTable({ headers }: { headers: Iterable<readonly [string, string]> }) {
  return (
    <table class="headers">
      <tbody>
        {[...headers].map(([name, value]) => (
          <tr>
            <th scope="row">{name}</th>
            <td>{value}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A table's head: one column heading each (text, or a control such as Disarm all). */
export function TableHead({ columns }: { columns: readonly ComponentChildren[] }) {
  return (
    <thead>
      <tr>
        {columns.map((column) => (
          <th scope="col">{column}</th>
        ))}
      </tr>
    </thead>
  );
}
