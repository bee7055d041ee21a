/**
 * Where the Redis backend keeps things: the Lua that names every key, prepended to each script. Naming keys in one
 * place, in Lua, means a script can reach any record it needs without the caller knowing the layout.
 *
 * Every key starts with `pfm:`, so the mock can share a database with other users. Under `pfm:d:` is the data that
 * `reset()` deletes; `pfm:counter` and `pfm:secret:*` outlive it, as SQLite's AUTOINCREMENT counters and secrets do.
 * Separators inside members and fields are NUL bytes, which no id, scope or ordering key contains.
 *
 *   pfm:counter                 hash    journal / attempt / event / delivery / delivered / due: global sequence numbers
 *   pfm:secret:NAME             string  a shared secret
 *   pfm:d:partners              set     partners that have keys under pfm:d:p:ID: (what a full reset walks)
 *   pfm:d:p:ID:meta             hash    seq (the partner's positions), idem (its idempotency insertion count)
 *   pfm:d:p:ID:cus              hash    customer id → JSON
 *   pfm:d:p:ID:cus:email        hash    lower-cased email → customer id (uniqueness)
 *   pfm:d:p:ID:cus:seq          zset    customer id, score = position
 *   pfm:d:p:ID:co               hash    company id → JSON
 *   pfm:d:p:ID:co:f             hash    company id → status NUL entityType (for list filters)
 *   pfm:d:p:ID:co:seq           zset    company id, score = position
 *   pfm:d:p:ID:co:cus           zset    lex: customerId NUL pos16 NUL companyId (a customer's companies)
 *   pfm:d:p:ID:doc, doc:file    hash    companyId NUL documentId → JSON, → bytes
 *   pfm:d:p:ID:doc:seq          zset    lex: companyId NUL pos16 NUL documentId
 *   pfm:d:p:ID:idem             zset    scope, score = insertion count (oldest first, for the cap)
 *   pfm:d:p:ID:idem:SCOPE       hash    fp exp owner lock [status headers body text]; PEXPIRE as garbage collection
 *   pfm:d:p:ID:ev               zset    the partner's event seqs, score = seq (its events, newest first)
 *   pfm:d:p:ID:ev:type          zset    lex: type NUL seq16 (its events of one type)
 *   pfm:d:p:ID:ev:id            zset    lex: eventId NUL seq16 (an event by id, for a redelivery)
 *   pfm:d:p:ID:out:pending      zset    the partner's pending delivery ids, score = delivery position
 *   pfm:d:p:ID:out:delivered    zset    its newest delivered delivery ids (deliveredCapacity), score = order delivered
 *   pfm:d:p:ID:att, jr          zset    the partner's attempt / journal ids (for filters and reset)
 *   pfm:d:p:ID:we               hash    webhook endpoint id → JSON
 *   pfm:d:p:ID:we:order         zset    webhook endpoint id, score = createdAt (ties by id: the list order)
 *   pfm:d:docs                  hash    companyId NUL documentId → partner (signed downloads)
 *   pfm:d:we                    hash    webhook endpoint id → partner (lookup by id alone, ids unique)
 *   pfm:d:step:partner|due|token|lease  hash  company id → …  (the next step of each formation)
 *   pfm:d:step:free             zset    steps nobody holds, score = due time
 *   pfm:d:step:held             zset    claimed steps, score = lease end
 *   pfm:d:ev:id|type|key|partner|body|at  hash  event seq → …  (at: when it was stored)
 *   pfm:d:ev:wait               hash    event seq → its deliveries still pending (absent at none)
 *   pfm:d:ev:done               zset    events with nothing pending, score = seq (the newest eventCapacity are kept)
 *   pfm:d:ev:sent               zset    lex: seq16 NUL pos16 NUL endpoint (an event's pending and delivered deliveries)
 *   pfm:d:out:pending           zset    lex: delivery id = endpoint NUL laneKey NUL pos16 NUL seq16 (each lane's queue)
 *   pfm:d:out:delivered         zset    the newest delivered delivery ids (deliveredCapacity), score = order delivered
 *   pfm:d:out:attempts|round    hash    delivery id → attempts / attempts this round
 *   pfm:d:out:lanes             zset    lex: endpoint NUL laneKey (an endpoint's lanes)
 *   pfm:d:lane:due|seq|token|lease|claimed  hash  lane → … (claimed: the delivery id the current claim took)
 *   pfm:d:out:due               zset    free lanes of enabled endpoints: member dueSeq16 NUL lane, score = due time
 *   pfm:d:out:held              zset    claimed lanes of enabled endpoints, score = lease end
 *   pfm:d:endpoints             hash    endpoint NUL at|reason|failed: a disabled endpoint (failed: `failures` only)
 *   pfm:d:att, att:json         zset, hash  delivery journal: id (score id) → JSON
 *   pfm:d:att:ev, att:ix        zset, hash  lex: eventId NUL endpoint NUL id16 (an event's attempts at one endpoint); id → that member
 *   pfm:d:jr, jr:json, jr:f     zset, hash  request journal: id → JSON, → status NUL =partner NUL =operation (`-` if none)
 *   pfm:d:jr:bytes              string  bytes held by the request journal
 *
 * A delivery's position (pos16) numbers every delivery ever queued: a lane's queue is in position order, so a
 * redelivery, a new position, goes after what waits, however old its event. Its seq16 names the event it sends.
 *
 * The scripts build key names from these rather than receiving them as KEYS, so the store needs a standalone
 * Redis (or one primary), not Redis Cluster.
 */
