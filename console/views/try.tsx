/**
 * Try: any operation of the API as a form made from its contract: its parameters, and its JSON body field by field
 * (or whole, as JSON), pre-filled from the contract's examples; sent with the session's key, and, when asked, with
 * `Prefer` for any answer the contract documents. The answer is shown with its headers.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { ContractOperation, ContractParameter } from '../../contract-model/operations.ts';
import { contract, type LoadedContract } from '../contract.ts';
import { partnerKey } from '../session.ts';
import { HeadersTable, Json, Notice, Panel, StatusBadge } from '../ui.tsx';
import { bodyExamples, bodyFields, parameterEdit, schemaExample, type BodyField, type FieldKind } from './schema-form.ts';

interface Sent {
  status: number;
  ms: number;
  headers: [string, string][];
  body: { text: string } | { bytes: number; type: string; url: string };
}

/** Headers the session or the browser sets: not parameters to fill. */
const setElsewhere = new Set(['authorization']);

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

function OperationForm({ loaded, operation, onSent }: { loaded: LoadedContract; operation: ContractOperation; onSent: (sent: Sent) => void }) {
  const { document } = loaded;
  const parameters = operation.parameters.filter((parameter) => !(parameter.in === 'header' && setElsewhere.has(parameter.name.toLowerCase())) && parameter.in !== 'cookie');
  const examples = useMemo(() => bodyExamples(document, operation.method, operation.pathTemplate), [operation]);
  const takesJson = operation.requestBody?.content.has('application/json') ?? false;
  const [values, setValues] = useState<Record<string, string>>(() => initialValues(loaded, parameters));
  const [exampleName, setExampleName] = useState(examples[0]?.name ?? '');
  const [body, setBody] = useState<Record<string, unknown>>(() => structuredClone((examples[0]?.value as Record<string, unknown> | undefined) ?? {}));
  const [asJson, setAsJson] = useState(false);
  const [prefer, setPrefer] = useState('');
  const [problem, setProblem] = useState<string>();
  const [sending, setSending] = useState(false);
  const fields = useMemo(() => bodyFields(document, operation.requestBody?.content.get('application/json'), body), [operation, body]);
  const answers = loaded.answersOf(operation).answers;

  const send = async () => {
    setProblem(undefined);
    const missing = parameters.filter((parameter) => parameter.required && !values[parameter.name] && !(parameter.in === 'header' && parameter.name.toLowerCase() === 'idempotency-key'));
    if (missing.length > 0) return setProblem(`Fill in ${missing.map((parameter) => parameter.name).join(', ')}.`);
    let path = operation.pathTemplate;
    const query = new URLSearchParams();
    const headers: Record<string, string> = {};
    for (const parameter of parameters) {
      const value = values[parameter.name];
      if (!value) continue;
      if (parameter.in === 'path') path = path.replace(`{${parameter.name}}`, encodeURIComponent(value));
      else if (parameter.in === 'query') query.set(parameter.name, value);
      else headers[parameter.name] = value;
    }
    if (operation.apiKey !== 'none' && partnerKey.value) headers.authorization = partnerKey.value;
    if (prefer) headers.prefer = prefer;
    if (takesJson) headers['content-type'] = 'application/json';
    const started = performance.now();
    setSending(true);
    try {
      const response = await fetch(`${path}${query.size ? `?${query}` : ''}`, { method: operation.method, headers, ...(takesJson ? { body: JSON.stringify(body) } : {}) });
      const type = response.headers.get('content-type') ?? '';
      const answered = /json|text/.test(type) ? { text: await response.text() } : await binaryOf(response, type);
      onSent({ status: response.status, ms: performance.now() - started, headers: [...response.headers.entries()], body: answered });
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
      {parameters.length > 0 ? (
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
              onInput={(value) => setValues({ ...values, [parameter.name]: value })}
            />
          ))}
        </fieldset>
      ) : null}
      {takesJson ? (
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
                    setBody(structuredClone((examples.find((example) => example.name === name)?.value as Record<string, unknown>) ?? {}));
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
          {asJson ? <JsonEditor label="Body as JSON" value={body} onValue={(value) => setBody(value as Record<string, unknown>)} /> : <BodyFields fields={fields} body={body} onBody={setBody} />}
        </fieldset>
      ) : null}
      <label class="wide">
        Answer with (Prefer)
        <select value={prefer} onChange={(event) => setPrefer((event.currentTarget as HTMLSelectElement).value)}>
          <option value="">What the mock does</option>
          {answers.map((answer) => (
            <option value={`code=${answer.status}, example=${answer.example}`}>
              {answer.status} — {answer.example}
            </option>
          ))}
        </select>
      </label>
      <div class="inline">
        <button type="submit" class="primary" disabled={sending}>
          {sending ? 'Sending…' : 'Send'}
        </button>
      </div>
      {problem ? <Notice kind="error">{problem}</Notice> : null}
    </form>
  );
}

