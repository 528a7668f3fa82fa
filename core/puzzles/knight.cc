#include "core/puzzles/knight.h"

#include <algorithm>
#include <bit>

#include "core/puzzles/drawing.h"
#include "core/puzzles/model_puzzle.h"
#include "core/util/strings.h"

namespace puzzledb {
namespace {

// Jump offsets (row, column) in ascending order of row*5 + column, which is the canonical
// move order (by destination index).
constexpr int kJumps[KnightPuzzle::kNumMoves][2] = {{-2, -1}, {-2, 1}, {-1, -2}, {-1, 2},
                                                     {1, -2},  {1, 2},  {2, -1},  {2, 1}};

constexpr auto BuildDestinations() {
  std::array<std::array<int8_t, KnightPuzzle::kNumMoves>, KnightPuzzle::kCells> d{};
  for (int cell = 0; cell < KnightPuzzle::kCells; ++cell) {
    for (int m = 0; m < KnightPuzzle::kNumMoves; ++m) {
      const int r = cell / 5 + kJumps[m][0];
      const int c = cell % 5 + kJumps[m][1];
      d[cell][m] = (r >= 0 && r < 5 && c >= 0 && c < 5) ? static_cast<int8_t>(r * 5 + c) : -1;
    }
  }
  return d;
}

// Knight-move distance from every cell to the nearest cell of `targets`.
constexpr std::array<int, KnightPuzzle::kCells> DistanceToCells(uint32_t targets) {
  constexpr auto dest = BuildDestinations();
  std::array<int, KnightPuzzle::kCells> dist{};
  for (int& x : dist) x = -1;
  int queue[KnightPuzzle::kCells] = {};
  int head = 0, tail = 0;
  for (int cell = 0; cell < KnightPuzzle::kCells; ++cell) {
    if (targets & (1u << cell)) {
      dist[cell] = 0;
      queue[tail++] = cell;
    }
  }
  while (head < tail) {
    const int cell = queue[head++];
    for (int m = 0; m < KnightPuzzle::kNumMoves; ++m) {
      const int to = dest[cell][m];
      if (to >= 0 && dist[to] < 0) {
        dist[to] = dist[cell] + 1;
        queue[tail++] = to;
      }
    }
  }
  return dist;
}

// byte_sums[b][byte]: the sum of `dist` over the cells 8b..8b+7 selected by `byte`.
using ByteSums = std::array<std::array<uint8_t, 256>, 4>;
constexpr ByteSums SumsByByte(const std::array<int, KnightPuzzle::kCells>& dist) {
  ByteSums sums{};
  for (int b = 0; b < 4; ++b) {
    for (int byte = 0; byte < 256; ++byte) {
      int sum = 0;
      for (int bit = 0; bit < 8; ++bit) {
        const int cell = 8 * b + bit;
        if ((byte & (1 << bit)) && cell < KnightPuzzle::kCells) sum += dist[cell];
      }
      sums[b][byte] = static_cast<uint8_t>(sum);
    }
  }
  return sums;
}

constexpr uint32_t kGoalBlack =
    KnightPuzzle::kAllCells & ~KnightPuzzle::kGoalWhite & ~(1u << KnightPuzzle::kGoalBlank);
constexpr ByteSums kWhiteSums = SumsByByte(DistanceToCells(KnightPuzzle::kGoalWhite));
constexpr ByteSums kBlackSums = SumsByByte(DistanceToCells(kGoalBlack));

inline int SumOver(const ByteSums& sums, uint32_t mask) {
  return sums[0][mask & 0xFF] + sums[1][(mask >> 8) & 0xFF] + sums[2][(mask >> 16) & 0xFF] +
         sums[3][mask >> 24];
}

}  // namespace

const std::array<std::array<int8_t, KnightPuzzle::kNumMoves>, KnightPuzzle::kCells>
    KnightPuzzle::kDestinations = BuildDestinations();

std::vector<KnightBoard> KnightClassSpace::SelfMirrored() {
  // The empty cell on c3 and each pair of opposite cells (i, 24 - i) holding one knight of
  // each colour: bit i of `choice` says whether the white one is on i.
  std::vector<KnightBoard> boards;
  boards.reserve(1u << KnightPuzzle::kGoalBlank);
  for (uint32_t choice = 0; choice < (1u << KnightPuzzle::kGoalBlank); ++choice) {
    KnightBoard b{0, KnightPuzzle::kGoalBlank};
    for (int i = 0; i < KnightPuzzle::kGoalBlank; ++i) {
      b.white |= 1u << ((choice >> i) & 1u ? i : KnightPuzzle::kCells - 1 - i);
    }
    boards.push_back(b);
  }
  return boards;
}

int KnightPuzzle::LowerBound(const State& s) const {
  const uint32_t black = kAllCells & ~s.white & ~(1u << s.blank);
  const int bound = SumOver(kWhiteSums, s.white) + SumOver(kBlackSums, black);
  return RaiseToParity<KnightPuzzle>(s, bound);
}

std::string KnightPuzzle::CellName(int cell) {
  return {static_cast<char>('a' + cell % 5), static_cast<char>('1' + cell / 5)};
}

std::string KnightPuzzle::MoveName(const State& s, int move) const {
  const int to = Destination(s.blank, move);
  return to < 0 ? std::string("?") : CellName(to);
}

absl::StatusOr<KnightBoard> KnightPuzzle::BoardFromCells(std::string_view cells) {
  if (cells.size() != kCells) {
    return absl::InvalidArgumentError(
        Cat("a board has 25 cells, got ", cells.size(), " characters"));
  }
  // Without a branch per cell (a random board's cells mispredict half the time): a mask of
  // each kind, then the rules checked on the masks.
  uint32_t white = 0, empty = 0, bad = 0;
  for (int i = 0; i < kCells; ++i) {
    const char c = cells[static_cast<size_t>(i)];
    white |= static_cast<uint32_t>(c == '1') << i;
    empty |= static_cast<uint32_t>(c == '*') << i;
    bad |= static_cast<uint32_t>(c != '1' && c != '0' && c != '*') << i;
  }
  if (bad != 0) {
    const int i = std::countr_zero(bad);
    return absl::InvalidArgumentError(
        Cat("cell ", CellName(i), " holds ", QuoteInput(cells.substr(static_cast<size_t>(i), 1)),
            "; a cell holds '1' (white knight), '0' (black knight) or '*' (empty)"));
  }
  const int blanks = std::popcount(empty), whites = std::popcount(white);
  KnightBoard board;
  board.white = white;
  if (blanks == 1) board.blank = std::countr_zero(empty);
  if (blanks != 1) {
    return absl::InvalidArgumentError(
        Cat("the board has ", blanks, " empty cells '*'; it must have exactly 1"));
  }
  if (whites != 12) {
    return absl::InvalidArgumentError(Cat("the board has ", whites,
                                                   " white knights '1' and ", 24 - whites,
                                                   " black knights '0'; it must have 12 of each"));
  }
  return board;
}

absl::StatusOr<KnightPuzzle::Instance> KnightPuzzle::ParseCompact(std::string_view text) {
  auto board = BoardFromCells(StripWhitespace(text));
  if (!board.ok()) return board.status();
  return Instance{{}, *board};
}

std::string KnightPuzzle::FormatCompact(const Instance& instance) {
  std::string cells(kCells, '0');
  for (int i = 0; i < kCells; ++i) {
    if (instance.state.white & (1u << i)) cells[i] = '1';
  }
  cells[instance.state.blank] = '*';
  return cells;
}

std::string KnightPuzzle::FormatOriginal(const std::vector<Instance>& instances) {
  std::string out = Cat(instances.size(), "\n");
  for (const Instance& instance : instances) {
    const std::string cells = FormatCompact(instance);
    for (int row = 0; row < 5; ++row) out += cells.substr(5 * row, 5) + "\n";
  }
  return out;
}

std::vector<ParsedCase<KnightPuzzle::Instance>> KnightPuzzle::ParseOriginal(std::string_view text) {
  std::vector<ParsedCase<Instance>> cases;
  const InputLines lines(text);
  int at = lines.SkipBlank(1);
  if (at > lines.count()) {
    cases.push_back({1, 1, InputError(0, 1, "the input is empty; the first line must be the "
                                             "number of boards T")});
    return cases;
  }
  const int count_line = at;
  auto count = ParseNumbers(lines.line(at));
  if (!count.ok() || count->size() != 1) {
    cases.push_back({1, at, InputError(0, at, Cat("the first line must be the number of "
                                                            "boards T, found ",
                                                            QuoteInput(lines.line(at))))});
    return cases;
  }
  const uint32_t boards = (*count)[0];
  at = lines.SkipBlank(at + 1);
  for (uint32_t n = 1; n <= boards; ++n) {
    const int case_number = static_cast<int>(n);
    if (at > lines.count()) {
      cases.push_back({case_number, lines.count(),
                       InputError(case_number, lines.count(),
                                  Cat("the input ended after ", n - 1, " of the ", boards,
                                      boards == 1 ? " board" : " boards", " that line ",
                                      count_line, " announces"))});
      return cases;
    }
    ParsedCase<Instance> parsed{case_number, at, absl::UnknownError("unset")};
    std::string cells;
    absl::Status problem;
    int row = 0;
    for (; row < 5 && at <= lines.count(); ++row) {
      const std::string_view line = StripWhitespace(lines.line(at));
      if (problem.ok() && line.size() != 5) {
        problem = InputError(case_number, at,
                             Cat("row ", row + 1, " of the board has ", line.size(),
                                          " characters, expected 5: ", QuoteInput(line)));
      }
      for (size_t c = 0; problem.ok() && c < line.size(); ++c) {
        if (line[c] != '0' && line[c] != '1' && line[c] != '*') {
          problem = InputError(
              case_number, at,
              Cat("cell ", CellName(row * 5 + static_cast<int>(c)), " holds ",
                           QuoteInput(line.substr(c, 1)),
                           "; a cell holds '1' (white knight), '0' (black knight) or '*' (empty)"));
        }
      }
      cells.append(line.substr(0, 5));
      at = lines.SkipBlank(at + 1);
    }
    if (row < 5) {
      parsed.instance = InputError(
          case_number, lines.count(),
          Cat("the input ended inside the board: ", row, " of 5 rows, and line ",
                       count_line, " announces ", boards, boards == 1 ? " board" : " boards"));
      cases.push_back(std::move(parsed));
      return cases;
    }
    if (!problem.ok()) {
      parsed.instance = problem;
    } else {
      auto board = BoardFromCells(cells);
      if (board.ok()) {
        parsed.instance = Instance{{}, *board};
      } else {
        parsed.instance = InputError(case_number, parsed.line, Message(board.status()));
      }
    }
    cases.push_back(std::move(parsed));
  }
  if (at <= lines.count()) {
    cases.push_back({static_cast<int>(boards) + 1, at,
                     InputError(0, at,
                                Cat("more input after the ", boards,
                                    boards == 1 ? " board" : " boards", " that line ", count_line,
                                             " announces: ", QuoteInput(lines.line(at))))});
  }
  return cases;
}

std::string KnightPuzzle::FormatOriginalAnswer(const Instance&, const KnightPuzzle&,
                                               const Solution& solution) {
  if (solution.outcome != Outcome::kSolved) return "-1\n";
  return Cat(solution.distance, "\n");
}


std::string KnightPuzzle::Draw(const Instance& now, const Instance* before) {
  static const GridLayout kLayout = [] {
    GridLayout layout;
    layout.columns = 5;
    for (int i = 0; i < kCells; ++i) layout.places.push_back(i);
    layout.column_labels = "abcde";
    layout.row_numbers = true;
    return layout;
  }();
  return DrawGrid(kLayout, FormatCompact(now), before != nullptr ? FormatCompact(*before) : "");
}

// Cells 0..24 row by row; a cell holds 1 (white), 0 (black) or 2 (empty).
BoardLayout KnightPuzzle::Layout() {
  BoardLayout layout;
  layout.width = 5.5;
  layout.height = 5.5;
  for (int cell = 0; cell < 25; ++cell) {
    layout.cells.push_back({0.5 + cell % 5, static_cast<double>(cell / 5), CellName(cell), ""});
  }
  layout.symbols = {{0, "\u265e", "#8d6e63"}, {1, "\u2658", "#fff8e1"}, {2, "", "#eeeeee"}};
  for (int k = 0; k < 5; ++k) {
    layout.labels.push_back({1.0 + k, 5.25, std::string(1, static_cast<char>('a' + k))});
    layout.labels.push_back({0.2, 0.5 + k, std::string(1, static_cast<char>('1' + k))});
  }
  layout.hint = "Click two cells to swap them. White knights are 1, black knights 0.";
  return layout;
}

std::vector<int> KnightPuzzle::Cells(const Instance& instance) {
  std::vector<int> cells;
  for (const char c : FormatCompact(instance)) cells.push_back(c == '1' ? 1 : c == '0' ? 0 : 2);
  return cells;
}

absl::StatusOr<KnightPuzzle::Instance> KnightPuzzle::FromCells(const Instance&,
                                                               std::span<const int> cells) {
  std::string text;
  for (const int v : cells) text += v == 1 ? '1' : v == 0 ? '0' : '*';
  auto board = BoardFromCells(text);
  if (!board.ok()) return board.status();
  return Instance{{}, *board};
}

PUZZLEDB_REGISTER_PUZZLE(KnightPuzzle)

}  // namespace puzzledb
