// The answer to a solve: from a table where one covers the state, else by live search,
// as the policy allows. Shared by the command line (in-process), the server and the
// builder's checks.
#ifndef PUZZLEDB_CORE_SOLVER_H_
#define PUZZLEDB_CORE_SOLVER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/model/model.h"
#include "core/puzzle.h"
#include "core/util/strings.h"

namespace puzzledb {

// The store and its records are declared only (core/table/table_store.h): what includes
// this header, the service and the server among them, compiles without the tables'
// protobuf messages and RocksDB's headers.
class TableStore;
struct LoadedTable;
class TableView;
template <PuzzleModel P>
class TableWalker;
template <PuzzleModel P>
class LiveSolver;
template <PuzzleModel P>
class Sampler;
template <PuzzleModel P>
struct Sample;

enum class Policy { kTableThenSearch, kTableOnly, kSearchOnly };

struct SolveOptions {
  Policy policy = Policy::kTableThenSearch;
  SearchLimits limits;
};

// The table step of a solve (Puzzle::FromTables): the answer, when the tables give one,
// else what the search step needs. It never searches.
struct TableStep {
  std::optional<Solution> answer;
  // A partial table that does not cover the state: its bound on the uncovered states
  // guides the search.
  std::shared_ptr<const TableView> partial;
  // The table that was read (whether or not it answered): its build names the answer's
  // provenance (the HTTP API's ETag).
  std::shared_ptr<const TableView> table;
  bool had_table = false;  // a usable table exists for these parameters
  // A guided model's strongest guide present (its pattern tables, which bound, never
  // answer), as its Guide loaded it (core/model/model.h, kGuided).
  std::shared_ptr<const void> guide;
  // Whose step it is, for NoSearchAllowed's message.
  std::string_view puzzle;
  bool pattern_bound = false;  // the puzzle's tables are pattern tables

  // The answer to give when the policy forbids search.
  absl::Status NoSearchAllowed() const;
};

// The table step of an analysis (Puzzle::AnalyzeFromTables): the table step of the
// position and of the state after every legal move.
struct AnalysisStep {
  TableStep position;
  std::vector<int> moves;         // the legal moves, in canonical order
  std::vector<TableStep> after;  // after[i]: the state after moves[i]

