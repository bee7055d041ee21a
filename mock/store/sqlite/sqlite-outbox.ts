/**
 * The SQLite backend's webhook outbox: events, their deliveries (one row per event and endpoint it is sent to, and
 * one more per redelivery), the lanes they wait in (one endpoint × one ordering key; only the head is attempted,
 * in `position` order, newest first on an endpoint's own lane), the endpoints' disabled state and the delivery
 * journal. Every method runs inside the store's transactions (see sqlite-store.ts).
 */
import type { SQLInputValue, StatementSync } from 'node:sqlite';
import { newClaimToken } from '../claim-token.ts';
import type { AttemptRecord, DeliveryRecord, DeliveryState, EndpointDisablement, LaneClaim, OutboxEvent, StoredEvent, StoreOptions, WebhookOutbox } from '../store.ts';

type Row = Record<string, SQLInputValue>;

/** What the outbox needs of the store's connection. */
export interface SqliteAccess {
  get(text: string, ...params: SQLInputValue[]): Row | undefined;
  all(text: string, ...params: SQLInputValue[]): Row[];
  run(text: string, ...params: SQLInputValue[]): ReturnType<StatementSync['run']>;
  /** A write, committed with the others of this turn of the event loop. */
  write<T>(work: () => T): Promise<T>;
  /** A counter that orders lanes due in the same millisecond. */
  nextDueSeq(): number;
}

const endpointLaneKey = 'webhook_endpoint';
const attemptsShown = 20;
/** Events pruned per write at most: pruning never makes one write slow. */
const pruneBatch = 64;

export interface SqliteOutbox {
  outbox: WebhookOutbox;
  /** Stores events inside the caller's write (a formation step's commit). */
  storeEvents(events: readonly OutboxEvent[], now: number): void;
  /** Inside the caller's write: forgets one partner's events, deliveries and journal lines, or everything. */
  reset(partnerId?: string): void;
}

