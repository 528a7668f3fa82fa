#include "server/grpc/solver_service.h"

#include "core/util/strings.h"
#include "service/memory_budget.h"
#include "service/puzzle_text.h"
#include "service/retry_hint.h"

namespace puzzledb {

grpc::Status ToGrpc(const absl::Status& status, grpc::CallbackServerContext* context) {
  if (status.ok()) return grpc::Status::OK;
  if (auto after = RetryHintOf(status)) {
    context->AddTrailingMetadata("grpc-retry-pushback-ms", std::to_string(after->count()));
  } else if (status.code() == absl::StatusCode::kResourceExhausted ||
             status.code() == absl::StatusCode::kUnavailable) {
    // The codes a retry policy may name, refused for good (a search that used its node
    // budget, a listing too large): a negative pushback tells gRPC not to retry (gRFC A6).
    context->AddTrailingMetadata("grpc-retry-pushback-ms", "-1");
  }
  // absl and gRPC share the canonical code numbers.
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), std::string(Message(status)));
}

std::optional<std::chrono::steady_clock::time_point> DeadlineOf(
    const grpc::CallbackServerContext& context) {
  const auto now_system = std::chrono::system_clock::now();
  const auto call_deadline = context.deadline();
  // gRPC reports "no deadline" as a time point far in the future.
  if (call_deadline - now_system >= std::chrono::hours(24 * 365)) return std::nullopt;
  return std::chrono::steady_clock::now() +
         std::chrono::duration_cast<std::chrono::steady_clock::duration>(call_deadline -
                                                                         now_system);
}

namespace {

class ArenaBatchHolder final
    : public grpc::MessageHolder<v1::SolveBatchRequest, v1::SolveBatchResponse> {
 public:
  ArenaBatchHolder() : arena_(BatchArenaOptions()) {
    set_request(google::protobuf::Arena::CreateMessage<v1::SolveBatchRequest>(&arena_));
    set_response(google::protobuf::Arena::CreateMessage<v1::SolveBatchResponse>(&arena_));
  }
  void Release() override { delete this; }

 private:
  google::protobuf::Arena arena_;
};

}  // namespace

grpc::MessageHolder<v1::SolveBatchRequest, v1::SolveBatchResponse>*
ArenaBatchAllocator::AllocateMessages() {
  return new ArenaBatchHolder();
}

namespace {

// A unary call's reactor: it hears cancellation (a search stops), and it holds what the
// call's answer holds until gRPC is done with the call (OnDone: the answer written, or the
// call gone), not only until Finish: gRPC keeps the message and its serialized copy until
// the client's window lets it write them (issue 64, D1). gRPC deletes it (OnDone) only
// after Finish, and Finish is the last thing a delivery does with it.
class CallReactor final : public grpc::ServerUnaryReactor {
 public:
  std::atomic<bool>* cancelled() { return &cancelled_; }
  MemoryBudget::Charge* charge() { return &charge_; }
  void OnCancel() override { cancelled_ = true; }
  void OnDone() override { delete this; }

 private:
  std::atomic<bool> cancelled_{false};
  MemoryBudget::Charge charge_;
};

// `status`, or the budget's refusal when `*charge` cannot grow to `held` bytes (what the
// call holds until gRPC has written its answer); the answer is cleared then.
absl::Status HoldAnswer(MemoryBudget* memory, MemoryUse use, size_t held,
                        google::protobuf::Message* answer, MemoryBudget::Charge* charge,
                        absl::Status status) {
  if (memory == nullptr || !status.ok() || held <= charge->bytes()) return status;
  const bool charged = charge->bytes() > 0 ? charge->Grow(held - charge->bytes())
                                           : memory->TryCharge(use, held, charge);
  if (charged) return status;
  answer->Clear();
  return memory->Refusal(use, held);
}

}  // namespace

