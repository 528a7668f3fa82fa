// The default database, built once per test run by the build_test_db fixture with the real
// puzzledb-build: the published facts, table walks against live search, the samples
// through the CLI with --db, verify.
#include <filesystem>
#include <random>
#include <sstream>

#include "core/puzzles/knight.h"
#include "core/puzzles/knobs.h"
#include "core/puzzles/rotation.h"
#include "core/solver.h"
#include "gtest/gtest.h"
#include "tests/brute_force.h"
#include "tests/test_util.h"

namespace puzzledb {
namespace {

const std::string kDb = PUZZLEDB_TEST_DB;

class FullDbTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto store = TableStore::Open(kDb, TableStore::Mode::kReadOnly);
    ASSERT_TRUE(store.ok()) << store.status() << " (the build_test_db fixture builds it)";
    store_ = new std::shared_ptr<TableStore>(std::move(*store));
    solver_ = new Solver(*store_);
  }
  static void TearDownTestSuite() {
    delete solver_;
    delete store_;
  }
  static std::shared_ptr<TableStore>* store_;
  static Solver* solver_;
};
std::shared_ptr<TableStore>* FullDbTest::store_ = nullptr;
Solver* FullDbTest::solver_ = nullptr;

TEST_F(FullDbTest, KnightTableHasThePublishedHistogram) {
  auto m = (*store_)->ReadMetadata("knight");
  ASSERT_TRUE(m.ok()) << m.status();
  const std::vector<uint64_t> published = {
      1,       8,       14,      38,      148,     368,     1001,    2440,    6468,    14116,
      32825,   64782,   137262,  240404,  455522,  716458,  1224370, 1720894, 2645274, 3327210,
      4594399, 5148132, 6372557, 6345924, 6997217, 6160052, 6002337, 4635014, 3942462, 2634392,
      1921476, 1086234, 658300,  300838,  144842,  49078,   17065,   3428,    488,     62};
  EXPECT_EQ(std::vector<uint64_t>(m->histogram().begin(), m->histogram().end()), published);
  EXPECT_EQ(m->state_count(), 67603900u);
  EXPECT_EQ(m->covered_states(), 67603900u);
  EXPECT_EQ(m->max_distance(), 39u);
  EXPECT_TRUE(m->complete());
  EXPECT_EQ(m->encoding(), storage::v1::DISTANCE_MOD3);
}

TEST_F(FullDbTest, RotationAndKnobsTablesHaveThePublishedFacts) {
  auto rotation = (*store_)->ReadMetadata("rotation");
  ASSERT_TRUE(rotation.ok());
  EXPECT_EQ(std::vector<uint64_t>(rotation->histogram().begin(), rotation->histogram().end()),
            (std::vector<uint64_t>{1, 8, 44, 208, 876, 3220, 10498, 30236, 73982, 146466, 208170,
                                   178588, 72941, 10045, 188}));
  int knobs = 0;
  const auto tables = (*store_)->List();
  ASSERT_TRUE(tables.ok());
  for (const auto& m : *tables) {
    if (m.puzzle() != "knobs") continue;
    ++knobs;
    EXPECT_EQ(m.covered_states(), 8388608u) << m.table_id();
    EXPECT_GE(m.max_distance(), 18u);
    EXPECT_LE(m.max_distance(), 20u);
  }
  EXPECT_EQ(knobs, 3);  // data/params/knobs holds three
}

TEST_F(FullDbTest, TheDefaultDatabaseFitsIn32Megabytes) {
  uint64_t bytes = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(kDb)) {
    if (entry.is_regular_file()) bytes += entry.file_size();
  }
  EXPECT_LE(bytes, 32u * 1000 * 1000) << bytes;
}

TEST_F(FullDbTest, KnightExactSamplesComeFromTheTable) {
  const KnightPuzzle knight;
  int checked = 0;
  for (const auto& sample : testing::ParseKnightExact(testing::Golden("knight_exact.txt"))) {
    const auto instance = KnightPuzzle::ParseCompact(sample.board);
    auto solution = solver_->Solve<KnightPuzzle>(*instance, SolveOptions{});
    ASSERT_TRUE(solution.ok()) << solution.status();
    EXPECT_EQ(solution->source, Source::kTable);
    ASSERT_EQ(solution->distance, sample.distance) << sample.board;
    EXPECT_EQ(testing::MoveNames(knight, instance->state, solution->moves), sample.moves)
        << sample.board;
    EXPECT_TRUE(testing::Replays(knight, instance->state, solution->moves));
    ++checked;
  }
  EXPECT_EQ(checked, 10);
}

