/**
 * The admin API's routes of the request journal: a page of it, newest first, filtered (`/_mock/requests`); one entry
 * whole (`/_mock/requests/{entryId}`); and new entries as they come, as server-sent events (`/_mock/requests/stream`).
 */
import { ApiError } from '../http/api-error.ts';
import type { AnswerStream } from '../http/answer.ts';
import { streamsPerScope } from '../http/streams-per-scope.ts';
import type { CursorCodec } from '../pagination/cursor.ts';
import type { AdminHandlers } from '../pipeline/handler.ts';
import type { EntryIds } from './entry-ids.ts';
import type { JournalFeed } from './journal-feed.ts';
import type { FeedEntry, JournalEntry, JournalFilters, RequestJournal } from './request-journal.ts';

/** Request streams open at once for one partner (or for every partner, without a key). */
export const maxStreamsPerScope = 8;
/**
 * About the most one write of a stream holds, in characters: a batch of a thousand entries goes out in pieces of this
 * size, each written when the stream takes it, so that a client that stops reading holds what a stream may hold
 * unsent (http/event-streams.ts), not a batch.
 */
const pieceLength = 64 * 1024;

export function journalHandlers(options: {
  journal: RequestJournal;
  /** The journal followed as it grows, for every stream of the process. */
  feed: JournalFeed;
  cursors: CursorCodec;
  ids: EntryIds;
}): Pick<AdminHandlers, 'listRequests' | 'getRequest' | 'streamRequests'> {
  const { journal, feed, cursors, ids } = options;
  /** Counted when a stream starts: a count the feed keeps would come a read of the journal later. */
  const open = streamsPerScope(maxStreamsPerScope, 'request');
  const shown = ({ position, partnerId: _partnerId, ...entry }: JournalEntry & { partnerId?: string }, scope: string | undefined) => ({ id: ids.idOf(position, scope), ...entry });
  /**
   * Each entry the feed hands out as its event, by scope: streams of one scope (a partner's, or every partner's)
   * share it, so that eight open consoles cost one encoding, not eight.
   */
  const events = new WeakMap<FeedEntry, Map<string, string>>();
  const eventOf = (entry: FeedEntry, partnerId: string | undefined): string => {
    let byScope = events.get(entry);
    if (!byScope) events.set(entry, (byScope = new Map()));
    const scope = partnerId ?? '*';
    let text = byScope.get(scope);
    if (text === undefined) {
      const shownEntry = shown(entry, partnerId);
      byScope.set(scope, (text = `id: ${shownEntry.id}\nevent: request\ndata: ${JSON.stringify(shownEntry)}\n\n`));
    }
    return text;
  };

  return {
    async listRequests({ partner, query }) {
      // Positions count every partner's requests: the cursor carries one encrypted, bound to this partner's list.
      const scope = { list: 'requests', partner: partner?.id, operationId: query.operationId, status: query.status, errorCode: query.errorCode, tool: query.tool };
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
      const scope = { id: partner?.id ?? '*', partner: partner !== undefined };
      open.refuseWhenFull(scope);
      const lastEventId = headers['Last-Event-ID'];
      const resumeAfter = lastEventId === undefined ? undefined : ids.positionOf(lastEventId, partner?.id);
      const filters = filtersOf(query, partner?.id);
      const stream: AnswerStream = {
        start(write, closed) {
          open.started(scope, closed);
          void write('retry: 2000\n\n');
          feed.follow(
            {
              filters,
              signal: closed,
              // A batch in pieces, each written when the stream takes it: the client's pace sets the stream's.
              deliver: async (entries) => {
                let piece = '';
                for (const entry of entries) {
                  piece += eventOf(entry, partner?.id);
                  if (piece.length >= pieceLength) {
                    await write(piece);
                    piece = '';
                  }
                }
                if (piece !== '') await write(piece);
              },
            },
            resumeAfter,
          );
        },
      };
      return { status: 200, stream };
    },
  };
}

function filtersOf(query: { operationId?: string; status?: number; errorCode?: string; tool?: JournalFilters['tool'] }, partnerId: string | undefined): JournalFilters {
  return {
    ...(query.operationId === undefined ? {} : { operationId: query.operationId }),
    ...(query.status === undefined ? {} : { status: query.status }),
    ...(query.errorCode === undefined ? {} : { errorCode: query.errorCode }),
    ...(query.tool === undefined ? {} : { tool: query.tool }),
    ...(partnerId === undefined ? {} : { partnerId }),
  };
}
