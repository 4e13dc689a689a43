--[[
  slidingWindow: two epoch-aligned counters; the estimate is prev * (1 - elapsed / window) + curr,
  compared in integers. Twin of packages/core/src/algorithms/sliding-window.ts.
  KEY   hash { start = current window start (epoch ms), curr = its count, prev = the previous window's }
  p     { limit, window (ms), reserve (units only critical requests may use) }
]]
--- @include "block"
NPARAMS.slidingWindow = 3
LOADERS.slidingWindow = function()
  -- The counters as seen at now: start, elapsed, curr, prev. A clock that went backwards stays in the
  -- stored window, as if no time had passed in it.
  local function view(stored_start, stored_curr, stored_prev, now, window)
    local curr, prev = stored_curr or 0, stored_prev or 0
    local aligned = now - (now % window)
    if stored_start == nil then return aligned, now - aligned, 0, 0 end
    if aligned <= stored_start then return stored_start, math.max(0, now - stored_start), curr, prev end
    local rolled = 0
    if aligned - stored_start == window then rolled = curr end
    return aligned, now - aligned, 0, rolled
  end

  -- When a denied request first fits: later in this window, or in the next, where curr becomes prev.
  local function first_fit(start, curr, prev, cost, limit, window)
    local room = (limit - curr - cost) * window
    if room >= 0 and prev > 0 and math.floor(room / prev) >= 1 then
      return start + window - math.floor(room / prev)
    end
    local next_room = (limit - cost) * window
    local wait = 0
    if curr ~= 0 then wait = math.max(0, window - math.floor(next_room / curr)) end
    return start + window + wait
  end

  local function reset_of(start, used, prev, now, window)
    if used > 0 then return start + 2 * window end
    if prev > 0 then return start + window end
    return now
  end

  return {
    hash = true,
    reserve_at = 3,
    decide = function(key, now, cost, _, p, critical)
      local limit, window = p[1], p[2]
      if not critical then limit = limit - p[3] end
      local stored_start, stored_curr, stored_prev, bu, bn = hash_numbers(key, 'start', 'curr', 'prev', 'bu', 'bn')
      local blocked = block_end(bu, bn, critical)
      if blocked and blocked > now then return false, 0, blocked, blocked - now, true end
      local start, elapsed, curr, prev = view(stored_start, stored_curr, stored_prev, now, window)
      local weighted = prev * (window - elapsed)
      if curr + cost <= limit and weighted <= (limit - curr - cost) * window then
        local used = curr + cost
        local remaining = math.max(0, math.floor(((limit - used) * window - weighted) / window))
        return true, remaining, reset_of(start, used, prev, now, window), 0, start, used, prev
      end
      local remaining = math.max(0, math.floor(((limit - curr) * window - weighted) / window))
      local retry_after = first_fit(start, curr, prev, cost, limit, window) - now
      return false, remaining, reset_of(start, curr, prev, now, window), retry_after
    end,
    write = function(key, now, _, _, _, _, reset_at, start, used, prev)
      redis.call('HSET', key, 'start', start, 'curr', used, 'prev', prev)
      redis.call('PEXPIRE', key, ttl_ms(reset_at, now))
    end,
    refund = function(key, now, cost, _, p)
      local stored_start, stored_curr, stored_prev = hash_numbers(key, 'start', 'curr', 'prev')
      if stored_start == nil then return end
      local start, _, curr, prev = view(stored_start, stored_curr, stored_prev, now, p[2])
      redis.call('HSET', key, 'start', start, 'curr', math.max(0, curr - cost), 'prev', prev)
    end,
  }
end
