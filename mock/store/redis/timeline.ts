/**
 * The formation timeline in Redis: each company's next step, claimed by one process at a time. A step is on one of
 * two indexes: `step:free` scored by its due time, or `step:held` scored by its lease end. The lease is kept apart
 * from the due time so that a holder dying never makes a step due early (a step on the manual timeline is due
 * `never`). A commit writes the company, its document and its events in the same script as the step, so they are
 * stored together or not at all.
 */
import type { Company } from '../../../generated/openapi.js';
import { newClaimToken } from '../claim-token.ts';
import type { CompanyChange, FormationTimeline, NextStep, StepClaim, StoreOptions } from '../store.ts';
import { encodeEvents, outboxLua } from './lua-outbox.ts';
import { asArray, asBuffer, asText, type ScriptArg, type ScriptRunner, type ScriptSource } from './scripts.ts';

/** Also used by reset, which ends the timelines of a partner's companies. */
export const stepLua = `
local function holdStep(id, token, leaseUntil)
  redis.call('HSET', K.stepToken, id, token)
  redis.call('HSET', K.stepLease, id, leaseUntil)
  redis.call('ZREM', K.stepFree, id)
  redis.call('ZADD', K.stepHeld, leaseUntil, id)
end

local function releaseStep(id, dueAt)
  redis.call('HSET', K.stepDue, id, dueAt)
  redis.call('HDEL', K.stepToken, id)
  redis.call('HDEL', K.stepLease, id)
  redis.call('ZREM', K.stepHeld, id)
  redis.call('ZADD', K.stepFree, dueAt, id)
end

local function dropStep(id)
  for _, hash in ipairs({ K.stepPartner, K.stepDue, K.stepToken, K.stepLease }) do redis.call('HDEL', hash, id) end
  redis.call('ZREM', K.stepFree, id)
  redis.call('ZREM', K.stepHeld, id)
end
`;

export const timelineScripts: Record<string, ScriptSource> = {
  timelineInsert: {
    lua: `
local partner, id, customer, dueAt = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[7])
-- Checked before writing anything: a script that fails half-way keeps what it wrote.
if redis.call('HEXISTS', pk(partner, 'co'), id) == 1 or redis.call('HEXISTS', K.stepPartner, id) == 1 then
  return redis.error_reply('company ' .. id .. ' is already stored')
end
local seq = redis.call('HINCRBY', pk(partner, 'meta'), 'seq', 1)
redis.call('HSET', pk(partner, 'co'), id, ARGV[6])
redis.call('HSET', pk(partner, 'co:f'), id, ARGV[4] .. '\\0' .. ARGV[5])
redis.call('ZADD', pk(partner, 'co:seq'), seq, id)
redis.call('ZADD', pk(partner, 'co:cus'), 0, customer .. '\\0' .. pad(seq) .. '\\0' .. id)
redis.call('HSET', K.stepPartner, id, partner)
redis.call('HSET', K.stepDue, id, dueAt)
redis.call('ZADD', K.stepFree, dueAt, id)
touchPartner(partner)
return 1
`,
  },
  timelineClaimDue: {
    needs: [stepLua],
    lua: `
local now, leaseMs, limit, tokenBase = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
-- Lapsed leases go back to the free index at their step's own due time.
for _, id in ipairs(redis.call('ZRANGEBYSCORE', K.stepHeld, '-inf', now)) do
  redis.call('ZREM', K.stepHeld, id)
  redis.call('ZADD', K.stepFree, num(redis.call('HGET', K.stepDue, id)), id)
end
local claims = {}
if limit <= 0 then return claims end
local due = redis.call('ZRANGEBYSCORE', K.stepFree, '-inf', now, 'WITHSCORES', 'LIMIT', 0, limit)
for i = 1, #due, 2 do
  local id = due[i]
  local token = tokenBase .. '.' .. int((i + 1) / 2)
  holdStep(id, token, now + leaseMs)
  claims[#claims + 1] = redis.call('HGET', K.stepPartner, id)
  claims[#claims + 1] = id
  claims[#claims + 1] = token
  claims[#claims + 1] = tonumber(due[i + 1])
end
return claims
`,
  },
  timelineClaim: {
    needs: [stepLua],
    lua: `
local partner, id, now, leaseMs, token = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5]
if redis.call('HGET', K.stepPartner, id) ~= partner then return { 'none' } end
if num(redis.call('HGET', K.stepLease, id)) > now then return { 'busy' } end
holdStep(id, token, now + leaseMs)
return { 'claimed', tonumber(redis.call('HGET', K.stepDue, id)) }
`,
  },
  timelineCommit: {
    needs: [stepLua, outboxLua],
    lua: `
local id, token, now, partner = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]
local nextKind, nextDue = ARGV[5], tonumber(ARGV[6])
if redis.call('HGET', K.stepToken, id) ~= token or num(redis.call('HGET', K.stepLease, id)) <= now then return 0 end
if ARGV[7] == '1' then
  local companyId, hasDocument, documentCompany, documentId = ARGV[8], ARGV[12] == '1', ARGV[13], ARGV[14]
  local documentField = documentCompany .. '\\0' .. documentId
  -- Checked before writing anything: a script that fails half-way keeps what it wrote.
  if hasDocument and redis.call('HEXISTS', K.docs, documentField) == 1 then
    return redis.error_reply('document ' .. documentId .. ' of ' .. documentCompany .. ' is already stored')
  end
  if redis.call('HEXISTS', pk(partner, 'co'), companyId) == 1 then
    redis.call('HSET', pk(partner, 'co'), companyId, ARGV[9])
    redis.call('HSET', pk(partner, 'co:f'), companyId, ARGV[10] .. '\\0' .. ARGV[11])
  end
  if hasDocument then
    local seq = redis.call('HINCRBY', pk(partner, 'meta'), 'seq', 1)
    redis.call('HSET', pk(partner, 'doc'), documentField, ARGV[15])
    redis.call('HSET', pk(partner, 'doc:file'), documentField, ARGV[16])
    redis.call('ZADD', pk(partner, 'doc:seq'), 0, documentCompany .. '\\0' .. pad(seq) .. '\\0' .. documentId)
    redis.call('HSET', K.docs, documentField, partner)
    touchPartner(partner)
  end
  storeEvents(17, now)
end
if nextKind == 'done' then dropStep(id) elseif nextKind == 'due' then releaseStep(id, nextDue) end
return 1
`,
  },
  timelineNextDueAt: {
    lua: `
local free = redis.call('ZRANGE', K.stepFree, 0, 0, 'WITHSCORES')
local earliest = free[2] and tonumber(free[2])
-- A held step is claimable once its lease ends and not before it is due; held steps are the few in progress.
local held = redis.call('ZRANGE', K.stepHeld, 0, -1, 'WITHSCORES')
for i = 1, #held, 2 do
  local at = math.max(tonumber(redis.call('HGET', K.stepDue, held[i])) or 0, tonumber(held[i + 1]))
  if not earliest or at < earliest then earliest = at end
end
return earliest or false
`,
  },
};

