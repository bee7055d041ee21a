/** One event waiting for delivery; `body` is serialized once so every attempt sends the same bytes. */
export interface QueuedEvent {
  seq: number;
  eventId: string;
  type: string;
  orderingKey: string;
  body: string;
  /** Attempts so far, across re-enables (what the journal numbers). */
  attempts: number;
  /** Attempts since the endpoint was last (re-)enabled (what picks the next retry delay). */
  roundAttempts: number;
}

export type LaneState = 'idle' | 'in-flight' | 'waiting';

/** The FIFO of one ordering key: only its head is ever attempted, which is what keeps a company's events in order. */
export interface Lane {
  readonly key: string;
  readonly events: QueuedEvent[];
  state: LaneState;
  /** Already in the ready queue, so it is not listed twice. */
  ready: boolean;
}

export interface Lanes {
  append(event: QueuedEvent): void;
  /** Puts an event ahead of everything: no other lane starts until the priority lane is empty. */
  prependPriority(event: QueuedEvent): void;
  /** The next lane whose head may be attempted now, or undefined; the caller marks it in flight. */
  takeNext(): Lane | undefined;
  /** The lane's head was accepted: drop it and let the lane go on. */
  removeDelivered(lane: Lane, event: QueuedEvent): void;
  /** The lane stops being busy (its head delivered, or left for later): queue it again or forget it. */
  release(lane: Lane): void;
  /** Makes every idle lane with events ready again, in the order the lanes were created. */
  requeueAll(): void;
  hasReady(): boolean;
  all(): Lane[];
  queuedCount(): number;
}

export function createLanes(priorityKey: string): Lanes {
  const priority: Lane = { key: priorityKey, events: [], state: 'idle', ready: false };
  // Keyed lanes exist only while they hold events, so the map stays as small as the backlog.
  const keyed = new Map<string, Lane>();
  // Lanes take turns in the order they became ready, so a busy company cannot starve a quiet one.
  const readyQueue: Lane[] = [];
  let count = 0;

  const canStart = (lane: Lane) => lane.state === 'idle' && lane.events.length > 0;

  const markReady = (lane: Lane) => {
    if (lane === priority || lane.ready || !canStart(lane)) return;
    lane.ready = true;
    readyQueue.push(lane);
  };

  const release = (lane: Lane) => {
    lane.state = 'idle';
    if (lane.events.length > 0) markReady(lane);
    else if (lane !== priority) keyed.delete(lane.key);
  };

  return {
    append(event) {
      let lane = keyed.get(event.orderingKey);
      if (!lane) {
        lane = { key: event.orderingKey, events: [], state: 'idle', ready: false };
        keyed.set(event.orderingKey, lane);
      }
      lane.events.push(event);
      count += 1;
      markReady(lane);
    },
    prependPriority(event) {
      // An attempt already in flight stays first: it is on the wire and cannot be overtaken.
      priority.events.splice(priority.state === 'in-flight' ? 1 : 0, 0, event);
      count += 1;
    },
    takeNext() {
      if (priority.events.length > 0) return canStart(priority) ? priority : undefined;
      for (let lane = readyQueue.shift(); lane; lane = readyQueue.shift()) {
        lane.ready = false;
        if (canStart(lane) && keyed.get(lane.key) === lane) return lane;
      }
      return undefined;
    },
    removeDelivered(lane, event) {
      const index = lane.events.indexOf(event);
      if (index >= 0) {
        lane.events.splice(index, 1);
        count -= 1;
      }
      release(lane);
    },
    release,
    requeueAll() {
      for (const lane of keyed.values()) markReady(lane);
    },
    hasReady() {
      if (priority.events.length > 0) return canStart(priority);
      return readyQueue.some(canStart);
    },
    all() {
      return [priority, ...keyed.values()];
    },
    queuedCount() {
      return count;
    },
  };
}
