// One call's path through the server, whichever transport brought it (server/grpc/,
// server/http/): answered from the tables on the calling thread where it can be, else
// searched on the search pool under the call's limits, or refused when the pool is full;
// then stamped (micros, id), counted in the metrics and handed back to the transport.
// Admission rules: server/search_pool.h and docs/API.md, "Searches".
#ifndef PUZZLEDB_SERVER_CALL_H_
#define PUZZLEDB_SERVER_CALL_H_

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>

#include "absl/status/status.h"
#include "google/protobuf/arena.h"
#include "server/metrics.h"
#include "server/search_pool.h"
#include "service/request_handler.h"

namespace puzzledb {

// What a call needs of the server. All must outlive the calls.
struct CallEnv {
  RequestHandler* handler = nullptr;
  SearchPool* pool = nullptr;
  ServerMetrics* metrics = nullptr;
  // What calls hold beyond the tables (service/memory_budget.h); may be null (none counted).
  MemoryBudget* memory = nullptr;
  // A search's deadline when the call has none.
  std::chrono::milliseconds default_search_deadline{10000};
};

// The limits of a call's search: the call's own deadline (none: the default), shortened by
// the request's `timeout_ms` (0: none); stopped when `*cancelled` is set (the client went
// away, or the server shuts down); lent the pool's idle threads.
SearchLimits CallLimits(const CallEnv& env,
                        std::optional<std::chrono::steady_clock::time_point> call_deadline,
                        uint32_t timeout_ms, const std::atomic<bool>* cancelled);

// The API method a request is counted as.
template <class Request>
CallMethod MethodOf();

// Answers `request` into `*response` as above and then calls `done` once with the call's
// status: on this thread for a table answer or a refusal, on the pool's delivery thread
// after a search. `limits` is asked only when a search is needed (it is given the request's
// timeout_ms). `*response` must live until `done`. `parsed`, if not null, is the request's
// position, read at the edge (RequestHandler::Read); it is read before this returns.
// Instantiated for Solve, Analyze and Sample.
template <class Request, class Response>
void AnswerCall(const CallEnv& env, Transport transport, const Request& request,
                Response* response, const std::function<SearchLimits(uint32_t timeout_ms)>& limits,
                std::function<void(const absl::Status&)> done,
                const Position* parsed = nullptr);

// Answers a batch (docs/API.md, "Batches") into `*response`, then calls `done` once: OK
// (the requests' own failures are in band) or the batch's own error (too many requests).
// Table answers come on this thread, their walks taking turns. The searches wait for a slot
// as a stream's do (SearchPool::Submit: a batch never refuses its own requests), at most
// the pool's capacity of them at once, each under `limits(its timeout_ms)`, asked for as
// the batch arrives; `done` then comes from the pool's delivery thread. Each answer's
// `micros` is the time from the batch's arrival to that answer. Every request counts as a
// call of `method` (SolveBatch, or SolveStream for a batch inside a stream). `*request`
// may go once this returns; `*response` must live until `done`.
void AnswerBatch(const CallEnv& env, Transport transport, CallMethod method,
                 const v1::SolveBatchRequest& request, v1::SolveBatchResponse* response,
                 const std::function<SearchLimits(uint32_t timeout_ms)>& limits,
                 std::function<void(const absl::Status&)> done);

// The blocks of a batch call's arena (its request and answer live on one, over gRPC and
// HTTP alike): from 4 KB, so that a small batch stays small, up to 1 MB, so that a large one
// takes few.
google::protobuf::ArenaOptions BatchArenaOptions();

// RESOURCE_EXHAUSTED: the pool and its queue are full (TrySubmit refused).
absl::Status SearchRefusedStatus(const SearchPool& pool);
// What a search that waited in the queue past its call's end answers, without searching:
// CANCELLED or DEADLINE_EXCEEDED; OK when the call is still on.
absl::Status EndedWhileQueued(const SearchLimits& limits);

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVER_CALL_H_
