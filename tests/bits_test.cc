#include "core/util/bits.h"

#include <random>
#include <set>

#include "gtest/gtest.h"

namespace puzzledb {
namespace {

TEST(BinomialsTest, KnownValues) {
  EXPECT_EQ(Binomials::Get(24, 12), 2704156u);
  EXPECT_EQ(Binomials::Get(24, 8), 735471u);
  EXPECT_EQ(Binomials::Get(5, 0), 1u);
  EXPECT_EQ(Binomials::Get(5, 6), 0u);
}

TEST(BitsTest, ExtractAndDepositAreInverse) {
  std::mt19937 rng(1);
  for (int i = 0; i < 10000; ++i) {
    const uint32_t mask = rng() & 0x1FFFFFF;
    const uint32_t value = rng() & mask;
    EXPECT_EQ(DepositBits(ExtractBits(value, mask), mask), value);
  }
  EXPECT_EQ(ExtractBits(0b101100, 0b111000), 0b101u);
  EXPECT_EQ(DepositBits(0b11, 0b101000), 0b101000u);
}

// Every k-subset of a small set gets a distinct rank in [0, C(n,k)), ranks follow the
// colexicographic order that NextSubset enumerates, and unranking inverts ranking.
TEST(SubsetRankerTest, ExhaustiveBijectionOnTwelveChooseFive) {
  using Ranker = SubsetRanker<12, 5>;
  uint32_t mask = Ranker::First();
  for (uint64_t rank = 0; rank < Ranker::kCount; ++rank) {
    ASSERT_EQ(Ranker::Rank(mask), rank) << "mask " << mask;
    ASSERT_EQ(Ranker::Unrank(rank), mask);
    ASSERT_EQ(Ranker::UnrankSlowly(rank), mask);
    mask = NextSubset(mask);
  }
  EXPECT_GE(mask, 1u << 12);  // enumeration left the 12-bit range exactly at the end
}

TEST(SubsetRankerTest, KnightMasksRoundTripAtTheEndsAndAtRandom) {
  using Ranker = SubsetRanker<24, 12>;
  EXPECT_EQ(Ranker::Rank(0xFFF), 0u);
  EXPECT_EQ(Ranker::Rank(0xFFF000), Ranker::kCount - 1);
  EXPECT_EQ(Ranker::Unrank(Ranker::kCount - 1), 0xFFF000u);
  std::mt19937_64 rng(7);
  for (int i = 0; i < 100000; ++i) {
    const uint64_t rank = rng() % Ranker::kCount;
    const uint32_t mask = Ranker::Unrank(rank);
    ASSERT_EQ(PopCount(mask), 12);
    ASSERT_EQ(Ranker::Rank(mask), rank);
  }
}

}  // namespace
}  // namespace puzzledb
