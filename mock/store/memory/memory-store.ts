/**
 * The memory backend: everything in this process's heap, nothing on disk (`--store memory`), for tests and
 * throwaway runs. It keeps the same rules as the other backends (the conformance suite runs on all three); being
 * one process, its claims and leases only ever meet themselves, and a restart forgets everything.
 */
import type { Company } from '../../../generated/openapi.js';
import { newClaimToken } from '../claim-token.ts';
import { createMemoryOutbox } from './memory-outbox.ts';
import { createProcessRateBuckets } from '../rate-buckets.ts';
import { matchesCompanyFilter } from '../company-filter.ts';
import type {
  CustomerRecord,
  IdempotencyRecord,
  JournalPage,
  Page,
  PageRequest,
  RequestRecord,
  StepClaim,
  Store,
  StoredDocument,
  StoredResponse,
  StoreOptions,
  WebhookEndpointRecord,
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

export function createMemoryStore(options: StoreOptions): Store {
  const partitions = new Map<string, Partition>();
  const documentsByKey = new Map<string, { partnerId: string; stored: StoredDocument }>();
  const steps = new Map<string, Step>();
  const { outbox, storeEvents, reset: resetOutbox } = createMemoryOutbox(options);
  const endpointsById = new Map<string, WebhookEndpointRecord>();
  const journal: { id: number; bytes: number; record: RequestRecord }[] = [];
  const secrets = new Map<string, string>();
  let journalBytes = 0;
  let journalId = 0;

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

    outbox,

    webhookEndpoints: {
      async create(endpoint, maxPerPartner) {
        if ([...endpointsById.values()].filter((other) => other.partnerId === endpoint.partnerId).length >= maxPerPartner) return false;
        endpointsById.set(endpoint.id, structuredClone(endpoint));
        return true;
      },
      async list(partnerId) {
        return [...endpointsById.values()].filter((endpoint) => endpoint.partnerId === partnerId).map((endpoint) => structuredClone(endpoint));
      },
      async get(partnerId, endpointId) {
        const endpoint = endpointsById.get(endpointId);
        return endpoint?.partnerId === partnerId ? structuredClone(endpoint) : undefined;
      },
      async find(endpointId) {
        const endpoint = endpointsById.get(endpointId);
        return endpoint ? structuredClone(endpoint) : undefined;
      },
      async update(endpoint) {
        const stored = endpointsById.get(endpoint.id);
        if (!stored || stored.partnerId !== endpoint.partnerId) return undefined;
        const updated = { ...structuredClone(endpoint), createdAt: stored.createdAt };
        endpointsById.set(endpoint.id, updated);
        return structuredClone(updated);
      },
      async delete(partnerId, endpointId) {
        if (endpointsById.get(endpointId)?.partnerId !== partnerId) return false;
        endpointsById.delete(endpointId);
        await outbox.forgetEndpoint(endpointId);
        return true;
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
      resetOutbox(partnerId);
      if (partnerId === undefined) {
        partitions.clear();
        documentsByKey.clear();
        steps.clear();
        endpointsById.clear();
        journal.length = 0;
        journalBytes = 0;
        return;
      }
      partitions.delete(partnerId);
      for (const [key, entry] of documentsByKey) if (entry.partnerId === partnerId) documentsByKey.delete(key);
      for (const [companyId, step] of steps) if (step.partnerId === partnerId) steps.delete(companyId);
      for (const [id, endpoint] of endpointsById) if (endpoint.partnerId === partnerId) endpointsById.delete(id);
      const kept = journal.filter((entry) => entry.record.partnerId !== partnerId);
      journal.splice(0, journal.length, ...kept);
      journalBytes = kept.reduce((sum, entry) => sum + entry.bytes, 0);
    },

    async close() {},
  };
  return store;
}
