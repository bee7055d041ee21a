/**
 * The SQLite backend (`--store sqlite:PATH`, the default): one file, no server. It uses Node's built-in
 * `node:sqlite`, so nothing is compiled at install. The file is in WAL mode with `synchronous = NORMAL`: a commit
 * survives the mock being killed (only a power loss can take the last ones back). Every method is one
 * transaction, and node:sqlite runs each synchronously, so nothing interleaves with it.
 *
 * One process owns the file (`locking_mode = EXCLUSIVE`): a second mock on the same file is refused at start with a
 * message pointing to Redis, which is what several processes share. Owning it lets this process hold what need not
 * outlive it (the lock of a create in flight) in memory instead of on disk, and keep a bounded cache of the reads
 * every request makes, at no risk of reading stale data.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import type { Company, Document } from '../../../generated/openapi.js';
import { newClaimToken } from '../claim-token.ts';
import { createProcessRateBuckets } from '../rate-buckets.ts';
import { createReadCache } from './read-cache.ts';
import { createSqliteOutbox } from './sqlite-outbox.ts';
import { StoreError } from '../store-error.ts';
import type {
  CompanyFilter,
  CustomerRecord,
  JournalPage,
  Page,
  RequestRecord,
  StepClaim,
  Store,
  StoredResponse,
  StoreOptions,
  WebhookEndpointRecord,
} from '../store.ts';
import { schema, schemaVersion } from './schema.ts';

type Row = Record<string, SQLInputValue>;

const endpointLaneKey = 'webhook_endpoint';

export function openSqliteStore(path: string, options: StoreOptions): Store {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(path);
    // Exclusive before WAL, so that the WAL index lives in this process's memory rather than in a shared file.
    db.exec('PRAGMA locking_mode = EXCLUSIVE; PRAGMA busy_timeout = 2000; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
    migrate(db, path);
  } catch (error) {
    if (db?.isOpen) db.close();
    if (error instanceof StoreError) throw error;
    if (/database is locked|SQLITE_BUSY/i.test((error as Error).message)) {
      throw new StoreError(
        `the SQLite store ${path} is in use by another process (another mock?): a SQLite store serves one process. Stop the other one, give this one another --store sqlite:PATH, or share a Redis between several (--store redis://HOST:PORT)`,
      );
    }
    throw new StoreError(`cannot open the SQLite store ${path}: ${(error as Error).message}`);
  }
  // What a request reads most; see the file's opening comment for why a cache is safe here.
  const customerCache = createReadCache<CustomerRecord>(10_000);
  const companiesOfCustomerCache = createReadCache<Map<number, Company[]>>(10_000);
  const forgetCompaniesOf = (partnerId: string, customerId: string) => companiesOfCustomerCache.delete(`${partnerId}\u0000${customerId}`);
  /** Creates in flight, by partner and scope: held by this process only, as the file is. */
  const inFlight = new Map<string, { partnerId: string; owner: string; fingerprint: string; lockedUntil: number; expiresAt: number }>();
  const flightKey = (partnerId: string, scope: string) => `${partnerId}\u0000${scope}`;

  const statements = new Map<string, StatementSync>();
  const sql = (text: string): StatementSync => {
    let statement = statements.get(text);
    if (!statement) {
      statement = db.prepare(text);
      statements.set(text, statement);
    }
    return statement;
  };
  const get = (text: string, ...params: SQLInputValue[]) => sql(text).get(...params) as Row | undefined;
  const all = (text: string, ...params: SQLInputValue[]) => sql(text).all(...params) as Row[];
  const run = (text: string, ...params: SQLInputValue[]) => sql(text).run(...params);

  let depth = 0;
  /** One transaction, run now; a nested call joins the outer one. */
  const tx = <T>(work: () => T): T => {
    if (depth > 0) return work();
    db.exec('BEGIN IMMEDIATE');
    depth += 1;
    try {
      const result = work();
      db.exec('COMMIT');
      return result;
    } catch (error) {
      db.exec('ROLLBACK');
      throw error;
    } finally {
      depth -= 1;
    }
  };

  /**
   * A write, committed with the others asked for in the same turn of the event loop (group commit): a commit costs
   * far more than the statements in it (each page it changed is written to the WAL), and the requests a busy mock
   * handles at once share one. Each write runs in a savepoint of its own, so one that fails undoes only itself;
   * its promise settles once the commit is done, so an answer is never sent before what it says is on disk.
   */
  let waiting: { work: () => unknown; resolve: (value: unknown) => void; reject: (error: unknown) => void }[] = [];
  let committing: Promise<void> | undefined;
  const write = <T>(work: () => T): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      waiting.push({ work, resolve: resolve as (value: unknown) => void, reject });
      committing ??= new Promise<void>((done) => setImmediate(() => done(commitWaiting())));
    });
  const commitWaiting = () => {
    committing = undefined;
    const batch = waiting;
    waiting = [];
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    try {
      tx(() => {
        for (const { work } of batch) {
          db.exec('SAVEPOINT one_write');
          try {
            outcomes.push({ ok: true, value: work() });
            db.exec('RELEASE one_write');
          } catch (error) {
            db.exec('ROLLBACK TO one_write');
            db.exec('RELEASE one_write');
            outcomes.push({ ok: false, error });
          }
        }
      });
    } catch (error) {
      // The commit itself failed (a full disk): nothing of the batch was written, and what this process keeps
      // beside the file may now say otherwise, so it is read again from the file.
      forgetDerived();
      for (const { reject } of batch) reject(error);
      return;
    }
    batch.forEach(({ resolve, reject }, index) => {
      const outcome = outcomes[index] as (typeof outcomes)[number];
      if (outcome.ok) resolve(outcome.value);
      else reject(outcome.error);
    });
  };

  // Counters kept in this process (it owns the file) and read back at first use, so that no request writes a
  // counter row: fewer pages per transaction is what makes a SQLite write cheap.
  const sequences = new Map<string, number>();
  const nextSeq = (partnerId: string): number => {
    let last = sequences.get(partnerId);
    if (last === undefined) {
      last = Math.max(
        ...['customers', 'companies', 'documents'].map((table) => Number(get(`SELECT MAX(seq) AS seq FROM ${table} WHERE partner_id = ?`, partnerId)?.seq ?? 0)),
      );
    }
    sequences.set(partnerId, last + 1);
    return last + 1;
  };
  const idempotencyCounts = new Map<string, number>();
  const forgetDerived = () => {
    sequences.clear();
    idempotencyCounts.clear();
    customerCache.clear();
    companiesOfCustomerCache.clear();
  };
  const idempotencyCount = (partnerId: string): number =>
    idempotencyCounts.get(partnerId) ?? Number((get('SELECT COUNT(*) AS n FROM idempotency WHERE partner_id = ?', partnerId) as Row).n);
  let idempotencySeq = Number(get('SELECT MAX(created_seq) AS seq FROM idempotency')?.seq ?? 0);
  const nextDueSeq = (): number => Number((get("UPDATE meta SET value = value + 1 WHERE name = 'due_seq' RETURNING value") as Row).value);

  const pageOf = <T>(rows: Row[], limit: number, read: (row: Row) => T): Page<T> => {
    const shown = rows.slice(0, limit);
    return { items: shown.map(read), hasMore: rows.length > limit, last: shown.length > 0 ? Number(shown.at(-1)?.seq) : undefined };
  };
  const json = <T>(row: Row): T => JSON.parse(row.json as string) as T;
  const beforeSeq = (after: number | undefined) => after ?? Number.MAX_SAFE_INTEGER;

  const { outbox, storeEvents, reset: resetOutbox } = createSqliteOutbox({ get, all, run, write, nextDueSeq }, options);

  const companyStatements = new Map<string, string>();
  const companyListSql = (filter: CompanyFilter): string => {
    const key = `${filter.serviceCustomerId !== undefined}${filter.status !== undefined}${filter.entityType !== undefined}`;
    let text = companyStatements.get(key);
    if (!text) {
      const where = ['partner_id = ?', 'seq < ?'];
      if (filter.serviceCustomerId !== undefined) where.push('customer_id = ?');
      if (filter.status !== undefined) where.push('status = ?');
      if (filter.entityType !== undefined) where.push('entity_type = ?');
      text = `SELECT seq, json FROM companies WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT ?`;
      companyStatements.set(key, text);
    }
    return text;
  };

  const toResponse = (row: Row): StoredResponse => ({
    status: Number(row.response_status),
    headers: JSON.parse(row.response_headers as string) as Record<string, string>,
    body: row.response_body as string | Uint8Array,
  });

  const store: Store = {
    description: `sqlite:${path}`,
    shared: true,
    rateBuckets: createProcessRateBuckets(),

    customers: {
      async create(partnerId, customer) {
        return write(() => {
          const email = customer.email.toLowerCase();
          const existing = get('SELECT json FROM customers WHERE partner_id = ? AND email_lower = ?', partnerId, email);
          if (existing) return { customer: json<CustomerRecord>(existing), created: false };
          run('INSERT INTO customers (partner_id, id, seq, email_lower, json) VALUES (?, ?, ?, ?, ?)', partnerId, customer.serviceCustomerId, nextSeq(partnerId), email, JSON.stringify(customer));
          customerCache.set(`${partnerId}\u0000${customer.serviceCustomerId}`, customer);
          return { customer, created: true };
        });
      },
      async get(partnerId, customerId) {
        const key = `${partnerId}\u0000${customerId}`;
        const cached = customerCache.get(key);
        if (cached) return cached;
        const row = get('SELECT json FROM customers WHERE partner_id = ? AND id = ?', partnerId, customerId);
        const customer = row ? json<CustomerRecord>(row) : undefined;
        if (customer) customerCache.set(key, customer);
        return customer;
      },
      async list(partnerId, { email }, page) {
        const rows =
          email === undefined
            ? all('SELECT seq, json FROM customers WHERE partner_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?', partnerId, beforeSeq(page.after), page.limit + 1)
            : all('SELECT seq, json FROM customers WHERE partner_id = ? AND seq < ? AND email_lower = ? ORDER BY seq DESC LIMIT ?', partnerId, beforeSeq(page.after), email.toLowerCase(), page.limit + 1);
        return pageOf(rows, page.limit, (row) => json<CustomerRecord>(row));
      },
    },

    companies: {
      async get(partnerId, companyId) {
        const row = get('SELECT json FROM companies WHERE partner_id = ? AND id = ?', partnerId, companyId);
        return row ? json<Company>(row) : undefined;
      },
      async list(partnerId, filter, page) {
        const params: SQLInputValue[] = [partnerId, beforeSeq(page.after)];
        if (filter.serviceCustomerId !== undefined) params.push(filter.serviceCustomerId);
        if (filter.status !== undefined) params.push(filter.status);
        if (filter.entityType !== undefined) params.push(filter.entityType);
        return pageOf(all(companyListSql(filter), ...params, page.limit + 1), page.limit, (row) => json<Company>(row));
      },
      async ofCustomer(partnerId, customerId, limit) {
        const key = `${partnerId}\u0000${customerId}`;
        const byLimit = companiesOfCustomerCache.get(key) ?? new Map<number, Company[]>();
        let companies = byLimit.get(limit);
        if (!companies) {
          companies = all('SELECT json FROM companies WHERE partner_id = ? AND customer_id = ? ORDER BY seq DESC LIMIT ?', partnerId, customerId, limit).map((row) => json<Company>(row));
          byLimit.set(limit, companies);
          companiesOfCustomerCache.set(key, byLimit);
        }
        return companies;
      },
    },

    documents: {
      async list(partnerId, companyId, page) {
        const rows = all('SELECT seq, json FROM documents WHERE partner_id = ? AND company_id = ? AND seq > ? ORDER BY seq LIMIT ?', partnerId, companyId, page.after ?? 0, page.limit + 1);
        return pageOf(rows, page.limit, (row) => json<Document>(row));
      },
      async get(partnerId, companyId, documentId) {
        const row = get('SELECT json, file FROM documents WHERE partner_id = ? AND company_id = ? AND id = ?', partnerId, companyId, documentId);
        return row ? { document: json<Document>(row), file: row.file as Uint8Array } : undefined;
      },
      async getAnyPartner(companyId, documentId) {
        const row = get('SELECT json, file FROM documents WHERE company_id = ? AND id = ?', companyId, documentId);
        return row ? { document: json<Document>(row), file: row.file as Uint8Array } : undefined;
      },
    },

    idempotency: {
      async begin({ partnerId, scope, owner }, fingerprint, now, lockMs) {
        const key = flightKey(partnerId, scope);
        const flying = inFlight.get(key);
        if (flying && flying.lockedUntil > now && flying.expiresAt > now) return { began: false, record: { state: 'in-flight', fingerprint: flying.fingerprint } };
        const row = get('SELECT fingerprint, expires_at, response_status, response_headers, response_body FROM idempotency WHERE partner_id = ? AND scope = ?', partnerId, scope);
        if (row && Number(row.expires_at) > now) return { began: false, record: { state: 'done', fingerprint: row.fingerprint as string, response: toResponse(row) } };
        inFlight.set(key, { partnerId, owner, fingerprint, lockedUntil: now + lockMs, expiresAt: now + options.idempotencyTtlMs });
        return { began: true };
      },
      async renew({ partnerId, scope, owner }, now, lockMs) {
        const flying = inFlight.get(flightKey(partnerId, scope));
        if (!flying || flying.owner !== owner) return false;
        flying.lockedUntil = now + lockMs;
        return true;
      },
      async complete({ partnerId, scope, owner }, response, now) {
        const key = flightKey(partnerId, scope);
        const flying = inFlight.get(key);
        if (!flying || flying.owner !== owner) return false;
        await write(() => {
          let count = idempotencyCount(partnerId);
          // The expired record this key may still have, and the partner's oldest ones that expired, go first.
          count -= Number(run('DELETE FROM idempotency WHERE partner_id = ? AND scope = ?', partnerId, scope).changes);
          count -= Number(
            run(
              'DELETE FROM idempotency WHERE partner_id = ? AND scope IN (SELECT scope FROM idempotency WHERE partner_id = ? ORDER BY created_seq LIMIT 16) AND expires_at <= ?',
              partnerId,
              partnerId,
              now,
            ).changes,
          );
          run(
            'INSERT INTO idempotency (partner_id, scope, created_seq, expires_at, fingerprint, response_status, response_headers, response_body) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
            partnerId,
            scope,
            (idempotencySeq += 1),
            flying.expiresAt,
            flying.fingerprint,
            response.status,
            JSON.stringify(response.headers),
            response.body,
          );
          count += 1;
          if (count > options.idempotencyMaxRecordsPerPartner) {
            count -= Number(
              run(
                'DELETE FROM idempotency WHERE partner_id = ? AND scope IN (SELECT scope FROM idempotency WHERE partner_id = ? ORDER BY created_seq LIMIT ?)',
                partnerId,
                partnerId,
                count - options.idempotencyMaxRecordsPerPartner,
              ).changes,
            );
          }
          idempotencyCounts.set(partnerId, count);
        });
        // Only now that the answer is on disk: until then a retry must meet the lock, not an empty key.
        if (inFlight.get(key) === flying) inFlight.delete(key);
        return true;
      },
      async abandon({ partnerId, scope, owner }) {
        const key = flightKey(partnerId, scope);
        if (inFlight.get(key)?.owner === owner) inFlight.delete(key);
      },
      async count(partnerId, now) {
        const stored = Number((get('SELECT COUNT(*) AS n FROM idempotency WHERE partner_id = ? AND expires_at > ?', partnerId, now) as Row).n);
        let flying = 0;
        for (const entry of inFlight.values()) if (entry.partnerId === partnerId && entry.lockedUntil > now) flying += 1;
        return stored + flying;
      },
    },

    timeline: {
      async insert(partnerId, company, dueAt) {
        await write(() => {
          run(
            'INSERT INTO companies (partner_id, id, seq, customer_id, status, entity_type, json) VALUES (?, ?, ?, ?, ?, ?, ?)',
            partnerId,
            company.serviceCompanyId,
            nextSeq(partnerId),
            company.serviceCustomerId,
            company.status,
            company.entityType,
            JSON.stringify(company),
          );
          run('INSERT INTO steps (company_id, partner_id, due_at) VALUES (?, ?, ?)', company.serviceCompanyId, partnerId, dueAt);
        });
        forgetCompaniesOf(partnerId, company.serviceCustomerId);
      },
      async claimDue(now, leaseMs, limit) {
        return write(() =>
          all('SELECT company_id, partner_id, due_at FROM steps WHERE due_at <= ? AND lease_until <= ? ORDER BY due_at LIMIT ?', now, now, limit).map((row): StepClaim => {
            const token = newClaimToken();
            run('UPDATE steps SET token = ?, lease_until = ? WHERE company_id = ?', token, now + leaseMs, row.company_id as string);
            return { partnerId: row.partner_id as string, companyId: row.company_id as string, token, dueAt: Number(row.due_at) };
          }),
        );
      },
      async claim(partnerId, companyId, now, leaseMs) {
        return write(() => {
          const row = get('SELECT partner_id, due_at, lease_until FROM steps WHERE company_id = ?', companyId);
          if (!row || row.partner_id !== partnerId) return 'none';
          if (Number(row.lease_until) > now) return 'busy';
          const token = newClaimToken();
          run('UPDATE steps SET token = ?, lease_until = ? WHERE company_id = ?', token, now + leaseMs, companyId);
          return { partnerId, companyId, token, dueAt: Number(row.due_at) };
        });
      },
      async commit(claim, change, next, now) {
        return write(() => {
          const row = get('SELECT token, lease_until FROM steps WHERE company_id = ?', claim.companyId);
          if (!row || row.token !== claim.token || Number(row.lease_until) <= now) return false;
          if (change) {
            const { company, document } = change;
            run('UPDATE companies SET status = ?, json = ? WHERE partner_id = ? AND id = ?', company.status, JSON.stringify(company), claim.partnerId, company.serviceCompanyId);
            forgetCompaniesOf(claim.partnerId, company.serviceCustomerId);
            if (document) {
              run(
                'INSERT INTO documents (partner_id, company_id, id, seq, json, file) VALUES (?, ?, ?, ?, ?, ?)',
                claim.partnerId,
                document.document.serviceCompanyId,
                document.document.documentId,
                nextSeq(claim.partnerId),
                JSON.stringify(document.document),
                document.file,
              );
            }
            storeEvents(change.events, now);
          }
          if ('done' in next) run('DELETE FROM steps WHERE company_id = ?', claim.companyId);
          else if ('dueAt' in next) run('UPDATE steps SET due_at = ?, token = NULL, lease_until = 0 WHERE company_id = ?', next.dueAt, claim.companyId);
          return true;
        });
      },
      async nextDueAt() {
        // A held step is claimable once its lease ends, and not before it is due: a lease run out on a step that is
        // never due (the manual timeline) must not read as work due now.
        const free = get('SELECT MIN(due_at) AS at FROM steps WHERE lease_until = 0')?.at;
        const leased = get('SELECT MIN(MAX(due_at, lease_until)) AS at FROM steps WHERE lease_until > 0')?.at;
        const times = [free, leased].filter((at) => at !== null && at !== undefined).map(Number);
        return times.length > 0 ? Math.min(...times) : undefined;
      },
    },

    outbox,

    webhookEndpoints: {
      async create(endpoint, maxPerPartner) {
        return write(() => {
          if (Number((get('SELECT COUNT(*) AS n FROM webhook_endpoints WHERE partner_id = ?', endpoint.partnerId) as Row).n) >= maxPerPartner) return false;
          run('INSERT INTO webhook_endpoints (id, partner_id, created_at, json) VALUES (?, ?, ?, ?)', endpoint.id, endpoint.partnerId, endpoint.createdAt, JSON.stringify(endpoint));
          return true;
        });
      },
      async list(partnerId) {
        return all('SELECT json FROM webhook_endpoints WHERE partner_id = ? ORDER BY created_at, id', partnerId).map((row) => json<WebhookEndpointRecord>(row));
      },
      async get(partnerId, endpointId) {
        const row = get('SELECT json FROM webhook_endpoints WHERE id = ? AND partner_id = ?', endpointId, partnerId);
        return row ? json<WebhookEndpointRecord>(row) : undefined;
      },
      async find(endpointId) {
        const row = get('SELECT json FROM webhook_endpoints WHERE id = ?', endpointId);
        return row ? json<WebhookEndpointRecord>(row) : undefined;
      },
      async update(endpoint) {
        return write(() => {
          const stored = get('SELECT json FROM webhook_endpoints WHERE id = ? AND partner_id = ?', endpoint.id, endpoint.partnerId);
          if (!stored) return undefined;
          const updated = { ...endpoint, createdAt: json<WebhookEndpointRecord>(stored).createdAt };
          run('UPDATE webhook_endpoints SET json = ? WHERE id = ?', JSON.stringify(updated), endpoint.id);
          return updated;
        });
      },
      async delete(partnerId, endpointId) {
        const deleted = await write(() => run('DELETE FROM webhook_endpoints WHERE id = ? AND partner_id = ?', endpointId, partnerId).changes === 1);
        if (deleted) await outbox.forgetEndpoint(endpointId);
        return deleted;
      },
    },

    journal: {
      async append(records) {
        if (records.length === 0) return;
        await write(() => {
          let added = 0;
          for (const record of records) {
            const text = JSON.stringify(record);
            const bytes = Buffer.byteLength(text);
            added += bytes;
            run('INSERT INTO journal (partner_id, operation_id, status, bytes, json) VALUES (?, ?, ?, ?, ?)', record.partnerId ?? null, record.operationId, record.status, bytes, text);
          }
          let total = Number((get("UPDATE meta SET value = value + ? WHERE name = 'journal_bytes' RETURNING value", added) as Row).value);
          while (total > options.journalMaxBytes) {
            const oldest = all('SELECT id, bytes FROM journal ORDER BY id LIMIT 256');
            if (oldest.length === 0) break;
            let lastId = 0;
            for (const row of oldest) {
              total -= Number(row.bytes);
              lastId = Number(row.id);
              if (total <= options.journalMaxBytes) break;
            }
            run('DELETE FROM journal WHERE id <= ?', lastId);
          }
          run("UPDATE meta SET value = ? WHERE name = 'journal_bytes'", Math.max(0, total));
        });
      },
      async page({ limit, before, operationId, status, partnerId }): Promise<JournalPage> {
        const examined = all('SELECT id, partner_id, operation_id, status, json FROM journal WHERE id < ? ORDER BY id DESC LIMIT ?', before ?? Number.MAX_SAFE_INTEGER, limit * 10 + 1);
        const entries: JournalPage['entries'] = [];
        let lastExamined: number | undefined;
        let index = 0;
        for (; index < examined.length && index < limit * 10 && entries.length < limit; index += 1) {
          const row = examined[index] as Row;
          lastExamined = Number(row.id);
          if (operationId !== undefined && row.operation_id !== operationId) continue;
          if (status !== undefined && Number(row.status) !== status) continue;
          if (partnerId !== undefined && row.partner_id !== partnerId) continue;
          entries.push({ ...json<RequestRecord>(row), id: Number(row.id) });
        }
        const more = index < examined.length;
        return { entries: entries.reverse(), ...(more && lastExamined !== undefined ? { next: lastExamined } : {}) };
      },
    },

    async secret(name, create) {
      return write(() => {
        const row = get('SELECT value FROM meta WHERE name = ?', `secret:${name}`);
        if (row) return row.value as string;
        const value = create();
        run('INSERT INTO meta (name, value) VALUES (?, ?)', `secret:${name}`, value);
        return value;
      });
    },

    async reset(partnerId) {
      for (const [key, entry] of inFlight) if (partnerId === undefined || entry.partnerId === partnerId) inFlight.delete(key);
      await write(() => {
        // With the deletes, in the same write: what was cached before them, even in this batch, is gone with them.
        forgetDerived();
        if (partnerId === undefined) {
          resetOutbox();
          for (const table of ['customers', 'companies', 'documents', 'idempotency', 'steps', 'webhook_endpoints', 'journal']) run(`DELETE FROM ${table}`);
          run("UPDATE meta SET value = 0 WHERE name = 'journal_bytes'");
          return;
        }
        for (const endpoint of all('SELECT id FROM webhook_endpoints WHERE partner_id = ?', partnerId)) {
          run('DELETE FROM endpoint_states WHERE id = ?', endpoint.id as string);
          run('DELETE FROM lanes WHERE endpoint_id = ?', endpoint.id as string);
        }
        resetOutbox(partnerId);
        for (const table of ['customers', 'companies', 'documents', 'idempotency', 'steps', 'webhook_endpoints', 'journal']) run(`DELETE FROM ${table} WHERE partner_id = ?`, partnerId);
        run("UPDATE meta SET value = (SELECT COALESCE(SUM(bytes), 0) FROM journal) WHERE name = 'journal_bytes'");
      });
    },

    async close() {
      await committing;
      if (db.isOpen) db.close();
    },
  };
  return store;
}

function migrate(db: DatabaseSync, path: string): void {
  // Inside the write lock: two mocks starting on a new file at once create the tables once.
  db.exec('BEGIN IMMEDIATE');
  try {
    const version = Number((db.prepare('PRAGMA user_version').get() as Row).user_version);
    if (version !== schemaVersion) {
      const tables = Number((db.prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table'").get() as Row).n);
      if (version !== 0 || tables > 0) {
        throw new StoreError(
          `${path} holds a store of schema version ${version}, and this mock reads version ${schemaVersion}: move the file away (or delete it) to start afresh, or pass another --store sqlite:PATH`,
        );
      }
      db.exec(schema);
      db.exec("INSERT INTO meta (name, value) VALUES ('due_seq', 0), ('journal_bytes', 0)");
      db.exec(`PRAGMA user_version = ${schemaVersion}`);
    }
    db.exec('COMMIT');
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}