  // Every answer is there: the analysis needs no search.
  bool Answered() const {
    if (!position.answer.has_value()) return false;
    for (const TableStep& one : after) {
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
//
// Everything above core/ uses the runtime half: a Position's puzzle takes the two steps
// (Puzzle::FromTables, Puzzle::Search), or Solve and Analyze here take both. The member
// templates are each model's own half: declared here, defined in core/solver_templates.h
// and compiled once per puzzle, in that puzzle's translation unit
// (core/puzzles/model_puzzle.h); tests and benchmarks of one model call them directly.
class Solver {
 public:
  // `store` may be null: live search only.
  explicit Solver(std::shared_ptr<TableStore> store = nullptr,
                  std::function<void(std::string_view)> log = nullptr)
      : store_(std::move(store)), log_(std::move(log)) {}

  TableStore* store() const { return store_.get(); }

  // A solve in one call: the table step, then, if the policy allows, the search step.
  absl::StatusOr<Solution> Solve(const Position& position, const SolveOptions& options);
  absl::StatusOr<Analysis> Analyze(const Position& position, const SolveOptions& options);

  // Loads every table in the store now (instead of at first use); returns how many loaded.
  int Preload();
  // Forgets what is known about a table (after it was built or rebuilt), so that the next
  // query loads it again.
  void Forget(const std::string& table_id);
  // Tables refused so far, with the reason.
  std::map<std::string, std::string> Refused() const;
  // Records a table refused before any query read it (a stored definition that cannot be
  // served: RegisterStoredDefinitions), so that listings say REFUSED and why.
  void NoteRefused(const std::string& table_id, const std::string& why);
  // Ids of the tables loaded now.
  std::vector<std::string> Loaded() const;

  // ---- one model's half (core/solver_templates.h)

  template <PuzzleModel P>
  absl::StatusOr<Solution> Solve(const typename P::Instance& instance, const SolveOptions& options);

  // The two steps apart (a server answers the first on the calling thread and hands the
  // second, with the step's result, to a search thread). `max_moves` 0: no cap.
  template <PuzzleModel P>
  TableStep FromTables(const P& model, const typename P::Instance& instance, int max_moves);
  template <PuzzleModel P>
  absl::StatusOr<Solution> Search(const P& model, const typename P::Instance& instance,
                                  const TableStep& step, const SearchLimits& limits);
  // The table step of many instances of one model: steps[i] is FromTables(model,
  // instances[i], max_moves[i]), with the walks of a residue or next-move table taking turns
  // so that their memory reads overlap (TableWalker::SolveMany). REQUIRES: equal sizes.
  template <PuzzleModel P>
  void FromTablesMany(const P& model, std::span<const typename P::Instance> instances,
                      std::span<const int> max_moves, std::span<TableStep> steps);

  template <PuzzleModel P>
  absl::StatusOr<Analysis> Analyze(const typename P::Instance& instance,
                                   const SolveOptions& options);
  // An analysis in two steps, like a solve: the table step of the position and of every
  // legal move (never searching), and the search step, which searches only what the
  // tables did not answer. `use_tables` false (SEARCH_ONLY) leaves every answer to it.
  template <PuzzleModel P>
  AnalysisStep AnalyzeFromTables(const P& model, const typename P::Instance& instance,
                                 int max_moves, bool use_tables = true);
  template <PuzzleModel P>
  absl::StatusOr<Analysis> AnalyzeSearch(const P& model, const typename P::Instance& instance,
                                         AnalysisStep step, const SearchLimits& limits);

  // States drawn uniformly at an exact distance (Sampler::Draw) from the table for the
  // model's parameters (a guided model: its Guide's Draw, which also takes kAnyDistance).
  // FAILED_PRECONDITION naming the table when there is none or it was refused; DATA_LOSS
  // when a modulo-3 table disagrees with the search for its distances.
  template <PuzzleModel P>
  absl::StatusOr<puzzledb::Sample<P>> Sample(const P& model, int distance, uint64_t count,
                                             uint64_t seed, const SearchLimits& limits);

  // The optimal solutions of a state the table step answered from a table (SOLVED):
  // counted and the first `list` listed (TableWalker::Optimal). FAILED_PRECONDITION when no
  // table answered: counting needs one. Over a next-move table the first count searches
  // for the table's exact distances (as the first sample does) and keeps them.
  template <PuzzleModel P>
  absl::StatusOr<OptimalPaths> Optimal(const typename P::Instance& instance,
                                       const TableStep& step, size_t list,
                                       const SearchLimits& limits) const;

  // Loads the table for these parameters now, if the store has one (so that a caller can
  // time its first answer without the load).
  template <PuzzleModel P>
  void Prepare(const typename P::Params& params);
  // Loads the table `m` describes (Preload); true if it loaded. `base`: the puzzle's own
  // parameters, against which a model given at run time checks the stored ones.
  template <PuzzleModel P>
  bool Load(const TableMetadata& m, const typename P::Params& base);

 private:
  template <PuzzleModel P>
  std::shared_ptr<const TableWalker<P>> WalkerFor(const P& model);
  // The table step of a walk that passed its checks.
  template <PuzzleModel P>
  TableStep StepOf(const P& model, const typename P::Instance& instance, int max_moves,
                   const std::shared_ptr<const TableWalker<P>>& walker,
                   typename TableWalker<P>::Answer answer);
  template <PuzzleModel P>
  std::shared_ptr<const LiveSolver<P>> LiveFor(const P& model);
  // The strongest of P::Guide's sets for `params` the store has (loaded on first use), or
  // null.
  template <PuzzleModel P>
  std::shared_ptr<const void> GuideFor(const typename P::Params& params);
  // The guide stored as `table_id`, read by `load` on first use and kept under `key`
  // (KeyOf); null when the store has none or it was refused (logged). `identity`: the
  // puzzle's (PuzzleIdentityOf), a load that fails for a puzzle no longer served is no
  // refusal.
  using GuideLoader = std::function<absl::StatusOr<std::shared_ptr<const void>>(
      const std::shared_ptr<const LoadedTable>& table)>;
  std::shared_ptr<const void> LoadGuide(const std::string& table_id, const std::string& key,
                                        const void* identity, const GuideLoader& load);
  // Where what is kept of a table is kept: its id, and for a puzzle made at run time (a
  // definition, which a running server may replace: its Params point to what it was made
  // from) that identity too, "id@identity", so that a call in flight on a replaced puzzle
  // never meets what was read for its successor. Listings name tables by id, of the
  // puzzles served (KeyServed).
  template <PuzzleModel P>
  static std::string KeyOf(const typename P::Params& params, const std::string& table_id) {
    if constexpr (std::is_pointer_v<typename P::Params>) {
      return Cat(table_id, "@", reinterpret_cast<uintptr_t>(params));
    } else {
      return table_id;
    }
  }
  template <PuzzleModel P>
  static const void* PuzzleIdentityOf(const typename P::Params& params) {
    if constexpr (std::is_pointer_v<typename P::Params>) {
      return params;
    } else {
      return nullptr;
    }
  }
  // The table id of a key, and whether its puzzle is served now.
  static std::string IdOfKey(const std::string& key) { return key.substr(0, key.find('@')); }
  static bool KeyServed(const std::string& key);
  // The sampler of the walker's table, built on first use (its exact distances, which
  // counting over a next-move table reads too).
  template <PuzzleModel P>
  absl::StatusOr<std::shared_ptr<const Sampler<P>>> SamplerFor(const P& model,
                                                              const TableWalker<P>& walker) const;
  void Refuse(const std::string& key, const absl::Status& why);
  // Forgets what is kept under `key`. REQUIRES: mutex_ held.
  void EraseLocked(const std::string& key, bool samplers);
  // Logs that a table's unpacked copy failed a check and its pages were read instead.
  void NoteLoad(const absl::StatusOr<std::shared_ptr<const LoadedTable>>& table) const;

  const std::shared_ptr<TableStore> store_;
  const std::function<void(std::string_view)> log_;
  mutable std::mutex mutex_;
  // What is kept of each table, by key (KeyOf: a table's id names its puzzle, and a key
  // the puzzle itself, so one map serves every puzzle; each model casts back what it put
  // in). A null walker records that the store has no such table.
  std::map<std::string, std::shared_ptr<const TableView>> walkers_;
  std::map<std::string, std::shared_ptr<const void>> live_;
  mutable std::map<std::string, std::shared_ptr<const void>> samplers_;
  std::map<std::string, std::string> refused_;
  // Guides (pattern tables) by table id; a null entry records that the store has no such
  // table.
  std::map<std::string, std::shared_ptr<const void>> guides_;
  mutable std::mutex sampler_build_mutex_;  // held while a sampler is built
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_SOLVER_H_
