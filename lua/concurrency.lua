--[[
  concurrency: a cap on requests in flight; each unit holds a lease until released or expired.
  Twin of packages/core/src/algorithms/concurrency.ts.
  KEY   sorted set, score = lease expiry (epoch ms), member = request id .. ':' .. i (i = 0..cost-1)
  p     { max, lease (ms) }
  refund releases the leases of the request id. Leases with score <= now have expired; scores are
  integers, so the live ones are those >= now + 1.
]]
--- @include "block"
NPARAMS.concurrency = 2
LOADERS.concurrency = function()
  -- A lease expiry as stored; one no lease can have written resets the key (see hash_numbers).
  local function expiry(key, raw)
    if raw == nil then return nil end
    local score = stored_number(raw)
    if score == nil then reset_key(key) end
    return score
  end

  -- The latest live expiry among leases other than `skip` (members this request renews), or nil.
  local function latest_expiry(key, now, skip, skipped)
    local top = zset_read(key, {}, 'ZREVRANGEBYSCORE', '+inf', now + 1, 'WITHSCORES', 'LIMIT', 0, skipped + 1)
    for i = 1, #top, 2 do
      if not skip[top[i]] then return expiry(key, top[i + 1]) end
    end
    return nil
  end

  return {
    hash = false,
    decide = function(key, now, cost, id, p)
      local max, lease = p[1], p[2]
      local blocked = zset_blocked_until(key)
      if blocked and blocked > now then return false, 0, blocked, blocked - now, true end
      local count = zcount_from(key, now + 1)
      local allowed = count + cost <= max
      local used, retry_after, skip, skipped = count, 0, {}, 0
      if allowed then
        -- Re-using a request id renews its leases rather than adding more.
        local renewed = 0
        for i = 0, cost - 1 do
          local member = id .. ':' .. i
          skip[member], skipped = true, skipped + 1
          local score = tonumber(zset_read(key, false, 'ZSCORE', member))
          if score ~= nil and score > now then renewed = renewed + 1 end
        end
        used = count + cost - renewed
      else
        -- The (count + cost - max)-th lease to expire is the last one that has to go.
        local must_expire = zset_read(key, {}, 'ZRANGEBYSCORE', now + 1, '+inf', 'WITHSCORES', 'LIMIT', count + cost - max - 1, 1)
        -- A reset key is empty from the next call on; this one errs long.
        retry_after = expiry(key, must_expire[2]) or (now + lease)
        retry_after = retry_after - now
      end
      local latest = latest_expiry(key, now, skip, skipped)
      if allowed and cost > 0 and (latest == nil or latest < now + lease) then latest = now + lease end
      return allowed, max - used, latest or now, retry_after
    end,
    write = function(key, now, cost, _, id, p, reset_at)
      -- From 0: a block's members have negative scores and outlive the leases.
      redis.call('ZREMRANGEBYSCORE', key, 0, now)
      zadd_members(key, now + p[2], id, cost)
      redis.call('PEXPIRE', key, ttl_ms(reset_at, now))
    end,
    refund = function(key, now, cost, id, _)
      if wrong_type(redis.pcall('ZREMRANGEBYSCORE', key, 0, now)) then return reset_key(key) end
      zrem_members(key, id, cost)
    end,
  }
end
