/**
 * The customer form against the mock in process, as a component test of the app: a customer created and read
 * back from the journal as the app sent it, the field errors of a 400 shown next to their fields, a create sent
 * again with the same key after a failure (never created twice), and the 409 of a key used with other details.
 */
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/preact';
import { afterEach, describe, expect, it } from 'vitest';
import { apiKey, createApi } from '../src/api.ts';
import { CustomerForm } from '../src/customer-form.tsx';
import { mock } from './setup.ts';

afterEach(cleanup);

function fill(values: Record<string, string>): void {
  for (const [name, value] of Object.entries(values)) {
    fireEvent.input(document.querySelector(`input[name="${name}"]`) as HTMLInputElement, { target: { value } });
  }
}

const ada = { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace', countryOfResidence: 'GBR' };
const submit = () => fireEvent.click(screen.getByRole('button', { name: 'Create customer' }));

/** The createCustomer requests the app sent, oldest first, with the key each carried and the status it got. */
async function creates(): Promise<{ key: string | undefined; status: number; body: unknown }[]> {
  const page = await mock.requests({ operationId: 'createCustomer' }, apiKey);
  const exchanges = await Promise.all(page.data.map((entry) => mock.exchange(entry.id, apiKey)));
  return exchanges.map(({ request, status }) => ({ key: request?.headers['idempotency-key'], status, body: JSON.parse(request?.body?.text ?? 'null') as unknown }));
}

describe('the customer form', () => {
  it('creates a customer, which the mock keeps and the app can read back', async () => {
    render(<CustomerForm api={createApi()} />);
    fill(ada);
    submit();
    const created = await screen.findByRole('status');
    const id = /Created (cus_\w+)/.exec(created.textContent ?? '')?.[1] as string;
    expect(id).toMatch(/^cus_/);
    expect((await createApi().getCustomer({ customerId: id })).payload.email).toBe('ada@example.com');
    expect(await creates()).toMatchObject([{ status: 200, body: ada }]);
  });

  it('shows the field errors of a 400 next to their fields, and sends the corrected customer with a new key', async () => {
    render(<CustomerForm api={createApi()} />);
    fill({ ...ada, email: 'ada@', countryOfResidence: 'XX' });
    submit();
    expect((await screen.findAllByRole('alert')).map((alert) => alert.textContent)).toContain('Some fields need fixing (E_VALIDATION_FAILED).');
    expect(document.querySelector('[data-field="email"]')?.textContent).toMatch(/E_FORMAT/);
    expect(document.querySelector('[data-field="countryOfResidence"]')).not.toBeNull();
    expect(document.querySelector('[data-field="firstName"]')).toBeNull();
    fill(ada);
    submit();
    await screen.findByRole('status');
    const sent = await creates();
    expect(sent.map((request) => request.status)).toEqual([400, 200]);
    expect(sent[1]?.key).not.toBe(sent[0]?.key);
  });

  it('sends a create again with the same key after a failure, and it is created once', async () => {
    // The next createCustomer is answered 503, as the contract documents it; the form's client tries once.
    await mock.arm({ operationId: 'createCustomer', status: 503 }, apiKey);
    render(<CustomerForm api={createApi({ maxAttempts: 1 })} />);
    fill(ada);
    submit();
    expect((await screen.findByRole('alert')).textContent).toMatch(/E_SERVICE_UNAVAILABLE, 503/);
    submit();
    await screen.findByRole('status');
    const sent = await creates();
    expect(sent.map((request) => request.status)).toEqual([503, 200]);
    expect(sent[0]?.key).toBeDefined();
    expect(sent[1]?.key).toBe(sent[0]?.key);
    expect((await createApi().listCustomers({ email: ada.email })).payload.data).toHaveLength(1);
  });

  it("shows the 409 of a key sent again with other details, and starts a new customer with a new key", async () => {
    render(<CustomerForm api={createApi()} />);
    fill(ada);
    submit();
    await screen.findByRole('status');
    fill({ email: 'grace@example.com', firstName: 'Grace', lastName: 'Hopper', countryOfResidence: 'USA' });
    submit();
    expect((await screen.findByRole('alert')).textContent).toMatch(/E_IDEMPOTENCY_KEY_REUSED/);
    fireEvent.click(screen.getByRole('button', { name: 'Start a new customer' }));
    submit();
    await waitFor(() => expect(screen.getByRole('status').textContent).toMatch(/^Created cus_/));
    const sent = await creates();
    expect(sent.map((request) => request.status)).toEqual([200, 409, 200]);
    expect(new Set(sent.map((request) => request.key)).size).toBe(2);
  });
});
