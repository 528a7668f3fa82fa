// The default database, built once per test run by the build_test_db fixture with the real
// puzzledb-build: the published facts, table walks against live search, the samples
// through the CLI with --db, verify.
#include <filesystem>
#include <functional>
#include <random>
#include <regex>
#include <sstream>
#include <tuple>
#include <unordered_map>

#include "core/puzzles/default_tables.h"
#include "core/puzzles/knight.h"
#include "core/puzzles/knobs.h"
#include "core/puzzles/rotation.h"
#include "core/solver.h"
#include "core/search/live_solver.h"
#include "core/table/sampler.h"
#include "core/table/table_walker.h"
#include "core/util/strings.h"
#include "gtest/gtest.h"
#include "tests/brute_force.h"
#include "tests/test_db.h"
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

// The knight's boards per distance 0..39 (docs/PUZZLES.md).
const std::vector<uint64_t> kKnightPublished = {
    1,       8,       14,      38,      148,     368,     1001,    2440,    6468,    14116,
    32825,   64782,   137262,  240404,  455522,  716458,  1224370, 1720894, 2645274, 3327210,
    4594399, 5148132, 6372557, 6345924, 6997217, 6160052, 6002337, 4635014, 3942462, 2634392,
    1921476, 1086234, 658300,  300838,  144842,  49078,   17065,   3428,    488,     62};

