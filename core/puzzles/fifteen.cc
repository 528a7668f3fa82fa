#include "core/puzzles/fifteen.h"

#include "core/puzzles/model_puzzle.h"
#include "core/sliding/pattern_guide.h"
#include "core/util/strings.h"

namespace puzzledb {
namespace {

std::string CellName(int cell) {
  return Cat("row ", cell / 4 + 1, ", column ", cell % 4 + 1);
}

}  // namespace

const std::array<uint64_t, 81> FifteenPuzzle::kDistanceCounts = {
    1, 2, 4, 10, 24, 54, 107, 212, 446, 946, 1948, 3938, 7808, 15544, 30821, 60842, 119000,
    231844, 447342, 859744, 1637383, 3098270, 5802411, 10783780, 19826318, 36142146,
    65135623, 116238056, 204900019, 357071928, 613926161, 1042022040, 1742855397,
    2873077198, 4660800459, 7439530828, 11668443776, 17976412262, 27171347953, 40271406380,
    58469060820, 83099401368, 115516106664, 156935291234, 208207973510, 269527755972,
    340163141928, 418170132006, 500252508256, 581813416256, 657076739307, 719872287190,
    763865196269, 784195801886, 777302007562, 742946121222, 683025093505, 603043436904,
    509897148964, 412039723036, 317373604363, 232306415924, 161303043901, 105730020222,
    65450375310, 37942606582, 20696691144, 10460286822, 4961671731, 2144789574, 868923831,
    311901840, 104859366, 29592634, 7766947, 1508596, 272198, 26638, 3406, 70, 17};

std::vector<FifteenBoard> FifteenPuzzle::Farthest() {
  // Brungger et al. 1999; Korf and Schultze 2005 (tests/golden/fifteen_80.txt), row-major.
  static constexpr std::array<std::array<int, kCells>, 17> kBoards = {{
      {0, 11, 9, 13, 12, 15, 10, 14, 3, 7, 6, 2, 4, 8, 5, 1},
      {0, 12, 9, 13, 15, 8, 10, 14, 11, 7, 6, 2, 4, 3, 5, 1},
      {0, 12, 9, 13, 15, 11, 10, 14, 3, 7, 2, 5, 4, 8, 6, 1},
      {0, 12, 9, 13, 15, 11, 10, 14, 3, 7, 5, 6, 4, 8, 2, 1},
      {0, 12, 9, 13, 15, 11, 10, 14, 3, 7, 6, 2, 4, 8, 5, 1},
      {0, 12, 9, 13, 15, 11, 10, 14, 7, 8, 5, 6, 4, 3, 2, 1},
      {0, 12, 9, 13, 15, 11, 10, 14, 7, 8, 6, 2, 4, 3, 5, 1},
      {0, 12, 9, 13, 15, 11, 10, 14, 8, 3, 6, 2, 4, 7, 5, 1},
      {0, 12, 9, 13, 15, 11, 14, 10, 3, 8, 6, 2, 4, 7, 5, 1},
      {0, 12, 10, 13, 15, 11, 9, 14, 7, 3, 6, 2, 4, 8, 5, 1},
      {0, 12, 10, 13, 15, 11, 14, 9, 3, 7, 2, 5, 4, 8, 6, 1},
      {0, 12, 10, 13, 15, 11, 14, 9, 3, 7, 6, 2, 4, 8, 5, 1},
      {0, 12, 10, 13, 15, 11, 14, 9, 7, 8, 6, 2, 4, 3, 5, 1},
      {0, 12, 11, 13, 15, 14, 10, 9, 3, 7, 6, 2, 4, 8, 5, 1},
      {0, 12, 14, 13, 15, 11, 9, 10, 3, 7, 6, 2, 4, 8, 5, 1},
      {0, 12, 14, 13, 15, 11, 9, 10, 8, 3, 6, 2, 4, 7, 5, 1},
      {0, 15, 9, 13, 11, 12, 10, 14, 3, 7, 6, 2, 4, 8, 5, 1},
  }};
  std::vector<State> boards;
  for (const auto& cells : kBoards) boards.push_back(*BoardFromCells(cells));
  return boards;
}

absl::StatusOr<FifteenBoard> FifteenPuzzle::BoardFromCells(const std::array<int, kCells>& cells) {
  FifteenBoard board;
  int seen_at[kCells];
  for (int& at : seen_at) at = -1;
  for (int cell = 0; cell < kCells; ++cell) {
    const int tile = cells[cell];
    if (tile < 0 || tile > 15) {
      return absl::InvalidArgumentError(Cat("cell ", cell + 1, " (", CellName(cell), ") holds ",
                                            tile, "; a cell holds 0..15 (0: the empty place)"));
    }
    if (seen_at[tile] >= 0) {
      return absl::InvalidArgumentError(
          Cat(tile == 0 ? std::string("the empty place (0)") : Cat("tile ", tile),
              " appears twice (cells ", seen_at[tile] + 1, " and ", cell + 1,
              "); a board holds each of 0..15 once"));
    }
    seen_at[tile] = cell;
    board.tiles |= static_cast<uint64_t>(tile) << (4 * cell);
    if (tile == 0) board.blank = cell;
  }
  return board;
}

absl::StatusOr<FifteenPuzzle::Instance> FifteenPuzzle::ParseCompact(std::string_view text) {
  text = StripWhitespace(text);
  std::array<int, kCells> cells{};
  const bool separated = text.find_first_of(", \t") != std::string_view::npos;
  if (!separated) {
    if (text.size() != kCells) {
      return absl::InvalidArgumentError(
          Cat("a board is 16 hexadecimal digits (0 the empty place, a..f for 10..15) or 16 "
              "numbers separated by commas; got ", text.size(), " characters"));
    }
    for (int cell = 0; cell < kCells; ++cell) {
      const char c = text[cell];
      int v = -1;
      if (c >= '0' && c <= '9') v = c - '0';
      if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
      if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
      if (v < 0) {
        return absl::InvalidArgumentError(
            Cat("cell ", cell + 1, " (", CellName(cell), ") holds ",
                QuoteInput(text.substr(cell, 1)),
                "; a cell is a hexadecimal digit 0..f (0: the empty place)"));
      }
      cells[cell] = v;
    }
  } else {
    std::string spaced(text);
    for (char& c : spaced) {
      if (c == ',') c = ' ';
    }
    auto numbers = ParseNumbers(spaced);
    if (!numbers.ok()) return numbers.status();
    if (numbers->size() != kCells) {
      return absl::InvalidArgumentError(
          Cat("a board has 16 cells, got ", numbers->size(), " numbers"));
    }
    for (int cell = 0; cell < kCells; ++cell) {
      cells[cell] = (*numbers)[cell] > 15 ? 16 : static_cast<int>((*numbers)[cell]);
      if (cells[cell] > 15) {
        return absl::InvalidArgumentError(Cat("cell ", cell + 1, " (", CellName(cell),
                                              ") holds ", (*numbers)[cell],
                                              "; a cell holds 0..15 (0: the empty place)"));
      }
    }
  }
  auto board = BoardFromCells(cells);
  if (!board.ok()) return board.status();
  return Instance{{}, *board};
}

std::string FifteenPuzzle::FormatCompact(const Instance& instance) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string digits;
  for (int cell = 0; cell < kCells; ++cell) digits += kHex[instance.state.Tile(cell)];
  return digits;
}

