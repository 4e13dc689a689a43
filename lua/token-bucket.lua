--[[
  tokenBucket: capacity tokens refilled continuously; the level is tokens spent. Twin of
  packages/core/src/algorithms/token-bucket.ts, on the engine in bucket.lua.
  KEY   hash { level, at } (see bucket.lua)
  p     { limit = capacity, capacity * units_per_cost, units_per_cost, drain_per_ms, reserve }
]]
--- @include "bucket"
NPARAMS.tokenBucket = 5
LOADERS.tokenBucket = function()
  local bucket = load_bucket()
  return {
    hash = true,
    reserve_at = 5,
    decide = function(key, now, cost, _, p, critical)
      return bucket.decide(key, now, cost, p, false, p[5], critical)
    end,
    write = function(key, now, _, _, _, _, reset_at, level, at) bucket.write(key, now, reset_at, level, at) end,
    refund = function(key, now, cost, _, p) bucket.refund(key, now, cost, p) end,
  }
end
