/**
 * The webhook outbox in Redis: delivery lanes (endpoint × ordering key) claimed one head at a time, settled with
 * the claim's token, and held while their endpoint is disabled. The layout and the shared Lua are in
 * lua-outbox.ts; the rules are the SQLite backend's, which the conformance suite holds all backends to, with two
 * exceptions in `deliveries()` that follow the memory backend: the in-flight delivery is the one the claim took
 * (on the endpoint's own lane, newest first, that is not the oldest), and a delivered event is listed while it is
 * among the newest `deliveredCapacity` delivered, however old the event is.
 */
import { newClaimToken } from '../claim-token.ts';
import type { AttemptRecord, DeliveryRecord, EndpointState, LaneClaim, StoreOptions, WebhookOutbox } from '../store.ts';
import { encodeEvents, outboxLua } from './lua-outbox.ts';
import { asArray, asText, type ScriptRunner, type ScriptSource } from './scripts.ts';

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
local kind, retryAt, attemptJson, attemptCapacity, deliveredCapacity = ARGV[6], tonumber(ARGV[7]), ARGV[8], tonumber(ARGV[9]), tonumber(ARGV[10])
local lane = laneOf(endpoint, laneKey)
if redis.call('HGET', K.laneToken, lane) ~= token or num(redis.call('HGET', K.laneLease, lane)) <= now then return 0 end
-- The delivery this claim took, which a newer notice may since have overtaken as the endpoint lane's head.
local head = redis.call('HGET', K.laneClaimed, lane)
if not head or not redis.call('ZSCORE', K.pending, head) then return 0 end
local seq = seqOfDelivery(head)
if redis.call('HGET', K.evId, seq) ~= eventId then return 0 end

redis.call('HINCRBY', K.attempts, head, 1)
redis.call('HINCRBY', K.round, head, 1)
pushAttempt(attemptJson, redis.call('HGET', K.evPartner, seq), attemptCapacity)

if kind == 'delivered' then
  redis.call('ZREM', K.pending, head)
  redis.call('ZADD', K.delivered, seq, head)
  redis.call('HDEL', K.round, head)
  -- Keep the newest deliveredCapacity by event position (all of a position go together, as in SQLite).
  if redis.call('ZCARD', K.delivered) > deliveredCapacity then
    local pivot = redis.call('ZREVRANGE', K.delivered, deliveredCapacity, deliveredCapacity, 'WITHSCORES')
    for _, old in ipairs(redis.call('ZRANGEBYSCORE', K.delivered, '-inf', pivot[2])) do forgetDelivery(old) end
  end
  if laneHead(lane) then makeLaneDue(lane, now) else dropLane(lane) end
elseif kind == 'retry' then
  makeLaneDue(lane, retryAt)
else
  redis.call('HSET', K.endpoints, endpoint .. '\\0at', now, endpoint .. '\\0failed', eventId)
  -- Every lane of the endpoint leaves the indexes until it is re-enabled; held ones keep their lease.
  for _, other in ipairs(endpointLanes(endpoint)) do unindexLane(other) end
  makeLaneDue(lane, now)