std::string FifteenPuzzle::FormatOriginal(const std::vector<Instance>& instances) {
  std::string out = Cat(instances.size(), "\n");
  for (const Instance& instance : instances) {
    for (int row = 0; row < 4; ++row) {
      for (int column = 0; column < 4; ++column) {
        if (column > 0) out += ' ';
        out += std::to_string(instance.state.Tile(row * 4 + column));
      }
      out += '\n';
    }
  }
  return out;
}

std::vector<ParsedCase<FifteenPuzzle::Instance>> FifteenPuzzle::ParseOriginal(
    std::string_view text) {
  std::vector<ParsedCase<Instance>> cases;
  const InputLines lines(text);
  int at = lines.SkipBlank(1);
  if (at > lines.count()) {
    cases.push_back({1, 1, InputError(0, 1, "the input is empty; the first line must be the "
                                            "number of boards N")});
    return cases;
  }
  const int count_line = at;
  auto count = ParseNumbers(lines.line(at));
  if (!count.ok() || count->size() != 1) {
    cases.push_back({1, at, InputError(0, at, Cat("the first line must be the number of boards "
                                                  "N, found ", QuoteInput(lines.line(at))))});
    return cases;
  }
  const uint32_t boards = (*count)[0];
  auto announced = [&] {
    return Cat("line ", count_line, " announces ", boards, boards == 1 ? " board" : " boards");
  };
  at = lines.SkipBlank(at + 1);
  for (uint32_t n = 1; n <= boards; ++n) {
    const int case_number = static_cast<int>(n);
    if (at > lines.count()) {
      cases.push_back({case_number, lines.count(),
                       InputError(case_number, lines.count(),
                                  Cat("the input ended after ", n - 1, " boards, and ",
                                      announced()))});
      return cases;
    }
    ParsedCase<Instance> parsed{case_number, at, absl::UnknownError("unset")};
    std::array<int, kCells> cells{};
    absl::Status problem;
    int row = 0;
    for (; row < 4 && at <= lines.count(); ++row) {
      auto numbers = ParseNumbers(lines.line(at));
      if (problem.ok() && !numbers.ok()) {
        problem = InputError(case_number, at,
                             Cat("row ", row + 1, " of the board: ", Message(numbers.status())));
      } else if (problem.ok() && numbers->size() != 4) {
        problem = InputError(case_number, at,
                             Cat("row ", row + 1, " of the board has ", numbers->size(),
                                 " numbers, expected 4: ", QuoteInput(lines.line(at))));
      } else if (problem.ok()) {
        for (int c = 0; c < 4; ++c) {
          const uint32_t v = (*numbers)[c];
          if (v > 15 && problem.ok()) {
            problem = InputError(case_number, at,
                                 Cat("row ", row + 1, ", column ", c + 1, " holds ", v,
                                     "; a cell holds 0..15 (0: the empty place)"));
          }
          cells[row * 4 + c] = static_cast<int>(v);
        }
      }
      at = lines.SkipBlank(at + 1);
    }
    if (row < 4) {
      parsed.instance = InputError(case_number, lines.count(),
                                   Cat("the input ended inside the board: ", row,
                                       " of 4 rows, and ", announced()));
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
                     InputError(0, at, Cat("more input after the ", boards,
                                           boards == 1 ? " board" : " boards", " that line ",
                                           count_line, " announces: ",
                                           QuoteInput(lines.line(at))))});
  }
  return cases;
}

