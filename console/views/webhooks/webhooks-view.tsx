/**
 * Webhooks: the session partner's endpoints (the partner portal, simulated), with their subscriptions and state,
 * and the events the mock made, each with its payload and every delivery attempt; redeliver an event, re-enable an
 * endpoint, rotate its secret, add one. Both follow the mock: a delivery shows in flight, then how it went.
 */
import { partnerKey } from '../../session.ts';
import { useOutcome } from '../../ui/actions.tsx';
import { Notice } from '../../ui/layout.tsx';
import { EndpointsPanel } from './endpoints-panel.tsx';
import { EventsPanel } from './events-panel.tsx';
import { ReceiverGradePanel } from './receiver-grade-panel.tsx';

export function WebhooksView() {
  const outcome = useOutcome();
  if (!partnerKey.value) return <Notice>Webhook endpoints and events belong to a partner: enter its API key above.</Notice>;
  return (
    <div class="stack">
      {outcome.notices}
      <EndpointsPanel outcome={outcome} />
      <ReceiverGradePanel outcome={outcome} />
      <EventsPanel outcome={outcome} />
    </div>
  );
}
