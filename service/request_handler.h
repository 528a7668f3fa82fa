// Request parsing, solving and response shaping for the service, apart from any transport
// (no gRPC here: the command line uses it in-process too): every request is first answered
// from the tables alone where it can be (on the calling thread), and otherwise handed to a
// search (on a search thread).
#ifndef PUZZLEDB_SERVICE_REQUEST_HANDLER_H_
#define PUZZLEDB_SERVICE_REQUEST_HANDLER_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/puzzle.h"
#include "core/solver.h"
#include "puzzledb/v1/solver.pb.h"
#include "service/memory_budget.h"
#include "service/table_builds.h"

namespace puzzledb {

// Limits of one request (docs/API.md).
inline constexpr uint32_t kMaxMovesLimit = 1000;  // max_moves; 0 is no limit
inline constexpr uint32_t kMaxSolutionsListed = 10000;
inline constexpr uint32_t kMaxSampleCount = 10000;
inline constexpr uint32_t kMaxBatchRequests = 10000;

struct HandlerOptions {
  uint64_t search_node_budget = 0;  // per search; 0: none
  // Bytes the optimal solutions listed (max_solutions) may take in one answer: a call's, or
  // a whole batch's together. A listing that would pass it is refused with
  // RESOURCE_EXHAUSTED before it is made. 0: no bound.
  size_t max_answer_bytes = 8 << 20;
  // Charged with each listing while it is made; may be null (nothing charged).
  MemoryBudget* memory = nullptr;
};

// The requests as the handler reads them, whatever brought them: a wire message is read
// into one at the edge (RequestHandler::Read, which checks every field and parses the
// puzzle once), and everything after works on it. `typed`: the answer gives states as
// typed messages where the puzzle has one (service/wire.h): when the request gave its
// puzzle so, or as a GET's query string (as the first API version answered).
struct SolveQuery {
  Position position;
  bool typed = false;
  Policy policy = Policy::kTableThenSearch;
  int max_moves = 0;  // 0: no cap
  uint64_t id = 0;
  uint32_t timeout_ms = 0;
  uint32_t max_solutions = 0;
  bool count_solutions = false;
  v1::MoveEncoding move_encoding = v1::MOVE_NAMES;
};
struct AnalyzeQuery {
  Position position;
  bool typed = false;
  Policy policy = Policy::kTableThenSearch;
  int max_moves = 0;
  uint64_t id = 0;
  bool count_solutions = false;
};
struct SampleQuery {
  Position parameters;  // a position under the parameters to draw with
  bool typed = false;
  int distance = 0;  // exact, or kLargestDistance / kAnyDistance
  uint32_t count = 0;
  uint64_t seed = 0;
};

// Thread-safe.
class RequestHandler {
 public:
  // `solver` must outlive this; `builder` may be null (no background builds).
  RequestHandler(Solver* solver, TableBuilds* builder, HandlerOptions options)
      : solver_(solver), builder_(builder), options_(options) {}

  // The rest of a request that the tables did not answer: run it on a search thread with
  // the call's deadline and cancellation (the handler adds the node budget and the move
  // cap); it fills the response. It holds the request as read, the table step's result
  // and everything else it needs: the request message may be gone by then.
  template <class Response>
  using SearchStep = std::function<absl::Status(SearchLimits limits, Response* response)>;

  // What the table step of a request comes to: answered (`status`, and the response
  // written if OK), or handed on as `search`, set, with nothing written yet.
  template <class Response>
  struct Routed {
    absl::Status status;
    SearchStep<Response> search;
    bool NeedsSearch() const { return search != nullptr; }
  };

  // A wire request read and checked: INVALID_ARGUMENT naming the field otherwise.
  // `parsed`, if not null, is the request's position, read at the edge from elsewhere (a
  // GET's query string); the message's puzzle is then not read.
  absl::StatusOr<SolveQuery> Read(const v1::SolveRequest& request,
                                  const Position* parsed = nullptr) const;
  absl::StatusOr<AnalyzeQuery> Read(const v1::AnalyzeRequest& request,
                                    const Position* parsed = nullptr) const;
  absl::StatusOr<SampleQuery> Read(const v1::SampleRequest& request,
                                   const Position* parsed = nullptr) const;

