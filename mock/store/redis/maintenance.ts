/**
 * Secrets and resets in Redis. A full reset deletes the keys of every partner listed in `pfm:d:partners` and the
 * shared data keys, in one script (so no other process sees half of it), and never touches anything outside the
 * mock's prefix. Counters and secrets survive it, as they do in SQLite. A partner's reset also takes its records
 * out of the shared structures: its steps, document links, webhook endpoints (and their disabled state and lanes),
 * events, deliveries, and journal lines.
 */
import { journalLua } from './journal.ts';
import { outboxLua } from './lua-outbox.ts';
import { asText, type ScriptRunner, type ScriptSource } from './scripts.ts';
import { stepLua } from './timeline.ts';

const forgetPartnerKeysLua = `
local function forgetPartnerKeys(partner)
  for _, scope in ipairs(redis.call('ZRANGE', pk(partner, 'idem'), 0, -1)) do redis.call('UNLINK', idemKey(partner, scope)) end
  for _, name in ipairs(partnerKeyNames) do redis.call('UNLINK', pk(partner, name)) end
  redis.call('SREM', K.partners, partner)
end
`;

const resetPartnerLua = `
local partner = ARGV[1]
for _, id in ipairs(redis.call('HKEYS', pk(partner, 'co'))) do
  if redis.call('HGET', K.stepPartner, id) == partner then dropStep(id) end
end
for _, field in ipairs(redis.call('HKEYS', pk(partner, 'doc'))) do
  if redis.call('HGET', K.docs, field) == partner then redis.call('HDEL', K.docs, field) end
end

-- Its webhook endpoints, with what waits for them: their disabled state and lanes.
for _, id in ipairs(redis.call('HKEYS', pk(partner, 'we'))) do
  if redis.call('HGET', K.webhookEndpoints, id) == partner then redis.call('HDEL', K.webhookEndpoints, id) end
  forgetEndpoint(id)
end

-- Its events, with their deliveries; a lane (of a shared endpoint) left with nothing to send goes.
local lanes = {}
for _, seq in ipairs(redis.call('ZRANGE', pk(partner, 'ev'), 0, -1)) do dropEvent(seq, lanes) end
for lane in pairs(lanes) do
  if not laneHead(lane) then dropLane(lane) end
end

for _, id in ipairs(redis.call('ZRANGE', pk(partner, 'att'), 0, -1)) do forgetAttempt(id) end

local bytes = 0
for _, id in ipairs(redis.call('ZRANGE', pk(partner, 'jr'), 0, -1)) do bytes = bytes + forgetJournalEntry(id) end
if bytes > 0 then redis.call('DECRBY', K.jrBytes, bytes) end

forgetPartnerKeys(partner)
return 1
`;

export const maintenanceScripts: Record<string, ScriptSource> = {
  secretGet: { lua: `return redis.call('GET', secretKey(ARGV[1]))` },
  secretCreate: {
    lua: `
local key = secretKey(ARGV[1])
local existing = redis.call('GET', key)
if existing then return existing end
redis.call('SET', key, ARGV[2])
return ARGV[2]
`,
  },
  resetPartner: { needs: [stepLua, outboxLua, journalLua, forgetPartnerKeysLua], lua: resetPartnerLua },
  resetAll: {
    needs: [forgetPartnerKeysLua],
    lua: `
for _, partner in ipairs(redis.call('SMEMBERS', K.partners)) do forgetPartnerKeys(partner) end
redis.call('UNLINK', unpack(globalKeys))
return 1
`,
  },
};

export interface Maintenance {
  secret(name: string, create: () => string): Promise<string>;
  reset(partnerId?: string): Promise<void>;
}

export function redisMaintenance(scripts: ScriptRunner): Maintenance {
  return {
    async secret(name, create) {
      const existing = await scripts.run('secretGet', [name]);
      if (existing !== null) return asText(existing);
      // Another process may create it first: the stored value wins, whoever made it.
      return asText(await scripts.run('secretCreate', [name, create()]));
    },
    async reset(partnerId) {
      if (partnerId === undefined) await scripts.run('resetAll', []);
      else await scripts.run('resetPartner', [partnerId]);
    },
  };
}
