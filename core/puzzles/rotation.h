// The rotation game (POJ 2286): a '#'-shaped board of 24 cells holding 1, 2 and 3; eight
// moves shift one of four lines of seven cells cyclically; the goal is a centre of eight
// equal values. Moves are A..H in that canonical order.
//
// Whether value k can fill the centre in d moves depends only on which cells hold k, so the
// table space is the placements of eight equal values (C(24,8) = 735,471 of them) with the
// centre as goal; a board with eight of each value projects onto three placements and its
// distance is the smallest of theirs.
#ifndef PUZZLEDB_CORE_PUZZLES_ROTATION_H_
#define PUZZLEDB_CORE_PUZZLES_ROTATION_H_

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

class RotationBoardSampler;  // core/puzzles/rotation_sampling.h

// The bit permutations of the eight moves on 24-bit cell masks.
class RotationMoves {
 public:
  static constexpr int kCount = 8;
  static constexpr int kCells = 24;
  // The eight centre cells 6 7 8 11 12 15 16 17.
  static constexpr uint32_t kCentre =
      (1u << 6) | (1u << 7) | (1u << 8) | (1u << 11) | (1u << 12) | (1u << 15) | (1u << 16) |
      (1u << 17);

  // Cell mask after `move`: every cell on the move's line takes the value of the next cell
  // listed, the first cell's value goes to the last (docs/PUZZLES.md, section 3).
  static uint32_t Apply(uint32_t mask, int move) {
    const Line& line = kLines[move];
    const uint32_t bits = ExtractBits(mask, line.cells);  // line cells in increasing order
    // In increasing cell order the shift is towards the low end when the move lists its
    // cells in increasing order, towards the high end otherwise.
    const uint32_t rotated = line.ascending ? ((bits >> 1) | ((bits & 1u) << 6))
                                            : (((bits << 1) & 0x7Fu) | (bits >> 6));
    return (mask & ~line.cells) | DepositBits(rotated, line.cells);
  }
  // A<->F, B<->E, C<->H, D<->G.
  static int Inverse(int move) { return kInverse[move]; }
  static char Name(int move) { return static_cast<char>('A' + move); }

 private:
  struct Line {
    uint32_t cells;
    bool ascending;
  };
  static const std::array<Line, kCount> kLines;
  static constexpr int kInverse[kCount] = {5, 4, 7, 6, 1, 0, 3, 2};
};

// The table space: which 8 of the 24 cells hold a given value.
class CentrePlacementSpace {
 public:
  using State = uint32_t;  // a 24-bit mask with 8 bits set
  using Ranker = SubsetRanker<24, 8>;
  static constexpr int kNumMoves = RotationMoves::kCount;

  uint64_t Size() const { return Ranker::kCount; }
  uint64_t Rank(State s) const { return Ranker::Rank(s); }
  State Unrank(uint64_t index) const { return Ranker::Unrank(index); }
  bool Apply(State s, int move, State* out) const {
    *out = RotationMoves::Apply(s, move);
    return true;
  }
  bool Undo(State s, int move, State* out) const {
    *out = RotationMoves::Apply(s, RotationMoves::Inverse(move));
    return true;
  }
  std::vector<State> Goals() const { return {RotationMoves::kCentre}; }
};

// A board: masks[k] holds the cells showing value k + 1; the three masks partition the
// 24 cells.
struct RotationBoard {
  std::array<uint32_t, 3> masks{};
  bool operator==(const RotationBoard&) const = default;
  // The value (1..3) in `cell`.
  int Value(int cell) const {
    for (int k = 0; k < 3; ++k) {
      if (masks[k] & (1u << cell)) return k + 1;
    }
    return 0;
  }
};

class RotationPuzzle : public NoParams<RotationPuzzle> {
 public:
  using State = RotationBoard;
  struct Instance {
    Params params;
    State state;
  };
  using Space = CentrePlacementSpace;
  // States are boards, not the table's placements: sampling needs its own way to draw
  // boards uniformly (core/table/sampler.h).
  using BoardSampler = RotationBoardSampler;

