--[[
  slidingLog: an exact rolling window, one entry per admitted unit of cost. Twin of
  packages/core/src/algorithms/sliding-log.ts.
  KEY   sorted set, score = admission time (epoch ms), member = request id .. ':' .. i (i = 0..cost-1);
        request ids must be unique per consume (the limiter uses a random UUID)
  p     { limit, window (ms) }
  Entries with score <= now - window have left the window; scores are integers, so the live ones
  are those >= now - window + 1.
]]
ALGORITHMS.slidingLog = {
  nparams = 2,
  decide = function(key, now, cost, id, p)
    local limit, window = p[1], p[2]
    local oldest_live = now - window + 1
    local count = redis.call('ZCOUNT', key, oldest_live, '+inf')
    local allowed = count + cost <= limit
    local used, retry_after = count, 0
    if allowed then
      used = count + cost
    else
      -- The (count + cost - limit)-th oldest entry is the last one that has to leave.
      local must_leave = redis.call('ZRANGEBYSCORE', key, oldest_live, '+inf', 'WITHSCORES', 'LIMIT', count + cost - limit - 1, 1)
      retry_after = tonumber(must_leave[2]) + window - now
    end
    local newest = redis.call('ZREVRANGEBYSCORE', key, '+inf', oldest_live, 'WITHSCORES', 'LIMIT', 0, 1)
    local newest_at = tonumber(newest[2])
    if allowed and cost > 0 and (newest_at == nil or newest_at < now) then newest_at = now end
    local reset_at = now
    if newest_at ~= nil then reset_at = newest_at + window end
    local outcome = { allowed and 1 or 0, limit, limit - used, reset_at, retry_after, 0 }
    return outcome, function()
      redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
      zadd_members(key, now, id, cost)
      redis.call('PEXPIRE', key, ttl_ms(reset_at, now))
    end
  end,
  refund = function(key, now, cost, _, p)
    redis.call('ZREMRANGEBYSCORE', key, '-inf', now - p[2])
    -- Rank -0 would be rank 0: removing "the 0 newest" must not remove everything.
    if cost > 0 then redis.call('ZREMRANGEBYRANK', key, -cost, -1) end
  end,
}
