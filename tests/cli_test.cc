// The real puzzledb binary on the golden samples (tests/golden): exactly the expected
// original output.
#include <algorithm>
#include <string>

#include "core/puzzle.h"
#include "gtest/gtest.h"
#include "google/protobuf/util/json_util.h"
#include "puzzledb/v1/solver.pb.h"
#include "tests/test_util.h"

namespace puzzledb {
namespace {

using testing::Golden;
using testing::RunCommand;

struct Sample {
  std::string name;
  std::string puzzle;
};

void PrintTo(const Sample& sample, std::ostream* os) { *os << sample.name; }

class GoldenSampleTest : public ::testing::TestWithParam<Sample> {};

TEST_P(GoldenSampleTest, PrintsTheExpectedOutput) {
  const Sample& sample = GetParam();
  const auto result = RunCommand(std::string(PUZZLEDB_CLI) + " solve --puzzle " + sample.puzzle,
                                 Golden(sample.name + ".in"));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, Golden(sample.name + ".out"));
  EXPECT_EQ(result.err, "");
}

INSTANTIATE_TEST_SUITE_P(
    Samples, GoldenSampleTest,
    ::testing::Values(Sample{"knight_statement", "knight"}, Sample{"knight", "knight"},
                      Sample{"knobs_9001", "knobs"}, Sample{"knobs_9002", "knobs"},
                      Sample{"knobs_9003", "knobs"}, Sample{"knobs_9101_unsolvable", "knobs"},
                      Sample{"rotation", "rotation"}, Sample{"rotation_statement", "rotation"},
                      Sample{"eight", "eight"}, Sample{"eight_statement", "eight"},
                      Sample{"fifteen_statement", "fifteen"}),
    [](const auto& info) { return info.param.name; });

std::vector<v1::SolveResponse> ParseJsonLines(const std::string& text) {
  std::vector<v1::SolveResponse> responses;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    v1::SolveResponse response;
    const auto status = google::protobuf::util::JsonStringToMessage(
        text.substr(start, end - start), &response);
    EXPECT_TRUE(status.ok()) << text.substr(start, end - start);
    responses.push_back(response);
    start = end + 1;
  }
  return responses;
}

TEST(CliJsonTest, OneObjectPerCaseInProtobufJson) {
  const auto result =
      RunCommand(std::string(PUZZLEDB_CLI) + " solve --puzzle knight --json", Golden("knight.in"));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto responses = ParseJsonLines(result.out);
  ASSERT_EQ(responses.size(), 10u);
  EXPECT_EQ(responses[0].outcome(), v1::SOLVED);
  EXPECT_EQ(responses[0].distance(), 3u);
  EXPECT_EQ(responses[0].id(), 1u);
  EXPECT_EQ(responses[0].source(), v1::SEARCH);
  EXPECT_EQ(std::vector<std::string>(responses[0].moves().begin(), responses[0].moves().end()),
            (std::vector<std::string>{"c1", "a2", "c3"}));
  EXPECT_FALSE(responses[0].has_final_state());  // one goal: nothing to tell
  EXPECT_EQ(responses[6].outcome(), v1::NOT_WITHIN_LIMIT);  // beyond the original 15
  EXPECT_NE(result.out.find(R"("moves":["c1","a2","c3"])"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find(R"("distance":3})"), std::string::npos) << result.out;
}

TEST(CliJsonTest, MaxMovesZeroLiftsTheKnightCap) {
  // The 20-move board of knight_exact.txt.
  const auto result = RunCommand(std::string(PUZZLEDB_CLI) +
                                     " solve --puzzle knight --json --max-moves 0",
                                 "1\n01110\n01010\n01001\n011*1\n00110\n");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto responses = ParseJsonLines(result.out);
  ASSERT_EQ(responses.size(), 1u);
  EXPECT_EQ(responses[0].outcome(), v1::SOLVED);
  EXPECT_EQ(responses[0].distance(), 20u);
  EXPECT_EQ(responses[0].moves(0), "c2");
}

TEST(CliJsonTest, RotationReportsTheCentreAndKnobsTheUnsolvable) {
  auto result = RunCommand(std::string(PUZZLEDB_CLI) + " solve --puzzle rotation --json",
                           Golden("rotation_statement.in"));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto responses = ParseJsonLines(result.out);
  ASSERT_EQ(responses.size(), 1u);
  EXPECT_EQ(responses[0].distance(), 2u);
  EXPECT_EQ(responses[0].moves(1), "C");
  EXPECT_EQ(responses[0].final_state().rotation().cells(6), 2u);
  result = RunCommand(std::string(PUZZLEDB_CLI) + " solve --puzzle knobs --json",
                      Golden("knobs_9101_unsolvable.in"));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  responses = ParseJsonLines(result.out);
  ASSERT_EQ(responses.size(), 1u);
  EXPECT_EQ(responses[0].outcome(), v1::UNSOLVABLE);
}

TEST(CliUsageTest, UnknownPuzzleAndMissingArgumentsAreUsageErrors) {
  auto result = RunCommand(std::string(PUZZLEDB_CLI) + " solve --puzzle chess", "");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("chess"), std::string::npos) << result.err;
  result = RunCommand(std::string(PUZZLEDB_CLI) + " solve", "");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("--puzzle"), std::string::npos) << result.err;
  result = RunCommand(std::string(PUZZLEDB_CLI) + " solve --puzzle knight --max-moves -3", "");
  EXPECT_EQ(result.exit_code, 2);
  result = RunCommand(std::string(PUZZLEDB_CLI) + " solve --puzzle knight --show --json", "");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("--json excludes --show"), std::string::npos) << result.err;
}

