// The answer to a solve: from a table where one covers the state, else by live search,
// as the policy allows. Shared by the command line (in-process) and the server. Its
// templates are compiled once, in core/solver.cc, for every puzzle of the registry.
#ifndef PUZZLEDB_CORE_SOLVER_H_
#define PUZZLEDB_CORE_SOLVER_H_

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "absl/status/statusor.h"
#include "core/search/live_solver.h"
#include "core/puzzles/puzzle.h"
#include "core/puzzles/registry.h"
#include "core/util/strings.h"
#include "core/table/pattern_tables.h"
#include "core/table/sampler.h"
#include "core/table/table_store.h"
#include "core/table/table_walker.h"

namespace puzzledb {

enum class Policy { kTableThenSearch, kTableOnly, kSearchOnly };

struct SolveOptions {
  Policy policy = Policy::kTableThenSearch;
  SearchLimits limits;
};

struct MoveAnalysis {
  int move = 0;
  std::string name;
  Outcome outcome = Outcome::kSolved;
  int distance = 0;  // exact when kSolved
};

struct Analysis {
  Solution position;
  std::vector<MoveAnalysis> moves;  // every legal move, best first, ties in canonical order
};

// The table step of a solve (Solver::FromTables): the answer, when the tables give one,
// else what the search step needs. It never searches.
template <PuzzleModel P>
struct TableStep {
  std::optional<Solution> answer;
  // A partial table that does not cover the state: its bound on the uncovered states
  // guides the search.
  std::shared_ptr<const TableWalker<P>> partial;
  // The table that was read (whether or not it answered): its build names the answer's
  // provenance (the HTTP API's ETag).
  std::shared_ptr<const TableWalker<P>> table;
  bool had_table = false;  // a usable table exists for these parameters
  // A pattern model's strongest pattern tables present (they bound, never answer).
  std::shared_ptr<const PatternTables> patterns;

  // The answer to give when the policy forbids search.
  absl::Status NoSearchAllowed() const {
    if constexpr (P::kTableEncoding == TableEncodingKind::kPatternBound) {
      return absl::FailedPreconditionError(
          Cat("the ", P::kName, " puzzle's tables are pattern tables, which bound a search but "
              "answer no board by themselves, and the policy forbids search"));
    }
    return absl::FailedPreconditionError(
        had_table ? "the table does not cover this state and the policy forbids search"
                  : Cat("no usable ", P::kName,
                        " table for these parameters and the policy forbids search"));
  }
};

// The table step of an analysis (Solver::AnalyzeFromTables): the table step of the
// position and of the state after every legal move.
template <PuzzleModel P>
struct AnalysisStep {
  TableStep<P> position;
  std::vector<int> moves;          // the legal moves, in canonical order
  std::vector<TableStep<P>> after;  // after[i]: the state after moves[i]

  // Every answer is there: the analysis needs no search.
  bool Answered() const {
    if (!position.answer.has_value()) return false;
    for (const TableStep<P>& one : after) {
      if (!one.answer.has_value()) return false;
    }
    return true;
  }
  // The answer to give when the policy forbids search and !Answered().
  static absl::Status NoSearchAllowed() {
    return absl::FailedPreconditionError(
        "the tables do not cover this state or a state one move away, and the policy forbids "
        "search");
  }
};

// Thread-safe. Tables are loaded from the store on first use and kept; a table that fails
// its checks (on load or during a walk) is refused from then on, and its states go to live
// search.
class Solver {
 public:
  // `store` may be null: live search only.
  explicit Solver(std::shared_ptr<TableStore> store = nullptr,
                  std::function<void(std::string_view)> log = nullptr)
      : store_(std::move(store)), log_(std::move(log)) {}

  TableStore* store() const { return store_.get(); }

  // A solve in one call: the table step, then, if the policy allows, the search step.
  template <PuzzleModel P>
  absl::StatusOr<Solution> Solve(const typename P::Instance& instance, const SolveOptions& options);

  // The two steps apart (a server answers the first on the calling thread and hands the
  // second, with the step's result, to a search thread). `max_moves` 0: no cap.
  template <PuzzleModel P>
  TableStep<P> FromTables(const P& model, const typename P::Instance& instance, int max_moves);
  template <PuzzleModel P>
  absl::StatusOr<Solution> Search(const P& model, const typename P::Instance& instance,
                                  const TableStep<P>& step, const SearchLimits& limits);
  // The table step of many instances of one model: steps[i] is FromTables(model,
  // instances[i], max_moves[i]), with the walks of a residue or next-move table taking turns
  // so that their memory reads overlap (TableWalker::SolveMany). REQUIRES: equal sizes.
  template <PuzzleModel P>
  void FromTablesMany(const P& model, std::span<const typename P::Instance> instances,
                      std::span<const int> max_moves, std::span<TableStep<P>> steps);

