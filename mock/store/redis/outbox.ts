/**
 * The webhook outbox in Redis: delivery lanes (endpoint × ordering key) claimed one head at a time, settled with
 * the claim's token, and held while their endpoint is disabled; the events kept for the partner portal, with where
 * each went. The layout and the shared Lua are in lua-outbox.ts. The rules are the SQLite backend's, which the
 * conformance suite holds all backends to, except where store.ts leaves the backend a choice or the backends differ:
 * - `deliveries()` lists the most recently delivered (in the order delivered, as the memory backend does; SQLite
 *   orders by when the delivery was queued), per partner when one is given, and, with no partner, the undelivered
 *   ones first in lane order (an index Redis has anyway) rather than the oldest.
 * - `events()` keeps the newest `eventCapacity` events with nothing left to deliver, counted exactly (SQLite counts
 *   positions, the memory backend counts undelivered events too).
 */
import { newClaimToken } from '../claim-token.ts';
import type { AttemptRecord, DeliveryRecord, DeliveryState, EndpointDisablement, EndpointState, EventPage, LaneClaim, StoredEvent, StoreOptions, WebhookOutbox } from '../store.ts';
import { encodeEvents, outboxLua } from './lua-outbox.ts';
import { asArray, asText, type ScriptRunner, type ScriptSource } from './scripts.ts';

/** Attempts listed per event and endpoint by `events()`. */
const attemptsShown = 20;

const claimLua = `
local now, leaseMs, limit, tokenBase = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
for _, lane in ipairs(redis.call('ZRANGEBYSCORE', K.held, '-inf', now)) do indexFreeLane(lane) end

local claims, claimed, skipped = {}, 0, 0
local function claimLane(member, lane, endpoint, laneKey)
  local head = laneHead(lane)
  if not head then dropLane(lane) return end
  claimed = claimed + 1
  local token = tokenBase .. '.' .. int(claimed)
  redis.call('HSET', K.laneToken, lane, token)
  redis.call('HSET', K.laneLease, lane, now + leaseMs)
  redis.call('HSET', K.laneClaimed, lane, head)
  redis.call('ZREM', K.due, member)
  redis.call('ZADD', K.held, now + leaseMs, lane)
  local seq = seqOfDelivery(head)
  for _, value in ipairs({ endpoint, laneKey, token, redis.call('HGET', K.evPartner, seq), redis.call('HGET', K.evId, seq), redis.call('HGET', K.evType, seq), redis.call('HGET', K.evBody, seq) }) do
    claims[#claims + 1] = value
  end
  claims[#claims + 1] = num(redis.call('HGET', K.attempts, head))
  claims[#claims + 1] = num(redis.call('HGET', K.round, head))
end

-- In the order lanes became due. A claimed (or emptied) lane leaves the index; a skipped one stays, so the next
-- slice starts after the skipped ones.
while claimed < limit do
  local slice = redis.call('ZRANGEBYSCORE', K.due, '-inf', now, 'LIMIT', skipped, 100)
  if #slice == 0 then break end
  for _, member in ipairs(slice) do
    if claimed >= limit then break end
    local lane = string.sub(member, 18)
    local endpoint = endpointOf(lane)
    local laneKey = string.sub(lane, #endpoint + 2)
    if laneKey ~= ENDPOINT_LANE and redis.call('HEXISTS', K.laneDue, laneOf(endpoint, ENDPOINT_LANE)) == 1 then
      skipped = skipped + 1
    else
      claimLane(member, lane, endpoint, laneKey)
    end
  end
end
return claims
`;

