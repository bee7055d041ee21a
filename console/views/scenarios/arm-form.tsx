/** The form that arms a fault: an operation, one of the answers its contract documents, how many calls, a delay. */
import { useState } from 'preact/hooks';
import type { AdminSchemas } from '../../api.ts';
import { contract } from '../../contract.ts';

type Fault = AdminSchemas['Fault'];
/**
 * What `armFault` takes. Its generated type is `unknown` (the schema's `anyOf` of required names becomes unions
 * with `unknown`), so it is spelled from `Fault`'s generated properties, the same ones.
 */
export type FaultArmRequest = Pick<Fault, 'operationId' | 'status' | 'example' | 'delayMs'> & { count: number | null };

export function ArmForm({ onArmed }: { onArmed: (request: FaultArmRequest) => void }) {
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
