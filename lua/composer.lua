--[[
  Composer: decides a batch of requests in one atomic call, one request after another, as if each
  had its own call. Each request is all-or-nothing over its layers: every layer is decided without
  writing, and only if all allow are the writes applied.
  KEYS     every layer's key, request after request (all on one Cluster slot)
  ARGV[1]  now in epoch ms, or '' for the server's clock (TIME)
  then per request: op ('consume' | 'refund'), request id (sliding log entries and concurrency
           leases are stored under it), n (its number of layers), then per layer: kind, cost, and
           the kind's nparams integer params
  reply    { now, then per request: status, then per layer: allowed, limit, remaining, reset_at,
           retry_after, delay }
           status: 1 all allowed (always, for a refund), 0 denied, plus 2 when a key held something
           no algorithm writes and was reset; -1 when the request failed, followed by the error
           message instead of layer numbers. A refund answers each layer's numbers after it.
]]
--- @include "helpers"
--- @include "fixed-window"
--- @include "sliding-log"
--- @include "sliding-window"
--- @include "token-bucket"
--- @include "leaky-bucket"
--- @include "gcra"
--- @include "concurrency"
local now
if ARGV[1] == '' then
  -- Some managed services, and ACLs without +time, refuse TIME in scripts: say so in a reply the
  -- store recognises (nothing is written yet), so it can send its own clock instead.
  local time = redis.pcall('TIME')
  if time.err then return redis.error_reply('FLOODGATE_NO_TIME ' .. time.err) end
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
else
  now = int_arg(ARGV[1], 'now')
end

local loaded = {}
local function algorithm_of(kind)
  local algorithm = loaded[kind]
  if algorithm == nil then
    local load = LOADERS[kind]
    if load == nil then error({ err = 'ERR floodgate: unknown algorithm ' .. tostring(kind) }) end
    algorithm = load()
    algorithm.nparams = NPARAMS[kind]
    loaded[kind] = algorithm
  end
  return algorithm
end

-- One request; returns its status and layer numbers, or raises (the caller reports it in the reply).
local function run(op, id, layers)
  local out, n = { 1 }, #layers
  if op == 'refund' then
    for i = 1, n do
      local layer = layers[i]
      layer.algorithm.refund(layer.key, now, layer.cost, id, layer.p)
      local outcome = layer.algorithm.decide(layer.key, now, 0, id, layer.p)
      for j = 1, 6 do out[#out + 1] = outcome[j] end
    end
    return out
  end
  if op ~= 'consume' then error({ err = 'ERR floodgate: unknown operation ' .. tostring(op) }) end
  local writes, all_allowed = {}, true
  for i = 1, n do
    local layer = layers[i]
    local outcome, write = layer.algorithm.decide(layer.key, now, layer.cost, id, layer.p)
    if outcome[1] == 0 then all_allowed = false end
    writes[i] = write
    for j = 1, 6 do out[#out + 1] = outcome[j] end
  end
  if all_allowed then
    for i = 1, n do writes[i]() end
    return out
  end
  out[1] = 0
  -- A layer that would have allowed is not charged when another denies: report its uncharged numbers.
  for i = 1, n do
    local base = 1 + (i - 1) * 6
    if out[base + 1] == 1 then
      local layer = layers[i]
      local outcome = layer.algorithm.decide(layer.key, now, 0, id, layer.p)
      for j = 1, 6 do out[base + j] = outcome[j] end
    end
  end
  return out
end

local reply, cursor, key_base = { now }, 2, 0
while cursor <= #ARGV do
  local op, id = ARGV[cursor], ARGV[cursor + 1]
  local n = int_arg(ARGV[cursor + 2], 'layer count')
  cursor = cursor + 3
  local layers = {}
  for i = 1, n do
    local kind = ARGV[cursor]
    local algorithm = algorithm_of(kind)
    local p = {}
    for j = 1, algorithm.nparams do p[j] = int_arg(ARGV[cursor + 1 + j], kind .. ' param ' .. j) end
    layers[i] = { algorithm = algorithm, cost = int_arg(ARGV[cursor + 1], 'cost'), p = p, key = KEYS[key_base + i] }
    cursor = cursor + 2 + algorithm.nparams
  end
  key_base = key_base + n
  if key_base > #KEYS then return redis.error_reply('ERR floodgate: more layers than keys') end
  key_was_reset = false
  local ok, out = pcall(run, op, id, layers)
  if ok then
    if key_was_reset then out[1] = out[1] + 2 end
    for j = 1, #out do reply[#reply + 1] = out[j] end
  else
    reply[#reply + 1] = -1
    reply[#reply + 1] = type(out) == 'table' and tostring(out.err) or tostring(out)
  end
end
if key_base ~= #KEYS then return redis.error_reply('ERR floodgate: layer count does not match the number of keys') end
return reply
