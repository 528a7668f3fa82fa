// The sliding-tile puzzles on a square board (docs/PUZZLES.md, sections 4 and 5): tiles and
// one empty place on a W x W board; a tile next to the empty place slides into it. One
// model for every size: the 8-puzzle (core/puzzles/eight.h) and the fifteen puzzle
// (core/puzzles/fifteen.h) are this model with their goal and their problems' formats.
//
// Cells are numbered 0..W*W-1 row-major from the top-left. A move is named by the direction
// the empty place moves: U, D, L, R, in that canonical order.
//
// Half the boards reach the goal. Read the tiles row-major, skipping the empty place: a
// horizontal move keeps their order, a vertical one carries a tile past W - 1 others. So
// on a board of odd width a move keeps the parity of the inversions; on one of even width
// it flips it exactly when the empty place changes row. A board reaches the goal iff its
// inversions have the goal's parity (plus, for an even width, the rows between its empty
// place and the goal's). The space is that half, indexed by the empty cell and the rank of
// the tiles' order among the orders of the right parity: (W*W - 1)! / 2 per cell.
#ifndef PUZZLEDB_CORE_SLIDING_SLIDING_TILES_H_
#define PUZZLEDB_CORE_SLIDING_SLIDING_TILES_H_

#include <array>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/model.h"

namespace puzzledb {

// A board of at most 16 cells: tile (0..15, 0 the empty place) of cell i in bits 4i..4i+3.
struct TileBoard {
  uint64_t tiles = 0;
  int blank = 0;
  bool operator==(const TileBoard&) const = default;
  constexpr int Tile(int cell) const { return static_cast<int>((tiles >> (4 * cell)) & 0xF); }
};

// A set of pattern tables of a sliding-tile puzzle (core/sliding/pattern_tables.h): its
// name, which the table's id carries ("fifteen-7-8"), and its tile partition
// (TilePartition::Parse's form). A model lists its sets strongest first as kPatternSets;
// the builder builds the first by default, and a solver uses the strongest one present.
struct PatternSet {
  std::string_view name;
  std::string_view groups;
};

namespace sliding_internal {

constexpr uint64_t Factorial(int n) { return n <= 1 ? 1 : n * Factorial(n - 1); }

// The cell the empty place reaches by each move (U D L R) from each cell; -1: off the board.
template <int W>
constexpr std::array<std::array<int8_t, 4>, W * W> Destinations() {
  constexpr int kSteps[4][2] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};
  std::array<std::array<int8_t, 4>, W * W> d{};
  for (int cell = 0; cell < W * W; ++cell) {
    for (int m = 0; m < 4; ++m) {
      const int r = cell / W + kSteps[m][0];
      const int c = cell % W + kSteps[m][1];
      d[cell][m] = (r >= 0 && r < W && c >= 0 && c < W) ? static_cast<int8_t>(r * W + c) : -1;
    }
  }
  return d;
}

}  // namespace sliding_internal

// The board's mechanics, for a model `Model` of width W that derives from it
// (`class EightPuzzle : public SlidingTiles<EightPuzzle, 3>`) and says its goal as
// `static constexpr std::string_view kGoalCells`: the tile of every cell, row-major, as
// hexadecimal digits, 0 the empty place. The model is its own space.
template <class Model, int W>
class SlidingTiles {
 public:
  static_assert(W >= 2 && W <= 4, "a board of at most 16 cells (TileBoard)");
  using State = TileBoard;
  static constexpr int kWidth = W;
  static constexpr int kCells = W * W;
  static constexpr int kTiles = kCells - 1;
  static constexpr int kNumMoves = 4;  // U D L R
  static constexpr bool kSingleGoal = true;
  static constexpr int kMaxKeys = 1;
  static constexpr uint64_t kOrdersPerBlank = sliding_internal::Factorial(kTiles) / 2;

  const Model& space() const { return static_cast<const Model&>(*this); }