  template <PuzzleModel P>
  absl::StatusOr<Analysis> Analyze(const typename P::Instance& instance,
                                   const SolveOptions& options);
  // An analysis in two steps, like a solve: the table step of the position and of every
  // legal move (never searching), and the search step, which searches only what the
  // tables did not answer. `use_tables` false (SEARCH_ONLY) leaves every answer to it.
  template <PuzzleModel P>
  AnalysisStep<P> AnalyzeFromTables(const P& model, const typename P::Instance& instance,
                                    int max_moves, bool use_tables = true);
  template <PuzzleModel P>
  absl::StatusOr<Analysis> AnalyzeSearch(const P& model, const typename P::Instance& instance,
                                         AnalysisStep<P> step, const SearchLimits& limits);

  // States drawn uniformly at an exact distance (Sampler::Draw) from the table for the
  // model's parameters (a pattern model: PatternSample, which also takes kAnyDistance). FAILED_PRECONDITION naming the table when there is none or it was
  // refused; DATA_LOSS when a modulo-3 table disagrees with the search for its distances.
  template <PuzzleModel P>
  absl::StatusOr<Sample<P>> Sample(const P& model, int distance, uint64_t count, uint64_t seed,
                                   const SearchLimits& limits);

  // The optimal solutions of a state the table step answered from a table (SOLVED):
  // counted and the first `list` listed (TableWalker::Optimal). FAILED_PRECONDITION when no
  // table answered: counting needs one. Over a next-move table the first count searches
  // for the table's exact distances (as the first sample does) and keeps them.
  template <PuzzleModel P>
  absl::StatusOr<typename TableWalker<P>::OptimalPaths> Optimal(
      const typename P::Instance& instance, const TableStep<P>& step, size_t list,
      uint64_t max_states, const SearchLimits& limits) const;

  // Loads every table in the store now (instead of at first use); returns how many loaded.
  int Preload();
  // Loads the table for these parameters now, if the store has one (so that a caller can
  // time its first answer without the load).
  template <PuzzleModel P>
  void Prepare(const typename P::Params& params);
  // Forgets what is known about a table (after it was built or rebuilt), so that the next
  // query loads it again.
  void Forget(const std::string& table_id);
  // Tables refused so far, with the reason.
  std::map<std::string, std::string> Refused() const;
  // Ids of the tables loaded now.
  std::vector<std::string> Loaded() const;

 private:
  template <PuzzleModel P>
  std::shared_ptr<const TableWalker<P>> WalkerFor(const P& model);
  // The table step of a walk that passed its checks.
  template <PuzzleModel P>
  TableStep<P> StepOf(const P& model, const typename P::Instance& instance, int max_moves,
                      const std::shared_ptr<const TableWalker<P>>& walker,
                      typename TableWalker<P>::Answer answer);
  template <PuzzleModel P>
  std::shared_ptr<const LiveSolver<P>> LiveFor(const P& model);
  // The strongest of P::kPatternSets the store has (loaded on first use), or null.
  template <PuzzleModel P>
  std::shared_ptr<const PatternTables> PatternsFor();
  std::shared_ptr<const PatternTables> LoadPatterns(const std::string& table_id,
                                                    std::string_view puzzle);
  // The sampler of the walker's table, built on first use (its exact distances, which
  // counting over a next-move table reads too).
  template <PuzzleModel P>
  absl::StatusOr<std::shared_ptr<const Sampler<P>>> SamplerFor(const P& model,
                                                              const TableWalker<P>& walker) const;
  void Refuse(const std::string& table_id, const absl::Status& why);

  // What is kept for one puzzle's tables, by table id, typed.
  template <PuzzleModel P>
  struct Caches {
    // A null walker records that the store has no such table.
    std::map<std::string, std::shared_ptr<const TableWalker<P>>> walkers;
    std::map<std::string, std::shared_ptr<const LiveSolver<P>>> live;
    std::map<std::string, std::shared_ptr<const Sampler<P>>> samplers;
  };
  template <class Models>
  struct CachesOf;
  template <class... Ps>
  struct CachesOf<std::tuple<Ps...>> {
    using type = std::tuple<Caches<Ps>...>;
  };
  // REQUIRES: mutex_ held.
  template <PuzzleModel P>
  Caches<P>& CachesFor() const {
    return std::get<Caches<P>>(caches_);
  }
  // Forgets `table_id` in every puzzle's caches. REQUIRES: mutex_ held.
  void EraseLocked(const std::string& table_id, bool samplers);

  const std::shared_ptr<TableStore> store_;
  const std::function<void(std::string_view)> log_;
  mutable std::mutex mutex_;
  mutable typename CachesOf<AllPuzzles>::type caches_;
  std::map<std::string, std::string> refused_;
  // Pattern tables by table id; a null entry records that the store has no such table.
  std::map<std::string, std::shared_ptr<const PatternTables>> patterns_;
  mutable std::mutex sampler_build_mutex_;  // held while a sampler is built
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_SOLVER_H_
