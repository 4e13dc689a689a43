--[[
  fixedWindow: units counted per epoch-aligned window. Twin of
  packages/core/src/algorithms/fixed-window.ts.
  KEY   hash { start = window start (epoch ms), count = units counted in it }
  p     { limit, window (ms), reserve (units only critical requests may use) }
  A window's first write sets both fields and the TTL, which ends with the window; later writes
  in the same window only add their cost to the count. (Formatting numbers as text is what costs
  most in a script: this writes none after the first.)
]]
--- @include "block"
NPARAMS.fixedWindow = 3
LOADERS.fixedWindow = function()
  local function window_start(start, now, window)
    local aligned = now - (now % window)
    if start ~= nil and start > aligned then return start end
    return aligned
  end

  return {
    hash = true,
    reserve_at = 3,
    decide = function(key, now, cost, _, p, critical)
      local limit, window = p[1], p[2]
      if not critical then limit = limit - p[3] end
      local stored_start, stored_count, bu, bn = hash_numbers(key, 'start', 'count', 'bu', 'bn')
      local blocked = block_end(bu, bn, critical)
      if blocked and blocked > now then return false, 0, blocked, blocked - now, true end
      local start = window_start(stored_start, now, window)
      local count = 0
      if stored_start == start then count = stored_count or 0 end
      local reset_at = start + window
      if count + cost <= limit then
        return true, limit - count - cost, reset_at, 0, start, count + cost, stored_start == start
      end
      return false, math.max(0, limit - count), reset_at, reset_at - now
    end,
    write = function(key, now, cost, cost_arg, _, _, reset_at, start, count, same_window)
      if same_window then
        if cost > 0 then redis.call('HINCRBY', key, 'count', cost_arg) end
        return
      end
      redis.call('HSET', key, 'start', start, 'count', count)
      redis.call('PEXPIRE', key, ttl_ms(reset_at, now))
    end,
    refund = function(key, now, cost, _, p)
      local start, count = hash_numbers(key, 'start', 'count')
      if start == nil or start ~= window_start(start, now, p[2]) then return end
      redis.call('HSET', key, 'count', math.max(0, (count or 0) - cost))
    end,
  }
end
