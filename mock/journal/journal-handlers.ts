/** The admin API's route of the request journal (`/_mock/requests`): a page of it, newest first, filtered. */
import type { CursorCodec } from '../pagination/cursor.ts';
import type { AdminHandlers } from '../pipeline/handler.ts';
import type { RequestJournal } from './request-journal.ts';

export function journalHandlers(journal: RequestJournal, cursors: CursorCodec): Pick<AdminHandlers, 'listRequests'> {
  return {
    async listRequests({ partner, query }) {
      // Positions count every partner's requests: the cursor carries one encrypted, bound to this partner's list.
      const scope = { list: 'requests', partner: partner?.id, operationId: query.operationId, status: query.status, errorCode: query.errorCode };
      const before = query.cursor === undefined ? undefined : cursors.decode(query.cursor, scope);
      const page = await journal.page({
        limit: query.limit ?? 100,
        ...(before === undefined ? {} : { before }),
        ...(query.operationId === undefined ? {} : { operationId: query.operationId }),
        ...(query.status === undefined ? {} : { status: query.status }),
        ...(query.errorCode === undefined ? {} : { errorCode: query.errorCode }),
        ...(partner ? { partnerId: partner.id } : {}),
      });
      const nextCursor = page.nextCursor === null ? null : cursors.encode(Number(page.nextCursor), scope);
      return { status: 200, payload: { data: page.requests, nextCursor } };
    },
  };
}