const settleLua = `
local endpoint, laneKey, token, eventId, now = ARGV[1], ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5])
local kind, retryAt, attemptJson, attemptEvent, attemptEndpoint = ARGV[6], tonumber(ARGV[7]), ARGV[8], ARGV[9], ARGV[10]
local attemptCapacity, deliveredCapacity, eventCapacity = tonumber(ARGV[11]), tonumber(ARGV[12]), tonumber(ARGV[13])
local lane = laneOf(endpoint, laneKey)
if redis.call('HGET', K.laneToken, lane) ~= token or num(redis.call('HGET', K.laneLease, lane)) <= now then return 0 end
-- The delivery this claim took: a newer notice may since have overtaken it as the endpoint lane's head, and after a
-- redelivery the lane may hold its event twice.
local head = redis.call('HGET', K.laneClaimed, lane)
if not head or not redis.call('ZSCORE', K.pending, head) then return 0 end
local seq = seqOfDelivery(head)
if redis.call('HGET', K.evId, seq) ~= eventId then return 0 end
local partner = redis.call('HGET', K.evPartner, seq)

redis.call('HINCRBY', K.attempts, head, 1)
redis.call('HINCRBY', K.round, head, 1)
pushAttempt(attemptJson, partner, attemptCapacity, attemptEvent, attemptEndpoint)

if kind == 'delivered' then
  redis.call('ZREM', K.pending, head)
  redis.call('ZREM', pk(partner, 'out:pending'), head)
  redis.call('HDEL', K.round, head)
  -- Listed while among the newest delivered, overall and of its partner; its event keeps it for events() meanwhile.
  local order = redis.call('HINCRBY', K.counter, 'delivered', 1)
  for _, list in ipairs({ K.delivered, pk(partner, 'out:delivered') }) do
    redis.call('ZADD', list, order, head)
    redis.call('ZREMRANGEBYRANK', list, 0, -deliveredCapacity - 1)
  end
  deliveryEnded(seq)
  if laneHead(lane) then makeLaneDue(lane, now) else dropLane(lane) end
  pruneEvents(eventCapacity)
elseif kind == 'retry' then
  makeLaneDue(lane, retryAt)
else
  redis.call('HSET', K.endpoints, endpoint .. '\\0at', now, endpoint .. '\\0reason', 'failures', endpoint .. '\\0failed', eventId)
  -- Every lane of the endpoint leaves the indexes until it is re-enabled; held ones keep their lease.
  for _, other in ipairs(endpointLanes(endpoint)) do unindexLane(other) end
  makeLaneDue(lane, now)
end
return 1
`;

const disableLua = `
local endpoint, now = ARGV[1], ARGV[2]
-- Disabled already (after failures, say): that disablement, and the notice it makes, stand.
if isDisabled(endpoint) then return 0 end
redis.call('HSET', K.endpoints, endpoint .. '\\0at', now, endpoint .. '\\0reason', 'requested')
redis.call('HDEL', K.endpoints, endpoint .. '\\0failed')
-- As after failures: its lanes leave the indexes; one in flight is settled by its holder, into no index.
for _, lane in ipairs(endpointLanes(endpoint)) do unindexLane(lane) end
return 1
`;

const reenableLua = `
local endpoint, now, expectedAt, expectedReason, expectedFailed = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4], ARGV[5]
local state = redis.call('HMGET', K.endpoints, endpoint .. '\\0at', endpoint .. '\\0reason', endpoint .. '\\0failed')
if not state[1] then return 0 end
-- The notice was built from what the caller read; if that changed meanwhile, it reads again.
if state[1] ~= expectedAt or (state[2] or 'failures') ~= expectedReason or (state[3] or '') ~= expectedFailed then return -1 end
redis.call('HDEL', K.endpoints, endpoint .. '\\0at', endpoint .. '\\0reason', endpoint .. '\\0failed')
inSlices('HDEL', K.round, redis.call('ZRANGEBYLEX', K.pending, '[' .. endpoint .. '\\0', '(' .. endpoint .. '\\1'))

-- Free lanes become due now, keeping the order they were due in; a lane someone holds keeps its lease.
local lanes = {}
for _, lane in ipairs(endpointLanes(endpoint)) do
  lanes[#lanes + 1] = { lane = lane, due = num(redis.call('HGET', K.laneDue, lane)), dueSeq = num(redis.call('HGET', K.laneSeq, lane)), lease = num(redis.call('HGET', K.laneLease, lane)) }
end
table.sort(lanes, function(a, b) if a.due ~= b.due then return a.due < b.due end return a.dueSeq < b.dueSeq end)
for _, entry in ipairs(lanes) do
  if entry.lease <= now then makeLaneDue(entry.lane, now) else redis.call('ZADD', K.held, entry.lease, entry.lane) end
end
storeEvents(6, now)
return 1
`;

const redeliverLua = `
local partner, eventId, endpoint, now = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
-- The partner's oldest event of that id, as SQLite and the memory backend find it.
local prefix = eventId .. '\\0'
local found = redis.call('ZRANGEBYLEX', pk(partner, 'ev:id'), '[' .. prefix, '(' .. eventId .. '\\1', 'LIMIT', 0, 1)[1]
if not found then return 0 end
local seq = tonumber(string.sub(found, #prefix + 1))
-- Something waits again: kept whatever the capacity until it is sent.
redis.call('ZREM', K.evDone, seq)
enqueue(seq, partner, endpoint, redis.call('HGET', K.evKey, seq), now)
return 1
`;

