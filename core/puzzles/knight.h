// The 5x5 knight-swap puzzle (SCOI2005 / Luogu P2324): twelve white and twelve black
// knights and one empty cell; a knight a knight's jump away from the empty cell jumps in.
//
// Cells are numbered 0..24 row-major from the top-left and named a1..e5 (column letter,
// then the input's line number). A move is named by the cell the empty cell moves to, and
// moves are ordered by that cell's index. Because the destination is the blank plus a fixed
// offset, the move index (0..7) is the position of the offset in ascending order, so the
// canonical order is the same from every state.
#ifndef PUZZLEDB_CORE_PUZZLES_KNIGHT_H_
#define PUZZLEDB_CORE_PUZZLES_KNIGHT_H_

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/util/bits.h"
#include "core/model/model.h"

namespace puzzledb {

struct KnightBoard {
  uint32_t white = 0;  // bit i set: cell i holds a white knight '1'
  int blank = 0;       // the empty cell '*'
  bool operator==(const KnightBoard&) const = default;
};

// The knight's table space: one entry per class {board, its mirror} under the puzzle's
// symmetry (KnightPuzzle::Mirror), which keeps distances, so the table holds half the
// boards (docs/FORMAT.md, "The knight's space"). The representative of a class is the
// board whose empty cell is on a1..c3 (cell 0..12): a mirror moves the empty cell from
// cell b to 24 - b, so exactly one of the two has it below c3 unless both have it on c3;
// there the one with the smaller white-knight mask represents. The index is that of the
// boards with the empty cell on cells 0..12, 13 x C(24,12) = 35,154,028 slots, of which
// 33,803,998 are representatives: the c3 block's non-representatives are never reached
// (their entries stay uncovered), which keeps the rank a plain computation.
//
// Rank(s) is the index of s's representative, so Rank(s) == Rank(Mirror(s)); Unrank gives
// the representative. Apply and Undo are the puzzle's moves on boards as given: the search
// and the walks reach each class through whichever board they hold, and the rank folds it.
class KnightClassSpace {
 public:
  using State = KnightBoard;
  static constexpr int kNumMoves = 8;
  // Rank(s) == Rank(Mirror(s)) (the table's generic code asks, core/table/sampler.h), and
  // the c3 block's non-representatives are holes (core/model/model.h).
  static constexpr bool kMirrorQuotient = true;
  static constexpr bool kHoles = true;

  uint64_t Size() const;
  uint64_t Rank(const State& s) const;
  State Unrank(uint64_t index) const;
  bool Apply(const State& s, int move, State* out) const;
  bool Undo(const State& s, int move, State* out) const;
  std::vector<State> Goals() const;
  // The representative of s's class, and the boards that are their own mirror (4,096).
  static State Canonical(const State& s);
  static std::vector<State> SelfMirrored();
};

class KnightPuzzle : public NoParams<KnightPuzzle> {
 public:
  using State = KnightBoard;
  struct Instance {
    Params params;
    State state;
  };
  using Space = KnightClassSpace;

  static constexpr std::string_view kName = "knight";
  static constexpr std::string_view kTitle = "The 5x5 knight-swap puzzle (SCOI2005)";
  static constexpr std::string_view kCompactHelp =
      "the 25 cells row by row from a1: 1 a white knight, 0 a black one, * the empty cell";
  static constexpr std::string_view kExample = "1111111111000*10000100000";
  static constexpr int kCells = 25;
  static constexpr int kNumMoves = 8;
  static constexpr int kDefaultMaxMoves = 15;  // SCOI2005: more than 15 moves prints -1
  // Whether the goal is one state (else which goal a solution reaches is worth telling).
  static constexpr bool kSingleGoal = true;
  static constexpr int kMaxKeys = 1;
  static constexpr LiveSearchKind kLiveSearch = LiveSearchKind::kIdaStar;
  // Moves around the goal whose states live search knows exactly (bench/ measures the
  // trade between building it and searching with it).
  static constexpr int kPerimeterRadius = 11;
  static constexpr uint32_t kAllCells = (1u << kCells) - 1;
  static constexpr int kGoalBlank = 12;  // c3
  static constexpr uint32_t kGoalWhite = 0b00000'10000'11000'11110'11111;
  using MaskRanker = SubsetRanker<24, 12>;
  static constexpr uint64_t kMasksPerBlank = MaskRanker::kCount;  // C(24,12) = 2,704,156

  KnightPuzzle() = default;
  explicit KnightPuzzle(const Params&) {}
  const Space& space() const { return space_; }

  // The boards' dense index (not the table's, which is Space's): blank * C(24,12) + colex
  // rank of the white knights among the 24 other cells. 25 * 2,704,156 = 67,603,900 boards.
  uint64_t Size() const { return kCells * kMasksPerBlank; }
  uint64_t Rank(const State& s) const {
    const uint32_t others = kAllCells & ~(1u << s.blank);
    return static_cast<uint64_t>(s.blank) * kMasksPerBlank +
           MaskRanker::Rank(ExtractBits(s.white, others));
  }
  State Unrank(uint64_t index) const {
    const int blank = static_cast<int>(index / kMasksPerBlank);
    const uint32_t others = kAllCells & ~(1u << blank);
    return {DepositBits(MaskRanker::Unrank(index % kMasksPerBlank), others), blank};
  }

  // The cell the empty cell moves to under `move` from `blank`, or -1 off the board.
  static int Destination(int blank, int move) { return kDestinations[blank][move]; }

