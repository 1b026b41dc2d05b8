-- wrk hooks for bench/loadgen.py: each thread counts its responses by status; done() prints one summary
-- (requests, duration, latency percentiles and the status counts merged across threads), a line per figure.
-- BENCH_METHOD and BENCH_BODY (set by bench/loadgen.py) make every request that method with that body.
wrk.method = os.getenv("BENCH_METHOD") or wrk.method
local body = os.getenv("BENCH_BODY")
if body and body ~= "" then wrk.body = body end
local threads = {}
statuses = {}

function setup(thread)
  table.insert(threads, thread)
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
  local merged = {}
  for _, thread in ipairs(threads) do
    for status, count in pairs(thread:get("statuses")) do
      merged[status] = (merged[status] or 0) + count
    end
  end
  io.write(string.format("bench requests %d\n", summary.requests))
  io.write(string.format("bench duration_us %d\n", summary.duration))
  io.write(string.format("bench p50_us %d\n", latency:percentile(50)))
  io.write(string.format("bench p99_us %d\n", latency:percentile(99)))
  for _, kind in ipairs({"connect", "read", "write", "timeout"}) do
    io.write(string.format("bench error_%s %d\n", kind, summary.errors[kind]))
  end
  for status, count in pairs(merged) do
    io.write(string.format("bench status_%d %d\n", status, count))
  end
end
