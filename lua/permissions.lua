--[[
  Naming the command an ACL user lacks. Inside a script Redis 7.0 words a refused command as "The
  user executing the script can't run this command or subcommand" (or "can't access at least one
  of the keys mentioned in the command arguments") without naming it. When a request fails that
  way, every command Floodgate may send for its layers' keys is checked with redis.acl_check_cmd
  (Redis 7+), and the refused ones are named in the request's error:
    FLOODGATE_NOPERM <command>,<command>... <key> | <Redis' own message>
  The store turns that into a StoreError (a store failure: failMode decides, never an admission)
  and one warning naming what to grant.
]]
local HASH_COMMANDS = { 'HMGET', 'HSET', 'HINCRBY', 'HDEL', 'PEXPIRE', 'PTTL', 'DEL' }
local ZSET_COMMANDS = {
  'ZCOUNT', 'ZSCORE', 'ZRANGEBYSCORE', 'ZREVRANGEBYSCORE', 'ZADD', 'ZREM', 'ZREMRANGEBYSCORE',
  'ZREMRANGEBYRANK', 'PEXPIRE', 'PTTL', 'DEL',
}
local STRIKES_COMMANDS = { 'HMGET', 'HSET', 'PEXPIRE', 'DEL' }

-- acl_check_cmd only checks the user's rules against the names: it reads no key.
local function refused_on(target, commands, names, seen)
  local refused = false
  for _, command in ipairs(commands) do
    if not redis.acl_check_cmd(command, target) then
      local name = string.lower(command)
      if not seen[name] then
        seen[name] = true
        names[#names + 1] = name
      end
      refused = true
    end
  end
  return refused and target or nil
end

-- `message` as the request's error: unchanged unless it is an ACL refusal whose commands can be named.
-- The request's n layers are given as their keys, whether each is a hash, and their strikes keys.
local function permission_error(message, n, keys, hashes, strikes)
  if type(redis.acl_check_cmd) ~= 'function' then return message end
  if not (string.find(message, "can't run", 1, true) or string.find(message, "can't access", 1, true)
      or string.find(message, 'NOPERM', 1, true)) then
    return message
  end
  local names, seen, where = {}, {}, nil
  for i = 1, n do
    where = refused_on(keys[i], hashes[i] and HASH_COMMANDS or ZSET_COMMANDS, names, seen) or where
    if strikes[i] then where = refused_on(strikes[i], STRIKES_COMMANDS, names, seen) or where end
  end
  if #names == 0 then return message end
  return 'FLOODGATE_NOPERM ' .. table.concat(names, ',') .. ' ' .. where .. ' | ' .. message
end