TEST_F(FullDbTest, KnightTableHasThePublishedHistogram) {
  auto m = (*store_)->ReadMetadata("knight");
  ASSERT_TRUE(m.ok()) << m.status();
  const std::vector<uint64_t>& published = kKnightPublished;
  // The table holds classes {board, its mirror}: a class at distance d is two boards there,
  // or one when the board is its own mirror (docs/FORMAT.md).
  const KnightPuzzle knight;
  auto table = (*store_)->Load("knight");
  ASSERT_TRUE(table.ok()) << table.status();
  const TableWalker<KnightPuzzle> walker(knight, *table);
  std::vector<uint64_t> boards(m->histogram().begin(), m->histogram().end());
  for (uint64_t& classes : boards) classes *= 2;
  for (const KnightBoard& s : KnightClassSpace::SelfMirrored()) {
    uint64_t lookups = 0;
    auto lookup = walker.Lookup(s, &lookups);
    ASSERT_TRUE(lookup.ok()) << lookup.status();
    ASSERT_EQ(lookup->kind, TableLookup::Kind::kCovered);
    --boards[static_cast<size_t>(lookup->distance)];
  }
  EXPECT_EQ(boards, published);
  EXPECT_EQ(m->state_count(), 35154028u);  // 13 x C(24,12)
  EXPECT_EQ(m->covered_states(), 33803998u);  // (67,603,900 + 4,096) / 2
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

// The optimal solutions of a farthest board, counted a second way: depth first with a
// memo of every state's count, each state's distance from the table's own lookup (a walk
// to the goal), not from the layered count's residue rule.
TEST_F(FullDbTest, AnAntipodesCountAgreesWithAMemoizedCount) {
  const KnightPuzzle knight;
  auto antipodes = solver_->Sample(knight, 39, 62, 1, SearchLimits{});
  ASSERT_TRUE(antipodes.ok()) << antipodes.status();
  ASSERT_EQ(antipodes->states.size(), 62u);
  auto table = (*store_)->Load("knight");
  ASSERT_TRUE(table.ok());
  const TableWalker<KnightPuzzle> walker(knight, *table);
  std::unordered_map<uint64_t, unsigned __int128> memo;
  std::function<unsigned __int128(const KnightBoard&, int)> count =
      [&](const KnightBoard& s, int d) -> unsigned __int128 {
    if (d == 0) return knight.IsGoal(s) ? 1 : 0;
    const uint64_t key = knight.Rank(s);
    if (auto it = memo.find(key); it != memo.end()) return it->second;
    unsigned __int128 total = 0;
    for (int m = 0; m < KnightPuzzle::kNumMoves; ++m) {
      KnightBoard t;
      if (!knight.Apply(s, m, &t)) continue;
      uint64_t lookups = 0;
      auto lookup = walker.Lookup(t, &lookups);
      if (lookup.ok() && lookup->distance == d - 1) total += count(t, d - 1);
    }
    memo[key] = total;
    return total;
  };
  // The first antipode in rank order, so that the board does not depend on the seed.
  std::vector<KnightBoard> boards = antipodes->states;
  std::sort(boards.begin(), boards.end(),
            [&](const KnightBoard& a, const KnightBoard& b) { return knight.Rank(a) < knight.Rank(b); });
  const KnightPuzzle::Instance instance{{}, boards.front()};
  TableStep step = solver_->FromTables(knight, instance, 0);
  auto paths = solver_->Optimal<KnightPuzzle>(instance, step, 3, SearchLimits{});
  ASSERT_TRUE(paths.ok()) << paths.status();
  const unsigned __int128 expected = count(instance.state, 39);
  EXPECT_EQ(DecimalString(paths->count), DecimalString(expected));
  EXPECT_GT(paths->count, 1000u);
  ASSERT_EQ(paths->first.size(), 3u);
  EXPECT_EQ(paths->first[0], step.answer->moves);
  for (const auto& moves : paths->first) EXPECT_TRUE(testing::Replays(knight, instance.state, moves));
}

// puzzledb sample prints the original input: solve reads it back, every state at the
// distance asked.
TEST(DbCliSampleTest, SampledStatesSolveToTheirDistance) {
  const std::string cli = std::string(PUZZLEDB_CLI) + " --db " + kDb;
  for (const auto& [puzzle, distance, extra] : std::vector<std::tuple<std::string, int, std::string>>{
           {"knight", 39, ""}, {"eight", 30, ""}, {"rotation", 13, ""},
           {"knobs", 12, std::string(" --wiring ") + PUZZLEDB_GOLDEN_DIR + "/knobs_9002.in"}}) {
    const auto sampled = testing::RunCommand(
        cli + " sample -p " + puzzle + " -d " + std::to_string(distance) + " -n 5 --seed 3" + extra, "");
    ASSERT_EQ(sampled.exit_code, 0) << sampled.err;
    EXPECT_NE(sampled.err.find(" states at distance " + std::to_string(distance)), std::string::npos)
        << sampled.err;
    const auto again = testing::RunCommand(
        cli + " sample -p " + puzzle + " -d " + std::to_string(distance) + " -n 5 --seed 3" + extra, "");
    EXPECT_EQ(again.out, sampled.out);
    const auto solved = testing::RunCommand(
        cli + " solve --json --max-moves 0 --count -p " + puzzle, sampled.out);
    ASSERT_EQ(solved.exit_code, 0) << solved.err;
    int cases = 0;
    const std::string field = "\"distance\":" + std::to_string(distance) + "}";  // the last field
    for (size_t at = solved.out.find(field); at != std::string::npos;
         at = solved.out.find(field, at + 1)) {
      ++cases;
    }
    EXPECT_EQ(cases, 5) << solved.out;
    EXPECT_EQ(solved.out.find("\"optimal_count\":\"\""), std::string::npos) << solved.out;
  }
  // The farthest knight boards: 62, and the count after each answer.
  const auto all = testing::RunCommand(cli + " sample -p knight -d max -n 100 --seed 1", "");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_NE(all.err.find("62 of 62 states at distance 39"), std::string::npos) << all.err;
  const auto counted = testing::RunCommand(cli + " solve -p knight --max-moves 0 --count", all.out);
  ASSERT_EQ(counted.exit_code, 0) << counted.err;
  std::istringstream lines(counted.out);
  std::string distance, count;
  int answers = 0;
  while (std::getline(lines, distance) && std::getline(lines, count)) {
    EXPECT_EQ(distance, "39");
    EXPECT_GT(std::stoull(count), 1000u);
    ++answers;
  }
  EXPECT_EQ(answers, 62);
  // --all-optimal lists them, the first the answer's.
  const auto listed = testing::RunCommand(cli + " solve -p eight --all-optimal 4 --count", "283104765\n");
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_EQ(listed.out, "4\n1\nU L D R\n");
}

TEST(DbCliSampleTest, SampleRefusesWhatItCannotDo) {
  const std::string cli = std::string(PUZZLEDB_CLI) + " --db " + kDb;
  struct Case {
    std::string args;
    int exit_code;
    std::string words;
  };
  for (const Case& c : std::vector<Case>{
           {"sample -p knight -d far", 2, "--distance 'far' is not a distance"},
           {"sample -p knight -d 300", 2, "is not a distance from 0 to 255"},
           {"sample -p knobs -d 3", 2, "give them with --wiring FILE"},
           {"sample -p knight -d 3 --params /dev/null", 2, "has no parameters"},
           {"sample -p knobs -d 3 --wiring /nonexistent", 2, "cannot read the parameter file"},
           {"sample -p knight -d 3 -n 10001", 2, "10001"},
           {"sample -p chess -d 3", 2, "chess"},
       }) {
    const auto result = testing::RunCommand(cli + " " + c.args, "");
    EXPECT_EQ(result.exit_code, c.exit_code) << c.args << ": " << result.err;
    EXPECT_NE(result.err.find(c.words), std::string::npos) << c.args << ": " << result.err;
  }
  // Without a database nothing can be sampled, and counting needs a table.
  const auto none = testing::RunCommand(std::string(PUZZLEDB_CLI) + " sample -p eight -d 3", "");
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("no database is open"), std::string::npos) << none.err;
  const auto uncounted =
      testing::RunCommand(std::string(PUZZLEDB_CLI) + " solve -p eight --count", "283104765\n");
  EXPECT_EQ(uncounted.exit_code, 1);
  EXPECT_NE(uncounted.err.find("needs a table"), std::string::npos) << uncounted.err;
}