// Answers of fewer serialized bytes than this are not charged: each would hold a few
// kilobytes at most while gRPC writes it, and the calls open at once are bounded per
// connection (--grpc-max-streams). Measuring a message's memory (SpaceUsedLong walks it by
// reflection) and a reactor of its own cost a small call 5-10 % of its rate.
constexpr size_t kChargedAnswerBytes = 16 << 10;

template <class Request, class Response>
grpc::ServerUnaryReactor* SolverService::Unary(grpc::CallbackServerContext* context,
                                               const Request* request, Response* response) {
  // The reactor is chosen once the table step has said whether a search is needed and the
  // answer is known: a small answer from the tables finishes on gRPC's default reactor,
  // here (the cheapest path); a search (which must hear cancellation) or a large answer
  // (charged until gRPC has written it) on a CallReactor.
  auto chosen = std::make_shared<grpc::ServerUnaryReactor*>(nullptr);
  auto ours = std::make_shared<CallReactor*>(nullptr);
  const CallEnv& env = env_;
  AnswerCall(
      env, Transport::kGrpc, *request, response,
      [chosen, ours, &env, context](uint32_t timeout_ms) {
        *ours = new CallReactor();
        *chosen = *ours;
        return CallLimits(env, DeadlineOf(*context), timeout_ms, (*ours)->cancelled());
      },
      [chosen, ours, &env, context, response](const absl::Status& status) {
        absl::Status answered = status;
        const size_t bytes = env.memory != nullptr && status.ok() ? response->ByteSizeLong() : 0;
        if (bytes >= kChargedAnswerBytes) {
          if (*ours == nullptr) {
            *ours = new CallReactor();
            *chosen = *ours;
          }
          // What the answer holds until gRPC has written it: the message, and twice its
          // serialized size (gRPC's copy, and its transport's frames of it). Protobuf's
          // SpaceUsedLong counts the bytes of each allocation but not the allocator's own
          // share of each: an answer of 10,000 listings (tens of thousands of small
          // strings) held 1.4 times what it says, hence one and a half times it
          // (docs/PERFORMANCE.md, "The gRPC port, what it counts").
          answered = HoldAnswer(env.memory, MemoryUse::kGrpcAnswer,
                                response->SpaceUsedLong() * 3 / 2 + 2 * bytes, response,
                                (*ours)->charge(), status);
        }
        if (*chosen == nullptr) *chosen = context->DefaultReactor();
        (*chosen)->Finish(ToGrpc(answered, context));
      });
  return *chosen;
}

grpc::ServerUnaryReactor* SolverService::SolveBatch(grpc::CallbackServerContext* context,
                                                    const v1::SolveBatchRequest* request,
                                                    v1::SolveBatchResponse* response) {
  // The call's request and answers live on its arena: charged at four times what the
  // request took there as it arrives, refused when the budget cannot; once answered, grown
  // to what the arena and the serialized answers hold (if more), and held until gRPC has
  // written them (CallReactor).
  auto* reactor = new CallReactor();
  if (env_.memory != nullptr) {
    const google::protobuf::Arena* arena = request->GetArena();
    const size_t bytes = 4 * (arena != nullptr ? static_cast<size_t>(arena->SpaceAllocated())
                                               : request->SpaceUsedLong());
    if (!env_.memory->TryCharge(MemoryUse::kGrpcBatch, bytes, reactor->charge())) {
      const absl::Status refused = env_.memory->Refusal(MemoryUse::kGrpcBatch, bytes);
      env_.metrics->RecordCall(CallMethod::kSolveBatch, Transport::kGrpc, AnswerSource::kRefused,
                               refused.code(), std::chrono::nanoseconds(0));
      reactor->Finish(ToGrpc(refused, context));
      return reactor;
    }
  }
  const CallEnv& env = env_;
  AnswerBatch(
      env, Transport::kGrpc, CallMethod::kSolveBatch, *request, response,
      [reactor, &env, context](uint32_t timeout_ms) {
        return CallLimits(env, DeadlineOf(*context), timeout_ms, reactor->cancelled());
      },
      [reactor, &env, context, response](const absl::Status& status) {
        // The arena (the request and the answers) and twice the answers' serialized size
        // (as a unary answer's, above).
        const google::protobuf::Arena* arena = response->GetArena();
        const size_t held =
            env.memory == nullptr || !status.ok()
                ? 0
                : (arena != nullptr ? static_cast<size_t>(arena->SpaceAllocated())
                                    : response->SpaceUsedLong()) +
                      2 * response->ByteSizeLong();
        reactor->Finish(ToGrpc(HoldAnswer(env.memory, MemoryUse::kGrpcBatch, held, response,
                                          reactor->charge(), status),
                               context));
      });
  return reactor;
}