function initialValues(loaded: LoadedContract, parameters: ContractParameter[]): Record<string, string> {
  const values: Record<string, string> = {};
  for (const parameter of parameters) {
    if (parameter.in === 'path') values[parameter.name] = String(schemaExample(loaded.document, parameter.schema) ?? '');
  }
  return { ...values, ...idempotencyKeyOf(parameters) };
}

function idempotencyKeyOf(parameters: ContractParameter[]): Record<string, string> {
  const parameter = parameters.find((candidate) => candidate.in === 'header' && candidate.name.toLowerCase() === 'idempotency-key');
  return parameter ? { [parameter.name]: crypto.randomUUID() } : {};
}

async function binaryOf(response: Response, type: string): Promise<Sent['body']> {
  const blob = await response.blob();
  return { bytes: blob.size, type, url: URL.createObjectURL(blob) };
}

function Field(props: { name: string; label: string; required: boolean; edit: FieldKind; value: string; placeholder?: string; onInput: (value: string) => void }) {
  const id = `field-${props.name}`;
  const common = { id, name: props.name, required: props.required };
  return (
    <div class="field">
      <label for={id}>
        {props.label}
        {props.required ? <span aria-hidden="true"> *</span> : null}
      </label>
      {props.edit.kind === 'choice' || props.edit.kind === 'boolean' ? (
        <select {...common} value={props.value} onChange={(event) => props.onInput((event.currentTarget as HTMLSelectElement).value)}>
          <option value="">—</option>
          {(props.edit.kind === 'choice' ? props.edit.options : ['true', 'false']).map((option) => (
            <option value={option}>{option}</option>
          ))}
        </select>
      ) : (
        <input
          {...common}
          {...(props.edit.kind === 'number' || props.edit.kind === 'integer' ? { type: 'number' as const } : { type: 'text' as const, list: undefined })}
          value={props.value}
          placeholder={props.placeholder}
          onInput={(event) => props.onInput((event.currentTarget as HTMLInputElement).value)}
        />
      )}
    </div>
  );
}

function BodyFields({ fields, body, onBody }: { fields: BodyField[]; body: Record<string, unknown>; onBody: (body: Record<string, unknown>) => void }) {
  const set = (name: string, value: unknown) => {
    const next = { ...body };
    if (value === undefined) delete next[name];
    else next[name] = value;
    onBody(next);
  };
  return (
    <div class="body-fields">
      {fields.map((field) =>
        field.edit.kind === 'json' ? (
          <JsonEditor key={field.name} label={`${field.name}${field.required ? ' *' : ''}`} value={body[field.name]} onValue={(value) => set(field.name, value)} />
        ) : (
          <Field
            key={field.name}
            name={`body-${field.name}`}
            label={field.name}
            required={field.required}
            edit={field.edit}
            value={body[field.name] === undefined || body[field.name] === null ? '' : String(body[field.name])}
            onInput={(text) => set(field.name, text === '' && !field.required ? undefined : field.edit.kind === 'number' || field.edit.kind === 'integer' ? Number(text) : field.edit.kind === 'boolean' ? text === 'true' : text)}
          />
        ),
      )}
    </div>
  );
}

/** A JSON value edited as text: applied when it parses, and said so when it does not. */
function JsonEditor({ label, value, onValue }: { label: string; value: unknown; onValue: (value: unknown) => void }) {
  const shown = value === undefined ? '' : JSON.stringify(value, null, 2);
  const [draft, setDraft] = useState(shown);
  const [bad, setBad] = useState(false);
  useEffect(() => {
    if (!bad) setDraft(shown);
  }, [shown]);
  const id = `json-${label.replace(/\W+/g, '-')}`;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <textarea
        id={id}
        rows={Math.min(14, Math.max(3, draft.split('\n').length))}
        value={draft}
        aria-invalid={bad}
        onInput={(event) => {
          const text = (event.currentTarget as HTMLTextAreaElement).value;
          setDraft(text);
          try {
            onValue(text.trim() === '' ? undefined : JSON.parse(text));
            setBad(false);
          } catch {
            setBad(true);
          }
        }}
      />
      {bad ? <span class="field-problem">Not JSON yet: the last valid value is sent.</span> : null}
    </div>
  );
}

function Answer({ sent }: { sent: Sent }) {
  return (
    <div class="answer">
      <p class="summary">
        <StatusBadge status={sent.status} /> <span class="muted">{sent.ms.toFixed(0)} ms</span>
      </p>
      <HeadersTable headers={sent.headers} />
      {'text' in sent.body ? (
        <Json value={sent.body.text} label="Answer body" />
      ) : (
        <p>
          {sent.body.bytes} bytes of {sent.body.type}.{' '}
          <a href={sent.body.url} target="_blank" rel="noopener">
            Open it
          </a>
        </p>
      )}
    </div>
  );
}