end
return 1
`;

const reenableLua = `
local endpoint, now, expectedAt, expectedFailed, attemptCapacity = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4], tonumber(ARGV[5])
local state = redis.call('HMGET', K.endpoints, endpoint .. '\\0at', endpoint .. '\\0failed')
if not state[1] then return 0 end
-- The notice was built from what the caller read; if that changed meanwhile, it reads again.
if state[1] ~= expectedAt or state[2] ~= expectedFailed then return -1 end
redis.call('HDEL', K.endpoints, endpoint .. '\\0at', endpoint .. '\\0failed')
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
storeEvents(6, now, attemptCapacity)
return 1
`;

const deliveriesLua = `
local now, capacity, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local rows = {}
local function add(delivery, state)
  local seq = seqOfDelivery(delivery)
  for _, value in ipairs({ seq, redis.call('HGET', K.evId, seq), redis.call('HGET', K.evType, seq), redis.call('HGET', K.evKey, seq), endpointOf(laneOfDelivery(delivery)), state }) do
    rows[#rows + 1] = value
  end
  rows[#rows + 1] = num(redis.call('HGET', K.attempts, delivery))
end
if capacity > 0 then
  local delivered = redis.call('ZREVRANGE', K.delivered, 0, capacity - 1)
  for i = #delivered, 1, -1 do add(delivered[i], 'delivered') end
end
-- In flight: the delivery a lane's current claim took, while its lease runs.
local disabled, inFlight = {}, {}
for _, delivery in ipairs(redis.call('ZRANGE', K.pending, 0, limit - 1)) do
  local lane = laneOfDelivery(delivery)
  local endpoint = endpointOf(lane)
  if disabled[endpoint] == nil then disabled[endpoint] = isDisabled(endpoint) end
  if inFlight[lane] == nil then
    inFlight[lane] = num(redis.call('HGET', K.laneLease, lane)) > now and redis.call('HGET', K.laneClaimed, lane)
  end
  local state = 'pending'
  if disabled[endpoint] then state = 'held' elseif inFlight[lane] == delivery then state = 'in-flight' end
  add(delivery, state)
end
return rows
`;

export const outboxScripts: Record<string, ScriptSource> = {
  outboxAppend: { needs: [outboxLua], lua: `storeEvents(3, tonumber(ARGV[1]), tonumber(ARGV[2])) return 1` },
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
  outboxReenable: { needs: [outboxLua], lua: reenableLua },
  outboxEndpoint: { lua: `return redis.call('HMGET', K.endpoints, ARGV[1] .. '\\0at', ARGV[1] .. '\\0failed')` },
  outboxDeliveries: { needs: [outboxLua], lua: deliveriesLua },
  outboxAttempts: {
    lua: `
local limit = tonumber(ARGV[1])
if limit <= 0 then return {} end
local ids = redis.call('ZREVRANGE', K.att, 0, limit - 1)
local lines = {}
for i = #ids, 1, -1 do lines[#lines + 1] = redis.call('HGET', K.attJson, ids[i]) end
return lines
`,
  },
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

export function redisOutbox(scripts: ScriptRunner, options: StoreOptions): WebhookOutbox {
  const readEndpoint = async (endpointId: string) => {
    const [at, failed] = asArray(await scripts.run('outboxEndpoint', [endpointId]));
    return at === null || at === undefined ? undefined : { at: asText(at), failedEventId: asText(failed) };
  };

  return {
    async append(events, now) {
      await scripts.run('outboxAppend', [now, options.attemptJournalCapacity, ...encodeEvents(events, now)]);
    },
    async claim(now, leaseMs, limit) {
      return readClaims(await scripts.run('outboxClaim', [now, leaseMs, limit, newClaimToken()]));
    },
    async settle(claim, outcome, attempt, now) {
      const retryAt = outcome.kind === 'retry' ? outcome.at : 0;
      const args = [claim.endpointId, claim.laneKey, claim.token, claim.eventId, now, outcome.kind, retryAt, JSON.stringify(attempt), options.attemptJournalCapacity, options.deliveredCapacity];
      return Number(await scripts.run('outboxSettle', args)) === 1;
    },
    async release(claim, now) {
      await scripts.run('outboxRelease', [claim.endpointId, claim.laneKey, claim.token, now]);
    },
    async reenable(endpointId, notice, now) {
      // The notice depends on the stored state, so it is built from a read and written only if that state holds.
      for (let round = 0; round < reenableRounds; round += 1) {
        const disabled = await readEndpoint(endpointId);
        if (!disabled) return false;
        const event = notice({ at: Number(disabled.at), failedEventId: disabled.failedEventId });
        const args = [endpointId, now, disabled.at, disabled.failedEventId, options.attemptJournalCapacity, ...encodeEvents([event], now)];
        const outcome = Number(await scripts.run('outboxReenable', args));
        if (outcome !== -1) return outcome === 1;
      }
      return false;
    },
    async endpoint(endpointId): Promise<EndpointState> {
      const disabled = await readEndpoint(endpointId);
      return disabled ? { disabled: { at: Number(disabled.at), failedEventId: disabled.failedEventId } } : {};
    },
    async deliveries(now, limit) {
      return readDeliveries(await scripts.run('outboxDeliveries', [now, options.deliveredCapacity, limit]));
    },
    async attempts(limit) {
      return asArray(await scripts.run('outboxAttempts', [limit])).map((line) => JSON.parse(asText(line)) as AttemptRecord);
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
  const rows: (DeliveryRecord & { seq: number })[] = [];
  for (let i = 0; i + 6 < flat.length; i += 7) {
    const [eventId, type, orderingKey, endpointId, state] = flat.slice(i + 1, i + 6).map(asText) as [string, string, string, string, DeliveryRecord['state']];
    rows.push({ seq: Number(flat[i]), eventId, type, orderingKey, endpointId, state, attempts: Number(flat[i + 6]) });
  }
  // Stable: at one position (an event sent to several endpoints) delivered ones stay ahead, as in SQLite.
  return rows.sort((a, b) => a.seq - b.seq).map(({ seq: _seq, ...delivery }) => delivery);
}
