/**
 * Customers in Redis: a hash of JSON per partner, an email index that makes creation unique per partner, and a
 * sorted set of positions for newest-first pages. Each method is one script, so one round trip.
 */
import type { CustomerRecord, CustomerRecords } from '../store.ts';
import { asArray, asText, beforePosition, pageOf, positioned, type ScriptRunner, type ScriptSource } from './scripts.ts';

export const customerScripts: Record<string, ScriptSource> = {
  customerCreate: {
    lua: `
local partner, id, email, json = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local existing = redis.call('HGET', pk(partner, 'cus:email'), email)
if existing then
  local stored = redis.call('HGET', pk(partner, 'cus'), existing)
  if stored then return { 0, stored } end
end
-- Checked before writing anything: a script that fails half-way keeps what it wrote.
if redis.call('HEXISTS', pk(partner, 'cus'), id) == 1 then return redis.error_reply('customer ' .. id .. ' is already stored') end
local seq = redis.call('HINCRBY', pk(partner, 'meta'), 'seq', 1)
redis.call('HSET', pk(partner, 'cus'), id, json)
redis.call('ZADD', pk(partner, 'cus:seq'), seq, id)
redis.call('HSET', pk(partner, 'cus:email'), email, id)
touchPartner(partner)
return { 1 }
`,
  },
  customerGet: {
    lua: `return redis.call('HGET', pk(ARGV[1], 'cus'), ARGV[2])`,
  },
  customerList: {
    lua: `
local partner, before, limit, byEmail, email = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4] == '1', ARGV[5]
local rows = {}
if byEmail then
  -- At most one customer has the email: no need to walk the positions.
  local id = redis.call('HGET', pk(partner, 'cus:email'), email)
  local seq = id and redis.call('ZSCORE', pk(partner, 'cus:seq'), id)
  if seq and tonumber(seq) < tonumber(before) then rows = { tonumber(seq), redis.call('HGET', pk(partner, 'cus'), id) } end
  return rows
end
local ids = redis.call('ZREVRANGEBYSCORE', pk(partner, 'cus:seq'), '(' .. before, '-inf', 'WITHSCORES', 'LIMIT', 0, limit + 1)
for i = 1, #ids, 2 do
  rows[#rows + 1] = tonumber(ids[i + 1])
  rows[#rows + 1] = redis.call('HGET', pk(partner, 'cus'), ids[i])
end
return rows
`,
  },
};

export function redisCustomers(scripts: ScriptRunner): CustomerRecords {
  return {
    async create(partnerId, customer) {
      const reply = asArray(await scripts.run('customerCreate', [partnerId, customer.serviceCustomerId, customer.email.toLowerCase(), JSON.stringify(customer)]));
      if (Number(reply[0]) === 1) return { customer, created: true };
      return { customer: JSON.parse(asText(reply[1])) as CustomerRecord, created: false };
    },
    async get(partnerId, customerId) {
      const json = await scripts.run('customerGet', [partnerId, customerId]);
      return json === null ? undefined : (JSON.parse(asText(json)) as CustomerRecord);
    },
    async list(partnerId, { email }, page) {
      const byEmail = email === undefined ? ['0', ''] : ['1', email.toLowerCase()];
      const rows = positioned<CustomerRecord>(await scripts.run('customerList', [partnerId, beforePosition(page.after), page.limit, ...byEmail]));
      return pageOf(rows, page.limit);
    },
  };
}
