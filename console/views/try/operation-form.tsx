/** The form of one operation: its parameters, its body, the answer to ask for with `Prefer`, and Send. */
import { useMemo, useState } from 'preact/hooks';
import type { ContractOperation, ContractParameter } from '../../../contract-model/operations.ts';
import type { LoadedContract } from '../../contract.ts';
import { partnerKey } from '../../session.ts';
import { Notice } from '../../ui/layout.tsx';
import { BodyEditor, bodyOf } from './body-editor.tsx';
import { Field } from './fields.tsx';
import { bodyExamples, parameterEdit, schemaExample } from './schema-form.ts';
import { idempotencyKeyOf, missingParameters, sendRequest, type Sent } from './send-request.ts';

/** Headers the session or the browser sets: not parameters to fill. */
const setElsewhere = new Set(['authorization']);

export function OperationForm({ loaded, operation, onSent }: { loaded: LoadedContract; operation: ContractOperation; onSent: (sent: Sent) => void }) {
  const { document } = loaded;
  const parameters = useMemo(() => operation.parameters.filter((parameter) => !(parameter.in === 'header' && setElsewhere.has(parameter.name.toLowerCase())) && parameter.in !== 'cookie'), [operation]);
  const takesJson = operation.requestBody?.content.has('application/json') ?? false;
  const [values, setValues] = useState<Record<string, string>>(() => initialValues(loaded, parameters));
  const examples = useMemo(() => bodyExamples(document, operation.method, operation.pathTemplate), [operation]);
  const [body, setBody] = useState<Record<string, unknown>>(() => bodyOf(examples, examples[0]?.name));
  const [prefer, setPrefer] = useState('');
  const [problem, setProblem] = useState<string>();
  const [sending, setSending] = useState(false);
  const answers = loaded.answersOf(operation).answers;

  const send = async () => {
    setProblem(undefined);
    const missing = missingParameters({ parameters, values });
    if (missing.length > 0) return setProblem(`Fill in ${missing.join(', ')}.`);
    setSending(true);
    try {
      onSent(await sendRequest({ operation, parameters, values, body, takesJson, prefer }));
      // A create sent again needs a key of its own, or it replays.
      if (operation.idempotent) setValues((current) => ({ ...current, ...idempotencyKeyOf(parameters) }));
    } catch (error) {
      setProblem(`The request failed: ${(error as Error).message}`);
    } finally {
      setSending(false);
    }
  };

  return (
    <form
      class="try-form"
      onSubmit={(event) => {
        event.preventDefault();
        void send();
      }}
    >
      <p class="summary">
        <b>{operation.method}</b> {operation.pathTemplate}
        {operation.apiKey !== 'none' && !partnerKey.value ? <span class="tag tag-violation">no partner key: the API answers 401</span> : null}
      </p>
      {parameters.length > 0 ? <ParameterFields document={document} parameters={parameters} values={values} onValues={setValues} /> : null}
      {takesJson ? <BodyEditor document={document} operation={operation} examples={examples} body={body} onBody={setBody} /> : null}
      <PreferChoice answers={answers} prefer={prefer} onPrefer={setPrefer} />
      <div class="inline">
        <button type="submit" class="primary" disabled={sending}>
          {sending ? 'Sending…' : 'Send'}
        </button>
      </div>
      {problem ? <Notice kind="error">{problem}</Notice> : null}
    </form>
  );
}

function ParameterFields(props: { document: LoadedContract['document']; parameters: ContractParameter[]; values: Record<string, string>; onValues: (values: Record<string, string>) => void }) {
  const { document, parameters, values, onValues } = props;
  return (
    <fieldset>
      <legend>Parameters</legend>
      {parameters.map((parameter) => (
        <Field
          name={parameter.name}
          label={`${parameter.name} (${parameter.in})`}
          required={parameter.required}
          edit={parameterEdit(document, parameter.schema)}
          value={values[parameter.name] ?? ''}
          placeholder={String(schemaExample(document, parameter.schema) ?? '')}
          onInput={(value) => onValues({ ...values, [parameter.name]: value })}
        />
      ))}
    </fieldset>
  );
}

/** `Prefer: code=…, example=…`: any answer the contract documents for the operation, instead of what the mock does. */
function PreferChoice({ answers, prefer, onPrefer }: { answers: ReturnType<LoadedContract['answersOf']>['answers']; prefer: string; onPrefer: (prefer: string) => void }) {
  return (
    <label class="wide">
      Answer with (Prefer)
      <select value={prefer} onChange={(event) => onPrefer((event.currentTarget as HTMLSelectElement).value)}>
        <option value="">What the mock does</option>
        {answers.map((answer) => (
          <option value={`code=${answer.status}, example=${answer.example}`}>
            {answer.status} — {answer.example}
          </option>
        ))}
      </select>
    </label>
  );
}

function initialValues(loaded: LoadedContract, parameters: ContractParameter[]): Record<string, string> {
  const values: Record<string, string> = {};
  for (const parameter of parameters) {
    if (parameter.in === 'path') values[parameter.name] = String(schemaExample(loaded.document, parameter.schema) ?? '');
  }
  return { ...values, ...idempotencyKeyOf(parameters) };
}
