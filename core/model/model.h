// The concept every puzzle model implements, and the result types that the generic
// machinery (retrograde BFS, tables, live search) shares. Everything outside core/ sees a
// model through its runtime puzzle instead (core/puzzle.h).
//
// A puzzle is described at two levels:
//  - its *space*: states with a dense index (rank/unrank onto [0, Size())),
//    moves in canonical order, predecessors and goals. Retrograde BFS and the tables work on
//    spaces. For the knobs and the 8-puzzle the space is the puzzle itself; for the knight
//    it is the classes {board, its mirror} (docs/FORMAT.md, "The knight's space"); for the
//    rotation game the placements of eight equal values (docs/PUZZLES.md).
//  - the *puzzle*: the states users write (parse and format of the original input and of
//    a compact one-line form, with precise errors), their moves and names, the goal test, an
//    admissible lower bound, and the projection of a puzzle state onto space states
//    ("keys") whose smallest distance is the puzzle state's distance.
//
// Hot code is templated on these types (no virtual calls per node), compiled once per model
// in the model's own translation unit, which registers the model's runtime puzzle
// (core/puzzles/model_puzzle.h; the list: core/puzzles/registry.cc).
#ifndef PUZZLEDB_CORE_MODEL_MODEL_H_
#define PUZZLEDB_CORE_MODEL_MODEL_H_

#include <array>
#include <chrono>
#include <concepts>
#include <functional>
#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "absl/status/statusor.h"
#include "core/util/text_input.h"
#include "core/util/thread_lender.h"

