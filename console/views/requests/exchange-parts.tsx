/** The parts of a request shown whole: a message (headers and body), the violations it met, the relay's verdict. */
import type { JournalExchange } from '../../api.ts';
import { HeadersTable, Json } from '../../ui/text.tsx';

/** How something broke the contract, each violation a line: an alert, so a screen reader says it at once. */
export function Violations({ title, violations }: { title: string; violations: readonly string[] }) {
  return (
    <div class="violations" role="alert">
      <h3>{title}</h3>
      <ul>
        {violations.map((violation) => (
          <li>{violation}</li>
        ))}
      </ul>
    </div>
  );
}

/** What the webhook relay made of an event a sandbox sent. */
export function RelayVerdict({ verdict }: { verdict: NonNullable<JournalExchange['webhook']> }) {
  const forwarded = {
    queued: `queued for ${verdict.endpointId}`,
    duplicate: 'not forwarded again: relayed to this endpoint before',
    unsubscribed: 'not forwarded: the endpoint does not subscribe to its type',
    'switched-off': 'not forwarded: the endpoint is switched off',
    refused: 'not forwarded',
  }[verdict.forwarded];
  return (
    <>
      <p class="summary">
        Webhook event {verdict.eventId ?? '(no webhook-id)'} · {verdict.type ?? '(no type)'} · signature {verdict.signature} · {forwarded}
      </p>
      {verdict.violations.length > 0 ? <Violations title="The event breaks the contract's webhooks" violations={verdict.violations} /> : null}
    </>
  );
}

export function Message({ title, message }: { title: string; message: JournalExchange['request'] | JournalExchange['response'] }) {
  if (!message) {
    return (
      <section class="message" aria-label={title}>
        <h3>{title}</h3>
        <p class="muted">Nothing {title === 'Answer' ? 'was answered (the client left first, or it was refused before it was read)' : 'was kept'}.</p>
      </section>
    );
  }
  const body = message.body;
  return (
    <section class="message" aria-label={title}>
      <h3>{title}</h3>
      <HeadersTable headers={Object.entries(message.headers)} />
      {body === null ? (
        <p class="muted">No body.</p>
      ) : body.text === null ? (
        <p class="muted">{body.bytes} bytes, not text (not kept).</p>
      ) : (
        <>
          <Json value={body.text} label={`${title} body`} />
          {body.truncated ? <p class="muted">Cut: the first {body.text.length} characters of {body.bytes} bytes.</p> : null}
        </>
      )}
    </section>
  );
}
