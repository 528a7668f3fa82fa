// Puzzles as data (core/definition/): the reader of definition files, read as the
// specification of docs/PUZZLES.md says. The samples read and, searched breadth-first here
// with nothing but Definition::Apply, answer their golden cases exactly (distance and the
// lexicographically smallest moves in canonical order); every rule a file can break is
// refused naming the file, the line and the rule.
#include <algorithm>
#include <map>
#include <set>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/defined/defined_search.h"
#include "core/defined/defined_symmetry.h"
#include "core/definition/defined_index.h"
#include "core/definition/projection.h"
#include "core/definition/read_definition.h"
#include "core/util/strings.h"
#include "gtest/gtest.h"
#include "tests/answer_line.h"
#include "tests/definition_brute_force.h"
#include "tests/test_util.h"

namespace puzzledb {
namespace definition_test {

using testing::BruteForce;

std::string SampleText(const std::string& name) {
  return testing::ReadFile(std::string(PUZZLEDB_GOLDEN_DIR) + "/definitions/" + name);
}

Definition Read(const std::string& file) {
  auto read = ReadDefinition(SampleText(file), file);
  EXPECT_TRUE(read.ok()) << read.status();
  return read.ok() ? *std::move(read) : Definition();
}

std::vector<std::string> MoveNames(const Definition& d) {
  std::vector<std::string> names;
  for (const DefinedMove& m : d.moves()) names.push_back(m.name);
  return names;
}

TEST(DefinitionTest, TheSamplesRead) {
  const Definition slide = Read("slide32.tws");
  EXPECT_EQ(slide.title(), "Slide32");
  ASSERT_EQ(slide.sets().size(), 1u);
  EXPECT_EQ(slide.sets()[0].name, "T");
  EXPECT_EQ(slide.sets()[0].size, 6);
  EXPECT_EQ(MoveNames(slide), (std::vector<std::string>{"U", "D", "L", "R"}));
  EXPECT_EQ(slide.moves()[0].blocks.size(), 3u) << "three guarded blocks, one move";
  EXPECT_TRUE(slide.moves()[0].guarded);

  // Powers: quarter turns bring their half turn and inverse, in canonical order.
  const Definition cube = Read("cube2urf.tws");
  EXPECT_EQ(MoveNames(cube),
            (std::vector<std::string>{"U", "U2", "U'", "R", "R2", "R'", "F", "F2", "F'"}));
  EXPECT_EQ(cube.FormatCompact(cube.goals()[0]), "1 2 3 4 5 6 7 8 / 0 0 0 0 0 0 0 0");
  // A flip of order 2 brings nothing more.
  EXPECT_EQ(MoveNames(Read("pancake5.tws")), (std::vector<std::string>{"F2", "F3", "F4", "F5"}));
}

// The samples' golden cases, answered by the test's own search over Definition::Apply.
TEST(DefinitionTest, TheSamplesAnswerTheirGoldenCases) {
  struct Case {
    std::string name;
    size_t positions;
    int farthest;
  };
  for (const Case& c : {Case{"slide32", 360, 21}, Case{"pancake5", 120, 5}, Case{"dials3", 32, -1}}) {
    const Definition d = Read(c.name + ".tws");
    const BruteForce all(d);
    EXPECT_EQ(all.size(), c.positions) << c.name;
    if (c.farthest >= 0) {
      EXPECT_EQ(all.farthest(), c.farthest) << c.name;
    }
    std::istringstream in(SampleText(c.name + ".in"));
    std::istringstream want(SampleText(c.name + ".out"));
    std::string line, expected;
    int cases = 0;
    while (std::getline(in, line)) {
      ASSERT_TRUE(std::getline(want, expected)) << c.name << ": more cases than answers";
      const auto state = d.ParseCompact(line);
      ASSERT_TRUE(state.ok()) << c.name << ": " << line << ": " << state.status();
      EXPECT_EQ(d.FormatCompact(*state), line) << "the compact form reads back";
      EXPECT_EQ(all.Answer(*state), expected) << c.name << ": " << line;
      ++cases;
    }
    EXPECT_GT(cases, 0) << c.name;
  }
}

// Guarded moves with their ways back: each block of slide32 (the blank's steps) is undone
// by a block whose guard follows from its own, so its table keeps 2 bits a state; a strip
// whose blank moves left only has blocks no block undoes.
TEST(DefinitionTest, BlocksAreUndoneWhereTheirWaysBackAreBlocks) {
  auto slide = ReadDefinition(SampleText("slide32.tws"), "slide32.tws");
  ASSERT_TRUE(slide.ok()) << slide.status();
  const CompiledMoves moves(*slide);
  ASSERT_TRUE(moves.guarded());
  EXPECT_TRUE(moves.undirected());
  const testing::BruteForce all(*slide);
  for (int b = 0; b < moves.block_count(); ++b) {
    const int undo = moves.InverseBlock(b);
    ASSERT_GE(undo, 0) << b;
    // Wherever b applies, undo applies to its result and gives the state back.
    for (const DefinedState& s : all.states()) {
      if (!moves.Holds(b, s.data())) continue;
      DefinedState after(s.size()), back(s.size());
      moves.Transform(b, s.data(), after.data());
      ASSERT_TRUE(moves.Holds(undo, after.data())) << b;
      moves.Transform(undo, after.data(), back.data());
      ASSERT_EQ(back, s) << b;
    }
  }
  auto strip = ReadDefinition(
      "Set S 3 1\nSolved\nS\n1 2 3\nEnd\n"
      "Move L\nIf S 3 3\nS\n1 3 2\nEnd\nMove L\nIf S 2 3\nS\n2 1 3\nEnd\n",
      "strip.tws");
  ASSERT_TRUE(strip.ok()) << strip.status();
  const CompiledMoves one_way(*strip);
  EXPECT_FALSE(one_way.undirected());
  EXPECT_EQ(one_way.InverseBlock(0), -1);
}

TEST(DefinitionTest, MoveSequencesStartAtTheGoal) {
  const Definition cube = Read("cube2urf.tws");
  const auto turned = cube.ParseMoves("U U'");
  ASSERT_TRUE(turned.ok()) << turned.status();
  EXPECT_TRUE(cube.IsGoal(*turned));
  const auto four = cube.ParseMoves("R R R R");
  ASSERT_TRUE(four.ok());
  EXPECT_TRUE(cube.IsGoal(*four));
  const auto r2 = cube.ParseMoves("R2");
  const auto rr = cube.ParseMoves("R R");
  ASSERT_TRUE(r2.ok() && rr.ok());
  EXPECT_EQ(*r2, *rr);
  EXPECT_FALSE(cube.IsGoal(*r2));
  EXPECT_EQ(cube.ParseMoves("U X").status().message(),
            "move 2: 'X' is no move of this puzzle (its moves: U U2 U' R R2 R' F F2 F')");
  const Definition slide = Read("slide32.tws");
  // The blank starts at position 6 (bottom right): it can move up or left, not down.
  EXPECT_TRUE(slide.ParseMoves("U L").ok());
  EXPECT_EQ(slide.ParseMoves("L D").status().message(),
            "move 2: D does not apply there (its guards do not hold)");
}

TEST(DefinitionTest, StatesAreCheckedAgainstTheGoal) {
  const Definition cube = Read("cube2urf.tws");
  struct Case {
    std::string text, says;
  };
  for (const Case& c : std::vector<Case>{
           {"1 2 3 4 5 6 7 8", "set CORNER: its 8 orientations are missing"},
           {"1 2 3 4 5 6 7 / 0 0 0 0 0 0 0", "set CORNER: 7 labels, want 8"},
           {"1 2 3 4 5 6 7 7 / 0 0 0 0 0 0 0 0", "set CORNER: holds label 7 2 times, the goal once"},
           {"1 2 3 4 5 6 7 9 / 0 0 0 0 0 0 0 0", "label '9' at position 8 is not a number from 1 to 8"},
           {"1 2 3 4 5 6 7 8 / 0 0 0 0 0 0 0 3", "orientation '3' at position 8 is not a number from 0 to 2"},
           {"1 2 3 4 5 6 7 8 / 0 0 0 0 0 0 0 0 | 1", "2 sets given (separated by '|'), want 1: CORNER"},
       }) {
    const auto s = cube.ParseCompact(c.text);
    ASSERT_FALSE(s.ok()) << c.text;
    EXPECT_NE(std::string(s.status().message()).find(c.says), std::string::npos)
        << c.text << ": " << s.status();
  }
  const Definition slide = Read("slide32.tws");
  EXPECT_NE(std::string(slide.ParseCompact("1 2 3 4 5 6 / 0 0 0 0 0 0").status().message())
                .find("has no orientations"),
            std::string::npos);
}

TEST(DefinitionTest, SeveralGoalsAndIdenticalPieces) {
  // Two tiles of one colour (label 1 twice), a blank (3) on a 1x4 strip, two goals.
  const std::string text =
      "Set S 4 1\n"
      "Solved\nS\n1 1 2 3\nEnd\n"
      "Solved\nS\n2 1 1 3\nEnd\n"
      "Move L\nIf S 4 3\nS\n1 2 4 3\nEnd\n"
      "Move L\nIf S 3 3\nS\n1 3 2 4\nEnd\n"
      "Move L\nIf S 2 3\nS\n2 1 3 4\nEnd\n"
      "Move R\nIf S 1 3\nS\n2 1 3 4\nEnd\n"
      "Move R\nIf S 2 3\nS\n1 3 2 4\nEnd\n"
      "Move R\nIf S 3 3\nS\n1 2 4 3\nEnd\n";
  const auto d = ReadDefinition(text, "strip.tws");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->goals().size(), 2u);
  const BruteForce all(*d);
  EXPECT_EQ(all.size(), 8u) << "tiles keep their order on a strip: 4 places of the blank, 2 orders";
  EXPECT_EQ(all.Answer(*d->ParseCompact("2 1 1 3")), "0") << "the second goal";
  EXPECT_EQ(all.Answer(*d->ParseCompact("1 1 3 2")), "1 R");
  // A goal with other pieces than the first is refused.
  const auto other = ReadDefinition("Set S 2 1\nSolved\nS\n1 2\nEnd\nSolved\nS\n1 1\nEnd\n"
                                    "Move X\nS\n2 1\nEnd\n",
                                    "goals.tws");
  EXPECT_EQ(other.status().message(),
            "goals.tws:6: Solved (goal 2): set S holds other pieces than the first goal's (each "
            "goal holds the same labels, moved)");
}

// A goal may leave positions to any piece ('?'): it stands for every state its named
// positions hold, which the reader lists (checked here against the tests' own enumeration of
// the 90 boards), the first filled in position order with the pieces it leaves, ascending:
// where move sequences start. A `single` move brings no powers. A projection may keep one
// goal's states ("goal 2:").
TEST(DefinitionTest, AGoalMayLeavePositionsToAnyPiece) {
  const Definition d = Read("columns23.tws");
  ASSERT_EQ(d.patterns().size(), 3u);
  EXPECT_TRUE(d.has_free_goals());
  EXPECT_EQ(MoveNames(d), (std::vector<std::string>{"R", "S", "A", "C"}));
  EXPECT_EQ(d.FormatCompact(d.goals()[0]), "1 2 2 1 3 3");
  EXPECT_EQ(d.FormatCompact(*d.ParseMoves("")), "1 2 2 1 3 3");
  EXPECT_EQ(d.FormatCompact(*d.ParseMoves("R R")), "2 1 2 1 3 3") << "R twice: two moves, no power";
  // Every board of 1 1 2 2 3 3, and the tests' own reading of the three goals.
  std::vector<uint8_t> board = {1, 1, 2, 2, 3, 3};
  std::set<DefinedState> goals;
  int boards = 0;
  do {
    ++boards;
    const bool goal = (board[0] == 1 && board[3] == 1) || (board[1] == 2 && board[5] == 2) ||
                      (board[2] == 3 && board[3] == 3);
    EXPECT_EQ(d.IsGoal(board), goal) << d.FormatCompact(board);
    if (goal) goals.insert(board);
    for (size_t g = 0; g < 3; ++g) {
      const bool named = g == 0 ? board[0] == 1 && board[3] == 1
                                : g == 1 ? board[1] == 2 && board[5] == 2 : board[2] == 3 && board[3] == 3;
      EXPECT_EQ(d.Matches(g, board.data()), named) << g << ": " << d.FormatCompact(board);
    }
  } while (std::next_permutation(board.begin(), board.end()));
  EXPECT_EQ(boards, 90);
  EXPECT_EQ(std::set<DefinedState>(d.goals().begin(), d.goals().end()), goals);
  EXPECT_EQ(d.goals().size(), goals.size()) << "each goal state once";
  EXPECT_EQ(goals.size(), 16u) << "6 a goal, two boards standing for two goals each";
  // The states the goals stand for are bounded in number and in bytes.
  DefinitionLimits small;
  small.max_goal_bytes = 50;
  EXPECT_EQ(ReadDefinition(SampleText("columns23.tws"), "columns23.tws", small).status().message(),
            "columns23.tws:14: Solved (goal 2): the goals stand for 12 states or more of 6 bytes, more than the 50 "
            "bytes they may take; name more of the pieces");
  // The brute force from those goals: every board reaches one.
  const BruteForce all(d);
  EXPECT_EQ(all.size(), 90u);
  EXPECT_EQ(all.Answer(*d.ParseCompact("1 2 2 1 3 3")), "0");
  // A goal's own projection: its goals are those of that block alone.
  auto spec = ParseProjection("goal 2: B 2", d);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->goal, 2);
  EXPECT_EQ(FormatProjection(*spec), "goal 2: B 2");
  auto projection = Projection::Make(d, *spec);
  ASSERT_TRUE(projection.ok()) << projection.status();
  ASSERT_EQ(projection->projected().goals().size(), 1u);
  EXPECT_EQ(d.FormatCompact(projection->projected().goals()[0]), "2 1 2 2 2 1") << "2s told apart (1), the rest 2";
  EXPECT_EQ(ParseProjection("goal 4: B 2", d).status().message(),
            "projection: 'goal 4': want goal N with N from 1 to 3 (the Solved blocks, in file order)");
  EXPECT_EQ(ParseProjection("goal 2 B 2", d).status().message(),
            "projection: want \"goal N:\" before the sets (goal 2: CORNER)");
  // Projections of one puzzle are found so: the second goal's and the third's (2s, 3s told
  // apart at other cells) are not.
  auto third = ParseProjection("goal 3: B 3", d);
  ASSERT_TRUE(third.ok());
  EXPECT_FALSE(SamePuzzle(projection->projected(), Projection::Make(d, *third)->projected()));
  EXPECT_TRUE(SamePuzzle(projection->projected(), Projection::Make(d, *spec)->projected()));
}

