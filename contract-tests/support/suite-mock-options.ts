/**
 * The options of the mock the suite runs against, whichever way it runs: as its own process (global-setup.ts passes
 * them as flags) or in process behind Mock Service Worker (in-process-target.ts passes them by name, as the
 * package's `createMock` takes them). One list, so that both targets are the same mock.
 */

/** Fixed so that a failing run can be replayed by hand against a mock started with the same secret. */
export const mockWebhookSecret = 'whsec_Y29udHJhY3QtdGVzdHMtd2ViaG9vay1zZWNyZXQ=';

export const suiteMockOptions: Readonly<Record<string, string>> = {
  'formation-timeline': 'manual',
  // The suite sends a few hundred requests a second; the published 25/s would turn them into 429s.
  'rate-limit': '500000',
  'webhook-secret': mockWebhookSecret,
  'webhook-retry-delays': '50ms,50ms,50ms',
  // Short enough for the expiry check to wait for it.
  'download-url-ttl': '2s',
};

/** The same as flags. */
export function asFlags(options: Readonly<Record<string, string>>): string[] {
  return Object.entries(options).flatMap(([name, value]) => [`--${name}`, value]);
}
