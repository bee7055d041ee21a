/**
 * The page with the mock in its own service worker (Mock Service Worker's `setupWorker`), as a team shows its app in
 * a browser without a backend, or in Storybook: the same handlers as in its tests, from the mock's browser bundle.
 * `window.mock` lets the page's driver (a test in Chromium) arm faults and read the journal.
 */
import { setupWorker } from 'msw/browser';
import { createMock, type PartnerFormationMock } from '@partner-formation/mock/msw';
import { apiBaseUrl } from './api.ts';
import { startApp } from './main.tsx';

declare global {
  interface Window {
    mock: PartnerFormationMock;
  }
}

const mock = await createMock({ baseUrl: apiBaseUrl });
await setupWorker(...mock.handlers).start({ onUnhandledFrame: 'bypass', quiet: true });
window.mock = mock;
startApp(document.getElementById('app') as HTMLElement);
