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

// A unary call answered by a search: finished from the pool's delivery thread, told when the
// call is cancelled so that the search stops. gRPC deletes it (OnDone) only after Finish,
// and Finish is the last thing the delivery does with it.
class SearchCallReactor final : public grpc::ServerUnaryReactor {
 public:
  std::atomic<bool>* cancelled() { return &cancelled_; }
  void OnCancel() override { cancelled_ = true; }
  void OnDone() override { delete this; }

 private:
  std::atomic<bool> cancelled_{false};
};

}  // namespace

template <class Request, class Response>
grpc::ServerUnaryReactor* SolverService::Unary(grpc::CallbackServerContext* context,
                                               const Request* request, Response* response) {
  // The reactor is chosen once the table step has said whether a search is needed: a table
  // answer finishes on gRPC's default reactor, here; a search (or its refusal) on one that
  // hears cancellation, perhaps from the delivery thread before this returns.
  auto reactor = std::make_shared<grpc::ServerUnaryReactor*>(nullptr);
  const CallEnv& env = env_;
  AnswerCall(
      env, Transport::kGrpc, *request, response,
      [reactor, &env, context](uint32_t timeout_ms) {
        auto* search_reactor = new SearchCallReactor();
        *reactor = search_reactor;
        return CallLimits(env, DeadlineOf(*context), timeout_ms, search_reactor->cancelled());
      },
      [reactor, context](const absl::Status& status) {
        if (*reactor == nullptr) *reactor = context->DefaultReactor();
        (*reactor)->Finish(ToGrpc(status, context));
      });
  return *reactor;
}

grpc::ServerUnaryReactor* SolverService::SolveBatch(grpc::CallbackServerContext* context,
                                                    const v1::SolveBatchRequest* request,
                                                    v1::SolveBatchResponse* response) {
  // As Unary: gRPC's default reactor when the tables answered everything, else one that
  // hears cancellation (made when the first search's limits are asked for).
  // The call's request and answers live on its arena: charged at four times what the
  // request took there (its answers take more than the requests, and gRPC serializes them
  // once more), refused when the budget cannot.
  auto charge = std::make_shared<MemoryBudget::Charge>();
  if (env_.memory != nullptr) {
    const google::protobuf::Arena* arena = request->GetArena();
    const size_t bytes = 4 * (arena != nullptr ? static_cast<size_t>(arena->SpaceAllocated())
                                               : request->SpaceUsedLong());
    if (!env_.memory->TryCharge(MemoryUse::kGrpcBatch, bytes, charge.get())) {
      const absl::Status refused = env_.memory->Refusal(MemoryUse::kGrpcBatch, bytes);
      env_.metrics->RecordCall(CallMethod::kSolveBatch, Transport::kGrpc, AnswerSource::kRefused,
                               refused.code(), std::chrono::nanoseconds(0));
      auto* reactor = context->DefaultReactor();
      reactor->Finish(ToGrpc(refused, context));
      return reactor;
    }
  }
  auto reactor = std::make_shared<grpc::ServerUnaryReactor*>(nullptr);
  const CallEnv& env = env_;
  auto cancel_flag = std::make_shared<std::atomic<bool>*>(nullptr);
  AnswerBatch(
      env, Transport::kGrpc, CallMethod::kSolveBatch, *request, response,
      [reactor, cancel_flag, &env, context](uint32_t timeout_ms) {
        if (*reactor == nullptr) {
          auto* heard = new SearchCallReactor();
          *reactor = heard;
          *cancel_flag = heard->cancelled();
        }
        return CallLimits(env, DeadlineOf(*context), timeout_ms, *cancel_flag);
      },
      [reactor, context, charge](const absl::Status& status) {
        if (*reactor == nullptr) *reactor = context->DefaultReactor();
        (*reactor)->Finish(ToGrpc(status, context));
        charge->Release();
      });
  return *reactor;
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