// twsearch's StartState and MoveTransformation (a Solved block and a Move block whose
// labels and positions count from 0) read as their 1-based twins; MoveAlias names a move
// for move sequences (a scramble) without adding one to the search.
TEST(DefinitionTest, StartStateMoveTransformationAndMoveAliasReadAsTwsearchReadsThem) {
  const Definition ones = *ReadDefinition(
      "Set C 4 3\nSolved\nC\n1 2 3 4\n0 0 0 0\nEnd\nMove A\nC\n2 3 1 4\n0 1 2 0\nEnd\n"
      "Move B\nC\n1 3 4 2\n0 2 0 1\nEnd\n",
      "ones.tws");
  auto zeros = ReadDefinition(
      "Set C 4 3\nStartState\nC\n0 1 2 3\n0 0 0 0\nEnd\nMoveTransformation A\nC\n1 2 0 3\n0 1 2 0\nEnd\n"
      "Move B\nC\n1 3 4 2\n0 2 0 1\nEnd\nMoveAlias Z A'\n",
      "zeros.tws");
  ASSERT_TRUE(zeros.ok()) << zeros.status();
  EXPECT_TRUE(SamePuzzle(ones, *zeros));
  EXPECT_EQ(MoveNames(*zeros), MoveNames(ones)) << "the alias is no move";
  // The alias plays its move in a sequence.
  EXPECT_EQ(zeros->FormatCompact(*zeros->ParseMoves("Z B")), ones.FormatCompact(*ones.ParseMoves("A' B")));
  EXPECT_EQ(ReadDefinition("Set C 2 1\nStartState\nC\n1 2\nEnd\nMove A\nC\n2 1\nEnd\n", "z.tws").status().message(),
            "z.tws:4: StartState: set C: '2' is not a number from 0 to 1");
  EXPECT_EQ(ReadDefinition("Set C 2 1\nSolved\nC\n1 2\nEnd\nMove A\nC\n2 1\nEnd\nMoveAlias Q R\n", "z.tws")
                .status()
                .message(),
            "z.tws:10: MoveAlias 'Q': 'R' is no move or power of a move of the file");
  EXPECT_EQ(ReadDefinition("Set C 2 1\nSolved\nC\n1 2\nEnd\nMove A\nC\n2 1\nEnd\nMoveAlias A A\n", "z.tws")
                .status()
                .message(),
            "z.tws:10: MoveAlias 'A': the name is taken (by a move or another alias)");
}

// twsearch's Illegal: a move that would lead to a state it forbids does not apply. The
// distances of every state, against the tests' own breadth-first search over the 720
// orders (a move's result checked by hand); a forbidden state is refused naming the line.
TEST(DefinitionTest, IllegalStatesAreNeverReached) {
  const Definition d = Read("illegal6.tws");
  ASSERT_EQ(d.illegal().size(), 1u);
  EXPECT_EQ(MoveNames(d), (std::vector<std::string>{"R", "R2", "R3", "R2'", "R'", "S"}));
  EXPECT_EQ(d.ParseCompact("6 1 2 3 4 5").status().message(),
            "set P: position 1 holds 6, which the Illegal line 22 of the definition forbids there");
  // R' puts piece 6 on position 1: it does not apply at the goal.
  EXPECT_EQ(d.ParseMoves("R'").status().message(), "move 1: R' does not apply there (its guards do not hold)");
  // The tests' own search: each move's permutation applied by hand, its result checked.
  const std::vector<std::vector<int>> moves = {{2, 3, 4, 5, 6, 1}, {3, 4, 5, 6, 1, 2}, {4, 5, 6, 1, 2, 3},
                                               {5, 6, 1, 2, 3, 4}, {6, 1, 2, 3, 4, 5}, {2, 1, 3, 4, 5, 6}};
  std::map<DefinedState, int> distance = {{DefinedState{1, 2, 3, 4, 5, 6}, 0}};
  std::vector<DefinedState> frontier = {{1, 2, 3, 4, 5, 6}};
  for (int depth = 1; !frontier.empty(); ++depth) {
    std::vector<DefinedState> next;
    for (const DefinedState& s : frontier) {
      for (const std::vector<int>& m : moves) {
        DefinedState t(6);
        for (size_t j = 0; j < 6; ++j) t[j] = s[static_cast<size_t>(m[j] - 1)];
        if (t[0] == 6 || distance.contains(t)) continue;  // Illegal P 1 6
        distance[t] = depth;
        next.push_back(t);
      }
    }
    frontier.swap(next);
  }
  EXPECT_EQ(distance.size(), 600u) << "every order with piece 6 off position 1";
  const BruteForce all(d);
  EXPECT_EQ(all.size(), distance.size());
  for (const auto& [state, depth] : distance) {
    EXPECT_EQ(all.DistanceOf(state), depth) << d.FormatCompact(state);
  }
}

