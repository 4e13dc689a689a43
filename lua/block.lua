--[[
  Blocks: a penalty (a rule's blockDuration, applied when it denies) or an operator's ban
  (limiter.block). A block lives in the key it blocks, so checking it costs a hash algorithm no
  extra call: hash algorithms keep the time it ends (epoch ms) in field `bu`, sorted-set algorithms
  as member '!b' with that time negated as its score (below every entry, whose scores are times).
  A blocked key denies every request until then (decide returns a fifth value, true, to say the
  denial is a block), and its TTL lasts at least that long. A penalty given to a normal request
  while the reserve still had room holds normal requests only: a hash keeps its end in field `bn`,
  and critical requests are left to the algorithm (sorted-set algorithms have no reserve).
  Penalties in a row (strikes) are counted in a key of their own (the store names it after the
  layer's key, on the same Cluster slot): a hash { n = the count, at = when the last penalty was
  given }, by the script's clock, so the count is the same whichever clock decides; it also expires
  `period` after the last penalty. Only a penalty reads or writes it, so the algorithms' own TTLs
  never cut the count short.
]]
--- @include "helpers"

-- When a sorted set's block ends (nil when it has none; a key of another type is reset).
local function zset_blocked_until(key)
  local score = zset_read(key, false, 'ZSCORE', '!b')
  if type(score) ~= 'string' then return nil end
  local n = tonumber(score)
  if n == nil or n >= 0 then return nil end
  return -n
end

-- When a hash key's block ends for a request of this priority: `bu` holds every request, `bn`
-- normal ones only (nil when neither is set).
local function block_end(bu, bn, critical)
  if critical or bn == nil then return bu end
  if bu == nil or bn > bu then return bn end
  return bu
end

-- Blocks `key` until `until_at` (normal requests only, with normal_only, on a hash); its TTL is
-- made to last at least that long.
local function block_until(key, hash, now, until_at, normal_only)
  if hash then
    redis.call('HSET', key, normal_only and 'bn' or 'bu', until_at)
  else
    redis.call('ZADD', key, -until_at, '!b')
  end
  if redis.call('PTTL', key) < until_at - now then redis.call('PEXPIRE', key, until_at - now) end
end

-- An algorithm's write sets the key's TTL for its own state; a block for normal requests (which
-- critical requests pass, and write) must outlive it.
local function keep_normal_block(key, now)
  local bn = tonumber(redis.call('HGET', key, 'bn'))
  if bn and bn > now and redis.call('PTTL', key) < bn - now then redis.call('PEXPIRE', key, bn - now) end
end

-- Lifts the block and forgets the strikes (strikes_key is nil for a layer without a penalty).
local function unblock(key, strikes_key, hash)
  if hash then
    redis.call('HDEL', key, 'bu', 'bn')
  else
    redis.call('ZREM', key, '!b')
  end
  if strikes_key then redis.call('DEL', strikes_key) end
end

-- Deletes the key (its state and block) and its strikes.
local function reset(key, strikes_key)
  redis.call('DEL', key)
  if strikes_key then redis.call('DEL', strikes_key) end
end

-- A penalty: blocked for `base` ms, doubled for each earlier penalty less than `period` ago (when
-- period > 0), at most `max`, and at least until `at_least_until` (when the algorithm itself would
-- admit again: a client that waits out its Retry-After is never penalised again for it); for
-- normal requests only with normal_only. Returns when the block ends.
local function penalize(key, strikes_key, hash, now, base, period, max, at_least_until, normal_only)
  local duration = base
  if period > 0 then
    -- A penalty less than `period` after the previous one is a repeat (a clock that went back too).
    local strikes = 1
    local last = redis.pcall('HMGET', strikes_key, 'n', 'at')
    if wrong_type(last) then
      redis.call('DEL', strikes_key)
    else
      local count, at = stored_number(last[1]), stored_number(last[2])
      if count and at and now - at < period then strikes = count + 1 end
    end
    redis.call('HSET', strikes_key, 'n', strikes, 'at', now)
    redis.call('PEXPIRE', strikes_key, period)
    for _ = 2, strikes do
      if duration >= max then break end
      duration = duration * 2
    end
  end
  if duration > max then duration = max end
  local until_at = math.max(now + duration, at_least_until)
  block_until(key, hash, now, until_at, normal_only)
  return until_at
end
