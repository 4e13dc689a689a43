--[[
  fixedWindow: units counted per epoch-aligned window. Twin of
  packages/core/src/algorithms/fixed-window.ts.
  KEY   hash { start = window start (epoch ms), count = units counted in it }
  p     { limit, window (ms) }
]]
--- @include "helpers"
NPARAMS.fixedWindow = 2
LOADERS.fixedWindow = function()
  local function window_start(start, now, window)
    local aligned = now - (now % window)
    if start ~= nil and start > aligned then return start end
    return aligned
  end

  return {
    decide = function(key, now, cost, _, p)
      local limit, window = p[1], p[2]
      local stored = hash_numbers(key, 'start', 'count')
      local start = window_start(stored[1], now, window)
      local count = 0
      if stored[1] == start then count = stored[2] or 0 end
      local allowed = count + cost <= limit
      local used, retry_after = count, start + window - now
      if allowed then used, retry_after = count + cost, 0 end
      local reset_at = start + window
      local outcome = { allowed and 1 or 0, limit, limit - used, reset_at, retry_after, 0 }
      return outcome, function()
        redis.call('HSET', key, 'start', start, 'count', used)
        redis.call('PEXPIRE', key, ttl_ms(reset_at, now))
      end
    end,
    refund = function(key, now, cost, _, p)
      local stored = hash_numbers(key, 'start', 'count')
      if stored[1] == nil or stored[1] ~= window_start(stored[1], now, p[2]) then return end
      redis.call('HSET', key, 'count', math.max(0, (stored[2] or 0) - cost))
    end,
  }
end