// In flight: the delivery a lane's current claim took, while its lease runs.
const deliveryStateLua = `
local disabledCache = {}
local function waitingState(delivery, now)
  local endpoint = endpointOf(delivery)
  if disabledCache[endpoint] == nil then disabledCache[endpoint] = isDisabled(endpoint) end
  if disabledCache[endpoint] then return 'held' end
  local lane = laneOfDelivery(delivery)
  if num(redis.call('HGET', K.laneLease, lane)) > now and redis.call('HGET', K.laneClaimed, lane) == delivery then return 'in-flight' end
  return 'pending'
end
`;

const deliveriesLua = `
local now, capacity, limit, byPartner, partner = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4] == '1', ARGV[5]
local rows = {}
local function add(delivery, state)
  local seq = seqOfDelivery(delivery)
  for _, value in ipairs({ seq, posOfDelivery(delivery), redis.call('HGET', K.evId, seq), redis.call('HGET', K.evType, seq), redis.call('HGET', K.evKey, seq), endpointOf(delivery), state }) do
    rows[#rows + 1] = value
  end
  rows[#rows + 1] = num(redis.call('HGET', K.attempts, delivery))
end
if capacity > 0 then
  for _, delivery in ipairs(redis.call('ZREVRANGE', byPartner and pk(partner, 'out:delivered') or K.delivered, 0, capacity - 1)) do add(delivery, 'delivered') end
end
if limit > 0 then
  local waiting
  if byPartner then waiting = redis.call('ZRANGE', pk(partner, 'out:pending'), 0, limit - 1) else waiting = redis.call('ZRANGE', K.pending, 0, limit - 1) end
  for _, delivery in ipairs(waiting) do add(delivery, waitingState(delivery, now)) end
end
return rows
`;

const eventsLua = `
local partner, before, limit, byType, eventType, now = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4] == '1', ARGV[5], tonumber(ARGV[6])
-- One more than the page: whether it exists says if another page follows.
local seqs = {}
if byType then
  local prefix = eventType .. '\\0'
  for _, member in ipairs(redis.call('ZREVRANGEBYLEX', pk(partner, 'ev:type'), '(' .. prefix .. pad(tonumber(before)), '[' .. prefix, 'LIMIT', 0, limit + 1)) do
    seqs[#seqs + 1] = tonumber(string.sub(member, #prefix + 1))
  end
else
  seqs = redis.call('ZREVRANGEBYSCORE', pk(partner, 'ev'), '(' .. before, '-inf', 'LIMIT', 0, limit + 1)
end
local reply = { #seqs > limit and 1 or 0 }
local function push(value) reply[#reply + 1] = value end
for i = 1, math.min(#seqs, limit) do
  local seq = tonumber(seqs[i])
  local id, laneKey = redis.call('HGET', K.evId, seq), redis.call('HGET', K.evKey, seq)
  for _, value in ipairs({ seq, id, redis.call('HGET', K.evType, seq), laneKey, redis.call('HGET', K.evAt, seq), redis.call('HGET', K.evBody, seq) }) do push(value) end
  -- Per endpoint, in the order first sent, its latest delivery says where the event stands there.
  local order, latest = {}, {}
  local low, high = sentRange(seq)
  for _, member in ipairs(redis.call('ZRANGEBYLEX', K.evSent, low, high)) do
    local parts = split(member)
    if not latest[parts[3]] then order[#order + 1] = parts[3] end
    latest[parts[3]] = laneOf(parts[3], laneKey) .. '\\0' .. parts[2] .. '\\0' .. parts[1]
  end
  push(#order)
  for _, endpoint in ipairs(order) do
    local delivery = latest[endpoint]
    push(endpoint)
    push(redis.call('ZSCORE', K.pending, delivery) and waitingState(delivery, now) or 'delivered')
    local prefix = id .. '\\0' .. endpoint .. '\\0'
    local members = redis.call('ZREVRANGEBYLEX', K.attEvent, '(' .. id .. '\\0' .. endpoint .. '\\1', '[' .. prefix, 'LIMIT', 0, ${attemptsShown})
    local lines = {}
    for j = #members, 1, -1 do
      local line = redis.call('HGET', K.attJson, tonumber(string.sub(members[j], -16)))
      if line then lines[#lines + 1] = line end
    end
    push(#lines)
    for _, line in ipairs(lines) do push(line) end
  end
end
return reply
`;

