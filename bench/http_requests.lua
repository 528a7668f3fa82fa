-- wrk script of bench/http_vs_grpc.sh: GET /v1/solve for the knight boards of the file
-- named by the environment variable PUZZLEDB_STATES (one compact form per line), in turn.
local states = {}
for line in io.lines(os.getenv("PUZZLEDB_STATES")) do
  states[#states + 1] = line
end
local next_state = 0

request = function()
  next_state = next_state % #states + 1
  return wrk.format("GET", "/v1/solve?puzzle=knight&state=" .. states[next_state])
end

local failed = 0
response = function(status, headers, body)
  if status ~= 200 then failed = failed + 1 end
end

done = function(summary, latency, requests)
  io.write(string.format("http: %d requests, %d errors (socket), non-200 seen by thread 1: %d\n",
                         summary.requests, summary.errors.status + summary.errors.connect +
                         summary.errors.read + summary.errors.write + summary.errors.timeout,
                         failed))
end