// --show draws every board of the solution as docs/PUZZLES.md does, the moved cells in
// brackets.
TEST(CliShowTest, DrawsEveryBoardWithTheMovedCellsMarked) {
  auto result = RunCommand(std::string(PUZZLEDB_CLI) + " solve --puzzle eight --show", "283104765\n");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out,
            "4\n"
            "start:\n   2  8  3\n   1  0  4\n   7  6  5\n"
            "move 1 of 4: U\n   2 [0] 3\n   1 [8] 4\n   7  6  5\n"
            "move 2 of 4: L\n  [0][2] 3\n   1  8  4\n   7  6  5\n"
            "move 3 of 4: D\n  [1] 2  3\n  [0] 8  4\n   7  6  5\n"
            "move 4 of 4: R\n   1  2  3\n  [8][0] 4\n   7  6  5\n\n");
  // The knight: labelled rows and columns; each jump swaps the empty cell and one knight.
  result = RunCommand(std::string(PUZZLEDB_CLI) + " solve --puzzle knight --show",
                      "1\n11111\n01111\n00*11\n00001\n00000\n");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "0\nstart:\n    a  b  c  d  e\n 1  1  1  1  1  1\n 2  0  1  1  1  1\n"
                        " 3  0  0  *  1  1\n 4  0  0  0  0  1\n 5  0  0  0  0  0\n\n");
  // The rotation game's cross and the knobs' row: two cells or knobs change per move.
  for (const auto& [puzzle, file] : {std::pair{"rotation", "rotation_statement.in"},
                                     std::pair{"knobs", "knobs_9001.in"}}) {
    result = RunCommand(std::string(PUZZLEDB_CLI) + " solve --show --puzzle " + puzzle,
                        Golden(file));
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const size_t moves = result.out.find("move 1 of ");
    ASSERT_NE(moves, std::string::npos) << result.out;
    const std::string board = result.out.substr(moves, result.out.find("move 2 of ") - moves);
    const auto marks = std::count(board.begin(), board.end(), '[');
    if (std::string(puzzle) == "knobs") {
      EXPECT_GE(marks, 1);  // the knob turned, and the one it drives unless that was at 4
      EXPECT_LE(marks, 2);
    } else {
      // A move shifts a line of seven; the cells whose value changed are marked.
      EXPECT_GE(marks, 2) << board;
      EXPECT_LE(marks, 7) << board;
    }
  }
}

}  // namespace
}  // namespace puzzledb

namespace puzzledb {
namespace {

// `puzzledb puzzles` lists every registered puzzle, and each example it prints solves.
TEST(CliPuzzlesTest, ListsEveryPuzzleWithAnExampleThatSolves) {
  using testing::RunCommand;
  const auto listed = RunCommand(std::string(PUZZLEDB_CLI) + " puzzles --json", "");
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  v1::ListPuzzlesResponse puzzles;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(listed.out, &puzzles).ok()) << listed.out;
  ASSERT_EQ(static_cast<size_t>(puzzles.puzzles_size()), Puzzles().size());
  for (const v1::PuzzleInfo& p : puzzles.puzzles()) {
    SCOPED_TRACE(p.name());
    EXPECT_EQ(p.name(), FindPuzzle(p.name())->name());
    const Puzzle& puzzle = *FindPuzzle(p.name());
    const std::string input = puzzle.FormatOriginal(std::vector<Position>{*puzzle.ParseCompact(p.example())});
    const auto solved = RunCommand(std::string(PUZZLEDB_CLI) + " solve --max-moves 0 --puzzle " + p.name(),
                                   input);
    EXPECT_EQ(solved.exit_code, 0) << solved.err;
  }
  const auto text = RunCommand(std::string(PUZZLEDB_CLI) + " puzzles", "");
  EXPECT_NE(text.out.find("compact form: "), std::string::npos);
  // A move without a name at the example is said why.
  EXPECT_NE(text.out.find("? cannot be made there"), std::string::npos) << text.out;
  // Each puzzle's own move limit is listed where it has one, and nowhere else.
  for (const v1::PuzzleInfo& p : puzzles.puzzles()) {
    const size_t at = text.out.find(p.name() + "  ");
    ASSERT_NE(at, std::string::npos) << p.name();
    const size_t next = text.out.find("\n", text.out.find("  tables: ", at));
    const std::string entry = text.out.substr(at, next - at);
    const std::string limit = "  max moves: " + std::to_string(p.default_max_moves()) + " unless";
    EXPECT_EQ(entry.find(limit) != std::string::npos, p.default_max_moves() > 0) << entry;
    EXPECT_EQ(entry.find("max moves") != std::string::npos, p.default_max_moves() > 0) << entry;
  }
}

// `puzzledb tables` says what each table holds in words a reader can check: counts with
// separators, an index larger than its states said so, pattern tables as bounds.
TEST(CliTablesTest, SaysWhatEachTableHolds) {
  using testing::RunCommand;
  const auto listed = RunCommand(std::string(PUZZLEDB_CLI) + " --db " + PUZZLEDB_TEST_DB + " tables", "");
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_NE(listed.out.find("knight  AVAILABLE  33,803,998 states in an index of 35,154,028, "
                            "complete, largest distance 39, "),
            std::string::npos)
      << listed.out;
  EXPECT_NE(listed.out.find("eight  AVAILABLE  181,440 states, complete, largest distance 30, "),
            std::string::npos)
      << listed.out;
  EXPECT_NE(listed.out.find("fifteen-6-6-3  AVAILABLE  pattern tables, 11,534,880 entries, "
                            "largest bound "),
            std::string::npos)
      << listed.out;
  EXPECT_EQ(listed.out.find("to depth 0"), std::string::npos) << listed.out;
}

}  // namespace
}  // namespace puzzledb