export const outboxScripts: Record<string, ScriptSource> = {
  outboxAppend: { needs: [outboxLua], lua: `storeEvents(2, tonumber(ARGV[1])) return 1` },
  outboxClaim: { needs: [outboxLua], lua: claimLua },
  outboxSettle: { needs: [outboxLua], lua: settleLua },
  outboxRelease: {
    needs: [outboxLua],
    lua: `
local lane = laneOf(ARGV[1], ARGV[2])
if redis.call('HGET', K.laneToken, lane) == ARGV[3] then makeLaneDue(lane, tonumber(ARGV[4])) end
return 1
`,
  },
  outboxDisable: { needs: [outboxLua], lua: disableLua },
  outboxReenable: { needs: [outboxLua], lua: reenableLua },
  outboxEndpoint: { lua: `return redis.call('HMGET', K.endpoints, ARGV[1] .. '\\0at', ARGV[1] .. '\\0reason', ARGV[1] .. '\\0failed')` },
  outboxForgetEndpoint: { needs: [outboxLua], lua: `forgetEndpoint(ARGV[1]) pruneEvents(tonumber(ARGV[2])) return 1` },
  outboxDeliveries: { needs: [outboxLua, deliveryStateLua], lua: deliveriesLua },
  outboxAttempts: {
    lua: `
local limit, byPartner, partner = tonumber(ARGV[1]), ARGV[2] == '1', ARGV[3]
if limit <= 0 then return {} end
local ids = redis.call('ZREVRANGE', byPartner and pk(partner, 'att') or K.att, 0, limit - 1)
local lines = {}
-- A partner's list may still name lines the journal dropped: they are its oldest, so skipping them loses nothing newer.
for i = #ids, 1, -1 do
  local line = redis.call('HGET', K.attJson, ids[i])
  if line then lines[#lines + 1] = line end
end
return lines
`,
  },
  outboxEvents: { needs: [outboxLua, deliveryStateLua], lua: eventsLua },
  outboxRedeliver: { needs: [outboxLua], lua: redeliverLua },
  outboxNextDueAt: {
    lua: `
local free = redis.call('ZRANGE', K.due, 0, 0, 'WITHSCORES')
local held = redis.call('ZRANGE', K.held, 0, 0, 'WITHSCORES')
local earliest = free[2] and tonumber(free[2])
if held[2] and (not earliest or tonumber(held[2]) < earliest) then earliest = tonumber(held[2]) end
return earliest or false
`,
  },
};

/** How often re-enabling reads the endpoint again when it changed between the read and the write. */
const reenableRounds = 5;

/** A disablement as stored: the strings the re-enable script compares, to know that nothing changed since the read. */
interface StoredDisablement {
  at: string;
  reason: string;
  failed: string;
}

const disablementOf = ({ at, reason, failed }: StoredDisablement): EndpointDisablement => ({
  at: Number(at),
  reason: reason === 'requested' ? 'requested' : 'failures',
  failedEventId: failed === '' ? null : failed,
});

