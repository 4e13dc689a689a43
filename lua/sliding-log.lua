--[[
  slidingLog: an exact rolling window, one entry per admitted unit of cost. Twin of
  packages/core/src/algorithms/sliding-log.ts.
  KEY   sorted set, score = admission time (epoch ms), member = request id .. ':' .. i (i = 0..cost-1);
        request ids must be unique per consume (the limiter makes one per request)
  p     { limit, window (ms) }
  Entries with score <= now - window have left the window; scores are integers, so the live ones
  are those >= now - window + 1.
]]
--- @include "block"
NPARAMS.slidingLog = 2
LOADERS.slidingLog = function()
  -- The score of the first entry of a ZRANGEBYSCORE ... WITHSCORES reply; a score no admission can
  -- have written resets the key (see hash_numbers).
  local function first_score(key, reply)
    if reply[2] == nil then return nil end
    local score = stored_number(reply[2])
    if score == nil then reset_key(key) end
    return score
  end

  return {
    hash = false,
    decide = function(key, now, cost, _, p)
      local limit, window = p[1], p[2]
      local blocked = zset_blocked_until(key)
      if blocked and blocked > now then return false, 0, blocked, blocked - now, true end
      local oldest_live = now - window + 1
      local count = zcount_from(key, oldest_live)
      local allowed = count + cost <= limit
      local used, retry_after = count, 0
      if allowed then
        used = count + cost
      else
        -- The (count + cost - limit)-th oldest entry is the last one that has to leave.
        local must_leave = first_score(key, zset_read(key, {}, 'ZRANGEBYSCORE', oldest_live, '+inf', 'WITHSCORES', 'LIMIT', count + cost - limit - 1, 1))
        -- A reset key is empty from the next call on; this one errs long.
        retry_after = window
        if must_leave ~= nil then retry_after = must_leave + window - now end
      end
      local newest_at = first_score(key, zset_read(key, {}, 'ZREVRANGEBYSCORE', '+inf', oldest_live, 'WITHSCORES', 'LIMIT', 0, 1))
      if allowed and cost > 0 and (newest_at == nil or newest_at < now) then newest_at = now end
      local reset_at = now
      if newest_at ~= nil then reset_at = newest_at + window end
      return allowed, limit - used, reset_at, retry_after
    end,
    write = function(key, now, cost, _, id, p, reset_at)
      -- From 0: a block's members have negative scores and outlive the window.
      redis.call('ZREMRANGEBYSCORE', key, 0, now - p[2])
      zadd_members(key, now, id, cost)
      redis.call('PEXPIRE', key, ttl_ms(reset_at, now))
    end,
    refund = function(key, now, cost, _, p)
      if wrong_type(redis.pcall('ZREMRANGEBYSCORE', key, 0, now - p[2])) then return reset_key(key) end
      -- The newest entries: the highest ranks (a block's member ranks lowest, and is never one of
      -- them). Rank -0 would be rank 0: removing "the 0 newest" must not remove everything.
      local n = math.min(cost, redis.call('ZCOUNT', key, 0, '+inf'))
      if n > 0 then redis.call('ZREMRANGEBYRANK', key, -n, -1) end
    end,
  }
end