const keyPrefix = 'pfm:';

export const keysLua = `
local P = '${keyPrefix}'
local D = P .. 'd:'
local K = {
  counter = P .. 'counter',
  partners = D .. 'partners',
  docs = D .. 'docs',
  stepPartner = D .. 'step:partner', stepDue = D .. 'step:due', stepToken = D .. 'step:token', stepLease = D .. 'step:lease',
  stepFree = D .. 'step:free', stepHeld = D .. 'step:held',
  webhookEndpoints = D .. 'we',
  evId = D .. 'ev:id', evType = D .. 'ev:type', evKey = D .. 'ev:key', evPartner = D .. 'ev:partner', evBody = D .. 'ev:body', evAt = D .. 'ev:at',
  evWait = D .. 'ev:wait', evDone = D .. 'ev:done', evSent = D .. 'ev:sent',
  pending = D .. 'out:pending', delivered = D .. 'out:delivered', attempts = D .. 'out:attempts', round = D .. 'out:round',
  lanes = D .. 'out:lanes', due = D .. 'out:due', held = D .. 'out:held',
  laneDue = D .. 'lane:due', laneSeq = D .. 'lane:seq', laneToken = D .. 'lane:token', laneLease = D .. 'lane:lease', laneClaimed = D .. 'lane:claimed',
  endpoints = D .. 'endpoints',
  att = D .. 'att', attJson = D .. 'att:json', attEvent = D .. 'att:ev', attIndex = D .. 'att:ix',
  jr = D .. 'jr', jrJson = D .. 'jr:json', jrFilter = D .. 'jr:f', jrBytes = D .. 'jr:bytes',
}
-- Global data keys: what a full reset deletes besides each partner's own. The layout before redeliveries also had
-- ev:refs and p:ID:out, named here only so that a reset still clears a database that version wrote.
local globalKeys = { D .. 'ev:refs' }
for name, key in pairs(K) do if name ~= 'counter' then globalKeys[#globalKeys + 1] = key end end
local partnerKeyNames = {
  'meta', 'cus', 'cus:email', 'cus:seq', 'co', 'co:f', 'co:seq', 'co:cus', 'doc', 'doc:file', 'doc:seq', 'idem',
  'ev', 'ev:type', 'ev:id', 'out:pending', 'out:delivered', 'att', 'jr', 'we', 'we:order', 'out',
}
local function pk(partner, name) return D .. 'p:' .. partner .. ':' .. name end
local function idemKey(partner, scope) return pk(partner, 'idem:' .. scope) end
-- Whether an idempotency record is still in flight and held by this owner: only the holder completes, renews or abandons it.
local function heldBy(key, owner)
  local held = redis.call('HMGET', key, 'owner', 'status')
  return held[1] == owner and not held[2]
end
local function secretKey(name) return P .. 'secret:' .. name end
`;
