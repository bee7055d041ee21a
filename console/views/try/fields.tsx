/** One field of the form, as its schema makes it (a choice, a number, text), and a body's fields together. */
import type { BodyField, FieldKind } from './schema-form.ts';
import { JsonEditor } from './json-editor.tsx';

export function Field(props: { name: string; label: string; required: boolean; edit: FieldKind; value: string; placeholder?: string; onInput: (value: string) => void }) {
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

/** A field's text as the value its schema takes; an optional field left empty is no value. */
function valueOf(field: BodyField, text: string): unknown {
  if (text === '' && !field.required) return undefined;
  if (field.edit.kind === 'number' || field.edit.kind === 'integer') return Number(text);
  return field.edit.kind === 'boolean' ? text === 'true' : text;
}

export function BodyFields({ fields, body, onBody }: { fields: BodyField[]; body: Record<string, unknown>; onBody: (body: Record<string, unknown>) => void }) {
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
            onInput={(text) => set(field.name, valueOf(field, text))}
          />
        ),
      )}
    </div>
  );
}
