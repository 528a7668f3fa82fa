// The gRPC service puzzledb.v1.Solver: a thin binding of gRPC's callback API to the server's
// call path (server/call.h). Table answers are given on gRPC's own threads, at once;
// searches run on the search pool (see its admission rules). SolveStream's reactor is in
// solve_stream.h.
#ifndef PUZZLEDB_SERVER_GRPC_SOLVER_SERVICE_H_
#define PUZZLEDB_SERVER_GRPC_SOLVER_SERVICE_H_

#include <atomic>
#include <chrono>
#include <optional>

#include "grpcpp/grpcpp.h"
#include "puzzledb/v1/solver.grpc.pb.h"
#include "server/call.h"
#include "server/grpc/solve_stream.h"

namespace puzzledb {

// A batch call's request and response on one arena of their own: parsing ten thousand
// requests and filling as many answers costs one allocation per arena block instead of
// several per request (docs/PERFORMANCE.md, "Batches (issue 26)").
class ArenaBatchAllocator final
    : public grpc::MessageAllocator<v1::SolveBatchRequest, v1::SolveBatchResponse> {
 public:
  grpc::MessageHolder<v1::SolveBatchRequest, v1::SolveBatchResponse>* AllocateMessages() override;
};

// The callback service with SolveStream's messages as bytes (solve_stream.h says why): the
// generated CallbackService, but for that one method.
using SolverCallbackBase = v1::Solver::WithCallbackMethod_Solve<v1::Solver::WithCallbackMethod_Analyze<
    v1::Solver::WithRawCallbackMethod_SolveStream<v1::Solver::WithCallbackMethod_SolveBatch<
        v1::Solver::WithCallbackMethod_ListTables<v1::Solver::WithCallbackMethod_ListPuzzles<
            v1::Solver::WithCallbackMethod_Sample<v1::Solver::WithCallbackMethod_ParseInput<
                v1::Solver::WithCallbackMethod_Play<v1::Solver::Service>>>>>>>>>;

class SolverService final : public SolverCallbackBase {
 public:
  // What `env` points to must outlive the service.
  SolverService(CallEnv env, StreamOptions stream_options)
      : env_(env), stream_options_(stream_options) {
    SetMessageAllocatorFor_SolveBatch(&batch_allocator_);
  }

  grpc::ServerUnaryReactor* Solve(grpc::CallbackServerContext* context,
                                  const v1::SolveRequest* request,
                                  v1::SolveResponse* response) override;
  grpc::ServerUnaryReactor* Analyze(grpc::CallbackServerContext* context,
                                    const v1::AnalyzeRequest* request,
                                    v1::AnalyzeResponse* response) override;
  grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* SolveStream(
      grpc::CallbackServerContext* context) override;
  // Through AnswerBatch: finished here when the tables answered every request, else from
  // the delivery thread after the batch's last search.
  grpc::ServerUnaryReactor* SolveBatch(grpc::CallbackServerContext* context,
                                       const v1::SolveBatchRequest* request,
                                       v1::SolveBatchResponse* response) override;
  grpc::ServerUnaryReactor* ListTables(grpc::CallbackServerContext* context,
                                       const v1::ListTablesRequest* request,
                                       v1::ListTablesResponse* response) override;
  grpc::ServerUnaryReactor* ListPuzzles(grpc::CallbackServerContext* context,
                                        const v1::ListPuzzlesRequest* request,
                                        v1::ListPuzzlesResponse* response) override;
  // Drawn on the search pool, as a search (a first draw at a distance may count for a
  // second).
  grpc::ServerUnaryReactor* Sample(grpc::CallbackServerContext* context,
                                   const v1::SampleRequest* request,
                                   v1::SampleResponse* response) override;
  // Answered by the puzzles' models, no table involved (as HTTP's /v1/parse and /v1/play).
  grpc::ServerUnaryReactor* ParseInput(grpc::CallbackServerContext* context,
                                       const v1::ParseInputRequest* request,
                                       v1::ParseInputResponse* response) override;
  grpc::ServerUnaryReactor* Play(grpc::CallbackServerContext* context,
                                 const v1::PlayRequest* request,
                                 v1::PlayResponse* response) override;

 private:
  // Solve, Analyze and Sample: through AnswerCall, finished on the thread that answers.
  template <class Request, class Response>
  grpc::ServerUnaryReactor* Unary(grpc::CallbackServerContext* context, const Request* request,
                                  Response* response);

  // ParseInput and Play: `answer` by the models, finished here.
  template <class Request, class Response>
  grpc::ServerUnaryReactor* ByModel(grpc::CallbackServerContext* context, const Request& request,
                                    Response* response, CallMethod method,
                                    absl::StatusOr<Response> (*answer)(const Request&));

  const CallEnv env_;
  const StreamOptions stream_options_;
  ArenaBatchAllocator batch_allocator_;
};

// The call's deadline on the steady clock; none when the client set none.
std::optional<std::chrono::steady_clock::time_point> DeadlineOf(
    const grpc::CallbackServerContext& context);

// The gRPC status of `status`; a retry hint (service/retry_hint.h) goes into the call's
// trailing metadata as `grpc-retry-pushback-ms`, which gRPC's retry policy honours, and a
// RESOURCE_EXHAUSTED or UNAVAILABLE without one says -1 there: do not retry.
grpc::Status ToGrpc(const absl::Status& status, grpc::CallbackServerContext* context);

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVER_GRPC_SOLVER_SERVICE_H_
