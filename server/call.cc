#include "server/call.h"

#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "core/util/strings.h"
#include "service/retry_hint.h"

namespace puzzledb {

absl::Status EndedWhileQueued(const SearchLimits& limits) {
  return LimitsReached(limits, "the call, while its search waited for a slot,");
}

google::protobuf::ArenaOptions BatchArenaOptions() {
  google::protobuf::ArenaOptions options;
  options.start_block_size = 4 << 10;
  options.max_block_size = 1 << 20;
  return options;
}

absl::Status SearchRefusedStatus(const SearchPool& pool) {
  return WithRetryHint(absl::ResourceExhaustedError(
      Cat("the server runs at most ", pool.capacity(), " ",
          pool.capacity() == 1 ? "search" : "searches",
          " at once (--max-concurrent-searches) and its queue of ", pool.queue_limit(),
          " waiting (--search-queue) is full; retry later")));
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
  // A pool of one thread never has one spare for a search that runs on it.
  if (env.pool != nullptr && env.pool->capacity() > 1) limits.threads = env.pool->Lender();
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
                std::function<void(const absl::Status&)> done, const Position* parsed) {
  const auto started = std::chrono::steady_clock::now();
  ServerMetrics* metrics = env.metrics;
  // The request may be gone by the time a search ends: what the stamp needs is kept.
  uint64_t id = 0;
  if constexpr (requires { request.id(); }) id = request.id();
  auto finish = [started, id, response, metrics, transport, done = std::move(done)](
                    const absl::Status& status, AnswerSource source) {
    const auto elapsed = std::chrono::steady_clock::now() - started;
    StampAnswer(id, elapsed, response);
    metrics->RecordCall(MethodOf<Request>(), transport, source, status.code(), elapsed);
    done(status);
  };
  RequestHandler::Routed<Response> routed = env.handler->Answer(request, response, parsed);
  if (!routed.NeedsSearch()) {
    finish(routed.status, routed.status.ok() ? AnswerSource::kTable : AnswerSource::kNone);
    return;
  }
  RequestHandler::SearchStep<Response> search = std::move(routed.search);
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

namespace {

// A batch's searches: handed to the pool a few at a time, each one's delivery handing on
// the next; the last one's calls `done`.
struct BatchSearches {
  CallEnv env;
  Transport transport;
  CallMethod method;
  std::chrono::steady_clock::time_point started;
  v1::SolveBatchResponse* response;
  std::function<void(const absl::Status&)> done;
  std::vector<RequestHandler::BatchSearch> searches;
  std::vector<SearchLimits> limits;  // searches[i]'s
  std::mutex mutex;
  size_t next = 0;  // the first search not handed to the pool yet
  size_t left = 0;  // searches not answered yet
};

// Search `i` ended with `status` (its answer in place if OK): stamped and counted. Returns
// the next search to hand to the pool, or SIZE_MAX; calls `done` after the last.
size_t Delivered(BatchSearches& batch, size_t i, const absl::Status& status) {
  v1::SolveResponse* out = batch.response->mutable_responses(static_cast<int>(batch.searches[i].index));
  const auto elapsed = std::chrono::steady_clock::now() - batch.started;
  if (!status.ok()) SetErrorInBand(status, out->id(), out);
  out->set_micros(static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(elapsed).count()));
  batch.env.metrics->RecordCall(batch.method, batch.transport, AnswerSource::kSearch,
                                status.code(), elapsed);
  size_t hand_on = SIZE_MAX;
  bool last = false;
  {
    std::lock_guard<std::mutex> lock(batch.mutex);
    if (batch.next < batch.searches.size()) hand_on = batch.next++;
    last = --batch.left == 0;
  }
  if (last) batch.done(absl::OkStatus());
  return hand_on;
}

// Hands search `i` to the pool; each one's delivery hands on the next. A search whose call
// has ended (cancelled, or past its deadline) is answered so here without taking a slot,
// and so is every one after it: a cut batch of thousands of searches does not cycle them
// through the pool. (A pool that is stopping takes none: they are answered UNAVAILABLE.)
void SubmitBatchSearch(const std::shared_ptr<BatchSearches>& batch, size_t i) {
  while (i != SIZE_MAX) {
    if (absl::Status ended = EndedWhileQueued(batch->limits[i]); !ended.ok()) {
      i = Delivered(*batch, i, ended);
      continue;
    }
    const bool accepted = batch->env.pool->Submit([batch, i]() -> std::function<void()> {
      const SearchLimits& limits = batch->limits[i];
      v1::SolveResponse* out =
          batch->response->mutable_responses(static_cast<int>(batch->searches[i].index));
      absl::Status searched = EndedWhileQueued(limits);
      if (searched.ok()) searched = batch->searches[i].step(limits, out);
      // Delivered once the slot is free again (SearchPool).
      return [batch, i, searched] {
        const size_t next = Delivered(*batch, i, searched);
        if (next != SIZE_MAX) SubmitBatchSearch(batch, next);
      };
    });
    if (accepted) return;
    i = Delivered(*batch, i, WithRetryHint(absl::UnavailableError("the server is shutting down")));
  }
}

}  // namespace

void AnswerBatch(const CallEnv& env, Transport transport, CallMethod method,
                 const v1::SolveBatchRequest& request, v1::SolveBatchResponse* response,
                 const std::function<SearchLimits(uint32_t timeout_ms)>& limits,
                 std::function<void(const absl::Status&)> done) {
  const auto started = std::chrono::steady_clock::now();
  std::vector<RequestHandler::BatchSearch> searches;
  // A large batch's table step is shared with idle search threads (only while no search
  // waits for one, as a search's helpers are: SearchPool::Lender).
  const absl::Status status =
      env.handler->SolveBatch(request, response, &searches, env.pool->Lender());
  const auto elapsed = std::chrono::steady_clock::now() - started;
  if (!status.ok()) {
    env.metrics->RecordCall(method, transport, AnswerSource::kNone, status.code(), elapsed);
    done(status);
    return;
  }
  // What the table step answered, counted by how it ended: an answer, or an error.
  const uint64_t micros = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(elapsed).count());
  uint64_t answered = 0;
  std::map<absl::StatusCode, uint64_t> failed;
  size_t s = 0;
  for (int i = 0; i < response->responses_size(); ++i) {
    if (s < searches.size() && searches[s].index == static_cast<size_t>(i)) {
      ++s;
      continue;
    }
    v1::SolveResponse* out = response->mutable_responses(i);
    out->set_micros(micros);
    if (out->has_error()) {
      ++failed[static_cast<absl::StatusCode>(out->error().code())];
    } else {
      ++answered;
    }
  }
  env.metrics->RecordCalls(method, transport, AnswerSource::kTable, absl::StatusCode::kOk,
                           answered, elapsed);
  for (const auto& [code, count] : failed) {
    env.metrics->RecordCalls(method, transport, AnswerSource::kNone, code, count, elapsed);
  }
  if (searches.empty()) {
    done(absl::OkStatus());
    return;
  }
  auto batch = std::make_shared<BatchSearches>();
  batch->env = env;
  batch->transport = transport;
  batch->method = method;
  batch->started = started;
  batch->response = response;
  batch->done = std::move(done);
  for (const RequestHandler::BatchSearch& search : searches) {
    batch->limits.push_back(limits(search.timeout_ms));
  }
  batch->searches = std::move(searches);
  batch->left = batch->searches.size();
  // As many at once as the pool has slots: a batch keeps no more of them busy than one
  // stream does.
  const size_t first = std::min(batch->searches.size(), static_cast<size_t>(std::max(1, env.pool->capacity())));
  batch->next = first;
  for (size_t i = 0; i < first; ++i) SubmitBatchSearch(batch, i);
}

template void AnswerCall(const CallEnv&, Transport, const v1::SolveRequest&, v1::SolveResponse*,
                         const std::function<SearchLimits(uint32_t)>&,
                         std::function<void(const absl::Status&)>, const Position*);
template void AnswerCall(const CallEnv&, Transport, const v1::AnalyzeRequest&,
                         v1::AnalyzeResponse*, const std::function<SearchLimits(uint32_t)>&,
                         std::function<void(const absl::Status&)>, const Position*);
template void AnswerCall(const CallEnv&, Transport, const v1::SampleRequest&, v1::SampleResponse*,
                         const std::function<SearchLimits(uint32_t)>&,
                         std::function<void(const absl::Status&)>, const Position*);

}  // namespace puzzledb
