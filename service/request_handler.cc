#include "service/request_handler.h"

#include <algorithm>
#include <atomic>
#include <optional>
#include <thread>

#include "core/table/table_view.h"
#include "core/util/strings.h"
#include "service/retry_hint.h"
#include "service/wire.h"

namespace puzzledb {

namespace {


absl::Status Invalid(const std::string& message) { return absl::InvalidArgumentError(message); }

// Checks the fields every request has; returns the policy.
template <class Request>
absl::StatusOr<Policy> ReadCommon(const Request& request) {
  Policy policy;
  switch (request.policy()) {
    case v1::TABLE_THEN_SEARCH:
      policy = Policy::kTableThenSearch;
      break;
    case v1::TABLE_ONLY:
      policy = Policy::kTableOnly;
      break;
    case v1::SEARCH_ONLY:
      policy = Policy::kSearchOnly;
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
  return policy;
}

// The request's position: `parsed` when given, else the message's puzzle.
template <class Request>
absl::StatusOr<Position> ReadPosition(const Request& request, const Position* parsed) {
  if (parsed != nullptr) return *parsed;
  return PositionFromWire(request.puzzle());
}

// Which table build answered: its id, generation and content checksum (docs/API.md,
// "Provenance").
template <class Response>
void SetProvenance(const TableMetadata& m, Response* out) {
  out->set_table_id(m.table_id());
  out->set_table_generation(m.generation());
  out->set_table_crc32(m.content_crc32());
}

template <class Response>
void SetProvenance(const TableStep& step, Response* out) {
  if (step.table != nullptr && step.answer.has_value() && step.answer->source == Source::kTable) {
    SetProvenance(step.table->metadata(), out);
  }
}

// Counting and listing need a table's answer; what to say when there is none (the
// solver's refusal, or the policy's).
absl::Status CountingNeedsATable(const Solver& solver, Policy policy, const Position& position,
                                 const TableStep& step) {
  if (policy == Policy::kSearchOnly) {
    return absl::FailedPreconditionError(
        "counting or listing optimal solutions needs a table, and the policy SEARCH_ONLY "
        "reads none");
  }
  return position.puzzle()->Optimal(solver, position, step, 0, SearchLimits{}).status();
}

void AnalysisToWire(const Analysis& analysis, v1::AnalyzeResponse* response) {
  response->set_outcome(OutcomeToWire(analysis.position.outcome));
  // A distance only where there is one (unset: left out of JSON).
  if (analysis.position.outcome == Outcome::kSolved) {
    response->set_distance(static_cast<uint32_t>(analysis.position.distance));
  }
  response->set_source(SourceToWire(analysis.position.source));
  for (const MoveAnalysis& move : analysis.moves) {
    auto* out = response->add_moves();
    out->set_move(move.name);
    out->set_outcome(OutcomeToWire(move.outcome));
    if (move.outcome == Outcome::kSolved) out->set_distance(static_cast<uint32_t>(move.distance));
  }
}

// The optimal solutions counted and listed into a Solve response.
void PathsToWire(const Position& position, const OptimalPaths& paths, v1::MoveEncoding encoding,
                 v1::SolveResponse* out) {
  out->set_optimal_count(DecimalString(paths.count));
  for (const std::vector<uint8_t>& moves : paths.first) {
    auto* listed = out->add_solutions();
    MovesToWire(position, moves, encoding, listed->mutable_moves(),
                encoding == v1::MOVE_CODES ? listed->mutable_move_codes() : nullptr);
  }
}

}  // namespace

namespace {

// What Solve and Analyze read alike: the common fields checked and the puzzle read into a
// position (`parsed` when given), into `query`.
template <class Request, class Query>
absl::StatusOr<Query> ReadSolveOrAnalyze(const Request& request, const Position* parsed) {
  auto policy = ReadCommon(request);
  if (!policy.ok()) return policy.status();
  auto position = ReadPosition(request, parsed);
  if (!position.ok()) return position.status();
  Query query;
  query.position = *position;
  query.typed = parsed != nullptr || IsTypedWire(request.puzzle());
  query.policy = *policy;
  query.max_moves = static_cast<int>(request.max_moves());
  query.id = request.id();
  query.count_solutions = request.count_solutions();
  return query;
}

}  // namespace

absl::StatusOr<SolveQuery> RequestHandler::Read(const v1::SolveRequest& request,
                                                const Position* parsed) const {
  auto query = ReadSolveOrAnalyze<v1::SolveRequest, SolveQuery>(request, parsed);
  if (!query.ok()) return query;
  query->timeout_ms = request.timeout_ms();
  query->max_solutions = request.max_solutions();
  query->move_encoding = request.move_encoding();
  return query;
}

absl::StatusOr<AnalyzeQuery> RequestHandler::Read(const v1::AnalyzeRequest& request,
                                                  const Position* parsed) const {
  return ReadSolveOrAnalyze<v1::AnalyzeRequest, AnalyzeQuery>(request, parsed);
}

absl::StatusOr<SampleQuery> RequestHandler::Read(const v1::SampleRequest& request,
                                                 const Position* parsed) const {
  if (parsed == nullptr && WirePuzzleName(request.puzzle()).empty()) {
    return Invalid(Cat("puzzle: no puzzle given; set name (one of ", PuzzleNames(", "),
                       ") and state, or a typed message"));
  }
  if (request.count() > kMaxSampleCount) {
    return Invalid(Cat("count: ", request.count(), " is more than ", kMaxSampleCount,
                       " states; draw in several calls with other seeds"));
  }
  if (request.largest() && request.distance() != 0) {
    return Invalid(Cat("distance: ", request.distance(), " given with largest; give one or the other"));
  }
  if (request.any_distance() && (request.largest() || request.distance() != 0)) {
    return Invalid("any_distance: given with distance or largest; give one of the three");
  }
  auto parameters = parsed != nullptr ? absl::StatusOr<Position>(*parsed)
                                      : ParametersFromWire(request.puzzle());
  if (!parameters.ok()) return parameters.status();
  SampleQuery query;
  query.parameters = *parameters;
  query.typed = parsed != nullptr || IsTypedWire(request.puzzle());
  query.distance = request.any_distance() ? kAnyDistance
                   : request.largest()    ? kLargestDistance
                                          : static_cast<int>(std::min(request.distance(), 255u));
  query.count = request.count();
  query.seed = request.seed();
  return query;
}

RequestHandler::AnswerAllowance RequestHandler::NewAllowance() const {
  if (options_.max_answer_bytes == 0) return nullptr;
  return std::make_shared<std::atomic<int64_t>>(static_cast<int64_t>(options_.max_answer_bytes));
}

void RequestHandler::RequestTable(const Position& position) {
  if (builder_ != nullptr && position.puzzle()->has_parameters()) builder_->Request(position);
}

RequestHandler::Routed<v1::SolveResponse> RequestHandler::Answer(const SolveQuery& query,
                                                                 v1::SolveResponse* response) {
  TableStep step;
  if (query.policy != Policy::kSearchOnly) {
    step = query.position.puzzle()->FromTables(*solver_, query.position, query.max_moves);
  }
  return SolveAfterTables(query, std::move(step), NewAllowance(), response);
}

RequestHandler::Routed<v1::SolveResponse> RequestHandler::SolveAfterTables(
    const SolveQuery& query, TableStep step, const AnswerAllowance& allowance,
    v1::SolveResponse* response) {
  const bool paths = query.count_solutions || query.max_solutions > 1;
  const size_t list = query.max_solutions > 1 ? query.max_solutions : 0;
  const v1::MoveEncoding encoding = query.move_encoding;
  if (query.policy != Policy::kSearchOnly) {
    if (step.answer.has_value() && !(paths && step.answer->outcome == Outcome::kSolved)) {
      SolutionToWire(query.position, *step.answer, response, encoding, query.typed);
      SetProvenance(step, response);
      // No solution of an unsolvable state; none counted beyond the cap.
      if (paths && step.answer->outcome == Outcome::kUnsolvable) response->set_optimal_count("0");
      return {};
    }
    if (query.policy == Policy::kTableOnly && !step.answer.has_value()) {
      return {step.NoSearchAllowed(), nullptr};
    }
  }
  if (paths) {
    if (!step.answer.has_value()) {
      return {CountingNeedsATable(*solver_, query.policy, query.position, step), nullptr};
    }
    // Counted on a search thread: the optimal paths of a far state number in the
    // hundreds of thousands. The listing's bytes are reserved before it is made, from the
    // call's (or the batch's) allowance and from the server's memory budget.
    SearchStep<v1::SolveResponse> search =
        [this, query, step = std::move(step), list, encoding, allowance](
            SearchLimits limits, v1::SolveResponse* out) -> absl::Status {
      SolutionToWire(query.position, *step.answer, out, encoding, query.typed);
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
      auto found = query.position.puzzle()->Optimal(*solver_, query.position, step, list, limits);
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
      PathsToWire(query.position, *found, encoding, out);
      return absl::OkStatus();
    };
    return HandOn(std::move(search));
  }
  SearchStep<v1::SolveResponse> search = [this, query, step = std::move(step)](
                                             SearchLimits limits,
                                             v1::SolveResponse* out) -> absl::Status {
    limits.max_moves = query.max_moves;
    if (!step.had_table) RequestTable(query.position);
    auto solution = query.position.puzzle()->Search(*solver_, query.position, step, limits);
    if (!solution.ok()) return solution.status();
    SolutionToWire(query.position, *solution, out, query.move_encoding, query.typed);
    return absl::OkStatus();
  };
  return HandOn(std::move(search));
}

absl::Status RequestHandler::SolveBatch(const v1::SolveBatchRequest& batch,
                                        v1::SolveBatchResponse* response,
                                        std::vector<BatchSearch>* searches, const ThreadLender& threads,
                                        std::vector<absl::StatusOr<SolveQuery>>* read) {
  const int n = batch.requests_size();
  if (read != nullptr && read->size() != static_cast<size_t>(n)) {
    return absl::InternalError("SolveBatch: the requests read do not match the batch");
  }
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
      SolvePart(batch, read, c * kBatchChunk, std::min(n, (c + 1) * kBatchChunk), allowance,
                response, &found[static_cast<size_t>(c)]);
    }
  };
  LentHelpers lent;
  if (threads && chunks > 1) {
    const int spare = static_cast<int>(std::max(1u, std::thread::hardware_concurrency())) - 1;
    lent.Lend(threads, std::min(spare, chunks - 1), drain);
  }
  drain();
  lent.Wait();
  for (std::vector<BatchSearch>& part : found) {
    for (BatchSearch& one : part) searches->push_back(std::move(one));
  }
  return absl::OkStatus();
}

