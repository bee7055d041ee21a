/**
 * The Redis backend's scripts: a fixed set of three (fetch, commit, clear), generic, knowing nothing of customers
 * or webhooks. Each store table is three keys: `pfm:t:NAME` (a hash, key → value), `pfm:v:NAME` (a hash, key → the version written last)
 * and, for an ordered table, `pfm:o:NAME` (a sorted set of its keys, all scored 0, so that Redis keeps them in
 * byte order for ranges). `pfm:counter` holds the counters and the version clock; `pfm:tables` names the tables
 * that hold data (what `clear` walks).
 *
 * The scripts build key names from their arguments rather than receiving them as KEYS, so the store needs a
 * standalone Redis (or one primary), not Redis Cluster. Numbers are formatted with string.format: Lua's own
 * conversion keeps 14 digits.
 */

/**
 * The keys of a range of an ordered table, in its order, at most `limit` (none for a limit of 0, where Redis's
 * `LIMIT 0 0` would answer every one): how the fetch reads a range and the commit reads it again to check it.
 */
const rangeKeysLua = `
local function rangeKeys(t, low, high, reverse, limit)
  if limit <= 0 then return {} end
  if reverse == '1' then
    return redis.call('ZREVRANGEBYLEX', 'pfm:o:' .. t, '(' .. high, '[' .. low, 'LIMIT', 0, limit)
  end
  return redis.call('ZRANGEBYLEX', 'pfm:o:' .. t, '[' .. low, '(' .. high, 'LIMIT', 0, limit)
end
`;

/**
 * Everything one round of a transaction's reads missed, in one call: [g, then table key per get; s, then table low
 * high reverse (1/0) limit per scan; a, then counter count per allocation] → per get its value and version (false
 * when absent), per scan its entry count then key value version per entry, per allocation the counter's new value.
 */
export const fetchLua = `${rangeKeysLua}
local reply, at = {}, 2
for _ = 1, tonumber(ARGV[1]) do
  local t, k = ARGV[at], ARGV[at + 1]
  at = at + 2
  reply[#reply + 1] = redis.call('HGET', 'pfm:t:' .. t, k) or false
  reply[#reply + 1] = redis.call('HGET', 'pfm:v:' .. t, k) or false
end
local scans = tonumber(ARGV[at])
at = at + 1
for _ = 1, scans do
  local t = ARGV[at]
  local keys = rangeKeys(t, ARGV[at + 1], ARGV[at + 2], ARGV[at + 3], tonumber(ARGV[at + 4]))
  at = at + 5
  reply[#reply + 1] = #keys
  -- unpack() is bounded by Lua's C stack: values are read a slice of keys at a time.
  for first = 1, #keys, 500 do
    local last = math.min(first + 499, #keys)
    local values = redis.call('HMGET', 'pfm:t:' .. t, unpack(keys, first, last))
    local versions = redis.call('HMGET', 'pfm:v:' .. t, unpack(keys, first, last))
    for i = 1, last - first + 1 do
      reply[#reply + 1] = keys[first + i - 1]
      reply[#reply + 1] = values[i]
      reply[#reply + 1] = versions[i]
    end
  end
end
local allocations = tonumber(ARGV[at])
at = at + 1
for _ = 1, allocations do
  reply[#reply + 1] = redis.call('HINCRBY', 'pfm:counter', ARGV[at], ARGV[at + 1])
  at = at + 2
end
return reply
`;

/**
 * [seed, n, then table key version per key checked, r, then table low high reverse (1/0) limit count, then key
 * version per entry, per range checked, m, then op table ordered key value per write] → 0 (nothing written) when a
 * key's version is no longer the one read (0: absent) or a range no longer holds the same keys at the same versions;
 * else {1, the version written at, the value after each add}. op: p put, d delete, a add.
 *
 * The version clock starts at `seed` (the time of day in microseconds) when there is none, as after a restart of
 * Redis that lost its data: versions then never repeat one given before, which a process may still hold (hints.ts).
 */
export const commitLua = `${rangeKeysLua}
local at = 3
for _ = 1, tonumber(ARGV[2]) do
  local current = redis.call('HGET', 'pfm:v:' .. ARGV[at], ARGV[at + 1]) or '0'
  if current ~= ARGV[at + 2] then return 0 end
  at = at + 3
end
local ranges = tonumber(ARGV[at])
at = at + 1
for _ = 1, ranges do
  local t, count = ARGV[at], tonumber(ARGV[at + 5])
  local keys = rangeKeys(t, ARGV[at + 1], ARGV[at + 2], ARGV[at + 3], tonumber(ARGV[at + 4]))
  at = at + 6
  -- As the fetch reads a range: a key listed without a version (no value) is not one of its entries.
  local seen = 0
  for first = 1, #keys, 500 do
    local last = math.min(first + 499, #keys)
    local versions = redis.call('HMGET', 'pfm:v:' .. t, unpack(keys, first, last))
    for i = 1, last - first + 1 do
      if versions[i] then
        if seen == count or keys[first + i - 1] ~= ARGV[at + 2 * seen] or versions[i] ~= ARGV[at + 2 * seen + 1] then return 0 end
        seen = seen + 1
      end
    end
  end
  if seen ~= count then return 0 end
  at = at + 2 * count
end
local writes = tonumber(ARGV[at])
at = at + 1
if writes == 0 then return {1, 0} end
redis.call('HSETNX', 'pfm:counter', '_version', ARGV[1])
local version = redis.call('HINCRBY', 'pfm:counter', '_version', 1)
local reply = {1, version}
version = string.format('%d', version)
for _ = 1, writes do
  local op, t, ordered, k, value = ARGV[at], ARGV[at + 1], ARGV[at + 2], ARGV[at + 3], ARGV[at + 4]
  at = at + 5
  if op == 'd' then
    redis.call('HDEL', 'pfm:t:' .. t, k)
    redis.call('HDEL', 'pfm:v:' .. t, k)
    if ordered == '1' then redis.call('ZREM', 'pfm:o:' .. t, k) end
  else
    if op == 'p' then redis.call('HSET', 'pfm:t:' .. t, k, value) else reply[#reply + 1] = redis.call('HINCRBY', 'pfm:t:' .. t, k, value) end
    redis.call('HSET', 'pfm:v:' .. t, k, version)
    if ordered == '1' then redis.call('ZADD', 'pfm:o:' .. t, 0, k) end
    redis.call('SADD', 'pfm:tables', t)
  end
end
return reply
`;

/** [tables to keep…] → empties every other table, in one step (no other process sees half of it). */
export const clearLua = `
local keep = {}
for _, t in ipairs(ARGV) do keep[t] = true end
for _, t in ipairs(redis.call('SMEMBERS', 'pfm:tables')) do
  if not keep[t] then
    redis.call('UNLINK', 'pfm:t:' .. t, 'pfm:v:' .. t, 'pfm:o:' .. t)
    redis.call('SREM', 'pfm:tables', t)
  end
end
return 1
`;