// twsearch's MoveSequence and whole-puzzle rotations: a sequence is the moves and rotations
// it names played in turn (sequences of sequences too, written in any order), a move with
// its powers in the place of its line; rotations are no moves. Written out by hand, the
// same moves.
TEST(DefinitionTest, MoveSequencesComposeMovesAndRotations) {
  const std::string sets = "Set C 4 3\nSolved\nC\n1 2 3 4\nEnd\n";
  // xv swaps the pieces two by two; L turns three of them round and twists the fourth.
  const std::string by_sequence = sets +
      "MoveSequence R xv L xv\n"
      "Move L\nC\n2 3 1 4\n0 0 0 1\nEnd\n"
      "Move xv\nC\n3 4 1 2\nEnd\n"
      "MoveSequence B R L'\n";
  // R by hand: xv takes the piece from 2 to 4, where L twists it, and back.
  const std::string by_hand = sets +
      "Move R\nC\n3 2 4 1\n0 1 0 0\nEnd\n"
      "Move L\nC\n2 3 1 4\n0 0 0 1\nEnd\n";
  const auto a = ReadDefinition(by_sequence, "seq.tws");
  ASSERT_TRUE(a.ok()) << a.status();
  const auto b = ReadDefinition(by_hand, "hand.tws");
  ASSERT_TRUE(b.ok()) << b.status();
  std::vector<std::string> names;
  for (const DefinedMove& m : a->moves()) names.push_back(m.name);
  ASSERT_GE(names.size(), 5u);
  EXPECT_EQ(Join(std::vector<std::string>(names.begin(), names.begin() + 5), " "), "R R' L L' B")
      << "order 3: no R2";
  EXPECT_EQ(std::count(names.begin(), names.end(), "xv"), 0) << "the rotation is no move";
  // R, L and their powers as written by hand; B as R then L', from states the moves reach.
  std::mt19937 rng(67);
  DefinedState s = a->goals()[0], one, two, next;
  for (int k = 0; k < 200; ++k) {
    ASSERT_TRUE(a->Apply(s, static_cast<int>(rng() % a->moves().size()), &next));
    s = next;
    for (size_t m = 0; m < 4; ++m) {
      ASSERT_TRUE(a->Apply(s, static_cast<int>(m), &one));
      ASSERT_TRUE(b->Apply(s, static_cast<int>(m), &two));
      ASSERT_EQ(one, two) << a->moves()[m].name << " from " << a->FormatCompact(s);
    }
    ASSERT_TRUE(a->Apply(s, 0, &one));    // R
    ASSERT_TRUE(a->Apply(one, 3, &two));  // L'
    ASSERT_TRUE(a->Apply(s, 4, &next));   // B
    ASSERT_EQ(next, two) << a->FormatCompact(s);
  }
}

