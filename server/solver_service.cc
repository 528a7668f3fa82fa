#include "server/solver_service.h"

#include <deque>
#include <mutex>

#include "core/strings.h"

namespace puzzledb {
namespace {

uint64_t MicrosSince(std::chrono::steady_clock::time_point start) {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                   std::chrono::steady_clock::now() - start)
                                   .count());
}

}  // namespace

grpc::Status ToGrpc(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  // absl and gRPC share the canonical code numbers.
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), std::string(Message(status)));
}

grpc::Status SearchRefused(const SearchPool& pool) {
  return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                      Cat("the server runs at most ", pool.capacity(),
                          " searches at once (--max-concurrent-searches) and all are busy; retry "
                          "later"));
}

SearchLimits SolverService::LimitsFor(grpc::CallbackServerContext* context,
                                      const std::atomic<bool>* cancelled) const {
  SearchLimits limits;
  const auto now_system = std::chrono::system_clock::now();
  const auto now_steady = std::chrono::steady_clock::now();
  const auto call_deadline = context->deadline();
  // gRPC reports "no deadline" as a time point far in the future.
  if (call_deadline - now_system < std::chrono::hours(24 * 365)) {
    limits.deadline = now_steady + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                       call_deadline - now_system);
  } else {
    limits.deadline = now_steady + options_.default_search_deadline;
  }
  limits.cancelled = [cancelled] { return cancelled->load(std::memory_order_relaxed); };
  return limits;
}

namespace {

// A unary call answered by a search: finished from a search thread, and told when the
// call is cancelled so that the search stops.
class SearchCallReactor final : public grpc::ServerUnaryReactor {
 public:
  std::atomic<bool>* cancelled() { return &cancelled_; }
  void OnCancel() override { cancelled_ = true; }
  void OnDone() override { delete this; }

 private:
  std::atomic<bool> cancelled_{false};
};

}  // namespace

// A unary call: answered from the tables on this (gRPC) thread when possible, else by a
// search on the pool, or refused when the pool is full.
template <class Request, class Response>
grpc::ServerUnaryReactor* SolverService::Unary(
    grpc::CallbackServerContext* context, const Request* request, Response* response,
    RequestHandler::Route (RequestHandler::*from_tables)(const Request&, Response*, absl::Status*),
    absl::Status (RequestHandler::*with_search)(const Request&, SearchLimits, Response*)) {
  const auto started = std::chrono::steady_clock::now();
  auto finish = [this, started, request, response](grpc::ServerUnaryReactor* reactor,
                                                    const absl::Status& status) {
    response->set_micros(MicrosSince(started));
    if constexpr (requires { response->set_id(request->id()); }) response->set_id(request->id());
    reactor->Finish(ToGrpc(status));
  };
  absl::Status status;
  if ((handler_->*from_tables)(*request, response, &status) == RequestHandler::Route::kAnswered) {
    (status.ok() ? counters_.table_answers : counters_.errors)++;
    auto* reactor = context->DefaultReactor();
    finish(reactor, status);
    return reactor;
  }
  auto* reactor = new SearchCallReactor();
  SearchLimits limits = LimitsFor(context, reactor->cancelled());
  const bool accepted = pool_->TrySubmit([=, this] {
    const absl::Status searched = (handler_->*with_search)(*request, limits, response);
    (searched.ok() ? counters_.searches : counters_.errors)++;
    finish(reactor, searched);
  });
  if (!accepted) {
    counters_.refused_searches++;
    reactor->Finish(SearchRefused(*pool_));
  }
  return reactor;
}

grpc::ServerUnaryReactor* SolverService::Solve(grpc::CallbackServerContext* context,
                                               const v1::SolveRequest* request,
                                               v1::SolveResponse* response) {
  return Unary(context, request, response, &RequestHandler::SolveFromTables,
               &RequestHandler::SolveWithSearch);
}

grpc::ServerUnaryReactor* SolverService::Analyze(grpc::CallbackServerContext* context,
                                                 const v1::AnalyzeRequest* request,
                                                 v1::AnalyzeResponse* response) {
  return Unary(context, request, response, &RequestHandler::AnalyzeFromTables,
               &RequestHandler::AnalyzeWithSearch);
}

