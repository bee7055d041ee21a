/**
 * Scenarios and settings: forced answers armed for the session partner (or, without a key, for every partner):
 * "the next N calls of createCompany answer 409 nameUnavailable", or until disarmed, with any status and example
 * the contract documents for the operation, and a delay; listed and disarmed here. Also the run-time settings, and
 * resetting the data.
 */
import { useEffect, useState } from 'preact/hooks';
import { adminClient, problemOf, type AdminSchemas } from '../api.ts';
import { contract } from '../contract.ts';
import { partnerKey } from '../session.ts';
import { Panel, useOutcome } from '../ui.tsx';

type Fault = AdminSchemas['Fault'];
/**
 * What `armFault` takes. Its generated type is `unknown` (the schema's `anyOf` of required names becomes unions
 * with `unknown`), so it is spelled from `Fault`'s generated properties, the same ones.
 */
type FaultArmRequest = Pick<Fault, 'operationId' | 'status' | 'example' | 'delayMs'> & { count: number | null };

export function ScenariosView() {
  const [faults, setFaults] = useState<Fault[]>([]);
  const [settings, setSettings] = useState<AdminSchemas['Settings']>();
  const { setProblem, version, settle: done, notices } = useOutcome();
  const key = partnerKey.value;
  useEffect(() => {
    const admin = adminClient();
    void admin.GET('/_mock/faults').then((result) => (result.data ? setFaults(result.data.payload.data) : setProblem(problemOf(result))));
    void admin.GET('/_mock/settings').then((result) => result.data && setSettings(result.data.payload));
  }, [key, version]);
  const admin = adminClient();
  const who = key ? "this partner's" : "every partner's";
  return (
    <div class="stack">
      {notices}
      <Panel title="Forced answers">
        <ArmForm onArmed={(request) => void admin.POST('/_mock/faults', { body: request }).then(done(`Armed for ${request.operationId}.`))} />
        <table class="grid">
          <caption>Armed for {who} requests</caption>
          <thead>
            <tr>
              <th scope="col">Operation</th>
              <th scope="col">Answer</th>
              <th scope="col">Delay</th>
              <th scope="col">Left</th>
              <th scope="col">Partner</th>
              <th scope="col">
                <button type="button" disabled={faults.length === 0} onClick={() => void admin.DELETE('/_mock/faults').then(done('Every fault disarmed.'))}>
                  Disarm all
                </button>
              </th>
            </tr>
          </thead>
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
                  <button type="button" onClick={() => void admin.DELETE('/_mock/faults/{faultId}', { params: { path: { faultId: fault.id } } }).then(done(`${fault.id} disarmed.`))}>
                    Disarm
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Panel>
      <Panel title="Settings">
        {settings ? (
          <label class="check">
            <input
              type="checkbox"
              checked={settings.validateResponses}
              onChange={(event) => void admin.PUT('/_mock/settings', { body: { validateResponses: (event.currentTarget as HTMLInputElement).checked } }).then(done('Settings saved.'))}
            />{' '}
            Check every answer against the contract for {who} requests (an answer that breaks it becomes a 500)
          </label>
        ) : null}
        <p>
          <button
            type="button"
            class="danger"
            onClick={() => {
              if (confirm(`Reset ${key ? "this partner's" : "every partner's"} data?`)) void admin.POST('/_mock/reset').then(done('Reset.'));
            }}
          >
            Reset {who} data
          </button>
        </p>
      </Panel>
    </div>
  );
}

function ArmForm({ onArmed }: { onArmed: (request: FaultArmRequest) => void }) {
  const operations = contract.value?.operations ?? [];
  const [operationId, setOperationId] = useState('createCompany');
  const [answer, setAnswer] = useState('');
  const [count, setCount] = useState('1');
  const [delayMs, setDelayMs] = useState('');
  const operation = operations.find((candidate) => candidate.operationId === operationId);
  const answers = operation ? (contract.value?.answersOf(operation).answers ?? []) : [];
  return (
    <form
      class="inline arm"
      aria-label="Arm a forced answer"
      onSubmit={(event) => {
        event.preventDefault();
        const chosen = answers.find((candidate) => `${candidate.status} ${candidate.example}` === answer);
        onArmed({
          operationId: operationId as FaultArmRequest['operationId'],
          ...(chosen ? { status: chosen.status as FaultArmRequest['status'], example: chosen.example } : {}),
          ...(delayMs ? { delayMs: Number(delayMs) } : {}),
          count: count === '' ? null : Number(count),
        } as FaultArmRequest);
      }}
    >
      <label>
        Operation
        <select value={operationId} onChange={(event) => (setOperationId((event.currentTarget as HTMLSelectElement).value), setAnswer(''))}>
          {operations.map((candidate) => (
            <option value={candidate.operationId}>{candidate.operationId}</option>
          ))}
        </select>
      </label>
      <label>
        Answer
        <select value={answer} onChange={(event) => setAnswer((event.currentTarget as HTMLSelectElement).value)}>
          <option value="">None (delay only)</option>
          {answers.map((candidate) => (
            <option value={`${candidate.status} ${candidate.example}`}>
              {candidate.status} — {candidate.example}
            </option>
          ))}
        </select>
      </label>
      <label>
        Next calls
        <input type="number" min={1} max={1000} size={5} value={count} placeholder="until disarmed" onInput={(event) => setCount((event.currentTarget as HTMLInputElement).value)} />
      </label>
      <label>
        Delay (ms)
        <input type="number" min={0} max={60000} size={6} value={delayMs} onInput={(event) => setDelayMs((event.currentTarget as HTMLInputElement).value)} />
      </label>
      <button type="submit" class="primary" disabled={!answer && !delayMs}>
        Arm
      </button>
    </form>
  );
}