// Every rule a file can break, in a file written here, refused with its line and rule.
TEST(DefinitionTest, EveryBrokenRuleIsRefusedWithItsLineAndRule) {
  const std::string head = "Set T 6 1\nSolved\nT\n1 2 3 4 5 6\nEnd\n";  // lines 1-5
  struct Case {
    std::string text, says;
  };
  const std::vector<Case> cases = {
      {head + "Move U\nT\n1 2 3 4 5\nEnd\n", "slide.tws:8: Move U: set T: 5 values, want 6"},
      {head + "Move U\nT\n1 2 3 4 5 5\nEnd\n",
       "slide.tws:8: Move U: set T: position 5 given twice: not a permutation of 1 to 6"},
      {head + "Move U\nT\n1 2 3 4 5 7\nEnd\n", "slide.tws:8: Move U: set T: '7' is not a number from 1 to 6"},
      {head + "Move U\nQ\n1 2 3 4 6 5\nEnd\n",
       "slide.tws:7: Move U: 'Q' is neither a set's name (T) nor End, which the block (from line 6) is missing"},
      // End misspelt, or left out before the next block.
      {head + "Move U\nT\n2 1 3 4 5 6\nEdn\nMove D\nT\n1 2 3 4 6 5\nEnd\n",
       "slide.tws:9: Move U: 'Edn' is neither a set's name (T) nor End, which the block (from line 6) is missing"},
      {head + "Move U\nT\n2 1 3 4 5 6\nMove D\nT\n1 2 3 4 6 5\nEnd\n",
       "slide.tws:6: Move U: no End before line 9's Move (each block ends with a line End)"},
      {"Set T 3 1\nSolved\nT\n1 2 3\nMove D\nT\n1 3 2\nEnd\n",
       "slide.tws:2: Solved: no End before line 5's Move (each block ends with a line End)"},
      // An If line after a set's name, where its positions belong.
      {head + "Move U\nT\nIf T 1 1\n2 1 3 4 5 6\nEnd\n",
       "slide.tws:8: Move U: If lines come first in a Move block, before its sets (here after set T)"},
      // Guards of one position that cannot both hold: the block could never apply.
      {"Set D 5 4\nSolved\nD\n1 2 3 4 5\nEnd\nMove M\nIf D 1 1 0\nIf D 1 1 1\nD\n2 1 3 4 5\nEnd\n",
       "slide.tws:8: Move M: If: contradicts the If of line 7 (position 1 of set D cannot hold "
       "orientations 0 and 1 at once): the block could never apply"},
      {head + "Move U\nIf T 2 3\nIf T 1 1\nIf T 1 2\nT\n2 1 3 4 5 6\nEnd\n",
       "slide.tws:9: Move U: If: contradicts the If of line 8 (position 1 of set T cannot hold "
       "pieces 1 and 2 at once): the block could never apply"},
      {head + "Move U\nIf T 7 6\nT\n1 2 3 4 6 5\nEnd\n",
       "slide.tws:7: Move U: If: position '7' is not a number from 1 to 6 (set T)"},
      {head + "Move U\nIf T 1 9\nT\n1 2 3 4 6 5\nEnd\n",
       "slide.tws:7: Move U: If: piece '9' is not * or a label from 1 to 6 (set T)"},
      {head + "Move U\nIf T 1 * 1\nT\n1 2 3 4 6 5\nEnd\n",
       "slide.tws:7: Move U: If: orientation '1' is not a number from 0 to 0 (set T)"},
      {head + "Move U\nT\n1 2 3 4 6 5\nIf T 1 1\nEnd\n",
       "slide.tws:9: Move U: If lines come first in a Move block, before its sets"},
      {"Set T 6 1\nMove U\nT\n1 2 3 4 6 5\nEnd\n", "slide.tws: no Solved block"},
      {head, "slide.tws: no Move"},
      {"", "slide.tws: no Set"},
      {"Set C 4 3\nSolved\nC\n1 2 3 4\n0 0 0 3\nEnd\n",
       "slide.tws:5: Solved: set C: orientation '3' is not a number from 0 to 2"},
      {"Set T 256 1\n", "slide.tws:1: Set T: size '256' is not a number from 1 to 255"},
      {"Set T 6 0\n", "slide.tws:1: Set T: orientations '0' is not a number from 1 to 255"},
      {"Set T 6\n", "slide.tws:1: Set takes a name, a size and a number of orientations"},
      {"Set T 6 1\nSet T 3 1\n", "slide.tws:2: Set T is given twice"},
      {head + "Set U 3 1\n", "slide.tws:6: Set after a Solved or Move block"},
      {std::string("Set T 6 1\nSolved\nT\n1 2 3\0 4 5 6\nEnd\n", 35), "slide.tws:4: a control character (byte 0)"},
      {"Set T 6 1\n\xff\xfe\n", "slide.tws:2: not UTF-8 text (byte 10)"},
      {head + "Move U\nT\n1 2 3 4 6 5\n", "slide.tws:6: Move U: no End"},
      {head + "Move U\nT\n2 1 3 4 5 6\nEnd\nMove U\nT\n1 2 3 4 6 5\nEnd\n",
       "slide.tws:10: Move U: given again (first at line 6)"},
      {head + "Move U\nIf T 6 6\nT\n1 2 3 4 6 5\nEnd\nMove U\nT\n1 2 3 4 6 5\nEnd\n",
       "slide.tws:11: Move U: given again (first at line 6)"},
      {head + "Move U\nT\n1 2 3 4 5 6\nEnd\n", "slide.tws:6: Move U: changes nothing"},
      {head + "Move x2\nT\n2 1 3 4 5 6\nEnd\n",
       "slide.tws: no Move but whole-puzzle rotations, which are no moves: a definition has at least one"},
      {head + "Move Rv\nIf T 1 1\nT\n2 1 3 4 5 6\nEnd\n",
       "slide.tws:6: Move Rv: a whole-puzzle rotation (a name like x, y, z or ending in v) takes no If"},
      {head + "Move Rv\nT\n2 1 3 4 5 6\nEnd\nMove Rv\nT\n2 1 3 4 6 5\nEnd\n",
       "slide.tws:10: Move Rv: given again (first at line 6)"},
      {head + "Move U\nT\n2 1 3 4 5 6\nEnd\nMoveSequence S U Q\n",
       "slide.tws:10: MoveSequence 'S': 'Q' is no move, power of a move or rotation of the file"},
      {head + "Move U\nIf T 1 1\nT\n2 1 3 4 5 6\nEnd\nMoveSequence S U\n",
       "slide.tws:11: MoveSequence 'S': 'U' is a guarded move: a sequence composes unguarded moves and rotations"},
      {head + "Move U\nT\n2 1 3 4 5 6\nEnd\nMoveSequence A B2\nMoveSequence B U A\n",
       "slide.tws:10: MoveSequence 'A': 'B2' is a sequence that needs this one (or another that cannot be made)"},
      {head + "Move U\nT\n2 1 3 4 5 6\nEnd\nMoveSequence S U U\n", "slide.tws:10: MoveSequence 'S': changes nothing"},
      {head + "Move U\nT\n2 1 3 4 5 6\nEnd\nMoveSequence U U\n",
       "slide.tws:10: MoveSequence 'U': the name is taken (by the move at line 6)"},
      {head + "MoveSequence S U\nMove S\nT\n2 1 3 4 5 6\nEnd\n", "slide.tws:7: Move S: given again (first at line 6)"},
      {head + "Move U\nT\n2 1 3 4 5 6\nEnd\nMoveSequence S\n",
       "slide.tws:10: MoveSequence takes a name and the moves it makes"},
      {head + "Move U\nT\n2 1 3 4 5 6\nEnd\nMoveSequence x U\n",
       "slide.tws:10: MoveSequence 'x': a sequence named as a whole-puzzle rotation is not supported"},
      {head + "Frobnicate\n", "slide.tws:6: unknown keyword 'Frobnicate' (want Name, Set, Solved, Move, MoveSequence, MoveAlias, Illegal, StartState or MoveTransformation)"},
      {head + "End\n", "slide.tws:6: End outside a block"},
      {"Set T 6 1\nSolved\nT\n1 2 3 4 5 6\nEnd\nMove A\nT\n2 3 1 4 5 6\nEnd\nMove A'\nT\n2 1 3 4 5 6\nEnd\n",
       "slide.tws:10: Move A': the name is taken (by a move or the power of one written before)"},
      // Cycles of 7, 8 and 9 positions: order 504, far more powers than moves allowed.
      {"Set A 7 1\nSet B 8 1\nSet C 9 1\nSolved\nA\n1 2 3 4 5 6 7\nB\n1 2 3 4 5 6 7 8\nC\n"
       "1 2 3 4 5 6 7 8 9\nEnd\nMove M\nA\n2 3 4 5 6 7 1\nB\n2 3 4 5 6 7 8 1\nC\n2 3 4 5 6 7 8 9 1\nEnd\n",
       "slide.tws:12: Move M: with its powers (order over 250) the puzzle would have more than 250 moves"},
      {"Set T 3 1\nSolved\nT\n1 2 3\nEnd\nSolved\nT\n1 2\nEnd\n", "slide.tws:8: Solved (goal 2): set T: 2 values, want 3"},
      {"Set T 3 3\nSolved\nT\n1 ? 3\n0 0 0\nEnd\n",
       "slide.tws:4: Solved: set T: '?' for position 2: a position any piece may fill only in a set whose pieces "
       "do not turn (this one's have 3 orientations)"},
      {"Set T 3 3\nSolved\nT\n1 2 3\nEnd\nMove M\nT\n2 1 3\n0 ? 0\nEnd\n",
       "slide.tws:9: Move M: set T: '?' (a wildcard) stands for a piece or an orientation of a Solved block, not a move's twist"},
      {"Set T 3 1\nSolved\nT\n1 2 3\nEnd\nMove M\nT\n2 ? 3\nEnd\n",
       "slide.tws:8: Move M: set T: '?' (a wildcard) stands for a position or orientation of a Solved block, not a move's position"},
      // Goals that leave positions to any piece ('?') must still say which pieces the set holds.
      {"Set T 4 1\nSolved\nT\n1 1 ? ?\nEnd\nMove M\nT\n2 1 3 4\nEnd\n",
       "slide.tws:2: set T: its goals leave positions to any piece ('?'), so its pieces are each label as often as "
       "the goal naming it most often names it (1 x2): 2 pieces where it has 4 positions"},
      {"Set T 4 1\nSolved\nT\n1 1 1 ?\nEnd\nSolved\nT\n? 2 2 ?\nEnd\nMove M\nT\n2 1 3 4\nEnd\n",
       "slide.tws:2: set T: its goals leave positions to any piece ('?'), so its pieces are each label as often as "
       "the goal naming it most often names it (1 x3, 2 x2): 5 pieces where it has 4 positions"},
      {"Set T 3 1\nSolved\nT\n1 2 3\nEnd\nSolved\nT\n1 2 2\nEnd\nMove M\nT\n2 1 3\nEnd\n",
       "slide.tws:6: Solved (goal 2): set T holds other pieces than the first goal's"},
      // 20 positions left to 10 and 10 pieces: 184,756 states, more than a goal may stand for.
      {"Set T 22 1\nSolved\nT\n1 2 ? ? ? ? ? ? ? ? ? ? ? ? ? ? ? ? ? ? ? ?\nEnd\nSolved\nT\n3 3 3 3 3 3 3 3 3 3 "
       "4 4 4 4 4 4 4 4 4 4 1 2\nEnd\nMove M\nT\n2 1 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22\nEnd\n",
       "slide.tws:2: Solved (goal 1): the goals stand for more than 131072 states"},
      // twsearch's Illegal.
      {"Set T 3 1\nIllegal T 1 2\nSolved\nT\n1 2 3\nEnd\n",
       "slide.tws:2: Illegal before any Solved block: Illegal lines come after them"},
      {head + "Illegal T 7 2\n", "slide.tws:6: Illegal: position '7' is not a number from 1 to 6 (set T)"},
      {head + "Illegal T 1 0\n", "slide.tws:6: Illegal: label '0' is not a number from 1 to 6 (set T)"},
      {head + "Illegal T 1\n", "slide.tws:6: Illegal takes a set, a position and the labels it may not hold"},
      {head + "Illegal Q 1 2\n", "slide.tws:6: Illegal: no set is named 'Q'"},
      {head + "Move U\nT\n2 1 3 4 5 6\nEnd\nIllegal T 1 1\n",
       "slide.tws:2: Solved (goal 1): holds 1 where the Illegal line 10 forbids it"},
      {head + "Move U single twice\nT\n2 1 3 4 5 6\nEnd\n",
       "slide.tws:6: Move takes one name (Move U), and maybe the word single (Move A single: no powers), got "
       "'U single twice'"},
      {head + "Move U single\nIf T 1 1\nT\n2 1 3 4 5 6\nEnd\nMove U\nIf T 2 1\nT\n2 1 3 4 5 6\nEnd\n",
       "slide.tws:11: Move U: single here and not at line 6"},
      {"Set T 3 3\nSolved\nT\n1 1 2\n? 0 0\nEnd\n",
       "slide.tws:5: Solved: set T: pieces labelled 1 have '?' for an orientation at some positions and not at others"},
      {"Set T 3 3\nSolved\nT\n1 2 3\n? 0 0\nEnd\nSolved\nT\n2 1 3\n? 0 0\nEnd\n",
       "slide.tws:10: Solved (goal 2): set T: '?' stands for other pieces' orientations than in the first goal"},
      {head + "Move U\nIf T 1 * \nT\n2 1 3 4 5 6\nEnd\n",
       "slide.tws:7: Move U: If: any piece (*) and any orientation: the guard says nothing"},
  };
  for (const Case& c : cases) {
    const auto d = ReadDefinition(c.text, "slide.tws");
    ASSERT_FALSE(d.ok()) << c.says;
    EXPECT_EQ(std::string(d.status().message()).rfind(c.says, 0), 0u)
        << "want: " << c.says << "\n got: " << d.status().message();
    EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
  }
  // A UTF-8 byte order mark is skipped, as a CR before a newline is; guards of one position
  // that agree (a piece, then its orientation) are no contradiction.
  const auto bom = ReadDefinition("\xef\xbb\xbfName Marked\r\nSet D 2 4\r\nSolved\r\nD\r\n1 2\r\nEnd\r\n"
                                  "Move M\r\nIf D 1 1\r\nIf D 1 * 0\r\nD\r\n2 1\r\nEnd\r\n",
                                  "bom.tws");
  ASSERT_TRUE(bom.ok()) << bom.status();
  EXPECT_EQ(bom->title(), "Marked");
  EXPECT_EQ(bom->moves()[0].blocks[0].guards.size(), 2u);
  // A set a goal leaves out holds its pieces in order (as twsearch reads it).
  const auto left_out = ReadDefinition(
      "Set T 3 1\nSet U 2 3\nSolved\nT\n1 1 2\nEnd\nMove M\nU\n2 1\n2 1\nEnd\n", "out.tws");
  ASSERT_TRUE(left_out.ok()) << left_out.status();
  EXPECT_EQ(left_out->FormatCompact(left_out->goals()[0]), "1 1 2 | 1 2 / 0 0");
  // A piece named in a guard that the set does not hold.
  const auto ghost = ReadDefinition("Set T 3 1\nSolved\nT\n1 1 2\nEnd\nMove U\nIf T 1 3\nT\n2 1 3\nEnd\n",
                                    "ghost.tws");
  EXPECT_EQ(ghost.status().message(), "ghost.tws:6: Move U: If: set T holds no piece labelled 3");
  // Too large a file, and too many sets.
  DefinitionLimits small;
  small.max_file_bytes = 10;
  EXPECT_EQ(ReadDefinition(head, "big.tws", small).status().message(),
            "big.tws: 35 bytes, more than a definition may take (10)");
  std::string many;
  for (int i = 0; i < 256; ++i) many += Cat("Set S", i, " 1 1\n");
  EXPECT_EQ(ReadDefinition(many, "many.tws").status().message(), "many.tws:256: more than 255 sets");
  std::string wide;
  for (int i = 0; i < 9; ++i) wide += Cat("Set W", i, " 255 255\n");
  EXPECT_EQ(ReadDefinition(wide, "wide.tws").status().message(),
            "wide.tws:9: Set W8: the sets' positions would take more than 4096 bytes a state");
}

