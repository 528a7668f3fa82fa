// A puzzle, as everything outside its model sees it: one object per puzzle, registered once
// by its model (core/puzzles/model_puzzle.h), found by name, asked for everything — its
// texts, its moves, and the answers from a solver's tables or a search. The server, the
// command line and the builder reach puzzles only through this header; none of them names
// one (docs/ARCHITECTURE.md, "One puzzle, one place").
//
// Ownership and threads: a Puzzle lives for the whole program and is immutable, so every
// method may be called from any thread at once. A Position is a value (a few dozen bytes,
// copied freely); it points to its Puzzle. The Solver passed to the operations holds the
// tables (core/solver.h) and must outlive the call.
#ifndef PUZZLEDB_CORE_PUZZLE_H_
#define PUZZLEDB_CORE_PUZZLE_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "absl/status/statusor.h"
#include "core/model/model.h"
#include "core/util/text_input.h"

namespace puzzledb {

class Puzzle;
class Solver;
struct TableStep;
struct AnalysisStep;
struct BuildOptions;
class TableStore;
namespace storage::v1 {
class TableMetadata;
}  // namespace storage::v1
using TableMetadata = storage::v1::TableMetadata;  // core/table/table_store.h

// One case of a puzzle: its parameters (the knobs' wiring; nothing for most puzzles) and
// its state, as its model parsed and checked them. Only the puzzle's own code reads what is
// inside (As); everything else passes it back to the puzzle. An instance of up to kBytes
// (every built-in's, a definition's of a state up to 56 bytes) is held in place; a larger
// one (a definition searched with pattern tables, up to a kilobyte) once on the heap,
// shared by the copies of the Position, which never change it.
class Position {
 public:
  static constexpr size_t kBytes = 64;

  Position() = default;  // no puzzle
  template <class Instance>
  Position(const Puzzle& puzzle, const Instance& instance) : puzzle_(&puzzle) {
    static_assert(std::is_trivially_copyable_v<Instance> && alignof(Instance) <= alignof(std::max_align_t),
                  "a model's Instance is a trivially copyable value");
    if constexpr (kInPlace<Instance>) {
      ::new (static_cast<void*>(bytes_)) Instance(instance);
    } else {
      large_ = std::make_shared<const Instance>(instance);
    }
  }

  // Null for a Position of no puzzle.
  const Puzzle* puzzle() const { return puzzle_; }

  // The model's instance. REQUIRES: Instance is the instance type of puzzle()'s model.
  template <class Instance>
  const Instance& As() const {
    if constexpr (kInPlace<Instance>) {
      return *std::launder(reinterpret_cast<const Instance*>(bytes_));
    } else {
      return *static_cast<const Instance*>(large_.get());
    }
  }

 private:
  template <class Instance>
  static constexpr bool kInPlace = sizeof(Instance) <= kBytes;

  const Puzzle* puzzle_ = nullptr;
  alignas(std::max_align_t) unsigned char bytes_[kBytes] = {};
  std::shared_ptr<const void> large_;  // an instance larger than kBytes
};

// States drawn from a table at an exact distance (Puzzle::Sample).
struct PositionSample {
  int distance = 0;
  uint64_t population = 0;
  std::vector<Position> positions;
  // The table build drawn from; its id is empty when no table was (a pattern model's
  // draws among every state).
  std::string table_id;
  uint64_t table_generation = 0;
  uint32_t table_crc32 = 0;
};

class Puzzle {
 public:
  virtual ~Puzzle() = default;

  // ---- what it is

  // The name requests use ("knobs"), and a title for people ("The twelve wired knobs").
  virtual std::string_view name() const = 0;
  virtual std::string_view title() const = 0;
  // Moves are numbered 0..move_count() - 1 in the model's canonical order.
  virtual int move_count() const = 0;
  // The move cap of the original problem's output (answers beyond it print -1); 0: none.
  virtual int default_max_moves() const = 0;
  // True if parameters are part of every case (one table per parameter set).
  virtual bool has_parameters() const = 0;
  // For a puzzle with parameters: the command line's own name for the option that gives
  // them ("wiring"; empty: none, --params only), and what its files hold.
  virtual std::string_view parameters_flag() const = 0;
  virtual std::string_view parameters_help() const = 0;
  // True if the puzzle's tables are pattern tables: they bound a search and answer no
  // state by themselves (no counting; sampling draws among every state too).
  virtual bool pattern_tables() const = 0;
  // True if there is one goal state (answers then need not say which goal was reached).
  virtual bool single_goal() const = 0;
  // A puzzle given as a definition file: the file (docs/PUZZLES.md, section 7); empty for a
  // puzzle written in C++.
  virtual std::string_view definition() const = 0;
  // What tells this puzzle apart from another of its name registered at run time (a
  // definition built again while served replaces it): the address of what it was made
  // from; null for a built-in puzzle, of which there is one. The solver keys what it keeps
  // by it (core/solver.h), so that a call in flight on a replaced puzzle never meets what was
  // read for its successor.
  virtual const void* identity() const = 0;
  // Empty if a table's entries are the puzzle's positions, so that its histogram is the
  // puzzle's census (positions per distance); else what they are instead, for people.
  virtual std::string_view table_entries() const = 0;

