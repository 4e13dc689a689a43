-- wrk script of `pnpm bench:http`: `wrk ... -s load.lua <url> -- <mode> <keys> <key>`.
--   spread: each request carries x-api-key k1..k<keys>, drawn at random
--   fixed:  every request carries x-api-key <key>
-- Counts the status of every response and ends with one line `WRKJSON {...}` for run.mjs.

local counter = 1
local threads = {}

function setup(thread)
  thread:set("id", counter)
  table.insert(threads, thread)
  counter = counter + 1
end

local requests = {}
local fixed
local count = 0
statuses = {}

function init(args)
  local mode = args[1]
  math.randomseed(os.time() * 1000 + id)
  if mode == "spread" then
    count = tonumber(args[2])
    for i = 1, count do
      requests[i] = wrk.format("GET", "/", { ["x-api-key"] = "k" .. i })
    end
  elseif mode == "fixed" then
    fixed = wrk.format("GET", "/", { ["x-api-key"] = args[3] })
  else
    error("load.lua: mode must be spread or fixed, got " .. tostring(mode))
  end
end

function request()
  if fixed then
    return fixed
  end
  return requests[math.random(count)]
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
  local total = {}
  for _, thread in ipairs(threads) do
    local counts = thread:get("statuses")
    for status, n in pairs(counts) do
      total[status] = (total[status] or 0) + n
    end
  end
  local parts = {}
  for status, n in pairs(total) do
    table.insert(parts, string.format('"%d":%d', status, n))
  end
  local e = summary.errors
  io.write(string.format(
    'WRKJSON {"requests":%d,"durationUs":%d,"bytes":%d,"p50Us":%d,"p99Us":%d,"meanUs":%.1f,'
      .. '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},"statuses":{%s}}\n',
    summary.requests, summary.duration, summary.bytes, latency:percentile(50), latency:percentile(99), latency.mean,
    e.connect, e.read, e.write, e.status, e.timeout, table.concat(parts, ",")))
end