// ---- The index and the search (core/definition/defined_index.h, core/defined/)

struct Searched {
  DefinedIndex index;
  DefinedSearchResult result;
};

absl::StatusOr<Searched> SearchAll(const Definition& d, int threads,
                                   uint64_t max_states = uint64_t{1} << 33,
                                   DefinedIndexOptions index_options = {}) {
  const CompiledMoves moves(d);
  auto index = DefinedIndex::Make(d, moves, max_states, index_options);
  if (!index.ok()) return index.status();
  DefinedSearchOptions options;
  options.threads = threads;
  auto result = SearchDefinition(d, moves, *index, options);
  if (!result.ok()) return result.status();
  return Searched{*std::move(index), *std::move(result)};
}

// Every reachable state has its own number, and the search finds each one's distance: the
// brute force's, state by state, on one thread and on several.
TEST(DefinedSearchTest, TheSamplesAgreeWithTheBruteForce) {
  for (const std::string name : {"slide32", "pancake5", "dials3"}) {
    const Definition d = Read(name + ".tws");
    const BruteForce all(d);
    const CompiledMoves moves(d);
    auto index = DefinedIndex::Make(d, moves, uint64_t{1} << 33);
    ASSERT_TRUE(index.ok()) << name << ": " << index.status();
    std::vector<uint64_t> ranks;
    DefinedState back(d.state_bytes(), 0);
    for (const DefinedState& s : all.states()) {
      ASSERT_TRUE(index->Indexable(s.data())) << name << ": " << d.FormatCompact(s);
      const uint64_t rank = index->Rank(s.data());
      ASSERT_LT(rank, index->size()) << name;
      index->Unrank(rank, back.data());
      ASSERT_EQ(back, s) << name << ": " << d.FormatCompact(s) << " ranks to " << rank
                         << " and back to " << d.FormatCompact(back);
      ranks.push_back(rank);
    }
    std::sort(ranks.begin(), ranks.end());
    EXPECT_EQ(std::adjacent_find(ranks.begin(), ranks.end()), ranks.end()) << name << ": two states, one number";
    for (const int threads : {1, 2, 3}) {
      auto searched = SearchAll(d, threads);
      ASSERT_TRUE(searched.ok()) << name << ": " << searched.status();
      EXPECT_EQ(searched->result.histogram, all.Histogram()) << name << " on " << threads << " threads";
      const PackedTable& t = searched->result.entries;
      const bool mod3 = t.encoding() == storage::v1::DISTANCE_MOD3;
      for (size_t i = 0; i < all.size(); ++i) {
        const int want = all.distance(i);
        const uint8_t entry = t.Get(searched->index.Rank(all.states()[i].data()));
        if (want < 0) {
          EXPECT_EQ(entry, mod3 ? PackedTable::kMod3Uncovered : PackedTable::kByteUncovered);
        } else {
          EXPECT_EQ(entry, mod3 ? want % 3 : want) << name << ": " << d.FormatCompact(all.states()[i]);
        }
      }
    }
  }
}

// An orbit that guards read only through some labels (a projection of sliding tiles, where
// the blank is one of the merged pieces): the tiles told apart count as one piece in its
// placements, and their order on the cells those give them is the inner part, whose step
// depends on the placements. Every state has its number and back, and the search finds the
// brute force's distances, on one thread and on several.
TEST(DefinedSearchTest, AnOrbitGuardsReadThroughSomeLabelsSplitsIntoPlacementsAndAnOrder) {
  struct Case {
    std::string file, spec, described;
  };
  for (const Case& c : std::vector<Case>{
           {"slide32.tws", "T 1-3", "120 = T placements 20 x T order 6"},
           {"slide44.tws", "T 1-4", "43680 = T placements 1820 x T order 24"},
           {"slide44.tws", "T 2,5,11", "3360 = T placements 560 x T order 6"}}) {
    const Definition d = Read(c.file);
    auto spec = ParseProjection(c.spec, d);
    ASSERT_TRUE(spec.ok()) << spec.status();
    auto projection = Projection::Make(d, *spec);
    ASSERT_TRUE(projection.ok()) << projection.status();
    const Definition& p = projection->projected();
    const CompiledMoves moves(p);
    auto index = DefinedIndex::Make(p, moves, uint64_t{1} << 33);
    ASSERT_TRUE(index.ok()) << index.status();
    EXPECT_TRUE(index->inner_is_order()) << c.spec;
    EXPECT_EQ(index->Describe(p), c.described) << c.spec;
    // Every number unranks to a state that ranks back to it.
    DefinedState s(p.state_bytes(), 0);
    for (uint64_t i = 0; i < index->size(); ++i) {
      index->Unrank(i, s.data());
      ASSERT_TRUE(index->Indexable(s.data())) << c.spec << ": " << i;
      ASSERT_EQ(index->Rank(s.data()), i) << c.spec << ": " << p.FormatCompact(s);
    }
    const BruteForce all(p);
    for (const int threads : {1, 2}) {
      auto searched = SearchAll(p, threads);
      ASSERT_TRUE(searched.ok()) << c.spec << ": " << searched.status();
      EXPECT_EQ(searched->result.histogram, all.Histogram()) << c.spec << " on " << threads << " threads";
      // The blank's steps have their ways back: 2 bits a state.
      const PackedTable& t = searched->result.entries;
      ASSERT_EQ(t.encoding(), storage::v1::DISTANCE_MOD3) << c.spec;
      for (size_t i = 0; i < all.size(); ++i) {
        ASSERT_EQ(t.Get(searched->index.Rank(all.states()[i].data())), all.distance(i) % 3)
            << c.spec << ": " << p.FormatCompact(all.states()[i]);
      }
    }
  }
  // An orbit whose untested labels repeat keeps its one coordinate (nothing to order).
  const Definition d = Read("slide44.tws");
  const CompiledMoves moves(d);
  auto whole = DefinedIndex::Make(d, moves, uint64_t{1} << 62);
  ASSERT_TRUE(whole.ok()) << whole.status();
  EXPECT_FALSE(whole->inner_is_order()) << "16 distinct labels: a parity coordinate, no split";
}

// Pieces of two colours and one empty cell on a board of `rows` x `columns`, row-major
// (`goal`: 1 and 2 the colours, 3 the empty cell): a move per cell the empty cell goes to,
// a block for each cell a step (a knight's jump, if `jumps`) away that it comes from.
std::string TwoColourBoard(int rows, int columns, const std::vector<int>& goal, bool jumps) {
  const int cells = rows * columns;
  std::string text = Cat("Set B ", cells, " 1\nSolved\nB\n", Join(goal, " "), "\nEnd\n");
  const std::vector<std::pair<int, int>> steps =
      jumps ? std::vector<std::pair<int, int>>{{1, 2}, {2, 1}, {-1, 2}, {-2, 1}, {1, -2}, {2, -1}, {-1, -2}, {-2, -1}}
            : std::vector<std::pair<int, int>>{{0, 1}, {1, 0}, {0, -1}, {-1, 0}};
  for (int to = 0; to < cells; ++to) {
    for (const auto& [dr, dc] : steps) {
      const int r = to / columns + dr, c = to % columns + dc;
      if (r < 0 || r >= rows || c < 0 || c >= columns) continue;
      const int from = r * columns + c;
      std::vector<int> source(static_cast<size_t>(cells));
      for (int i = 0; i < cells; ++i) source[static_cast<size_t>(i)] = i + 1;
      std::swap(source[static_cast<size_t>(to)], source[static_cast<size_t>(from)]);
      text += Cat("Move c", to + 1, "\nIf B ", from + 1, " 3\nB\n", Join(source, " "), "\nEnd\n");
    }
  }
  return text;
}