  // ---- text

  // The compact one-line form (docs/API.md, "Compact forms"): INVALID_ARGUMENT naming the
  // place and the rule broken.
  virtual absl::StatusOr<Position> ParseCompact(std::string_view text) const = 0;
  virtual std::string FormatCompact(const Position& position) const = 0;
  // The original problem's input, case by case; and back (ParseOriginal reads it).
  virtual std::vector<ParsedCase<Position>> ParseOriginal(std::string_view text) const = 0;
  virtual std::string FormatOriginal(std::span<const Position> positions) const = 0;
  // Cases given as move sequences, one a line, each played from the goal (a blank line is
  // the goal itself): moves named as MoveName names them where they are made. A case that
  // names no move of the puzzle there, or one that does not apply, is INVALID_ARGUMENT
  // naming the case, the line and the move; so is every case of a puzzle with parameters
  // (its cases carry them: the original input gives them).
  virtual std::vector<ParsedCase<Position>> ParseScrambles(std::string_view text) const = 0;
  // One such sequence (moves separated by white space; none: the goal), as the wire's
  // `scramble` gives it: INVALID_ARGUMENT naming the move by its number, as above, and for
  // more than kMaxScrambleMoves moves.
  static constexpr int kMaxScrambleMoves = 10000;
  virtual absl::StatusOr<Position> ParseScramble(std::string_view moves) const = 0;
  // The original problem's output for one case.
  virtual std::string FormatOriginalAnswer(const Position& position,
                                           const Solution& solution) const = 0;
  // The board for people (docs/PUZZLES.md); cells that differ from `before` (if not null)
  // are marked.
  virtual std::string Draw(const Position& now, const Position* before) const = 0;

  // The compact form for people, and an example position (one worth solving).
  virtual std::string_view compact_help() const = 0;
  virtual Position Example() const = 0;

  // ---- the page's drawing (BoardLayout, core/model/model.h)

  virtual const BoardLayout& layout() const = 0;
  // The value of each of the layout's cells.
  virtual std::vector<int> Cells(const Position& position) const = 0;
  // The position with `base`'s parameters whose cells hold `cells`: INVALID_ARGUMENT naming
  // the cell and the rule broken ("cells: ...", "cells[3]: ...").
  virtual absl::StatusOr<Position> FromCells(const Position& base,
                                             std::span<const int> cells) const = 0;

  // ---- parameters and tables

  // The id of the table that answers this position's parameters (its state is ignored).
  virtual std::string TableId(const Position& position) const = 0;
  virtual bool SameParameters(const Position& a, const Position& b) const = 0;
  // The goal under parameters as a table stores them (its metadata's bytes).
  virtual absl::StatusOr<Position> GoalOfStoredParameters(std::string_view bytes) const = 0;
  // The first goal state under the parameters of `parameters`; null: under the default
  // parameters (which only a puzzle without parameters has).
  virtual Position Goal(const Position* parameters) const = 0;
  // A uniformly random state under the position's parameters.
  virtual Position Random(const Position& parameters, std::mt19937_64& rng) const = 0;

  // ---- moves

  // The position after `move`, false if the move is not legal there.
  virtual bool Apply(const Position& position, int move, Position* out) const = 0;
  virtual std::string MoveName(const Position& position, int move) const = 0;
  virtual bool IsGoal(const Position& position) const = 0;
  // The position after `moves`, each legal where it is made (a solution's), their names
  // (each as named where it is made) appended to `names` if not null: a whole answer's
  // moves in one call, as the wire writes them.
  virtual Position Replay(const Position& start, std::span<const uint8_t> moves,
                          std::vector<std::string>* names) const = 0;

  // The model's own invariants at this position, for fuzzing and tests: the compact form
  // reads back to the same position, the table keys are in the space and its dense index
  // ranks them back, the lower bound is 0 at a goal. INTERNAL naming the first broken.
  virtual absl::Status SelfCheck(const Position& position) const = 0;

  // ---- answers (core/solver.h: the two steps, tables then search)