  uint64_t Size() const { return kCells * kOrdersPerBlank; }
  // The Lehmer code of the tile order is sum digit[i] * (kTiles - 1 - i)!; the last digit
  // is always 0 and the one before it (weight 1) is fixed by the parity given the empty
  // cell, so code / 2 ranks the orders of one parity. REQUIRES: !ProvablyUnsolvable(s).
  uint64_t Rank(const State& s) const {
    const std::array<int, kTiles> digits = LehmerDigits(s);
    uint64_t code = 0;
    for (int i = 0; i < kTiles; ++i) {
      code += static_cast<uint64_t>(digits[i]) * sliding_internal::Factorial(kTiles - 1 - i);
    }
    return static_cast<uint64_t>(s.blank) * kOrdersPerBlank + code / 2;
  }
  State Unrank(uint64_t index) const {
    State s;
    s.blank = static_cast<int>(index / kOrdersPerBlank);
    uint64_t code = (index % kOrdersPerBlank) * 2;
    std::array<int, kTiles> digits{};
    int parity = 0;
    for (int i = 0; i < kTiles - 2; ++i) {
      const uint64_t weight = sliding_internal::Factorial(kTiles - 1 - i);
      digits[i] = static_cast<int>(code / weight);
      code %= weight;
      parity ^= digits[i] & 1;
    }
    digits[kTiles - 2] = parity ^ RequiredParity(s.blank);
    // Tile i is the digit[i]-th smallest tile not placed yet.
    uint32_t unused = ((1u << kCells) - 1) & ~1u;  // tiles 1..kTiles
    int n = 0;
    for (int cell = 0; cell < kCells; ++cell) {
      if (cell == s.blank) continue;
      int skip = digits[n++];
      int tile = 1;
      for (;; ++tile) {
        if ((unused & (1u << tile)) != 0 && skip-- == 0) break;
      }
      unused &= ~(1u << tile);
      s.tiles |= static_cast<uint64_t>(tile) << (4 * cell);
    }
    return s;
  }

  bool Apply(const State& s, int move, State* out) const {
    const int to = kDestinations[s.blank][move];
    if (to < 0) return false;
    const uint64_t tile = (s.tiles >> (4 * to)) & 0xF;
    out->tiles = (s.tiles & ~(uint64_t{0xF} << (4 * to))) | (tile << (4 * s.blank));
    out->blank = to;
    return true;
  }
  // U and D undo each other, as do L and R.
  bool Undo(const State& s, int move, State* out) const { return Apply(s, InverseMove(move), out); }
  static int InverseMove(int move) { return move ^ 1; }

  static constexpr State Goal() { return BoardOf(Model::kGoalCells); }
  std::vector<State> Goals() const { return {Goal()}; }
  bool IsGoal(const State& s) const { return s == Goal(); }

  // The Manhattan distance: the sum over tiles of the rows plus columns between a tile and
  // its goal cell. Admissible: a move carries one tile one step.
  int LowerBound(const State& s) const {
    static constexpr std::array<int, kCells> home = HomeCells();
    int sum = 0;
    for (int cell = 0; cell < kCells; ++cell) {
      const int tile = s.Tile(cell);
      if (tile == 0) continue;
      sum += std::abs(cell / W - home[tile] / W) + std::abs(cell % W - home[tile] % W);
    }
    return sum;
  }
  // Every move moves the empty place one step, so a path's length has the parity of the
  // rows plus columns between the empty place and its goal cell.
  static int DistanceParity(const State& s) {
    constexpr int goal = Goal().blank;
    return (s.blank / W + s.blank % W + goal / W + goal % W) & 1;
  }
  // The board is in the other half: it never reaches the goal.
  static bool ProvablyUnsolvable(const State& s) {
    return InversionParity(s) != RequiredParity(s.blank);
  }
  // A uniformly random board that reaches the goal.
  template <class Rng>
  State RandomState(Rng& rng) const {
    return Unrank(static_cast<uint64_t>(rng()) % Size());
  }
  int Project(const State& s, std::array<uint64_t, kMaxKeys>* keys) const {
    if (ProvablyUnsolvable(s)) return 0;
    (*keys)[0] = Rank(s);
    return 1;
  }
  std::string MoveName(const State&, int move) const { return {"UDLR"[move]}; }