grpc::ServerUnaryReactor* SolverService::Solve(grpc::CallbackServerContext* context,
                                               const v1::SolveRequest* request,
                                               v1::SolveResponse* response) {
  return Unary(context, request, response);
}

grpc::ServerUnaryReactor* SolverService::Analyze(grpc::CallbackServerContext* context,
                                                 const v1::AnalyzeRequest* request,
                                                 v1::AnalyzeResponse* response) {
  return Unary(context, request, response);
}

grpc::ServerUnaryReactor* SolverService::Sample(grpc::CallbackServerContext* context,
                                                const v1::SampleRequest* request,
                                                v1::SampleResponse* response) {
  return Unary(context, request, response);
}

grpc::ServerUnaryReactor* SolverService::ListTables(grpc::CallbackServerContext* context,
                                                    const v1::ListTablesRequest*,
                                                    v1::ListTablesResponse* response) {
  const auto started = std::chrono::steady_clock::now();
  *response = env_.handler->ListTables();
  auto* reactor = context->DefaultReactor();
  env_.metrics->RecordCall(CallMethod::kListTables, Transport::kGrpc, AnswerSource::kNone,
                           absl::StatusCode::kOk, std::chrono::steady_clock::now() - started);
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

grpc::ServerUnaryReactor* SolverService::ListPuzzles(grpc::CallbackServerContext* context,
                                                     const v1::ListPuzzlesRequest*,
                                                     v1::ListPuzzlesResponse* response) {
  const auto started = std::chrono::steady_clock::now();
  *response = env_.handler->ListPuzzles();
  auto* reactor = context->DefaultReactor();
  env_.metrics->RecordCall(CallMethod::kListPuzzles, Transport::kGrpc, AnswerSource::kNone,
                           absl::StatusCode::kOk, std::chrono::steady_clock::now() - started);
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

template <class Request, class Response>
grpc::ServerUnaryReactor* SolverService::ByModel(grpc::CallbackServerContext* context,
                                                 const Request& request, Response* response,
                                                 CallMethod method,
                                                 absl::StatusOr<Response> (*answer)(const Request&)) {
  const auto started = std::chrono::steady_clock::now();
  absl::StatusOr<Response> answered = answer(request);
  if (answered.ok()) *response = std::move(*answered);
  env_.metrics->RecordCall(method, Transport::kGrpc, AnswerSource::kNone,
                           answered.status().code(), std::chrono::steady_clock::now() - started);
  auto* reactor = context->DefaultReactor();
  reactor->Finish(ToGrpc(answered.status(), context));
  return reactor;
}

grpc::ServerUnaryReactor* SolverService::ParseInput(grpc::CallbackServerContext* context,
                                                    const v1::ParseInputRequest* request,
                                                    v1::ParseInputResponse* response) {
  return ByModel(context, *request, response, CallMethod::kParseInput, &puzzledb::ParseInput);
}

grpc::ServerUnaryReactor* SolverService::Play(grpc::CallbackServerContext* context,
                                              const v1::PlayRequest* request,
                                              v1::PlayResponse* response) {
  return ByModel(context, *request, response, CallMethod::kPlay, &puzzledb::Play);
}

grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* SolverService::SolveStream(
    grpc::CallbackServerContext* context) {
  return NewSolveStreamReactor(env_, stream_options_, context);
}

}  // namespace puzzledb
