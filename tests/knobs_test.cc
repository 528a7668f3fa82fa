#include "core/puzzles/knobs.h"

#include <algorithm>
#include <array>
#include <random>

#include "core/puzzle.h"
#include "core/puzzles/default_tables.h"
#include "gtest/gtest.h"
#include "tests/brute_force.h"
#include "tests/test_util.h"

namespace puzzledb {
namespace {

KnobsPuzzle::Instance Sample(const std::string& name) {
  auto cases = KnobsPuzzle::ParseOriginal(testing::Golden(name));
  EXPECT_EQ(cases.size(), 1u);
  EXPECT_TRUE(cases[0].instance.ok()) << cases[0].instance.status();
  return *cases[0].instance;
}

TEST(KnobsTest, RankIsTheIdentityOnPackedStates) {
  const KnobsPuzzle knobs(Sample("knobs_9001.in").params);
  EXPECT_EQ(knobs.Size(), 16777216u);
  std::mt19937 rng(5);
  for (int i = 0; i < 1000; ++i) {
    const uint64_t index = rng() % knobs.Size();
    EXPECT_EQ(knobs.Rank(knobs.Unrank(index)), index);
  }
  EXPECT_EQ(knobs.Rank(knobs.Unrank(knobs.Size() - 1)), knobs.Size() - 1);
}

// The table's space is the states of even sum, indexed by the state without bit 0: every
// index is one such state and back, every even state has an index, an odd one none.
TEST(KnobsTest, TheSolvableSpaceIndexesTheEvenHalf) {
  const KnobsPuzzle knobs(Sample("knobs_9001.in").params);
  const KnobsSolvableSpace& space = knobs.space();
  EXPECT_EQ(space.Size(), 8388608u);
  std::mt19937 rng(6);
  for (int i = 0; i < 20000; ++i) {
    const uint64_t index = rng() % space.Size();
    const uint32_t s = space.Unrank(index);
    ASSERT_LT(s, 1u << 24);
    ASSERT_FALSE(KnobsPuzzle::ProvablyUnsolvable(s)) << s;
    ASSERT_EQ(space.Rank(s), index);
    // A turn keeps the sum's parity, so the space is closed under Apply and Undo.
    uint32_t t;
    ASSERT_TRUE(space.Apply(s, static_cast<int>(rng() % 12), &t));
    ASSERT_FALSE(KnobsPuzzle::ProvablyUnsolvable(t));
  }
  int odd = 0;
  for (int i = 0; i < 20000; ++i) {
    const auto s = static_cast<uint32_t>(rng() & 0xFFFFFF);
    int sum = 0;
    for (int k = 0; k < 12; ++k) sum += KnobsPuzzle::Knob(s, k);
    std::array<uint64_t, 1> key;
    const int keys = knobs.Project(s, &key);
    ASSERT_EQ(KnobsPuzzle::ProvablyUnsolvable(s), sum % 2 == 1) << s;
    if (sum % 2 == 1) {
      ++odd;
      EXPECT_EQ(keys, 0) << s;
    } else {
      ASSERT_EQ(keys, 1) << s;
      EXPECT_EQ(space.Unrank(key[0]), s);
    }
  }
  EXPECT_GT(odd, 9000);
  EXPECT_LT(odd, 11000);
  EXPECT_EQ(space.Unrank(0), 0u);  // the goal
}

TEST(KnobsTest, ATurnAdvancesTheKnobAndItsWiredKnob) {
  const auto instance = Sample("knobs_9001.in");
  const KnobsPuzzle knobs(instance.params);
  // Knob 1 shows 1 and is wired to knob 10 in state 1: both advance.
  uint32_t next;
  knobs.Apply(instance.state, 0, &next);
  EXPECT_EQ(KnobsPuzzle::Knob(next, 0), 1);
  EXPECT_EQ(KnobsPuzzle::Knob(next, 9), (KnobsPuzzle::Knob(instance.state, 9) + 1) & 3);
  for (int k = 1; k < 12; ++k) {
    if (k != 9) {
      EXPECT_EQ(KnobsPuzzle::Knob(next, k), KnobsPuzzle::Knob(instance.state, k));
    }
  }
}

TEST(KnobsTest, UndoInvertsApplyOnRandomStates) {
  const KnobsPuzzle knobs(Sample("knobs_9002.in").params);
  std::mt19937 rng(9);
  for (int i = 0; i < 100000; ++i) {
    const uint32_t s = rng() & 0xFFFFFF;
    for (int m = 0; m < KnobsPuzzle::kNumMoves; ++m) {
      uint32_t next, back;
      ASSERT_TRUE(knobs.Apply(s, m, &next));
      ASSERT_TRUE(knobs.Undo(next, m, &back));
      ASSERT_EQ(back, s);
    }
  }
}

TEST(KnobsTest, WiringFingerprintsDiffer) {
  const auto a = Sample("knobs_9001.in").params, b = Sample("knobs_9002.in").params;
  EXPECT_NE(a.Fingerprint(), b.Fingerprint());
  EXPECT_EQ(a.Fingerprint(), KnobsWiring::FromNumbers(a.ToNumbers())->Fingerprint());
}

TEST(KnobsTest, CompactFormRoundTrips) {
  const auto instance = Sample("knobs_9003.in");
  const std::string text = KnobsPuzzle::FormatCompact(instance);
  auto parsed = KnobsPuzzle::ParseCompact(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->state, instance.state);
  EXPECT_EQ(parsed->params, instance.params);
  EXPECT_EQ(KnobsPuzzle::ParseCompact("1 2 3").status().message(),
            "a knobs instance has 60 numbers (12 knobs: state and 4 targets), got 3");
}

}  // namespace
}  // namespace puzzledb

namespace puzzledb {
namespace {

// The default database's tables (core/puzzles/default_tables.h): every puzzle without
// parameters by name, and one knobs table per shipped wiring file, each file read whole.
TEST(DefaultTablesTest, NameEveryPuzzleAndEveryShippedWiring) {
  const std::vector<std::string> ids = DefaultTableIds();
  EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end()));
  EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end());
  for (const char* name : {"knight", "rotation", "eight", "fifteen"}) {
    EXPECT_NE(std::find(ids.begin(), ids.end(), name), ids.end()) << name;
  }
  size_t wirings = 0;
  for (const DefaultParamsFile& file : DefaultParamsFiles()) {
    ASSERT_EQ(std::string(file.puzzle), "knobs") << file.name;
    for (const auto& parsed : KnobsPuzzle::ParseOriginal(file.text)) {
      ASSERT_TRUE(parsed.instance.ok()) << file.name << ": " << parsed.instance.status();
      const std::string id = KnobsPuzzle::TableId(parsed.instance->params);
      EXPECT_NE(std::find(ids.begin(), ids.end(), id), ids.end()) << file.name;
      ++wirings;
    }
  }
  EXPECT_EQ(wirings, 3u);  // data/params/knobs/knobs_900{1,2,3}.in
  // One table for each puzzle without parameters, by the registry.
  size_t without_parameters = 0;
  for (const Puzzle* puzzle : Puzzles()) without_parameters += !puzzle->has_parameters();
  EXPECT_EQ(ids.size(), without_parameters + wirings);
}

}  // namespace
}  // namespace puzzledb