void RequestHandler::SolvePart(const v1::SolveBatchRequest& batch,
                               std::vector<absl::StatusOr<SolveQuery>>* read, int begin, int end,
                               const AnswerAllowance& allowance, v1::SolveBatchResponse* response,
                               std::vector<BatchSearch>* searches) {
  // Each request is read; a bad one is answered with its error at once.
  struct Item {
    int index;
    SolveQuery query;
  };
  std::vector<Item> items;
  items.reserve(static_cast<size_t>(end - begin));
  for (int i = begin; i < end; ++i) {
    const v1::SolveRequest& request = batch.requests(i);
    absl::StatusOr<SolveQuery> query =
        read != nullptr ? std::move((*read)[static_cast<size_t>(i)]) : Read(request);
    if (!query.ok()) {
      SetErrorInBand(query.status(), request.id(), response->mutable_responses(i));
      continue;
    }
    items.push_back({i, std::move(*query)});
  }
  // The table step of every item that reads tables, over consecutive items of the same
  // puzzle and parameters at once (they read one table).
  std::vector<TableStep> steps(items.size());
  std::vector<Position> positions;
  std::vector<int> caps;
  std::vector<size_t> which;
  for (size_t first = 0; first < items.size();) {
    const Position& head = items[first].query.position;
    const Puzzle& puzzle = *head.puzzle();
    size_t last = first;
    positions.clear();
    caps.clear();
    which.clear();
    for (; last < items.size() && items[last].query.position.puzzle() == &puzzle &&
           puzzle.SameParameters(items[last].query.position, head);
         ++last) {
      if (items[last].query.policy == Policy::kSearchOnly) continue;
      positions.push_back(items[last].query.position);
      caps.push_back(items[last].query.max_moves);
      which.push_back(last);
    }
    if (!positions.empty()) {
      std::vector<TableStep> many(positions.size());
      puzzle.FromTablesMany(*solver_, positions, caps, std::span(many));
      for (size_t k = 0; k < which.size(); ++k) steps[which[k]] = std::move(many[k]);
    }
    first = last;
  }
  for (size_t k = 0; k < items.size(); ++k) {
    const Item& item = items[k];
    v1::SolveResponse* out = response->mutable_responses(item.index);
    Routed<v1::SolveResponse> routed =
        SolveAfterTables(item.query, std::move(steps[k]), allowance, out);
    if (routed.NeedsSearch()) {
      searches->push_back({static_cast<size_t>(item.index), std::move(routed.search),
                           item.query.timeout_ms});
    } else if (!routed.status.ok()) {
      SetErrorInBand(routed.status, item.query.id, out);
    }
    out->set_id(item.query.id);
  }
}

