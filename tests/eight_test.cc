// The 8-puzzle model: the space, the moves, the parity rule, the bound, the parsers, and
// the answers of live search and of a table against a brute-force search and the samples.
#include "core/puzzles/eight.h"

#include <filesystem>
#include <random>
#include <sstream>

#include "core/search/live_solver.h"
#include "core/solver.h"
#include "core/search/live_solver.h"
#include "core/table/sampler.h"
#include "core/table/table_walker.h"
#include "core/table/table_builder.h"
#include "gtest/gtest.h"
#include "tests/brute_force.h"
#include "tests/test_util.h"

namespace puzzledb {
namespace {

EightBoard Eight(std::string_view digits) {
  auto board = EightPuzzle::BoardFromDigits(digits);
  EXPECT_TRUE(board.ok()) << board.status();
  return *board;
}

std::string Digits(const EightBoard& board) { return EightPuzzle::FormatCompact({{}, board}); }

TEST(EightTest, TheSpaceIsTheHalfThatReachesTheGoalRankedDensely) {
  const EightPuzzle eight;
  ASSERT_EQ(eight.Size(), 181440u);
  std::vector<bool> seen(eight.Size(), false);
  for (uint64_t i = 0; i < eight.Size(); ++i) {
    const EightBoard s = eight.Unrank(i);
    ASSERT_FALSE(EightPuzzle::ProvablyUnsolvable(s)) << i << " " << Digits(s);
    ASSERT_EQ(eight.Rank(s), i) << Digits(s);
    ASSERT_TRUE(EightPuzzle::BoardFromDigits(Digits(s)).ok()) << Digits(s);
  }
  // Every board of the right parity is some Unrank: the ranks of all 9! boards, filtered.
  std::string digits = "012345678";
  uint64_t solvable = 0, unsolvable = 0;
  do {
    const EightBoard s = Eight(digits);
    if (EightPuzzle::ProvablyUnsolvable(s)) {
      ++unsolvable;
      std::array<uint64_t, 1> keys;
      ASSERT_EQ(eight.Project(s, &keys), 0) << digits;
      continue;
    }
    ++solvable;
    const uint64_t rank = eight.Rank(s);
    ASSERT_LT(rank, eight.Size());
    ASSERT_FALSE(seen[rank]) << digits;
    seen[rank] = true;
  } while (std::next_permutation(digits.begin(), digits.end()));
  EXPECT_EQ(solvable, 181440u);
  EXPECT_EQ(unsolvable, 181440u);
}

TEST(EightTest, MovesSlideATileIntoTheEmptyPlace) {
  const EightPuzzle eight;
  // 2 8 3 / 1 0 4 / 7 6 5: the empty place moves up (8 comes down), left, down, right.
  EightBoard s = Eight("283104765");
  const std::vector<std::string> after = {"203184765", "023184765", "123084765", "123804765"};
  for (int i = 0; i < 4; ++i) {
    const int move = std::string("UDLR").find("ULDR"[i]);
    EightBoard t;
    ASSERT_TRUE(eight.Apply(s, move, &t));
    EXPECT_EQ(Digits(t), after[i]) << "move " << "ULDR"[i];
    EightBoard back;
    ASSERT_TRUE(eight.Undo(t, move, &back));
    EXPECT_EQ(back, s);
    EXPECT_EQ(eight.MoveName(s, move), std::string(1, "ULDR"[i]));
    s = t;
  }
  EXPECT_TRUE(eight.IsGoal(s));
  // The corners have two moves, the edges three, the centre four.
  const EightBoard corner = Eight("012345678");
  EightBoard t;
  EXPECT_FALSE(eight.Apply(corner, 0, &t));  // U
  EXPECT_TRUE(eight.Apply(corner, 1, &t));   // D
  EXPECT_FALSE(eight.Apply(corner, 2, &t));  // L
  EXPECT_TRUE(eight.Apply(corner, 3, &t));   // R
}

// The published facts, from a brute-force search over the model's space; the bound is
// admissible and has the right parity on every board.
TEST(EightTest, DistancesHaveThePublishedHistogramAndTheBoundHolds) {
  const EightPuzzle eight;
  const std::vector<int8_t> distance = testing::AllDistances(eight.space());
  std::vector<uint64_t> histogram;
  for (uint64_t i = 0; i < distance.size(); ++i) {
    ASSERT_GE(distance[i], 0) << "rank " << i << " does not reach the goal";
    if (histogram.size() <= static_cast<size_t>(distance[i])) histogram.resize(distance[i] + 1);
    ++histogram[distance[i]];
    const EightBoard s = eight.Unrank(i);
    ASSERT_LE(eight.LowerBound(s), distance[i]) << Digits(s);
    ASSERT_EQ(EightPuzzle::DistanceParity(s), distance[i] & 1) << Digits(s);
  }
  EXPECT_EQ(histogram, (std::vector<uint64_t>{1,     4,     8,     8,     16,    32,    60,   72,
                                              136,   200,   376,   512,   964,   1296,  2368, 3084,
                                              5482,  6736,  11132, 12208, 18612, 18444, 24968,
                                              19632, 22289, 13600, 11842, 4340,  2398,  472,  148}));
}

TEST(EightTest, ParsersNameTheCellAndTheRule) {
  auto cases = EightPuzzle::ParseOriginal("283104765\n\n2 8 3 1 0 4 7 6 5\r\n28310476\n283104769\n"
                                          "283104763\n");
  ASSERT_EQ(cases.size(), 5u);
  ASSERT_TRUE(cases[0].instance.ok());
  ASSERT_TRUE(cases[1].instance.ok());
  EXPECT_EQ(cases[1].line, 3);
  EXPECT_EQ(cases[0].instance->state, cases[1].instance->state);
  EXPECT_EQ(std::string(cases[2].instance.status().message()),
            "case 3, line 4: a board has 9 cells, got 8 characters: '28310476'");
  EXPECT_EQ(std::string(cases[3].instance.status().message()),
            "case 4, line 5: cell 9 (row 3, column 3) holds '9'; a cell holds a digit 0..8 (0: "
            "the empty place): '283104769'");
  EXPECT_EQ(std::string(cases[4].instance.status().message()),
            "case 5, line 6: digit 3 appears twice (cells 3 and 9); a board holds each of 0..8 "
            "once: '283104763'");
  auto empty = EightPuzzle::ParseOriginal("\n \n");
  ASSERT_EQ(empty.size(), 1u);
  EXPECT_FALSE(empty[0].instance.ok());
  EXPECT_NE(empty[0].instance.status().message().find("the input is empty"), std::string::npos);
  auto compact = EightPuzzle::ParseCompact(" 123804765 ");
  ASSERT_TRUE(compact.ok());
  EXPECT_TRUE(EightPuzzle().IsGoal(compact->state));
  EXPECT_EQ(EightPuzzle::FormatCompact(*compact), "123804765");
  EXPECT_FALSE(EightPuzzle::ParseCompact("1238047650").ok());
}

// Every line of eight_paths.txt: live search and a complete table both give the sample's
// distance and lexicographically smallest optimal moves; the wrong parity is UNSOLVABLE
// under every policy, and the original output is the sample's.
TEST(EightTest, LiveSearchAndTheTableGiveTheSamplePaths) {
  const std::string dir = testing::TempPath("eight_table_db");
  std::filesystem::remove_all(dir);
  auto store = TableStore::Open(dir, TableStore::Mode::kReadWrite);
  ASSERT_TRUE(store.ok()) << store.status();
  auto built = BuildTable(EightPuzzle(), **store, BuildOptions{});
  ASSERT_TRUE(built.ok()) << built.status();
  EXPECT_EQ(built->max_distance(), 30u);
  EXPECT_TRUE(built->complete());
  Solver tables(std::shared_ptr<TableStore>(std::move(*store)));
  Solver live;
  const EightPuzzle eight;

  std::istringstream lines(testing::Golden("eight_paths.txt"));
  std::string output;
  int samples = 0;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string digits;
    int expected_distance = 0;
    fields >> digits >> expected_distance;
    std::vector<std::string> expected_moves;
    for (std::string name; fields >> name;) expected_moves.push_back(name);
    const EightPuzzle::Instance instance{{}, Eight(digits)};
    for (Policy policy : {Policy::kSearchOnly, Policy::kTableOnly, Policy::kTableThenSearch}) {
      SolveOptions options;
      options.policy = policy;
      Solver& solver = policy == Policy::kSearchOnly ? live : tables;
      auto solution = solver.Solve<EightPuzzle>(instance, options);
      ASSERT_TRUE(solution.ok()) << digits << ": " << solution.status();
      if (expected_distance < 0) {
        EXPECT_EQ(solution->outcome, Outcome::kUnsolvable) << digits;
        EXPECT_EQ(solution->source,
                  policy == Policy::kSearchOnly ? Source::kSearch : Source::kTable);
        continue;
      }
      ASSERT_EQ(solution->outcome, Outcome::kSolved) << digits;
      EXPECT_EQ(solution->distance, expected_distance) << digits;
      EXPECT_EQ(testing::MoveNames(eight, instance.state, solution->moves), expected_moves)
          << digits << " policy " << static_cast<int>(policy);
      EXPECT_EQ(solution->source,
                policy == Policy::kSearchOnly ? Source::kSearch : Source::kTable);
    }
    auto answer = tables.Solve<EightPuzzle>(instance, SolveOptions{});
    ASSERT_TRUE(answer.ok());
    output += EightPuzzle::FormatOriginalAnswer(instance, eight, *answer);
    ++samples;
  }
  EXPECT_EQ(samples, 19);
  EXPECT_EQ(output, testing::Golden("eight.out"));
  std::filesystem::remove_all(dir);
}

// Random boards: live search (IDA* with the perimeter) equals the brute-force distances and
// the greedy smallest-move walk.
TEST(EightTest, LiveSearchEqualsBruteForceOnRandomBoards) {
  const EightPuzzle eight;
  const std::vector<int8_t> distance = testing::AllDistances(eight.space());
  auto distance_of = [&](const EightBoard& s) { return static_cast<int>(distance[eight.Rank(s)]); };
  const LiveSolver<EightPuzzle> solver(eight);
  std::mt19937_64 rng(8);
  for (int trial = 0; trial < 300; ++trial) {
    const EightBoard s = eight.RandomState(rng);
    auto solution = solver.Solve(s, SearchLimits{});
    ASSERT_TRUE(solution.ok()) << solution.status();
    ASSERT_EQ(solution->distance, distance_of(s)) << Digits(s);
    ASSERT_EQ(solution->moves, testing::GreedyPath(eight, s, distance_of)) << Digits(s);
  }
}

}  // namespace
}  // namespace puzzledb
