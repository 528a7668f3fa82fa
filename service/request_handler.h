// Request parsing, solving and response shaping for the service, apart from any transport
// (no gRPC here: the command line uses it in-process too): every request is first answered
// from the tables alone where it can be (on the calling thread), and otherwise handed to a
// search (on a search thread).
#ifndef PUZZLEDB_SERVICE_REQUEST_HANDLER_H_
#define PUZZLEDB_SERVICE_REQUEST_HANDLER_H_

#include <cstdint>

#include "core/solver.h"
#include "puzzledb/v1/solver.pb.h"
#include "service/table_builds.h"

namespace puzzledb {

struct HandlerOptions {
  uint64_t search_node_budget = 0;  // per search; 0: none
};

// Thread-safe.
class RequestHandler {
 public:
  // `solver` must outlive this; `builder` may be null (no background builds).
  RequestHandler(Solver* solver, TableBuilds* builder, HandlerOptions options)
      : solver_(solver), builder_(builder), options_(options) {}

  enum class Route {
    kAnswered,     // *status (and *response if OK) hold the answer
    kNeedsSearch,  // nothing written; call the WithSearch variant on a search thread
  };

  Route SolveFromTables(const v1::SolveRequest& request, v1::SolveResponse* response,
                        absl::Status* status);
  // `limits` carries the deadline and cancellation; the handler adds the node budget.
  absl::Status SolveWithSearch(const v1::SolveRequest& request, SearchLimits limits,
                               v1::SolveResponse* response);

  Route AnalyzeFromTables(const v1::AnalyzeRequest& request, v1::AnalyzeResponse* response,
                          absl::Status* status);
  absl::Status AnalyzeWithSearch(const v1::AnalyzeRequest& request, SearchLimits limits,
                                 v1::AnalyzeResponse* response);

  v1::ListTablesResponse ListTables() const;

  // Loads the table the puzzle's answer would come from, if there is one (nothing for a
  // malformed puzzle: the answer will say what is wrong).
  void Prepare(const v1::Puzzle& puzzle);

 private:
  template <class Request, class Response>
  Route FromTables(const Request& request, Response* response, absl::Status* status);
  template <class Request, class Response>
  absl::Status WithSearch(const Request& request, SearchLimits limits, Response* response);
  template <class Request, class Response>
  absl::Status Answer(const Request& request, Policy policy, SearchLimits limits,
                      Response* response);

  Solver* const solver_;
  TableBuilds* const builder_;
  const HandlerOptions options_;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVICE_REQUEST_HANDLER_H_
