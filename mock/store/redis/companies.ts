/**
 * Companies and documents in Redis, as read by the handlers (the formation timeline writes them: timeline.ts).
 * A customer's companies and a company's documents are ranges of one lexicographic index per partner, so a partner
 * has a fixed set of keys however many customers and companies it has.
 */
import type { Company, Document } from '../../../generated/openapi.js';
import type { CompanyRecords, DocumentRecords, StoredDocument } from '../store.ts';
import { asArray, asBytes, asText, beforePosition, pageOf, positioned, type ScriptRunner, type ScriptSource } from './scripts.ts';

export const companyScripts: Record<string, ScriptSource> = {
  companyGet: {
    lua: `return redis.call('HGET', pk(ARGV[1], 'co'), ARGV[2])`,
  },
  companyList: {
    lua: `
local partner, before, limit = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local customer = ARGV[4] == '1' and ARGV[5] or nil
local status = ARGV[6] == '1' and ARGV[7] or nil
local entityType = ARGV[8] == '1' and ARGV[9] or nil
local companies, wanted = pk(partner, 'co'), (limit + 1) * 2
local rows = {}

local function keep(id)
  if not status and not entityType then return true end
  local attributes = redis.call('HGET', pk(partner, 'co:f'), id)
  if not attributes then return false end
  local parts = split(attributes)
  return (not status or parts[1] == status) and (not entityType or parts[2] == entityType)
end

-- Newest first, a slice at a time: a rare status may mean passing over many companies, but only this partner's.
local slice = (status or entityType) and 100 or (limit + 1)
local function walk(fetch)
  local offset = 0
  while true do
    local batch = fetch(offset)
    if #batch == 0 then return end
    for _, entry in ipairs(batch) do
      if keep(entry[2]) then
        rows[#rows + 1] = entry[1]
        rows[#rows + 1] = redis.call('HGET', companies, entry[2])
        if #rows >= wanted then return end
      end
    end
    offset = offset + #batch
  end
end

if customer then
  local prefix = customer .. '\\0'
  walk(function(offset)
    local members = redis.call('ZREVRANGEBYLEX', pk(partner, 'co:cus'), '(' .. prefix .. pad(before), '[' .. prefix, 'LIMIT', offset, slice)
    local batch = {}
    for i, member in ipairs(members) do batch[i] = { tonumber(string.sub(member, #prefix + 1, #prefix + 16)), string.sub(member, #prefix + 18) } end
    return batch
  end)
else
  walk(function(offset)
    local ids = redis.call('ZREVRANGEBYSCORE', pk(partner, 'co:seq'), '(' .. ARGV[2], '-inf', 'WITHSCORES', 'LIMIT', offset, slice)
    local batch = {}
    for i = 1, #ids, 2 do batch[#batch + 1] = { tonumber(ids[i + 1]), ids[i] } end
    return batch
  end)
end
return rows
`,
  },
  companiesOfCustomer: {
    lua: `
local partner, customer, limit = ARGV[1], ARGV[2], tonumber(ARGV[3])
if limit <= 0 then return {} end
local prefix = customer .. '\\0'
local members = redis.call('ZREVRANGEBYLEX', pk(partner, 'co:cus'), '(' .. customer .. '\\1', '[' .. prefix, 'LIMIT', 0, limit)
local found = {}
for _, member in ipairs(members) do
  local json = redis.call('HGET', pk(partner, 'co'), string.sub(member, #prefix + 18))
  if json then found[#found + 1] = json end
end
return found
`,
  },
  documentList: {
    lua: `
local partner, company, after, limit = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local prefix = company .. '\\0'
local members = redis.call('ZRANGEBYLEX', pk(partner, 'doc:seq'), '[' .. prefix .. pad(after + 1), '(' .. company .. '\\1', 'LIMIT', 0, limit + 1)
local rows = {}
for _, member in ipairs(members) do
  rows[#rows + 1] = tonumber(string.sub(member, #prefix + 1, #prefix + 16))
  rows[#rows + 1] = redis.call('HGET', pk(partner, 'doc'), prefix .. string.sub(member, #prefix + 18))
end
return rows
`,
  },
  documentGet: {
    lua: `
local partner, field = ARGV[1], ARGV[2] .. '\\0' .. ARGV[3]
if ARGV[4] == '1' then
  -- A signed download names no partner: the ids are the capability.
  partner = redis.call('HGET', K.docs, field)
  if not partner then return false end
end
local json = redis.call('HGET', pk(partner, 'doc'), field)
if not json then return false end
return { json, redis.call('HGET', pk(partner, 'doc:file'), field) }
`,
  },
};

export function redisCompanies(scripts: ScriptRunner): CompanyRecords {
  return {
    async get(partnerId, companyId) {
      const json = await scripts.run('companyGet', [partnerId, companyId]);
      return json === null ? undefined : (JSON.parse(asText(json)) as Company);
    },
    async list(partnerId, filter, page) {
      const optional = (value: string | undefined) => (value === undefined ? ['0', ''] : ['1', value]);
      const args = [partnerId, beforePosition(page.after), page.limit, ...optional(filter.serviceCustomerId), ...optional(filter.status), ...optional(filter.entityType)];
      return pageOf(positioned<Company>(await scripts.run('companyList', args)), page.limit);
    },
    async ofCustomer(partnerId, customerId, limit) {
      return asArray(await scripts.run('companiesOfCustomer', [partnerId, customerId, limit])).map((json) => JSON.parse(asText(json)) as Company);
    },
  };
}

export function redisDocuments(scripts: ScriptRunner): DocumentRecords {
  const read = async (partnerId: string, companyId: string, documentId: string, anyPartner: boolean): Promise<StoredDocument | undefined> => {
    const reply = await scripts.runBinary('documentGet', [partnerId, companyId, documentId, anyPartner ? '1' : '0']);
    if (!Array.isArray(reply)) return undefined;
    return { document: JSON.parse(asText(reply[0])) as Document, file: asBytes(reply[1]) };
  };
  return {
    async list(partnerId, companyId, page) {
      return pageOf(positioned<Document>(await scripts.run('documentList', [partnerId, companyId, page.after ?? 0, page.limit])), page.limit);
    },
    get: (partnerId, companyId, documentId) => read(partnerId, companyId, documentId, false),
    getAnyPartner: (companyId, documentId) => read('', companyId, documentId, true),
  };
}