  bool Apply(const State& s, int move, State* out) const {
    const int to = kDestinations[s.blank][move];
    if (to < 0) return false;
    // The knight on `to` jumps into the blank; only a white knight changes the mask.
    const uint32_t moved = (s.white >> to) & 1u;
    out->white = (s.white & ~(1u << to)) | (moved << s.blank);
    out->blank = to;
    return true;
  }
  // Every move is undone by the opposite jump, so the predecessor under `move` is the
  // state reached by the inverse move.
  bool Undo(const State& s, int move, State* out) const { return Apply(s, InverseMove(move), out); }
  static int InverseMove(int move) { return kNumMoves - 1 - move; }

  // The puzzle's one symmetry: the board turned half a turn (cell i to 24 - i) with the
  // colours swapped. It maps the goal onto itself and a move m onto move InverseMove(m)
  // (the offsets change sign, so their ascending order reverses), so it is an automorphism
  // of the move graph that fixes the goal: a board and its mirror are equally far
  // (docs/PUZZLES.md). 4,096 boards are their own mirror: the empty cell on c3 and each of
  // the 12 pairs of opposite cells holding one knight of each colour.
  static State Mirror(const State& s) {
    const uint32_t black = kAllCells & ~s.white & ~(1u << s.blank);
    return {ReverseLowBits(black, kCells), kCells - 1 - s.blank};
  }
  static int MirrorMove(int move) { return InverseMove(move); }

  static State Goal() { return {kGoalWhite, kGoalBlank}; }
  std::vector<State> Goals() const { return {Goal()}; }
  bool IsGoal(const State& s) const { return s == Goal(); }

  // Sum over knights of the knight-move distance from its cell to the nearest goal cell of
  // its colour, raised to the parity of the blank's square colour.
  // Admissible: a move is one jump of one knight, and every knight must travel at least to
  // some goal cell of its colour, so the number of moves is at least the sum of those
  // distances. A jump always changes the colour of the blank's square (chessboard
  // colouring), and the goal blank c3 is on colour 0, so the distance has the parity of the
  // blank's colour; a bound of the other parity can be raised by one.
  int LowerBound(const State& s) const;
  // A uniformly random board.
  template <class Rng>
  State RandomState(Rng& rng) const {
    return Unrank(static_cast<uint64_t>(rng()) % Size());
  }

  // Every board is solvable (docs/PUZZLES.md, section 1).
  static bool ProvablyUnsolvable(const State&) { return false; }
  // The parity every path length from `s` to the goal has.
  static int DistanceParity(const State& s) { return (s.blank / 5 + s.blank % 5) & 1; }

  // The table's key: the rank of the board's class (a board and its mirror share it).
  int Project(const State& s, std::array<uint64_t, kMaxKeys>* keys) const {
    (*keys)[0] = space_.Rank(s);
    return 1;
  }

  static std::string CellName(int cell);
  std::string MoveName(const State& s, int move) const;

  // Original format: a line with T, then T boards of five lines of five characters.
  static std::vector<ParsedCase<Instance>> ParseOriginal(std::string_view text);
  // Compact form: the 25 characters of the board, row-major.
  static absl::StatusOr<Instance> ParseCompact(std::string_view text);
  static std::string FormatCompact(const Instance& instance);
  static std::string FormatOriginal(const std::vector<Instance>& instances);
  // The board for people, as drawn in docs/PUZZLES.md; cells that differ from `before` (if
  // not null) in brackets.
  static std::string Draw(const Instance& now, const Instance* before);
  // One table; distances modulo 3 (moves are undone by moves, so a neighbour is at most one
  // closer or farther).
  static constexpr TableEncodingKind kTableEncoding = TableEncodingKind::kDistanceMod3;
  // TableId, EncodeParams, DecodeParams, DescribeParams: NoParams.

  // Original output: the distance, or -1 when it is not within the move limit.
  // The page's drawing (BoardLayout, core/model/model.h).
  static BoardLayout Layout();
  static std::vector<int> Cells(const Instance& instance);
  static absl::StatusOr<Instance> FromCells(const Instance& base, std::span<const int> cells);
  static std::string FormatOriginalAnswer(const Instance& instance, const KnightPuzzle& model,
                                          const Solution& solution);

  // Validates a board given as 25 characters; errors name the cell and the rule.
  static absl::StatusOr<State> BoardFromCells(std::string_view cells);

 private:
  static const std::array<std::array<int8_t, kNumMoves>, kCells> kDestinations;
  KnightClassSpace space_;
};

inline uint64_t KnightClassSpace::Size() const {
  return (KnightPuzzle::kGoalBlank + 1) * KnightPuzzle::kMasksPerBlank;
}
inline KnightBoard KnightClassSpace::Canonical(const KnightBoard& s) {
  if (s.blank < KnightPuzzle::kGoalBlank) return s;
  const KnightBoard m = KnightPuzzle::Mirror(s);
  if (s.blank > KnightPuzzle::kGoalBlank || m.white < s.white) return m;
  return s;
}
inline uint64_t KnightClassSpace::Rank(const KnightBoard& s) const {
  // The representative's board index is below Size().
  return KnightPuzzle().Rank(Canonical(s));
}
inline KnightBoard KnightClassSpace::Unrank(uint64_t index) const {
  return KnightPuzzle().Unrank(index);
}
inline bool KnightClassSpace::Apply(const KnightBoard& s, int move, KnightBoard* out) const {
  return KnightPuzzle().Apply(s, move, out);
}
inline bool KnightClassSpace::Undo(const KnightBoard& s, int move, KnightBoard* out) const {
  return KnightPuzzle().Undo(s, move, out);
}
inline std::vector<KnightBoard> KnightClassSpace::Goals() const { return {KnightPuzzle::Goal()}; }

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_PUZZLES_KNIGHT_H_
