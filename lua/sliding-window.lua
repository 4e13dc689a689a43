--[[
  slidingWindow: two epoch-aligned counters; the estimate is prev * (1 - elapsed / window) + curr,
  compared in integers. Twin of packages/core/src/algorithms/sliding-window.ts.
  KEY   hash { start = current window start (epoch ms), curr = its count, prev = the previous window's }
  p     { limit, window (ms) }
]]
--- @include "helpers"
NPARAMS.slidingWindow = 2
LOADERS.slidingWindow = function()
  -- The counters as seen at now: start, elapsed, curr, prev. A clock that went backwards stays in the
  -- stored window, as if no time had passed in it.
  local function view(stored, now, window)
    local start, curr, prev = stored[1], stored[2] or 0, stored[3] or 0
    local aligned = now - (now % window)
    if start == nil then return aligned, now - aligned, 0, 0 end
    if aligned <= start then return start, math.max(0, now - start), curr, prev end
    local rolled = 0
    if aligned - start == window then rolled = curr end
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

  return {
    decide = function(key, now, cost, _, p)
      local limit, window = p[1], p[2]
      local start, elapsed, curr, prev = view(hash_numbers(key, 'start', 'curr', 'prev'), now, window)
      local weighted = prev * (window - elapsed)
      local allowed = curr + cost <= limit and weighted <= (limit - curr - cost) * window
      local used, retry_after = curr, 0
      if allowed then
        used = curr + cost
      else
        retry_after = first_fit(start, curr, prev, cost, limit, window) - now
      end
      local reset_at = now
      if used > 0 then reset_at = start + 2 * window elseif prev > 0 then reset_at = start + window end
      local remaining = math.max(0, math.floor(((limit - used) * window - weighted) / window))
      local outcome = { allowed and 1 or 0, limit, remaining, reset_at, retry_after, 0 }
      return outcome, function()
        redis.call('HSET', key, 'start', start, 'curr', used, 'prev', prev)
        redis.call('PEXPIRE', key, ttl_ms(reset_at, now))
      end
    end,
    refund = function(key, now, cost, _, p)
      local stored = hash_numbers(key, 'start', 'curr', 'prev')
      if stored[1] == nil then return end
      local start, _, curr, prev = view(stored, now, p[2])
      redis.call('HSET', key, 'start', start, 'curr', math.max(0, curr - cost), 'prev', prev)
    end,
  }
end