  // The page's drawing: W x W cells row by row, each holding its tile (0 the empty place),
  // edited by swapping two; `hint` says the goal.
  static BoardLayout BoardGrid(std::string_view hint) {
    BoardLayout layout;
    layout.width = W;
    layout.height = W;
    for (int cell = 0; cell < kCells; ++cell) {
      std::string name = "row ";
      name.append(std::to_string(cell / W + 1)).append(" column ").append(std::to_string(cell % W + 1));
      layout.cells.push_back({static_cast<double>(cell % W), static_cast<double>(cell / W), name, ""});
    }
    layout.symbols.push_back({0, "", "#eeeeee"});
    for (int tile = 1; tile <= kTiles; ++tile) {
      layout.symbols.push_back({tile, std::to_string(tile), "#bbdefb"});
    }
    layout.hint = std::string(hint);
    return layout;
  }
  template <class Instance>
  static std::vector<int> Cells(const Instance& instance) {
    std::vector<int> cells;
    for (int cell = 0; cell < kCells; ++cell) cells.push_back(instance.state.Tile(cell));
    return cells;
  }
  // The cell of every tile (index 0: the empty place), for the pattern search.
  static std::array<uint8_t, kCells> CellsOfTiles(const State& s) {
    std::array<uint8_t, kCells> at{};
    for (int cell = 0; cell < kCells; ++cell) at[s.Tile(cell)] = static_cast<uint8_t>(cell);
    return at;
  }

 private:
  // digit[i] = how many later tiles (row-major, the empty place skipped) are smaller than
  // tile i.
  static constexpr std::array<int, kTiles> LehmerDigits(const State& s) {
    std::array<int, kTiles> digits{};
    uint32_t later = 0;  // tiles seen so far, scanning from the last cell back
    int n = kTiles - 1;
    for (int cell = kCells - 1; cell >= 0; --cell) {
      const int tile = s.Tile(cell);
      if (tile == 0) continue;
      digits[n--] = std::popcount(later & ((1u << tile) - 1));
      later |= 1u << tile;
    }
    return digits;
  }
  static constexpr int InversionParity(const State& s) {
    int parity = 0;
    for (const int d : LehmerDigits(s)) parity ^= d & 1;
    return parity;
  }
  // The parity of the inversions of the boards that reach the goal with the empty place
  // at `blank` (the goal's own, computed at compile time).
  static constexpr int RequiredParity(int blank) {
    constexpr State goal = Goal();
    constexpr int goal_parity = InversionParity(goal);
    if constexpr (W % 2 == 0) return goal_parity ^ ((blank / W + goal.blank / W) & 1);
    return goal_parity;
  }
  static constexpr State BoardOf(std::string_view cells) {
    State board;
    for (int cell = 0; cell < kCells; ++cell) {
      const char c = cells[cell];
      const int tile = c <= '9' ? c - '0' : c - 'a' + 10;
      board.tiles |= static_cast<uint64_t>(tile) << (4 * cell);
      if (tile == 0) board.blank = cell;
    }
    return board;
  }
  // The goal cell of every tile.
  static constexpr std::array<int, kCells> HomeCells() {
    std::array<int, kCells> home{};
    for (int cell = 0; cell < kCells; ++cell) home[Goal().Tile(cell)] = cell;
    return home;
  }
  static constexpr std::array<std::array<int8_t, kNumMoves>, kCells> kDestinations =
      sliding_internal::Destinations<W>();
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_SLIDING_SLIDING_TILES_H_