std::string FifteenPuzzle::FormatOriginalAnswer(const Instance& instance,
                                                const FifteenPuzzle& model,
                                                const Solution& solution) {
  if (solution.outcome != Outcome::kSolved) return "This puzzle is not solvable.\n";
  std::string out;
  for (uint8_t m : solution.moves) out += model.MoveName(instance.state, m);
  return out + "\n";
}

// Each cell in four characters: " 12 ", the empty place as "  . ", a cell that changed
// since `before` in brackets ("[12]").
std::string FifteenPuzzle::Draw(const Instance& now, const Instance* before) {
  std::string out;
  for (int row = 0; row < 4; ++row) {
    for (int column = 0; column < 4; ++column) {
      const int cell = row * 4 + column;
      const int tile = now.state.Tile(cell);
      const bool changed = before != nullptr && before->state.Tile(cell) != tile;
      std::string label = tile == 0 ? std::string(".") : std::to_string(tile);
      if (label.size() < 2) label = " " + label;
      out += changed ? Cat("[", label, "]") : Cat(" ", label, " ");
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += '\n';
  }
  return out;
}

absl::StatusOr<FifteenPuzzle::Instance> FifteenPuzzle::FromCells(const Instance&,
                                                                 std::span<const int> cells) {
  std::array<int, kCells> values{};
  for (int cell = 0; cell < kCells; ++cell) values[cell] = cells[cell];
  auto board = BoardFromCells(values);
  if (!board.ok()) return board.status();
  return Instance{{}, *board};
}

PUZZLEDB_REGISTER_PUZZLE(FifteenPuzzle)

}  // namespace puzzledb
