/** The small pieces every view shares: JSON shown, headers, a copy button, a status badge, notices, what an action came to. */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { problemOf } from './api.ts';

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

export function CopyButton({ text, label }: { text: () => string; label: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      onClick={() => {
        void navigator.clipboard?.writeText(text()).catch(() => undefined);
        setDone(true);
        setTimeout(() => setDone(false), 1500);
      }}
    >
      {done ? 'Copied' : label}
    </button>
  );
}

export function StatusBadge({ status }: { status: number }) {
  const kind = status >= 500 ? 'server' : status >= 400 ? 'client' : status >= 300 ? 'redirect' : 'ok';
  return <span class={`status status-${kind}`}>{status}</span>;
}

export function Notice({ kind = 'info', children }: { kind?: 'info' | 'error'; children: ComponentChildren }) {
  return (
    <p class={`notice notice-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </p>
  );
}

/** A titled panel. */
export function Panel({ title, actions, children }: { title: string; actions?: ComponentChildren; children: ComponentChildren }) {
  return (
    <section class="panel" aria-label={title}>
      <header class="panel-head">
        <h2>{title}</h2>
        {actions ? <div class="actions">{actions}</div> : null}
      </header>
      {children}
    </section>
  );
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

export type CallResult = { data?: unknown; error?: unknown; response: Response };

/**
 * What a view's actions came to, and when to read its data again: `settle(message)` takes an action's result and
 * shows the message on success or the error envelope's code and message otherwise, then bumps `version` (which the
 * view's reads depend on); `notices` shows both.
 */
export function useOutcome() {
  const [problem, setProblem] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [version, setVersion] = useState(0);
  const reload = () => setVersion((current) => current + 1);
  return {
    problem,
    setProblem,
    version,
    reload,
    settle: (message: string) => (result: CallResult) => {
      if (result.data) {
        setNotice(message);
        setProblem(undefined);
      } else setProblem(problemOf(result));
      reload();
    },
    notices: (
      <>
        {problem ? <Notice kind="error">{problem}</Notice> : null}
        {notice ? <Notice>{notice}</Notice> : null}
      </>
    ),
  };
}
