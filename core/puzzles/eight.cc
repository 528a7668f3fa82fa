#include "core/puzzles/eight.h"

#include "core/puzzles/drawing.h"
#include "core/puzzles/model_puzzle.h"
#include "core/util/strings.h"

namespace puzzledb {

absl::StatusOr<EightBoard> EightPuzzle::BoardFromDigits(std::string_view digits) {
  if (digits.size() != kCells) {
    return absl::InvalidArgumentError(
        Cat("a board has 9 cells, got ", digits.size(), " characters"));
  }
  EightBoard board;
  int seen_at[kCells];
  for (int& at : seen_at) at = -1;
  for (int cell = 0; cell < kCells; ++cell) {
    const char c = digits[cell];
    if (c < '0' || c > '8') {
      return absl::InvalidArgumentError(
          Cat("cell ", cell + 1, " (row ", cell / 3 + 1, ", column ", cell % 3 + 1, ") holds ",
              QuoteInput(digits.substr(cell, 1)), "; a cell holds a digit 0..8 (0: the empty place)"));
    }
    const int tile = c - '0';
    if (seen_at[tile] >= 0) {
      return absl::InvalidArgumentError(
          Cat("digit ", tile, " appears twice (cells ", seen_at[tile] + 1, " and ", cell + 1,
              "); a board holds each of 0..8 once"));
    }
    seen_at[tile] = cell;
    board.tiles |= static_cast<uint64_t>(tile) << (4 * cell);
    if (tile == 0) board.blank = cell;
  }
  return board;
}

namespace {

// The line without spaces and tabs, so "2 8 3 1 0 4 7 6 5" reads as "283104765".
std::string Squeezed(std::string_view line) {
  std::string out;
  for (char c : line) {
    if (c != ' ' && c != '\t') out += c;
  }
  return out;
}

}  // namespace

absl::StatusOr<EightPuzzle::Instance> EightPuzzle::ParseCompact(std::string_view text) {
  auto board = BoardFromDigits(Squeezed(StripWhitespace(text)));
  if (!board.ok()) return board.status();
  return Instance{{}, *board};
}

std::string EightPuzzle::FormatCompact(const Instance& instance) {
  std::string digits;
  for (int cell = 0; cell < kCells; ++cell) {
    digits += static_cast<char>('0' + instance.state.Tile(cell));
  }
  return digits;
}

std::string EightPuzzle::FormatOriginal(const std::vector<Instance>& instances) {
  std::string out;
  for (const Instance& instance : instances) out += FormatCompact(instance) + "\n";
  return out;
}

std::vector<ParsedCase<EightPuzzle::Instance>> EightPuzzle::ParseOriginal(std::string_view text) {
  return ParseCaseLines<Instance>(
      text,
      [](std::string_view line) -> absl::StatusOr<Instance> {
        auto board = BoardFromDigits(Squeezed(StripWhitespace(line)));
        if (!board.ok()) return board.status();
        return Instance{{}, *board};
      },
      "the input is empty; each line is a board of 9 digits, row-major, 0 for the empty place");
}

std::string EightPuzzle::FormatOriginalAnswer(const Instance&, const EightPuzzle&,
                                              const Solution& solution) {
  if (solution.outcome != Outcome::kSolved) return "-1\n";
  return Cat(solution.distance, "\n");
}

std::string EightPuzzle::Draw(const Instance& now, const Instance* before) {
  static const GridLayout kLayout = [] {
    GridLayout layout;
    layout.columns = 3;
    for (int i = 0; i < 9; ++i) layout.places.push_back(i);
    return layout;
  }();
  return DrawGrid(kLayout, FormatCompact(now), before != nullptr ? FormatCompact(*before) : "");
}

absl::StatusOr<EightPuzzle::Instance> EightPuzzle::FromCells(const Instance&,
                                                             std::span<const int> cells) {
  std::string digits;
  for (const int v : cells) digits += static_cast<char>('0' + v);
  auto board = BoardFromDigits(digits);
  if (!board.ok()) return board.status();
  return Instance{{}, *board};
}

PUZZLEDB_REGISTER_PUZZLE(EightPuzzle)

}  // namespace puzzledb
