/**
 * The partner portal's webhook endpoints in Redis: each record's JSON in its partner's hash, the partner's endpoints
 * in a sorted set scored by creation time (equal scores sort by member, the id: the list order, as in SQLite), and
 * one global hash from id to partner, for delivery, which knows an endpoint by id alone.
 */
import type { StoreOptions, WebhookEndpointRecord, WebhookEndpointRecords } from '../store.ts';
import { outboxLua } from './lua-outbox.ts';
import { asArray, asText, type ScriptRunner, type ScriptSource } from './scripts.ts';

export const webhookEndpointScripts: Record<string, ScriptSource> = {
  webhookEndpointCreate: {
    lua: `
local partner, id, createdAt, json, maxPerPartner = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4], tonumber(ARGV[5])
-- Counted and stored in one script: two creates at once, on any process, cannot both pass the cap.
if redis.call('ZCARD', pk(partner, 'we:order')) >= maxPerPartner then return 0 end
-- Checked before writing anything: a script that fails half-way keeps what it wrote.
if redis.call('HEXISTS', K.webhookEndpoints, id) == 1 then return redis.error_reply('webhook endpoint ' .. id .. ' is already stored') end
redis.call('HSET', K.webhookEndpoints, id, partner)
redis.call('HSET', pk(partner, 'we'), id, json)
redis.call('ZADD', pk(partner, 'we:order'), createdAt, id)
touchPartner(partner)
return 1
`,
  },
  webhookEndpointList: {
    lua: `
local records = {}
for _, id in ipairs(redis.call('ZRANGE', pk(ARGV[1], 'we:order'), 0, -1)) do
  local json = redis.call('HGET', pk(ARGV[1], 'we'), id)
  if json then records[#records + 1] = json end
end
return records
`,
  },
  webhookEndpointGet: { lua: `return redis.call('HGET', pk(ARGV[1], 'we'), ARGV[2])` },
  webhookEndpointFind: {
    lua: `
local partner = redis.call('HGET', K.webhookEndpoints, ARGV[1])
if not partner then return false end
return redis.call('HGET', pk(partner, 'we'), ARGV[1])
`,
  },
  webhookEndpointUpdate: {
    lua: `
local partner, id, withoutCreatedAt = ARGV[1], ARGV[2], ARGV[3]
if redis.call('HGET', K.webhookEndpoints, id) ~= partner then return false end
-- The creation time is the stored one, whatever the caller sent: spliced in as the last member, since cjson would
-- print a millisecond time with too few digits. %.17g gives back any double exactly.
local createdAt = tonumber(redis.call('ZSCORE', pk(partner, 'we:order'), id))
local json = string.sub(withoutCreatedAt, 1, -2) .. ',"createdAt":' .. string.format('%.17g', createdAt) .. '}'
redis.call('HSET', pk(partner, 'we'), id, json)
return json
`,
  },
  webhookEndpointDelete: {
    needs: [outboxLua],
    lua: `
local partner, id, eventCapacity = ARGV[1], ARGV[2], tonumber(ARGV[3])
if redis.call('HGET', K.webhookEndpoints, id) ~= partner then return 0 end
redis.call('HDEL', K.webhookEndpoints, id)
redis.call('HDEL', pk(partner, 'we'), id)
redis.call('ZREM', pk(partner, 'we:order'), id)
-- With the record, in the same script: no delivery is claimed for an endpoint that is gone.
forgetEndpoint(id)
pruneEvents(eventCapacity)
return 1
`,
  },
};

const parse = (json: unknown): WebhookEndpointRecord => JSON.parse(asText(json)) as WebhookEndpointRecord;

export function redisWebhookEndpoints(scripts: ScriptRunner, options: StoreOptions): WebhookEndpointRecords {
  return {
    async create(endpoint, maxPerPartner) {
      const args = [endpoint.partnerId, endpoint.id, endpoint.createdAt, JSON.stringify(endpoint), maxPerPartner];
      return Number(await scripts.run('webhookEndpointCreate', args)) === 1;
    },
    async list(partnerId) {
      return asArray(await scripts.run('webhookEndpointList', [partnerId])).map(parse);
    },
    async get(partnerId, endpointId) {
      const json = await scripts.run('webhookEndpointGet', [partnerId, endpointId]);
      return json === null ? undefined : parse(json);
    },
    async find(endpointId) {
      const json = await scripts.run('webhookEndpointFind', [endpointId]);
      return json === null ? undefined : parse(json);
    },
    async update(endpoint) {
      const { createdAt: _createdAt, ...settings } = endpoint;
      const json = await scripts.run('webhookEndpointUpdate', [endpoint.partnerId, endpoint.id, JSON.stringify(settings)]);
      return json === null ? undefined : { ...endpoint, createdAt: parse(json).createdAt };
    },
    async delete(partnerId, endpointId) {
      return Number(await scripts.run('webhookEndpointDelete', [partnerId, endpointId, options.eventCapacity])) === 1;
    },
  };
}
