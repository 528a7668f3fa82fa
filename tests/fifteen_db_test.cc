// The fifteen puzzle over the 7-8 pattern tables, built once per test run by the
// build_fifteen_db fixture with the real puzzledb-build: Korf's 100 instances exactly
// (distance and the lexicographically smallest moves), boards at 80, verify, and a
// damaged table that verify catches and the solver never trusts.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/puzzles/fifteen.h"
#include "core/solver.h"
#include "core/search/live_solver.h"
#include "core/table/sampler.h"
#include "core/table/table_walker.h"
#include "core/table/table_format.h"
#include "core/sliding/pattern_sampler.h"
#include "core/util/strings.h"
#include "gtest/gtest.h"
#include "rocksdb/db.h"
#include "tests/test_util.h"

namespace puzzledb {
namespace {

const std::string kDb = PUZZLEDB_FIFTEEN_DB;

struct Published {
  FifteenPuzzle::Instance instance;
  int distance = 0;
  std::string moves;  // empty where the file gives none
};

std::vector<Published> ReadBoards(const std::string& name) {
  std::vector<Published> boards;
  std::istringstream in(testing::Golden(name));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::array<int, 16> cells{};
    for (int& c : cells) fields >> c;
    Published p;
    auto board = FifteenPuzzle::BoardFromCells(cells);
    EXPECT_TRUE(board.ok()) << line;
    p.instance.state = *board;
    fields >> p.distance >> p.moves;
    boards.push_back(p);
  }
  return boards;
}

std::string Letters(const Solution& s) {
  std::string out;
  for (uint8_t m : s.moves) out += "UDLR"[m];
  return out;
}

class FifteenDbTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto store = TableStore::Open(kDb, TableStore::Mode::kReadOnly);
    ASSERT_TRUE(store.ok()) << store.status() << " (the build_fifteen_db fixture builds it)";
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
std::shared_ptr<TableStore>* FifteenDbTest::store_ = nullptr;
Solver* FifteenDbTest::solver_ = nullptr;

TEST_F(FifteenDbTest, TheTableHoldsThe78SetWithItsFigures) {
  auto m = (*store_)->ReadMetadata("fifteen-7-8");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->encoding(), storage::v1::PATTERN_EXCESS);
  EXPECT_EQ(m->state_count(), 518918400u + 57657600u);
  EXPECT_EQ(m->parameters_text(), "tiles 1-8/9-15");
  EXPECT_EQ(m->max_distance(), 38u);  // the 8-tile group's farthest placement
  uint64_t entries = 0;
  for (uint64_t h : m->histogram()) entries += h;
  EXPECT_EQ(entries, m->state_count());
  EXPECT_LT(m->stored_bytes(), 250u * 1000 * 1000);
}

TEST_F(FifteenDbTest, KorfsHundredAreExact) {
  const std::vector<Published> boards = ReadBoards("fifteen_korf100.txt");
  ASSERT_EQ(boards.size(), 100u);
  int moves = 0;
  for (const Published& p : boards) {
    auto answer = solver_->Solve<FifteenPuzzle>(p.instance, SolveOptions{});
    ASSERT_TRUE(answer.ok()) << answer.status();
    ASSERT_EQ(answer->outcome, Outcome::kSolved);
    EXPECT_EQ(answer->distance, p.distance);
    EXPECT_EQ(Letters(*answer), p.moves);
    moves += answer->distance;
  }
  EXPECT_EQ(moves, 5305);  // docs/PUZZLES.md
}

TEST_F(FifteenDbTest, BoardsAtEightyAreExact) {
  // Three of the 17 (the benchmark solves all of them): the two with the fewest nodes and
  // the first.
  const std::vector<Published> boards = ReadBoards("fifteen_80.txt");
  ASSERT_EQ(boards.size(), 17u);
  const FifteenPuzzle model;
  for (size_t i : {size_t{0}, size_t{5}, size_t{12}}) {
    auto answer = solver_->Solve<FifteenPuzzle>(boards[i].instance, SolveOptions{});
    ASSERT_TRUE(answer.ok()) << answer.status();
    EXPECT_EQ(answer->distance, 80);
    // The moves reach the goal.
    FifteenBoard s = boards[i].instance.state;
    for (uint8_t m : answer->moves) ASSERT_TRUE(model.Apply(s, m, &s));
    EXPECT_TRUE(model.IsGoal(s));
  }
}

