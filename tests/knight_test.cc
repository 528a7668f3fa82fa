#include "core/puzzles/knight.h"

#include <random>
#include <set>

#include "gtest/gtest.h"
#include "tests/brute_force.h"

namespace puzzledb {
namespace {

KnightBoard Knight(std::string_view cells) {
  auto board = KnightPuzzle::BoardFromCells(cells);
  EXPECT_TRUE(board.ok()) << board.status();
  return *board;
}

TEST(KnightTest, RankIsABijectionAtTheEndsAndAtRandom) {
  const KnightPuzzle knight;
  EXPECT_EQ(knight.Size(), 67603900u);
  for (uint64_t index : {uint64_t{0}, uint64_t{1}, knight.Size() / 2, knight.Size() - 1}) {
    EXPECT_EQ(knight.Rank(knight.Unrank(index)), index);
  }
  std::mt19937_64 rng(11);
  for (int i = 0; i < 200000; ++i) {
    const uint64_t index = rng() % knight.Size();
    const KnightBoard board = knight.Unrank(index);
    ASSERT_EQ(PopCount(board.white), 12);
    ASSERT_EQ(board.white & (1u << board.blank), 0u);
    ASSERT_EQ(knight.Rank(board), index);
  }
}

TEST(KnightTest, GoalMatchesTheStatement) {
  const KnightPuzzle knight;
  EXPECT_EQ(Knight("11111" "01111" "00*11" "00001" "00000"), KnightPuzzle::Goal());
  EXPECT_TRUE(knight.IsGoal(Knight("11111" "01111" "00*11" "00001" "00000")));
  EXPECT_FALSE(knight.IsGoal(Knight("11111" "01111" "0*011" "00001" "00000")));
}

TEST(KnightTest, MovesAreInDestinationOrderWithCellNames) {
  const KnightPuzzle knight;
  const KnightBoard goal = KnightPuzzle::Goal();
  std::vector<std::string> names;
  for (int m = 0; m < KnightPuzzle::kNumMoves; ++m) names.push_back(knight.MoveName(goal, m));
  EXPECT_EQ(names, (std::vector<std::string>{"b1", "d1", "a2", "e2", "a4", "e4", "b5", "d5"}));
  // From a corner only two jumps exist.
  const KnightBoard corner = Knight("*1111" "01111" "10011" "00001" "00000");
  int legal = 0;
  for (int m = 0; m < KnightPuzzle::kNumMoves; ++m) {
    KnightBoard next;
    if (knight.Apply(corner, m, &next)) {
      ++legal;
      EXPECT_TRUE(knight.MoveName(corner, m) == "c2" || knight.MoveName(corner, m) == "b3");
    }
  }
  EXPECT_EQ(legal, 2);
}

TEST(KnightTest, UndoInvertsApplyOnRandomStates) {
  const KnightPuzzle knight;
  std::mt19937_64 rng(3);
  for (int i = 0; i < 50000; ++i) {
    const KnightBoard s = knight.Unrank(rng() % knight.Size());
    for (int m = 0; m < KnightPuzzle::kNumMoves; ++m) {
      KnightBoard next, back;
      if (!knight.Apply(s, m, &next)) continue;
      ASSERT_TRUE(knight.Undo(next, m, &back));
      ASSERT_EQ(back, s);
      ASSERT_EQ(PopCount(next.white), 12);
    }
  }
}

// The half turn with the colours swapped is an automorphism of the move graph that fixes
// the goal (so mirrored boards are equally far): an involution, the goal its own mirror,
// and every move commuting with it as MirrorMove; checked on the first layers too.
TEST(KnightTest, MirrorIsASymmetryOfTheMoveGraph) {
  const KnightPuzzle knight;
  EXPECT_EQ(ReverseLowBits(0b1, 25), 1u << 24);
  EXPECT_EQ(ReverseLowBits(0b00110, 5), 0b01100u);
  EXPECT_EQ(ReverseLowBits(0b00011, 5), 0b11000u);
  EXPECT_EQ(KnightPuzzle::Mirror(KnightPuzzle::Goal()), KnightPuzzle::Goal());
  std::mt19937_64 rng(7);
  int self_mirrored = 0;
  for (int i = 0; i < 50000; ++i) {
    const KnightBoard s = knight.Unrank(rng() % knight.Size());
    const KnightBoard m = KnightPuzzle::Mirror(s);
    ASSERT_EQ(PopCount(m.white), 12);
    ASSERT_EQ(m.white & (1u << m.blank), 0u);
    ASSERT_EQ(KnightPuzzle::Mirror(m), s);
    if (m == s) {
      ++self_mirrored;
      ASSERT_EQ(s.blank, KnightPuzzle::kGoalBlank);
    }
    for (int move = 0; move < KnightPuzzle::kNumMoves; ++move) {
      KnightBoard next, mirrored_next;
      const bool legal = knight.Apply(s, move, &next);
      ASSERT_EQ(knight.Apply(m, KnightPuzzle::MirrorMove(move), &mirrored_next), legal);
      if (legal) {
        ASSERT_EQ(KnightPuzzle::Mirror(next), mirrored_next);
      }
    }
  }
  EXPECT_LT(self_mirrored, 50);  // 4,096 of 67.6 M boards: about one in 16,500
  // Exactly 4,096 are their own mirror, all with the empty cell on c3 (docs/PUZZLES.md).
  uint64_t own_mirror = 0;
  const uint64_t centre = KnightPuzzle::kGoalBlank * KnightPuzzle::kMasksPerBlank;
  for (uint64_t r = centre; r < centre + KnightPuzzle::kMasksPerBlank; ++r) {
    const KnightBoard s = knight.Unrank(r);
    own_mirror += KnightPuzzle::Mirror(s) == s;
  }
  EXPECT_EQ(own_mirror, 4096u);
  const auto distance = testing::DistancesWithin(knight, 10);
  for (const auto& [rank, d] : distance) {
    const auto it = distance.find(knight.Rank(KnightPuzzle::Mirror(knight.Unrank(rank))));
    ASSERT_NE(it, distance.end());
    ASSERT_EQ(it->second, d);
  }
}

// The table's space: a board and its mirror share one index, which unranks to the class's
// representative; the c3 block holds the representatives of its boards and holes
// (docs/FORMAT.md, "The knight's space").
TEST(KnightTest, TheClassSpaceFoldsEachBoardWithItsMirror) {
  const KnightPuzzle knight;
  const KnightClassSpace& space = knight.space();
  EXPECT_EQ(space.Size(), 35154028u);  // 13 x C(24,12)
  std::mt19937_64 rng(7);
  for (int i = 0; i < 100000; ++i) {
    const KnightBoard s = knight.Unrank(rng() % knight.Size());
    const KnightBoard m = KnightPuzzle::Mirror(s);
    const uint64_t rank = space.Rank(s);
    ASSERT_LT(rank, space.Size());
    ASSERT_EQ(space.Rank(m), rank);
    const KnightBoard c = KnightClassSpace::Canonical(s);
    ASSERT_TRUE(c == s || c == m);
    ASSERT_LE(c.blank, KnightPuzzle::kGoalBlank);
    ASSERT_EQ(space.Unrank(rank), c);
    std::array<uint64_t, 1> key;
    ASSERT_EQ(knight.Project(s, &key), 1);
    ASSERT_EQ(key[0], rank);
  }
  // The c3 block: (C(24,12) + 4,096) / 2 representatives, the other indices holes.
  uint64_t representatives = 0;
  const uint64_t centre = KnightPuzzle::kGoalBlank * KnightPuzzle::kMasksPerBlank;
  for (uint64_t r = centre; r < space.Size(); ++r) {
    const KnightBoard s = space.Unrank(r);
    const bool represents = KnightClassSpace::Canonical(s) == s;
    representatives += represents;
    ASSERT_EQ(space.Rank(s) == r, represents) << r;
  }
  EXPECT_EQ(representatives, (KnightPuzzle::kMasksPerBlank + 4096) / 2);
  const std::vector<KnightBoard> own = KnightClassSpace::SelfMirrored();
  std::set<uint64_t> ranks;
  for (const KnightBoard& b : own) {
    ASSERT_EQ(KnightPuzzle::Mirror(b), b);
    ranks.insert(space.Rank(b));
  }
  EXPECT_EQ(ranks.size(), 4096u);
}

// The first layers of the breadth-first search equal docs/PUZZLES.md's counts, which checks the
// moves, and the bound is admissible with the right parity on every one of those states.
TEST(KnightTest, LayersNearTheGoalAndTheBoundAgreeWithBreadthFirstSearch) {
  const KnightPuzzle knight;
  const auto distance = testing::DistancesWithin(knight, 10);
  std::vector<int> histogram(11, 0);
  for (const auto& [rank, d] : distance) {
    ++histogram[d];
    const KnightBoard s = knight.Unrank(rank);
    ASSERT_LE(knight.LowerBound(s), d);
    ASSERT_EQ(d % 2, KnightPuzzle::DistanceParity(s));
  }
  EXPECT_EQ(histogram, (std::vector<int>{1, 8, 14, 38, 148, 368, 1001, 2440, 6468, 14116, 32825}));
}

TEST(KnightTest, CompactFormRoundTripsAndRefusesBadBoards) {
  const std::string text = "010100*000110001010111111";
  auto instance = KnightPuzzle::ParseCompact(text);
  ASSERT_TRUE(instance.ok()) << instance.status();
  EXPECT_EQ(KnightPuzzle::FormatCompact(*instance), text);
  EXPECT_EQ(KnightPuzzle::ParseCompact("0101").status().message(),
            "a board has 25 cells, got 4 characters");
  EXPECT_EQ(KnightPuzzle::ParseCompact("01010x*000110001010111111").status().message(),
            "cell a2 holds 'x'; a cell holds '1' (white knight), '0' (black knight) or '*' (empty)");
  EXPECT_EQ(KnightPuzzle::ParseCompact("0101000000110001010111111").status().message(),
            "the board has 0 empty cells '*'; it must have exactly 1");
  EXPECT_EQ(KnightPuzzle::ParseCompact("110100*000110001010111111").status().message(),
            "the board has 13 white knights '1' and 11 black knights '0'; it must have 12 of each");
}

}  // namespace
}  // namespace puzzledb