grpc::ServerUnaryReactor* SolverService::ListTables(grpc::CallbackServerContext* context,
                                                    const v1::ListTablesRequest*,
                                                    v1::ListTablesResponse* response) {
  *response = handler_->ListTables();
  auto* reactor = context->DefaultReactor();
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

namespace {

// One SolveStream call. Requests are read one at a time; table answers are queued for
// writing at once, searches go to the pool and queue their answer when done. One write is
// in flight at a time (gRPC's rule), with the buffer hint while more answers wait, so that
// a burst goes out in few frames. Reading pauses while too many answers wait. The call
// finishes once the client has stopped sending and every answer is written.
class SolveStreamReactor final : public grpc::ServerBidiReactor<v1::SolveRequest, v1::SolveResponse> {
 public:
  SolveStreamReactor(SolverService* service, grpc::CallbackServerContext* context)
      : service_(service), context_(context) {
    read_pending_ = true;
    StartRead(&request_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {
      std::unique_lock<std::mutex> lock(mutex_);
      read_pending_ = false;
      reads_done_ = true;
      MaybeFinishLocked(lock);
      return;
    }
    const auto started = std::chrono::steady_clock::now();
    v1::SolveResponse response;
    absl::Status status;
    RequestHandler* handler = service_->handler();
    if (handler->SolveFromTables(request_, &response, &status) ==
        RequestHandler::Route::kAnswered) {
      (status.ok() ? service_->mutable_counters().table_answers
                   : service_->mutable_counters().errors)++;
      Answer(request_.id(), started, ToGrpc(status), std::move(response));
    } else {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        ++searching_;
      }
      SearchLimits limits = service_->LimitsFor(context_, &cancelled_);
      const bool accepted =
          service_->pool()->TrySubmit([this, request = request_, started, limits] {
            v1::SolveResponse searched;
            const absl::Status s = service_->handler()->SolveWithSearch(request, limits, &searched);
            (s.ok() ? service_->mutable_counters().searches : service_->mutable_counters().errors)++;
            Answer(request.id(), started, ToGrpc(s), std::move(searched), /*from_search=*/true);
          });
      if (!accepted) {
        service_->mutable_counters().refused_searches++;
        Answer(request_.id(), started, SearchRefused(*service_->pool()), v1::SolveResponse(),
               /*from_search=*/true);
      }
    }
    std::unique_lock<std::mutex> lock(mutex_);
    read_pending_ = false;
    if (broken_) {
      MaybeFinishLocked(lock);
      return;
    }
    if (queue_.size() >= service_->options().stream_window) {
      read_paused_ = true;  // OnWriteDone resumes
      return;
    }
    read_pending_ = true;
    lock.unlock();
    StartRead(&request_);
  }

  void OnWriteDone(bool ok) override {
    std::unique_lock<std::mutex> lock(mutex_);
    queue_.pop_front();
    writing_ = false;
    if (!ok) broken_ = true;  // the client is gone; drop what is left
    if (broken_) queue_.clear();
    const bool resume =
        read_paused_ && !broken_ && queue_.size() < service_->options().stream_window / 2;
    if (resume) {
      read_paused_ = false;
      read_pending_ = true;
    }
    WriteNextLocked(lock);
    MaybeFinishLocked(lock);
    lock.unlock();
    if (resume) StartRead(&request_);
  }

  void OnCancel() override {
    cancelled_ = true;
    std::unique_lock<std::mutex> lock(mutex_);
    broken_ = true;
    MaybeFinishLocked(lock);
  }

  void OnDone() override { delete this; }

 private:
  void Answer(uint64_t id, std::chrono::steady_clock::time_point started, const grpc::Status& status,
              v1::SolveResponse response, bool from_search = false) {
    response.set_id(id);
    response.set_micros(MicrosSince(started));
    if (!status.ok()) {
      response.Clear();
      response.set_id(id);
      response.mutable_error()->set_code(status.error_code());
      response.mutable_error()->set_message(status.error_message());
    }
    std::unique_lock<std::mutex> lock(mutex_);
    if (from_search) --searching_;
    if (!broken_) queue_.push_back(std::move(response));
    if (!writing_) {
      WriteNextLocked(lock);
      if (!lock.owns_lock()) lock.lock();
    }
    MaybeFinishLocked(lock);
  }

  // Starts the next write if none is in flight. May unlock.
  void WriteNextLocked(std::unique_lock<std::mutex>& lock) {
    if (writing_ || queue_.empty()) return;
    writing_ = true;
    const v1::SolveResponse* next = &queue_.front();
    grpc::WriteOptions options;
    if (queue_.size() > 1) options.set_buffer_hint();
    lock.unlock();
    StartWrite(next, options);
    lock.lock();
  }

  void MaybeFinishLocked(std::unique_lock<std::mutex>& lock) {
    if (finished_ || searching_ > 0 || writing_ || !queue_.empty() || read_pending_) return;
    if (!reads_done_ && !broken_) return;
    finished_ = true;
    lock.unlock();
    Finish(grpc::Status::OK);
    lock.lock();
  }

  SolverService* const service_;
  grpc::CallbackServerContext* const context_;
  v1::SolveRequest request_;
  std::mutex mutex_;
  std::deque<v1::SolveResponse> queue_;  // front() is being written when writing_
  int searching_ = 0;
  bool writing_ = false;
  bool reads_done_ = false;
  bool read_pending_ = false;
  bool read_paused_ = false;
  bool broken_ = false;
  bool finished_ = false;
  std::atomic<bool> cancelled_{false};  // read by this stream's searches
};

}  // namespace

grpc::ServerBidiReactor<v1::SolveRequest, v1::SolveResponse>* SolverService::SolveStream(
    grpc::CallbackServerContext* context) {
  return new SolveStreamReactor(this, context);
}

}  // namespace puzzledb
