/** The frame of every view: titled panels, and notices (an error is an alert, read out at once). */
import type { ComponentChildren } from 'preact';

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

export function Notice({ kind = 'info', children }: { kind?: 'info' | 'error'; children: ComponentChildren }) {
  return (
    <p class={`notice notice-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </p>
  );
}
