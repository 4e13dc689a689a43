import type { RedisClientAdapter, ScriptArgument } from '@floodgate/redis';

/**
 * The pool of one key in the local region's Redis: the units this region leased from the key's
 * home and has not handed out yet, shared by every process of the region. All of a pool's
 * arithmetic happens here, atomically, so processes of one region never hand out a unit twice.
 *
 * KEYS[1] pool hash { u = units, e = when they may no longer be handed out, w = the window's end
 *   (0 for a bucket), rs = the home's resetAt, r = the home's remaining after the lease, n = 1 once
 *   the home is near the limit (no more leasing ahead), t = last take or lease, and for a bucket
 *   lv = its level after the lease (in its units), la = when the lease was asked for, upc = units
 *   per cost, dpm = drain per ms (upc = 0 for a window), aw = the end of the last window whose
 *   allotment this region claimed (kept while the pool lives: a window's allotment is claimed once) }
 * KEYS[2] block marker (PX = the block's end)
 * ARGV[1] op, ARGV[2] now (ms, the app clock), then the op's arguments.
 */
export const POOL_SCRIPT = `
local op, now = ARGV[1], tonumber(ARGV[2])
local pool, block = KEYS[1], KEYS[2]

local function usable()
  local f = redis.call('HMGET', pool, 'u', 'e', 'lv', 'la', 'upc', 'dpm')
  if not f[1] then return nil, 0 end
  local u, e = tonumber(f[1]), tonumber(f[2])
  if now >= e then return 0, e end
  local upc = tonumber(f[5])
  if upc > 0 then
    -- A leased token is worth something only while the bucket still holds it.
    local held = math.floor((tonumber(f[3]) - tonumber(f[6]) * math.max(0, now - tonumber(f[4]))) / upc)
    if held < u then u = math.max(0, held) end
  end
  return u, e
end

local function numbers(...)
  local f = redis.call('HMGET', pool, ...)
  for i = 1, #f do f[i] = tonumber(f[i]) or 0 end
  return f
end

-- Never shortens the pool's life: it carries the claim of a window's allotment (aw).
local function keep(ms)
  if redis.call('PTTL', pool) < ms then redis.call('PEXPIRE', pool, ms) end
end

if op == 't' or op == 'l' then
  local pttl = redis.call('PTTL', block)
  if pttl > 0 then return {-1, pttl, 0, 0, 0, 0} end
  local allot, claimed = tonumber(ARGV[4] or '0'), 0
  if op == 't' and allot > 0 then
    -- This window's allotment (window end ARGV[5], usable until ARGV[6]), unless claimed already.
    local aw, ae = tonumber(ARGV[5]), tonumber(ARGV[6])
    local f = numbers('aw', 'w', 'e')
    if f[1] < aw and f[2] <= aw and now < ae then
      if f[2] == aw and now < f[3] then
        redis.call('HINCRBY', pool, 'u', allot)
        redis.call('HSET', pool, 'aw', aw)
      else
        -- No pool, or an older window's (whose units can no longer be handed out).
        redis.call('HSET', pool, 'u', allot, 'e', ae, 'w', aw, 'rs', ARGV[8], 'r', ARGV[9], 'n', 0, 't', now,
          'lv', 0, 'la', now, 'upc', 0, 'dpm', 0, 'aw', aw)
      end
      keep(tonumber(ARGV[7]))
      claimed = 1
    end
  end
  local u, e = usable()
  if u == nil then return {0, 0, 0, 0, 0, 0} end
  local f = numbers('n', 'r', 'rs', 'w')
  local cost = tonumber(ARGV[3])
  if op == 'l' or u < cost then return {0, u, f[1], f[2], f[3], f[4]} end
  redis.call('HSET', pool, 'u', u - cost, 't', now)
  -- 2: taken from an allotment this call claimed.
  return {1 + claimed, u - cost, f[1], f[2], f[3], f[4]}
end

if op == 'a' then
  local units, e, w = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
  if e <= now then return 0 end
  local old = numbers('e', 'n', 'upc', 'w')
  local oe, ow = old[1], old[4]
  local live = now < oe
  local near = tonumber(ARGV[12])
  if live and units == 0 then
    -- No units: only what the home said (near the limit or not) is news.
    redis.call('HSET', pool, 'r', ARGV[11], 'rs', ARGV[6], 'n', math.max(near, old[2]))
    return 1
  end
  if live and old[3] == 0 then
    -- A window pool: a lease of an older window is dropped, one of the same window adds up.
    if ow > w then return 0 end
    if ow == w then
      redis.call('HINCRBY', pool, 'u', units)
      redis.call('HSET', pool, 'e', math.min(oe, e), 'r', ARGV[11], 'rs', ARGV[6], 'n', math.max(near, old[2]), 't', now)
      return 1
    end
  end
  if live and old[3] > 0 then
    -- A bucket: the pool and the new lease become one lease whose units spoil no later than either's.
    local u_old, _ = usable()
    if u_old > 0 then
      local f = numbers('lv', 'la', 'dpm', 'upc')
      local dpm, upc = f[3], f[4]
      local lv_old = f[1] - dpm * math.max(0, now - f[2])
      local lv_new = tonumber(ARGV[7]) - dpm * math.max(0, now - tonumber(ARGV[8]))
      local lv
      if lv_old <= lv_new then lv = math.min(lv_old + units * upc, lv_new) else lv = math.min(lv_new + u_old * upc, lv_old) end
      redis.call('HSET', pool, 'u', u_old + units, 'e', math.max(e, oe), 'lv', lv, 'la', now, 'rs', ARGV[6],
        'r', ARGV[11], 'n', math.max(near, old[2]), 't', now)
      redis.call('PEXPIRE', pool, math.max(e, oe) - now + 1000)
      return 1
    end
  end
  -- A new window, or a bucket whose pool is spent.
  redis.call('HSET', pool, 'u', units, 'e', e, 'w', w, 'rs', ARGV[6], 'lv', ARGV[7], 'la', ARGV[8],
    'upc', ARGV[9], 'dpm', ARGV[10], 'r', ARGV[11], 'n', near, 't', now)
  keep(e - now + 1000)
  return 1
end

if op == 'p' then
  -- Units back into the pool they came from: the same window (ARGV[4]; 0 for a bucket or any window).
  local f = numbers('e', 'w')
  local want = tonumber(ARGV[4])
  if (want == 0 or f[2] == want) and now < f[1] then
    redis.call('HINCRBY', pool, 'u', tonumber(ARGV[3]))
    return 1
  end
  return 0
end

if op == 'd' then
  -- An idle window pool gives its units back: they go to the home, for the other regions. One
  -- holding no more than an allotment (ARGV[4]) keeps it: it is within what allotments may leave
  -- unused, and not worth a call across regions per key.
  local f = numbers('u', 'e', 't', 'upc', 'w')
  local least = tonumber(ARGV[4] or '0')
  if f[1] > least and f[4] == 0 and now < f[2] and now - f[3] >= tonumber(ARGV[3]) then
    redis.call('HSET', pool, 'u', 0)
    return {f[1], f[5], 0, f[3]}
  end
  -- Not given back: the units it still holds (while it lasts) and when it was last used.
  local held = 0
  if now < f[2] and f[1] > least then held = f[1] end
  return {0, 0, held, f[3]}
end

if op == 'x' then
  return redis.call('DEL', pool, block)
end

if op == 'b' then
  redis.call('SET', block, '1', 'PX', tonumber(ARGV[3]))
  -- The units are dropped; the pool stays, with its claim of this window's allotment.
  if redis.call('EXISTS', pool) == 1 then redis.call('HSET', pool, 'u', 0) end
  return 1
end

if op == 'u' then
  return redis.call('DEL', block)
end

return redis.error_reply('ERR floodgate regions: unknown pool op ' .. tostring(op))
`;

