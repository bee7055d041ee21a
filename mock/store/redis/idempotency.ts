/**
 * Idempotency records in Redis: a hash per record, and per partner a sorted set of its scopes in the order they
 * were taken, which is also the order they expire (the retention is fixed), so the oldest are the first to drop.
 *
 * Expiry and locks are decided by the `now` passed in. Redis's own TTL (PEXPIRE, relative, with a generous margin
 * on top of the retention) only collects records of partners that stopped sending requests; it never decides
 * whether a record is live.
 */
import type { IdempotencyRecord, IdempotencyRecords, StoredResponse, StoreOptions } from '../store.ts';
import { asArray, asBuffer, asBytes, asText, type ScriptRunner, type ScriptSource } from './scripts.ts';

const collectionMarginMs = 24 * 60 * 60 * 1000;

export const idempotencyScripts: Record<string, ScriptSource> = {
  idempotencyBegin: {
    lua: `
local partner, scope, owner, fingerprint = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local now, lockMs, ttlMs, cap, collectMs = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9])
local key = idemKey(partner, scope)
local record = redis.call('HMGET', key, 'fp', 'exp', 'lock', 'status', 'headers', 'body', 'text')
if record[1] and num(record[2]) > now then
  if record[4] then return { 0, record[1], tonumber(record[4]), record[5], record[6], record[7] } end
  if num(record[3]) > now then return { 0, record[1] } end
end

-- No live record (or only one whose holder is gone): this request takes the key.
redis.call('DEL', key)
redis.call('HSET', key, 'fp', fingerprint, 'exp', now + ttlMs, 'owner', owner, 'lock', now + lockMs)
redis.call('PEXPIRE', key, collectMs)
local order = pk(partner, 'idem')
redis.call('ZADD', order, redis.call('HINCRBY', pk(partner, 'meta'), 'idem', 1), scope)
touchPartner(partner)

-- Oldest first: drop what is past its retention, then whatever is beyond the cap; never another partner's, and
-- never a create still in flight (its answer must still be stored): those are stepped over.
local size = redis.call('ZCARD', order)
local kept = 0
while true do
  local oldest = redis.call('ZRANGE', order, kept, kept + 99)
  if #oldest == 0 then return { 1 } end
  for _, old in ipairs(oldest) do
    local oldKey = idemKey(partner, old)
    local held = redis.call('HMGET', oldKey, 'exp', 'status', 'lock')
    local expired = num(held[1]) <= now
    if size <= cap and not expired then return { 1 } end
    if not expired and not held[2] and num(held[3]) > now then
      kept = kept + 1
    else
      redis.call('UNLINK', oldKey)
      redis.call('ZREM', order, old)
      size = size - 1
    end
  end
end
`,
  },
  idempotencyRenew: {
    lua: `
local key = idemKey(ARGV[1], ARGV[2])
if not heldBy(key, ARGV[3]) then return 0 end
redis.call('HSET', key, 'lock', tonumber(ARGV[4]) + tonumber(ARGV[5]))
return 1
`,
  },
  idempotencyComplete: {
    lua: `
local key = idemKey(ARGV[1], ARGV[2])
if not heldBy(key, ARGV[3]) then return 0 end
redis.call('HSET', key, 'status', ARGV[4], 'headers', ARGV[5], 'body', ARGV[6], 'text', ARGV[7])
redis.call('HDEL', key, 'owner')
return 1
`,
  },
  idempotencyAbandon: {
    lua: `
local key = idemKey(ARGV[1], ARGV[2])
if not heldBy(key, ARGV[3]) then return 0 end
redis.call('DEL', key)
redis.call('ZREM', pk(ARGV[1], 'idem'), ARGV[2])
return 1
`,
  },
  idempotencyCount: {
    lua: `
local partner, now = ARGV[1], tonumber(ARGV[2])
local live = 0
for _, scope in ipairs(redis.call('ZRANGE', pk(partner, 'idem'), 0, -1)) do
  local record = redis.call('HMGET', idemKey(partner, scope), 'exp', 'lock', 'status')
  if num(record[1]) > now and (record[3] or num(record[2]) > now) then live = live + 1 end
end
return live
`,
  },
};

export function redisIdempotency(scripts: ScriptRunner, options: StoreOptions): IdempotencyRecords {
  const collectMs = options.idempotencyTtlMs + Math.max(options.idempotencyTtlMs, collectionMarginMs);
  return {
    async begin({ partnerId, scope, owner }, fingerprint, now, lockMs) {
      const args = [partnerId, scope, owner, fingerprint, now, lockMs, options.idempotencyTtlMs, options.idempotencyMaxRecordsPerPartner, collectMs];
      const reply = asArray(await scripts.runBinary('idempotencyBegin', args));
      if (Number(reply[0]) === 1) return { began: true };
      return { began: false, record: readRecord(reply) };
    },
    async renew({ partnerId, scope, owner }, now, lockMs) {
      return Number(await scripts.run('idempotencyRenew', [partnerId, scope, owner, now, lockMs])) === 1;
    },
    async complete({ partnerId, scope, owner }, response, _now) {
      const text = typeof response.body === 'string';
      const body = typeof response.body === 'string' ? response.body : asBuffer(response.body);
      const args = [partnerId, scope, owner, response.status, JSON.stringify(response.headers), body, text ? '1' : '0'];
      return Number(await scripts.run('idempotencyComplete', args)) === 1;
    },
    async abandon({ partnerId, scope, owner }) {
      await scripts.run('idempotencyAbandon', [partnerId, scope, owner]);
    },
    async count(partnerId, now) {
      return Number(await scripts.run('idempotencyCount', [partnerId, now]));
    },
  };
}

/** A live record from the begin script's reply: [0, fingerprint] in flight, or with status, headers, body, text. */
function readRecord(reply: unknown[]): IdempotencyRecord {
  const fingerprint = asText(reply[1]);
  if (reply.length < 6) return { state: 'in-flight', fingerprint };
  const response: StoredResponse = {
    status: Number(reply[2]),
    headers: JSON.parse(asText(reply[3])) as Record<string, string>,
    body: asText(reply[5]) === '1' ? asText(reply[4]) : asBytes(reply[4]),
  };
  return { state: 'done', fingerprint, response };
}
