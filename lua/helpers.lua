--[[
  Shared helpers, included first by composer.lua. Everything is a local of one chunk: Redis 7
  forbids globals in scripts.

  Every algorithm file declares NPARAMS.kind = N and LOADERS.kind = function() ... end. The loader
  runs only when a call uses that kind, so a call pays for defining the algorithms it uses and no
  others. It returns a table: `hash` (true when the key is a hash, false for a sorted set),
  `reserve_at` (the index of the reserve in p, for the algorithms that take one) and three
  functions; p holds the algorithm's integer params, in the order of Algorithm.params in
  TypeScript:
    decide(key, now, cost, id, p, critical) -> allowed, remaining, reset_at, wait, a, b, c
      allowed is a boolean; the numbers are integers; wait is the shaping delay when allowed and
      the retry-after when denied (always >= 1 then); a, b, c is the state to write if every layer
      of the request allows. A request that is not `critical` may not use the algorithm's reserve
      (its last param, where it has one). A blocked key denies until its block ends (block.lua);
      a block for normal requests only does not hold a critical one.
    write(key, now, cost, cost_arg, id, p, reset_at, a, b, c) stores that state with a TTL;
      cost_arg is the cost as it came in ARGV, to write without turning a number into text again
    refund(key, now, cost, id, p) gives cost units back, never below zero
  Decisions return values rather than tables or closures: a batch of requests makes no garbage
  per layer.
]]
local NPARAMS, LOADERS = {}, {}

-- Set when a key held something no algorithm could have written (another type, a field that is not
-- a whole number, state no arithmetic can answer exactly): the key is deleted and decided as new,
-- and the reply says so.
local key_was_reset = false

-- Set for a peek: nothing may be written, not even the deletion of a bad key. A bad key is then
-- only remembered in bad_keys (per request), and every read of it answers as for an empty key.
local read_only = false
local bad_keys = {}

-- Every number crossing the wire goes through here: a nil or NaN would compare false and silently
-- allow. (inf and nan leave a remainder that is not 0, so one test covers them.)
local function int_arg(value, what)
  local n = tonumber(value)
  if n == nil or n % 1 ~= 0 then
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
  if read_only then
    bad_keys[key] = true
  else
    redis.call('DEL', key)
  end
  key_was_reset = true
end

-- The one place an error reply of redis.pcall is classified. WRONGTYPE: the key holds another type,
-- which is that key's problem (true: the caller resets it). Any other error is the store's (a command
-- or key the ACL user may not use, OOM, READONLY, ...): raised, so the request fails as a store
-- failure and the limiter's failMode decides it; it never reads as an empty key, which would admit.
local function wrong_type(reply)
  if type(reply) ~= 'table' or reply.err == nil then return false end
  if string.sub(reply.err, 1, 9) == 'WRONGTYPE' then return true end
  error(reply)
end

-- A stored number the algorithms can have written: a whole number from 0 to 2^53.
local function stored_number(value)
  local n = tonumber(value)
  if n == nil or n % 1 ~= 0 or n < 0 or n > 9007199254740992 then return nil end
  return n
end

-- Hash fields as numbers (nil when absent), in the order asked. A key of another type, or a field
-- that is present but not a whole number >= 0 (nan, inf, 1e300, text), resets the key: it is that
-- key's problem, never a store failure.
local function hash_numbers(key, ...)
  if bad_keys[key] then return end
  local count = select('#', ...)
  local values = redis.pcall('HMGET', key, ...)
  if wrong_type(values) then
    reset_key(key)
    return
  end
  for i = 1, count do
    local raw = values[i]
    if raw then
      local n = stored_number(raw)
      if n == nil then
        reset_key(key)
        return
      end
      values[i] = n
    else
      values[i] = nil
    end
  end
  return unpack(values, 1, count)
end

-- A read of a sorted set (`command key ...`): `empty` for a key found bad in this request, and a
-- key of another type is reset (see wrong_type).
local function zset_read(key, empty, command, ...)
  if bad_keys[key] then return empty end
  local reply = redis.pcall(command, key, ...)
  if wrong_type(reply) then
    reset_key(key)
    return empty
  end
  return reply
end

-- A sorted set's live entries from `min` up (0 for a key of another type, which is reset).
local function zcount_from(key, min)
  return zset_read(key, 0, 'ZCOUNT', min, '+inf')
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
