/**
 * The Lua shared by every script that writes the webhook outbox: storing events with their deliveries (a formation
 * step, an append, a re-enable, a redelivery), moving lanes between the due and held indexes, dropping what waits for
 * an endpoint, keeping events within their capacity, and the delivery journal.
 *
 * A lane (endpoint NUL ordering key) is in exactly one of three places: `out:due` (free, on an enabled endpoint,
 * scored by due time), `out:held` (claimed, on an enabled endpoint, scored by lease end), or in neither while its
 * endpoint is disabled. Claims and `nextDueAt` then only ever look at lanes that can be sent.
 *
 * A delivery id (lane NUL pos16 NUL seq16) carries its position, which orders its lane, and its event. The same event
 * may wait twice in one lane after a redelivery, so it is the position, never the event, that names a delivery.
 */
import type { ScriptArg } from './scripts.ts';
import type { AttemptRecord, OutboxEvent, StoreOptions } from '../store.ts';

export const endpointLaneKey = 'webhook_endpoint';

/** Events dropped past the capacity by one write at most: a lowered capacity never makes one write slow. */
const pruneBatch = 64;

export const outboxLua = `
local ENDPOINT_LANE = '${endpointLaneKey}'

local function laneOf(endpoint, laneKey) return endpoint .. '\\0' .. laneKey end
local function endpointOf(lane) return string.sub(lane, 1, string.find(lane, '\\0', 1, true) - 1) end
local function deliveryOf(lane, pos, seq) return lane .. '\\0' .. pad(pos) .. '\\0' .. pad(seq) end
local function laneOfDelivery(delivery) return string.sub(delivery, 1, -35) end
local function posOfDelivery(delivery) return tonumber(string.sub(delivery, -33, -18)) end
local function seqOfDelivery(delivery) return tonumber(string.sub(delivery, -16)) end
-- Its member of ev:sent, which lists an event's deliveries in the order they were queued.
local function sentMember(delivery) return string.sub(delivery, -16) .. '\\0' .. string.sub(delivery, -33, -18) .. '\\0' .. endpointOf(delivery) end
local function sentRange(seq) local at = pad(seq) return '[' .. at .. '\\0', '(' .. at .. '\\1' end
local function dueMember(dueSeq, lane) return pad(dueSeq) .. '\\0' .. lane end
local function isDisabled(endpoint) return redis.call('HEXISTS', K.endpoints, endpoint .. '\\0at') == 1 end

-- A lane's queue is in position order; the endpoint's own lane is newest first, so that the notice of the latest
-- disablement goes before older ones.
local function laneHead(lane)
  local low, high = '[' .. lane .. '\\0', '(' .. lane .. '\\1'
  if string.sub(lane, -#ENDPOINT_LANE - 1) == '\\0' .. ENDPOINT_LANE then
    return redis.call('ZREVRANGEBYLEX', K.pending, high, low, 'LIMIT', 0, 1)[1]
  end
  return redis.call('ZRANGEBYLEX', K.pending, low, high, 'LIMIT', 0, 1)[1]
end

local function endpointLanes(endpoint)
  return redis.call('ZRANGEBYLEX', K.lanes, '[' .. endpoint .. '\\0', '(' .. endpoint .. '\\1')
end

local function unindexLane(lane)
  local dueSeq = redis.call('HGET', K.laneSeq, lane)
  if dueSeq then redis.call('ZREM', K.due, dueMember(tonumber(dueSeq), lane)) end
  redis.call('ZREM', K.held, lane)
end

-- Free and due at 'at'; a fresh due sequence puts it behind lanes that became due the same millisecond.
local function makeLaneDue(lane, at)
  unindexLane(lane)
  local dueSeq = redis.call('HINCRBY', K.counter, 'due', 1)
  redis.call('HSET', K.laneDue, lane, at)
  redis.call('HSET', K.laneSeq, lane, dueSeq)
  redis.call('HDEL', K.laneToken, lane)
  redis.call('HDEL', K.laneLease, lane)
  redis.call('HDEL', K.laneClaimed, lane)
  if not isDisabled(endpointOf(lane)) then redis.call('ZADD', K.due, at, dueMember(dueSeq, lane)) end
end

local function dropLane(lane)
  unindexLane(lane)
  for _, hash in ipairs({ K.laneDue, K.laneSeq, K.laneToken, K.laneLease, K.laneClaimed }) do redis.call('HDEL', hash, lane) end
  redis.call('ZREM', K.lanes, lane)
end

-- Back on the due index at its own due time: the lease of a free or lapsed lane says nothing of when it is due.
local function indexFreeLane(lane)
  redis.call('ZREM', K.held, lane)
  redis.call('ZADD', K.due, num(redis.call('HGET', K.laneDue, lane)), dueMember(num(redis.call('HGET', K.laneSeq, lane)), lane))
end

-- The delivery journal keeps ids above (newest - capacity), as SQLite's does. A partner's own list is trimmed when
-- it adds a line; the stale ids others' lists keep are the oldest, bounded by the capacity, and skipped on reads.
local function forgetAttempt(id)
  redis.call('ZREM', K.att, id)
  redis.call('HDEL', K.attJson, id)
  local member = redis.call('HGET', K.attIndex, id)
  if member then
    redis.call('ZREM', K.attEvent, member)
    redis.call('HDEL', K.attIndex, id)
  end
end

-- Indexed by the event and endpoint the line names (not the claim's), as SQLite's columns are: what events() lists.
local function pushAttempt(json, partner, capacity, eventId, endpoint)
  local id = redis.call('HINCRBY', K.counter, 'attempt', 1)
  redis.call('ZADD', K.att, id, id)
  redis.call('HSET', K.attJson, id, json)
  if endpoint ~= '' then
    local member = eventId .. '\\0' .. endpoint .. '\\0' .. pad(id)
    redis.call('ZADD', K.attEvent, 0, member)
    redis.call('HSET', K.attIndex, id, member)
  end
  redis.call('ZADD', pk(partner, 'att'), id, id)
  touchPartner(partner)
  local cutoff = id - capacity
  if cutoff <= 0 then return end
  for _, old in ipairs(redis.call('ZRANGEBYSCORE', K.att, '-inf', cutoff)) do forgetAttempt(old) end
  redis.call('ZREMRANGEBYSCORE', pk(partner, 'att'), '-inf', cutoff)
end

-- An event is kept while a delivery of it waits; then it joins ev:done, where only the newest are kept.
local function deliveryEnded(seq)
  if redis.call('HINCRBY', K.evWait, seq, -1) <= 0 then
    redis.call('HDEL', K.evWait, seq)
    redis.call('ZADD', K.evDone, seq, seq)
  end
end

local function enqueue(seq, partner, endpoint, laneKey, now)
  local pos = redis.call('HINCRBY', K.counter, 'delivery', 1)
  local lane = laneOf(endpoint, laneKey)
  local delivery = deliveryOf(lane, pos, seq)
  redis.call('ZADD', K.pending, 0, delivery)
  redis.call('ZADD', pk(partner, 'out:pending'), pos, delivery)
  redis.call('ZADD', K.evSent, 0, sentMember(delivery))
  redis.call('HINCRBY', K.evWait, seq, 1)
  if redis.call('HEXISTS', K.laneDue, lane) == 0 then
    redis.call('ZADD', K.lanes, 0, lane)
    makeLaneDue(lane, now)
  end
end

-- A pending delivery that leaves unsent (its endpoint went away); the caller drops or keeps the lane.
local function dropPending(delivery)
  if redis.call('ZREM', K.pending, delivery) == 0 then return end
  local seq = seqOfDelivery(delivery)
  local partner = redis.call('HGET', K.evPartner, seq)
  if partner then redis.call('ZREM', pk(partner, 'out:pending'), delivery) end
  redis.call('HDEL', K.attempts, delivery)
  redis.call('HDEL', K.round, delivery)
  redis.call('ZREM', K.evSent, sentMember(delivery))
  deliveryEnded(seq)
end

-- An event and all its deliveries, pending or delivered (past the capacity, or its partner's reset). The lanes that
-- lost a pending delivery are added to 'touched', for the caller to drop once empty.
local function dropEvent(seq, touched)
  seq = tonumber(seq)
  local partner, id, eventType, laneKey = redis.call('HGET', K.evPartner, seq), redis.call('HGET', K.evId, seq), redis.call('HGET', K.evType, seq), redis.call('HGET', K.evKey, seq)
  redis.call('ZREM', K.evDone, seq)
  redis.call('HDEL', K.evWait, seq)
  if not partner then return end
  local low, high = sentRange(seq)
  for _, member in ipairs(redis.call('ZRANGEBYLEX', K.evSent, low, high)) do
    local parts = split(member)
    local lane = laneOf(parts[3], laneKey)
    local delivery = lane .. '\\0' .. parts[2] .. '\\0' .. parts[1]
    if redis.call('ZREM', K.pending, delivery) == 1 and touched then touched[lane] = true end
    redis.call('ZREM', K.delivered, delivery)
    redis.call('ZREM', pk(partner, 'out:pending'), delivery)
    redis.call('ZREM', pk(partner, 'out:delivered'), delivery)
    redis.call('HDEL', K.attempts, delivery)
    redis.call('HDEL', K.round, delivery)
  end
  redis.call('ZREMRANGEBYLEX', K.evSent, low, high)
  redis.call('ZREM', pk(partner, 'ev'), seq)
  redis.call('ZREM', pk(partner, 'ev:type'), eventType .. '\\0' .. pad(seq))
  redis.call('ZREM', pk(partner, 'ev:id'), id .. '\\0' .. pad(seq))
  for _, hash in ipairs({ K.evId, K.evType, K.evKey, K.evPartner, K.evBody, K.evAt }) do redis.call('HDEL', hash, seq) end
end

-- Keeps the newest eventCapacity of the events with nothing left to deliver; undelivered ones are not in ev:done.
local function pruneEvents(capacity)
  local surplus = redis.call('ZCARD', K.evDone) - capacity
  if surplus <= 0 then return end
  for _, seq in ipairs(redis.call('ZRANGE', K.evDone, 0, math.min(surplus, ${pruneBatch}) - 1)) do dropEvent(seq) end
end

-- What waits for an endpoint that goes away: its disabled state, undelivered deliveries and lanes. Its delivered
-- deliveries stay with their events. The caller prunes: events left with nothing to deliver may be past the capacity.
local function forgetEndpoint(endpoint)
  redis.call('HDEL', K.endpoints, endpoint .. '\\0at', endpoint .. '\\0reason', endpoint .. '\\0failed')
  for _, delivery in ipairs(redis.call('ZRANGEBYLEX', K.pending, '[' .. endpoint .. '\\0', '(' .. endpoint .. '\\1')) do dropPending(delivery) end
  for _, lane in ipairs(endpointLanes(endpoint)) do dropLane(lane) end
end

-- Events as encoded by encodeEvents (TypeScript), from ARGV[at]; returns the index after them.
local function storeEvents(at, now)
  local attemptCapacity, eventCapacity, count = tonumber(ARGV[at]), tonumber(ARGV[at + 1]), tonumber(ARGV[at + 2])
  at = at + 3
  for _ = 1, count do
    local partner, id, eventType, laneKey, body, noEndpointLine, endpoints = ARGV[at], ARGV[at + 1], ARGV[at + 2], ARGV[at + 3], ARGV[at + 4], ARGV[at + 5], tonumber(ARGV[at + 6])
    at = at + 7
    local seq = redis.call('HINCRBY', K.counter, 'event', 1)
    redis.call('HSET', K.evId, seq, id)
    redis.call('HSET', K.evType, seq, eventType)
    redis.call('HSET', K.evKey, seq, laneKey)
    redis.call('HSET', K.evPartner, seq, partner)
    redis.call('HSET', K.evBody, seq, body)
    redis.call('HSET', K.evAt, seq, now)
    redis.call('ZADD', pk(partner, 'ev'), seq, seq)
    redis.call('ZADD', pk(partner, 'ev:type'), 0, eventType .. '\\0' .. pad(seq))
    redis.call('ZADD', pk(partner, 'ev:id'), 0, id .. '\\0' .. pad(seq))
    touchPartner(partner)
    if endpoints == 0 then
      pushAttempt(noEndpointLine, partner, attemptCapacity, id, '')
      redis.call('ZADD', K.evDone, seq, seq)
    end
    for e = 1, endpoints do enqueue(seq, partner, ARGV[at + e - 1], laneKey, now) end
    at = at + endpoints
  end
  pruneEvents(eventCapacity)
  return at
end
`;

/**
 * The events of one write, flattened for storeEvents: the capacities that bound what the write keeps, a count, then
 * per event its fields and endpoints.
 */
export function encodeEvents(events: readonly OutboxEvent[], now: number, options: StoreOptions): ScriptArg[] {
  const args: ScriptArg[] = [options.attemptJournalCapacity, options.eventCapacity, events.length];
  for (const { partnerId, event, orderingKey, endpointIds, body } of events) {
    const noEndpoint: AttemptRecord = { eventId: event.id, type: event.type, orderingKey, attempt: 0, at: new Date(now).toISOString(), durationMs: 0, outcome: 'no-endpoint' };
    args.push(partnerId, event.id, event.type, orderingKey, body ?? JSON.stringify(event), endpointIds.length === 0 ? JSON.stringify(noEndpoint) : '', endpointIds.length, ...endpointIds);
  }
  return args;
}