// `puzzledb bench --db`: the embedded path's figures for every puzzle (that it runs and
// reports consistent figures, not how fast), and the usage errors of the mode.
TEST(DbCliBenchTest, InProcessBenchReportsEveryPuzzle) {
  const std::string cli = std::string(PUZZLEDB_CLI) + " --db " + kDb;
  auto number = [](const std::string& json, const std::string& key) {
    std::smatch match;
    if (!std::regex_search(json, match, std::regex("\"" + key + "\":([0-9.]+)"))) return -1.0;
    return std::stod(match[1]);
  };
  for (const std::string puzzle : {"knight", "knobs", "rotation", "eight"}) {
    const auto run = testing::RunCommand(cli + " bench --json --seconds 0.2 -p " + puzzle, "");
    ASSERT_EQ(run.exit_code, 0) << puzzle << ": " << run.err;
    EXPECT_NE(run.out.find("\"mode\":\"inprocess\",\"concurrency\":1,"), std::string::npos)
        << run.out;
    EXPECT_EQ(number(run.out, "errors"), 0) << run.out;
    EXPECT_GT(number(run.out, "solves"), 100) << run.out;
    EXPECT_GT(number(run.out, "p50_us"), 0) << run.out;
    EXPECT_LE(number(run.out, "p50_us"), number(run.out, "p99_us")) << run.out;
    EXPECT_LE(number(run.out, "p99_us"), number(run.out, "max_us")) << run.out;
  }
  const auto threads =
      testing::RunCommand(cli + " bench -p knight --seconds 0.2 --concurrency 2", "");
  EXPECT_EQ(threads.exit_code, 0) << threads.err;
  EXPECT_NE(threads.out.find("knight, inprocess, 2 threads"), std::string::npos) << threads.out;
  struct Case {
    std::string args;
    std::string words;
  };
  for (const Case& c : std::vector<Case>{
           {" bench --mode inprocess", "answers from the tables of --db DIR"},
           {" bench", "give the server to load with --server ADDR, or a database"},
           {" --server 127.0.0.1:1 bench --mode inprocess", "drop --server"},
           {" --db " + kDb + " --server 127.0.0.1:1 bench", "exclude each other"},
           {" --db " + kDb + " --tls-ca /dev/null bench", "apply only with --server"},
       }) {
    const auto result = testing::RunCommand(std::string(PUZZLEDB_CLI) + c.args, "");
    EXPECT_EQ(result.exit_code, 2) << c.args << ": " << result.err;
    EXPECT_NE(result.err.find(c.words), std::string::npos) << c.args << ": " << result.err;
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

// The census of puzzles whose tables hold other entries than positions: the knight's (mirror
// pairs) as published, the rotation game's (placements of one colour) every one of its
// 24! / (8! 8! 8!) positions; pattern tables give none, and say why.
TEST(DbCensusTest, EveryPuzzleWithACompleteTableHasACensus) {
  const auto knight = testing::RunCommand(std::string(PUZZLEDB_CLI) + " census --db " + kDb + " --puzzle knight", "");
  ASSERT_EQ(knight.exit_code, 0) << knight.err;
  std::string want;
  for (size_t d = 0; d < kKnightPublished.size(); ++d) want += Cat(d, " ", kKnightPublished[d], "\n");
  EXPECT_EQ(knight.out, want);
  EXPECT_NE(knight.err.find("mirror"), std::string::npos) << knight.err;

  const auto rotation = testing::RunCommand(std::string(PUZZLEDB_CLI) + " census --db " + kDb + " --puzzle rotation", "");
  ASSERT_EQ(rotation.exit_code, 0) << rotation.err;
  std::istringstream lines(rotation.out);
  uint64_t total = 0;
  int expected_d = 0;
  for (int d; lines >> d;) {
    uint64_t count = 0;
    lines >> count;
    EXPECT_EQ(d, expected_d++);
    EXPECT_GT(count, 0u) << d;
    total += count;
  }
  EXPECT_EQ(total, 9465511770u) << rotation.out;  // 24! / (8! 8! 8!): every position once

  const auto fifteen = testing::RunCommand(std::string(PUZZLEDB_CLI) + " census --db " + kDb + " --puzzle fifteen", "");
  EXPECT_EQ(fifteen.exit_code, 2);
  EXPECT_NE(fifteen.err.find("pattern tables"), std::string::npos) << fifteen.err;
}

TEST(DbInfoTest, InfoListsEveryTable) {
  const auto result = testing::RunCommand(std::string(PUZZLEDB_BUILD) + " info --db " + kDb, "");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find(Cat(testing::TestDbTableIds().size(), " tables")), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("33,803,998 of 35,154,028 covered, complete"), std::string::npos);
  const auto json =
      testing::RunCommand(std::string(PUZZLEDB_BUILD) + " info --json --db " + kDb, "");
  EXPECT_NE(json.out.find(R"("table_id": "knight")"), std::string::npos) << json.out;
}

}  // namespace
}  // namespace puzzledb
