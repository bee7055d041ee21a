/**
 * The changes followed, for every change stream of the process at once: the store's notices (what the features
 * announce in their transactions, on Redis from every process too) and what changes in this process alone (faults,
 * settings), handed to each follower whose scope and topics they concern.
 *
 * A follower gets at most one delivery every `gatherMs`, naming every topic that changed meanwhile, and never a
 * second one before its client took the first: what waits for it is a set of topics, so a client that stops
 * reading holds seven names at most, however much changes.
 */
import { everything } from '../store/notices.ts';
import type { Store } from '../store/store.ts';
import { changeOf, type Change, type ChangeTopic } from './change-topics.ts';

export const gatherMs = 250;

export interface ChangeFollower {
  /** Whose changes: one partner's (and those of every partner), or, absent, everyone's. */
  partnerId?: string;
  topics: ReadonlySet<ChangeTopic>;
  /** Sends the topics to the follower's client, resolving once the client has taken them. */
  deliver(topics: ChangeTopic[]): Promise<void>;
  signal: AbortSignal;
}

export interface ChangeFeed {
  /** Follows changes until the follower's signal aborts; the first delivery names every topic it follows. */
  follow(follower: ChangeFollower): void;
  /** A change in this process only (a fault used, a setting switched): of one partner's, or of every partner's. */
  changed(change: Change): void;
}

interface Following {
  follower: ChangeFollower;
  waiting: Set<ChangeTopic>;
  timer: NodeJS.Timeout | undefined;
  sending: boolean;
  lastSentAt: number;
}

/** Scope of the followers of every partner's changes. */
const everyPartner = '*';

export function createChangeFeed(store: Pick<Store, 'listen'>): ChangeFeed {
  /** Followers by the partner they follow (`*`: every partner). */
  const byScope = new Map<string, Set<Following>>();
  let stopListening: (() => void) | undefined;

  const send = (following: Following): void => {
    following.timer = undefined;
    if (following.sending || following.waiting.size === 0 || following.follower.signal.aborted) return;
    const topics = [...following.waiting];
    following.waiting.clear();
    following.sending = true;
    void following.follower
      .deliver(topics)
      .catch(() => undefined)
      .finally(() => {
        following.sending = false;
        following.lastSentAt = Date.now();
        schedule(following);
      });
  };
  function schedule(following: Following): void {
    if (following.timer || following.sending || following.waiting.size === 0) return;
    following.timer = setTimeout(() => send(following), Math.max(0, following.lastSentAt + gatherMs - Date.now()));
  }
  const tell = (following: Following, topic: ChangeTopic | typeof everything): void => {
    if (topic === everything) for (const followed of following.follower.topics) following.waiting.add(followed);
    else if (following.follower.topics.has(topic)) following.waiting.add(topic);
    schedule(following);
  };
  const hear = (change: Change | typeof everything): void => {
    const scopes = change === everything || change.partnerId === undefined ? [...byScope.keys()] : [change.partnerId, everyPartner];
    for (const scope of scopes) for (const following of byScope.get(scope) ?? []) tell(following, change === everything ? everything : change.topic);
  };
  const listener = (channels: ReadonlySet<string>): void => {
    for (const channel of channels) {
      const change = changeOf(channel);
      if (change !== undefined) hear(change);
    }
  };

  return {
    follow(follower) {
      if (follower.signal.aborted) return;
      const scope = follower.partnerId ?? everyPartner;
      const following: Following = { follower, waiting: new Set(follower.topics), timer: undefined, sending: false, lastSentAt: 0 };
      let followers = byScope.get(scope);
      if (!followers) byScope.set(scope, (followers = new Set()));
      followers.add(following);
      stopListening ??= store.listen(listener);
      follower.signal.addEventListener('abort', () => {
        clearTimeout(following.timer);
        followers.delete(following);
        if (followers.size === 0 && byScope.get(scope) === followers) byScope.delete(scope);
        if (byScope.size > 0) return;
        stopListening?.();
        stopListening = undefined;
      });
      send(following);
    },
    changed: hear,
  };
}
