// The 8-puzzle (Luogu P1379): tiles 1..8 and one empty place on a 3x3 board; a tile next
// to the empty place slides into it. Goal 123804765 (1 2 3 / 8 0 4 / 7 6 5).
//
// Cells are numbered 0..8 row-major from the top-left. A move is named by the direction the
// empty place moves: U, D, L, R, in that canonical order.
//
// Only half the boards reach the goal: on a board three cells wide a move keeps the parity
// of the tiles' inversions (read row-major, skipping the empty place). The space is that
// half, 9!/2 = 181,440 boards, indexed by the empty cell and the rank of the tiles' order
// among the orders of the right parity (docs/PUZZLES.md, section 4).
#ifndef PUZZLEDB_CORE_PUZZLES_EIGHT_H_
#define PUZZLEDB_CORE_PUZZLES_EIGHT_H_

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/model/model.h"

namespace puzzledb {

// A board: tile (0..8, 0 the empty place) of cell i in bits 4i..4i+3.
struct EightBoard {
  uint64_t tiles = 0;
  int blank = 0;
  bool operator==(const EightBoard&) const = default;
  constexpr int Tile(int cell) const { return static_cast<int>((tiles >> (4 * cell)) & 0xF); }
};

class EightPuzzle : public NoParams<EightPuzzle> {
 public:
  using State = EightBoard;
  struct Instance {
    Params params;
    State state;
  };
  using Space = EightPuzzle;

  static constexpr std::string_view kName = "eight";
  static constexpr std::string_view kTitle = "The 8-puzzle (Luogu P1379)";
  static constexpr std::string_view kCompactHelp =
      "the 9 cells row by row as digits, 0 the empty place";
  static constexpr std::string_view kExample = "283104765";
  static constexpr int kCells = 9;
  static constexpr int kNumMoves = 4;  // U D L R
  static constexpr int kDefaultMaxMoves = 0;
  static constexpr bool kSingleGoal = true;
  static constexpr int kMaxKeys = 1;
  static constexpr LiveSearchKind kLiveSearch = LiveSearchKind::kIdaStar;
  // 14,619 boards lie within 16 moves of the goal; the farthest board is 30 away.
  static constexpr int kPerimeterRadius = 16;
  static constexpr uint64_t kOrdersPerBlank = 40320 / 2;  // 8! tile orders, half reachable

  EightPuzzle() = default;
  explicit EightPuzzle(const Params&) {}
  const Space& space() const { return *this; }

  uint64_t Size() const { return kCells * kOrdersPerBlank; }
  // REQUIRES: the board reaches the goal (!ProvablyUnsolvable).
  uint64_t Rank(const State& s) const;
  State Unrank(uint64_t index) const;

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

  // 123804765: cell i holds the digit in nibble i.
  static constexpr State Goal() { return {0x567408321, 4}; }
  std::vector<State> Goals() const { return {Goal()}; }
  bool IsGoal(const State& s) const { return s == Goal(); }

  // The sum over tiles of the rows plus columns between a tile and its goal cell.
  // Admissible: a move carries one tile one step.
  int LowerBound(const State& s) const;
  // Every move moves the empty place one step, so a path's length has the parity of the
  // empty place's row + column (the goal's empty place is the centre, 1 + 1).
  static int DistanceParity(const State& s) { return (s.blank / 3 + s.blank % 3) & 1; }
  // The tiles' inversions have the other parity than the goal's: it never reaches it.
  static bool ProvablyUnsolvable(const State& s);
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
  std::string MoveName(const State&, int move) const { return {kMoveNames[move]}; }

  // Original format: one board per line, 9 digits row-major (spaces between them allowed).
  static std::vector<ParsedCase<Instance>> ParseOriginal(std::string_view text);
  // Compact form: the 9 digits.
  static absl::StatusOr<Instance> ParseCompact(std::string_view text);
  static std::string FormatCompact(const Instance& instance);
  static std::string FormatOriginal(const std::vector<Instance>& instances);
  // The board for people, as drawn in docs/PUZZLES.md; cells that differ from `before` (if
  // not null) in brackets.
  static std::string Draw(const Instance& now, const Instance* before);
  // One table; distances modulo 3 (every move is undone by a move).
  static constexpr TableEncodingKind kTableEncoding = TableEncodingKind::kDistanceMod3;
  // TableId, EncodeParams, DecodeParams, DescribeParams: NoParams.

  // The page's drawing (BoardLayout, core/model/model.h).
  static BoardLayout Layout();
  static std::vector<int> Cells(const Instance& instance);
  static absl::StatusOr<Instance> FromCells(const Instance& base, std::span<const int> cells);

  // Original output: the number of moves; -1 when there is none (or none within a cap).
  static std::string FormatOriginalAnswer(const Instance& instance, const EightPuzzle& model,
                                          const Solution& solution);

  // Validates 9 digits, each of 0..8 once; errors name the cell.
  static absl::StatusOr<State> BoardFromDigits(std::string_view digits);

 private:
  static constexpr char kMoveNames[kNumMoves] = {'U', 'D', 'L', 'R'};
  static const std::array<std::array<int8_t, kNumMoves>, kCells> kDestinations;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_PUZZLES_EIGHT_H_
