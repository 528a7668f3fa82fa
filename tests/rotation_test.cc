#include "core/puzzles/rotation.h"

#include <algorithm>
#include <random>

#include "gtest/gtest.h"
#include "tests/brute_force.h"

namespace puzzledb {
namespace {

// A board from its 24 values.
RotationBoard Board(const std::vector<uint32_t>& values) {
  auto board = RotationPuzzle::BoardFromValues(values);
  EXPECT_TRUE(board.ok()) << board.status();
  return *board;
}

std::vector<uint32_t> Values(const RotationBoard& board) {
  std::vector<uint32_t> v;
  for (int c = 0; c < 24; ++c) v.push_back(static_cast<uint32_t>(board.Value(c)));
  return v;
}

RotationBoard RandomBoard(std::mt19937& rng) {
  std::vector<uint32_t> values;
  for (uint32_t k = 1; k <= 3; ++k) values.insert(values.end(), 8, k);
  std::shuffle(values.begin(), values.end(), rng);
  return Board(values);
}

// Each move, written as in docs/PUZZLES.md: every listed cell takes the next one's value and the
// first one's value goes to the last.
TEST(RotationTest, MovesShiftTheirLineAsTheTableSays) {
  const int lines[8][7] = {{0, 2, 6, 11, 15, 20, 22},   {1, 3, 8, 12, 17, 21, 23},
                           {10, 9, 8, 7, 6, 5, 4},      {19, 18, 17, 16, 15, 14, 13},
                           {23, 21, 17, 12, 8, 3, 1},   {22, 20, 15, 11, 6, 2, 0},
                           {13, 14, 15, 16, 17, 18, 19}, {4, 5, 6, 7, 8, 9, 10}};
  const RotationPuzzle rotation;
  std::mt19937 rng(2);
  for (int trial = 0; trial < 100; ++trial) {
    const RotationBoard board = RandomBoard(rng);
    const auto before = Values(board);
    for (int m = 0; m < 8; ++m) {
      RotationBoard after;
      rotation.Apply(board, m, &after);
      auto expected = before;
      for (int i = 0; i < 7; ++i) expected[lines[m][i]] = before[lines[m][(i + 1) % 7]];
      ASSERT_EQ(Values(after), expected) << "move " << RotationMoves::Name(m);
      RotationBoard back;
      rotation.Apply(after, RotationPuzzle::InverseMove(m), &back);
      ASSERT_EQ(back, board);
    }
  }
}

TEST(RotationTest, PlacementRankIsABijection) {
  const CentrePlacementSpace space;
  EXPECT_EQ(space.Size(), 735471u);
  uint32_t mask = 0xFF;
  for (uint64_t index = 0; index < space.Size(); ++index) {
    ASSERT_EQ(space.Rank(mask), index);
    ASSERT_EQ(space.Unrank(index), mask);
    mask = NextSubset(mask);
  }
}

// The full placement table equals docs/PUZZLES.md's histogram, and the board bound is
// admissible against it.
TEST(RotationTest, PlacementDistancesMatchThePublishedHistogram) {
  const CentrePlacementSpace space;
  const auto distance = testing::AllDistances(space);
  std::vector<int> histogram(15, 0);
  for (int8_t d : distance) {
    ASSERT_GE(d, 0);
    ++histogram[d];
  }
  EXPECT_EQ(histogram, (std::vector<int>{1, 8, 44, 208, 876, 3220, 10498, 30236, 73982, 146466,
                                         208170, 178588, 72941, 10045, 188}));
  const RotationPuzzle rotation;
  std::mt19937 rng(4);
  for (int i = 0; i < 10000; ++i) {
    const RotationBoard board = RandomBoard(rng);
    int d = 99;
    for (int k = 0; k < 3; ++k) d = std::min<int>(d, distance[space.Rank(board.masks[k])]);
    ASSERT_LE(rotation.LowerBound(board), d);
  }
}

TEST(RotationTest, CompactFormsRoundTripAndRefuseBadValues) {
  const std::string digits = "113231212132321321231232";
  ASSERT_EQ(digits.size(), 24u);
  auto instance = RotationPuzzle::ParseCompact(digits);
  ASSERT_TRUE(instance.ok()) << instance.status();
  EXPECT_EQ(RotationPuzzle::FormatCompact(*instance), digits);
  auto spaced = RotationPuzzle::ParseCompact("1 1 3 2 3 1 2 1 2 1 3 2 3 2 1 3 2 1 2 3 1 2 3 2");
  ASSERT_TRUE(spaced.ok());
  EXPECT_EQ(spaced->state, instance->state);
  EXPECT_EQ(RotationPuzzle::ParseCompact("113231212132321321231234").status().message(),
            "cell 23 holds 4; cells hold 1, 2 or 3");
  EXPECT_EQ(RotationPuzzle::ParseCompact("11323").status().message(),
            "a board has 24 cells, got 5 values");
}

}  // namespace
}  // namespace puzzledb
