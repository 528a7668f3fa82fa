#include "core/puzzles/rotation.h"

#include "core/puzzles/drawing.h"
#include "core/puzzles/model_puzzle.h"
#include "core/puzzles/rotation_sampling.h"
#include "core/util/strings.h"

namespace puzzledb {
namespace {

constexpr uint32_t CellMask(std::initializer_list<int> cells) {
  uint32_t mask = 0;
  for (int c : cells) mask |= 1u << c;
  return mask;
}

constexpr uint32_t kLeftColumn = CellMask({0, 2, 6, 11, 15, 20, 22});
constexpr uint32_t kRightColumn = CellMask({1, 3, 8, 12, 17, 21, 23});
constexpr uint32_t kUpperRow = CellMask({4, 5, 6, 7, 8, 9, 10});
constexpr uint32_t kLowerRow = CellMask({13, 14, 15, 16, 17, 18, 19});

}  // namespace

// Move A lists the left column upwards (0 2 6 ... ascending), E the right column downwards
// (23 21 ... descending), and so on: see the table in docs/PUZZLES.md, section 3.
const std::array<RotationMoves::Line, RotationMoves::kCount> RotationMoves::kLines = {{
    {kLeftColumn, true},    // A: 0 2 6 11 15 20 22
    {kRightColumn, true},   // B: 1 3 8 12 17 21 23
    {kUpperRow, false},     // C: 10 9 8 7 6 5 4
    {kLowerRow, false},     // D: 19 18 17 16 15 14 13
    {kRightColumn, false},  // E: 23 21 17 12 8 3 1
    {kLeftColumn, false},   // F: 22 20 15 11 6 2 0
    {kLowerRow, true},      // G: 13 14 15 16 17 18 19
    {kUpperRow, true},      // H: 4 5 6 7 8 9 10
}};

int RotationPuzzle::CentreValue(const State& s) {
  for (int k = 0; k < 3; ++k) {
    if ((s.masks[k] & RotationMoves::kCentre) == RotationMoves::kCentre) return k + 1;
  }
  return 0;
}

bool RotationPuzzle::IsGoal(const State& s) const { return CentreValue(s) != 0; }

int RotationPuzzle::LowerBound(const State& s) const {
  int best = 8;
  for (int k = 0; k < 3; ++k) {
    if (PopCount(s.masks[k]) < 8) continue;
    const int missing = 8 - PopCount(s.masks[k] & RotationMoves::kCentre);
    if (missing < best) best = missing;
  }
  return best;
}

int RotationPuzzle::Project(const State& s, std::array<uint64_t, kMaxKeys>* keys) const {
  for (int k = 0; k < 3; ++k) {
    if (PopCount(s.masks[k]) != 8) return 0;
    (*keys)[k] = space_.Rank(s.masks[k]);
  }
  return 3;
}

absl::StatusOr<RotationBoard> RotationPuzzle::BoardFromValues(const std::vector<uint32_t>& values) {
  if (values.size() != kCells) {
    return absl::InvalidArgumentError(
        Cat("a board has 24 cells, got ", values.size(), " values"));
  }
  RotationBoard board;
  for (int cell = 0; cell < kCells; ++cell) {
    const uint32_t v = values[cell];
    if (v < 1 || v > 3) {
      return absl::InvalidArgumentError(
          Cat("cell ", cell, " holds ", v, "; cells hold 1, 2 or 3"));
    }
    board.masks[v - 1] |= 1u << cell;
  }
  // 24 cells and three values: some value always has eight or more copies; kept as a check
  // of the rule that makes a board solvable.
  if (PopCount(board.masks[0]) < 8 && PopCount(board.masks[1]) < 8 &&
      PopCount(board.masks[2]) < 8) {
    return absl::InvalidArgumentError("no value appears 8 times, so the centre can never be uniform");
  }
  return board;
}

std::vector<ParsedCase<RotationPuzzle::Instance>> RotationPuzzle::ParseOriginal(
    std::string_view text) {
  std::vector<ParsedCase<Instance>> cases;
  const InputLines lines(text);
  int case_number = 1;
  int at = lines.SkipBlank(1);
  for (; at <= lines.count(); at = lines.SkipBlank(at + 1), ++case_number) {
    auto numbers = ParseNumbers(lines.line(at));
    if (!numbers.ok()) {
      cases.push_back({case_number, at, InputError(case_number, at, Message(numbers.status()))});
      continue;
    }
    if (numbers->size() == 1 && (*numbers)[0] == 0) {
      const int after = lines.SkipBlank(at + 1);
      if (after <= lines.count()) {
        cases.push_back({case_number, after,
                         InputError(0, after,
                                    Cat("more input after the line '0' (line ", at,
                                                 ") that ends the input: ",
                                                 QuoteInput(lines.line(after))))});
      }
      return cases;
    }
    if (numbers->size() != kCells) {
      cases.push_back(
          {case_number, at,
           InputError(case_number, at,
                      Cat("the line has ", numbers->size(),
                                   " numbers; a case is the 24 cells of the board on one line, "
                                   "and a line '0' ends the input"))});
      continue;
    }
    auto board = BoardFromValues(*numbers);
    if (board.ok()) {
      cases.push_back({case_number, at, Instance{{}, *board}});
    } else {
      cases.push_back({case_number, at, InputError(case_number, at, Message(board.status()))});
    }
  }
  const int last = lines.count() == 0 ? 1 : lines.count();
  cases.push_back({case_number, last,
                   InputError(0, last, "the input ended without the line '0' that ends it "
                                       "(truncated input?)")});
  return cases;
}

absl::StatusOr<RotationPuzzle::Instance> RotationPuzzle::ParseCompact(std::string_view text) {
  text = StripWhitespace(text);
  std::vector<uint32_t> values;
  if (text.find_first_of(" \t") == std::string_view::npos) {
    // 24 digits.
    for (char c : text) {
      if (c < '0' || c > '9') {
        return absl::InvalidArgumentError(
            Cat(QuoteInput(std::string_view(&c, 1)), " is not a cell value 1, 2 or 3"));
      }
      values.push_back(static_cast<uint32_t>(c - '0'));
    }
  } else {
    auto numbers = ParseNumbers(text);
    if (!numbers.ok()) return numbers.status();
    values = *numbers;
  }
  auto board = BoardFromValues(values);
  if (!board.ok()) return board.status();
  return Instance{{}, *board};
}

std::string RotationPuzzle::FormatCompact(const Instance& instance) {
  std::string out;
  for (int cell = 0; cell < kCells; ++cell) out += static_cast<char>('0' + instance.state.Value(cell));
  return out;
}

std::string RotationPuzzle::FormatOriginal(const std::vector<Instance>& instances) {
  std::string out;
  for (const Instance& instance : instances) {
    std::vector<int> values;
    for (int cell = 0; cell < kCells; ++cell) values.push_back(instance.state.Value(cell));
    out += Join(values, " ") + "\n";
  }
  return out + "0\n";
}

std::string RotationPuzzle::FormatOriginalAnswer(const Instance& instance,
                                                 const RotationPuzzle& model,
                                                 const Solution& solution) {
  if (solution.outcome != Outcome::kSolved) return "-1\n";
  State board = instance.state;
  std::string letters;
  for (uint8_t m : solution.moves) {
    State next;
    model.Apply(board, m, &next);
    board = next;
    letters += RotationMoves::Name(m);
  }
  if (letters.empty()) letters = "No moves needed";
  return Cat(letters, "\n", CentreValue(board), "\n");
}


std::string RotationPuzzle::Draw(const Instance& now, const Instance* before) {
  // The # of docs/PUZZLES.md on a 7 x 7 grid.
  static const GridLayout kLayout = [] {
    GridLayout layout;
    layout.columns = 7;
    layout.places = {2,  4,  9,  11, 14, 15, 16, 17, 18, 19, 20, 23,
                     25, 28, 29, 30, 31, 32, 33, 34, 37, 39, 44, 46};
    return layout;
  }();
  return DrawGrid(kLayout, FormatCompact(now), before != nullptr ? FormatCompact(*before) : "");
}

std::vector<RotationBoard> RotationPuzzle::Goals() const {
  std::vector<State> goals;
  for (uint32_t centre = 1; centre <= 3; ++centre) {
    std::vector<uint32_t> values(kCells);
    uint32_t other = centre == 1 ? 2 : 1;
    int placed = 0;
    for (int cell = 0; cell < kCells; ++cell) {
      if ((RotationMoves::kCentre >> cell) & 1) {
        values[cell] = centre;
        continue;
      }
      values[cell] = other;
      if (++placed == 8) other = 6 - centre - other;
    }
    goals.push_back(*BoardFromValues(values));
  }
  return goals;
}

// The 24 cells in the original order on a 7x7 grid (inside a margin of one for the move
// names), each holding its value 1..3.
BoardLayout RotationPuzzle::Layout() {
  static constexpr int kPlaces[kCells][2] = {
      {0, 2}, {0, 4}, {1, 2}, {1, 4}, {2, 0}, {2, 1}, {2, 2}, {2, 3}, {2, 4}, {2, 5}, {2, 6}, {3, 2},
      {3, 4}, {4, 0}, {4, 1}, {4, 2}, {4, 3}, {4, 4}, {4, 5}, {4, 6}, {5, 2}, {5, 4}, {6, 2}, {6, 4}};
  BoardLayout layout;
  layout.width = 9;
  layout.height = 9;
  for (int cell = 0; cell < kCells; ++cell) {
    layout.cells.push_back({1.0 + kPlaces[cell][1], 1.0 + kPlaces[cell][0],
                            Cat("cell ", cell + 1), ""});
  }
  layout.symbols = {{1, "1", "#ffcdd2"}, {2, "2", "#c8e6c9"}, {3, "3", "#bbdefb"}};
  // Each move's name beside the end of its line that it pulls towards (A pulls column 3
  // up).
  static constexpr struct {
    char name;
    int row, column;
  } kMoveLabels[] = {{'A', -1, 2}, {'B', -1, 4}, {'C', 2, 7}, {'D', 4, 7},
                     {'E', 7, 4},  {'F', 7, 2},  {'G', 4, -1}, {'H', 2, -1}};
  for (const auto& m : kMoveLabels) {
    layout.labels.push_back({1.5 + m.column, 1.5 + m.row, std::string(1, m.name)});
  }
  // The centre: the 3x3 square of rows and columns 2..4, whose eight cells the goal fills.
  layout.regions.push_back({3.0, 3.0, 3.0, 3.0, "centre"});
  layout.hint = "Click two cells to swap them. The goal: the eight centre cells alike.";
  return layout;
}

std::vector<int> RotationPuzzle::Cells(const Instance& instance) {
  std::vector<int> cells;
  for (int cell = 0; cell < kCells; ++cell) cells.push_back(instance.state.Value(cell));
  return cells;
}

absl::StatusOr<RotationPuzzle::Instance> RotationPuzzle::FromCells(const Instance&,
                                                                   std::span<const int> cells) {
  auto board = BoardFromValues(std::vector<uint32_t>(cells.begin(), cells.end()));
  if (!board.ok()) return board.status();
  return Instance{{}, *board};
}

PUZZLEDB_REGISTER_PUZZLE(RotationPuzzle)

}  // namespace puzzledb
