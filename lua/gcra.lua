--[[
  gcra: redis-cell's generic cell rate algorithm, `rate` per `period`, burst + 1 at once. The level
  is (TAT - now) * rate / gcd(period, rate). Twin of packages/core/src/algorithms/gcra.ts, on the
  engine in bucket.lua.
  KEY   hash { level, at } (see bucket.lua)
  p     { limit = burst + 1, (burst + 1) * units_per_cost, units_per_cost = period / g, drain_per_ms = rate / g, reserve }
]]
--- @include "bucket"
NPARAMS.gcra = 5
LOADERS.gcra = function()
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
