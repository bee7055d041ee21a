/**
 * The example's test set-up: the five lines a team adds to theirs, so that every test of the app runs against the
 * mock in process (Mock Service Worker's `setupServer`), starting from an empty mock.
 */
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { createMock } from '@partner-formation/mock/msw';

export const mock = await createMock();
const server = setupServer(...mock.handlers);
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterEach(() => mock.reset());
afterAll(() => (server.close(), mock.close()));
