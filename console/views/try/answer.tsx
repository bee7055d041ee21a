/** What Try's request got: its status and time, its headers, and its body (or a link to open a file). */
import { HeadersTable, Json, StatusBadge } from '../../ui/text.tsx';
import type { Sent } from './send-request.ts';

export function Answer({ sent }: { sent: Sent }) {
  return (
    <div class="answer">
      <p class="summary">
        <StatusBadge status={sent.status} /> <span class="muted">{sent.ms.toFixed(0)} ms</span>
      </p>
      <HeadersTable headers={sent.headers} />
      {'text' in sent.body ? (
        <Json value={sent.body.text} label="Answer body" />
      ) : (
        <p>
          {sent.body.bytes} bytes of {sent.body.type}.{' '}
          <a href={sent.body.url} target="_blank" rel="noopener">
            Open it
          </a>
        </p>
      )}
    </div>
  );
}
