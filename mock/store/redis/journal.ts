/**
 * The request journal in Redis: entries by id (a sorted set), their JSON, and a compact filter line per entry
 * (status, partner, operation) so that a page is filtered inside Redis without parsing JSON. The byte budget
 * counts each entry's JSON as stored, and the oldest entries go first.
 */
import type { JournalPage, RequestJournalRecords, RequestRecord, StoreOptions } from '../store.ts';
import { asArray, asText, type ScriptArg, type ScriptRunner, type ScriptSource } from './scripts.ts';

/** Also used by reset, which drops a partner's entries. */
export const journalLua = `
local function forgetJournalEntry(id)
  local bytes = redis.call('HSTRLEN', K.jrJson, id)
  local filter = redis.call('HGET', K.jrFilter, id)
  redis.call('ZREM', K.jr, id)
  redis.call('HDEL', K.jrJson, id)
  redis.call('HDEL', K.jrFilter, id)
  local partnerTag = filter and split(filter)[2] or '-'
  if string.sub(partnerTag, 1, 1) == '=' then redis.call('ZREM', pk(string.sub(partnerTag, 2), 'jr'), id) end
  return bytes
end
`;

export const journalScripts: Record<string, ScriptSource> = {
  journalAppend: {
    needs: [journalLua],
    lua: `
local maxBytes, count = tonumber(ARGV[1]), tonumber(ARGV[2])
local added = 0
for r = 0, count - 1 do
  local json, filter, hasPartner, partner = ARGV[3 + r * 4], ARGV[4 + r * 4], ARGV[5 + r * 4], ARGV[6 + r * 4]
  local id = redis.call('HINCRBY', K.counter, 'journal', 1)
  redis.call('ZADD', K.jr, id, id)
  redis.call('HSET', K.jrJson, id, json)
  redis.call('HSET', K.jrFilter, id, filter)
  if hasPartner == '1' then
    redis.call('ZADD', pk(partner, 'jr'), id, id)
    touchPartner(partner)
  end
  added = added + #json
end
local total = redis.call('INCRBY', K.jrBytes, added)
while total > maxBytes do
  local oldest = redis.call('ZRANGE', K.jr, 0, 255)
  if #oldest == 0 then total = 0 break end
  for _, id in ipairs(oldest) do
    if total <= maxBytes then break end
    total = total - forgetJournalEntry(id)
  end
end
redis.call('SET', K.jrBytes, total)
return 1
`,
  },
  journalPage: {
    lua: `
local before, limit, operation, status, partner = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4], ARGV[5]
local newest = before == '' and '+inf' or '(' .. before
-- One more than may be examined: whether it exists says if there is an older page.
local ids = redis.call('ZREVRANGEBYSCORE', K.jr, newest, '-inf', 'LIMIT', 0, limit * 10 + 1)
local found, examined, lastExamined = {}, 0, false
while examined < #ids and examined < limit * 10 and #found < limit * 2 do
  examined = examined + 1
  local id = ids[examined]
  lastExamined = id
  local filter = split(redis.call('HGET', K.jrFilter, id) or '')
  if (status == '' or filter[1] == status) and (partner == '' or filter[2] == partner) and (operation == '' or filter[3] == operation) then
    found[#found + 1] = id
    found[#found + 1] = redis.call('HGET', K.jrJson, id)
  end
end
local reply = { examined < #ids and 1 or 0, lastExamined }
for _, value in ipairs(found) do reply[#reply + 1] = value end
return reply
`,
  },
};

/** Absent and null both read as `-`; a value as `=value`, so no value can pass for a missing one. */
const tag = (value: string | null | undefined): string => (value === null || value === undefined ? '-' : `=${value}`);

export function redisJournal(scripts: ScriptRunner, options: StoreOptions): RequestJournalRecords {
  return {
    async append(records) {
      if (records.length === 0) return;
      const args: ScriptArg[] = [options.journalMaxBytes, records.length];
      for (const record of records) {
        const filter = `${record.status}\u0000${tag(record.partnerId)}\u0000${tag(record.operationId)}`;
        args.push(JSON.stringify(record), filter, record.partnerId === undefined ? '0' : '1', record.partnerId ?? '');
      }
      await scripts.run('journalAppend', args);
    },
    async page({ limit, before, operationId, status, partnerId }): Promise<JournalPage> {
      const filters = [operationId === undefined ? '' : tag(operationId), status === undefined ? '' : String(status), partnerId === undefined ? '' : tag(partnerId)];
      const [more, lastExamined, ...found] = asArray(await scripts.run('journalPage', [before ?? '', limit, ...filters]));
      const entries: JournalPage['entries'] = [];
      for (let i = found.length - 2; i >= 0; i -= 2) entries.push({ ...(JSON.parse(asText(found[i + 1])) as RequestRecord), id: Number(found[i]) });
      const next = Number(more) === 1 && lastExamined !== null && lastExamined !== undefined ? Number(lastExamined) : undefined;
      return { entries, ...(next === undefined ? {} : { next }) };
    },
  };
}
