/**
 * The app's page: the customer form against the API. `startApp` renders it once whatever answers the API is ready;
 * the example's page (index.html, built by tests/browser/example-app.test.ts) starts the mock's worker first.
 */
import { render } from 'preact';
import { createApi } from './api.ts';
import { CustomerForm } from './customer-form.tsx';

export function startApp(root: HTMLElement): void {
  render(<CustomerForm api={createApi()} />, root);
}
