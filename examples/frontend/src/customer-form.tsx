/**
 * A form that creates a customer, as a partner's app would: it shows the field errors of a refused request next to
 * their fields (the contract's `details`, each a JSON Pointer into the body), and keeps one Idempotency-Key for the
 * customer it is creating, so that sending again (a retry after a failure, a double click) never creates two. The
 * API keeps a refusal under its key as it keeps a success, so a corrected request goes with a new key. Once a key
 * has been used with other details, the API answers 409 E_IDEMPOTENCY_KEY_REUSED: the form says so and offers to
 * start a new customer, with a new key.
 */
import { useState } from 'preact/hooks';
import { PartnerApiError, type Customer, type PartnerClient, type RequestBody } from '../../../client/index.ts';

type Draft = RequestBody<'createCustomer'>;
type Field = 'email' | 'firstName' | 'lastName' | 'countryOfResidence';
const fields: { name: Field; label: string }[] = [
  { name: 'email', label: 'Email' },
  { name: 'firstName', label: 'First name' },
  { name: 'lastName', label: 'Last name' },
  { name: 'countryOfResidence', label: 'Country (ISO 3166 alpha-3)' },
];

type Outcome = { kind: 'created'; customer: Customer } | { kind: 'refused'; error: PartnerApiError } | { kind: 'failed'; message: string };

export function CustomerForm(props: { api: PartnerClient; newKey?: () => string }) {
  const newKey = props.newKey ?? (() => crypto.randomUUID());
  const [draft, setDraft] = useState<Draft>({ email: '', firstName: '', lastName: '', countryOfResidence: '' });
  const [key, setKey] = useState(newKey);
  const [sending, setSending] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | undefined>();

  const submit = async (event: Event) => {
    event.preventDefault();
    setSending(true);
    try {
      const { payload } = await props.api.createCustomer(draft, { idempotencyKey: key });
      setOutcome({ kind: 'created', customer: payload });
    } catch (error) {
      setOutcome(error instanceof PartnerApiError ? { kind: 'refused', error } : { kind: 'failed', message: String(error) });
      if (error instanceof PartnerApiError && error.code === 'E_VALIDATION_FAILED') setKey(newKey());
    } finally {
      setSending(false);
    }
  };
  const startOver = () => {
    setKey(newKey());
    setOutcome(undefined);
  };
  const fieldErrors = outcome?.kind === 'refused' ? outcome.error.details : [];

  return (
    <form onSubmit={submit} aria-label="New customer">
      {fields.map(({ name, label }) => (
        <p key={name}>
          <label>
            {label}
            <input name={name} value={draft[name]} onInput={(event) => setDraft({ ...draft, [name]: (event.target as HTMLInputElement).value })} />
          </label>
          {fieldErrors.filter((detail) => detail.field === `/${name}`).map((detail) => (
            <span role="alert" data-field={name} key={detail.code}>
              {detail.message} ({detail.code})
            </span>
          ))}
        </p>
      ))}
      <button type="submit" disabled={sending}>
        Create customer
      </button>
      <OutcomeNote outcome={outcome} onStartOver={startOver} />
    </form>
  );
}

function OutcomeNote(props: { outcome: Outcome | undefined; onStartOver: () => void }) {
  const { outcome } = props;
  if (!outcome) return null;
  if (outcome.kind === 'created') return <p role="status">Created {outcome.customer.serviceCustomerId}</p>;
  if (outcome.kind === 'failed') return <p role="alert">Could not reach the API: {outcome.message}</p>;
  const { error } = outcome;
  if (error.code === 'E_IDEMPOTENCY_KEY_REUSED') {
    return (
      <p role="alert">
        This customer was already sent with other details ({error.code}).{' '}
        <button type="button" onClick={props.onStartOver}>
          Start a new customer
        </button>
      </p>
    );
  }
  if (error.code === 'E_VALIDATION_FAILED') return <p role="alert">Some fields need fixing ({error.code}).</p>;
  return (
    <p role="alert">
      {error.message} ({error.code}, {error.status}): send it again, it will not be created twice.
    </p>
  );
}