TEST_F(FifteenDbTest, SamplesAreExactWhereTheyCanBeAndRefusedElsewhere) {
  const FifteenPuzzle model;
  auto distance_of = [&](const FifteenBoard& s) {
    auto answer = solver_->Solve<FifteenPuzzle>({{}, s}, SolveOptions{});
    EXPECT_TRUE(answer.ok()) << answer.status();
    return answer.ok() ? answer->distance : -1;
  };
  // Near the goal: every board listed (the perimeter), the published count.
  auto near = solver_->Sample(model, 12, 6, 7, SearchLimits{});
  ASSERT_TRUE(near.ok()) << near.status();
  EXPECT_EQ(near->population, 7808u);
  ASSERT_EQ(near->states.size(), 6u);
  for (const FifteenBoard& s : near->states) EXPECT_EQ(distance_of(s), 12);
  auto again = solver_->Sample(model, 12, 6, 7, SearchLimits{});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->states, near->states);  // the seed decides
  // The middle: uniform boards solved and kept at the distance.
  auto middle = solver_->Sample(model, 52, 3, 11, SearchLimits{});
  ASSERT_TRUE(middle.ok()) << middle.status();
  EXPECT_EQ(middle->population, 763865196269u);
  ASSERT_EQ(middle->states.size(), 3u);
  for (const FifteenBoard& s : middle->states) EXPECT_EQ(distance_of(s), 52);
  // The far end: the 17 known boards.
  auto far = solver_->Sample(model, Sampler<FifteenPuzzle>::kLargest, 20, 1, SearchLimits{});
  ASSERT_TRUE(far.ok()) << far.status();
  EXPECT_EQ(far->distance, 80);
  EXPECT_EQ(far->population, 17u);
  EXPECT_EQ(far->states.size(), 17u);
  const std::vector<FifteenBoard> farthest = FifteenPuzzle::Farthest();
  for (const FifteenBoard& s : far->states) {
    EXPECT_NE(std::find(farthest.begin(), farthest.end(), s), farthest.end());
  }
  // Any distance: uniform among the solvable half.
  auto any = solver_->Sample(model, kAnyDistance, 4, 3, SearchLimits{});
  ASSERT_TRUE(any.ok()) << any.status();
  EXPECT_EQ(any->population, 10461394944000u);
  ASSERT_EQ(any->states.size(), 4u);
  for (const FifteenBoard& s : any->states) EXPECT_FALSE(FifteenPuzzle::ProvablyUnsolvable(s));
  // Between: too few boards to draw, none listed.
  auto between = solver_->Sample(model, 30, 1, 1, SearchLimits{});
  EXPECT_TRUE(absl::IsFailedPrecondition(between.status()));
  EXPECT_NE(between.status().message().find("at distance 30 only 613926161 of 10461394944000"),
            std::string::npos)
      << between.status();
  // The published counts add up to the solvable half.
  uint64_t total = 0;
  for (uint64_t c : FifteenPuzzle::kDistanceCounts) total += c;
  EXPECT_EQ(total, 10461394944000u);
}

TEST_F(FifteenDbTest, AnalyzeGivesEveryMovesDistanceBestFirst) {
  const std::vector<Published> boards = ReadBoards("fifteen_korf100.txt");
  auto analysis = solver_->Analyze<FifteenPuzzle>(boards[0].instance, SolveOptions{});
  ASSERT_TRUE(analysis.ok()) << analysis.status();
  EXPECT_EQ(analysis->position.distance, 57);
  ASSERT_GE(analysis->moves.size(), 2u);
  // The best move is the first move of the smallest optimal solution, one closer.
  EXPECT_EQ(analysis->moves[0].name, boards[0].moves.substr(0, 1));
  EXPECT_EQ(analysis->moves[0].distance, 56);
  for (const MoveAnalysis& m : analysis->moves) {
    EXPECT_TRUE(m.distance == 56 || m.distance == 58) << m.name << " " << m.distance;
  }
  for (size_t i = 1; i < analysis->moves.size(); ++i) {
    EXPECT_LE(analysis->moves[i - 1].distance, analysis->moves[i].distance);
  }
}

