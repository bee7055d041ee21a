/**
 * The memory backend: everything in this process's heap, nothing on disk (`--store memory`), for tests and
 * throwaway runs. It keeps the same rules as the other backends (the conformance suite runs on all three); being
 * one process, its claims and leases only ever meet themselves, and a restart forgets everything.
 */
import type { Company } from '../../../generated/openapi.js';
import { newClaimToken } from '../claim-token.ts';
import { createProcessRateBuckets } from '../rate-buckets.ts';
import { matchesCompanyFilter } from '../company-filter.ts';
import type {
  AttemptRecord,
  CustomerRecord,
  DeliveryRecord,
  IdempotencyRecord,
  JournalPage,
  LaneClaim,
  OutboxEvent,
  Page,
  PageRequest,
  RequestRecord,
  StepClaim,
  Store,
  StoredDocument,
  StoredResponse,
  StoreOptions,
} from '../store.ts';

interface Sequenced<T> {
  seq: number;
  value: T;
}

interface IdempotencyEntry {
  fingerprint: string;
  expiresAt: number;
  owner?: string;
  lockedUntil: number;
  response?: StoredResponse;
}

interface Partition {
  sequence: number;
  customers: Sequenced<CustomerRecord>[];
  customersById: Map<string, Sequenced<CustomerRecord>>;
  customerIdByEmail: Map<string, string>;
  companies: Sequenced<Company>[];
  companiesById: Map<string, Sequenced<Company>>;
  documentsByCompany: Map<string, Sequenced<StoredDocument>[]>;
  /** In creation order, which is also expiry order (the retention is fixed): the first entries go first. */
  idempotency: Map<string, IdempotencyEntry>;
}

interface Step {
  partnerId: string;
  companyId: string;
  dueAt: number;
  token?: string;
  leaseUntil: number;
}

interface QueuedDelivery {
  seq: number;
  partnerId: string;
  eventId: string;
  type: string;
  orderingKey: string;
  body: string;
  attempts: number;
  roundAttempts: number;
}

interface Lane {
  endpointId: string;
  laneKey: string;
  priority: boolean;
  queue: QueuedDelivery[];
  dueAt: number;
  /** Breaks ties between lanes due the same millisecond: the one that became due first goes first. */
  dueSeq: number;
  token?: string;
  leaseUntil: number;
}

const endpointLaneKey = 'webhook_endpoint';