  // One pass over a request: looked up in the tables (unless SEARCH_ONLY), and either
  // answered or handed on. An answer from a table names the table build (response's
  // table_id, table_generation, table_crc32); a search's answer has none. Counting and
  // listing optimal solutions always go on as a search (they are heavier than a walk); so
  // does a sample (a first draw at a distance may count for a second).
  Routed<v1::SolveResponse> Answer(const SolveQuery& query, v1::SolveResponse* response);
  Routed<v1::AnalyzeResponse> Answer(const AnalyzeQuery& query, v1::AnalyzeResponse* response);
  Routed<v1::SampleResponse> Answer(const SampleQuery& query, v1::SampleResponse* response);

  // Read, then Answer: a request that does not read is answered with why.
  template <class Request, class Response>
  Routed<Response> Answer(const Request& request, Response* response,
                          const Position* parsed = nullptr) {
    auto query = Read(request, parsed);
    if (!query.ok()) return {query.status(), nullptr};
    return Answer(*query, response);
  }

  // A batch (docs/API.md, "Batches"): response->responses(i) answers request i. Every
  // request is read; the table step of consecutive requests of one puzzle and parameters
  // is taken at once (Puzzle::FromTablesMany, walks taking turns); each is then answered as
  // Answer would (a failure as its `error`, in band), or handed on in *searches with its
  // index, its answer to be filled in place. Every answer carries its request's id
  // (`micros` is the caller's). INVALID_ARGUMENT, and nothing answered, for more than
  // kMaxBatchRequests requests.
  struct BatchSearch {
    size_t index;
    SearchStep<v1::SolveResponse> step;
    uint32_t timeout_ms;  // the request's
  };
  // `threads`, if not empty, lends threads now: a batch of more than kBatchChunk requests
  // is answered in chunks by this thread and those.
  static constexpr int kBatchChunk = 512;
  // `read`, if not null, holds the requests already read (Read, one per request, in
  // order), which are then taken from it rather than read again.
  absl::Status SolveBatch(const v1::SolveBatchRequest& batch, v1::SolveBatchResponse* response,
                          std::vector<BatchSearch>* searches, const ThreadLender& threads = {},
                          std::vector<absl::StatusOr<SolveQuery>>* read = nullptr);

  v1::ListTablesResponse ListTables() const;
  // Every registered puzzle described (docs/API.md, "Puzzles"), with the tables of it this
  // server has.
  v1::ListPuzzlesResponse ListPuzzles() const;

  // Loads the table the position's answer would come from, if there is one.
  void Prepare(const Position& position);

 private:
  // The bytes a call's, or a batch's, listings may still take (HandlerOptions).
  using AnswerAllowance = std::shared_ptr<std::atomic<int64_t>>;
  AnswerAllowance NewAllowance() const;

  // A search for parameters without a table asks for the table, for next time, whatever it
  // finds (a definition's values whose search gives up at its limits too).
  void RequestTable(const Position& position);
  // A solve once its table step is taken (an empty step for SEARCH_ONLY).
  Routed<v1::SolveResponse> SolveAfterTables(const SolveQuery& query, TableStep step,
                                             const AnswerAllowance& allowance,
                                             v1::SolveResponse* response);
  // A request's search step as it is handed on, with the node budget
  // (HandlerOptions::search_node_budget) in its limits: the one place the budget is given,
  // to searches, counts and samples alike (core/model/model.h, BudgetSpent, checks it).
  template <class Response>
  Routed<Response> HandOn(SearchStep<Response> step) const {
    return {absl::OkStatus(),
            [budget = options_.search_node_budget, step = std::move(step)](
                SearchLimits limits, Response* out) -> absl::Status {
              limits.max_nodes = budget;
              return step(std::move(limits), out);
            }};
  }
  // Requests [begin, end) of a batch.
  void SolvePart(const v1::SolveBatchRequest& batch, std::vector<absl::StatusOr<SolveQuery>>* read,
                 int begin, int end, const AnswerAllowance& allowance,
                 v1::SolveBatchResponse* response, std::vector<BatchSearch>* searches);

  Solver* const solver_;
  TableBuilds* const builder_;
  const HandlerOptions options_;
};

// A failed request's in-band error: its code, message and retry hint (service/retry_hint.h).
void SetError(const absl::Status& status, v1::Error* out);
// A request of a stream or a batch that got no answer: `out` becomes its error, in band,
// with its id.
void SetErrorInBand(const absl::Status& status, uint64_t id, v1::SolveResponse* out);

// What every answer carries whatever answered it: the time it took and, where the request
// has one, the caller's id.
template <class Response>
void StampAnswer(uint64_t id, std::chrono::steady_clock::duration elapsed, Response* response) {
  response->set_micros(
      static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(elapsed).count()));
  if constexpr (requires { response->set_id(id); }) response->set_id(id);
}

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVICE_REQUEST_HANDLER_H_
