/**
 * The journal followed as it grows, for every request stream of the process at once: each write of entries is read
 * once and handed to every follower whose filters it matches, rather than read and parsed once per stream.
 *
 * A follower that is behind (resuming after `Last-Event-ID`, or whose client reads more slowly than requests come)
 * catches up on its own, reading the journal from where it is with its filters, a thousand entries at a time and
 * only as fast as its client takes them; then it follows the feed again. So a client that stops reading costs one
 * batch of memory, never the whole journal, and the feed never waits for it.
 */
import type { Logger } from 'pino';
import { matchesFilters } from './journal-records.ts';
import type { FeedEntry, JournalFilters, RequestJournal } from './request-journal.ts';

/** Entries read at once, by the feed or by a follower catching up. */
const batchSize = 1000;
/** Entries a follower may have waiting before it is behind, and catches up on its own instead. */
const maxWaiting = 1000;

export interface Follower {
  filters: JournalFilters;
  /** Sends entries to the follower's client, resolving once the client has taken them. */
  deliver(entries: FeedEntry[]): Promise<void>;
  signal: AbortSignal;
}

export interface JournalFeed {
  /** Follows the journal from after `position` (from the newest entry, when absent) until `signal` aborts. */
  follow(follower: Follower, position?: number): void;
  /** How many followers there are, by scope (a partner's id, or `*` for every partner). */
  following(scope: string): number;
}

interface Following {
  follower: Follower;
  scope: string;
  /** The newest position it has been given (or has no need of). */
  position: number;
  /** Entries waiting for its client, oldest first. */
  waiting: FeedEntry[];
  sending: boolean;
  /** Reading on its own, from `position`, until it reaches the feed's head. */
  catchingUp: boolean;
}

/**
 * Gives a follower what waits for it, or, when it is behind, what it reads on its own; one delivery at a time, each
 * waited for, so that its client sets its pace.
 */
function sendTo(following: Following, feed: { journal: RequestJournal; head: () => number | undefined; logger: Pick<Logger, 'error'> }): void {
  if (following.sending || following.follower.signal.aborted) return;
  following.sending = true;
  void (async () => {
    while (!following.follower.signal.aborted) {
      if (following.waiting.length > 0) {
        const batch = following.waiting;
        following.waiting = [];
        await following.follower.deliver(batch);
      } else if (following.catchingUp) await catchUp(following, feed);
      else break;
    }
  })()
    .catch((error: unknown) => feed.logger.error({ err: error }, 'request stream: reading the journal failed; it goes on at the next write'))
    .finally(() => {
      following.sending = false;
      if (!following.follower.signal.aborted && (following.waiting.length > 0 || following.catchingUp)) sendTo(following, feed);
    });
}

/** One read of a follower behind, with its filters, from where it is; delivered. */
async function catchUp(following: Following, feed: { journal: RequestJournal; head: () => number | undefined }): Promise<void> {
  const from = following.position;
  const found = await feed.journal.since(from, following.follower.filters, batchSize);
  following.position = found.last;
  if (!found.more) {
    // At the end of the journal as it read it. Caught up once that is as far as the feed has read: the feed hands
    // it the rest. Short of it, with nothing found, what lay between is gone (a partner's reset).
    const head = feed.head();
    if (head === undefined || found.last >= head) following.catchingUp = false;
    else if (found.last === from) following.position = head;
  }
  if (found.entries.length > 0) await following.follower.deliver(found.entries);
}

export function createJournalFeed(options: {
  journal: RequestJournal;
  /** Whether other processes write to the journal (a shared store): then it is also read every `pollMs`. */
  pollMs?: number;
  logger: Pick<Logger, 'error'>;
}): JournalFeed {
  const { journal, logger } = options;
  const followers = new Set<Following>();
  /** The newest position the feed has read; undefined while nobody follows. */
  let head: number | undefined;
  let reading: Promise<void> | undefined;
  let again = false;
  let stopWatching: (() => void) | undefined;
  let poll: NodeJS.Timeout | undefined;

  const send = (following: Following): void => sendTo(following, { journal, head: () => head, logger });

  const read = (): void => {
    if (reading) return void (again = true);
    reading = (async () => {
      do {
        again = false;
        head ??= await journal.newest();
        let more = true;
        while (more && followers.size > 0) {
          const found = await journal.since(head, {}, batchSize);
          for (const following of followers) {
            if (following.catchingUp) continue;
            const wanted = found.entries.filter((entry) => entry.position > following.position && matchesFilters(entry, following.follower.filters));
            following.position = Math.max(following.position, found.last);
            if (wanted.length === 0) continue;
            if (following.waiting.length + wanted.length > maxWaiting) {
              // Its client is not keeping up: it reads on its own from what it was last given.
              following.position = (following.waiting[0] ?? (wanted[0] as FeedEntry)).position - 1;
              following.waiting = [];
              following.catchingUp = true;
            } else following.waiting.push(...wanted);
            send(following);
          }
          head = found.last;
          more = found.more;
        }
      } while (again && followers.size > 0);
    })()
      .catch((error: unknown) => logger.error({ err: error }, 'request stream: reading the journal failed; it goes on at the next write'))
      .finally(() => (reading = undefined));
  };

  const start = () => {
    stopWatching = journal.onWrite(read);
    if (options.pollMs !== undefined) poll = setInterval(read, options.pollMs);
  };
  const stop = () => {
    stopWatching?.();
    clearInterval(poll);
    stopWatching = undefined;
    head = undefined;
  };

  return {
    follow(follower, position) {
      const scope = follower.filters.partnerId ?? '*';
      void (async () => {
        const from = position ?? (await journal.newest());
        if (follower.signal.aborted) return;
        const following: Following = { follower, scope, position: from, waiting: [], sending: false, catchingUp: position !== undefined };
        if (followers.size === 0) start();
        followers.add(following);
        follower.signal.addEventListener('abort', () => {
          followers.delete(following);
          if (followers.size === 0) stop();
        });
        if (following.catchingUp) send(following);
        read();
      })().catch((error: unknown) => logger.error({ err: error }, 'request stream: could not start following the journal'));
    },
    following(scope) {
      let count = 0;
      for (const following of followers) if (following.scope === scope) count += 1;
      return count;
    },
  };
}