namespace puzzledb {

// A state space with a dense index. Rank may map several states to one index when they
// are equally far from the goal (the knight's space keeps one entry per board and its
// mirror); a space may also have holes, indices that are no state's rank, if it says so
// with `static constexpr bool kHoles = true`: Unrank of a hole is a state whose Rank is
// another index, and the search leaves holes unseen (uncovered in a table).
template <class S>
concept IndexedSpace = requires(const S& space, const typename S::State& state,
                                typename S::State* out, uint64_t index, int move) {
  typename S::State;
  { S::kNumMoves } -> std::convertible_to<int>;
  { space.Size() } -> std::same_as<uint64_t>;
  { space.Rank(state) } -> std::same_as<uint64_t>;
  { space.Unrank(index) } -> std::same_as<typename S::State>;
  // Apply: the state after `move`, false if the move is not legal here.
  { space.Apply(state, move, out) } -> std::same_as<bool>;
  // Undo: the state p with Apply(p, move) == state, false if there is none.
  { space.Undo(state, move, out) } -> std::same_as<bool>;
  { space.Goals() } -> std::same_as<std::vector<typename S::State>>;
};

// How a model wants to be searched when no table covers a state.
enum class LiveSearchKind {
  kIdaStar,        // IDA* with the model's bound, strengthened by a perimeter around the goal
  kBidirectional,  // breadth-first from both ends over dense arrays (small spaces only)
  kGuided,         // the model's own search, guided by tables that bound it (its pattern
                   // tables): `using Guide = ...` names what loads them, searches, samples,
                   // builds and verifies (core/sliding/pattern_guide.h); REQUIRES
                   // kTableEncoding == kPatternBound
};

// How a model's tables store distances (docs/FORMAT.md).
enum class TableEncodingKind {
  kDistanceByte,  // the exact distance in a byte; any puzzle
  kDistanceMod3,  // the distance modulo 3 in two bits; REQUIRES every move has an inverse
                  // move (neighbours differ by at most one) and kMaxKeys == 1
  kNextMove,      // the first optimal move in four bits, the distance being the walk's
                  // length; REQUIRES kNumMoves <= 14, kMaxKeys == 1, the space's moves are
                  // the model's and the space is the one Project ranks into
  kPatternBound,  // no table of distances: tables that bound the live search (kGuided),
                  // one per set the model's Guide names
};

struct Solution;

// How a page draws and edits a position (GET /v1/puzzles, docs/API.md): the state is a row
// of cells (PuzzleModel's Cells), each placed on a grid and showing the symbol of its
// value; clicking edits it, by swapping two cells or by turning one through the values.
struct BoardLayout {
  struct Cell {
    double x = 0;  // the top-left corner, in grid units (a cell is one unit square)
    double y = 0;
    std::string name;  // for people ("a1", "knob 3")
    std::string move;  // the move a click on the cell plays (empty: a click edits the cell)
  };
  struct Symbol {
    int value = 0;
    std::string text;  // shown in the cell (may be empty)
    std::string fill;  // the cell's colour, a CSS colour
  };
  struct Label {  // text around the cells (coordinates, move names)
    double x = 0;
    double y = 0;
    std::string text;
  };
  struct Region {  // an area marked behind the cells (the rotation game's centre)
    double x = 0;  // the top-left corner, in grid units
    double y = 0;
    double width = 0;
    double height = 0;
    std::string text;  // its name, for people
  };
  enum class Edit { kSwap, kCycle };
  double width = 0;  // grid units
  double height = 0;
  std::vector<Cell> cells;
  std::vector<Symbol> symbols;  // one per value a cell may hold
  std::vector<Label> labels;
  std::vector<Region> regions;
  Edit edit = Edit::kSwap;
  std::string hint;  // how to edit, for people
};

// A puzzle model. `Instance` is what one case of the input describes: the parameters
// (e.g. the knobs wiring) and the state. What every model has (ModelCore), and then what a
// model knows about itself either at compile time (StaticModelTexts: the six models written
// in C++) or only at run time (RuntimeModelTexts: a puzzle given as a definition file,
// core/defined/, whose Params point to what was read); ModelName, MoveCount and InverseOf
// below ask either.
template <class P>
concept ModelCore =
    IndexedSpace<typename P::Space> &&
    requires(const P& model, const typename P::State& state, typename P::State* out, int move,
             const typename P::Instance& instance, std::string_view text,
             std::array<uint64_t, P::kMaxKeys>* keys) {
      typename P::Params;
      typename P::Instance;
      { P::Cells(instance) } -> std::same_as<std::vector<int>>;
      { P::FromCells(instance, std::span<const int>{}) } -> std::same_as<absl::StatusOr<typename P::Instance>>;
      // The moves: at most kNumMoves (a bound for arrays; MoveCount gives the number).
      { P::kNumMoves } -> std::convertible_to<int>;
      // The move cap of the original problem's output (answers beyond it print -1); 0: none.
      { P::kDefaultMaxMoves } -> std::convertible_to<int>;
      { P::kLiveSearch } -> std::convertible_to<LiveSearchKind>;
      { instance.params } -> std::convertible_to<typename P::Params>;
      { instance.state } -> std::convertible_to<typename P::State>;
      { model.params() } -> std::same_as<const typename P::Params&>;
      { model.space() } -> std::same_as<const typename P::Space&>;
      { model.Apply(state, move, out) } -> std::same_as<bool>;
      { model.IsGoal(state) } -> std::same_as<bool>;
      // The goal states (the first is the one shown to people).
      { model.Goals() } -> std::same_as<std::vector<typename P::State>>;
      // An admissible lower bound on the distance to the goal.
      { model.LowerBound(state) } -> std::same_as<int>;
      // True only for states that certainly cannot reach the goal (e.g. the knobs' parity).
      { model.ProvablyUnsolvable(state) } -> std::same_as<bool>;
      // A random state (for benchmarks and tests); `rng` is a standard random engine.
      { model.RandomState(*static_cast<std::mt19937_64*>(nullptr)) } -> std::same_as<typename P::State>;
      // Writes the space ranks whose smallest distance is the state's distance; returns how
      // many, or 0 when no table can answer for this state.
      { model.Project(state, keys) } -> std::same_as<int>;
      { model.MoveName(state, move) } -> std::same_as<std::string>;
      { P::FormatCompact(instance) } -> std::same_as<std::string>;
      // Instances as the original input (ParseOriginal reads them back), e.g. for
      // `puzzledb sample` to feed `puzzledb solve`. REQUIRES: at least one.
      { P::FormatOriginal(std::vector<typename P::Instance>{}) } -> std::same_as<std::string>;
      // The board as text for people (docs/PUZZLES.md), the cells that differ from `before`
      // (if not null) marked.
      { P::Draw(instance, &instance) } -> std::same_as<std::string>;
      // The original problem's output for one case.
      { P::FormatOriginalAnswer(instance, model, *static_cast<const Solution*>(nullptr)) }
          -> std::same_as<std::string>;
      // Tables: how entries are stored, the table's id for given parameters, and the
      // parameters as bytes (stored in the table's metadata) and as text for people.
      { P::kTableEncoding } -> std::convertible_to<TableEncodingKind>;
      { P::TableId(instance.params) } -> std::same_as<std::string>;
      { P::EncodeParams(instance.params) } -> std::same_as<std::string>;
      { P::DescribeParams(instance.params) } -> std::same_as<std::string>;
    };

// What a model written in C++ knows at compile time.
template <class P>
concept StaticModelTexts = requires(std::string_view text, int move) {
  { P::kName } -> std::convertible_to<std::string_view>;
  { P::kTitle } -> std::convertible_to<std::string_view>;  // for people
  // The compact form for people, and an example of it (a position worth solving).
  { P::kCompactHelp } -> std::convertible_to<std::string_view>;
  { P::kExample } -> std::convertible_to<std::string_view>;
  // The page's drawing (BoardLayout): the layout; ModelCore's Cells and FromCells give the
  // value of each of its cells and the instance with `base`'s parameters whose cells are
  // `cells` (INVALID_ARGUMENT naming the cell and the rule broken).
  { P::Layout() } -> std::same_as<BoardLayout>;
  { P::kSingleGoal } -> std::convertible_to<bool>;
  // The move that undoes `move`, or -1 if no single move does (search skips it).
  { P::InverseMove(move) } -> std::same_as<int>;
  { P::kNumMoves } -> std::convertible_to<int>;
  { P::ParseOriginal(text) } -> std::same_as<std::vector<ParsedCase<typename P::Instance>>>;
  { P::ParseCompact(text) } -> std::same_as<absl::StatusOr<typename P::Instance>>;
  { P::DecodeParams(text) } -> std::same_as<absl::StatusOr<typename P::Params>>;
};

// The same, known only at run time: asked of the model (built from its Params), and the
// texts read with the Params of the puzzle they are for.
template <class P>
concept RuntimeModelTexts =
    requires(const P& model, const typename P::Params& params, std::string_view text, int move) {
      { model.name() } -> std::convertible_to<std::string_view>;
      { model.title() } -> std::convertible_to<std::string_view>;
      { model.compact_help() } -> std::convertible_to<std::string_view>;
      { model.example() } -> std::convertible_to<std::string_view>;
      { model.Layout() } -> std::same_as<BoardLayout>;
      { model.single_goal() } -> std::same_as<bool>;
      { model.InverseMove(move) } -> std::same_as<int>;
      { model.move_count() } -> std::same_as<int>;
      { P::ParseOriginal(params, text) } -> std::same_as<std::vector<ParsedCase<typename P::Instance>>>;
      { P::ParseCompact(params, text) } -> std::same_as<absl::StatusOr<typename P::Instance>>;
      { P::DecodeParams(params, text) } -> std::same_as<absl::StatusOr<typename P::Params>>;
    };

template <class P>
concept PuzzleModel = ModelCore<P> && (StaticModelTexts<P> || RuntimeModelTexts<P>);

// The parameters a table's metadata stores (EncodeParams's bytes); a model given at run time
// checks them against `base`, its own.
template <class P>
absl::StatusOr<typename P::Params> DecodeParamsOf(const typename P::Params& base,
                                                  std::string_view bytes) {
  if constexpr (StaticModelTexts<P>) {
    (void)base;
    return P::DecodeParams(bytes);
  } else {
    return P::DecodeParams(base, bytes);
  }
}

// The model's name ("knight"; a definition's as it was built).
template <class P>
std::string_view ModelName(const P& model) {
  if constexpr (StaticModelTexts<P>) {
    return P::kName;
  } else {
    return model.name();
  }
}

// The number of moves (a space's: the same as its model's).
template <class P>
int MoveCount(const P& model) {
  if constexpr (requires { model.move_count(); }) {
    return model.move_count();
  } else {
    return P::kNumMoves;
  }
}

template <class P>
int InverseOf(const P& model, int move) {
  if constexpr (StaticModelTexts<P>) {
    return P::InverseMove(move);
  } else {
    return model.InverseMove(move);
  }
}

// A model whose Params are not empty has one table per parameter set, and says how the
// builder is given them: files in its original input format whose instances' parameters
// get tables (puzzledb-build --params), and optionally kParamsFlag, its own name for the
// option (the knobs: --wiring), and kParamsHelp, what the files hold. The default
// parameters are the files in data/params/<kName>/.
template <class P>
concept HasParams = PuzzleModel<P> && !std::is_empty_v<typename P::Params>;

// The parameter half of PuzzleModel for a puzzle without parameters: one table, named
// after the puzzle, with no parameter bytes. A model derives from it with itself
// (`class KnightPuzzle : public NoParams<KnightPuzzle>`).
template <class Model>
class NoParams {
 public:
  struct Params {
    bool operator==(const Params&) const = default;
  };
  const Params& params() const { return params_; }
  static std::string TableId(const Params&) { return std::string(Model::kName); }
  static std::string EncodeParams(const Params&) { return {}; }
  static absl::StatusOr<Params> DecodeParams(std::string_view bytes) {
    if (bytes.empty()) return Params{};
    std::string message = "the ";
    message.append(Model::kName).append(" puzzle has no parameters");
    return absl::InvalidArgumentError(message);
  }
  static std::string DescribeParams(const Params&) { return {}; }

