/**
 * What changes in the mock, for every view: one change stream per page (`GET /_mock/changes`, with the session's
 * key and token), shared by the views that follow it. A view names the topics it shows (`useChanges`) and gets a
 * number that grows each time one of them changes, which its reads depend on: it reads again, and shows what the
 * mock shows now, with no Refresh button. A stream opened again after a drop counts as a change of every topic:
 * what changed meanwhile is not known.
 */
import { signal } from '@preact/signals';
import { useEffect, useState } from 'preact/hooks';
import type { AdminSchemas } from '../api.ts';
import { adminToken, partnerKey } from '../session.ts';
import { followEventStream } from './event-stream.ts';

export type ChangeTopic = AdminSchemas['ChangeTopic'];

interface Follower {
  topics: ReadonlySet<ChangeTopic>;
  changed(): void;
}

const followers = new Set<Follower>();
let open: { session: string; stop: AbortController } | undefined;

/** Whether the change stream is open: a view may say that it is live. */
export const changesLive = signal(false);

function tell(topics: readonly ChangeTopic[]): void {
  for (const follower of followers) if (topics.some((topic) => follower.topics.has(topic))) follower.changed();
}

/** The stream for the session, opened when a view first follows it, replaced when the session changes. */
function follow(key: string, token: string): void {
  const session = `${key}\n${token}`;
  if (open?.session === session) return;
  open?.stop.abort();
  const stop = new AbortController();
  open = { session, stop };
  let opened = 0;
  let opening = false;
  followEventStream({
    path: '/_mock/changes',
    key,
    token,
    signal: stop.signal,
    onState(state) {
      changesLive.value = state === 'live';
      if (state !== 'live') return;
      opened += 1;
      opening = true;
    },
    onEvent(event) {
      if (event.event !== 'change') return;
      const { topics } = JSON.parse(event.data) as { topics: ChangeTopic[] };
      // A stream opens naming every topic. The first time, the views have just read what they show; after a drop,
      // what changed meanwhile is not known, and they read it again.
      const first = opening && opened === 1;
      opening = false;
      if (!first) tell(topics);
    },
  });
}

function unfollowIfAlone(): void {
  if (followers.size > 0 || !open) return;
  open.stop.abort();
  open = undefined;
  changesLive.value = false;
}

/**
 * A number that grows each time one of `topics` changes for the session's partner (or every partner): put it in
 * the dependencies of the reads that show them.
 */
export function useChanges(topics: readonly ChangeTopic[]): number {
  const [version, setVersion] = useState(0);
  const named = topics.join(',');
  const key = partnerKey.value;
  const token = adminToken.value;
  useEffect(() => {
    const follower: Follower = { topics: new Set(topics), changed: () => setVersion((current) => current + 1) };
    followers.add(follower);
    follow(key, token);
    return () => {
      followers.delete(follower);
      unfollowIfAlone();
    };
  }, [named, key, token]);
  return version;
}
