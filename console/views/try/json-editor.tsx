/** A JSON value edited as text: applied when it parses, and said so when it does not. */
import { useEffect, useState } from 'preact/hooks';

export function JsonEditor({ label, value, onValue }: { label: string; value: unknown; onValue: (value: unknown) => void }) {
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
