-- wrk script of bench/views.rb --server: a fixed number of requests, bounded
-- in time. wrk itself only runs for whole seconds (-d), so this script
-- counts the responses of its thread and, after JETSON_WRK_REQUESTS of them
-- (0: no limit) or JETSON_WRK_SECONDS seconds (0: no limit), stops the
-- thread and sends wrk SIGINT, which ends wrk's sleep at once (wrk's -d is
-- only the backstop). Its own clock (CLOCK_MONOTONIC through LuaJIT's ffi)
-- times the requests it counts: from the first request written to the last
-- response counted. done() prints one line that bench/views/server.rb reads:
--
--   jetson-wrk responses=N seconds=S non200=K
--
-- Run with -t1 (one thread: the counts and the clock are per thread).

local ffi = require("ffi")
ffi.cdef [[
  typedef struct { long tv_sec; long tv_nsec; } jetson_wrk_timespec;
  int clock_gettime(int clock_id, jetson_wrk_timespec *tp);
  int getpid(void);
  int kill(int pid, int sig);
]]

local CLOCK_MONOTONIC = 1
local SIGINT = 2
local ts = ffi.new("jetson_wrk_timespec")

local function now()
  ffi.C.clock_gettime(CLOCK_MONOTONIC, ts)
  return tonumber(ts.tv_sec) + tonumber(ts.tv_nsec) * 1e-9
end

local limit = tonumber(os.getenv("JETSON_WRK_REQUESTS") or "0") or 0
local seconds = tonumber(os.getenv("JETSON_WRK_SECONDS") or "0") or 0

-- Globals: done() reads them through thread:get.
responses = 0
non200 = 0
started = nil
finished = nil

local stopped = false
local formatted = nil

-- Until the first response, every request() resets the start: wrk calls
-- request() once before the run to check the request (script_verify_request),
-- and once per connection when the run begins.
function request()
  if responses == 0 then started = now() end
  formatted = formatted or wrk.format()
  return formatted
end

function response(status, headers, body)
  if stopped then return end
  responses = responses + 1
  if status ~= 200 then non200 = non200 + 1 end
  finished = now()
  if (limit > 0 and responses >= limit) or (seconds > 0 and finished - started >= seconds) then
    stopped = true
    wrk.thread:stop()
    ffi.C.kill(ffi.C.getpid(), SIGINT)
  end
end

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function done(summary, latency, requests)
  local n, bad, first, last = 0, 0, nil, nil
  for _, t in ipairs(threads) do
    n = n + t:get("responses")
    bad = bad + t:get("non200")
    local s, f = t:get("started"), t:get("finished")
    if s and (not first or s < first) then first = s end
    if f and (not last or f > last) then last = f end
  end
  local elapsed = (first and last) and (last - first) or 0
  io.write(string.format("jetson-wrk responses=%d seconds=%.6f non200=%d\n", n, elapsed, bad))
end
