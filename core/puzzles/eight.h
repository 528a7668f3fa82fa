// The 8-puzzle (Luogu P1379): the sliding-tile model (core/sliding/sliding_tiles.h) on a 3x3
// board, goal 123804765 (1 2 3 / 8 0 4 / 7 6 5), and the problem's formats.
//
// Only half the boards reach the goal: on a board three cells wide a move keeps the parity
// of the tiles' inversions. The space is that half, 9!/2 = 181,440 boards
// (docs/PUZZLES.md, section 4).
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
#include "core/sliding/sliding_tiles.h"

namespace puzzledb {

using EightBoard = TileBoard;

class EightPuzzle : public SlidingTiles<EightPuzzle, 3>, public NoParams<EightPuzzle> {
 public:
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
  // 1 2 3 / 8 0 4 / 7 6 5.
  static constexpr std::string_view kGoalCells = "123804765";
  static constexpr int kDefaultMaxMoves = 0;
  static constexpr LiveSearchKind kLiveSearch = LiveSearchKind::kIdaStar;
  // 14,619 boards lie within 16 moves of the goal; the farthest board is 30 away.
  static constexpr int kPerimeterRadius = 16;

  EightPuzzle() = default;
  explicit EightPuzzle(const Params&) {}

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

  // The page's drawing (BoardLayout, core/model/model.h): SlidingTiles' grid and cells.
  static BoardLayout Layout() {
    return BoardGrid("Click two cells to swap them. The goal is 123 / 804 / 765.");
  }
  static absl::StatusOr<Instance> FromCells(const Instance& base, std::span<const int> cells);

  // Original output: the number of moves; -1 when there is none (or none within a cap).
  static std::string FormatOriginalAnswer(const Instance& instance, const EightPuzzle& model,
                                          const Solution& solution);

  // Validates 9 digits, each of 0..8 once; errors name the cell.
  static absl::StatusOr<State> BoardFromDigits(std::string_view digits);
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_PUZZLES_EIGHT_H_
