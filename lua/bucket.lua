--[[
  The draining-bucket engine shared by tokenBucket, leakyBucket and gcra. Twin of
  packages/core/src/algorithms/draining-bucket.ts.
  KEY   hash { level = integer units held at instant `at`, at = epoch ms }
  p     { limit, capacity (units), units_per_cost, drain_per_ms } (leakyBucket adds shaping 0|1),
        then reserve (cost units only critical requests may use)
  A request of cost n adds n * units_per_cost units; it is admitted while the level stays within
  capacity. drain_per_ms units leave every millisecond.
]]
--- @include "block"
local bucket_engine

-- Defined on first use, like an algorithm: the three bucket algorithms share it.
local function load_bucket()
  if bucket_engine then return bucket_engine end

  -- The level at now. A clock that went backwards drains nothing: the level stays pinned at `at`
  -- (an empty bucket has nothing to pin).
  local function drained(level, at, now, drain)
    if level == nil or at == nil or level == 0 then return 0, now end
    local elapsed = now - at
    if elapsed <= 0 then return level, at end
    if elapsed >= math.ceil(level / drain) then return 0, now end
    return level - elapsed * drain, now
  end

  -- A critical request may use the reserve (its units are in the capacity) and passes a block for
  -- normal requests only.
  local function decide(key, now, cost, p, shaping, reserve, critical)
    local units_per_cost, drain = p[3], p[4]
    local capacity = p[2]
    if not critical then capacity = capacity - reserve * units_per_cost end
    local stored_level, stored_at, bu, bn = hash_numbers(key, 'level', 'at', 'bu', 'bn')
    local blocked = block_end(bu, bn, critical)
    if blocked and blocked > now then return false, 0, blocked, blocked - now, true end
    local level, at = drained(stored_level, stored_at, now, drain)
    local added = cost * units_per_cost
    local ahead = at - now
    if level + added <= capacity then
      local new_level = level + added
      local delay = 0
      if shaping then delay = ahead + math.ceil(level / drain) end
      local reset_at = at + math.ceil(new_level / drain)
      return true, math.floor((capacity - new_level) / units_per_cost), reset_at, delay, new_level, at
    end
    local reset_at = at + math.ceil(level / drain)
    local retry_after = ahead + math.ceil((level + added - capacity) / drain)
    return false, math.max(0, math.floor((capacity - level) / units_per_cost)), reset_at, retry_after
  end

  local function write(key, now, reset_at, level, at)
    redis.call('HSET', key, 'level', level, 'at', at)
    redis.call('PEXPIRE', key, ttl_ms(reset_at, now))
  end

  -- The key keeps its TTL: a lower level drains sooner than the expiry already set.
  local function refund(key, now, cost, p)
    local stored_level, stored_at = hash_numbers(key, 'level', 'at')
    if stored_level == nil or stored_at == nil then return end
    local level, at = drained(stored_level, stored_at, now, p[4])
    redis.call('HSET', key, 'level', math.max(0, level - cost * p[3]), 'at', at)
  end

  bucket_engine = { decide = decide, write = write, refund = refund }
  return bucket_engine
end