RequestHandler::Routed<v1::AnalyzeResponse> RequestHandler::Answer(
    const AnalyzeQuery& query, v1::AnalyzeResponse* response) {
  const Puzzle& puzzle = *query.position.puzzle();
  AnalysisStep step = puzzle.AnalyzeFromTables(*solver_, query.position, query.max_moves,
                                               query.policy != Policy::kSearchOnly);
  if (query.count_solutions && !step.position.answer.has_value()) {
    return {CountingNeedsATable(*solver_, query.policy, query.position, step.position), nullptr};
  }
  if (step.Answered() && !query.count_solutions) {
    SetProvenance(step.position, response);
    auto analysis = puzzle.AnalyzeSearch(*solver_, query.position, std::move(step), SearchLimits{});
    if (!analysis.ok()) return {analysis.status(), nullptr};
    AnalysisToWire(*analysis, response);
    return {};
  }
  if (query.policy == Policy::kTableOnly && !step.Answered()) {
    return {step.NoSearchAllowed(), nullptr};
  }
  // The search step searches only what the table step left open, and counts. It runs
  // once, so it hands the table answers over instead of copying them.
  auto shared = std::make_shared<AnalysisStep>(std::move(step));
  SearchStep<v1::AnalyzeResponse> search =
      [this, query, shared](SearchLimits limits, v1::AnalyzeResponse* out) -> absl::Status {
    const Puzzle& puzzle = *query.position.puzzle();
    AnalysisStep& step = *shared;
    std::optional<OptimalPaths> paths;
    if (query.count_solutions) {
      auto found = puzzle.Optimal(*solver_, query.position, step.position, 0, limits);
      if (!found.ok()) return found.status();
      paths = std::move(*found);
    }
    SetProvenance(step.position, out);
    const bool solved = step.position.answer.has_value() &&
                        step.position.answer->outcome == Outcome::kSolved;
    limits.max_moves = query.max_moves;
    if (!step.position.had_table) RequestTable(query.position);
    auto analysis = puzzle.AnalyzeSearch(*solver_, query.position, std::move(step), limits);
    if (!analysis.ok()) return analysis.status();
    AnalysisToWire(*analysis, out);
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
    return absl::OkStatus();
  };
  return HandOn(std::move(search));
}

