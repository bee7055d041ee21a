/**
 * The SQLite backend's tables. A file records the version of the schema it was made with (`user_version`), so
 * that a mock of another version refuses it with a clear message instead of misreading it.
 */
export const schemaVersion = 2;

export const schema = `
CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;

-- seq numbers a partner's own records (customers, companies, documents together), for paging. Its counters live in
-- the process that owns the file, read back from these tables at first use: no counter row is written per request.

CREATE TABLE customers (
  partner_id TEXT NOT NULL, id TEXT NOT NULL, seq INTEGER NOT NULL, email_lower TEXT NOT NULL, json TEXT NOT NULL,
  PRIMARY KEY (partner_id, id)
) WITHOUT ROWID;
CREATE UNIQUE INDEX customers_by_email ON customers (partner_id, email_lower);
CREATE INDEX customers_by_seq ON customers (partner_id, seq);

CREATE TABLE companies (
  partner_id TEXT NOT NULL, id TEXT NOT NULL, seq INTEGER NOT NULL, customer_id TEXT NOT NULL,
  status TEXT NOT NULL, entity_type TEXT NOT NULL, json TEXT NOT NULL,
  PRIMARY KEY (partner_id, id)
) WITHOUT ROWID;
CREATE INDEX companies_by_seq ON companies (partner_id, seq);
CREATE INDEX companies_by_customer ON companies (partner_id, customer_id, seq);

CREATE TABLE documents (
  partner_id TEXT NOT NULL, company_id TEXT NOT NULL, id TEXT NOT NULL, seq INTEGER NOT NULL, json TEXT NOT NULL, file BLOB NOT NULL,
  PRIMARY KEY (company_id, id)
) WITHOUT ROWID;
CREATE INDEX documents_by_seq ON documents (partner_id, company_id, seq);
CREATE INDEX documents_by_partner ON documents (partner_id, seq);

-- A record is in flight while response_status is NULL: owner holds it until locked_until.
-- Completed creates, to replay (a create in flight is held in the process: see sqlite-store.ts). created_seq orders
-- a partner's records, oldest first: the order they expire in (the retention is fixed) and are dropped past the cap.
CREATE TABLE idempotency (
  partner_id TEXT NOT NULL, scope TEXT NOT NULL, created_seq INTEGER NOT NULL, expires_at INTEGER NOT NULL,
  fingerprint TEXT NOT NULL, response_status INTEGER NOT NULL, response_headers TEXT NOT NULL, response_body BLOB NOT NULL,
  PRIMARY KEY (partner_id, scope)
) WITHOUT ROWID;
CREATE INDEX idempotency_by_age ON idempotency (partner_id, created_seq);

-- The next step of each formation still going; lease_until > 0 while a process holds it (token).
CREATE TABLE steps (
  company_id TEXT PRIMARY KEY, partner_id TEXT NOT NULL, due_at INTEGER NOT NULL, token TEXT, lease_until INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE INDEX steps_by_due ON steps (due_at);
CREATE INDEX steps_by_lease ON steps (lease_until, due_at);

CREATE TABLE events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, partner_id TEXT NOT NULL, type TEXT NOT NULL,
  ordering_key TEXT NOT NULL, body TEXT NOT NULL, created_at INTEGER NOT NULL
);
CREATE INDEX events_by_partner ON events (partner_id, seq);

-- One row per event and endpoint it is sent to, and one more per redelivery; pending ones wait in their lane
-- (endpoint × ordering key) in position order.
CREATE TABLE deliveries (
  position INTEGER PRIMARY KEY AUTOINCREMENT, endpoint_id TEXT NOT NULL, lane_key TEXT NOT NULL, event_seq INTEGER NOT NULL,
  partner_id TEXT NOT NULL, state TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, round_attempts INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX deliveries_by_lane ON deliveries (endpoint_id, lane_key, state, position);
CREATE INDEX deliveries_by_event ON deliveries (event_seq, position);
CREATE INDEX deliveries_by_state ON deliveries (state, position);
CREATE INDEX deliveries_by_partner ON deliveries (partner_id);

-- A lane exists while it holds pending deliveries; due_seq orders lanes due in the same millisecond; claimed is the
-- position of the delivery a claim took.
CREATE TABLE lanes (
  endpoint_id TEXT NOT NULL, lane_key TEXT NOT NULL, priority INTEGER NOT NULL, due_at INTEGER NOT NULL, due_seq INTEGER NOT NULL,
  token TEXT, lease_until INTEGER NOT NULL DEFAULT 0, claimed INTEGER,
  PRIMARY KEY (endpoint_id, lane_key)
) WITHOUT ROWID;
CREATE INDEX lanes_by_due ON lanes (due_at, due_seq);

-- A row while an endpoint is disabled, after failures or on request.
CREATE TABLE endpoint_states (id TEXT PRIMARY KEY, disabled_at INTEGER NOT NULL, reason TEXT NOT NULL, failed_event_id TEXT) WITHOUT ROWID;

CREATE TABLE attempts (id INTEGER PRIMARY KEY AUTOINCREMENT, partner_id TEXT NOT NULL, event_id TEXT NOT NULL, endpoint_id TEXT, json TEXT NOT NULL);
CREATE INDEX attempts_by_event ON attempts (event_id, endpoint_id, id);
CREATE INDEX attempts_by_partner ON attempts (partner_id, id);

-- The partner portal's webhook endpoints.
CREATE TABLE webhook_endpoints (id TEXT PRIMARY KEY, partner_id TEXT NOT NULL, created_at INTEGER NOT NULL, json TEXT NOT NULL) WITHOUT ROWID;
CREATE INDEX webhook_endpoints_by_partner ON webhook_endpoints (partner_id, created_at);

-- No index beside the id: an entry is written at every request, and read a page at a time, newest first.
CREATE TABLE journal (
  id INTEGER PRIMARY KEY AUTOINCREMENT, partner_id TEXT, operation_id TEXT, status INTEGER NOT NULL, bytes INTEGER NOT NULL, json TEXT NOT NULL
);
`;
