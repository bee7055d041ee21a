/**
 * Forced answers: "the next N calls of createCompany answer 409 nameUnavailable", or until disarmed, with any status
 * and example the contract documents for the operation, and a delay; listed as the mock holds them, and disarmed.
 */
import { useEffect, useState } from 'preact/hooks';
import { adminClient, problemOf, type AdminSchemas } from '../../api.ts';
import { useChanges } from '../../live/changes.ts';
import { partnerKey } from '../../session.ts';
import type { useOutcome } from '../../ui/actions.tsx';
import { Panel } from '../../ui/layout.tsx';
import { TableHead } from '../../ui/text.tsx';
import { ArmForm } from './arm-form.tsx';

type Fault = AdminSchemas['Fault'];

export function ForcedAnswersPanel({ who, outcome }: { who: string; outcome: ReturnType<typeof useOutcome> }) {
  const [faults, setFaults] = useState<Fault[]>([]);
  const changed = useChanges(['faults']);
  const { setProblem, settle } = outcome;
  useEffect(() => {
    void adminClient()
      .GET('/_mock/faults')
      .then((result) => (result.data ? setFaults(result.data.payload.data) : setProblem(problemOf(result))));
  }, [partnerKey.value, changed]);
  const admin = adminClient();
  return (
    <Panel title="Forced answers">
      <ArmForm onArmed={(request) => void admin.POST('/_mock/faults', { body: request }).then(settle(`Armed for ${request.operationId}.`))} />
      <table class="grid">
        <caption>Armed for {who} requests</caption>
        <TableHead
          columns={[
            'Operation',
            'Answer',
            'Delay',
            'Left',
            'Partner',
            <button type="button" disabled={faults.length === 0} onClick={() => void admin.DELETE('/_mock/faults').then(settle('Every fault disarmed.'))}>
              Disarm all
            </button>,
          ]}
        />
        <tbody>
          {faults.length === 0 ? (
            <tr>
              <td colSpan={6} class="muted">
                Nothing armed: every request gets what the mock does.
              </td>
            </tr>
          ) : null}
          {faults.map((fault) => (
            <tr>
              <td>{fault.operationId}</td>
              <td>{fault.status === undefined ? '—' : `${fault.status}${fault.example ? ` ${fault.example}` : ''}`}</td>
              <td>{fault.delayMs ? `${fault.delayMs} ms` : '—'}</td>
              <td>{fault.count ?? 'until disarmed'}</td>
              <td>{fault.partner ?? 'every partner'}</td>
              <td>
                <button type="button" onClick={() => void admin.DELETE('/_mock/faults/{faultId}', { params: { path: { faultId: fault.id } } }).then(settle(`${fault.id} disarmed.`))}>
                  Disarm
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Panel>
  );
}
