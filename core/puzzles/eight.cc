#include "core/puzzles/eight.h"

#include <cstdlib>

#include "core/puzzles/drawing.h"
#include "core/puzzles/model_puzzle.h"
#include "core/util/strings.h"

namespace puzzledb {
namespace {

constexpr char kGoalDigits[] = "123804765";

// Blank offsets (row, column) of U, D, L, R.
constexpr int kSteps[EightPuzzle::kNumMoves][2] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};

constexpr auto BuildDestinations() {
  std::array<std::array<int8_t, EightPuzzle::kNumMoves>, EightPuzzle::kCells> d{};
  for (int cell = 0; cell < EightPuzzle::kCells; ++cell) {
    for (int m = 0; m < EightPuzzle::kNumMoves; ++m) {
      const int r = cell / 3 + kSteps[m][0];
      const int c = cell % 3 + kSteps[m][1];
      d[cell][m] = (r >= 0 && r < 3 && c >= 0 && c < 3) ? static_cast<int8_t>(r * 3 + c) : -1;
    }
  }
  return d;
}

// The tiles in row-major order, the empty place skipped.
constexpr std::array<int, 8> TileOrder(const EightBoard& s) {
  std::array<int, 8> order{};
  int n = 0;
  for (int cell = 0; cell < EightPuzzle::kCells; ++cell) {
    if (cell != s.blank) order[n++] = s.Tile(cell);
  }
  return order;
}

// Lehmer digits: digit[i] = how many later tiles are smaller than tile i.
constexpr std::array<int, 8> LehmerDigits(const std::array<int, 8>& order) {
  std::array<int, 8> digits{};
  for (int i = 0; i < 8; ++i) {
    for (int j = i + 1; j < 8; ++j) digits[i] += order[j] < order[i] ? 1 : 0;
  }
  return digits;
}

constexpr int InversionParity(const EightBoard& s) {
  int sum = 0;
  for (int d : LehmerDigits(TileOrder(s))) sum += d;
  return sum & 1;
}

constexpr EightBoard BoardOf(const char* digits) {
  EightBoard board;
  for (int cell = 0; cell < EightPuzzle::kCells; ++cell) {
    board.tiles |= static_cast<uint64_t>(digits[cell] - '0') << (4 * cell);
    if (digits[cell] == '0') board.blank = cell;
  }
  return board;
}
static_assert(BoardOf(kGoalDigits) == EightPuzzle::Goal());
constexpr int kGoalParity = InversionParity(EightPuzzle::Goal());

constexpr int kFactorial[8] = {1, 1, 2, 6, 24, 120, 720, 5040};

// The goal cell of every tile, for the bound.
struct GoalCells {
  std::array<int, 9> of{};
  GoalCells() {
    for (int cell = 0; cell < EightPuzzle::kCells; ++cell) of[kGoalDigits[cell] - '0'] = cell;
  }
};
const GoalCells kGoalCells;

}  // namespace

const std::array<std::array<int8_t, EightPuzzle::kNumMoves>, EightPuzzle::kCells>
    EightPuzzle::kDestinations = BuildDestinations();

bool EightPuzzle::ProvablyUnsolvable(const State& s) {
  return InversionParity(s) != kGoalParity;
}

// The Lehmer code of the tile order is sum digit[i] * (7 - i)!; digit[7] is always 0 and
// digit[6] (weight 1) is fixed by the parity, so code / 2 ranks the orders of one parity.
uint64_t EightPuzzle::Rank(const State& s) const {
  const std::array<int, 8> digits = LehmerDigits(TileOrder(s));
  uint64_t code = 0;
  for (int i = 0; i < 8; ++i) code += static_cast<uint64_t>(digits[i]) * kFactorial[7 - i];
  return static_cast<uint64_t>(s.blank) * kOrdersPerBlank + code / 2;
}

EightBoard EightPuzzle::Unrank(uint64_t index) const {
  State s;
  s.blank = static_cast<int>(index / kOrdersPerBlank);
  uint64_t code = (index % kOrdersPerBlank) * 2;
  std::array<int, 8> digits{};
  int parity = 0;
  for (int i = 0; i < 6; ++i) {
    digits[i] = static_cast<int>(code / kFactorial[7 - i]);
    code %= kFactorial[7 - i];
    parity ^= digits[i] & 1;
  }
  digits[6] = parity ^ kGoalParity;
  // Tile i is the digit[i]-th smallest tile not placed yet.
  int unused = 0x1FE;  // tiles 1..8
  int n = 0;
  for (int cell = 0; cell < kCells; ++cell) {
    if (cell == s.blank) continue;
    int skip = digits[n++];
    int tile = 1;
    for (;; ++tile) {
      if ((unused & (1 << tile)) != 0 && skip-- == 0) break;
    }
    unused &= ~(1 << tile);
    s.tiles |= static_cast<uint64_t>(tile) << (4 * cell);
  }
  return s;
}

int EightPuzzle::LowerBound(const State& s) const {
  int sum = 0;
  for (int cell = 0; cell < kCells; ++cell) {
    const int tile = s.Tile(cell);
    if (tile == 0) continue;
    const int goal = kGoalCells.of[tile];
    sum += std::abs(cell / 3 - goal / 3) + std::abs(cell % 3 - goal % 3);
  }
  return sum;
}

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
  std::vector<ParsedCase<Instance>> cases;
  const InputLines lines(text);
  int case_number = 1;
  for (int at = lines.SkipBlank(1); at <= lines.count(); at = lines.SkipBlank(at + 1)) {
    auto board = BoardFromDigits(Squeezed(StripWhitespace(lines.line(at))));
    if (board.ok()) {
      cases.push_back({case_number, at, Instance{{}, *board}});
    } else {
      cases.push_back({case_number, at,
                       InputError(case_number, at,
                                  Cat(Message(board.status()), ": ", QuoteInput(lines.line(at))))});
    }
    ++case_number;
  }
  if (cases.empty()) {
    cases.push_back({1, 1, InputError(0, 1, "the input is empty; each line is a board of 9 "
                                            "digits, row-major, 0 for the empty place")});
  }
  return cases;
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

// Cells 0..8 row by row, each holding its tile (0 the empty place).
BoardLayout EightPuzzle::Layout() {
  BoardLayout layout;
  layout.width = 3;
  layout.height = 3;
  for (int cell = 0; cell < kCells; ++cell) {
    layout.cells.push_back({static_cast<double>(cell % 3), static_cast<double>(cell / 3),
                            Cat("row ", cell / 3 + 1, " column ", cell % 3 + 1)});
  }
  layout.symbols.push_back({0, "", "#eeeeee"});
  for (int tile = 1; tile <= 8; ++tile) layout.symbols.push_back({tile, std::to_string(tile), "#bbdefb"});
  layout.hint = "Click two cells to swap them. The goal is 123 / 804 / 765.";
  return layout;
}

std::vector<int> EightPuzzle::Cells(const Instance& instance) {
  std::vector<int> cells;
  for (int cell = 0; cell < kCells; ++cell) cells.push_back(instance.state.Tile(cell));
  return cells;
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
