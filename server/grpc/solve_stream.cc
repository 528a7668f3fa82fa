#include "server/grpc/solve_stream.h"

#include <algorithm>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "core/util/strings.h"
#include "server/grpc/solver_service.h"
#include "service/clock.h"
#include "service/memory_budget.h"
#include "service/retry_hint.h"

namespace puzzledb {
namespace {

// One SolveStream call.
//
// Reading: the next read is started as soon as a request has arrived, before it is
// answered, so that receiving and answering overlap (and two requests may be answered at
// once on two threads: answers carry the request's id, and their order is not promised).
// Reading pauses while `stream_window` answers wait to be written, while the stream holds
// `window_bytes` of requests not answered and answers not written, while the server's
// memory budget is spent (unless the stream holds nothing: then it always reads one), and
// while `stream_searches` of the stream's requests are searched or wait for a search slot:
// a stream's searches wait for a slot (SearchPool::Submit) instead of being refused, and
// the stream reads no further ahead than that. What it holds is charged to the budget.
//
// Messages arrive as bytes and are parsed here: one that does not parse as a SolveRequest
// ends the stream with INVALID_ARGUMENT naming it, once the answers of the requests before
// it are written (docs/API.md, "SolveStream"). Answers are serialized as they are made, so
// the bytes a stream holds are known exactly.
//
// Writing: one write in flight at a time (gRPC's rule). Answers are held back while another
// request is being answered from the tables (its answer is a few microseconds away) and
// then written as a batch, all but the last with the buffer hint (and never the first write
// of the call, which carries the headers; see WriteNextLocked), so that a burst of
// answers leaves in a few frames and system calls instead of one each. Nothing is held
// for a search: its answer is written when it comes.
//
// Lifetime: gRPC calls OnDone once, after Finish and after every reaction (OnReadDone,
// OnWriteDone, OnCancel) has returned. The pool's threads are not gRPC's: each search holds
// the reactor (`outside_`) from its submission until its last touch, and the reactor is
// deleted by whichever comes last, OnDone or the last search to let go. A search of a
// stream that ended (the client went away) is cancelled, or skipped if it had not started,
// and its answer dropped.
//
// The call finishes once the client has stopped sending, every search has ended and every
// answer is written, or early when the client goes away.
class SolveStreamReactor final : public grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
 private:
  // A request's size on the wire, held from its read until its answer is queued.
  struct RequestBytes {
    size_t size = 0;
  };
  // An answer waiting to be written, serialized.
  struct Queued {
    grpc::ByteBuffer bytes;
    size_t size = 0;
  };

