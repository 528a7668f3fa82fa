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

template <class Request, class Response, class FromTables, class WithSearch>
grpc::ServerUnaryReactor* SolverService::Unary(grpc::CallbackServerContext* context,
                                               const Request* request, Response* response,
                                               FromTables from_tables, WithSearch with_search) {
  const auto started = std::chrono::steady_clock::now();
  auto finish = [started, request, response](grpc::ServerUnaryReactor* reactor,
                                             const absl::Status& status) {
    response->set_micros(MicrosSince(started));
    if constexpr (requires { response->set_id(request->id()); }) response->set_id(request->id());
    reactor->Finish(ToGrpc(status));
  };
  absl::Status status;
  if (from_tables(*request, response, &status) == RequestHandler::Route::kAnswered) {
    (status.ok() ? counters_.table_answers : counters_.errors)++;
    auto* reactor = context->DefaultReactor();
    finish(reactor, status);
    return reactor;
  }
  auto* reactor = new SearchCallReactor();
  SearchLimits limits = LimitsFor(context, reactor->cancelled());
  ServiceCounters* counters = &counters_;
  const bool accepted =
      pool_->TrySubmit([counters, reactor, request, response, limits, finish, with_search] {
        const absl::Status searched = with_search(*request, limits, response);
        (searched.ok() ? counters->searches : counters->errors)++;
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
  RequestHandler* handler = handler_;
  return Unary(
      context, request, response,
      [handler](const v1::SolveRequest& r, v1::SolveResponse* out, absl::Status* status) {
        return handler->SolveFromTables(r, out, status);
      },
      [handler](const v1::SolveRequest& r, SearchLimits limits, v1::SolveResponse* out) {
        return handler->SolveWithSearch(r, std::move(limits), out);
      });
}

grpc::ServerUnaryReactor* SolverService::Analyze(grpc::CallbackServerContext* context,
                                                 const v1::AnalyzeRequest* request,
                                                 v1::AnalyzeResponse* response) {
  RequestHandler* handler = handler_;
  return Unary(
      context, request, response,
      [handler](const v1::AnalyzeRequest& r, v1::AnalyzeResponse* out, absl::Status* status) {
        return handler->AnalyzeFromTables(r, out, status);
      },
      [handler](const v1::AnalyzeRequest& r, SearchLimits limits, v1::AnalyzeResponse* out) {
        return handler->AnalyzeWithSearch(r, std::move(limits), out);
      });
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

// One SolveStream call.
//
// Reading: the next read is started as soon as a request has arrived, before it is
// answered, so that receiving and answering overlap (and two requests may be answered at
// once on two threads: answers carry the request's id, and their order is not promised).
// Reading pauses while `stream_window` answers wait to be written.
//
// Writing: one write in flight at a time (gRPC's rule). Answers are held back while another
// request is being answered from the tables (its answer is a few microseconds away) and
// then written as a batch, all but the last with the buffer hint, so that a burst of
// answers leaves in a few frames and system calls instead of one each. Nothing is held
// for a search: its answer is written when it comes.
//
// The call finishes once the client has stopped sending, every search has ended and every
// answer is written, or early when the client goes away.
class SolveStreamReactor final : public grpc::ServerBidiReactor<v1::SolveRequest, v1::SolveResponse> {
 public:
  SolveStreamReactor(SolverService* service, grpc::CallbackServerContext* context)
      : service_(service), context_(context) {
    read_pending_ = true;
    StartRead(&request_);
  }

  void OnReadDone(bool ok) override {
    std::unique_lock<std::mutex> lock(mutex_);
    read_pending_ = false;
    if (!ok) {
      reads_done_ = true;
      WriteNextLocked(lock);
      MaybeFinishLocked(lock);
      return;
    }
    const auto started = std::chrono::steady_clock::now();
    v1::SolveRequest request = std::move(request_);
    ++answering_;
    const bool read_more = StartReadIfRoomLocked();
    lock.unlock();
    if (read_more) StartRead(&request_);

    std::unique_ptr<v1::SolveResponse> response = TakeResponse();
    absl::Status status;
    if (service_->handler()->SolveFromTables(request, response.get(), &status) ==
        RequestHandler::Route::kAnswered) {
      (status.ok() ? service_->mutable_counters().table_answers
                   : service_->mutable_counters().errors)++;
      Answer(request.id(), started, ToGrpc(status), std::move(response), Phase::kTables);
      return;
    }
    lock.lock();
    --answering_;
    ++searching_;
    WriteNextLocked(lock);  // what was held for this request is not held for its search
    lock.unlock();
    SearchLimits limits = service_->LimitsFor(context_, &cancelled_);
    const uint64_t id = request.id();
    response->Clear();
    auto* searched = response.release();  // owned by the search (or by the refusal below)
    const bool accepted = service_->pool()->TrySubmit(
        [this, request = std::move(request), started, limits, searched] {
          std::unique_ptr<v1::SolveResponse> answer(searched);
          const absl::Status s = service_->handler()->SolveWithSearch(request, limits, answer.get());
          (s.ok() ? service_->mutable_counters().searches : service_->mutable_counters().errors)++;
          Answer(request.id(), started, ToGrpc(s), std::move(answer), Phase::kSearch);
        });
    if (!accepted) {
      service_->mutable_counters().refused_searches++;
      Answer(id, started, SearchRefused(*service_->pool()),
             std::unique_ptr<v1::SolveResponse>(searched), Phase::kSearch);
    }
  }

  void OnWriteDone(bool ok) override {
    std::unique_lock<std::mutex> lock(mutex_);
    if (spare_.size() < kBatch) spare_.push_back(std::move(queue_.front()));
    queue_.pop_front();
    writing_ = false;
    if (!ok) broken_ = true;  // the client is gone; drop what is left
    if (broken_) queue_.clear();
    bool read_more = false;
    if (read_paused_ && queue_.size() < service_->options().stream_window / 2) {
      read_paused_ = false;
      read_more = StartReadIfRoomLocked();
    }
    WriteNextLocked(lock);
    MaybeFinishLocked(lock);
    lock.unlock();
    if (read_more) StartRead(&request_);
  }

  void OnCancel() override {
    cancelled_ = true;
    std::unique_lock<std::mutex> lock(mutex_);
    broken_ = true;
    MaybeFinishLocked(lock);
  }

  void OnDone() override { delete this; }

 private:
  enum class Phase { kTables, kSearch };
  static constexpr size_t kBatch = 64;  // answers held back at most

  // Marks a read as started if there is room for more answers; the caller starts it after
  // unlocking.
  bool StartReadIfRoomLocked() {
    if (broken_ || reads_done_ || read_pending_) return false;
    if (queue_.size() >= service_->options().stream_window) {
      read_paused_ = true;  // OnWriteDone resumes
      return false;
    }
    read_pending_ = true;
    return true;
  }

  // A response object to fill: a written one, cleared, when there is one (its repeated
  // fields keep their allocations), else a new one.
  std::unique_ptr<v1::SolveResponse> TakeResponse() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (spare_.empty()) return std::make_unique<v1::SolveResponse>();
    std::unique_ptr<v1::SolveResponse> response = std::move(spare_.back());
    spare_.pop_back();
    response->Clear();
    return response;
  }

  void Answer(uint64_t id, std::chrono::steady_clock::time_point started, const grpc::Status& status,
              std::unique_ptr<v1::SolveResponse> response, Phase phase) {
    if (!status.ok()) {
      response->Clear();
      response->mutable_error()->set_code(status.error_code());
      response->mutable_error()->set_message(status.error_message());
    }
    response->set_id(id);
    response->set_micros(MicrosSince(started));
    std::unique_lock<std::mutex> lock(mutex_);
    (phase == Phase::kTables ? answering_ : searching_)--;
    if (!broken_) queue_.push_back(std::move(response));
    WriteNextLocked(lock);
    MaybeFinishLocked(lock);
  }

  // Starts the next write unless one is in flight, or the answer is worth holding back for
  // the one being computed. May unlock.
  void WriteNextLocked(std::unique_lock<std::mutex>& lock) {
    if (writing_ || queue_.empty()) return;
    if (answering_ > 0 && queue_.size() < kBatch && !broken_) return;
    writing_ = true;
    const v1::SolveResponse* next = queue_.front().get();
    grpc::WriteOptions options;
    // More answers are queued, or one is a moment away: let gRPC gather them.
    if (queue_.size() > 1 || answering_ > 0) options.set_buffer_hint();
    lock.unlock();
    StartWrite(next, options);
    lock.lock();
  }

  void MaybeFinishLocked(std::unique_lock<std::mutex>& lock) {
    if (finished_ || searching_ > 0 || answering_ > 0 || writing_ || !queue_.empty() ||
        read_pending_) {
      return;
    }
    if (!reads_done_ && !broken_) return;
    finished_ = true;
    lock.unlock();
    Finish(grpc::Status::OK);
    lock.lock();
  }

  SolverService* const service_;
  grpc::CallbackServerContext* const context_;
  v1::SolveRequest request_;  // where the pending read lands
  std::mutex mutex_;
  std::deque<std::unique_ptr<v1::SolveResponse>> queue_;  // front() is being written when writing_
  std::vector<std::unique_ptr<v1::SolveResponse>> spare_;  // written, for reuse
  int answering_ = 0;  // requests being answered from the tables now
  int searching_ = 0;  // requests being searched
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