export function createMemoryStore(options: StoreOptions): Store {
  const partitions = new Map<string, Partition>();
  const documentsByKey = new Map<string, { partnerId: string; stored: StoredDocument }>();
  const steps = new Map<string, Step>();
  const lanes = new Map<string, Lane>();
  const endpoints = new Map<string, { disabled?: { at: number; failedEventId: string } }>();
  const delivered: (DeliveryRecord & { seq: number; partnerId: string })[] = [];
  const attemptJournal: (AttemptRecord & { partnerId: string })[] = [];
  const journal: { id: number; bytes: number; record: RequestRecord }[] = [];
  const secrets = new Map<string, string>();
  let journalBytes = 0;
  let journalId = 0;
  let eventSeq = 0;
  let dueSeq = 0;
  let queued = 0;

  const partition = (partnerId: string): Partition => {
    let found = partitions.get(partnerId);
    if (!found) {
      found = {
        sequence: 0,
        customers: [],
        customersById: new Map(),
        customerIdByEmail: new Map(),
        companies: [],
        companiesById: new Map(),
        documentsByCompany: new Map(),
        idempotency: new Map(),
      };
      partitions.set(partnerId, found);
    }
    return found;
  };

  const liveIdempotency = (p: Partition | undefined, scope: string, now: number): IdempotencyEntry | undefined => {
    const entry = p?.idempotency.get(scope);
    if (!entry) return undefined;
    if (entry.expiresAt <= now || (entry.response === undefined && entry.lockedUntil <= now)) {
      p?.idempotency.delete(scope);
      return undefined;
    }
    return entry;
  };

  const pushAttempt = (attempt: AttemptRecord, partnerId: string) => {
    attemptJournal.push({ ...attempt, partnerId });
    if (attemptJournal.length > options.attemptJournalCapacity) attemptJournal.splice(0, attemptJournal.length - options.attemptJournalCapacity);
  };

  const laneId = (endpointId: string, laneKey: string) => `${endpointId}\u0000${laneKey}`;
  const makeDue = (lane: Lane, at: number) => {
    lane.dueAt = at;
    lane.dueSeq = ++dueSeq;
    lane.token = undefined;
    lane.leaseUntil = 0;
  };

  const storeEvents = (events: readonly OutboxEvent[], now: number) => {
    for (const { partnerId, event, orderingKey, endpointIds } of events) {
      const seq = ++eventSeq;
      const body = JSON.stringify(event);
      if (endpointIds.length === 0) {
        pushAttempt({ eventId: event.id, type: event.type, orderingKey, attempt: 0, at: new Date(now).toISOString(), durationMs: 0, outcome: 'no-endpoint' }, partnerId);
        continue;
      }
      for (const endpointId of endpointIds) {
        if (queued >= options.memoryMaxQueuedEvents) {
          options.onDroppedEvent?.({ eventId: event.id, type: event.type, orderingKey });
          continue;
        }
        const id = laneId(endpointId, orderingKey);
        let lane = lanes.get(id);
        if (!lane) {
          lane = { endpointId, laneKey: orderingKey, priority: orderingKey === endpointLaneKey, queue: [], dueAt: now, dueSeq: 0, leaseUntil: 0 };
          makeDue(lane, now);
          lanes.set(id, lane);
        }
        const delivery = { seq, partnerId, eventId: event.id, type: event.type, orderingKey, body, attempts: 0, roundAttempts: 0 };
        // The endpoint's own lane is newest first: the notice of the latest disablement goes before older ones.
        if (lane.priority) lane.queue.unshift(delivery);
        else lane.queue.push(delivery);
        queued += 1;
      }
    }
  };

  const newestFirst = <T>(entries: Sequenced<T>[], page: PageRequest, keep: (value: T) => boolean): Page<T> => {
    const picked: Sequenced<T>[] = [];
    let hasMore = false;
    for (let i = entries.length - 1; i >= 0; i -= 1) {
      const entry = entries[i] as Sequenced<T>;
      if (page.after !== undefined && entry.seq >= page.after) continue;
      if (!keep(entry.value)) continue;
      if (picked.length === page.limit) {
        hasMore = true;
        break;
      }
      picked.push(entry);
    }
    return { items: picked.map((entry) => entry.value), hasMore, last: picked.at(-1)?.seq };
  };

  const store: Store = {
    description: 'memory',
    shared: false,
    rateBuckets: createProcessRateBuckets(),

    customers: {
      async create(partnerId, customer) {
        const p = partition(partnerId);
        const email = customer.email.toLowerCase();
        const existingId = p.customerIdByEmail.get(email);
        const existing = existingId ? p.customersById.get(existingId) : undefined;
        if (existing) return { customer: existing.value, created: false };
        const entry = { seq: ++p.sequence, value: customer };
        p.customers.push(entry);
        p.customersById.set(customer.serviceCustomerId, entry);
        p.customerIdByEmail.set(email, customer.serviceCustomerId);
        return { customer, created: true };
      },
      async get(partnerId, customerId) {
        return partitions.get(partnerId)?.customersById.get(customerId)?.value;
      },
      async list(partnerId, { email }, page) {
        const wanted = email?.toLowerCase();
        return newestFirst(partitions.get(partnerId)?.customers ?? [], page, (customer) => wanted === undefined || customer.email.toLowerCase() === wanted);
      },
    },

    companies: {
      async get(partnerId, companyId) {
        return partitions.get(partnerId)?.companiesById.get(companyId)?.value;
      },
      async list(partnerId, filter, page) {
        return newestFirst(partitions.get(partnerId)?.companies ?? [], page, (company) => matchesCompanyFilter(company, filter));
      },
      async ofCustomer(partnerId, customerId, limit) {
        const companies = partitions.get(partnerId)?.companies ?? [];
        const found: Company[] = [];
        for (let i = companies.length - 1; i >= 0 && found.length < limit; i -= 1) {
          const company = (companies[i] as Sequenced<Company>).value;
          if (company.serviceCustomerId === customerId) found.push(company);
        }
        return found;
      },
    },

    documents: {
      async list(partnerId, companyId, page) {
        const list = partitions.get(partnerId)?.documentsByCompany.get(companyId) ?? [];
        const start = page.after === undefined ? 0 : list.findIndex((entry) => entry.seq > (page.after as number));
        const slice = start < 0 ? [] : list.slice(start, start + page.limit);
        return { items: slice.map((entry) => entry.value.document), hasMore: start >= 0 && start + page.limit < list.length, last: slice.at(-1)?.seq };
      },
      async get(partnerId, companyId, documentId) {
        return partitions.get(partnerId)?.documentsByCompany.get(companyId)?.find((entry) => entry.value.document.documentId === documentId)?.value;
      },
      async getAnyPartner(companyId, documentId) {
        return documentsByKey.get(`${companyId}/${documentId}`)?.stored;
      },
    },

    idempotency: {
      async begin({ partnerId, scope, owner }, fingerprint, now, lockMs) {
        const p = partition(partnerId);
        const existing = liveIdempotency(p, scope, now);
        if (existing) {
          const record: IdempotencyRecord = existing.response
            ? { state: 'done', fingerprint: existing.fingerprint, response: existing.response }
            : { state: 'in-flight', fingerprint: existing.fingerprint };
          return { began: false, record };
        }
        p.idempotency.set(scope, { fingerprint, expiresAt: now + options.idempotencyTtlMs, owner, lockedUntil: now + lockMs });
        // Oldest first; a create still in flight is stepped over, never dropped (its answer must still be stored).
        for (const [oldest, entry] of p.idempotency) {
          const expired = entry.expiresAt <= now;
          if (p.idempotency.size <= options.idempotencyMaxRecordsPerPartner && !expired) break;
          if (expired || entry.response !== undefined || entry.lockedUntil <= now) p.idempotency.delete(oldest);
        }
        return { began: true };
      },
      async renew({ partnerId, scope, owner }, now, lockMs) {
        const entry = partitions.get(partnerId)?.idempotency.get(scope);
        if (!entry || entry.owner !== owner || entry.response !== undefined) return false;
        entry.lockedUntil = now + lockMs;
        return true;
      },
      async complete({ partnerId, scope, owner }, response, _now) {
        const entry = partitions.get(partnerId)?.idempotency.get(scope);
        if (!entry || entry.owner !== owner || entry.response !== undefined) return false;
        entry.response = response;
        entry.owner = undefined;
        return true;
      },
      async abandon({ partnerId, scope, owner }) {
        const p = partitions.get(partnerId);
        const entry = p?.idempotency.get(scope);
        if (entry && entry.owner === owner && entry.response === undefined) p?.idempotency.delete(scope);
      },
      async count(partnerId, now) {
        const p = partitions.get(partnerId);
        if (!p) return 0;
        let live = 0;
        for (const scope of [...p.idempotency.keys()]) if (liveIdempotency(p, scope, now)) live += 1;
        return live;
      },
    },

    timeline: {
      async insert(partnerId, company, dueAt) {
        const p = partition(partnerId);
        const entry = { seq: ++p.sequence, value: company };
        p.companies.push(entry);
        p.companiesById.set(company.serviceCompanyId, entry);
        steps.set(company.serviceCompanyId, { partnerId, companyId: company.serviceCompanyId, dueAt, leaseUntil: 0 });
      },
      async claimDue(now, leaseMs, limit) {
        const due = [...steps.values()].filter((step) => step.dueAt <= now && step.leaseUntil <= now).sort((a, b) => a.dueAt - b.dueAt).slice(0, limit);
        return due.map((step) => {
          step.token = newClaimToken();
          step.leaseUntil = now + leaseMs;
          return { partnerId: step.partnerId, companyId: step.companyId, token: step.token, dueAt: step.dueAt };
        });
      },
      async claim(partnerId, companyId, now, leaseMs) {
        const step = steps.get(companyId);
        if (!step || step.partnerId !== partnerId) return 'none';
        if (step.leaseUntil > now) return 'busy';
        step.token = newClaimToken();
        step.leaseUntil = now + leaseMs;
        return { partnerId, companyId, token: step.token, dueAt: step.dueAt };
      },
      async commit(claim, change, next, now) {
        const step = steps.get(claim.companyId);
        if (!step || step.token !== claim.token || step.leaseUntil <= now) return false;
        if (change) {
          const p = partition(claim.partnerId);
          const entry = p.companiesById.get(change.company.serviceCompanyId);
          if (entry) entry.value = change.company;
          if (change.document) {
            const { document } = change.document;
            const list = p.documentsByCompany.get(document.serviceCompanyId) ?? [];
            list.push({ seq: ++p.sequence, value: change.document });
            p.documentsByCompany.set(document.serviceCompanyId, list);
            documentsByKey.set(`${document.serviceCompanyId}/${document.documentId}`, { partnerId: claim.partnerId, stored: change.document });
          }
          storeEvents(change.events, now);
        }
        if ('done' in next) steps.delete(claim.companyId);
        else if ('dueAt' in next) Object.assign(step, { dueAt: next.dueAt, token: undefined, leaseUntil: 0 });
        return true;
      },
      async nextDueAt() {
        let earliest: number | undefined;
        for (const step of steps.values()) {
          const at = Math.max(step.dueAt, step.leaseUntil);
          if (earliest === undefined || at < earliest) earliest = at;
        }
        return earliest;
      },
    },

    outbox: {
      async append(events, now) {
        storeEvents(events, now);
      },
      async claim(now, leaseMs, limit) {
        const withNotice = new Set([...lanes.values()].filter((lane) => lane.priority && lane.queue.length > 0).map((lane) => lane.endpointId));
        const claimable = [...lanes.values()]
          .filter((lane) => lane.dueAt <= now && lane.leaseUntil <= now && !endpoints.get(lane.endpointId)?.disabled && (lane.priority || !withNotice.has(lane.endpointId)))
          .sort((a, b) => a.dueAt - b.dueAt || a.dueSeq - b.dueSeq)
          .slice(0, limit);
        return claimable.map((lane): LaneClaim => {
          const head = lane.queue[0] as QueuedDelivery;
          lane.token = newClaimToken();
          lane.leaseUntil = now + leaseMs;
          return {
            endpointId: lane.endpointId,
            laneKey: lane.laneKey,
            token: lane.token,
            partnerId: head.partnerId,
            eventId: head.eventId,
            type: head.type,
            body: head.body,
            attempts: head.attempts,
            roundAttempts: head.roundAttempts,
          };
        });
      },
      async settle(claim, outcome, attempt, now) {
        const id = laneId(claim.endpointId, claim.laneKey);
        const lane = lanes.get(id);
        const index = lane?.queue.findIndex((delivery) => delivery.eventId === claim.eventId) ?? -1;
        const head = lane?.queue[index];
        if (!lane || !head || lane.token !== claim.token || lane.leaseUntil <= now) return false;
        head.attempts += 1;
        head.roundAttempts += 1;
        pushAttempt(attempt, head.partnerId);
        if (outcome.kind === 'delivered') {
          lane.queue.splice(index, 1);
          queued -= 1;
          delivered.push({ seq: head.seq, partnerId: head.partnerId, eventId: head.eventId, type: head.type, orderingKey: head.orderingKey, endpointId: claim.endpointId, state: 'delivered', attempts: head.attempts });
          if (delivered.length > options.deliveredCapacity) delivered.splice(0, delivered.length - options.deliveredCapacity);
          if (lane.queue.length === 0) lanes.delete(id);
          else makeDue(lane, now);
          return true;
        }
        if (outcome.kind === 'retry') {
          makeDue(lane, outcome.at);
          return true;
        }
        endpoints.set(claim.endpointId, { disabled: { at: now, failedEventId: claim.eventId } });
        makeDue(lane, now);
        return true;
      },
      async release(claim, now) {
        const lane = lanes.get(laneId(claim.endpointId, claim.laneKey));
        if (lane && lane.token === claim.token) makeDue(lane, now);
      },
      async reenable(endpointId, notice, now) {
        const disabled = endpoints.get(endpointId)?.disabled;
        if (!disabled) return false;
        endpoints.set(endpointId, {});
        for (const lane of lanes.values()) {
          if (lane.endpointId !== endpointId) continue;
          for (const delivery of lane.queue) delivery.roundAttempts = 0;
          if (lane.leaseUntil <= now) makeDue(lane, now);
        }
        storeEvents([notice(disabled)], now);
        return true;
      },
      async endpoint(endpointId) {
        return { ...endpoints.get(endpointId) };
      },
      async deliveries(now, limit) {
        const pending = [...lanes.values()].flatMap((lane) =>
          lane.queue.map((delivery, index) => ({
            seq: delivery.seq,
            eventId: delivery.eventId,
            type: delivery.type,
            orderingKey: delivery.orderingKey,
            endpointId: lane.endpointId,
            state: endpoints.get(lane.endpointId)?.disabled ? ('held' as const) : index === 0 && lane.leaseUntil > now ? ('in-flight' as const) : ('pending' as const),
            attempts: delivery.attempts,
          })),
        );
        pending.sort((a, b) => a.seq - b.seq);
        return [...delivered, ...pending.slice(0, limit)].sort((a, b) => a.seq - b.seq).map(({ seq: _seq, partnerId: _partner, ...record }: DeliveryRecord & { seq: number; partnerId?: string }) => record);
      },
      async attempts(limit) {
        return attemptJournal.slice(-limit).map(({ partnerId: _partner, ...attempt }) => attempt);
      },
      async nextDueAt() {
        let earliest: number | undefined;
        for (const lane of lanes.values()) {
          if (endpoints.get(lane.endpointId)?.disabled) continue;
          const at = Math.max(lane.dueAt, lane.leaseUntil);
          if (earliest === undefined || at < earliest) earliest = at;
        }
        return earliest;
      },
    },

    journal: {
      async append(records) {
        for (const record of records) {
          const bytes = Buffer.byteLength(JSON.stringify(record));
          journal.push({ id: ++journalId, bytes, record });
          journalBytes += bytes;
        }
        let drop = 0;
        while (journalBytes > options.journalMaxBytes && drop < journal.length) journalBytes -= (journal[drop++] as { bytes: number }).bytes;
        if (drop > 0) journal.splice(0, drop);
      },
      async page({ limit: asked, before, operationId, status, partnerId }): Promise<JournalPage> {
        const limit = Math.max(1, asked);
        const entries: JournalPage['entries'] = [];
        // Ids only grow: the last entry before `before` is found by halving, not by walking back to it.
        let index = journal.length - 1;
        if (before !== undefined) {
          let [low, high] = [0, journal.length];
          while (low < high) {
            const middle = (low + high) >> 1;
            if ((journal[middle] as { id: number }).id < before) low = middle + 1;
            else high = middle;
          }
          index = low - 1;
        }
        let examined = 0;
        for (; index >= 0 && entries.length < limit && examined < limit * 10; index -= 1, examined += 1) {
          const { id, record } = journal[index] as { id: number; record: RequestRecord };
          if (operationId !== undefined && record.operationId !== operationId) continue;
          if (status !== undefined && record.status !== status) continue;
          if (partnerId !== undefined && record.partnerId !== partnerId) continue;
          entries.push({ ...record, id });
        }
        const next = index >= 0 ? (journal[index + 1] as { id: number }).id : undefined;
        return { entries: entries.reverse(), ...(next === undefined ? {} : { next }) };
      },
    },

    async secret(name, create) {
      let value = secrets.get(name);
      if (value === undefined) {
        value = create();
        secrets.set(name, value);
      }
      return value;
    },

    async reset(partnerId) {
      if (partnerId === undefined) {
        partitions.clear();
        documentsByKey.clear();
        steps.clear();
        lanes.clear();
        endpoints.clear();
        delivered.length = 0;
        attemptJournal.length = 0;
        journal.length = 0;
        journalBytes = 0;
        queued = 0;
        return;
      }
      partitions.delete(partnerId);
      for (const [key, entry] of documentsByKey) if (entry.partnerId === partnerId) documentsByKey.delete(key);
      for (const [companyId, step] of steps) if (step.partnerId === partnerId) steps.delete(companyId);
      for (const [id, lane] of lanes) {
        const kept = lane.queue.filter((delivery) => delivery.partnerId !== partnerId);
        queued -= lane.queue.length - kept.length;
        if (kept.length === 0) lanes.delete(id);
        else lane.queue = kept;
      }
      const keep = <T extends { partnerId?: string }>(list: T[]) => list.splice(0, list.length, ...list.filter((item) => item.partnerId !== partnerId));
      keep(delivered);
      keep(attemptJournal);
      const kept = journal.filter((entry) => entry.record.partnerId !== partnerId);
      journal.splice(0, journal.length, ...kept);
      journalBytes = kept.reduce((sum, entry) => sum + entry.bytes, 0);
    },

    async close() {},
  };
  return store;
}
