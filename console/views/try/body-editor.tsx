/** An operation's JSON body, pre-filled from one of its contract's examples, edited field by field, or whole as JSON. */
import { useMemo, useState } from 'preact/hooks';
import type { ContractDocument } from '../../../contract-model/document-nodes.ts';
import type { ContractOperation } from '../../../contract-model/operations.ts';
import { BodyFields } from './fields.tsx';
import { JsonEditor } from './json-editor.tsx';
import { bodyFields, type BodyExample } from './schema-form.ts';

type Body = Record<string, unknown>;

/** The body an example gives, to edit (a copy: the contract's stays as it is). */
export const bodyOf = (examples: readonly BodyExample[], name: string | undefined): Body => structuredClone((examples.find((example) => example.name === name)?.value as Body | undefined) ?? {});

export function BodyEditor(props: { document: ContractDocument; operation: ContractOperation; examples: readonly BodyExample[]; body: Body; onBody: (body: Body) => void }) {
  const { document, operation, examples, body, onBody } = props;
  const [exampleName, setExampleName] = useState(examples[0]?.name ?? '');
  const [asJson, setAsJson] = useState(false);
  const fields = useMemo(() => bodyFields(document, operation.requestBody?.content.get('application/json'), body), [operation, body]);
  return (
    <fieldset>
      <legend>Body</legend>
      <div class="inline">
        {examples.length > 1 ? (
          <label>
            Example
            <select
              value={exampleName}
              onChange={(event) => {
                const name = (event.currentTarget as HTMLSelectElement).value;
                setExampleName(name);
                onBody(bodyOf(examples, name));
              }}
            >
              {examples.map((example) => (
                <option value={example.name}>{example.summary ?? example.name}</option>
              ))}
            </select>
          </label>
        ) : null}
        <label class="check">
          <input type="checkbox" checked={asJson} onChange={(event) => setAsJson((event.currentTarget as HTMLInputElement).checked)} /> Edit as JSON
        </label>
      </div>
      {asJson ? <JsonEditor label="Body as JSON" value={body} onValue={(value) => onBody(value as Body)} /> : <BodyFields fields={fields} body={body} onBody={onBody} />}
    </fieldset>
  );
}