export function createSqliteOutbox(db: SqliteAccess, options: StoreOptions): SqliteOutbox {
  const { get, all, run, write } = db;

  const pushAttempt = (attempt: AttemptRecord, partnerId: string) => {
    const { lastInsertRowid } = run('INSERT INTO attempts (partner_id, event_id, endpoint_id, json) VALUES (?, ?, ?, ?)', partnerId, attempt.eventId, attempt.endpointId ?? null, JSON.stringify(attempt));
    run('DELETE FROM attempts WHERE id <= ?', Number(lastInsertRowid) - options.attemptJournalCapacity);
  };

  const makeLaneDue = (endpointId: string, laneKey: string, at: number) =>
    run('UPDATE lanes SET due_at = ?, due_seq = ?, token = NULL, lease_until = 0, claimed = NULL WHERE endpoint_id = ? AND lane_key = ?', at, db.nextDueSeq(), endpointId, laneKey);

  const enqueue = (eventSeq: number, partnerId: string, endpointId: string, laneKey: string, now: number) => {
    run("INSERT INTO deliveries (endpoint_id, lane_key, event_seq, partner_id, state) VALUES (?, ?, ?, ?, 'pending')", endpointId, laneKey, eventSeq, partnerId);
    run(
      'INSERT INTO lanes (endpoint_id, lane_key, priority, due_at, due_seq) VALUES (?, ?, ?, ?, ?) ON CONFLICT (endpoint_id, lane_key) DO NOTHING',
      endpointId,
      laneKey,
      laneKey === endpointLaneKey ? 1 : 0,
      now,
      db.nextDueSeq(),
    );
  };

  /** Past the capacity, the oldest events with nothing left to deliver go, with their deliveries. */
  const pruneEvents = () => {
    const dropped = all(
      `DELETE FROM events WHERE seq IN (
         SELECT seq FROM events WHERE seq <= (SELECT MAX(seq) FROM events) - ?
           AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_seq = events.seq AND d.state = 'pending')
         ORDER BY seq LIMIT ?) RETURNING seq`,
      options.eventCapacity,
      pruneBatch,
    );
    for (const row of dropped) run('DELETE FROM deliveries WHERE event_seq = ?', row.seq as number);
  };

  const storeEvents = (events: readonly OutboxEvent[], now: number) => {
    for (const { partnerId, event, orderingKey, endpointIds, body } of events) {
      const seq = Number(
        (get('INSERT INTO events (id, partner_id, type, ordering_key, body, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING seq', event.id, partnerId, event.type, orderingKey, body ?? JSON.stringify(event), now) as Row).seq,
      );
      if (endpointIds.length === 0) {
        pushAttempt({ eventId: event.id, type: event.type, orderingKey, attempt: 0, at: new Date(now).toISOString(), durationMs: 0, outcome: 'no-endpoint' }, partnerId);
      }
      for (const endpointId of endpointIds) enqueue(seq, partnerId, endpointId, orderingKey, now);
    }
    pruneEvents();
  };

  const deliveryColumns = 'd.position, d.event_seq, d.partner_id, d.attempts, d.round_attempts, e.id, e.type, e.body';
  // The endpoint's own lane is newest first: the notice of the latest disablement goes before older ones.
  const laneHead = (endpointId: string, laneKey: string) =>
    get(
      `SELECT ${deliveryColumns} FROM deliveries d JOIN events e ON e.seq = d.event_seq
       WHERE d.endpoint_id = ? AND d.lane_key = ? AND d.state = 'pending' ORDER BY d.position ${laneKey === endpointLaneKey ? 'DESC' : 'ASC'} LIMIT 1`,
      endpointId,
      laneKey,
    );
  const disabledEndpoints = () => new Set(all('SELECT id FROM endpoint_states').map((row) => row.id as string));
  /** Positions of the deliveries on the wire: a claimed lane's delivery, while its lease runs. */
  const inFlightPositions = (now: number) => new Set(all('SELECT claimed FROM lanes WHERE lease_until > ? AND claimed IS NOT NULL', now).map((row) => Number(row.claimed)));
  const waitingState = (position: number, endpointId: string, disabled: Set<string>, inFlight: Set<number>): DeliveryState =>
    disabled.has(endpointId) ? 'held' : inFlight.has(position) ? 'in-flight' : 'pending';

  const outbox: WebhookOutbox = {
    async append(events, now) {
      await write(() => storeEvents(events, now));
    },

    async claim(now, leaseMs, limit) {
      return write(() => {
        const due = all(
          `SELECT l.endpoint_id, l.lane_key FROM lanes l
           WHERE l.due_at <= ? AND l.lease_until <= ? AND NOT EXISTS (SELECT 1 FROM endpoint_states s WHERE s.id = l.endpoint_id)
             AND (l.priority = 1 OR NOT EXISTS (SELECT 1 FROM lanes p WHERE p.endpoint_id = l.endpoint_id AND p.priority = 1))
           ORDER BY l.due_at, l.due_seq LIMIT ?`,
          now,
          now,
          limit,
        );
        const claims: LaneClaim[] = [];
        for (const lane of due) {
          const endpointId = lane.endpoint_id as string;
          const laneKey = lane.lane_key as string;
          const head = laneHead(endpointId, laneKey);
          if (!head) {
            run('DELETE FROM lanes WHERE endpoint_id = ? AND lane_key = ?', endpointId, laneKey);
            continue;
          }
          const token = newClaimToken();
          run('UPDATE lanes SET token = ?, lease_until = ?, claimed = ? WHERE endpoint_id = ? AND lane_key = ?', token, now + leaseMs, head.position as number, endpointId, laneKey);
          claims.push({
            endpointId,
            laneKey,
            token,
            partnerId: head.partner_id as string,
            eventId: head.id as string,
            type: head.type as string,
            body: head.body as string,
            attempts: Number(head.attempts),
            roundAttempts: Number(head.round_attempts),
          });
        }
        return claims;
      });
    },

    async settle(claim, outcome, attempt, now) {
      return write(() => {
        const lane = get('SELECT token, lease_until, claimed FROM lanes WHERE endpoint_id = ? AND lane_key = ?', claim.endpointId, claim.laneKey);
        if (!lane || lane.token !== claim.token || Number(lane.lease_until) <= now || lane.claimed === null) return false;
        const position = Number(lane.claimed);
        const head = get("SELECT d.partner_id, e.id FROM deliveries d JOIN events e ON e.seq = d.event_seq WHERE d.position = ? AND d.state = 'pending'", position);
        if (!head || head.id !== claim.eventId) return false;
        run('UPDATE deliveries SET attempts = attempts + 1, round_attempts = round_attempts + 1, state = ? WHERE position = ?', outcome.kind === 'delivered' ? 'delivered' : 'pending', position);
        pushAttempt(attempt, head.partner_id as string);
        if (outcome.kind === 'delivered') {
          if (laneHead(claim.endpointId, claim.laneKey)) makeLaneDue(claim.endpointId, claim.laneKey, now);
          else run('DELETE FROM lanes WHERE endpoint_id = ? AND lane_key = ?', claim.endpointId, claim.laneKey);
          pruneEvents();
        } else if (outcome.kind === 'retry') {
          makeLaneDue(claim.endpointId, claim.laneKey, outcome.at);
        } else {
          run(
            "INSERT INTO endpoint_states (id, disabled_at, reason, failed_event_id) VALUES (?, ?, 'failures', ?) ON CONFLICT (id) DO UPDATE SET disabled_at = excluded.disabled_at, reason = excluded.reason, failed_event_id = excluded.failed_event_id",
            claim.endpointId,
            now,
            claim.eventId,
          );
          makeLaneDue(claim.endpointId, claim.laneKey, now);
        }
        return true;
      });
    },

    async release(claim, now) {
      await write(() => {
        const lane = get('SELECT token FROM lanes WHERE endpoint_id = ? AND lane_key = ?', claim.endpointId, claim.laneKey);
        if (lane && lane.token === claim.token) makeLaneDue(claim.endpointId, claim.laneKey, now);
      });
    },

    async disable(endpointId, now) {
      await write(() => run("INSERT INTO endpoint_states (id, disabled_at, reason) VALUES (?, ?, 'requested') ON CONFLICT (id) DO NOTHING", endpointId, now));
    },

    async reenable(endpointId, notice, now) {
      return write(() => {
        const row = get('SELECT disabled_at, reason, failed_event_id FROM endpoint_states WHERE id = ?', endpointId);
        if (!row) return false;
        run('DELETE FROM endpoint_states WHERE id = ?', endpointId);
        run("UPDATE deliveries SET round_attempts = 0 WHERE endpoint_id = ? AND state = 'pending'", endpointId);
        for (const lane of all('SELECT lane_key FROM lanes WHERE endpoint_id = ? AND lease_until <= ? ORDER BY due_at, due_seq', endpointId, now)) {
          makeLaneDue(endpointId, lane.lane_key as string, now);
        }
        const event = notice(disablementOf(row));
        if (event) storeEvents([event], now);
        return true;
      });
    },

    async endpoint(endpointId) {
      const row = get('SELECT disabled_at, reason, failed_event_id FROM endpoint_states WHERE id = ?', endpointId);
      return row ? { disabled: disablementOf(row) } : {};
    },

    async forgetEndpoint(endpointId) {
      await write(() => {
        run('DELETE FROM endpoint_states WHERE id = ?', endpointId);
        run("DELETE FROM deliveries WHERE endpoint_id = ? AND state = 'pending'", endpointId);
        run('DELETE FROM lanes WHERE endpoint_id = ?', endpointId);
      });
    },

    async deliveries(now, limit, partnerId) {
      const disabled = disabledEndpoints();
      const inFlight = inFlightPositions(now);
      const columns = 'd.position, d.event_seq, d.endpoint_id, d.attempts, d.state, e.id, e.type, e.ordering_key';
      const partner = partnerId === undefined ? '' : 'AND d.partner_id = ?';
      const params = partnerId === undefined ? [] : [partnerId];
      const delivered = all(
        `SELECT ${columns} FROM deliveries d JOIN events e ON e.seq = d.event_seq WHERE d.state = 'delivered' ${partner} ORDER BY d.position DESC LIMIT ?`,
        ...params,
        options.deliveredCapacity,
      );
      const pending = all(`SELECT ${columns} FROM deliveries d JOIN events e ON e.seq = d.event_seq WHERE d.state = 'pending' ${partner} ORDER BY d.position LIMIT ?`, ...params, limit);
      return [...delivered, ...pending]
        .sort((a, b) => Number(a.event_seq) - Number(b.event_seq) || Number(a.position) - Number(b.position))
        .map(
          (row): DeliveryRecord => ({
            eventId: row.id as string,
            type: row.type as string,
            orderingKey: row.ordering_key as string,
            endpointId: row.endpoint_id as string,
            state: row.state === 'delivered' ? 'delivered' : waitingState(Number(row.position), row.endpoint_id as string, disabled, inFlight),
            attempts: Number(row.attempts),
          }),
        );
    },

    async attempts(limit, partnerId) {
      const rows =
        partnerId === undefined
          ? all('SELECT json FROM attempts ORDER BY id DESC LIMIT ?', limit)
          : all('SELECT json FROM attempts WHERE partner_id = ? ORDER BY id DESC LIMIT ?', partnerId, limit);
      return rows.reverse().map((row) => JSON.parse(row.json as string) as AttemptRecord);
    },

    async events(partnerId, { limit, before, type }, now) {
      const params: SQLInputValue[] = [partnerId, before ?? Number.MAX_SAFE_INTEGER];
      if (type !== undefined) params.push(type);
      const rows = all(
        `SELECT seq, id, type, ordering_key, body, created_at FROM events WHERE partner_id = ? AND seq < ? ${type === undefined ? '' : 'AND type = ?'} ORDER BY seq DESC LIMIT ?`,
        ...params,
        limit + 1,
      );
      const disabled = disabledEndpoints();
      const inFlight = inFlightPositions(now);
      const items = rows.slice(0, limit).map((row): StoredEvent => {
        // Per endpoint, its latest delivery says where the event stands there (a redelivery adds one).
        const latest = new Map<string, Row>();
        for (const delivery of all('SELECT position, endpoint_id, state FROM deliveries WHERE event_seq = ? ORDER BY position', row.seq as number)) {
          latest.set(delivery.endpoint_id as string, delivery);
        }
        return {
          seq: Number(row.seq),
          id: row.id as string,
          type: row.type as string,
          orderingKey: row.ordering_key as string,
          createdAt: Number(row.created_at),
          body: row.body as string,
          deliveries: [...latest].map(([endpointId, delivery]) => ({
            endpointId,
            state: delivery.state === 'delivered' ? 'delivered' : waitingState(Number(delivery.position), endpointId, disabled, inFlight),
            attempts: all('SELECT json FROM attempts WHERE event_id = ? AND endpoint_id = ? ORDER BY id DESC LIMIT ?', row.id as string, endpointId, attemptsShown)
              .reverse()
              .map((attempt) => JSON.parse(attempt.json as string) as AttemptRecord),
          })),
        };
      });
      return rows.length > limit ? { items, next: (items.at(-1) as StoredEvent).seq } : { items };
    },

    async redeliver(partnerId, eventId, endpointId, now) {
      return write(() => {
        const event = get('SELECT seq, ordering_key FROM events WHERE id = ? AND partner_id = ?', eventId, partnerId);
        if (!event) return false;
        enqueue(Number(event.seq), partnerId, endpointId, event.ordering_key as string, now);
        return true;
      });
    },

    async nextDueAt() {
      const at = get('SELECT MIN(MAX(l.due_at, l.lease_until)) AS at FROM lanes l WHERE NOT EXISTS (SELECT 1 FROM endpoint_states s WHERE s.id = l.endpoint_id)')?.at;
      return at === null || at === undefined ? undefined : Number(at);
    },
  };

  return {
    outbox,
    storeEvents,
    reset(partnerId) {
      if (partnerId === undefined) {
        for (const table of ['events', 'deliveries', 'lanes', 'endpoint_states', 'attempts']) run(`DELETE FROM ${table}`);
        return;
      }
      for (const table of ['events', 'deliveries', 'attempts']) run(`DELETE FROM ${table} WHERE partner_id = ?`, partnerId);
      run("DELETE FROM lanes WHERE NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.endpoint_id = lanes.endpoint_id AND d.lane_key = lanes.lane_key AND d.state = 'pending')");
    },
  };
}

function disablementOf(row: Row): EndpointDisablement {
  return { at: Number(row.disabled_at), reason: row.reason === 'requested' ? 'requested' : 'failures', failedEventId: (row.failed_event_id as string | null) ?? null };
}