// Random boards: the table's answer is live search's answer (capped at 15 for uniformly
// random boards, uncapped for scrambles that stay within reach of live search).
TEST_F(FullDbTest, KnightTableEqualsLiveSearch) {
  const KnightPuzzle knight;
  std::mt19937_64 rng(43);
  SolveOptions table, live;
  live.policy = Policy::kSearchOnly;
  table.limits.max_moves = live.limits.max_moves = 15;
  for (int trial = 0; trial < 200; ++trial) {
    const KnightPuzzle::Instance instance{{}, knight.Unrank(rng() % knight.Size())};
    auto a = solver_->Solve<KnightPuzzle>(instance, table);
    auto b = solver_->Solve<KnightPuzzle>(instance, live);
    ASSERT_TRUE(a.ok() && b.ok());
    ASSERT_EQ(a->outcome, b->outcome);
    ASSERT_EQ(a->moves, b->moves);
  }
  table.limits.max_moves = live.limits.max_moves = 0;
  int compared = 0;
  for (int trial = 0; compared < 25; ++trial) {
    KnightBoard s = KnightPuzzle::Goal();
    for (int i = 0; i < 60; ++i) {
      KnightBoard t;
      while (!knight.Apply(s, static_cast<int>(rng() % 8), &t)) {
      }
      s = t;
    }
    const KnightPuzzle::Instance instance{{}, s};
    auto a = solver_->Solve<KnightPuzzle>(instance, table);
    ASSERT_TRUE(a.ok());
    ASSERT_EQ(a->source, Source::kTable);
    ASSERT_TRUE(testing::Replays(knight, s, a->moves));
    if (a->distance > 22) continue;  // live search needs seconds beyond this
    auto b = solver_->Solve<KnightPuzzle>(instance, live);
    ASSERT_TRUE(b.ok());
    ASSERT_EQ(a->distance, b->distance);
    ASSERT_EQ(a->moves, b->moves);
    ++compared;
  }
}

TEST_F(FullDbTest, KnobsTablesEqualLiveSearchOnEverySampleWiring) {
  std::mt19937 rng(44);
  for (const char* sample : {"knobs_9001.in", "knobs_9002.in", "knobs_9003.in"}) {
    const auto base = *KnobsPuzzle::ParseOriginal(testing::Golden(sample))[0].instance;
    SolveOptions live;
    live.policy = Policy::kSearchOnly;
    for (int trial = 0; trial < 60; ++trial) {
      const KnobsPuzzle::Instance instance{base.params, static_cast<uint32_t>(rng() & 0xFFFFFF)};
      auto a = solver_->Solve<KnobsPuzzle>(instance, SolveOptions{});
      auto b = solver_->Solve<KnobsPuzzle>(instance, live);
      ASSERT_TRUE(a.ok() && b.ok());
      ASSERT_EQ(a->source, Source::kTable);
      ASSERT_EQ(a->outcome, b->outcome);
      ASSERT_EQ(a->moves, b->moves);
    }
  }
}

struct Sample {
  std::string name;
  std::string puzzle;
  std::string source = "TABLE";  // knobs_9101's wiring has no table: it is searched
};
void PrintTo(const Sample& sample, std::ostream* os) { *os << sample.name; }

class DbGoldenTest : public ::testing::TestWithParam<Sample> {};

TEST_P(DbGoldenTest, SameOutputFromTheTables) {
  const auto result = testing::RunCommand(
      std::string(PUZZLEDB_CLI) + " solve --db " + kDb + " --puzzle " + GetParam().puzzle,
      testing::Golden(GetParam().name + ".in"));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, testing::Golden(GetParam().name + ".out"));
  const auto json = testing::RunCommand(
      std::string(PUZZLEDB_CLI) + " solve --json --db " + kDb + " --puzzle " + GetParam().puzzle,
      testing::Golden(GetParam().name + ".in"));
  const std::string other = GetParam().source == "TABLE" ? "SEARCH" : "TABLE";
  EXPECT_NE(json.out.find(R"("source":")" + GetParam().source + "\""), std::string::npos) << json.out;
  EXPECT_EQ(json.out.find(R"("source":")" + other + "\""), std::string::npos) << json.out;
}

INSTANTIATE_TEST_SUITE_P(
    Samples, DbGoldenTest,
    ::testing::Values(Sample{"knight_statement", "knight"}, Sample{"knight", "knight"},
                      Sample{"knobs_9001", "knobs"}, Sample{"knobs_9002", "knobs"},
                      Sample{"knobs_9003", "knobs"}, Sample{"knobs_9101_unsolvable", "knobs", "SEARCH"},
                      Sample{"rotation", "rotation"}, Sample{"rotation_statement", "rotation"},
                      Sample{"eight", "eight"}, Sample{"eight_statement", "eight"}),
    [](const auto& info) { return info.param.name; });

TEST(DbVerifyTest, VerifyPassesOnTheDefaultDatabase) {
  const auto result = testing::RunCommand(std::string(PUZZLEDB_BUILD) + " verify --db " + kDb, "");
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_NE(result.out.find("knight: ok"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("rotation: ok"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("eight: ok (181,440 entries"), std::string::npos) << result.out;
}

TEST(DbInfoTest, InfoListsEveryTable) {
  const auto result = testing::RunCommand(std::string(PUZZLEDB_BUILD) + " info --db " + kDb, "");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("6 tables"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("67,603,900 of 67,603,900 covered, complete"), std::string::npos);
  const auto json =
      testing::RunCommand(std::string(PUZZLEDB_BUILD) + " info --json --db " + kDb, "");
  EXPECT_NE(json.out.find(R"("table_id": "knight")"), std::string::npos) << json.out;
}

}  // namespace
}  // namespace puzzledb