/**
 * Gives units back to a window's state at the home, only while the home still counts the window
 * they were leased in (its stored start is the lease's): a unit of an ended window given back
 * would credit the next one.
 * KEYS[1] the home's state hash; ARGV[1] the window's start, ARGV[2] units, ARGV[3] the field
 * counting the current window ('count' for fixedWindow, 'curr' for slidingWindow).
 */
export const GIVE_BACK_SCRIPT = `
local start = redis.call('HGET', KEYS[1], 'start')
if not start or tonumber(start) ~= tonumber(ARGV[1]) then return 0 end
local count = tonumber(redis.call('HGET', KEYS[1], ARGV[3]) or '0')
redis.call('HSET', KEYS[1], ARGV[3], math.max(0, count - tonumber(ARGV[2])))
return 1
`;

/**
 * A Lua script run with EVALSHA, and EVAL when the server does not have it (restart, SCRIPT FLUSH).
 * Its SHA-1 is written out (a test checks it against the source), so the package needs no crypto
 * module: edge runtimes and bundlers take it as it is.
 */
export class Script {
  constructor(
    readonly source: string,
    readonly sha1: string,
  ) {}

  async run(client: RedisClientAdapter, keys: readonly string[], args: readonly ScriptArgument[]): Promise<unknown> {
    try {
      return await client.evalsha(this.sha1, keys, args);
    } catch (error) {
      if (!client.isNoScript(error)) throw error;
      return client.eval(this.source, keys, args);
    }
  }
}

/** The server's clock, [seconds, microseconds]: what a region learns of a home's clock. */
export const TIME_SCRIPT = `return redis.call('TIME')`;

export const poolScript = new Script(POOL_SCRIPT, 'ca706ce90e5e0ab699ed82b54d9755537036e52e');
export const giveBackScript = new Script(GIVE_BACK_SCRIPT, '80fe6ce11ac67b6f198d5ab348c2420953e3c15e');
export const timeScript = new Script(TIME_SCRIPT, '104ae65debf45156ded1e8e613705534c8e62c17');