// twsearch's '?' for an orientation in a Solved block: that piece's twist is forgotten
// wherever it goes (kept 0, written '?', any number read as it), so states that differ only
// there are one. Three turning pieces, the second wild: 3! x 3^2 states at most, not 3! x
// 3^3; the search over the index (whose orientation sum is no longer kept) finds every
// state the brute force reaches, at its distance.
TEST(DefinitionTest, AWildOrientationIsForgotten) {
  const std::string text =
      "Set C 3 3\nSolved\nC\n1 2 3\n0 ? 0\nEnd\n"
      "Move M\nC\n2 3 1\n1 0 2\nEnd\n"
      "Move N\nC\n2 1 3\n0 1 0\nEnd\n";
  const auto d = ReadDefinition(text, "wild.tws");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_TRUE(d->sets()[0].wild[2]);
  EXPECT_EQ(d->FormatCompact(d->goals()[0]), "1 2 3 / 0 ? 0");
  // Any twist of the wild piece reads as the same state.
  for (const std::string given : {"2 1 3 / ? 1 2", "2 1 3 / 0 1 2", "2 1 3 / 2 1 2"}) {
    auto s = d->ParseCompact(given);
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_EQ(d->FormatCompact(*s), "2 1 3 / ? 1 2") << given;
  }
  EXPECT_FALSE(d->ParseCompact("2 1 3 / 0 ? 2").ok()) << "piece 2 is wild, piece 1 is not";
  const BruteForce all(*d);
  EXPECT_EQ(all.size(), 54u) << "6 orders, 3 x 3 twists of the two pieces that keep theirs";
  for (const DefinedState& s : all.states()) {
    for (int j = 0; j < 3; ++j) {
      if (s[static_cast<size_t>(j)] == 2) EXPECT_EQ(s[static_cast<size_t>(3 + j)], 0) << d->FormatCompact(s);
    }
  }
  for (const int threads : {1, 2}) {
    auto searched = SearchAll(*d, threads);
    ASSERT_TRUE(searched.ok()) << searched.status();
    EXPECT_EQ(searched->result.histogram, all.Histogram());
    for (size_t i = 0; i < all.size(); ++i) {
      const uint8_t entry = searched->result.entries.Get(searched->index.Rank(all.states()[i].data()));
      ASSERT_EQ(entry, searched->result.entries.encoding() == storage::v1::DISTANCE_MOD3 ? all.distance(i) % 3
                                                                                        : all.distance(i));
    }
  }
  // A projection telling piece 1 apart merges the wild piece and the other apart (labels 3
  // and 2), keeping the orientations; moves commute with it on every state.
  auto spec = ParseProjection("C 1", *d);
  ASSERT_TRUE(spec.ok()) << spec.status();
  auto projection = Projection::Make(*d, *spec);
  ASSERT_TRUE(projection.ok()) << projection.status();
  const DefinedSet& seen = projection->projected().sets()[0];
  EXPECT_EQ(seen.orientations, 3);
  EXPECT_TRUE(seen.wild[3]);
  EXPECT_FALSE(seen.wild[2]);
  DefinedState next, seen_then_moved, moved_then_seen, projected;
  for (const DefinedState& s : all.states()) {
    projection->Project(s, &projected);
    for (int m = 0; m < static_cast<int>(d->moves().size()); ++m) {
      ASSERT_TRUE(d->Apply(s, m, &next));
      projection->Project(next, &moved_then_seen);
      ASSERT_TRUE(projection->projected().Apply(projected, m, &seen_then_moved));
      ASSERT_EQ(seen_then_moved, moved_then_seen) << d->FormatCompact(s) << ", move " << m;
    }
  }
}

// Layout 3: an orbit whose guards read the empty cell and pass over two colours of pieces,
// each repeated, is split into the placements (the empty cell's) and the arrangement of the
// colours on the other cells; every number a state and back, and the search's distances
// (its steps permuting the arrangement's slots) the brute force's, on one and two threads.
// Without the option (projections) the orbit stays one coordinate, layout 2.
TEST(DefinedSearchTest, TwoRepeatedLabelsGuardsPassOverSplitIntoPlacementsAndAnArrangement) {
  struct Case {
    std::string text, described;
  };
  for (const Case& c : std::vector<Case>{
           {TwoColourBoard(3, 3, {1, 1, 1, 1, 3, 2, 2, 2, 2}, false), "630 = B placements 9 x B arrangement 70"},
           {TwoColourBoard(3, 4, {1, 1, 1, 1, 1, 3, 2, 2, 2, 2, 2, 2}, true),
            "5544 = B placements 12 x B arrangement 462"}}) {
    auto read = ReadDefinition(c.text, "two_colours.tws");
    ASSERT_TRUE(read.ok()) << read.status();
    const Definition& d = *read;
    const CompiledMoves moves(d);
    auto plain = DefinedIndex::Make(d, moves, uint64_t{1} << 33);
    ASSERT_TRUE(plain.ok()) << plain.status();
    EXPECT_EQ(plain->layout(), 2);
    EXPECT_FALSE(plain->inner_is_arrangement());
    auto index = DefinedIndex::Make(d, moves, uint64_t{1} << 33, {.arrangements = true});
    ASSERT_TRUE(index.ok()) << index.status();
    EXPECT_EQ(index->layout(), 3);
    ASSERT_TRUE(index->inner_is_arrangement());
    EXPECT_EQ(index->Describe(d), c.described);
    DefinedState s(d.state_bytes(), 0);
    for (uint64_t i = 0; i < index->size(); ++i) {
      index->Unrank(i, s.data());
      ASSERT_TRUE(index->Indexable(s.data())) << i;
      ASSERT_EQ(index->Rank(s.data()), i) << d.FormatCompact(s);
    }
    // A permutation of the arrangement's slots (a rotation, as a step makes) against the
    // same done on the board: slot k of the result holds what slot slots[k] held.
    const int n = index->inner_slots();
    std::vector<uint8_t> slots(static_cast<size_t>(n));
    for (int k = 0; k < n; ++k) slots[static_cast<size_t>(k)] = static_cast<uint8_t>((k + 3) % n);
    const uint64_t inner = index->inner_size();
    for (uint64_t i = 0; i < inner; ++i) {
      index->Unrank(i, s.data());  // outer number 0: the empty cell's first placement
      std::vector<uint8_t> held;
      for (uint8_t v : s) {
        if (v != 3) held.push_back(v);
      }
      DefinedState permuted = s;
      size_t k = 0;
      for (uint8_t& v : permuted) {
        if (v != 3) v = held[slots[k++]];
      }
      ASSERT_EQ(index->PermuteArrangement(i, slots.data()), index->Rank(permuted.data())) << i;
    }
    const BruteForce all(d);
    ASSERT_EQ(all.size(), index->size()) << "every board is reached";
    for (const int threads : {1, 2}) {
      auto searched = SearchAll(d, threads, uint64_t{1} << 33, {.arrangements = true});
      ASSERT_TRUE(searched.ok()) << searched.status();
      EXPECT_EQ(searched->result.histogram, all.Histogram()) << c.described << " on " << threads << " threads";
      const PackedTable& t = searched->result.entries;
      ASSERT_EQ(t.encoding(), storage::v1::DISTANCE_MOD3);
      for (size_t i = 0; i < all.size(); ++i) {
        ASSERT_EQ(t.Get(searched->index.Rank(all.states()[i].data())), all.distance(i) % 3)
            << d.FormatCompact(all.states()[i]);
      }
    }
  }
}

// Layout 4: with the definition's symmetries, the table keeps a block per class of the
// empty cell's placements, and in a block whose placement a symmetry fixes, the least of
// the arrangements it makes. Against the brute force, on one and two threads: every state's
// number is its class's (each of its images has it, and the number's state is one of
// them), its entry is its distance, the search finds each class once (the histogram counts
// classes), the classes' members and sizes are the brute force's, and the small ones are
// listed. Boards of 180-degree turns with the colours exchanged (a group of 2) and of the
// square's eight turns and reflections, which fix the centre (stabilizers of 2 and 8), and
// the 8-puzzle, whose tiles the symmetries relabel.
TEST(DefinedSearchTest, SymmetryClassesKeepAnEntryPerClassAtTheBruteForcesDistance) {
  struct Case {
    std::string text;
    int order;
    uint64_t size;
  };
  for (const Case& c : std::vector<Case>{
           {TwoColourBoard(3, 3, {1, 1, 1, 1, 3, 2, 2, 2, 2}, false), 2, 5 * 70},
           {TwoColourBoard(3, 3, {1, 2, 1, 2, 3, 2, 1, 2, 1}, false), 8, 3 * 70},
           {TwoColourBoard(3, 5, {1, 1, 1, 1, 1, 1, 1, 3, 2, 2, 2, 2, 2, 2, 2}, true), 2, 8 * 3432},
           // The 8-puzzle: the square's eight symmetries relabel its tiles; its 9! placements
           // (the blank's guards read them all: no inner part) in 45,560 classes.
           {testing::DataPuzzle("eight.tws"), 8, 45560},
           // Four distinct tiles in the corners, four alike on the edges: the tiles' order on
           // the corner tiles' cells is the inner part (4! each), relabelled by the symmetries.
           {TwoColourBoard(3, 3, {1, 5, 2, 5, 3, 5, 4, 5, 6}, false), 8, 0}}) {
    auto read = ReadDefinition(c.text, "two_colours.tws");
    ASSERT_TRUE(read.ok()) << read.status();
    const Definition& d = *read;
    const CompiledMoves moves(d);
    const std::vector<DefinedSymmetry> symmetries = FindSymmetries(d, moves, kMaxSymmetries);
    auto index = DefinedIndex::Make(d, moves, uint64_t{1} << 33, {.arrangements = true, .symmetries = &symmetries});
    ASSERT_TRUE(index.ok()) << index.status();
    ASSERT_EQ(index->layout(), 4) << index->why_not_symmetric();
    EXPECT_EQ(index->group_order(), c.order);
    if (c.size > 0) EXPECT_EQ(index->size(), c.size) << index->Describe(d);
    EXPECT_EQ(index->inner_is_order(), c.size == 0);
    const BruteForce all(d);
    // The classes by brute force: each state's images, by the symmetries again and again.
    std::map<uint64_t, std::set<std::string>> classes;  // by number
    std::map<uint64_t, int> class_distance;
    DefinedState image, member;
    for (size_t i = 0; i < all.size(); ++i) {
      const DefinedState& s = all.states()[i];
      const uint64_t r = index->Rank(s.data());
      ASSERT_LT(r, index->size());
      uint64_t checked = 0;
      ASSERT_TRUE(index->RankIfIndexable(s.data(), &checked));
      ASSERT_EQ(checked, r) << d.FormatCompact(s);
      classes[r].insert(BruteForce::Key(s));
      class_distance[r] = all.distance(i);
      for (const DefinedSymmetry& g : symmetries) {
        g.Apply(d, s, &image);
        ASSERT_EQ(index->Rank(image.data()), r) << d.FormatCompact(s) << " and its image " << d.FormatCompact(image);
      }
    }
    std::map<int, uint64_t> states_by_size;
    std::vector<std::pair<uint64_t, int>> small;
    for (const auto& [r, members] : classes) {
      ASSERT_EQ(index->ClassSize(r), static_cast<int>(members.size()));
      EXPECT_EQ(c.order % static_cast<int>(members.size()), 0);
      if (static_cast<int>(members.size()) < c.order) small.emplace_back(r, static_cast<int>(members.size()));
      member.assign(d.state_bytes(), 0);
      std::set<std::string> made;
      for (int j = 0; j < index->ClassSize(r); ++j) {
        index->ClassMember(r, j, member.data());
        made.insert(BruteForce::Key(member));
        ASSERT_EQ(index->ImageOf(member.data()), j) << d.FormatCompact(member);
      }
      ASSERT_EQ(made, members) << r;
      index->Unrank(r, member.data());
      ASSERT_TRUE(members.contains(BruteForce::Key(member))) << "the number's own state is of its class";
    }
    std::vector<std::pair<uint64_t, int>> listed;  // the small classes of reached states
    for (const auto& one : index->SmallClasses()) {
      if (classes.contains(one.first)) listed.push_back(one);
    }
    EXPECT_EQ(listed, small);
    std::vector<uint64_t> histogram;
    for (const auto& [r, distance] : class_distance) {
      if (histogram.size() <= static_cast<size_t>(distance)) histogram.resize(static_cast<size_t>(distance) + 1, 0);
      ++histogram[static_cast<size_t>(distance)];
    }
    for (const int threads : {1, 2}) {
      DefinedSearchOptions options;
      options.threads = threads;
      auto searched = SearchDefinition(d, moves, *index, options);
      ASSERT_TRUE(searched.ok()) << searched.status();
      EXPECT_EQ(searched->histogram, histogram) << "classes by distance, on " << threads << " threads";
      const PackedTable& t = searched->entries;
      ASSERT_EQ(t.encoding(), storage::v1::DISTANCE_MOD3);
      for (const auto& [r, distance] : class_distance) ASSERT_EQ(t.Get(r), distance % 3) << r;
      uint64_t holes = 0;
      for (uint64_t r = 0; r < index->size(); ++r) holes += t.Get(r) == PackedTable::kMod3Uncovered ? 1 : 0;
      EXPECT_EQ(holes, index->size() - classes.size());
    }
  }
  // A board that no symmetry keeps stays layout 3; pieces that turn take no classes (the
  // index says why).
  auto read = ReadDefinition(TwoColourBoard(3, 4, {1, 1, 1, 1, 1, 3, 2, 2, 2, 2, 2, 2}, true), "uneven.tws");
  ASSERT_TRUE(read.ok());
  const CompiledMoves moves(*read);
  const std::vector<DefinedSymmetry> none = FindSymmetries(*read, moves, kMaxSymmetries);
  EXPECT_TRUE(none.empty());
  auto index = DefinedIndex::Make(*read, moves, uint64_t{1} << 33, {.arrangements = true, .symmetries = &none});
  ASSERT_TRUE(index.ok());
  EXPECT_EQ(index->layout(), 3);
  const Definition cube = Read("cube2urf.tws");
  const CompiledMoves cube_moves(cube);
  DefinedSymmetry swap;  // positions 1 and 2 exchanged: no symmetry of the cube, never asked
  for (int p = 0; p < cube.state_bytes(); ++p) swap.position.push_back(static_cast<uint16_t>(p));
  std::swap(swap.position[0], swap.position[1]);
  swap.label.assign(1, std::vector<uint8_t>(256));
  for (int l = 0; l < 256; ++l) swap.label[0][static_cast<size_t>(l)] = static_cast<uint8_t>(l);
  const std::vector<DefinedSymmetry> given = {swap};
  auto turned = DefinedIndex::Make(cube, cube_moves, uint64_t{1} << 33, {.arrangements = true, .symmetries = &given});
  ASSERT_TRUE(turned.ok());
  EXPECT_EQ(turned->layout(), 2);
  EXPECT_EQ(turned->why_not_symmetric(), "its pieces turn, which classes do not follow");
}