 public:
  SolveStreamReactor(const CallEnv& env, const StreamOptions& options,
                     grpc::CallbackServerContext* context)
      : env_(env), options_(options), context_(context) {
    env_.metrics->StreamOpened();
    if (env_.memory != nullptr) env_.memory->TryCharge(MemoryUse::kStream, 0, &held_);
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
    ++messages_;
    const size_t request_bytes = request_.Length();
    v1::SolveRequest request;
    if (!grpc::SerializationTraits<v1::SolveRequest>::Deserialize(&request_, &request).ok()) {
      // The stream ends here, with the answers of the requests before this one.
      failed_ = grpc::Status(
          grpc::StatusCode::INVALID_ARGUMENT,
          Cat("message ", messages_, " of the stream (", request_bytes,
              " bytes) is not a puzzledb.v1.SolveRequest in protobuf's binary format (malformed, "
              "or a string that is not UTF-8); the stream ends here, the requests before it "
              "answered"));
      reads_done_ = true;
      env_.metrics->RecordCall(CallMethod::kSolveStream, Transport::kGrpc, AnswerSource::kNone,
                               absl::StatusCode::kInvalidArgument,
                               std::chrono::steady_clock::now() - started);
      WriteNextLocked(lock);
      MaybeFinishLocked(lock);
      return;
    }
    ++answering_;
    held_bytes_ += request_bytes;  // until it is answered
    held_.GrowAnyway(request_bytes);
    const bool read_more = TakeReadLocked();
    lock.unlock();
    if (read_more) StartRead(&request_);
    const RequestBytes bytes{request_bytes};

    std::unique_ptr<v1::SolveResponse> response = TakeResponse();
    if (request.has_batch()) {
      AnswerBatchMessage(request, started, bytes, std::move(response));
      return;
    }
    RequestHandler::Routed<v1::SolveResponse> routed = env_.handler->Answer(request, response.get());
    if (!routed.NeedsSearch()) {
      Answer(request.id(), started, bytes, routed.status, std::move(response),
             Phase::kTables);
      return;
    }
    RequestHandler::SearchStep<v1::SolveResponse> search = std::move(routed.search);
    lock.lock();
    --answering_;
    ++searching_;
    ++outside_;  // the search's hold on this reactor
    WriteNextLocked(lock);  // what was held for this request is not held for its search
    lock.unlock();
    SearchLimits limits = CallLimits(env_, DeadlineOf(*context_), request.timeout_ms(), &cancelled_);
    const uint64_t id = request.id();
    response->Clear();
    auto* searched = response.release();  // owned by the search
    const bool accepted = env_.pool->Submit(
        [this, search = std::move(search), id, started, bytes, limits,
         searched]() -> std::function<void()> {
          std::shared_ptr<v1::SolveResponse> answer(searched);
          absl::Status s = EndedWhileQueued(limits);
          if (s.ok()) s = search(limits, answer.get());
          return [this, id, started, bytes, s, answer]() mutable {
            Answer(id, started, bytes, s,
                   std::make_unique<v1::SolveResponse>(std::move(*answer)), Phase::kSearch);
            LetGo();
          };
        });
    if (!accepted) {  // the server is stopping
      Answer(id, started, bytes,
             WithRetryHint(absl::UnavailableError("the server is shutting down")),
             std::unique_ptr<v1::SolveResponse>(searched), Phase::kSearch);
      LetGo();
    }
  }

  void OnWriteDone(bool ok) override {
    std::unique_lock<std::mutex> lock(mutex_);
    DropFrontLocked();
    writing_ = false;
    if (!ok) broken_ = true;  // the client is gone; drop what is left
    if (broken_) DropQueueLocked(0);
    const bool read_more = TakeReadLocked();
    WriteNextLocked(lock);
    MaybeFinishLocked(lock);
    lock.unlock();
    if (read_more) StartRead(&request_);
  }

  void OnCancel() override {
    cancelled_ = true;
    std::unique_lock<std::mutex> lock(mutex_);
    broken_ = true;
    // Drop what is queued, but the answer being written (OnWriteDone pops it).
    DropQueueLocked(writing_ ? 1u : 0u);
    MaybeFinishLocked(lock);
  }

  void OnDone() override {
    env_.metrics->StreamClosed();
    std::unique_lock<std::mutex> lock(mutex_);
    done_ = true;
    if (outside_ > 0) return;  // the last search to let go deletes it
    lock.unlock();
    delete this;
  }

 private:
  enum class Phase { kTables, kSearch };
  static constexpr size_t kBatch = 64;  // answers held back at most
  // Answers kept for reuse are of at most this many serialized bytes.
  static constexpr size_t kSpareBytes = 4096;