TEST_F(FifteenDbTest, SearchOnlyStillSearchesWithThePatternTables) {
  const std::vector<Published> boards = ReadBoards("fifteen_80.txt");
  SolveOptions options;
  options.policy = Policy::kSearchOnly;
  options.limits.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  auto answer = solver_->Solve<FifteenPuzzle>(boards[12].instance, options);
  ASSERT_TRUE(answer.ok()) << answer.status();
  EXPECT_EQ(answer->distance, 80);
  EXPECT_EQ(answer->source, Source::kSearch);
}

TEST_F(FifteenDbTest, TableOnlyIsRefusedWithTheReason) {
  SolveOptions options;
  options.policy = Policy::kTableOnly;
  const std::vector<Published> boards = ReadBoards("fifteen_korf100.txt");
  auto answer = solver_->Solve<FifteenPuzzle>(boards[0].instance, options);
  EXPECT_TRUE(absl::IsFailedPrecondition(answer.status()));
  EXPECT_NE(answer.status().message().find("pattern tables"), std::string::npos)
      << answer.status();
}

// A copy of the database with one page of the table rewritten to hold other entries (its
// own checksums recomputed, so that only verify's search can tell).
TEST(FifteenDamagedTest, VerifyCatchesAForgedPageAndTheSolverRefusesABrokenOne) {
  const std::string dir = testing::TempPath("fifteen-damaged");
  const auto built = testing::RunCommand(
      Cat(PUZZLEDB_BUILD, " --quiet --db ", dir, " --puzzle fifteen --patterns 6-6-3"), "");
  ASSERT_EQ(built.exit_code, 0) << built.err;
  {
    auto store = TableStore::Open(dir, TableStore::Mode::kReadWrite);
    ASSERT_TRUE(store.ok());
    auto table = (*store)->Load("fifteen-6-6-3");
    ASSERT_TRUE(table.ok());
    PackedTable forged = (*table)->entries;
    forged.Set(12345, static_cast<uint8_t>((forged.Get(12345) + 1) % 16));
    TableMetadata m = (*table)->metadata;
    ASSERT_TRUE((*store)->Write(m, forged, TableWriteOptions{}).ok());
  }
  const auto verified = testing::RunCommand(Cat(PUZZLEDB_BUILD, " verify --db ", dir), "");
  EXPECT_EQ(verified.exit_code, 1);
  EXPECT_NE(verified.out.find("fifteen-6-6-3: FAILED: table fifteen-6-6-3: entry 12345 holds"),
            std::string::npos)
      << verified.out;

  // Break a page's bytes on disk: the store's checksums refuse the table, and the solver
  // answers by its own search instead of trusting it.
  {
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(rocksdb::Options(), dir, &raw).ok());
    std::unique_ptr<rocksdb::DB> db(raw);
    std::string metadata;
    ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), MetadataKey("fifteen-6-6-3"), &metadata).ok());
    TableMetadata m;
    ASSERT_TRUE(m.ParseFromString(metadata));
    const std::string key = PageKey("fifteen-6-6-3", m.generation(), 3);
    std::string page;
    ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), key, &page).ok());
    page[page.size() / 2] ^= 0x5A;
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), key, page).ok());
  }
  auto store = TableStore::Open(dir, TableStore::Mode::kReadOnly);
  ASSERT_TRUE(store.ok());
  Solver solver(std::move(*store));
  const FifteenPuzzle::Instance statement{{}, *FifteenPuzzle::BoardFromCells(
                                                 {2, 3, 4, 0, 1, 5, 7, 8, 9, 6, 10, 12, 13, 14, 11, 15})};
  auto answer = solver.Solve<FifteenPuzzle>(statement, SolveOptions{});
  ASSERT_TRUE(answer.ok()) << answer.status();
  EXPECT_EQ(Letters(*answer), "LLLDRDRDR");
  ASSERT_EQ(solver.Refused().count("fifteen-6-6-3"), 1u);
  EXPECT_NE(solver.Refused().at("fifteen-6-6-3").find("page 3"), std::string::npos)
      << solver.Refused().at("fifteen-6-6-3");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace puzzledb
