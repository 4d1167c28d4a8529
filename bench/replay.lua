-- wrk script for bench/loadgen.py: replay prepared raw HTTP requests in order, cycling.
-- Usage: wrk -t1 -cN -dS -s bench/replay.lua http://127.0.0.1:PORT/ -- FILE
-- FILE holds "<length>\n<raw request bytes>" entries. done() prints one JSON line starting {"bench".
local reqs = {}
local n = 0
local i = 0

function init(args)
  local f = assert(io.open(args[1], "rb"))
  local data = f:read("*a")
  f:close()
  local pos = 1
  while pos <= #data do
    local nl = string.find(data, "\n", pos, true)
    local size = tonumber(string.sub(data, pos, nl - 1))
    n = n + 1
    reqs[n] = string.sub(data, nl + 1, nl + size)
    pos = nl + 1 + size
  end
end

function request()
  i = i + 1
  if i > n then i = 1 end
  return reqs[i]
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"bench":1,"requests":%d,"duration_us":%d,"bytes":%d,"errors_connect":%d,"errors_read":%d,' ..
    '"errors_write":%d,"errors_status":%d,"errors_timeout":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,' ..
    '"mean_us":%.1f,"max_us":%d}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.mean, latency.max))
end
