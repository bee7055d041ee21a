/**
 * Notices: what a transaction tells whoever listens once it commits, as PostgreSQL's NOTIFY does. A body names a
 * channel (`tx.notify('companies:PARTNER')`); the names of a committed transaction are delivered together, each
 * once, after its writes; a run thrown away (rolled back, or run again on Redis) delivers nothing. They say that
 * something changed, never what: a listener reads what it shows again. Memory and SQLite deliver them in process;
 * Redis also passes them to the other processes on the store (redis-notices.ts).
 *
 * The store gives no rule a meaning to a channel: the features name theirs (changes/change-topics.ts).
 */

/**
 * The channel that stands for every channel: delivered when a process may have missed notices (its connection to a
 * shared store was lost) or when everything changed at once (the store emptied).
 */
export const everything = '*';

/** What a store emptied delivers. */
export const emptied: ReadonlySet<string> = new Set([everything]);

/** Called with the channels of one commit (or of several, coalesced, from another process). */
export type NoticeListener = (channels: ReadonlySet<string>) => void;

/** What a committed transaction noticed: none, most often. */
export interface Noticing {
  readonly notices: ReadonlySet<string> | undefined;
}

export class Notices {
  private readonly listeners = new Set<NoticeListener>();

  /** Listens until the function returned is called. */
  listen(listener: NoticeListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  get listened(): boolean {
    return this.listeners.size > 0;
  }

  /** After a commit: what the transaction noticed, to every listener. */
  deliverOf(tx: Noticing): void {
    if (tx.notices !== undefined) this.deliver(tx.notices);
  }

  deliver(channels: ReadonlySet<string>): void {
    for (const listener of this.listeners) {
      try {
        listener(channels);
      } catch {
        // A listener's failure is its own: the commit it hears of is made, and the others still hear of it.
      }
    }
  }
}