  virtual TableStep FromTables(Solver& solver, const Position& position, int max_moves) const = 0;
  // steps[i] = FromTables(positions[i], max_moves[i]), the walks taking turns.
  // REQUIRES: equal sizes, and every position of the same parameters.
  virtual void FromTablesMany(Solver& solver, std::span<const Position> positions,
                              std::span<const int> max_moves, std::span<TableStep> steps) const = 0;
  virtual absl::StatusOr<Solution> Search(Solver& solver, const Position& position,
                                          const TableStep& step,
                                          const SearchLimits& limits) const = 0;
  virtual AnalysisStep AnalyzeFromTables(Solver& solver, const Position& position, int max_moves,
                                         bool use_tables) const = 0;
  virtual absl::StatusOr<Analysis> AnalyzeSearch(Solver& solver, const Position& position,
                                                 AnalysisStep step,
                                                 const SearchLimits& limits) const = 0;
  // `distance`: exact, or kLargestDistance / kAnyDistance (core/model/model.h).
  virtual absl::StatusOr<PositionSample> Sample(Solver& solver, const Position& parameters,
                                                int distance, uint64_t count, uint64_t seed,
                                                const SearchLimits& limits) const = 0;
  virtual absl::StatusOr<OptimalPaths> Optimal(const Solver& solver, const Position& position,
                                               const TableStep& step, size_t list,
                                               const SearchLimits& limits) const = 0;
  // Loads the table of the position's parameters now, if the store has one.
  virtual void Prepare(Solver& solver, const Position& position) const = 0;
  // Loads a table the store lists (Solver::Preload); true if it loaded.
  virtual bool Load(Solver& solver, const TableMetadata& table) const = 0;
  // The states a table of these parameters has entries for (its space's size).
  virtual uint64_t TableSize(const Position& parameters) const = 0;
  // Builds the table of the position's parameters into `store` (read-write), reporting
  // each layer of its search to options.on_layer. A puzzle with pattern tables builds its
  // strongest set.
  virtual absl::StatusOr<TableMetadata> Build(const Position& parameters, TableStore& store,
                                              const BuildOptions& options) const = 0;
  // The sets of pattern tables the puzzle reads, by name, strongest first; none for a
  // puzzle whose tables hold distances.
  virtual std::vector<std::string_view> pattern_sets() const = 0;
  // Builds the pattern set named `set` (one of pattern_sets()) into `store`, reporting its
  // progress as lines for people to options.on_progress.
  virtual absl::StatusOr<TableMetadata> BuildPatterns(std::string_view set, TableStore& store,
                                                      const BuildOptions& options) const = 0;
  // A stored table of this puzzle against a fresh search: DATA_LOSS naming the first
  // difference (puzzledb-build verify).
  virtual absl::Status Verify(TableStore& store, const TableMetadata& table,
                              int threads) const = 0;
};

// How a definition()'s move orientations are read (docs/PUZZLES.md, section 7): 2, by
// piece, as twsearch reads them (before it, by destination). The wire carries it beside the
// file (PuzzleInfo.definition_reading), so that a client reads a server's file as it does.
inline constexpr uint32_t kDefinitionReading = 2;

// The puzzles served, in registration order (core/puzzles/registry.cc), as they are when
// asked: the built-in ones, then those registered since and not withdrawn.
class PuzzleList {
 public:
  using const_iterator = std::vector<const Puzzle*>::const_iterator;
  explicit PuzzleList(std::vector<const Puzzle*> list) : list_(std::move(list)) {}
  const_iterator begin() const { return list_.begin(); }
  const_iterator end() const { return list_.end(); }
  size_t size() const { return list_.size(); }
  const Puzzle* operator[](size_t i) const { return list_[i]; }

 private:
  std::vector<const Puzzle*> list_;
};
PuzzleList Puzzles();
// Registers a puzzle made at run time (a definition's, core/defined/defined_puzzle.h) and
// keeps it for the whole program: a pointer once returned stays valid, also after the
// puzzle is withdrawn or replaced. ALREADY_EXISTS if its name is served; RESOURCE_EXHAUSTED
// past kMaxPuzzles registrations in the program's life. Safe to call while other threads
// read the registry.
inline constexpr size_t kMaxPuzzles = 4096;
absl::Status RegisterPuzzle(std::shared_ptr<const Puzzle> puzzle);
// Registers `puzzle` in place of the one of its name registered at run time (a definition
// built again while a server serves it): FindPuzzle gives the new one at once, and the old
// one, withdrawn, lives on for the calls that hold it. FAILED_PRECONDITION if the name is a
// built-in puzzle's; registers it as RegisterPuzzle does if none of its name is served.
absl::Status ReplacePuzzle(std::shared_ptr<const Puzzle> puzzle);
// Withdraws the puzzle registered at run time as `name` (a definition removed while
// served): FindPuzzle and Puzzles() no longer give it; it lives on for the calls that hold
// it. NOT_FOUND if no puzzle of that name is served, FAILED_PRECONDITION for a built-in one.
absl::Status WithdrawPuzzle(std::string_view name);
// Whether a puzzle served now has this identity (Puzzle::identity; null: a built-in one).
bool IdentityServed(const void* identity);
// The puzzle named `name`, or null.
const Puzzle* FindPuzzle(std::string_view name);
// A puzzle of the database that is not served (a stored definition that fails its checksum
// or no longer reads: RegisterStoredDefinitions), with why, so that a request naming it is
// told; cleared when a puzzle of that name is registered, or noted with no why. Empty if
// none is noted.
void NoteNotServed(std::string_view name, std::string_view why);
std::string NotServedWhy(std::string_view name);
// "unknown puzzle 'NAME'", and why the database's puzzle of that name is not served where
// one is noted: what the wire and the command line say of a name they cannot find.
std::string UnknownPuzzleText(std::string_view name);
// The registered names joined by `separator`, for help texts and errors.
std::string PuzzleNames(std::string_view separator = "|");
std::vector<std::string> PuzzleNameList();

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_PUZZLE_H_
