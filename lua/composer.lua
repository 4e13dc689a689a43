--[[
  Composer: decides a batch of requests in one atomic call, one request after another, as if each
  had its own call.
  KEYS     every layer's key, request after request (all on one Cluster slot); a layer whose spec
           has a penalty, and every layer of a reset or unblock, brings a second key after its
           own, where its strikes are counted
  ARGV[1]  now in epoch ms, or '' for the server's clock (TIME)
  ARGV[2]  s, the number of specs; then each spec: kind, flags (1 shadow: the layer reports but
           never blocks; 2 critical: the request may use the algorithm's reserve), the penalty
           (base, period, max in ms; base 0 for none), then the kind's nparams params
  then per request: op, its request id (sliding log entries and concurrency leases are stored
           under it), n (its number of layers), then per layer: spec number (1-based), cost
           (or `=` and a count: that many more requests with the last one's op, id, specs and
           costs, each on the keys that follow)
           op  c consume: every enforced layer is decided without writing; only if all allow are
                 the writes applied (shadow layers are written when they allow too); when one
                 denies, its penalty (if any) blocks its key (normal requests only, when a
                 critical request of cost 1 would pass: the reserve still has room)
               r refund: cost units given back
               p peek: decided at cost, nothing written
               x reset: the keys deleted
               b block: the keys blocked for `cost` ms (an operator's ban)
               u unblock: the keys' blocks lifted, their strikes forgotten, and the spent quota
                 (a normal request of cost 1 would be denied) of a layer with a penalty deleted
  reply    { now, then per request: status, then per layer: remaining, reset_at, wait }
           status: 1 when every enforced (not shadow) layer allows, 0 when one denies,
           plus 2 when a key held something no algorithm writes and was reset; -1 when the request
           failed, followed by the error message instead of layer numbers. wait >= 0: the layer
           allows, with that shaping delay; wait < 0: it denies, and -wait - 1 is its retry-after.
           All but consume and peek answer each layer's numbers after the operation, at cost 0.
]]
--- @include "helpers"
--- @include "block"
--- @include "fixed-window"
--- @include "sliding-log"
--- @include "sliding-window"
--- @include "token-bucket"
--- @include "leaky-bucket"
--- @include "gcra"
--- @include "concurrency"
--- @include "permissions"
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

-- The specs: each algorithm's functions (defined on first use), its params, flags and penalty.
local S_algorithm, S_kind, S_params, S_shadow, S_critical, S_penalty = {}, {}, {}, {}, {}, {}
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
  local flags = int_arg(ARGV[cursor + 1], 'flags')
  S_algorithm[s], S_kind[s], S_shadow[s], S_critical[s] = algorithm, kind, flags % 2 == 1, math.floor(flags / 2) % 2 == 1
  local base = int_arg(ARGV[cursor + 2], 'penalty')
  if base > 0 then S_penalty[s] = { base, int_arg(ARGV[cursor + 3], 'penalty'), int_arg(ARGV[cursor + 4], 'penalty') } end
  local p = {}
  for j = 1, nparams do p[j] = int_arg(ARGV[cursor + 4 + j], 'param') end
  S_params[s] = p
  cursor = cursor + 5 + nparams
end

local reply, nreply = { now }, 1

-- Per layer of the request being decided (reused from one request to the next).
local L_spec, L_key, L_strikes, L_cost, L_cost_arg = {}, {}, {}, {}, {}
local L_allowed, L_remaining, L_reset, L_wait, L_a, L_b, L_c = {}, {}, {}, {}, {}, {}, {}

-- The numbers a reply carries exactly (JavaScript's safe integers; a wait is sent as -wait - 1).
local EXACT = 9007199254740991

local function exact(remaining, reset_at, wait)
  return remaining > -EXACT and remaining < EXACT and reset_at > -EXACT and reset_at < EXACT
    and wait > -EXACT and wait < EXACT
end

local function decide_layer(i, id, cost)
  local s = L_spec[i]
  local allowed, remaining, reset_at, wait, a, b, c =
    S_algorithm[s].decide(L_key[i], now, cost, id, S_params[s], S_critical[s])
  -- What an algorithm writes when it allows is bounded by its params, and its times by the clock,
  -- so its own state always decides within these bounds. Numbers past them come from a value no
  -- algorithm wrote (2^53 in a field, say): that key is reset and decided as new.
  if not exact(remaining, reset_at, wait) then
    reset_key(L_key[i])
    allowed, remaining, reset_at, wait, a, b, c =
      S_algorithm[s].decide(L_key[i], now, cost, id, S_params[s], S_critical[s])
    if not exact(remaining, reset_at, wait) then
      error({ err = 'ERR floodgate: a new key decides out of range (is the clock sane?)' })
    end
  end
  L_allowed[i], L_remaining[i], L_reset[i], L_wait[i], L_a[i], L_b[i], L_c[i] = allowed, remaining, reset_at, wait, a, b, c
end

-- A normal request denied while the reserve still has room (a critical request of cost 1 would be
-- admitted): its penalty holds normal requests only, never the critical ones the reserve is for.
local function has_reserve(s)
  local at = S_algorithm[s].reserve_at
  return at ~= nil and S_params[s][at] > 0
end

local function reserve_has_room(i, id)
  local s = L_spec[i]
  if S_critical[s] or not has_reserve(s) then return false end
  return (S_algorithm[s].decide(L_key[i], now, 1, id, S_params[s], true))
end

-- unblock: the blocks lifted and the strikes forgotten; a penalised layer's quota that is spent (a
-- normal request of cost 1 would be denied) starts afresh, or the next request would be denied and
-- penalised again. Concurrency slots free themselves as requests end.
local function unblock_layer(i, id)
  local s = L_spec[i]
  local algorithm = S_algorithm[s]
  unblock(L_key[i], L_strikes[i], algorithm.hash)
  if S_penalty[s] and S_kind[s] ~= 'concurrency' and not (algorithm.decide(L_key[i], now, 1, id, S_params[s], false)) then
    reset(L_key[i], nil)
  end
end

-- consume and peek: returns the status; the layer numbers are in L_*.
local function consume(n, id, write)
  local all_allowed = true
  for i = 1, n do
    decide_layer(i, id, L_cost[i])
    if not L_allowed[i] and not S_shadow[L_spec[i]] then all_allowed = false end
  end
  if not write then return all_allowed and 1 or 0 end
  if all_allowed then
    for i = 1, n do
      if L_allowed[i] then
        local s = L_spec[i]
        S_algorithm[s].write(L_key[i], now, L_cost[i], L_cost_arg[i], id, S_params[s], L_reset[i], L_a[i], L_b[i], L_c[i])
        if S_critical[s] and S_penalty[s] and has_reserve(s) then keep_normal_block(L_key[i], now) end
      end
    end
    return 1
  end
  for i = 1, n do
    local s = L_spec[i]
    if L_allowed[i] then
      -- Not charged, since another layer denies: report its uncharged numbers.
      decide_layer(i, id, 0)
    elseif S_penalty[s] and not S_shadow[s] and L_a[i] ~= true then
      -- L_a is true when the denial was a block already: a penalty does not extend it.
      local penalty = S_penalty[s]
      local until_at = penalize(L_key[i], L_strikes[i], S_algorithm[s].hash, now, penalty[1], penalty[2], penalty[3], now + L_wait[i], reserve_has_room(i, id))
      L_remaining[i], L_reset[i], L_wait[i] = 0, until_at, until_at - now
    end
  end
  return 0
end

-- refund, reset, block, unblock: the operation on every layer, then its numbers at cost 0.
local function operate(op, n, id)
  local status = 1
  for i = 1, n do
    local s = L_spec[i]
    local algorithm = S_algorithm[s]
    if op == 'r' then
      algorithm.refund(L_key[i], now, L_cost[i], id, S_params[s])
    elseif op == 'x' then
      reset(L_key[i], L_strikes[i])
    elseif op == 'b' then
      -- Decided first, so that a key of another type is reset before the block is written into it.
      decide_layer(i, id, 0)
      block_until(L_key[i], algorithm.hash, now, now + L_cost[i])
    elseif op == 'u' then
      -- Decided first, as for a block: a key of another type is reset before anything reads it.
      decide_layer(i, id, 0)
      unblock_layer(i, id)
    else
      error({ err = 'ERR floodgate: unknown operation ' .. tostring(op) })
    end
    decide_layer(i, id, 0)
    if not L_allowed[i] and not S_shadow[s] then status = 0 end
  end
  return status
end

local function run(op, n, id)
  if op == 'c' then return consume(n, id, true) end
  if op == 'p' then return consume(n, id, false) end
  return operate(op, n, id)
end

local nargs, nkeys, key_base = #ARGV, #KEYS, 0
-- The request being decided: `=` and a count repeat its op, id, specs and costs for that many
-- more requests, each on its own keys (the usual batch is one shape over many keys).
local op, id, n
while cursor <= nargs do
  local repeats = 1
  if ARGV[cursor] == '=' then
    if op == nil then return redis.error_reply('ERR floodgate: nothing to repeat') end
    repeats = int_arg(ARGV[cursor + 1], 'repeat count')
    cursor = cursor + 2
  else
    op, id = ARGV[cursor], ARGV[cursor + 1]
    n = int_arg(ARGV[cursor + 2], 'layer count')
    cursor = cursor + 3
    for i = 1, n do
      local s, cost_arg = tonumber(ARGV[cursor]), ARGV[cursor + 1]
      if S_algorithm[s] == nil then return redis.error_reply('ERR floodgate: no spec ' .. tostring(ARGV[cursor])) end
      L_spec[i], L_cost[i], L_cost_arg[i] = s, int_arg(cost_arg, 'cost'), cost_arg
      cursor = cursor + 2
    end
  end
  for _ = 1, repeats do
    for i = 1, n do
      key_base = key_base + 1
      L_key[i] = KEYS[key_base]
      if S_penalty[L_spec[i]] or op == 'x' or op == 'u' then
        key_base = key_base + 1
        L_strikes[i] = KEYS[key_base]
      else
        L_strikes[i] = nil
      end
    end
    if key_base > nkeys then return redis.error_reply('ERR floodgate: more layers than keys') end
    key_was_reset, read_only = false, op == 'p'
    if next(bad_keys) ~= nil then bad_keys = {} end
    local ok, status = pcall(run, op, n, id)
    read_only = false
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
      local message = type(status) == 'table' and tostring(status.err) or tostring(status)
      local hashes = {}
      for i = 1, n do hashes[i] = S_algorithm[L_spec[i]].hash end
      reply[nreply + 1], reply[nreply + 2] = -1, permission_error(message, n, L_key, hashes, L_strikes)
      nreply = nreply + 2
    end
  end
end
if key_base ~= nkeys then return redis.error_reply('ERR floodgate: layer count does not match the number of keys') end
return reply