  // A batch sent as a message of the stream (SolveRequest.batch): answered as SolveBatch
  // answers, by one message with `batch` set. It counts as one of the stream's searches
  // until it is answered (its own searches are at most the pool's capacity at once), and
  // its requests are counted as calls by AnswerBatch.
  void AnswerBatchMessage(const v1::SolveRequest& request, std::chrono::steady_clock::time_point started,
                          RequestBytes bytes, std::unique_ptr<v1::SolveResponse> response) {
    std::unique_lock<std::mutex> lock(mutex_);
    --answering_;
    ++searching_;
    ++outside_;  // the batch's hold on this reactor
    WriteNextLocked(lock);
    lock.unlock();
    const uint64_t id = request.id();
    // Which fields are set (ListFields: no copy of the batch to find out).
    std::vector<const google::protobuf::FieldDescriptor*> set;
    request.GetReflection()->ListFields(request, &set);
    const bool others = std::any_of(set.begin(), set.end(), [](const auto* field) {
      return field->number() != v1::SolveRequest::kBatchFieldNumber &&
             field->number() != v1::SolveRequest::kIdFieldNumber;
    });
    if (others) {
      Answer(id, started, bytes,
             absl::InvalidArgumentError("a batch message sets only batch and id; set the other "
                                        "fields on each of batch.requests"),
             std::move(response), Phase::kSearch, /*counted=*/false);
      env_.metrics->RecordCall(CallMethod::kSolveStream, Transport::kGrpc, AnswerSource::kNone,
                               absl::StatusCode::kInvalidArgument,
                               std::chrono::steady_clock::now() - started);
      LetGo();
      return;
    }
    v1::SolveResponse* answer = response.release();  // owned by the batch until it is answered
    AnswerBatch(
        env_, Transport::kGrpc, CallMethod::kSolveStream, request.batch(), answer->mutable_batch(),
        [this](uint32_t timeout_ms) {
          return CallLimits(env_, DeadlineOf(*context_), timeout_ms, &cancelled_);
        },
        [this, id, started, bytes, answer](const absl::Status& status) {
          Answer(id, started, bytes, status, std::unique_ptr<v1::SolveResponse>(answer),
                 Phase::kSearch, /*counted=*/false);
          LetGo();
        });
  }

  // A search's last touch of the reactor.
  void LetGo() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (--outside_ > 0 || !done_) return;
    lock.unlock();
    delete this;
  }

