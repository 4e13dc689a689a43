--[[
  Shared helpers. The build concatenates, in this order: helpers.lua, bucket.lua, every
  algorithm file, composer.lua, into one script (and one Redis Functions library). Everything is a
  local of that one chunk: Redis 7 forbids globals in scripts.

  Every algorithm registers itself in ALGORITHMS[kind] = { nparams, decide, refund }:
    decide(key, now, cost, id, p) -> outcome, write
      outcome = { allowed (0|1), limit, remaining, reset_at, retry_after, delay } (integers)
      write   = function() that stores the new state with a TTL; called only if every layer allows
    refund(key, now, cost, id, p) -> nothing; gives cost units back, never below zero
  p holds the algorithm's integer params, in the order of Algorithm.params in TypeScript.
]]
local ALGORITHMS = {}

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

local function hash_numbers(key, ...)
  local values = redis.call('HMGET', key, ...)
  for i = 1, #values do values[i] = tonumber(values[i]) end
  return values
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
