/**
 * Lua helpers every script of the Redis backend starts with (after the key names).
 *
 * Numbers are formatted with string.format, never concatenated: Lua's own conversion keeps 14 digits, and `never`
 * (8.64e15) has 16. Positions are zero-padded to 16 digits so that lexicographic order is numeric order (16 digits
 * hold Number.MAX_SAFE_INTEGER).
 */
export const commonLua = `
local function int(n) return string.format('%d', n) end
local function pad(n) return string.format('%016d', n) end
local function num(s) return tonumber(s) or 0 end

local function split(s)
  local parts, start = {}, 1
  while true do
    local at = string.find(s, '\\0', start, true)
    if not at then parts[#parts + 1] = string.sub(s, start) return parts end
    parts[#parts + 1] = string.sub(s, start, at - 1)
    start = at + 1
  end
end

-- unpack() is limited by Lua's C stack, so bulk commands go in slices.
local function inSlices(command, key, items)
  for first = 1, #items, 1000 do
    redis.call(command, key, unpack(items, first, math.min(first + 999, #items)))
  end
end

local function touchPartner(partner) redis.call('SADD', K.partners, partner) end
`;
