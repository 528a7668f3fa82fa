// Every refused input: the run stops with exit status 2 after the answers to the cases
// before the bad one, and the message names the case, the line and the rule.
#include <sstream>
#include <string>

#include "client/commands.h"
#include "gtest/gtest.h"
#include "tests/test_util.h"

namespace puzzledb {
namespace {

struct CommandRun {
  int status;
  std::string out;
  std::string err;
};

CommandRun Solve(const std::string& puzzle, const std::string& input, bool json = false) {
  SolveCommandOptions options;
  options.puzzle = puzzle;
  options.json = json;
  std::ostringstream out, err;
  const int status = RunSolveCommand(options, input, out, err);
  return {status, out.str(), err.str()};
}

struct BadInput {
  std::string label;
  std::string puzzle;
  std::string input;
  std::string expected_out;  // the answers before the bad case
  std::string expected_err;
};

void PrintTo(const BadInput& bad, std::ostream* os) { *os << bad.puzzle << "/" << bad.label; }

class BadInputTest : public ::testing::TestWithParam<BadInput> {};

TEST_P(BadInputTest, IsRefusedWithAPreciseMessage) {
  const BadInput& bad = GetParam();
  const CommandRun run = Solve(bad.puzzle, bad.input);
  EXPECT_EQ(run.status, 2);
  EXPECT_EQ(run.out, bad.expected_out);
  EXPECT_EQ(run.err, "puzzledb: " + bad.expected_err + "\n");
}

const std::string kGoalBoard = "11111\n01111\n00*11\n00001\n00000\n";
const std::string kKnobs9001 = testing::Golden("knobs_9001.in");

std::string KnobsWithLine(int line, const std::string& replacement) {
  std::istringstream in(kKnobs9001);
  std::string text, row;
  for (int n = 1; std::getline(in, row); ++n) text += (n == line ? replacement : row) + "\n";
  return text;
}

INSTANTIATE_TEST_SUITE_P(
    Knight, BadInputTest,
    ::testing::Values(
        BadInput{"WrongCharacter", "knight", "2\n" + kGoalBoard + "11111\n01x11\n00*11\n00001\n00000\n",
                 "0\n",
                 "case 2, line 8: cell c2 holds 'x'; a cell holds '1' (white knight), '0' (black "
                 "knight) or '*' (empty)"},
        BadInput{"ThirteenWhiteKnights", "knight", "1\n11111\n11111\n00*11\n00001\n00000\n", "",
                 "case 1, line 2: the board has 13 white knights '1' and 11 black knights '0'; it "
                 "must have 12 of each"},
        BadInput{"TwoEmptyCells", "knight", "1\n11111\n01111\n00*11\n0000*\n00000\n", "",
                 "case 1, line 2: the board has 2 empty cells '*'; it must have exactly 1"},
        BadInput{"RowTooLong", "knight", "1\n11111\n011110\n00*11\n00001\n00000\n", "",
                 "case 1, line 3: row 2 of the board has 6 characters, expected 5: '011110'"},
        BadInput{"TruncatedBoard", "knight", "2\n" + kGoalBoard + "11111\n01111\n", "0\n",
                 "case 2, line 8: the input ended inside the board: 2 of 5 rows, and line 1 "
                 "announces 2 boards"},
        BadInput{"FewerBoardsThanAnnounced", "knight", "3\n" + kGoalBoard + kGoalBoard, "0\n0\n",
                 "case 3, line 11: the input ended after 2 of the 3 boards that line 1 announces"},
        BadInput{"MoreBoardsThanAnnounced", "knight", "1\n" + kGoalBoard + kGoalBoard, "0\n",
                 "line 7: more input after the 1 board that line 1 announces: '11111'"},
        BadInput{"CountNotANumber", "knight", "two\n" + kGoalBoard, "",
                 "line 1: the first line must be the number of boards T, found 'two'"},
        BadInput{"EmptyInput", "knight", "",  "",
                 "line 1: the input is empty; the first line must be the number of boards T"}),
    [](const auto& info) { return info.param.label; });

INSTANTIATE_TEST_SUITE_P(
    Knobs, BadInputTest,
    ::testing::Values(
        BadInput{"StateAboveFour", "knobs", KnobsWithLine(3, "5 5 4 7 11"), "",
                 "case 1, line 3: knob 3's state is 5; states are 1..4"},
        BadInput{"StateZero", "knobs", KnobsWithLine(1, "0 10 8 12 7"), "",
                 "case 1, line 1: knob 1's state is 0; states are 1..4"},
        BadInput{"WiringAboveTwelve", "knobs", KnobsWithLine(2, "3 4 13 8 3"), "",
                 "case 1, line 2: knob 2's wiring for state 2 is 13; knob numbers are 1..12"},
        BadInput{"WiringZero", "knobs", KnobsWithLine(2, "3 0 4 8 3"), "",
                 "case 1, line 2: knob 2's wiring for state 1 is 0; knob numbers are 1..12"},
        BadInput{"WiringToItself", "knobs", KnobsWithLine(4, "1 7 9 4 5"), "",
                 "case 1, line 4: knob 4's wiring for state 3 points at knob 4 itself; a turn "
                 "must also advance another knob"},
        BadInput{"TooManyNumbers", "knobs", KnobsWithLine(5, "3 3 8 2 7 9"), "",
                 "case 1, line 5: knob 5's line has 6 numbers, expected 5: its state (1..4) and "
                 "the knobs it advances from states 1, 2, 3, 4"},
        BadInput{"TooFewNumbers", "knobs", KnobsWithLine(5, "3 3 8 2"), "",
                 "case 1, line 5: knob 5's line has 4 numbers, expected 5: its state (1..4) and "
                 "the knobs it advances from states 1, 2, 3, 4"},
        BadInput{"NotANumber", "knobs", KnobsWithLine(6, "1 11 nine 1 12"), "",
                 "case 1, line 6: knob 6: 'nine' is not a whole number"},
        BadInput{"Truncated", "knobs", kKnobs9001.substr(0, kKnobs9001.find("3 4 11 1 8")), "",
                 "case 1, line 6: the input ended after 6 of the 12 knob lines of this instance"},
        BadInput{"AllKnobsOnOneLine", "knobs",
                 "3 3 7 2 6 2 4 10 8 3 1 8 3 7 9 1 7 9 4 5 3 3 8 2 7 3 11 4 5 2 1 11 9 1 12 3 6 12 "
                 "10 3 4 11 3 4 7 3 6 12 10 5 4 4 8 9 7 2 6 1 9 11\n",
                 "",
                 "case 1, line 1: knob 1's line has 60 numbers, expected 5: its state (1..4) and "
                 "the knobs it advances from states 1, 2, 3, 4 (an instance is 12 lines, one per "
                 "knob)"},
        BadInput{"SecondInstanceTruncated", "knobs", kKnobs9001 + "1 2 3 4 5\n",
                 "10\n2 2 3 11 11 11 11 5 7 12\n",
                 "case 2, line 13: the input ended after 1 of the 12 knob lines of this instance"}),
    [](const auto& info) { return info.param.label; });

const std::string kRotationLine = "1 1 1 1 3 2 3 2 3 1 3 2 2 3 1 2 2 2 3 1 2 1 3 3\n";

INSTANTIATE_TEST_SUITE_P(
    Rotation, BadInputTest,
    ::testing::Values(
        BadInput{"ValueFour", "rotation", kRotationLine + "1 1 1 1 3 2 3 2 3 1 3 2 2 3 1 2 2 2 3 1 2 1 3 4\n0\n",
                 "AC\n2\n", "case 2, line 2: cell 23 holds 4; cells hold 1, 2 or 3"},
        BadInput{"ValueZero", "rotation", "0 1 1 1 3 2 3 2 3 1 3 2 2 3 1 2 2 2 3 1 2 1 3 3\n0\n", "",
                 "case 1, line 1: cell 0 holds 0; cells hold 1, 2 or 3"},
        BadInput{"TruncatedLine", "rotation", "1 1 1 1 3 2 3 2 3 1 3 2 2 3 1 2 2 2 3 1 2 1 3\n0\n",
                 "",
                 "case 1, line 1: the line has 23 numbers; a case is the 24 cells of the board on "
                 "one line, and a line '0' ends the input"},
        BadInput{"TooManyNumbers", "rotation", "1 1 1 1 3 2 3 2 3 1 3 2 2 3 1 2 2 2 3 1 2 1 3 3 1\n0\n",
                 "",
                 "case 1, line 1: the line has 25 numbers; a case is the 24 cells of the board on "
                 "one line, and a line '0' ends the input"},
        BadInput{"MissingTerminator", "rotation", kRotationLine, "AC\n2\n",
                 "line 1: the input ended without the line '0' that ends it (truncated input?)"},
        BadInput{"InputAfterTerminator", "rotation", kRotationLine + "0\n" + kRotationLine,
                 "AC\n2\n",
                 "line 3: more input after the line '0' (line 2) that ends the input: '1 1 1 1 3 2 "
                 "3 2 3 1 3 2 2 3 1 2 2 2 3 1 ...'"},
        BadInput{"NotANumber", "rotation", "1 1 1 1 3 2 3 2 3 1 3 2 2 3 1 2 2 2 3 1 2 1 3 -3\n0\n",
                 "", "case 1, line 1: '-3' is not a whole number"}),
    [](const auto& info) { return info.param.label; });

INSTANTIATE_TEST_SUITE_P(
    Eight, BadInputTest,
    ::testing::Values(
        BadInput{"NineInACell", "eight", "283104765\n283104769\n", "4\n",
                 "case 2, line 2: cell 9 (row 3, column 3) holds '9'; a cell holds a digit 0..8 "
                 "(0: the empty place): '283104769'"},
        BadInput{"DigitTwice", "eight", "\n\n123804766\n", "",
                 "case 1, line 3: digit 6 appears twice (cells 8 and 9); a board holds each of "
                 "0..8 once: '123804766'"},
        BadInput{"ShortLine", "eight", "12380476\n", "",
                 "case 1, line 1: a board has 9 cells, got 8 characters: '12380476'"},
        BadInput{"Letters", "eight", "12380476x\n", "",
                 "case 1, line 1: cell 9 (row 3, column 3) holds 'x'; a cell holds a digit 0..8 "
                 "(0: the empty place): '12380476x'"},
        BadInput{"Empty", "eight", "\n", "",
                 "line 1: the input is empty; each line is a board of 9 digits, row-major, 0 for "
                 "the empty place"}),
    [](const auto& info) { return info.param.label; });

INSTANTIATE_TEST_SUITE_P(
    Fifteen, BadInputTest,
    ::testing::Values(
        BadInput{"SixteenInACell", "fifteen",
                 "2\n2 3 4 0\n1 5 7 8\n9 6 10 12\n13 14 11 15\n1 2 3 4\n5 6 7 8\n9 10 11 12\n"
                 "13 14 15 16\n",
                 "LLLDRDRDR\n",
                 "case 2, line 9: row 4, column 4 holds 16; a cell holds 0..15 (0: the empty "
                 "place)"},
        BadInput{"TileTwice", "fifteen", "1\n1 2 3 4\n5 6 7 8\n9 10 11 12\n13 14 15 15\n", "",
                 "case 1, line 2: tile 15 appears twice (cells 15 and 16); a board holds each of "
                 "0..15 once"},
        BadInput{"ShortRow", "fifteen", "1\n1 2 3 4\n5 6 7 8\n9 10 11\n13 14 15 0\n", "",
                 "case 1, line 4: row 3 of the board has 3 numbers, expected 4: '9 10 11'"},
        BadInput{"FewerBoards", "fifteen", "2\n1 2 3 4\n5 6 7 8\n9 10 11 12\n13 14 15 0\n", "\n",
                 "case 2, line 5: the input ended after 1 boards, and line 1 announces 2 boards"},
        BadInput{"NoCount", "fifteen", "1 2 3 4\n", "",
                 "line 1: the first line must be the number of boards N, found '1 2 3 4'"},
        BadInput{"Empty", "fifteen", "\n", "",
                 "line 1: the input is empty; the first line must be the number of boards N"}),
    [](const auto& info) { return info.param.label; });

// JSON mode answers every good case and gives the bad one an object with "error".
TEST(BadInputJsonTest, BadCaseGetsAnErrorObjectAndTheRestAreAnswered) {
  const std::string input = kRotationLine + "1 1 1 1 3 2 3 2 3 1 3 2 2 3 1 2 2 2 3 1 2 1 3 9\n" +
                            kRotationLine + "0\n";
  const CommandRun run = Solve("rotation", input, /*json=*/true);
  EXPECT_EQ(run.status, 2);
  std::istringstream lines(run.out);
  std::string first, second, third;
  std::getline(lines, first);
  std::getline(lines, second);
  std::getline(lines, third);
  EXPECT_NE(first.find(R"("moves":["A","C"])"), std::string::npos) << first;
  EXPECT_EQ(second, R"({"id":"2","error":"case 2, line 2: cell 23 holds 9; cells hold 1, 2 or 3"})");
  EXPECT_NE(third.find(R"("id":"3")"), std::string::npos) << third;
  EXPECT_EQ(run.err, "");
}

// The binary itself: exit status 2, answers first, the error on stderr.
TEST(BadInputBinaryTest, ExitStatusTwoAfterTheEarlierAnswers) {
  const auto result = testing::RunCommand(std::string(PUZZLEDB_CLI) + " solve --puzzle knight",
                                          "2\n" + kGoalBoard + "11111\n01111\n00*11\n");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.out, "0\n");
  EXPECT_NE(result.err.find("case 2"), std::string::npos) << result.err;
}

TEST(BadInputBinaryTest, BinaryGarbageIsRefusedNotCrashedOn) {
  std::string garbage = "3\n";
  for (int i = 0; i < 4096; ++i) garbage += static_cast<char>((i * 131) % 256);
  for (const char* puzzle : {"knight", "knobs", "rotation", "eight", "fifteen"}) {
    const auto result = testing::RunCommand(
        std::string(PUZZLEDB_CLI) + " solve --puzzle " + puzzle, garbage);
    EXPECT_EQ(result.exit_code, 2) << puzzle << ": " << result.err;
    EXPECT_NE(result.err.find("line"), std::string::npos) << result.err;
  }
}

}  // namespace
}  // namespace puzzledb