 private:
  Params params_;
};

// A lower bound on the distance of `s`, raised to the parity every path from `s` has for
// models that know it (`static int DistanceParity(const State&)`: 0 even, 1 odd); unchanged
// for the others. Still a lower bound: the distance itself has that parity.
template <class P>
int RaiseToParity(const typename P::State& s, int lower) {
  if constexpr (requires { P::DistanceParity(s); }) {
    return lower + ((lower ^ P::DistanceParity(s)) & 1);
  } else {
    return lower;
  }
}

// The distances a sample may ask for beyond an exact one (core/table/sampler.h): the
// largest there is, and any (a draw among every solvable state).
inline constexpr int kLargestDistance = -1;
inline constexpr int kAnyDistance = -2;

enum class Outcome { kSolved, kNotWithinLimit, kUnsolvable };
enum class Source { kTable, kSearch };

// The answer to one solve: the exact distance and the lexicographically smallest optimal
// move sequence (moves are indices in the model's canonical order), where it came from and
// what it cost.
struct Solution {
  Outcome outcome = Outcome::kSolved;
  int distance = 0;  // exact when kSolved; 0 otherwise
  std::vector<uint8_t> moves;
  Source source = Source::kSearch;
  uint64_t lookups = 0;  // table entries read
  uint64_t nodes = 0;    // search nodes expanded
};

struct MoveAnalysis {
  int move = 0;
  std::string name;
  Outcome outcome = Outcome::kSolved;
  int distance = 0;  // exact when kSolved
};

// A position's answer and the answer after each of its legal moves.
struct Analysis {
  Solution position;
  std::vector<MoveAnalysis> moves;  // every legal move, best first, ties in canonical order
};

// The optimal solutions of a state (TableWalker::Optimal): how many distinct move sequences
// of the state's distance reach the goal, and the first of them.
struct OptimalPaths {
  unsigned __int128 count = 0;
  // after_move[m]: the optimal solutions that start with move m (0 if m is not optimal).
  std::vector<unsigned __int128> after_move;
  std::vector<std::vector<uint8_t>> first;  // at most `list`, in lexicographic order
  uint64_t states = 0;                      // distinct states on optimal paths
  uint64_t lookups = 0;
};

// Bounds on one search. A search that hits a limit returns an error status instead of an
// answer: DEADLINE_EXCEEDED for the deadline, RESOURCE_EXHAUSTED for the node budget.
struct SearchLimits {
  int max_moves = 0;       // 0: no limit; otherwise answers longer than this are NOT_WITHIN_LIMIT
  uint64_t max_nodes = 0;  // 0: no budget
  std::optional<std::chrono::steady_clock::time_point> deadline;
  // Asked now and then (with the clock); true stops the search with CANCELLED.
  std::function<bool()> cancelled;
  // Spare threads for a search that can split its work (the fifteen puzzle's); its helpers
  // give theirs back when the lender says so. Empty: no helpers.
  ThreadLender threads;
};

// OK, or RESOURCE_EXHAUSTED when `nodes`, the nodes (states generated) of `work` so far,
// all its threads' together, pass the budget `max_nodes` (SearchLimits::max_nodes; 0: none):
// "<work> passed its budget of N nodes". The one check of the budget: every search and
// every count asks it.
inline absl::Status BudgetSpent(uint64_t max_nodes, uint64_t nodes, std::string_view work) {
  if (max_nodes == 0 || nodes <= max_nodes) return absl::OkStatus();
  std::string message(work);
  return absl::ResourceExhaustedError(
      message.append(" passed its budget of ").append(std::to_string(max_nodes)).append(" nodes"));
}

// OK, or why `work` must stop now: DEADLINE_EXCEEDED past the deadline ("<work> passed its
// deadline"), CANCELLED when the caller gave up ("<work> was cancelled"). The one check of
// the two: searches ask it every few thousand nodes, counting and sampling now and then,
// the server before a search that waited for a slot starts.
inline absl::Status LimitsReached(const SearchLimits& limits, std::string_view work) {
  if (limits.deadline && std::chrono::steady_clock::now() >= *limits.deadline) {
    std::string message(work);
    return absl::DeadlineExceededError(message.append(" passed its deadline"));
  }
  if (limits.cancelled && limits.cancelled()) {
    std::string message(work);
    return absl::CancelledError(message.append(" was cancelled"));
  }
  return absl::OkStatus();
}

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_MODEL_MODEL_H_