RequestHandler::Routed<v1::SampleResponse> RequestHandler::Answer(const SampleQuery& query,
                                                                  v1::SampleResponse*) {
  SearchStep<v1::SampleResponse> search = [this, query](SearchLimits limits,
                                                        v1::SampleResponse* out) -> absl::Status {
    const Puzzle& puzzle = *query.parameters.puzzle();
    auto sample = puzzle.Sample(*solver_, query.parameters, query.distance, query.count,
                                query.seed, limits);
    if (!sample.ok()) {
      // Parameters without a table: build it for next time, as a search would.
      if (puzzle.has_parameters() && builder_ != nullptr &&
          absl::IsFailedPrecondition(sample.status()) && builder_->Request(query.parameters)) {
        return absl::FailedPreconditionError(
            Cat(Message(sample.status()), "; the server has started building it, try again "
                                          "in a few seconds"));
      }
      return sample.status();
    }
    out->set_seed(query.seed);
    out->set_distance(static_cast<uint32_t>(sample->distance));
    out->set_population(sample->population);
    if (!sample->table_id.empty()) {
      out->set_table_id(sample->table_id);
      out->set_table_generation(sample->table_generation);
      out->set_table_crc32(sample->table_crc32);
    }
    for (const Position& position : sample->positions) {
      PositionToWire(position, query.typed, out->add_states());
    }
    return absl::OkStatus();
  };
  return HandOn(std::move(search));
}

void RequestHandler::Prepare(const Position& position) {
  position.puzzle()->Prepare(*solver_, position);
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

v1::ListPuzzlesResponse RequestHandler::ListPuzzles() const {
  const v1::ListTablesResponse tables = ListTables();
  v1::ListPuzzlesResponse response;
  for (const Puzzle* puzzle : Puzzles()) {
    v1::PuzzleInfo* out = response.add_puzzles();
    DescribePuzzle(*puzzle, out);
    for (const v1::TableInfo& table : tables.tables()) {
      if (table.puzzle() != puzzle->name()) continue;
      v1::PuzzleTable* t = out->add_tables();
      t->set_table_id(table.table_id());
      t->set_status(table.status());
      t->set_answers(puzzle->pattern_tables()
                         ? "bounds that guide the live search; no position by itself"
                     : table.complete()
                         ? "every position: its exact distance and moves, counts and samples"
                         : Cat("every position at most ", table.coverage_depth(),
                               " moves away: its exact distance and moves, counts and "
                               "samples; a bound on the others"));
    }
  }
  return response;
}

void SetError(const absl::Status& status, v1::Error* out) {
  out->set_code(static_cast<v1::Error::Code>(status.code()));
  out->set_message(std::string(Message(status)));
  if (auto after = RetryHintOf(status)) out->set_retry_after_ms(static_cast<uint32_t>(after->count()));
}

void SetErrorInBand(const absl::Status& status, uint64_t id, v1::SolveResponse* out) {
  out->Clear();
  SetError(status, out->mutable_error());
  out->set_id(id);
}

}  // namespace puzzledb
