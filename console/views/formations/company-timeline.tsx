/** A company's timeline: its creation, then every webhook event the mock made for it, with how each was delivered. */
import type { AdminSchemas, ApiSchemas } from '../../api.ts';
import { Json, When } from '../../ui/text.tsx';

export function CompanyTimeline({ company, events }: { company: ApiSchemas['Company'] | undefined; events: AdminSchemas['MockEvent'][] }) {
  return (
    <>
      <h3>Timeline</h3>
      <ol class="timeline">
        {company ? (
          <li>
            <When at={company.createdAt} /> created ({company.status === 'PENDING' ? 'pending' : 'submitted for formation'})
          </li>
        ) : null}
        {events.map((event) => (
          <li key={event.id}>
            <details>
              <summary>
                <When at={event.createdAt} /> <b>{event.type}</b>{' '}
                {event.deliveries.map((delivery) => (
                  <span class={`tag delivery-${delivery.state}`}>
                    {delivery.endpointId}: {delivery.state}
                  </span>
                ))}
              </summary>
              <Json value={event.payload} label={`Payload of ${event.type}`} />
            </details>
          </li>
        ))}
      </ol>
    </>
  );
}
