/** The session partner's webhook endpoints, read again whenever the mock says they changed: for every panel that lists them. */
import { useEffect, useState } from 'preact/hooks';
import { adminClient, problemOf, type AdminSchemas } from '../../api.ts';
import { useChanges } from '../../live/changes.ts';
import { partnerKey } from '../../session.ts';

export type Endpoint = AdminSchemas['WebhookEndpoint'];

export function usePartnerEndpoints(onProblem: (problem: string) => void): Endpoint[] {
  const [endpoints, setEndpoints] = useState<Endpoint[]>([]);
  const changed = useChanges(['endpoints']);
  useEffect(() => {
    void adminClient()
      .GET('/_mock/webhook-endpoints')
      .then((result) => (result.data ? setEndpoints(result.data.payload.data) : onProblem(problemOf(result))));
  }, [partnerKey.value, changed]);
  return endpoints;
}
