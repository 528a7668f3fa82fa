// The fifteen puzzle (UVa 10181): tiles 1..15 and one empty place on a 4x4 board; a tile
// next to the empty place slides into it. Goal 1 2 3 4 / 5 6 7 8 / 9 10 11 12 / 13 14 15 0.
//
// Cells are numbered 0..15 row-major from the top-left; tile t's home is cell t - 1, the
// empty place's cell 15. A move is named by the direction the empty place moves: U, D, L,
// R, in that canonical order.
//
// Half the 16! boards reach the goal: those whose tiles' inversions (read row-major,
// skipping the empty place) plus the empty place's row counted from the bottom (1..4) is
// odd. The other half is refused by that parity, never searched. 10,461,394,944,000 boards
// are too many for a table: the fifteen puzzle's tables are pattern tables (a bound, built
// by puzzledb-build; core/sliding/pattern_tables.h) that guide a live IDA*
// (docs/PUZZLES.md, section 5).
#ifndef PUZZLEDB_CORE_PUZZLES_FIFTEEN_H_
#define PUZZLEDB_CORE_PUZZLES_FIFTEEN_H_

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/model/model.h"
#include "core/sliding/sliding_tiles.h"

namespace puzzledb {

template <class P>
struct PatternGuide;

using FifteenBoard = TileBoard;

class FifteenPuzzle : public SlidingTiles<FifteenPuzzle, 4>, public NoParams<FifteenPuzzle> {
 public:
  struct Instance {
    Params params;
    State state;
  };
  using Space = FifteenPuzzle;

  static constexpr std::string_view kName = "fifteen";
  static constexpr std::string_view kTitle = "The fifteen puzzle (UVa 10181)";
  static constexpr std::string_view kCompactHelp =
      "the 16 cells row by row as hexadecimal digits, 0 the empty place, a..f for 10..15 (or 16 "
      "numbers separated by commas)";
  static constexpr std::string_view kExample = "2340157896acdebf";
  // Tile t's home is cell t - 1, the empty place's cell 15 (what the pattern tables need).
  static constexpr std::string_view kGoalCells = "123456789abcdef0";
  // UVa 10181's judge takes answers of at most 50 moves.
  static constexpr int kDefaultMaxMoves = 50;
  static constexpr LiveSearchKind kLiveSearch = LiveSearchKind::kGuided;
  // The perimeter keeps the 61,865 boards within 14 moves of the goal (docs/PUZZLES.md's
  // counts per distance): built in milliseconds, read only where the bound is at most 14.
  static constexpr int kPerimeterRadius = 14;

  FifteenPuzzle() = default;
  explicit FifteenPuzzle(const Params&) {}

  // Original format (UVa 10181): the number of boards N, then each board as 4 lines of 4
  // numbers, 0 for the empty place.
  static std::vector<ParsedCase<Instance>> ParseOriginal(std::string_view text);
  // Compact form: the 16 cells row-major as hexadecimal digits, 0 the empty place
  // ("123456789abcdef0"); also read as 16 decimal numbers separated by commas or spaces.
  static absl::StatusOr<Instance> ParseCompact(std::string_view text);
  static std::string FormatCompact(const Instance& instance);
  static std::string FormatOriginal(const std::vector<Instance>& instances);
  static std::string Draw(const Instance& now, const Instance* before);
  // Pattern tables (core/sliding/pattern_tables.h), named fifteen-<set>, which guide the
  // live search (core/sliding/pattern_guide.h): the 7-8 partition
  // (tiles of the top two rows, of the bottom two; 57,657,600 + 518,918,400 placements), the
  // strongest disjoint one known, and 6-6-3 (5,765,760 twice and 3,360), 25 times smaller:
  // the top row with 7 and 8, the left two columns' lower six, and 11 12 15 around the
  // empty place's home (the 6-6-3 of five tried with the fewest nodes on Korf's 100,
  // docs/PERFORMANCE.md).
  static constexpr TableEncodingKind kTableEncoding = TableEncodingKind::kPatternBound;
  using Guide = PatternGuide<FifteenPuzzle>;
  static constexpr std::array<PatternSet, 2> kPatternSets = {{
      {"7-8", "1-8/9-15"},
      {"6-6-3", "1-4,7,8/5,6,9,10,13,14/11,12,15"},
  }};

  // Boards per distance 0..80 (a complete breadth-first search, Korf and Schultze 2005;
  // docs/PUZZLES.md), and the 17 boards at 80: what sampling draws at distances no table
  // covers (core/sliding/pattern_sampler.h).
  static const std::array<uint64_t, 81> kDistanceCounts;
  static std::vector<State> Farthest();

  // The page's drawing (BoardLayout, core/model/model.h): SlidingTiles' grid and cells.
  static BoardLayout Layout() {
    return BoardGrid(
        "Click two cells to swap them. The goal is 1..15 row by row, the empty place last.");
  }
  static absl::StatusOr<Instance> FromCells(const Instance& base, std::span<const int> cells);
  // Original output: the moves as letters, or "This puzzle is not solvable." (also beyond
  // the cap: the judge's answer for a board it cannot take).
  static std::string FormatOriginalAnswer(const Instance& instance, const FifteenPuzzle& model,
                                          const Solution& solution);

  // Validates 16 cells, each of 0..15 once; errors name the cell.
  static absl::StatusOr<State> BoardFromCells(const std::array<int, kCells>& cells);
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_PUZZLES_FIFTEEN_H_
