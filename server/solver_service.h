// The gRPC service puzzledb.v1.Solver: a thin adapter between gRPC's callback API and the
// request handler. Table answers are given on gRPC's own threads, at once; searches run on
// the search pool (see its admission rules).
#ifndef PUZZLEDB_SERVER_SOLVER_SERVICE_H_
#define PUZZLEDB_SERVER_SOLVER_SERVICE_H_

#include <atomic>
#include <chrono>

#include "puzzledb/v1/solver.grpc.pb.h"
#include "service/request_handler.h"
#include "server/metrics.h"
#include "server/search_pool.h"

namespace puzzledb {

struct ServiceOptions {
  // Deadline of a search when the call sets none.
  std::chrono::milliseconds default_search_deadline{10000};
  // Responses a stream may have waiting to be written before it stops reading.
  size_t stream_window = 4096;
  // A stream's requests searched or waiting for a search slot at once before it stops
  // reading.
  int stream_searches = 2;
};

class SolverService final : public v1::Solver::CallbackService {
 public:
  // `handler`, `pool` and `metrics` must outlive the service.
  SolverService(RequestHandler* handler, SearchPool* pool, ServerMetrics* metrics,
                ServiceOptions options)
      : handler_(handler), pool_(pool), metrics_(metrics), options_(options) {}

  grpc::ServerUnaryReactor* Solve(grpc::CallbackServerContext* context,
                                  const v1::SolveRequest* request,
                                  v1::SolveResponse* response) override;
  grpc::ServerUnaryReactor* Analyze(grpc::CallbackServerContext* context,
                                    const v1::AnalyzeRequest* request,
                                    v1::AnalyzeResponse* response) override;
  grpc::ServerBidiReactor<v1::SolveRequest, v1::SolveResponse>* SolveStream(
      grpc::CallbackServerContext* context) override;
  grpc::ServerUnaryReactor* ListTables(grpc::CallbackServerContext* context,
                                       const v1::ListTablesRequest* request,
                                       v1::ListTablesResponse* response) override;
  // Drawn on the search pool, as a search (a first draw at a distance may count for a
  // second).
  grpc::ServerUnaryReactor* Sample(grpc::CallbackServerContext* context,
                                   const v1::SampleRequest* request,
                                   v1::SampleResponse* response) override;

  // The limits of a search for a call: its deadline (or the default), and `cancelled`, which
  // the call's reactor sets in OnCancel (the client went away, or the server shuts down).
  // A request's own `timeout_ms` (0: none) shortens it further.
  SearchLimits LimitsFor(grpc::CallbackServerContext* context,
                         const std::atomic<bool>* cancelled, uint32_t timeout_ms = 0) const;
  RequestHandler* handler() const { return handler_; }
  SearchPool* pool() const { return pool_; }
  ServerMetrics* metrics() const { return metrics_; }
  const ServiceOptions& options() const { return options_; }

 private:
  // A unary call: answered from the tables on this (gRPC) thread when possible, else by a
  // search on the pool, or refused when the pool is full.
  template <class Request, class Response, class FromTables>
  grpc::ServerUnaryReactor* Unary(CallMethod method, grpc::CallbackServerContext* context,
                                  const Request* request, Response* response,
                                  FromTables from_tables);

  RequestHandler* const handler_;
  SearchPool* const pool_;
  ServerMetrics* const metrics_;
  const ServiceOptions options_;
};

// RESOURCE_EXHAUSTED: the pool and its queue are full (TrySubmit refused).
absl::Status SearchRefusedStatus(const SearchPool& pool);
// What a search that waited in the queue past its call's end answers, without searching:
// CANCELLED or DEADLINE_EXCEEDED; OK when the call is still on.
absl::Status EndedWhileQueued(const SearchLimits& limits);
grpc::Status ToGrpc(const absl::Status& status);

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVER_SOLVER_SERVICE_H_
