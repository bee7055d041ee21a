/**
 * Try: any operation of the API as a form made from its contract: its parameters, and its JSON body field by field
 * (or whole, as JSON), pre-filled from the contract's examples; sent with the session's key, and, when asked, with
 * `Prefer` for any answer the contract documents. The answer is shown with its headers.
 */
import { useState } from 'preact/hooks';
import type { ContractOperation } from '../../../contract-model/operations.ts';
import { contract } from '../../contract.ts';
import { Panel } from '../../ui/layout.tsx';
import { Answer } from './answer.tsx';
import { OperationForm } from './operation-form.tsx';
import type { Sent } from './send-request.ts';

export function TryView() {
  const loaded = contract.value;
  const [operationId, setOperationId] = useState('createCustomer');
  const [sent, setSent] = useState<Sent>();
  if (!loaded) return <Panel title="Try">{<p class="muted">Reading the contract…</p>}</Panel>;
  const operation = loaded.operations.find((candidate) => candidate.operationId === operationId) ?? (loaded.operations[0] as ContractOperation);
  const tags = [...new Set(loaded.operations.flatMap((candidate) => candidate.tags.slice(0, 1)))];
  return (
    <div class="split">
      <Panel title="Try">
        <label class="wide">
          Operation
          <select
            value={operation.operationId}
            onChange={(event) => {
              setOperationId((event.currentTarget as HTMLSelectElement).value);
              setSent(undefined);
            }}
          >
            {tags.map((tag) => (
              <optgroup label={tag}>
                {loaded.operations
                  .filter((candidate) => candidate.tags[0] === tag)
                  .map((candidate) => (
                    <option value={candidate.operationId}>
                      {candidate.operationId} — {candidate.method} {candidate.pathTemplate}
                    </option>
                  ))}
              </optgroup>
            ))}
          </select>
        </label>
        <OperationForm key={operation.operationId} loaded={loaded} operation={operation} onSent={setSent} />
      </Panel>
      <Panel title="Answer">{sent ? <Answer sent={sent} /> : <p class="muted">Send the request to see the answer, with its headers.</p>}</Panel>
    </div>
  );
}
