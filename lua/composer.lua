--[[
  Composer: decides every layer of one request in one atomic call.
  KEYS[i]  the key of layer i
  ARGV[1]  'consume' | 'refund'
  ARGV[2]  now in epoch ms, or '' for the server's clock (TIME)
  ARGV[3]  request id (sliding log entries and concurrency leases are stored under it)
  ARGV[4]  n, the number of layers (= #KEYS)
  then per layer: kind, cost, and the kind's nparams integer params
  reply    { now, all_allowed, then per layer: allowed, limit, remaining, reset_at, retry_after, delay };
           for a refund, each layer's numbers after it (all_allowed is 1)
  Layers are all-or-nothing: every layer is decided without writing, and only if all allow are
  the writes applied.
]]
local op, id = ARGV[1], ARGV[3]
local now
if ARGV[2] == '' then
  -- Some managed services, and ACLs without +time, refuse TIME in scripts: say so in a reply the
  -- store recognises (nothing is written yet), so it can send its own clock instead.
  local time = redis.pcall('TIME')
  if time.err then return redis.error_reply('FLOODGATE_NO_TIME ' .. time.err) end
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
else
  now = int_arg(ARGV[2], 'now')
end
local n = int_arg(ARGV[4], 'layer count')
if n ~= #KEYS then return redis.error_reply('ERR floodgate: layer count does not match the number of keys') end

local layers, cursor = {}, 5
for i = 1, n do
  local kind = ARGV[cursor]
  local algorithm = ALGORITHMS[kind]
  if algorithm == nil then return redis.error_reply('ERR floodgate: unknown algorithm ' .. tostring(kind)) end
  local cost = int_arg(ARGV[cursor + 1], 'cost')
  local p = {}
  for j = 1, algorithm.nparams do
    local value = int_arg(ARGV[cursor + 1 + j], kind .. ' param ' .. j)
    p[j] = value
  end
  layers[i] = { algorithm = algorithm, cost = cost, p = p }
  cursor = cursor + 2 + algorithm.nparams
end

if op == 'refund' then
  -- The reply has consume's shape: each layer's numbers after the refund (a cost-0 decision).
  local reply = { now, 1 }
  for i = 1, n do
    local layer = layers[i]
    layer.algorithm.refund(KEYS[i], now, layer.cost, id, layer.p)
    local outcome = layer.algorithm.decide(KEYS[i], now, 0, id, layer.p)
    for j = 1, 6 do reply[#reply + 1] = outcome[j] end
  end
  return reply
end
if op ~= 'consume' then return redis.error_reply('ERR floodgate: unknown operation ' .. tostring(op)) end

local reply, writes, all_allowed = { now, 1 }, {}, true
for i = 1, n do
  local layer = layers[i]
  local outcome, write = layer.algorithm.decide(KEYS[i], now, layer.cost, id, layer.p)
  if outcome[1] == 0 then all_allowed = false end
  writes[i] = write
  for j = 1, 6 do reply[#reply + 1] = outcome[j] end
end
if all_allowed then
  for i = 1, n do writes[i]() end
else
  reply[2] = 0
  -- A layer that would have allowed is not charged when another denies: report its uncharged numbers.
  for i = 1, n do
    local base = 2 + (i - 1) * 6
    if reply[base + 1] == 1 then
      local layer = layers[i]
      local outcome = layer.algorithm.decide(KEYS[i], now, 0, id, layer.p)
      for j = 1, 6 do reply[base + j] = outcome[j] end
    end
  end
end
return reply