// The rank that checks its state in the same pass (what a table's walk asks of each state)
// agrees with Indexable and Rank, on states any bytes make, on shuffles of the goal's pieces
// with any orientations (half of them an odd permutation) and on states the moves reach.
TEST(DefinedSearchTest, ARankThatChecksItsStateAgreesWithIndexableAndRank) {
  std::vector<std::pair<std::string, std::string>> files;
  for (const std::string name : {"slide32", "pancake5", "dials3", "cube2urf", "twocolour33"}) {
    files.push_back({name, SampleText(name + ".tws")});
  }
  files.push_back({"knight on 3x4", TwoColourBoard(3, 4, {1, 1, 1, 1, 1, 3, 2, 2, 2, 2, 2, 2}, true)});
  std::mt19937_64 rng(65);
  for (const auto& [name, text] : files) {
    auto read = ReadDefinition(text, name + ".tws");
    ASSERT_TRUE(read.ok()) << read.status();
    const Definition& d = *read;
    const CompiledMoves moves(d);
    for (const bool arrangements : {false, true}) {
      auto index = DefinedIndex::Make(d, moves, uint64_t{1} << 33, {.arrangements = arrangements});
      ASSERT_TRUE(index.ok()) << index.status();
      int valid = 0;
      for (int trial = 0; trial < 6000; ++trial) {
        DefinedState state = d.goals()[0];
        for (const DefinedSet& set : d.sets()) {
          const auto labels = state.begin() + set.offset, end = labels + set.size;
          if (trial % 3 == 0) {
            for (auto it = labels; it != end; ++it) *it = static_cast<uint8_t>(rng() % static_cast<uint64_t>(set.size + 2));
          } else if (trial % 3 == 1) {
            std::shuffle(labels, end, rng);
          }
          if (set.orientations > 1 && trial % 3 != 2) {
            for (int j = 0; j < set.size; ++j) {
              state[static_cast<size_t>(set.offset + set.size + j)] =
                  static_cast<uint8_t>(rng() % static_cast<uint64_t>(set.orientations));
            }
          }
        }
        if (trial % 3 == 2) {  // reached by moves
          DefinedState next;
          for (int step = 0; step < 30; ++step) {
            if (d.Apply(state, static_cast<int>(rng() % d.moves().size()), &next)) state = next;
          }
        }
        uint64_t rank = ~uint64_t{0};
        const bool indexable = index->Indexable(state.data());
        ASSERT_EQ(index->RankIfIndexable(state.data(), &rank), indexable) << name << ": " << d.FormatCompact(state);
        if (indexable) {
          ASSERT_EQ(rank, index->Rank(state.data())) << name << ": " << d.FormatCompact(state);
          ++valid;
        }
      }
      EXPECT_GT(valid, 2000) << name;  // the moves' states at least
    }
  }
}

// A parity every move flips (a sliding puzzle's moves are transpositions): every state's
// distance has it; where moves keep none (a pancake flip of four is even, of two odd), -1.
TEST(DefinedSearchTest, ADistanceHasTheParityEveryMoveFlips) {
  for (const std::string name : {"slide32", "pancake5", "dials3", "cube2urf"}) {
    const Definition d = Read(name + ".tws");
    const CompiledMoves moves(d);
    const DefinedIndex invariants = DefinedIndex::Invariants(d, moves);
    if (name != "slide32") {
      EXPECT_EQ(invariants.DistanceParity(d.goals()[0].data()), -1) << name;
      continue;
    }
    const BruteForce all(d);
    for (size_t i = 0; i < all.size(); ++i) {
      ASSERT_EQ(invariants.DistanceParity(all.states()[i].data()), all.distance(i) % 2)
          << d.FormatCompact(all.states()[i]);
    }
  }
}

// The cube2 puzzle as data: section 6's positions per distance, its index without holes.
TEST(DefinedSearchTest, TheCubeAsDataHasTheModelsCensus) {
  auto searched = SearchAll(Read("cube2urf.tws"), 2);
  ASSERT_TRUE(searched.ok()) << searched.status();
  EXPECT_EQ(searched->index.size(), 3674160u) << "7!.3^6: the orientations' sum is kept";
  EXPECT_EQ(searched->result.histogram,
            (std::vector<uint64_t>{1, 9, 54, 321, 1847, 9992, 50136, 227536, 870072, 1887748,
                                   623800, 2644}));
  EXPECT_EQ(searched->result.entries.encoding(), storage::v1::DISTANCE_MOD3);
}

// What the moves keep shrinks the index: parities that go together, orientation sums;
// a state that breaks them is no number.
TEST(DefinedSearchTest, TheIndexKeepsOnlyWhatTheMovesCanReach) {
  // Two sets of 4, every move a swap in each: their parities go together (4! x 4! / 2);
  // the twists of C add up to 0 (3^3 of 3^4).
  const auto linked = ReadDefinition(
      "Set A 4 1\nSet B 4 1\nSet C 4 3\nSolved\nA\n1 2 3 4\nB\n1 2 3 4\nC\n1 2 3 4\nEnd\n"
      "Move X\nA\n2 1 3 4\nB\n1 2 4 3\nC\n2 3 4 1\n0 1 2 0\nEnd\n"
      "Move Y\nA\n2 3 4 1\nB\n2 3 4 1\nEnd\n",
      "linked.tws");
  ASSERT_TRUE(linked.ok()) << linked.status();
  const CompiledMoves moves(*linked);
  auto index = DefinedIndex::Make(*linked, moves, 1000000);
  ASSERT_TRUE(index.ok()) << index.status();
  EXPECT_EQ(index->size(), 24u * 24u / 2u * 24u * 27u) << index->Describe(*linked);
  const auto one_swap = linked->ParseCompact("2 1 3 4 | 1 2 3 4 | 1 2 3 4 / 0 0 0 0");
  const auto two_swaps = linked->ParseCompact("2 1 3 4 | 2 1 3 4 | 1 2 3 4 / 0 0 0 0");
  const auto twisted = linked->ParseCompact("1 2 3 4 | 1 2 3 4 | 1 2 3 4 / 1 0 0 0");
  ASSERT_TRUE(one_swap.ok() && two_swaps.ok() && twisted.ok());
  EXPECT_FALSE(index->Indexable(one_swap->data()));
  EXPECT_TRUE(index->Indexable(two_swaps->data()));
  EXPECT_FALSE(index->Indexable(twisted->data()));
  // Every number unranks to a state that ranks back to it.
  DefinedState s(linked->state_bytes(), 0);
  for (uint64_t i = 0; i < index->size(); i += 7) {
    index->Unrank(i, s.data());
    ASSERT_TRUE(index->Indexable(s.data())) << i;
    ASSERT_EQ(index->Rank(s.data()), i) << linked->FormatCompact(s);
  }
  auto searched = SearchAll(*linked, 2);
  ASSERT_TRUE(searched.ok()) << searched.status();
  EXPECT_EQ(searched->result.reached(), BruteForce(*linked).size());
  // Past the limit: refused with the size.
  auto big = DefinedIndex::Make(*linked, moves, 1000);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().message(),
            "its states need an index of 186624 numbers (A placements 24 x B placements 12 x C "
            "placements 24 x C orientations 27), more than the limit of 1000 for a complete table");
}

