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
#include <tuple>
#include <variant>
#include <vector>

#include "core/puzzles/registry.h"
#include "core/solver.h"
#include "puzzledb/v1/solver.pb.h"
#include "service/memory_budget.h"
#include "service/table_builds.h"

namespace puzzledb {

// Limits of one request (docs/API.md).
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

// A puzzle its model has parsed already (a GET's compact form: InstanceFromCompact), handed
// to the handler in place of the request's `puzzle`, so that it is parsed once.
template <PuzzleModel P>
struct ParsedAs {
  typename P::Instance instance;
};
template <class Models>
struct ParsedPuzzleOf;
template <class... Ps>
struct ParsedPuzzleOf<std::tuple<Ps...>> {
  using type = std::variant<std::monostate, ParsedAs<Ps>...>;
};
using ParsedPuzzle = ParsedPuzzleOf<AllPuzzles>::type;

// Thread-safe.
class RequestHandler {
 public:
  // `solver` must outlive this; `builder` may be null (no background builds).
  RequestHandler(Solver* solver, TableBuilds* builder, HandlerOptions options)
      : solver_(solver), builder_(builder), options_(options) {}

  enum class Route {
    kAnswered,     // *status (and *response if OK) hold the answer
    kNeedsSearch,  // nothing written; *search holds the rest of the request
  };

  // The rest of a request that the tables did not answer: run it on a search thread with
  // the call's deadline and cancellation (the handler adds the node budget and the move
  // cap); it fills the response. It holds the request as parsed, the table step's result
  // and everything else it needs: the request message may be gone by then.
  template <class Response>
  using SearchStep = std::function<absl::Status(SearchLimits limits, Response* response)>;

  // One pass over the request: checked, parsed and dispatched to its puzzle once, looked up
  // in the tables (unless SEARCH_ONLY), and either answered or handed on as *search. An
  // answer from a table names the table build (response's table_id, table_generation,
  // table_crc32); a search's answer has none. Counting and listing optimal solutions
  // always go on as *search (they are heavier than a walk).
  // With `parsed` (not monostate), its instance is the request's puzzle and
  // request.puzzle() is not read.
  Route SolveFromTables(const v1::SolveRequest& request, v1::SolveResponse* response,
                        absl::Status* status, SearchStep<v1::SolveResponse>* search,
                        const ParsedPuzzle* parsed = nullptr);
  Route AnalyzeFromTables(const v1::AnalyzeRequest& request, v1::AnalyzeResponse* response,
                          absl::Status* status, SearchStep<v1::AnalyzeResponse>* search,
                          const ParsedPuzzle* parsed = nullptr);
  // A batch (docs/API.md, "Batches"): response->responses(i) answers request i. Every
  // request is checked and parsed; the table step of consecutive requests of one puzzle and
  // parameters is taken at once (Solver::FromTablesMany, walks taking turns); each is then
  // answered as SolveFromTables would (a failure as its `error`, in band), or handed on in
  // *searches with its index, its answer to be filled in place. Every answer carries its
  // request's id (`micros` is the caller's). INVALID_ARGUMENT, and nothing answered, for
  // more than kMaxBatchRequests requests.
  struct BatchSearch {
    size_t index;
    SearchStep<v1::SolveResponse> step;
    uint32_t timeout_ms;  // the request's
  };
  // `threads`, if not empty, lends threads now: a batch of more than kBatchChunk requests
  // is answered in chunks by this thread and those.
  static constexpr int kBatchChunk = 512;
  absl::Status SolveBatch(const v1::SolveBatchRequest& batch, v1::SolveBatchResponse* response,
                          std::vector<BatchSearch>* searches, const ThreadLender& threads = {});

  // A sample: checked here, drawn as *search (a first draw at a distance may count for a
  // second).
  Route Sample(const v1::SampleRequest& request, v1::SampleResponse* response,
               absl::Status* status, SearchStep<v1::SampleResponse>* search);

  // The three above by the request's type, for code written once for all of them.
  // (`parsed`: as above; a sample reads its puzzle's parameters from the request.)
  Route FromTables(const v1::SolveRequest& request, v1::SolveResponse* response,
                   absl::Status* status, SearchStep<v1::SolveResponse>* search,
                   const ParsedPuzzle* parsed = nullptr) {
    return SolveFromTables(request, response, status, search, parsed);
  }
  Route FromTables(const v1::AnalyzeRequest& request, v1::AnalyzeResponse* response,
                   absl::Status* status, SearchStep<v1::AnalyzeResponse>* search,
                   const ParsedPuzzle* parsed = nullptr) {
    return AnalyzeFromTables(request, response, status, search, parsed);
  }
  Route FromTables(const v1::SampleRequest& request, v1::SampleResponse* response,
                   absl::Status* status, SearchStep<v1::SampleResponse>* search,
                   const ParsedPuzzle* = nullptr) {
    return Sample(request, response, status, search);
  }

  v1::ListTablesResponse ListTables() const;

  // Loads the table the puzzle's answer would come from, if there is one (nothing for a
  // malformed puzzle: the answer will say what is wrong).
  void Prepare(const v1::Puzzle& puzzle);

 private:
  // The bytes a call's, or a batch's, listings may still take (HandlerOptions).
  using AnswerAllowance = std::shared_ptr<std::atomic<int64_t>>;
  AnswerAllowance NewAllowance() const;

  template <PuzzleModel P>
  void RequestTableFor(const typename P::Params& params, const Solution& solution);
  // A solve once its table step is taken (an empty step for SEARCH_ONLY).
  template <PuzzleModel P>
  Route SolveAfterTables(const v1::SolveRequest& request, typename P::Instance instance,
                         Policy policy, int max_moves, TableStep<P> step,
                         const AnswerAllowance& allowance, v1::SolveResponse* response,
                         absl::Status* status, SearchStep<v1::SolveResponse>* search);
  // Requests [begin, end) of a batch.
  void SolvePart(const v1::SolveBatchRequest& batch, int begin, int end,
                 const AnswerAllowance& allowance, v1::SolveBatchResponse* response,
                 std::vector<BatchSearch>* searches);
  // The requests of one puzzle from `begin` on in a batch, before `stop`; returns where they
  // end.
  template <PuzzleModel P>
  int SolveRun(const v1::SolveBatchRequest& batch, int begin, int stop,
               const AnswerAllowance& allowance, v1::SolveBatchResponse* response,
               std::vector<BatchSearch>* searches);

  Solver* const solver_;
  TableBuilds* const builder_;
  const HandlerOptions options_;
};

// A request of a stream or a batch that got no answer: `out` becomes its error, in band,
// with its id.
void SetErrorInBand(const absl::Status& status, uint64_t id, v1::SolveResponse* out);

// What every answer carries whatever answered it: the time it took and, where the request
// has one, the caller's id.
template <class Request, class Response>
void StampAnswer(const Request& request, std::chrono::steady_clock::duration elapsed,
                 Response* response) {
  response->set_micros(
      static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(elapsed).count()));
  if constexpr (requires { response->set_id(request.id()); }) response->set_id(request.id());
}

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVICE_REQUEST_HANDLER_H_
