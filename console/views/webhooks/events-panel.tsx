/** The partner's events, newest first, each opening on its payload and its deliveries. */
import { useEffect, useState } from 'preact/hooks';
import { adminClient, problemOf, type AdminSchemas } from '../../api.ts';
import { useChanges } from '../../live/changes.ts';
import { partnerKey } from '../../session.ts';
import type { useOutcome } from '../../ui/actions.tsx';
import { Panel } from '../../ui/layout.tsx';
import { Json, When } from '../../ui/text.tsx';
import { DeliveryTags, EventDeliveries } from './event-deliveries.tsx';

type MockEvent = AdminSchemas['MockEvent'];

export function EventsPanel({ outcome }: { outcome: ReturnType<typeof useOutcome> }) {
  const [events, setEvents] = useState<MockEvent[]>([]);
  const changed = useChanges(['events']);
  useEffect(() => {
    void adminClient()
      .GET('/_mock/events', { params: { query: { limit: 100 } } })
      .then((result) => (result.data ? setEvents(result.data.payload.data) : outcome.setProblem(problemOf(result))));
  }, [partnerKey.value, changed]);
  return (
    <Panel title="Events">
      {events.length === 0 ? <p class="muted">No events yet: they come as formations move (Customers and companies).</p> : null}
      <ol class="events">
        {events.map((event) => (
          <li key={event.id}>
            <details>
              <summary>
                <When at={event.createdAt} /> <b>{event.type}</b> <span class="muted">{event.id}</span> <DeliveryTags event={event} />
              </summary>
              <div class="side-by-side">
                <section aria-label={`Payload of ${event.id}`}>
                  <h3>Payload</h3>
                  <Json value={event.payload} label={`Payload of ${event.id}`} />
                </section>
                <EventDeliveries event={event} settle={outcome.settle} />
              </div>
            </details>
          </li>
        ))}
      </ol>
    </Panel>
  );
}