  static constexpr std::string_view kName = "rotation";
  static constexpr std::string_view kTitle = "The rotation game (POJ 2286)";
  static constexpr std::string_view kCompactHelp =
      "the 24 values 1..3 in the original cell order, as digits (or separated by spaces)";
  static constexpr std::string_view kExample = "233233121112233123123112";
  static constexpr int kCells = RotationMoves::kCells;
  static constexpr int kNumMoves = RotationMoves::kCount;
  static constexpr int kDefaultMaxMoves = 0;
  // Whether the goal is one state (else which goal a solution reaches is worth telling).
  static constexpr bool kSingleGoal = false;
  static constexpr int kMaxKeys = 3;
  static constexpr LiveSearchKind kLiveSearch = LiveSearchKind::kIdaStar;
  // Moves around the goal whose states live search knows exactly (bench/ measures the
  // trade between building it and searching with it).
  static constexpr int kPerimeterRadius = 8;

  RotationPuzzle() = default;
  explicit RotationPuzzle(const Params&) {}
  const Space& space() const { return space_; }

  bool Apply(const State& s, int move, State* out) const {
    for (int k = 0; k < 3; ++k) out->masks[k] = RotationMoves::Apply(s.masks[k], move);
    return true;
  }
  static int InverseMove(int move) { return RotationMoves::Inverse(move); }
  bool IsGoal(const State& s) const;
  // One goal of each centre value: the centre filled with it, the other two values in cell
  // order around it (1, then 2, then 3).
  std::vector<State> Goals() const;
  // The value whose eight copies fill the centre, or 0 if the centre is not uniform.
  static int CentreValue(const State& s);

  // A uniformly random board with eight of each value.
  template <class Rng>
  State RandomState(Rng& rng) const {
    State s;
    uint32_t free = (1u << kCells) - 1;
    for (int k = 0; k < 2; ++k) {
      for (int placed = 0; placed < 8;) {
        const int cell = static_cast<int>(rng() % kCells);
        if (free & (1u << cell)) {
          free &= ~(1u << cell);
          s.masks[k] |= 1u << cell;
          ++placed;
        }
      }
    }
    s.masks[2] = free;
    return s;
  }

  // The fewest centre cells some value that has at least eight copies is missing.
  // Admissible: a move shifts one line, which takes one cell out of the centre and brings
  // one in, so the centre's count of any value changes by at most one per move.
  int LowerBound(const State& s) const;
  // Some value always has eight or more copies (24 cells, three values), so never.
  static bool ProvablyUnsolvable(const State&) { return false; }

  // With eight of each value: the three placements. Otherwise 0 (only search can answer,
  // as a value with nine or more copies fills the centre with any eight of them).
  int Project(const State& s, std::array<uint64_t, kMaxKeys>* keys) const;

  std::string MoveName(const State&, int move) const { return {RotationMoves::Name(move)}; }

  // Original format: lines of 24 numbers; a line "0" ends the input.
  static std::vector<ParsedCase<Instance>> ParseOriginal(std::string_view text);
  // Compact form: the 24 values as digits ("11132...") or as 24 numbers.
  static absl::StatusOr<Instance> ParseCompact(std::string_view text);
  static std::string FormatCompact(const Instance& instance);
  static std::string FormatOriginal(const std::vector<Instance>& instances);
  // The board for people, as drawn in docs/PUZZLES.md; cells that differ from `before` (if
  // not null) in brackets.
  static std::string Draw(const Instance& now, const Instance* before);
  // One table over placements. Exact distances: a board looks up three placements and
  // compares them, which a residue cannot do.
  static constexpr TableEncodingKind kTableEncoding = TableEncodingKind::kDistanceByte;
  // TableId, EncodeParams, DecodeParams, DescribeParams: NoParams.

  // Original output: the move letters (or "No moves needed"), then the centre's value.
  // The page's drawing (BoardLayout, core/model/model.h).
  static BoardLayout Layout();
  static std::vector<int> Cells(const Instance& instance);
  static absl::StatusOr<Instance> FromCells(const Instance& base, std::span<const int> cells);
  static std::string FormatOriginalAnswer(const Instance& instance, const RotationPuzzle& model,
                                          const Solution& solution);

  // Validates 24 values 1..3; errors name the cell.
  static absl::StatusOr<State> BoardFromValues(const std::vector<uint32_t>& values);

 private:
  CentrePlacementSpace space_;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_PUZZLES_ROTATION_H_