// A sum of a set's orientations that every block keeps modulo a divisor of their number,
// across the set's orbits (the knobs' parity, three dials here: each turn advances two dials
// by one), is in the index where its orientation coordinates are in one part (layout 5):
// half the numbers, each a state that keeps the sum and ranks back to it; the search over
// it (orientations stepped as numbers) finds the brute force's distances. Where one dial
// is read by guards (outer) and another not (inner), the sum stays out of the index.
TEST(DefinedSearchTest, ASumOfOrientationsAcrossOrbitsShrinksTheIndex) {
  const Definition dials = Read("dials3.tws");
  const CompiledMoves moves(dials);
  const DefinedIndexOptions sums{.twist_sums = true};  // a complete table's (not a projection's)
  auto plain = DefinedIndex::Make(dials, moves, 1000000);
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(plain->layout(), 2) << "a projection's index keeps its layout";
  EXPECT_EQ(plain->size(), 64u);
  auto index = DefinedIndex::Make(dials, moves, 1000000, sums);
  ASSERT_TRUE(index.ok()) << index.status();
  EXPECT_EQ(index->layout(), 5);
  EXPECT_EQ(index->size(), 32u) << index->Describe(dials);
  EXPECT_NE(index->Describe(dials).find("D orientations 4^1/2 (the set's sum kept mod 2)"), std::string::npos)
      << index->Describe(dials);
  const BruteForce all(dials);
  int odd = 0;
  for (int code = 0; code < 64; ++code) {
    const auto s = dials.ParseCompact(Cat("1 2 3 / ", code % 4, " ", code / 4 % 4, " ", code / 16));
    ASSERT_TRUE(s.ok()) << s.status();
    const bool even = (code % 4 + code / 4 % 4 + code / 16) % 2 == 0;
    EXPECT_EQ(index->Indexable(s->data()), even) << code;
    uint64_t rank = 0;
    EXPECT_EQ(index->RankIfIndexable(s->data(), &rank), even) << code;
    odd += even ? 0 : 1;
    if (!even) continue;
    EXPECT_EQ(rank, index->Rank(s->data()));
    DefinedState back(dials.state_bytes(), 0);
    index->Unrank(rank, back.data());
    EXPECT_EQ(back, *s) << code;
  }
  EXPECT_EQ(odd, 32);
  auto searched = SearchAll(dials, 2, uint64_t{1} << 33, sums);
  ASSERT_TRUE(searched.ok()) << searched.status();
  EXPECT_EQ(searched->result.histogram, all.Histogram());

  // Guards reading every dial (all outer, the inner part one number: states stepped as
  // numbers, each move's block read from a table by its dial) and an unguarded move, whose
  // powers have no dial to read: the brute force's distances on one thread and on two.
  std::string text = "Set D 3 4\nSolved\nD\n1 2 3\n0 0 0\nEnd\n";
  const char* adds[3][4] = {{"1 1 0", "1 0 1", "1 1 0", "1 0 1"},
                            {"0 1 1", "1 1 0", "0 1 1", "1 1 0"},
                            {"1 0 1", "0 1 1", "0 1 1", "0 1 1"}};
  for (int dial = 1; dial <= 3; ++dial) {
    for (int v = 0; v < 4; ++v) {
      text += Cat("Move M", dial, "\nIf D ", dial, " ", dial, " ", v, "\nD\n1 2 3\n", adds[dial - 1][v], "\nEnd\n");
    }
  }
  text += "Move N\nD\n1 2 3\n1 1 0\nEnd\n";
  const auto wired = ReadDefinition(text, "wired.tws");
  ASSERT_TRUE(wired.ok()) << wired.status();
  for (const int threads : {1, 2}) {
    auto wired_searched = SearchAll(*wired, threads, uint64_t{1} << 33, sums);
    ASSERT_TRUE(wired_searched.ok()) << wired_searched.status();
    EXPECT_EQ(wired_searched->index.layout(), 5) << wired_searched->index.Describe(*wired);
    EXPECT_EQ(wired_searched->result.histogram, BruteForce(*wired).Histogram()) << threads << " threads";
  }

  const auto split = ReadDefinition(
      "Set D 2 4\nSolved\nD\n1 2\n0 0\nEnd\n"
      "Move M\nIf D 1 1 0\nD\n1 2\n1 1\nEnd\n"
      "Move M\nIf D 1 1 2\nD\n1 2\n3 1\nEnd\n"
      "Move N\nD\n1 2\n2 0\nEnd\n",
      "split.tws");
  ASSERT_TRUE(split.ok()) << split.status();
  const CompiledMoves split_moves(*split);
  auto split_index = DefinedIndex::Make(*split, split_moves, 1000000, sums);
  ASSERT_TRUE(split_index.ok()) << split_index.status();
  EXPECT_EQ(split_index->size(), 16u) << split_index->Describe(*split);
  EXPECT_NE(split_index->layout(), 5);
  const auto odd_state = split->ParseCompact("1 2 / 1 0");
  ASSERT_TRUE(odd_state.ok());
  EXPECT_TRUE(split_index->Indexable(odd_state->data()));
  EXPECT_FALSE(split_index->Possible(odd_state->data())) << "the sum still proves it unsolvable";
  auto split_searched = SearchAll(*split, 2, uint64_t{1} << 33, sums);
  ASSERT_TRUE(split_searched.ok()) << split_searched.status();
  EXPECT_EQ(split_searched->result.histogram, BruteForce(*split).Histogram());
}

// The placements of repeated labels are numbered in the lexicographic order of the labels
// position by position (docs/FORMAT.md), the same whether a rank reads the tables of a small
// multiset or works each step out (a multiset too large for them).
TEST(DefinedSearchTest, RepeatedLabelsAreNumberedInLexicographicOrder) {
  struct Case {
    std::vector<int> goal;  // the labels of a set moved round by one cycle
    uint64_t checked;       // arrangements checked from the first
  };
  // 7!/(2!2!2!) = 630, all of them; 23 positions of six labels, past the tables' size.
  const Case cases[] = {{{1, 1, 2, 2, 3, 3, 4}, 630},
                        {{1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6}, 5000}};
  for (const Case& c : cases) {
    const size_t n = c.goal.size();
    std::string text = Cat("Set A ", n, " 1\nSolved\nA\n");
    for (int label : c.goal) text += Cat(label, " ");
    text += "\nEnd\nMove X\nA\n";
    for (size_t p = 0; p < n; ++p) text += Cat((p + 1) % n + 1, " ");
    text += "\nEnd\n";
    const auto definition = ReadDefinition(text, "multiset.tws");
    ASSERT_TRUE(definition.ok()) << definition.status();
    const CompiledMoves moves(*definition);
    auto index = DefinedIndex::Make(*definition, moves, uint64_t{1} << 50);
    ASSERT_TRUE(index.ok()) << index.status();
    DefinedState state(c.goal.begin(), c.goal.end());
    DefinedState unranked(n, 0);
    for (uint64_t i = 0; i < c.checked; ++i) {
      ASSERT_EQ(index->Rank(state.data()), i) << definition->FormatCompact(state);
      index->Unrank(i, unranked.data());
      ASSERT_EQ(unranked, state) << i;
      const bool more = std::next_permutation(state.begin(), state.end());
      ASSERT_EQ(more, i + 1 < index->size()) << i;
    }
  }
}

// Two blocks of one move that both apply in a reachable state: the file is refused, naming
// the move, the blocks' lines and the state.
TEST(DefinedSearchTest, TwoBlocksApplyingInOneStateAreRefused) {
  const auto d = ReadDefinition(
      "Set T 3 1\nSolved\nT\n1 2 3\nEnd\n"
      "Move M\nIf T 1 1\nT\n2 1 3\nEnd\n"   // lines 6-9
      "Move M\nIf T 3 3\nT\n1 3 2\nEnd\n",  // lines 11-14: both hold at the goal
      "clash.tws");
  ASSERT_TRUE(d.ok()) << d.status();
  const auto searched = SearchAll(*d, 2);
  ASSERT_FALSE(searched.ok());
  EXPECT_EQ(searched.status().message(),
            "Move M: its blocks at lines 6 and 11 both apply in the reachable state 1 2 3 (at most "
            "one block of a move may apply in any state)");
}

}  // namespace definition_test
}  // namespace puzzledb
