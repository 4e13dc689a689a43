--[[
  Shared helpers, included first by composer.lua. Everything is a local of one chunk: Redis 7
  forbids globals in scripts.

  Every algorithm file declares NPARAMS.kind = N and LOADERS.kind = function() ... end. The loader
  runs only when a call uses that kind, so a call pays for defining the algorithms it uses and no
  others. It returns { decide, refund }:
    decide(key, now, cost, id, p) -> outcome, write
      outcome = { allowed (0|1), limit, remaining, reset_at, retry_after, delay } (integers)
      write   = function() that stores the new state with a TTL; called only if every layer allows
    refund(key, now, cost, id, p) -> nothing; gives cost units back, never below zero
  p holds the algorithm's integer params, in the order of Algorithm.params in TypeScript.
]]
local NPARAMS, LOADERS = {}, {}

-- Set when a key held something no algorithm could have written (another type, a field that is not
-- a whole number): the key is deleted and decided as new, and the reply says so.
local key_was_reset = false

-- Every number crossing the wire goes through here: a nil or NaN would compare false and silently allow.
local function int_arg(value, what)
  local n = tonumber(value)
  if n == nil or n ~= n or n == math.huge or n == -math.huge or n ~= math.floor(n) then
    error({ err = 'ERR floodgate: ' .. what .. ' is not an integer: ' .. tostring(value) })
  end
  return n
end

-- PEXPIRE with 0 or a negative value deletes the key, and a fraction is an error: always an integer >= 1.
local function ttl_ms(reset_at, now)
  local ttl = math.floor(reset_at - now)
  if ttl < 1 then ttl = 1 end
  return ttl
end

local function reset_key(key)
  redis.call('DEL', key)
  key_was_reset = true
end

-- A stored number the algorithms can have written: a whole number from 0 to 2^53.
local function stored_number(value)
  local n = tonumber(value)
  if n == nil or n ~= n or n < 0 or n > 9007199254740992 or n ~= math.floor(n) then return nil end
  return n
end

-- The hash fields as numbers. A key of another type, or a field that is present but not a whole
-- number >= 0 (nan, inf, 1e300, text), resets the key: it is that key's problem, never a store failure.
local function hash_numbers(key, ...)
  local values = redis.pcall('HMGET', key, ...)
  if values.err then
    reset_key(key)
    return {}
  end
  for i = 1, select('#', ...) do
    local raw = values[i]
    if raw then
      values[i] = stored_number(raw)
      if values[i] == nil then
        reset_key(key)
        return {}
      end
    else
      values[i] = nil
    end
  end
  return values
end

-- A sorted set's live entries from `min` up, or resets a key of another type (see hash_numbers).
local function zcount_from(key, min)
  local count = redis.pcall('ZCOUNT', key, min, '+inf')
  if type(count) == 'table' then
    reset_key(key)
    return 0
  end
  return count
end

-- Members `id:0` .. `id:(count-1)` of a sorted set (sliding log entries, concurrency leases), added
-- or removed in chunks: one call with thousands of arguments would overflow unpack's stack.
local MEMBER_CHUNK = 256

local function zadd_members(key, score, id, count)
  local i = 0
  while i < count do
    local args = {}
    for j = i, math.min(count, i + MEMBER_CHUNK) - 1 do
      args[#args + 1] = score
      args[#args + 1] = id .. ':' .. j
    end
    redis.call('ZADD', key, unpack(args))
    i = i + MEMBER_CHUNK
  end
end

local function zrem_members(key, id, count)
  local i = 0
  while i < count do
    local args = {}
    for j = i, math.min(count, i + MEMBER_CHUNK) - 1 do args[#args + 1] = id .. ':' .. j end
    redis.call('ZREM', key, unpack(args))
    i = i + MEMBER_CHUNK
  end
end
