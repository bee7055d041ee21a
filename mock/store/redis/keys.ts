/**
 * Where the Redis backend keeps things: the Lua that names every key, prepended to each script. Naming keys in one
 * place, in Lua, means a script can reach any record it needs without the caller knowing the layout.
 *
 * Every key starts with `pfm:`, so the mock can share a database with other users. Under `pfm:d:` is the data that
 * `reset()` deletes; `pfm:counter` and `pfm:secret:*` outlive it, as SQLite's AUTOINCREMENT counters and secrets do.
 * Separators inside members and fields are NUL bytes, which no id, scope or ordering key contains.
 *
 *   pfm:counter                 hash    journal / attempt / event / due: global sequence numbers
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
 *   pfm:d:p:ID:out              set     the partner's delivery ids (for reset)
 *   pfm:d:p:ID:att, jr          zset    the partner's attempt / journal ids (for reset)
 *   pfm:d:docs                  hash    companyId NUL documentId → partner (signed downloads)
 *   pfm:d:step:partner|due|token|lease  hash  company id → …  (the next step of each formation)
 *   pfm:d:step:free             zset    steps nobody holds, score = due time
 *   pfm:d:step:held             zset    claimed steps, score = lease end
 *   pfm:d:ev:id|type|key|partner|body|refs  hash  event seq → …  (refs: deliveries still pointing at it)
 *   pfm:d:out:pending           zset    lex: endpoint NUL laneKey NUL seq16 (each lane's queue, in order)
 *   pfm:d:out:delivered         zset    delivery id, score = event seq
 *   pfm:d:out:attempts|round    hash    delivery id → attempts / attempts this round
 *   pfm:d:out:lanes             zset    lex: endpoint NUL laneKey (an endpoint's lanes)
 *   pfm:d:lane:due|seq|token|lease|claimed  hash  lane → … (claimed: the delivery id the current claim took)
 *   pfm:d:out:due               zset    free lanes of enabled endpoints: member dueSeq16 NUL lane, score = due time
 *   pfm:d:out:held              zset    claimed lanes of enabled endpoints, score = lease end
 *   pfm:d:endpoints             hash    endpoint NUL at, endpoint NUL failed: a disabled endpoint
 *   pfm:d:att, att:json         zset, hash  delivery journal: id (score id) → JSON
 *   pfm:d:jr, jr:json, jr:f     zset, hash  request journal: id → JSON, → status NUL =partner NUL =operation (`-` if none)
 *   pfm:d:jr:bytes              string  bytes held by the request journal
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
  evId = D .. 'ev:id', evType = D .. 'ev:type', evKey = D .. 'ev:key', evPartner = D .. 'ev:partner', evBody = D .. 'ev:body', evRefs = D .. 'ev:refs',
  pending = D .. 'out:pending', delivered = D .. 'out:delivered', attempts = D .. 'out:attempts', round = D .. 'out:round',
  lanes = D .. 'out:lanes', due = D .. 'out:due', held = D .. 'out:held',
  laneDue = D .. 'lane:due', laneSeq = D .. 'lane:seq', laneToken = D .. 'lane:token', laneLease = D .. 'lane:lease', laneClaimed = D .. 'lane:claimed',
  endpoints = D .. 'endpoints',
  att = D .. 'att', attJson = D .. 'att:json',
  jr = D .. 'jr', jrJson = D .. 'jr:json', jrFilter = D .. 'jr:f', jrBytes = D .. 'jr:bytes',
}
-- Global data keys: what a full reset deletes besides each partner's own.
local globalKeys = {}
for name, key in pairs(K) do if name ~= 'counter' then globalKeys[#globalKeys + 1] = key end end
local partnerKeyNames = { 'meta', 'cus', 'cus:email', 'cus:seq', 'co', 'co:f', 'co:seq', 'co:cus', 'doc', 'doc:file', 'doc:seq', 'idem', 'out', 'att', 'jr' }
local function pk(partner, name) return D .. 'p:' .. partner .. ':' .. name end
local function idemKey(partner, scope) return pk(partner, 'idem:' .. scope) end
-- Whether an idempotency record is still in flight and held by this owner: only the holder completes, renews or abandons it.
local function heldBy(key, owner)
  local held = redis.call('HMGET', key, 'owner', 'status')
  return held[1] == owner and not held[2]
end
local function secretKey(name) return P .. 'secret:' .. name end
`;