export function redisOutbox(scripts: ScriptRunner, options: StoreOptions): WebhookOutbox {
  const readEndpoint = async (endpointId: string): Promise<StoredDisablement | undefined> => {
    const [at, reason, failed] = asArray(await scripts.run('outboxEndpoint', [endpointId]));
    if (at === null || at === undefined) return undefined;
    // Written before disablements had a reason: only failures disabled then.
    return { at: asText(at), reason: reason === null || reason === undefined ? 'failures' : asText(reason), failed: failed === null || failed === undefined ? '' : asText(failed) };
  };
  const partnerArgs = (partnerId: string | undefined) => (partnerId === undefined ? ['0', ''] : ['1', partnerId]);

  return {
    async append(events, now) {
      await scripts.run('outboxAppend', [now, ...encodeEvents(events, now, options)]);
    },
    async claim(now, leaseMs, limit) {
      return readClaims(await scripts.run('outboxClaim', [now, leaseMs, limit, newClaimToken()]));
    },
    async settle(claim, outcome, attempt, now) {
      const retryAt = outcome.kind === 'retry' ? outcome.at : 0;
      const args = [
        claim.endpointId,
        claim.laneKey,
        claim.token,
        claim.eventId,
        now,
        outcome.kind,
        retryAt,
        JSON.stringify(attempt),
        attempt.eventId,
        attempt.endpointId ?? '',
        options.attemptJournalCapacity,
        options.deliveredCapacity,
        options.eventCapacity,
      ];
      return Number(await scripts.run('outboxSettle', args)) === 1;
    },
    async release(claim, now) {
      await scripts.run('outboxRelease', [claim.endpointId, claim.laneKey, claim.token, now]);
    },
    async disable(endpointId, now) {
      await scripts.run('outboxDisable', [endpointId, now]);
    },
    async reenable(endpointId, notice, now) {
      // The notice depends on the stored state, so it is built from a read and written only if that state holds.
      for (let round = 0; round < reenableRounds; round += 1) {
        const disabled = await readEndpoint(endpointId);
        if (!disabled) return false;
        const event = notice(disablementOf(disabled));
        const args = [endpointId, now, disabled.at, disabled.reason, disabled.failed, ...encodeEvents(event ? [event] : [], now, options)];
        const outcome = Number(await scripts.run('outboxReenable', args));
        if (outcome !== -1) return outcome === 1;
      }
      return false;
    },
    async endpoint(endpointId): Promise<EndpointState> {
      const disabled = await readEndpoint(endpointId);
      return disabled ? { disabled: disablementOf(disabled) } : {};
    },
    async forgetEndpoint(endpointId) {
      await scripts.run('outboxForgetEndpoint', [endpointId, options.eventCapacity]);
    },
    async deliveries(now, limit, partnerId) {
      return readDeliveries(await scripts.run('outboxDeliveries', [now, options.deliveredCapacity, limit, ...partnerArgs(partnerId)]));
    },
    async attempts(limit, partnerId) {
      return asArray(await scripts.run('outboxAttempts', [limit, ...partnerArgs(partnerId)])).map((line) => JSON.parse(asText(line)) as AttemptRecord);
    },
    async events(partnerId, { limit, before, type }, now) {
      const byType = type === undefined ? ['0', ''] : ['1', type];
      return readEvents(await scripts.run('outboxEvents', [partnerId, before ?? Number.MAX_SAFE_INTEGER, limit, ...byType, now]));
    },
    async redeliver(partnerId, eventId, endpointId, now) {
      return Number(await scripts.run('outboxRedeliver', [partnerId, eventId, endpointId, now])) === 1;
    },
    async nextDueAt() {
      const at = await scripts.run('outboxNextDueAt', []);
      return at === null ? undefined : Number(at);
    },
  };
}

function readClaims(reply: unknown): LaneClaim[] {
  const flat = asArray(reply);
  const claims: LaneClaim[] = [];
  for (let i = 0; i + 8 < flat.length; i += 9) {
    const [endpointId, laneKey, token, partnerId, eventId, type, body] = flat.slice(i, i + 7).map(asText) as [string, string, string, string, string, string, string];
    claims.push({ endpointId, laneKey, token, partnerId, eventId, type, body, attempts: Number(flat[i + 7]), roundAttempts: Number(flat[i + 8]) });
  }
  return claims;
}

function readDeliveries(reply: unknown): DeliveryRecord[] {
  const flat = asArray(reply);
  const rows: (DeliveryRecord & { seq: number; position: number })[] = [];
  for (let i = 0; i + 7 < flat.length; i += 8) {
    const [eventId, type, orderingKey, endpointId, state] = flat.slice(i + 2, i + 7).map(asText) as [string, string, string, string, DeliveryState];
    rows.push({ seq: Number(flat[i]), position: Number(flat[i + 1]), eventId, type, orderingKey, endpointId, state, attempts: Number(flat[i + 7]) });
  }
  // In the order stored: by event, and one event's deliveries in the order they were queued, as in SQLite.
  return rows.sort((a, b) => a.seq - b.seq || a.position - b.position).map(({ seq: _seq, position: _position, ...delivery }) => delivery);
}

/** [more, then per event: seq id type key at body n, then per delivery: endpoint state n, then n attempt lines]. */
function readEvents(reply: unknown): EventPage {
  const flat = asArray(reply);
  let at = 1;
  const next = () => flat[at++];
  const items: StoredEvent[] = [];
  while (at < flat.length) {
    const seq = Number(next());
    const [id, type, orderingKey] = [next(), next(), next()].map(asText) as [string, string, string];
    const createdAt = Number(next());
    const body = asText(next());
    const deliveries: StoredEvent['deliveries'] = [];
    for (let d = Number(next()); d > 0; d -= 1) {
      const endpointId = asText(next());
      const state = asText(next()) as DeliveryState;
      const attempts: AttemptRecord[] = [];
      for (let a = Number(next()); a > 0; a -= 1) attempts.push(JSON.parse(asText(next())) as AttemptRecord);
      deliveries.push({ endpointId, state, attempts });
    }
    items.push({ seq, id, type, orderingKey, createdAt, body, deliveries });
  }
  const last = items.at(-1);
  return Number(flat[0]) === 1 && last ? { items, next: last.seq } : { items };
}