  // Marks a read as started if there is room for its answer; the caller starts it after
  // unlocking.
  bool TakeReadLocked() {
    if (broken_ || reads_done_ || read_pending_ || finished_) return false;
    if (queue_.size() >= options_.stream_window) return false;  // OnWriteDone resumes
    // Bytes: OnWriteDone or Answer resumes (the stream holds something, so one of them
    // comes).
    if (held_bytes_ >= options_.window_bytes) return false;
    if (held_bytes_ > 0 && env_.memory != nullptr && !env_.memory->HasRoom()) return false;
    if (searching_ >= options_.stream_searches) return false;   // Answer resumes
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

  // `counted`: the answer is counted in the metrics here (a batch's requests are counted
  // by AnswerBatch).
  void Answer(uint64_t id, std::chrono::steady_clock::time_point started, RequestBytes bytes,
              const absl::Status& status, std::unique_ptr<v1::SolveResponse> response, Phase phase,
              bool counted = true) {
    if (!status.ok()) {
      response->Clear();
      SetError(status, response->mutable_error());
    }
    const auto elapsed = std::chrono::steady_clock::now() - started;
    response->set_id(id);
    response->set_micros(Micros(elapsed));
    const AnswerSource source = phase == Phase::kSearch ? AnswerSource::kSearch
                                : status.ok()           ? AnswerSource::kTable
                                                        : AnswerSource::kNone;
    if (counted) {
      env_.metrics->RecordCall(CallMethod::kSolveStream, Transport::kGrpc, source,
                               status.code(), elapsed);
    }
    // Serialized here, on the thread that answered: the queue holds bytes, counted exactly.
    Queued queued;
    bool own = false;
    grpc::SerializationTraits<v1::SolveResponse>::Serialize(*response, &queued.bytes, &own);
    queued.size = queued.bytes.Length();
    std::unique_lock<std::mutex> lock(mutex_);
    // Kept for reuse when small: a cleared message keeps the allocations of its repeated
    // fields, and a batch's answer or a listing's would keep its many answers' memory,
    // uncounted (issue 64, D2: 20 streams of 20 listings held +1.7 GB so, 9 times what the
    // window counted).
    if (!response->has_batch() && queued.size <= kSpareBytes && spare_.size() < kBatch) {
      spare_.push_back(std::move(response));
    }
    (phase == Phase::kTables ? answering_ : searching_)--;
    held_bytes_ -= bytes.size;  // the request is answered
    held_.Shrink(bytes.size);
    if (!broken_) {
      held_bytes_ += queued.size;  // until written
      held_.GrowAnyway(queued.size);
      queue_.push_back(std::move(queued));
    }
    const bool read_more = phase == Phase::kSearch && TakeReadLocked();
    WriteNextLocked(lock);
    MaybeFinishLocked(lock);
    lock.unlock();
    if (read_more) StartRead(&request_);
  }

  // Starts the next write unless one is in flight, or the answer is worth holding back for
  // the one being computed. May unlock.
  void WriteNextLocked(std::unique_lock<std::mutex>& lock) {
    if (writing_ || queue_.empty() || finished_) return;
    if (answering_ > 0 && queue_.size() < kBatch && !broken_) return;
    writing_ = true;
    const grpc::ByteBuffer* next = &queue_.front().bytes;
    grpc::WriteOptions options;
    // More answers are queued behind this one: let gRPC gather them (the last of them goes
    // without the hint and flushes the lot). Never on the first write: it carries the
    // response headers, and gRPC (1.51) holds headers sent with the hint, and the write's
    // completion with them, until something else makes the connection write. Nothing does
    // once the client has sent everything, and the call stalled for good (a CLI run hung
    // about once in 200 on a busy machine).
    if (wrote_ && queue_.size() > 1) options.set_buffer_hint();
    wrote_ = true;
    lock.unlock();
    StartWrite(next, options);
    lock.lock();
  }

  // Finishes the call when nothing is left to do. Called from reactions (gRPC runs OnDone
  // only after they return) or from a search's delivery, which still holds the reactor.
  void MaybeFinishLocked(std::unique_lock<std::mutex>& lock) {
    if (finished_ || searching_ > 0 || answering_ > 0 || writing_ || !queue_.empty() ||
        read_pending_) {
      return;
    }
    if (!reads_done_ && !broken_) return;
    finished_ = true;
    lock.unlock();
    Finish(failed_);
    lock.lock();
  }

  void DropFrontLocked() {
    held_bytes_ -= queue_.front().size;
    held_.Shrink(queue_.front().size);
    queue_.pop_front();
  }
  // Drops queued answers from the back until `keep` are left.
  void DropQueueLocked(size_t keep) {
    while (queue_.size() > keep) {
      held_bytes_ -= queue_.back().size;
      held_.Shrink(queue_.back().size);
      queue_.pop_back();
    }
  }

  const CallEnv env_;
  const StreamOptions options_;
  grpc::CallbackServerContext* const context_;
  grpc::ByteBuffer request_;  // where the pending read lands
  std::mutex mutex_;
  std::deque<Queued> queue_;  // front() is being written when writing_
  std::vector<std::unique_ptr<v1::SolveResponse>> spare_;  // answered and serialized, for reuse
  uint64_t messages_ = 0;  // read so far
  size_t held_bytes_ = 0;  // requests not answered and answers not written, in bytes
  MemoryBudget::Charge held_;  // the same, charged to the server's budget
  grpc::Status failed_;  // how the stream ends: OK, or the message that did not parse
  int answering_ = 0;  // requests being answered from the tables now
  int searching_ = 0;  // requests being searched or waiting for a search slot
  int outside_ = 0;    // searches that may still touch this reactor
  bool writing_ = false;
  bool wrote_ = false;  // a write has been started (the headers are on their way)
  bool reads_done_ = false;
  bool read_pending_ = false;
  bool broken_ = false;
  bool finished_ = false;
  bool done_ = false;  // OnDone has run
  std::atomic<bool> cancelled_{false};  // read by this stream's searches
};

}  // namespace

grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* NewSolveStreamReactor(
    const CallEnv& env, const StreamOptions& options, grpc::CallbackServerContext* context) {
  return new SolveStreamReactor(env, options, context);
}

}  // namespace puzzledb
