/**
 * The admin API's change stream (`/_mock/changes`): a server-sent event each time topics the caller follows change,
 * naming them, for a view to read what it shows again.
 */
import type { AnswerStream } from '../http/answer.ts';
import { streamsPerScope } from '../http/streams-per-scope.ts';
import type { AdminHandlers } from '../pipeline/handler.ts';
import { maxStreamsPerScope } from '../journal/journal-handlers.ts';
import type { ChangeFeed } from './change-feed.ts';
import { allTopics } from './change-topics.ts';

export function changeHandlers(feed: ChangeFeed): Pick<AdminHandlers, 'streamChanges'> {
  const open = streamsPerScope(maxStreamsPerScope, 'change');
  return {
    streamChanges({ partner, query }) {
      const scope = { id: partner?.id ?? '*', partner: partner !== undefined };
      open.refuseWhenFull(scope);
      const topics = new Set(query.topics ?? allTopics);
      const stream: AnswerStream = {
        start(write, closed) {
          open.started(scope, closed);
          void write('retry: 2000\n\n');
          feed.follow({
            ...(partner ? { partnerId: partner.id } : {}),
            topics,
            signal: closed,
            deliver: (changed) => write(`event: change\ndata: ${JSON.stringify({ topics: changed })}\n\n`),
          });
        },
      };
      return { status: 200, stream };
    },
  };
}
