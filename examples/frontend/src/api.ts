/**
 * The app's way to the Partner Formation API: the kit's typed client. A real app calls the API from its backend (a
 * key is a secret and never belongs in a page); here the page stands for the whole app, and the mock answers
 * wherever the app calls it: in its tests (Mock Service Worker in Node) and in its page (the worker).
 */
import { createPartnerClient, type PartnerClient, type RetryOptions } from '../../../client/index.ts';

/** Where the app calls the API: the contract's sandbox, which Mock Service Worker intercepts. */
export const apiBaseUrl = 'https://sandbox.api.partner-formation.example';

/** The app's sandbox key (any well-formed one is a partner of its own to the mock). */
export const apiKey = 'dk_test_exampleapp0000000000000000';

export function createApi(retry?: RetryOptions): PartnerClient {
  return createPartnerClient({ baseUrl: apiBaseUrl, apiKey, ...(retry ? { retry } : {}) });
}
