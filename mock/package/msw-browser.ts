/**
 * The Mock Service Worker entry for browsers (`@partner-formation/mock/msw` under the `browser` condition, for
 * `setupWorker`): the same as msw.ts, with the contracts bundled in, since a page has no files to read them from.
 * Built by browser-bundle.ts, which leaves out what needs Node (browser/node-only.ts).
 */
import contract from '../../generated/openapi.json' with { type: 'json' };
import adminContract from '../../generated/mock-admin/openapi.json' with { type: 'json' };
import type { ContractDocument } from '../../contract-model/document.ts';
import { mockCreator } from './msw.ts';
import type { CreateMock } from './msw-api.ts';

export { MockAdminError } from './msw-api.ts';
export type * from './msw-api.ts';

export const createMock: CreateMock = mockCreator({ contract: contract as unknown as ContractDocument, adminContract: adminContract as unknown as ContractDocument });