export function redisTimeline(scripts: ScriptRunner, options: StoreOptions): FormationTimeline {
  return {
    async insert(partnerId, company: Company, dueAt) {
      await scripts.run('timelineInsert', [partnerId, company.serviceCompanyId, company.serviceCustomerId, company.status, company.entityType, JSON.stringify(company), dueAt]);
    },
    async claimDue(now, leaseMs, limit) {
      // One random base per call; each claim's token adds its index, so tokens stay unguessable and distinct.
      const flat = asArray(await scripts.run('timelineClaimDue', [now, leaseMs, limit, newClaimToken()]));
      const claims: StepClaim[] = [];
      for (let i = 0; i + 3 < flat.length; i += 4) {
        claims.push({ partnerId: asText(flat[i]), companyId: asText(flat[i + 1]), token: asText(flat[i + 2]), dueAt: Number(flat[i + 3]) });
      }
      return claims;
    },
    async claim(partnerId, companyId, now, leaseMs) {
      const token = newClaimToken();
      const [outcome, dueAt] = asArray(await scripts.run('timelineClaim', [partnerId, companyId, now, leaseMs, token]));
      if (outcome === 'none' || outcome === 'busy') return outcome;
      return { partnerId, companyId, token, dueAt: Number(dueAt) };
    },
    async commit(claim, change, next, now) {
      const args = [claim.companyId, claim.token, now, claim.partnerId, ...nextArgs(next), ...changeArgs(change, now, options)];
      return Number(await scripts.run('timelineCommit', args)) === 1;
    },
    async nextDueAt() {
      const at = await scripts.run('timelineNextDueAt', []);
      return at === null ? undefined : Number(at);
    },
  };
}

function nextArgs(next: NextStep): ScriptArg[] {
  if ('done' in next) return ['done', 0];
  if ('dueAt' in next) return ['due', next.dueAt];
  return ['keep', 0];
}

function changeArgs(change: CompanyChange | undefined, now: number, options: StoreOptions): ScriptArg[] {
  if (!change) return ['0'];
  const { company, document } = change;
  const companyArgs = [company.serviceCompanyId, JSON.stringify(company), company.status, company.entityType];
  const documentArgs = document
    ? ['1', document.document.serviceCompanyId, document.document.documentId, JSON.stringify(document.document), asBuffer(document.file)]
    : ['0', '', '', '', ''];
  return ['1', ...companyArgs, ...documentArgs, ...encodeEvents(change.events, now, options)];
}
