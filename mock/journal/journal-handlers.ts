/**
 * The admin API's routes of the request journal: a page of it, newest first, filtered (`/_mock/requests`); one entry
 * whole (`/_mock/requests/{entryId}`); and new entries as they come, as server-sent events (`/_mock/requests/stream`).
 */
import type { Logger } from 'pino';
import { ApiError } from '../http/api-error.ts';
import type { AnswerStream } from '../http/answer.ts';
import type { CursorCodec } from '../pagination/cursor.ts';
import type { AdminHandlers } from '../pipeline/handler.ts';
import type { EntryIds } from './entry-ids.ts';
import type { JournalEntry, JournalFilters, RequestJournal } from './request-journal.ts';

/** Entries one read of a stream carries at most: more are sent in further reads, in order. */
const maxPerSend = 1000;
const keepAliveMs = 15_000;
/** How often a stream looks for entries written by other processes, on a shared store. */
const sharedPollMs = 1_000;

export function journalHandlers(options: {
  journal: RequestJournal;
  cursors: CursorCodec;
  ids: EntryIds;
  /** Whether other processes write to the same journal (a shared store): a stream then also looks on its own. */
  shared: boolean;
  logger: Pick<Logger, 'error'>;
}): Pick<AdminHandlers, 'listRequests' | 'getRequest' | 'streamRequests'> {
  const { journal, cursors, ids } = options;
  const shown = ({ position, ...entry }: JournalEntry, partnerId: string | undefined) => ({ id: ids.idOf(position, partnerId), ...entry });

  return {
    async listRequests({ partner, query }) {
      // Positions count every partner's requests: the cursor carries one encrypted, bound to this partner's list.
      const scope = { list: 'requests', partner: partner?.id, operationId: query.operationId, status: query.status, errorCode: query.errorCode };
      const before = query.cursor === undefined ? undefined : cursors.decode(query.cursor, scope);
      const page = await journal.page({ limit: query.limit ?? 100, ...(before === undefined ? {} : { before }), ...filtersOf(query, partner?.id) });
      const nextCursor = page.next === null ? null : cursors.encode(page.next, scope);
      return { status: 200, payload: { data: page.requests.map((entry) => shown(entry, partner?.id)), nextCursor } };
    },

    async getRequest({ partner, path }) {
      const position = ids.positionOf(path.entryId, partner?.id);
      const found = position === undefined ? undefined : await journal.entry(position);
      if (!found || (partner && found.partnerId !== partner.id)) {
        throw new ApiError(404, 'E_NOT_FOUND', `No journal entry ${path.entryId} here: it has left the journal, or was shown with another key.`);
      }
      const { partnerId: _partnerId, request, response, ...entry } = found;
      return { status: 200, payload: { ...shown(entry, partner?.id), request, response } };
    },

    streamRequests({ partner, query, headers }) {
      const lastEventId = headers['Last-Event-ID'];
      const resumeAfter = lastEventId === undefined ? undefined : ids.positionOf(lastEventId, partner?.id);
      const filters = filtersOf(query, partner?.id);
      const stream: AnswerStream = {
        start(write, closed) {
          write('retry: 2000\n\n');
          let position = resumeAfter;
          let looking: Promise<void> | undefined;
          let again = false;
          // One look at a time; a write meanwhile makes it look once more when it is done.
          const look = (): void => {
            if (looking) return void (again = true);
            looking = (async () => {
              let more: boolean;
              do {
                again = false;
                position ??= await journal.newest();
                const found = await journal.since(position, filters, maxPerSend);
                if (closed.aborted) return;
                for (const entry of found.entries) write(`id: ${ids.idOf(entry.position, partner?.id)}\nevent: request\ndata: ${JSON.stringify(shown(entry, partner?.id))}\n\n`);
                position = found.last;
                more = found.more;
              } while ((again || more) && !closed.aborted);
            })()
              .catch((error: unknown) => options.logger.error({ err: error }, 'request stream: reading the journal failed; the next look tries again'))
              .finally(() => (looking = undefined));
          };
          const stopWatching = journal.onWrite(look);
          const poll = options.shared ? setInterval(look, sharedPollMs) : undefined;
          const keepAlive = setInterval(() => write(': keep-alive\n\n'), keepAliveMs);
          closed.addEventListener('abort', () => {
            stopWatching();
            clearInterval(poll);
            clearInterval(keepAlive);
          });
          look();
        },
      };
      return { status: 200, stream };
    },
  };
}

function filtersOf(query: { operationId?: string; status?: number; errorCode?: string }, partnerId: string | undefined): JournalFilters {
  return {
    ...(query.operationId === undefined ? {} : { operationId: query.operationId }),
    ...(query.status === undefined ? {} : { status: query.status }),
    ...(query.errorCode === undefined ? {} : { errorCode: query.errorCode }),
    ...(partnerId === undefined ? {} : { partnerId }),
  };
}
