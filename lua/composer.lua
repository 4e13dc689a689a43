--[[
  Composer: decides a batch of requests in one atomic call, one request after another, as if each
  had its own call. Each request is all-or-nothing over its layers: every layer is decided without
  writing, and only if all allow are the writes applied.
  KEYS     every layer's key, request after request (all on one Cluster slot)
  ARGV[1]  now in epoch ms, or '' for the server's clock (TIME)
  ARGV[2]  s, the number of algorithm specs; then each spec: kind, then the kind's nparams params
  then per request: n, its number of layers (-n for a refund), its request id (sliding log
           entries and concurrency leases are stored under it), then per layer: spec number
           (1-based), cost
  reply    { now, then per request: status, then per layer: remaining, reset_at, wait }
           status: 1 all layers allow (always, for a refund), 0 some layer denies, plus 2 when a key
           held something no algorithm writes and was reset; -1 when the request failed, followed by
           the error message instead of layer numbers. wait >= 0: the layer allows, with that
           shaping delay; wait < 0: it denies, and -wait - 1 is its retry-after. A refund answers
           each layer's numbers after it.
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

-- The specs: each algorithm's functions (defined on first use) and its params.
local spec_algorithm, spec_params = {}, {}
local loaded = {}
local cursor = 3
for s = 1, int_arg(ARGV[2], 'spec count') do
  local kind = ARGV[cursor]
  local nparams = NPARAMS[kind]
  if nparams == nil then return redis.error_reply('ERR floodgate: unknown algorithm ' .. tostring(kind)) end
  local algorithm = loaded[kind]
  if algorithm == nil then
    algorithm = LOADERS[kind]()
    loaded[kind] = algorithm
  end
  local p = {}
  for j = 1, nparams do p[j] = int_arg(ARGV[cursor + j], 'param') end
  spec_algorithm[s], spec_params[s] = algorithm, p
  cursor = cursor + 1 + nparams
end

local reply, nreply = { now }, 1

-- Per layer of the request being decided (reused from one request to the next).
local L_spec, L_key, L_cost, L_cost_arg = {}, {}, {}, {}
local L_allowed, L_remaining, L_reset, L_wait, L_a, L_b, L_c = {}, {}, {}, {}, {}, {}, {}

-- One request whose layers are L_*[1..n]; returns its status (the layer numbers are in L_*).
local function run(n, refund, id)
  local all_allowed = true
  for i = 1, n do
    local s = L_spec[i]
    local algorithm, p = spec_algorithm[s], spec_params[s]
    local cost = L_cost[i]
    if refund then
      algorithm.refund(L_key[i], now, cost, id, p)
      cost = 0
    end
    local allowed
    allowed, L_remaining[i], L_reset[i], L_wait[i], L_a[i], L_b[i], L_c[i] = algorithm.decide(L_key[i], now, cost, id, p)
    L_allowed[i] = allowed
    if not allowed then all_allowed = false end
  end
  if refund then return 1 end
  if all_allowed then
    for i = 1, n do
      local s = L_spec[i]
      spec_algorithm[s].write(L_key[i], now, L_cost[i], L_cost_arg[i], id, spec_params[s], L_reset[i], L_a[i], L_b[i], L_c[i])
    end
    return 1
  end
  -- A layer that would have allowed is not charged when another denies: report its uncharged numbers.
  for i = 1, n do
    if L_allowed[i] then
      local s = L_spec[i]
      L_allowed[i], L_remaining[i], L_reset[i], L_wait[i] = spec_algorithm[s].decide(L_key[i], now, 0, id, spec_params[s])
    end
  end
  return 0
end

local nargs, nkeys, key_base = #ARGV, #KEYS, 0
while cursor <= nargs do
  local n = int_arg(ARGV[cursor], 'layer count')
  local refund = n < 0
  if refund then n = -n end
  local id = ARGV[cursor + 1]
  cursor = cursor + 2
  for i = 1, n do
    local s, cost_arg = tonumber(ARGV[cursor]), ARGV[cursor + 1]
    if spec_algorithm[s] == nil then return redis.error_reply('ERR floodgate: no spec ' .. tostring(ARGV[cursor])) end
    L_key[i] = KEYS[key_base + i]
    L_spec[i], L_cost[i], L_cost_arg[i] = s, int_arg(cost_arg, 'cost'), cost_arg
    cursor = cursor + 2
  end
  key_base = key_base + n
  if key_base > nkeys then return redis.error_reply('ERR floodgate: more layers than keys') end
  key_was_reset = false
  local ok, status = pcall(run, n, refund, id)
  if ok then
    if key_was_reset then status = status + 2 end
    nreply = nreply + 1
    reply[nreply] = status
    for i = 1, n do
      local wait = L_wait[i]
      if not L_allowed[i] then wait = -wait - 1 end
      reply[nreply + 1], reply[nreply + 2], reply[nreply + 3] = L_remaining[i], L_reset[i], wait
      nreply = nreply + 3
    end
  else
    reply[nreply + 1], reply[nreply + 2] = -1, type(status) == 'table' and tostring(status.err) or tostring(status)
    nreply = nreply + 2
  end
end
if key_base ~= nkeys then return redis.error_reply('ERR floodgate: layer count does not match the number of keys') end
return reply
