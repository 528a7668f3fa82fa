#include "server/call.h"

#include "core/util/strings.h"

namespace puzzledb {

absl::Status EndedWhileQueued(const SearchLimits& limits) {
  if (limits.cancelled && limits.cancelled()) {
    return absl::CancelledError("the call was cancelled while its search waited for a slot");
  }
  if (limits.deadline && std::chrono::steady_clock::now() >= *limits.deadline) {
    return absl::DeadlineExceededError(
        "the call's deadline passed while its search waited for a slot");
  }
  return absl::OkStatus();
}

absl::Status SearchRefusedStatus(const SearchPool& pool) {
  return absl::ResourceExhaustedError(
      Cat("the server runs at most ", pool.capacity(), " ",
          pool.capacity() == 1 ? "search" : "searches",
          " at once (--max-concurrent-searches) and its queue of ", pool.queue_limit(),
          " waiting (--search-queue) is full; retry later"));
}

SearchLimits CallLimits(const CallEnv& env,
                        std::optional<std::chrono::steady_clock::time_point> call_deadline,
                        uint32_t timeout_ms, const std::atomic<bool>* cancelled) {
  const auto now = std::chrono::steady_clock::now();
  SearchLimits limits;
  limits.deadline = call_deadline ? *call_deadline : now + env.default_search_deadline;
  if (timeout_ms > 0) {
    limits.deadline = std::min(*limits.deadline, now + std::chrono::milliseconds(timeout_ms));
  }
  limits.cancelled = [cancelled] { return cancelled->load(std::memory_order_relaxed); };
  LendSpareThreads(env.pool, &limits);
  return limits;
}

template <>
CallMethod MethodOf<v1::SolveRequest>() {
  return CallMethod::kSolve;
}
template <>
CallMethod MethodOf<v1::AnalyzeRequest>() {
  return CallMethod::kAnalyze;
}
template <>
CallMethod MethodOf<v1::SampleRequest>() {
  return CallMethod::kSample;
}

template <class Request, class Response>
void AnswerCall(const CallEnv& env, Transport transport, const Request& request,
                Response* response, const std::function<SearchLimits(uint32_t timeout_ms)>& limits,
                std::function<void(const absl::Status&)> done, const ParsedPuzzle* parsed) {
  const auto started = std::chrono::steady_clock::now();
  ServerMetrics* metrics = env.metrics;
  // The request may be gone by the time a search ends: what the stamp needs is kept.
  Request stamp;
  if constexpr (requires { stamp.set_id(request.id()); }) stamp.set_id(request.id());
  auto finish = [started, stamp, response, metrics, transport, done = std::move(done)](
                    const absl::Status& status, AnswerSource source) {
    const auto elapsed = std::chrono::steady_clock::now() - started;
    StampAnswer(stamp, elapsed, response);
    metrics->RecordCall(MethodOf<Request>(), transport, source, status.code(), elapsed);
    done(status);
  };
  absl::Status status;
  RequestHandler::SearchStep<Response> search;
  if (env.handler->FromTables(request, response, &status, &search, parsed) ==
      RequestHandler::Route::kAnswered) {
    finish(status, status.ok() ? AnswerSource::kTable : AnswerSource::kNone);
    return;
  }
  uint32_t timeout_ms = 0;
  if constexpr (requires { request.timeout_ms(); }) timeout_ms = request.timeout_ms();
  SearchLimits search_limits = limits(timeout_ms);
  // `finish` is copied into the work only if the pool takes it; refused, it is used here.
  auto shared_finish = std::make_shared<decltype(finish)>(std::move(finish));
  const bool accepted = env.pool->TrySubmit(
      [shared_finish, response, search_limits,
       search = std::move(search)]() -> std::function<void()> {
        absl::Status searched = EndedWhileQueued(search_limits);
        if (searched.ok()) searched = search(search_limits, response);
        // Delivered once the slot is free again (SearchPool).
        return [shared_finish, searched] { (*shared_finish)(searched, AnswerSource::kSearch); };
      });
  if (!accepted) (*shared_finish)(SearchRefusedStatus(*env.pool), AnswerSource::kRefused);
}

template void AnswerCall(const CallEnv&, Transport, const v1::SolveRequest&, v1::SolveResponse*,
                         const std::function<SearchLimits(uint32_t)>&,
                         std::function<void(const absl::Status&)>, const ParsedPuzzle*);
template void AnswerCall(const CallEnv&, Transport, const v1::AnalyzeRequest&,
                         v1::AnalyzeResponse*, const std::function<SearchLimits(uint32_t)>&,
                         std::function<void(const absl::Status&)>, const ParsedPuzzle*);
template void AnswerCall(const CallEnv&, Transport, const v1::SampleRequest&, v1::SampleResponse*,
                         const std::function<SearchLimits(uint32_t)>&,
                         std::function<void(const absl::Status&)>, const ParsedPuzzle*);

}  // namespace puzzledb
