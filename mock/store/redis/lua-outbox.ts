/**
 * The Lua shared by every script that writes the webhook outbox: storing events with their deliveries (a formation
 * step, an append, a re-enable), moving lanes between the due and held indexes, and the delivery journal.
 *
 * A lane (endpoint NUL ordering key) is in exactly one of three places: `out:due` (free, on an enabled endpoint,
 * scored by due time), `out:held` (claimed, on an enabled endpoint, scored by lease end), or in neither while its
 * endpoint is disabled. Claims and `nextDueAt` then only ever look at lanes that can be sent.
 */
import type { ScriptArg } from './scripts.ts';
import type { AttemptRecord, OutboxEvent } from '../store.ts';

export const endpointLaneKey = 'webhook_endpoint';

export const outboxLua = `
local ENDPOINT_LANE = '${endpointLaneKey}'

local function laneOf(endpoint, laneKey) return endpoint .. '\\0' .. laneKey end
local function endpointOf(lane) return string.sub(lane, 1, string.find(lane, '\\0', 1, true) - 1) end
local function laneOfDelivery(delivery) return string.sub(delivery, 1, -18) end
local function seqOfDelivery(delivery) return tonumber(string.sub(delivery, -16)) end
local function dueMember(dueSeq, lane) return pad(dueSeq) .. '\\0' .. lane end
local function isDisabled(endpoint) return redis.call('HEXISTS', K.endpoints, endpoint .. '\\0at') == 1 end

-- A lane's queue is oldest first; the endpoint's own lane is newest first, so that the notice of the latest
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

-- An event's data stays while a delivery (pending, or listed as delivered) points at it.
local function releaseEvent(seq)
  if redis.call('HINCRBY', K.evRefs, seq, -1) <= 0 then
    for _, hash in ipairs({ K.evId, K.evType, K.evKey, K.evPartner, K.evBody, K.evRefs }) do redis.call('HDEL', hash, seq) end
  end
end

-- A delivery leaves the outbox: delivered and trimmed from the list, or reset with its partner.
local function forgetDelivery(delivery)
  local seq = seqOfDelivery(delivery)
  local partner = redis.call('HGET', K.evPartner, seq)
  local removed = redis.call('ZREM', K.pending, delivery) + redis.call('ZREM', K.delivered, delivery)
  redis.call('HDEL', K.attempts, delivery)
  redis.call('HDEL', K.round, delivery)
  if partner then redis.call('SREM', pk(partner, 'out'), delivery) end
  if removed > 0 then releaseEvent(seq) end
end

-- The delivery journal keeps ids above (newest - capacity), as SQLite's does. A partner's own list (used only by
-- its reset) is trimmed when it adds a line; the stale ids others' lists keep are bounded by the capacity.
local function pushAttempt(json, partner, capacity)
  local id = redis.call('HINCRBY', K.counter, 'attempt', 1)
  redis.call('ZADD', K.att, id, id)
  redis.call('HSET', K.attJson, id, json)
  redis.call('ZADD', pk(partner, 'att'), id, id)
  touchPartner(partner)
  local cutoff = id - capacity
  if cutoff <= 0 then return end
  local old = redis.call('ZRANGEBYSCORE', K.att, '-inf', cutoff)
  if #old > 0 then
    inSlices('HDEL', K.attJson, old)
    redis.call('ZREMRANGEBYSCORE', K.att, '-inf', cutoff)
  end
  redis.call('ZREMRANGEBYSCORE', pk(partner, 'att'), '-inf', cutoff)
end

-- Events as encoded by encodeEvents (TypeScript), from ARGV[at]; returns the index after them.
local function storeEvents(at, now, attemptCapacity)
  local count = tonumber(ARGV[at])
  at = at + 1
  for _ = 1, count do
    local partner, id, eventType, laneKey, body, noEndpointLine, endpoints = ARGV[at], ARGV[at + 1], ARGV[at + 2], ARGV[at + 3], ARGV[at + 4], ARGV[at + 5], tonumber(ARGV[at + 6])
    at = at + 7
    if endpoints == 0 then
      pushAttempt(noEndpointLine, partner, attemptCapacity)
    else
      local seq = redis.call('HINCRBY', K.counter, 'event', 1)
      local refs = 0
      for e = 1, endpoints do
        local lane = laneOf(ARGV[at + e - 1], laneKey)
        local delivery = lane .. '\\0' .. pad(seq)
        refs = refs + redis.call('ZADD', K.pending, 0, delivery)
        redis.call('SADD', pk(partner, 'out'), delivery)
        if redis.call('HEXISTS', K.laneDue, lane) == 0 then
          redis.call('ZADD', K.lanes, 0, lane)
          makeLaneDue(lane, now)
        end
      end
      at = at + endpoints
      redis.call('HSET', K.evId, seq, id)
      redis.call('HSET', K.evType, seq, eventType)
      redis.call('HSET', K.evKey, seq, laneKey)
      redis.call('HSET', K.evPartner, seq, partner)
      redis.call('HSET', K.evBody, seq, body)
      redis.call('HSET', K.evRefs, seq, refs)
      touchPartner(partner)
    end
  end
  return at
end
`;

/** The events of one write, flattened for storeEvents: a count, then per event its fields and endpoints. */
export function encodeEvents(events: readonly OutboxEvent[], now: number): ScriptArg[] {
  const args: ScriptArg[] = [events.length];
  for (const { partnerId, event, orderingKey, endpointIds } of events) {
    const noEndpoint: AttemptRecord = { eventId: event.id, type: event.type, orderingKey, attempt: 0, at: new Date(now).toISOString(), durationMs: 0, outcome: 'no-endpoint' };
    args.push(partnerId, event.id, event.type, orderingKey, JSON.stringify(event), endpointIds.length === 0 ? JSON.stringify(noEndpoint) : '', endpointIds.length, ...endpointIds);
  }
  return args;
}
