--[[
  leakyBucket: requests leak out at a constant rate; 'policing' rejects overflow, 'shaping' admits
  with a delay (ms until the units ahead have drained). Twin of
  packages/core/src/algorithms/leaky-bucket.ts, on the engine in bucket.lua.
  KEY   hash { level, at } (see bucket.lua)
  p     { limit = capacity, capacity * units_per_cost, units_per_cost, drain_per_ms, shaping (0|1), reserve }
]]
--- @include "bucket"
NPARAMS.leakyBucket = 6
LOADERS.leakyBucket = function()
  local bucket = load_bucket()
  return {
    hash = true,
    reserve_at = 6,
    decide = function(key, now, cost, _, p, critical)
      return bucket.decide(key, now, cost, p, p[5] == 1, p[6], critical)
    end,
    write = function(key, now, _, _, _, _, reset_at, level, at) bucket.write(key, now, reset_at, level, at) end,
    refund = function(key, now, cost, _, p) bucket.refund(key, now, cost, p) end,
  }
end
