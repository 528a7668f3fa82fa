#include "service/request_handler.h"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>

#include "core/puzzles/registry.h"
#include "core/util/strings.h"
#include "service/wire.h"

namespace puzzledb {

namespace {

constexpr uint32_t kMaxMovesLimit = 1000;

absl::Status Invalid(const std::string& message) { return absl::InvalidArgumentError(message); }

// Checks the fields every request has; fills the policy.
template <class Request>
absl::Status CheckCommon(const Request& request, Policy* policy, bool puzzle_given) {
  switch (request.policy()) {
    case v1::TABLE_THEN_SEARCH:
      *policy = Policy::kTableThenSearch;
      break;
    case v1::TABLE_ONLY:
      *policy = Policy::kTableOnly;
      break;
    case v1::SEARCH_ONLY:
      *policy = Policy::kSearchOnly;
      break;
    default:
      return Invalid(Cat("policy: unknown value ", static_cast<int>(request.policy()),
                         "; use TABLE_THEN_SEARCH (0), TABLE_ONLY (1) or SEARCH_ONLY (2)"));
  }
  if (request.max_moves() > kMaxMovesLimit) {
    return Invalid(Cat("max_moves: ", request.max_moves(), " is more than ", kMaxMovesLimit,
                       "; use 0 for no limit"));
  }
  if constexpr (requires { request.max_solutions(); }) {
    if (request.max_solutions() > kMaxSolutionsListed) {
      return Invalid(Cat("max_solutions: ", request.max_solutions(), " is more than ",
                         kMaxSolutionsListed, "; count them all with count_solutions"));
    }
  }
  if constexpr (requires { request.move_encoding(); }) {
    if (request.move_encoding() != v1::MOVE_NAMES && request.move_encoding() != v1::MOVE_CODES) {
      return Invalid(Cat("move_encoding: unknown value ", static_cast<int>(request.move_encoding()),
                         "; use MOVE_NAMES (0) or MOVE_CODES (1)"));
    }
  }
  if constexpr (requires { request.has_batch(); }) {
    if (request.has_batch()) {
      return Invalid("batch: a batch is sent to SolveBatch, or as a message of its own in a "
                     "SolveStream; not to Solve, nor inside another batch");
    }
  }
  if (!puzzle_given && WirePuzzleName(request.puzzle()).empty()) {
    return Invalid(Cat("puzzle: no puzzle given; set one of ", PuzzleNames(", ")));
  }
  return absl::OkStatus();
}

// Which table build answered: its id, generation and content checksum (docs/API.md,
// "Provenance").
template <class Response>
void SetProvenance(const TableMetadata& m, Response* out) {
  out->set_table_id(m.table_id());
  out->set_table_generation(m.generation());
  out->set_table_crc32(m.content_crc32());
}

template <PuzzleModel P, class Response>
void SetProvenance(const TableStep<P>& step, Response* out) {
  if (step.table != nullptr && step.answer.has_value() && step.answer->source == Source::kTable) {
    SetProvenance(step.table->metadata(), out);
  }
}

// Counting and listing need a table's answer; what to say when there is none (the
// solver's refusal, or the policy's).
template <PuzzleModel P>
absl::Status CountingNeedsATable(const Solver& solver, Policy policy,
                                 const typename P::Instance& instance, const TableStep<P>& step) {
  if (policy == Policy::kSearchOnly) {
    return absl::FailedPreconditionError(
        "counting or listing optimal solutions needs a table, and the policy SEARCH_ONLY "
        "reads none");
  }
  return solver.Optimal<P>(instance, step, 0, 0, SearchLimits{}).status();
}

template <PuzzleModel P>
void Fill(const P& model, const typename P::Instance& instance, const Solution& solution,
          v1::SolveResponse* response) {
  SolutionToWire(model, instance, solution, response);
}

template <PuzzleModel P>
void Fill(const P& model, const typename P::Instance&, const Analysis& analysis,
          v1::AnalyzeResponse* response) {
  response->set_outcome(OutcomeToWire(analysis.position.outcome));
  response->set_distance(static_cast<uint32_t>(analysis.position.distance));
  response->set_source(SourceToWire(analysis.position.source));
  for (const MoveAnalysis& move : analysis.moves) {
    auto* out = response->add_moves();
    out->set_move(move.name);
    out->set_outcome(OutcomeToWire(move.outcome));
    out->set_distance(static_cast<uint32_t>(move.distance));
  }
}

// The model a parsed puzzle is of (unevaluated).
template <PuzzleModel P>
P PuzzleOf(const ParsedAs<P>&);

// What Solve and Analyze share: the common fields checked, the model picked by name and
// the instance parsed, once; then `handle(type, instance, policy, max_moves)` for that
// model, which says how the request goes on.
template <class Request, class Handle>
RequestHandler::Route Dispatch(const Request& request, const ParsedPuzzle* parsed,
                               absl::Status* status, Handle&& handle) {
  Policy policy;
  const bool given = parsed != nullptr && !std::holds_alternative<std::monostate>(*parsed);
  *status = CheckCommon(request, &policy, /*puzzle_given=*/given);
  if (!status->ok()) return RequestHandler::Route::kAnswered;
  RequestHandler::Route route = RequestHandler::Route::kAnswered;
  if (given) {  // parsed once already (a GET's compact form)
    std::visit(
        [&](const auto& one) {
          using One = std::decay_t<decltype(one)>;
          if constexpr (!std::is_same_v<One, std::monostate>) {
            using P = decltype(PuzzleOf(one));
            route = handle(std::type_identity<P>{}, one.instance, policy,
                           static_cast<int>(request.max_moves()));
          }
        },
        *parsed);
    return route;
  }
  VisitPuzzle(WirePuzzleName(request.puzzle()), [&](auto type) {
    using P = typename decltype(type)::type;
    absl::StatusOr<typename P::Instance> instance = InstanceFromWire<P>(request.puzzle());
    if (!instance.ok()) {
      *status = instance.status();
      return;
    }
    route = handle(type, std::move(*instance), policy, static_cast<int>(request.max_moves()));
  });
  return route;
}

// The optimal solutions counted and listed into a Solve response.
template <PuzzleModel P>
void PathsToWire(const P& model, const typename P::Instance& instance,
                 const typename TableWalker<P>::OptimalPaths& paths, v1::MoveEncoding encoding,
                 v1::SolveResponse* out) {
  out->set_optimal_count(DecimalString(paths.count));
  for (const std::vector<uint8_t>& moves : paths.first) {
    auto* listed = out->add_solutions();
    MovesToWire(model, instance.state, moves, encoding, listed->mutable_moves(),
                encoding == v1::MOVE_CODES ? listed->mutable_move_codes() : nullptr);
  }
}



}  // namespace

RequestHandler::AnswerAllowance RequestHandler::NewAllowance() const {
  if (options_.max_answer_bytes == 0) return nullptr;
  return std::make_shared<std::atomic<int64_t>>(static_cast<int64_t>(options_.max_answer_bytes));
}

template <PuzzleModel P>
void RequestHandler::RequestTableFor(const typename P::Params& params, const Solution& solution) {
  // A search for parameters without a table: build it for next time.
  if constexpr (HasParams<P>) {
    if (builder_ != nullptr && solution.source == Source::kSearch) builder_->Request<P>(params);
  }
}

RequestHandler::Route RequestHandler::SolveFromTables(const v1::SolveRequest& request,
                                                      v1::SolveResponse* response,
                                                      absl::Status* status,
                                                      SearchStep<v1::SolveResponse>* search,
                                                      const ParsedPuzzle* parsed) {
  return Dispatch(request, parsed, status, [&](auto type, auto instance, Policy policy, int max_moves) {
    using P = typename decltype(type)::type;
    const P model(instance.params);
    TableStep<P> step;
    if (policy != Policy::kSearchOnly) step = solver_->FromTables(model, instance, max_moves);
    return SolveAfterTables<P>(request, std::move(instance), policy, max_moves, std::move(step),
                               NewAllowance(), response, status, search);
  });
}

template <PuzzleModel P>
RequestHandler::Route RequestHandler::SolveAfterTables(const v1::SolveRequest& request,
                                                       typename P::Instance instance,
                                                       Policy policy, int max_moves,
                                                       TableStep<P> step,
                                                       const AnswerAllowance& allowance,
                                                       v1::SolveResponse* response,
                                                       absl::Status* status,
                                                       SearchStep<v1::SolveResponse>* search) {
  const bool paths = request.count_solutions() || request.max_solutions() > 1;
  const size_t list = request.max_solutions() > 1 ? request.max_solutions() : 0;
  const v1::MoveEncoding encoding = request.move_encoding();
  if (policy != Policy::kSearchOnly) {
    if (step.answer.has_value() && !(paths && step.answer->outcome == Outcome::kSolved)) {
      const P model(instance.params);
      SolutionToWire(model, instance, *step.answer, response, encoding);
      SetProvenance(step, response);
      // No solution of an unsolvable state; none counted beyond the cap.
      if (paths && step.answer->outcome == Outcome::kUnsolvable) response->set_optimal_count("0");
      return Route::kAnswered;
    }
    if (policy == Policy::kTableOnly && !step.answer.has_value()) {
      *status = step.NoSearchAllowed();
      return Route::kAnswered;
    }
  }
  if (paths) {
    if (!step.answer.has_value()) {
      *status = CountingNeedsATable<P>(*solver_, policy, instance, step);
      return Route::kAnswered;
    }
    // Counted on a search thread: the optimal paths of a far state number in the
    // hundreds of thousands. The listing's bytes are reserved before it is made, from the
    // call's (or the batch's) allowance and from the server's memory budget.
    *search = [this, instance = std::move(instance), step = std::move(step), list, encoding,
               allowance](SearchLimits limits, v1::SolveResponse* out) -> absl::Status {
      const P model(instance.params);
      SolutionToWire(model, instance, *step.answer, out, encoding);
      SetProvenance(step, out);
      // Each listed solution is as long as the first, its moves as wide (the names in
      // JSON: quotes and a comma each; codes as varints), plus its message's framing.
      int64_t per_solution = 8;
      for (const std::string& move : out->moves()) per_solution += static_cast<int64_t>(move.size()) + 3;
      per_solution += 2 * static_cast<int64_t>(out->move_codes().size());  // in base64 in JSON
      const int64_t reserved = static_cast<int64_t>(list) * per_solution;
      const int64_t left =
          allowance != nullptr ? allowance->fetch_sub(reserved, std::memory_order_relaxed) : reserved;
      if (left < reserved) {
        allowance->fetch_add(reserved, std::memory_order_relaxed);
        out->Clear();
        return absl::ResourceExhaustedError(
            Cat("max_solutions: listing ", list, " solutions of ", step.answer->distance,
                " moves takes about ", reserved, " bytes, and the answer (the call's, or the "
                "batch's together) has ", std::max<int64_t>(left, 0), " of its ",
                options_.max_answer_bytes, " bytes left (--max-answer-bytes); ask for fewer, or "
                "only count them (count_solutions)"));
      }
      MemoryBudget::Charge charge;
      if (options_.memory != nullptr &&
          !options_.memory->TryCharge(MemoryUse::kListing, static_cast<size_t>(reserved), &charge)) {
        if (allowance != nullptr) allowance->fetch_add(reserved, std::memory_order_relaxed);
        out->Clear();
        return options_.memory->Refusal(MemoryUse::kListing, static_cast<size_t>(reserved));
      }
      auto found = solver_->Optimal<P>(instance, step, list, options_.search_node_budget, limits);
      if (!found.ok()) {
        if (allowance != nullptr) allowance->fetch_add(reserved, std::memory_order_relaxed);
        out->Clear();
        return found.status();
      }
      // What was reserved for solutions that do not exist is given back.
      if (allowance != nullptr && found->first.size() < list) {
        allowance->fetch_add(static_cast<int64_t>(list - found->first.size()) * per_solution,
                             std::memory_order_relaxed);
      }
      PathsToWire(model, instance, *found, encoding, out);
      return absl::OkStatus();
    };
    return Route::kNeedsSearch;
  }
  *search = [this, instance = std::move(instance), step = std::move(step), max_moves, encoding](
                SearchLimits limits, v1::SolveResponse* out) -> absl::Status {
    limits.max_moves = max_moves;
    limits.max_nodes = options_.search_node_budget;
    const P model(instance.params);
    auto solution = solver_->Search(model, instance, step, limits);
    if (!solution.ok()) return solution.status();
    SolutionToWire(model, instance, *solution, out, encoding);
    RequestTableFor<P>(instance.params, *solution);
    return absl::OkStatus();
  };
  return Route::kNeedsSearch;
}

absl::Status RequestHandler::SolveBatch(const v1::SolveBatchRequest& batch,
                                        v1::SolveBatchResponse* response,
                                        std::vector<BatchSearch>* searches, const ThreadLender& threads) {
  const int n = batch.requests_size();
  if (n > static_cast<int>(kMaxBatchRequests)) {
    return Invalid(Cat("requests: ", n, " in one batch, more than ", kMaxBatchRequests,
                       "; split them into several batches"));
  }
  response->mutable_responses()->Reserve(n);
  for (int i = 0; i < n; ++i) response->add_responses();
  const AnswerAllowance allowance = NewAllowance();  // the batch's listings share it
  // In chunks, taken in turn by this thread and the threads lent to it: a slow helper
  // delays the batch by one chunk at most.
  const int chunks = (n + kBatchChunk - 1) / kBatchChunk;
  std::vector<std::vector<BatchSearch>> found(static_cast<size_t>(chunks));
  std::atomic<int> next{0};
  auto drain = [&] {
    for (int c; (c = next.fetch_add(1)) < chunks;) {
      SolvePart(batch, c * kBatchChunk, std::min(n, (c + 1) * kBatchChunk), allowance, response,
                &found[static_cast<size_t>(c)]);
    }
  };
  std::mutex mutex;
  std::condition_variable released;
  int lent = 0;  // helpers whose thread is not released yet
  if (threads && chunks > 1) {
    const int spare = static_cast<int>(std::max(1u, std::thread::hardware_concurrency())) - 1;
    for (int h = 0; h < std::min(spare, chunks - 1); ++h) {
      {
        std::lock_guard<std::mutex> lock(mutex);
        ++lent;
      }
      const bool taken = threads.lend(drain, [&] {
        std::lock_guard<std::mutex> lock(mutex);
        --lent;
        released.notify_all();
      });
      if (!taken) {
        std::lock_guard<std::mutex> lock(mutex);
        --lent;
        break;
      }
    }
  }
  drain();
  {
    std::unique_lock<std::mutex> lock(mutex);
    released.wait(lock, [&] { return lent == 0; });
  }
  for (std::vector<BatchSearch>& part : found) {
    for (BatchSearch& one : part) searches->push_back(std::move(one));
  }
  return absl::OkStatus();
}

void RequestHandler::SolvePart(const v1::SolveBatchRequest& batch, int begin, int end,
                               const AnswerAllowance& allowance, v1::SolveBatchResponse* response,
                               std::vector<BatchSearch>* searches) {
  for (int i = begin; i < end;) {
    const std::string_view name = WirePuzzleName(batch.requests(i).puzzle());
    const int from = i;
    VisitPuzzle(name, [&](auto type) {
      using P = typename decltype(type)::type;
      i = SolveRun<P>(batch, from, end, allowance, response, searches);
    });
    if (i == from) {  // no puzzle: answered alone, which says what is wrong
      const v1::SolveRequest& request = batch.requests(i);
      v1::SolveResponse* out = response->mutable_responses(i);
      absl::Status status;
      SearchStep<v1::SolveResponse> search;
      SolveFromTables(request, out, &status, &search);
      SetErrorInBand(status.ok() ? absl::InternalError("a request without a puzzle was answered")
                                 : status,
                     request.id(), out);
      ++i;
    }
  }
}

template <PuzzleModel P>
int RequestHandler::SolveRun(const v1::SolveBatchRequest& batch, int begin, int stop,
                             const AnswerAllowance& allowance, v1::SolveBatchResponse* response,
                             std::vector<BatchSearch>* searches) {
  // The run: the requests from `begin` on of this puzzle. Each is checked and parsed; a
  // bad one is answered with its error at once.
  struct Item {
    int index;
    typename P::Instance instance;
    Policy policy;
    int max_moves;
  };
  std::vector<Item> items;
  int end = begin;
  for (; end < stop; ++end) {
    const v1::SolveRequest& request = batch.requests(end);
    if (WirePuzzleName(request.puzzle()) != P::kName) break;
    v1::SolveResponse* out = response->mutable_responses(end);
    Policy policy;
    absl::Status status = CheckCommon(request, &policy, /*puzzle_given=*/false);
    if (!status.ok()) {
      SetErrorInBand(status, request.id(), out);
      continue;
    }
    absl::StatusOr<typename P::Instance> instance = InstanceFromWire<P>(request.puzzle());
    if (!instance.ok()) {
      SetErrorInBand(instance.status(), request.id(), out);
      continue;
    }
    items.push_back({end, std::move(*instance), policy, static_cast<int>(request.max_moves())});
  }
  // The table step of every item that reads tables, over consecutive items of the same
  // parameters at once (they read one table).
  std::vector<TableStep<P>> steps(items.size());
  std::vector<typename P::Instance> instances;
  std::vector<int> caps;
  std::vector<size_t> which;
  for (size_t first = 0; first < items.size();) {
    size_t last = first;
    instances.clear();
    caps.clear();
    which.clear();
    for (; last < items.size() && items[last].instance.params == items[first].instance.params;
         ++last) {
      if (items[last].policy == Policy::kSearchOnly) continue;
      instances.push_back(items[last].instance);
      caps.push_back(items[last].max_moves);
      which.push_back(last);
    }
    if (!instances.empty()) {
      std::vector<TableStep<P>> many(instances.size());
      const P model(items[first].instance.params);
      solver_->FromTablesMany(model, std::span<const typename P::Instance>(instances),
                              std::span<const int>(caps), std::span(many));
      for (size_t k = 0; k < which.size(); ++k) steps[which[k]] = std::move(many[k]);
    }
    first = last;
  }
  for (size_t k = 0; k < items.size(); ++k) {
    Item& item = items[k];
    const v1::SolveRequest& request = batch.requests(item.index);
    v1::SolveResponse* out = response->mutable_responses(item.index);
    absl::Status status;
    SearchStep<v1::SolveResponse> search;
    const Route route = SolveAfterTables<P>(request, std::move(item.instance), item.policy,
                                            item.max_moves, std::move(steps[k]), allowance, out,
                                            &status, &search);
    if (route == Route::kNeedsSearch) {
      searches->push_back({static_cast<size_t>(item.index), std::move(search), request.timeout_ms()});
    } else if (!status.ok()) {
      SetErrorInBand(status, request.id(), out);
    }
    out->set_id(request.id());
  }
  return end;
}

RequestHandler::Route RequestHandler::AnalyzeFromTables(const v1::AnalyzeRequest& request,
                                                        v1::AnalyzeResponse* response,
                                                        absl::Status* status,
                                                        SearchStep<v1::AnalyzeResponse>* search,
                                                        const ParsedPuzzle* parsed) {
  const bool count = request.count_solutions();
  return Dispatch(request, parsed, status, [&](auto type, auto instance, Policy policy, int max_moves) {
    using P = typename decltype(type)::type;
    const P model(instance.params);
    AnalysisStep<P> step =
        solver_->AnalyzeFromTables(model, instance, max_moves, policy != Policy::kSearchOnly);
    if (count && !step.position.answer.has_value()) {
      *status = CountingNeedsATable<P>(*solver_, policy, instance, step.position);
      return Route::kAnswered;
    }
    if (step.Answered() && !count) {
      SetProvenance(step.position, response);
      auto analysis = solver_->AnalyzeSearch(model, instance, std::move(step), SearchLimits{});
      if (analysis.ok()) {
        Fill(model, instance, *analysis, response);
      } else {
        *status = analysis.status();
      }
      return Route::kAnswered;
    }
    if (policy == Policy::kTableOnly && !step.Answered()) {
      *status = step.NoSearchAllowed();
      return Route::kAnswered;
    }
    // The search step searches only what the table step left open, and counts. It runs
    // once, so it hands the table answers over instead of copying them.
    *search = [this, instance = std::move(instance), step = std::move(step), max_moves, count](
                  SearchLimits limits, v1::AnalyzeResponse* out) mutable -> absl::Status {
      const P model(instance.params);
      std::optional<typename TableWalker<P>::OptimalPaths> paths;
      if (count) {
        auto found = solver_->Optimal<P>(instance, step.position, 0, options_.search_node_budget,
                                         limits);
        if (!found.ok()) return found.status();
        paths = std::move(*found);
      }
      SetProvenance(step.position, out);
      const bool solved = step.position.answer.has_value() &&
                          step.position.answer->outcome == Outcome::kSolved;
      limits.max_moves = max_moves;
      limits.max_nodes = options_.search_node_budget;
      auto analysis = solver_->AnalyzeSearch(model, instance, std::move(step), limits);
      if (!analysis.ok()) return analysis.status();
      Fill(model, instance, *analysis, out);
      if (paths.has_value()) {
        out->set_optimal_count(solved ? DecimalString(paths->count) : "0");
        for (size_t i = 0; i < analysis->moves.size(); ++i) {
          const int m = analysis->moves[i].move;
          if (static_cast<size_t>(m) < paths->after_move.size() && paths->after_move[m] > 0) {
            out->mutable_moves(static_cast<int>(i))->set_optimal_count(
                DecimalString(paths->after_move[m]));
          }
        }
      }
      RequestTableFor<P>(instance.params, analysis->position);
      return absl::OkStatus();
    };
    return Route::kNeedsSearch;
  });
}

RequestHandler::Route RequestHandler::Sample(const v1::SampleRequest& request,
                                             v1::SampleResponse* response, absl::Status* status,
                                             SearchStep<v1::SampleResponse>* search) {
  (void)response;
  const std::string_view name = WirePuzzleName(request.puzzle());
  if (name.empty()) {
    *status = Invalid(Cat("puzzle: no puzzle given; set one of ", PuzzleNames(", ")));
    return Route::kAnswered;
  }
  if (request.count() > kMaxSampleCount) {
    *status = Invalid(Cat("count: ", request.count(), " is more than ", kMaxSampleCount,
                          " states; draw in several calls with other seeds"));
    return Route::kAnswered;
  }
  if (request.largest() && request.distance() != 0) {
    *status = Invalid(Cat("distance: ", request.distance(),
                          " given with largest; give one or the other"));
    return Route::kAnswered;
  }
  if (request.any_distance() && (request.largest() || request.distance() != 0)) {
    *status = Invalid("any_distance: given with distance or largest; give one of the three");
    return Route::kAnswered;
  }
  Route route = Route::kAnswered;
  VisitPuzzle(name, [&](auto type) {
    using P = typename decltype(type)::type;
    auto params = ParamsFromWire<P>(request.puzzle());
    if (!params.ok()) {
      *status = params.status();
      return;
    }
    const int distance = request.any_distance() ? kAnyDistance
                         : request.largest()    ? Sampler<P>::kLargest
                                                : static_cast<int>(std::min(request.distance(), 255u));
    *search = [this, params = std::move(*params), distance, count = request.count(),
               seed = request.seed()](SearchLimits limits,
                                      v1::SampleResponse* out) -> absl::Status {
      const P model(params);
      auto sample = solver_->Sample(model, distance, count, seed, limits);
      if (!sample.ok()) {
        if constexpr (HasParams<P>) {
          // A wiring without a table: build it for next time, as a search would.
          if (builder_ != nullptr && absl::IsFailedPrecondition(sample.status()) &&
              builder_->Request<P>(params)) {
            return absl::FailedPreconditionError(
                Cat(Message(sample.status()), "; the server has started building it, try again "
                                              "in a few seconds"));
          }
        }
        return sample.status();
      }
      out->set_seed(seed);
      out->set_distance(static_cast<uint32_t>(sample->distance));
      out->set_population(sample->population);
      SetProvenance(sample->table, out);
      for (const auto& state : sample->states) {
        InstanceToWire(typename P::Instance{params, state}, out->add_states());
      }
      return absl::OkStatus();
    };
    route = Route::kNeedsSearch;
  });
  return route;
}

void RequestHandler::Prepare(const v1::Puzzle& puzzle) {
  VisitPuzzle(WirePuzzleName(puzzle), [&](auto type) {
    using P = typename decltype(type)::type;
    auto instance = InstanceFromWire<P>(puzzle);
    if (instance.ok()) solver_->Prepare<P>(instance->params);
  });
}

v1::ListTablesResponse RequestHandler::ListTables() const {
  v1::ListTablesResponse response;
  TableStore* store = solver_->store();
  if (store != nullptr) {
    const auto refused = solver_->Refused();
    const auto loaded = solver_->Loaded();
    auto tables = store->List();
    if (tables.ok()) {
      for (const TableMetadata& m : *tables) {
        auto* t = response.add_tables();
        t->set_table_id(m.table_id());
        t->set_puzzle(m.puzzle());
        t->set_parameters(m.parameters_text());
        t->set_parameters_bytes(m.parameters());
        TableParamsToWire(m.puzzle(), m.parameters(), t);
        t->set_coverage_depth(m.coverage_depth());
        t->set_complete(m.complete());
        t->set_states(m.state_count());
        t->set_covered_states(m.covered_states());
        for (uint64_t h : m.histogram()) t->add_histogram(h);
        t->set_max_distance(m.max_distance());
        t->set_size_bytes(m.stored_bytes());
        t->set_built_unix_micros(m.build_unix_micros());
        t->set_build_seconds(m.build_seconds());
        t->set_generation(m.generation());
        t->set_content_crc32(m.content_crc32());
        t->set_samples(true);  // a residue table without band pages searches for them
        if (auto it = refused.find(m.table_id()); it != refused.end()) {
          t->set_status("REFUSED: " + it->second);
        } else if (std::find(loaded.begin(), loaded.end(), m.table_id()) != loaded.end()) {
          t->set_status("LOADED");
        } else {
          t->set_status("AVAILABLE");
        }
      }
    }
    // Refused tables whose metadata cannot even be listed still show.
    for (const auto& [id, why] : refused) {
      bool listed = false;
      for (const auto& t : response.tables()) listed |= t.table_id() == id;
      if (!listed) {
        auto* t = response.add_tables();
        t->set_table_id(id);
        t->set_status("REFUSED: " + why);
      }
    }
  }
  if (builder_ != nullptr) {
    for (const std::string& id : builder_->Pending()) response.add_building(id);
  }
  return response;
}

void SetErrorInBand(const absl::Status& status, uint64_t id, v1::SolveResponse* out) {
  out->Clear();
  out->mutable_error()->set_code(static_cast<int>(status.code()));
  out->mutable_error()->set_message(std::string(Message(status)));
  out->set_id(id);
}

}  // namespace puzzledb
