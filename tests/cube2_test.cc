// The 2x2x2 cube: its rules against the statement and the published facts, its table
// against a brute-force search, its refusals naming the rule (docs/PUZZLES.md, section 6).
#include "core/puzzles/cube2.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <random>
#include <sstream>

#include "core/puzzle.h"
#include "core/solver.h"
#include "core/table/table_builder.h"
#include "core/table/table_store.h"
#include "core/table/table_walker.h"
#include "gtest/gtest.h"
#include "tests/brute_force.h"
#include "tests/test_util.h"

namespace puzzledb {
namespace {

const Puzzle& Cube() { return *FindPuzzle("cube2"); }

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The statement's answers, by live search (no table) through the runtime puzzle.
TEST(Cube2Test, TheStatementSampleByLiveSearch) {
  const std::string input = testing::Golden("cube2_statement.in");
  const std::vector<std::string> want = Lines(testing::Golden("cube2_statement.out"));
  Solver solver;
  const auto cases = Cube().ParseOriginal(input);
  ASSERT_EQ(cases.size(), want.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    ASSERT_TRUE(cases[i].instance.ok()) << cases[i].instance.status();
    auto solution = solver.Solve(*cases[i].instance, SolveOptions{});
    ASSERT_TRUE(solution.ok()) << solution.status();
    EXPECT_EQ(Cube().FormatOriginalAnswer(*cases[i].instance, *solution), want[i] + "\n");
  }
}

class Cube2TableTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = testing::TempPath("cube2_db");
    std::filesystem::remove_all(dir_);
    auto store = TableStore::Open(dir_, TableStore::Mode::kReadWrite);
    ASSERT_TRUE(store.ok()) << store.status();
    auto built = BuildTable(Cube2Puzzle(), **store, BuildOptions{});
    ASSERT_TRUE(built.ok()) << built.status();
    metadata_ = new TableMetadata(*built);
    solver_ = new Solver(std::shared_ptr<TableStore>(std::move(*store)));
  }
  static void TearDownTestSuite() {
    delete solver_;
    delete metadata_;
    std::filesystem::remove_all(dir_);
  }
  static inline std::string dir_;
  static inline TableMetadata* metadata_ = nullptr;
  static inline Solver* solver_ = nullptr;
};

// The published count of positions at each distance, and God's number.
TEST_F(Cube2TableTest, HoldsThePublishedCountAtEachDistance) {
  const std::vector<uint64_t> published = {1,      9,      54,      321,     1847,   9992,
                                           50136,  227536, 870072,  1887748, 623800, 2644};
  EXPECT_EQ(std::vector<uint64_t>(metadata_->histogram().begin(), metadata_->histogram().end()),
            published);
  EXPECT_EQ(metadata_->state_count(), 3674160u);
  EXPECT_TRUE(metadata_->complete());
  EXPECT_EQ(metadata_->max_distance(), 11u);
}

// Samples at an exact distance: the farthest positions, each answered 11 moves away.
TEST_F(Cube2TableTest, SamplesAtAnExactDistance) {
  auto sample = Cube().Sample(*solver_, Cube().Goal(nullptr), kLargestDistance, 5, 1,
                              SearchLimits{});
  ASSERT_TRUE(sample.ok()) << sample.status();
  EXPECT_EQ(sample->distance, 11);
  EXPECT_EQ(sample->population, 2644u);
  EXPECT_EQ(sample->table_id, "cube2");
  ASSERT_EQ(sample->positions.size(), 5u);
  for (const Position& position : sample->positions) {
    auto solution = solver_->Solve(position, SolveOptions{Policy::kTableOnly, {}});
    ASSERT_TRUE(solution.ok());
    EXPECT_EQ(solution->distance, 11);
  }
}

// The table's answers against a brute-force search of the whole space (its own
// breadth-first search over the model's moves): 3,000 random positions, each answered with
// the brute force's distance and an optimal path that reaches the goal; and every optimal
// count of the statement against a count over the brute-force distances.
TEST_F(Cube2TableTest, AnswersAsABruteForceSearch) {
  const Cube2Puzzle model;
  const std::vector<int8_t> distance = testing::AllDistances(model);
  std::mt19937_64 rng(11);
  for (int i = 0; i < 3000; ++i) {
    const Position position = Cube().Random(Cube().Goal(nullptr), rng);
    auto solution = solver_->Solve(position, SolveOptions{Policy::kTableOnly, {}});
    ASSERT_TRUE(solution.ok()) << solution.status();
    const Cube2State start = position.As<Cube2Puzzle::Instance>().state;
    ASSERT_EQ(solution->distance, distance[model.Rank(start)]) << Cube().FormatCompact(position);
    Cube2State s = start;
    for (const uint8_t m : solution->moves) model.Apply(s, m, &s);
    EXPECT_TRUE(model.IsGoal(s));
  }
  // Optimal solutions counted over the brute force's distances: the paths from a state are
  // the sum of those from each neighbour one closer.
  std::map<uint64_t, uint64_t> memo;
  std::function<uint64_t(const Cube2State&)> paths = [&](const Cube2State& s) -> uint64_t {
    const uint64_t rank = model.Rank(s);
    if (distance[rank] == 0) return 1;
    if (auto it = memo.find(rank); it != memo.end()) return it->second;
    uint64_t total = 0;
    for (int m = 0; m < Cube2Puzzle::kNumMoves; ++m) {
      Cube2State next;
      model.Apply(s, m, &next);
      if (distance[model.Rank(next)] == distance[rank] - 1) total += paths(next);
    }
    return memo[rank] = total;
  };
  const auto cases = Cube().ParseOriginal(testing::Golden("cube2_statement.in"));
  const std::vector<uint64_t> statement_counts = {1, 1, 1, 9, 2, 4, 72};
  ASSERT_EQ(cases.size(), statement_counts.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    const Position& position = *cases[i].instance;
    const TableStep step = Cube().FromTables(*solver_, position, 0);
    ASSERT_TRUE(step.answer.has_value());
    auto counted = Cube().Optimal(*solver_, position, step, 0, SearchLimits{});
    ASSERT_TRUE(counted.ok()) << counted.status();
    const uint64_t brute = paths(position.As<Cube2Puzzle::Instance>().state);
    EXPECT_EQ(static_cast<uint64_t>(counted->count), brute) << i;
    EXPECT_EQ(brute, statement_counts[i]) << i;
  }
}

// The model's invariants on every state of the space's first 100,000 ranks and 1,000
// random ones: the dense index ranks back, the compact form reads back, the cells too.
TEST(Cube2Test, RanksCompactFormsAndCellsReadBack) {
  const Cube2Puzzle model;
  std::mt19937_64 rng(5);
  for (int i = 0; i < 101000; ++i) {
    const uint64_t rank = i < 100000 ? static_cast<uint64_t>(i) : rng() % model.Size();
    const Cube2State s = model.Unrank(rank);
    ASSERT_EQ(model.Rank(s), rank);
    const Position position(Cube(), Cube2Puzzle::Instance{{}, s});
    ASSERT_TRUE(Cube().SelfCheck(position).ok()) << Cube().SelfCheck(position);
    if (i % 97 == 0) {
      auto again = Cube().FromCells(position, Cube().Cells(position));
      ASSERT_TRUE(again.ok()) << again.status();
      EXPECT_EQ(Cube().FormatCompact(*again), Cube().FormatCompact(position));
    }
  }
}

// Any six colours, the cube held any way (the corner at DBL names the faces); the cube keeps
// its colours through every move, its goal, a random cube and the page's cells.
TEST(Cube2Test, ColoursAreNamedByTheCornerAtDblAndKept) {
  auto faces = Cube().ParseCompact("UUUUBBRRRRFFDDDDFFLLLLBB");
  auto colours = Cube().ParseCompact("WWWWBBRRRRGGYYYYGGOOOOBB");
  ASSERT_TRUE(faces.ok() && colours.ok());
  EXPECT_EQ(Cube().FormatCompact(*faces), "UUUUBBRRRRFFDDDDFFLLLLBB");
  EXPECT_EQ(Cube().FormatCompact(*colours), "WWWWBBRRRRGGYYYYGGOOOOBB");
  EXPECT_TRUE(Cube().IsGoal(*Cube().ParseCompact("wwww rrrr gggg yyyy oooo bbbb")));

  // U' undoes the U that made the colours' cube: solved, in its own colours.
  int u_prime = -1;
  for (int m = 0; m < Cube().move_count(); ++m) {
    if (Cube().MoveName(*colours, m) == "U'") u_prime = m;
  }
  Position solved;
  ASSERT_TRUE(Cube().Apply(*colours, u_prime, &solved));
  EXPECT_EQ(Cube().FormatCompact(solved), "WWWWRRRRGGGGYYYYOOOOBBBB");
  EXPECT_TRUE(Cube().IsGoal(solved));
  Position solved_faces;
  ASSERT_TRUE(Cube().Apply(*faces, u_prime, &solved_faces));
  EXPECT_EQ(Cube().FormatCompact(solved_faces), "UUUURRRRFFFFDDDDLLLLBBBB");
  EXPECT_EQ(Cube().FormatCompact(Cube().Goal(&*colours)), "WWWWRRRRGGGGYYYYOOOOBBBB");
  std::mt19937_64 rng(3);
  const std::string random = Cube().FormatCompact(Cube().Random(*colours, rng));
  EXPECT_EQ(std::count(random.begin(), random.end(), 'W'), 4) << random;
  EXPECT_EQ(std::count(random.begin(), random.end(), 'U'), 0) << random;

  // The page's cells: the six colours as values, read back in the same colours; a cube in
  // face letters held another way keeps its letters too.
  auto again = Cube().FromCells(*colours, Cube().Cells(*colours));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(Cube().FormatCompact(*again), "WWWWBBRRRRGGYYYYGGOOOOBB");
  auto held = Cube().ParseCompact("DDDDRRRRBBBBUUUULLLLFFFF");  // upside down
  ASSERT_TRUE(held.ok()) << held.status();
  const std::vector<int> cells = Cube().Cells(*held);
  EXPECT_EQ(cells[0], 3) << "the D letter is the value of D";
  auto held_again = Cube().FromCells(*held, cells);
  ASSERT_TRUE(held_again.ok()) << held_again.status();
  EXPECT_EQ(Cube().FormatCompact(*held_again), "DDDDRRRRBBBBUUUULLLLFFFF");
}

// Every rule broken is named.
TEST(Cube2Test, InvalidCubesAreRefusedNamingTheRule) {
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"UUUURRRRFFFFDDDDLLLLBBB", "a cube has 24 stickers, got 23 characters"},
      {"UUUURRRRFFFFDDDDLLLLBBBX", "7 colours ('URFDLBX'); a cube has 6"},
      {"UUUUURRRFFFFDDDDLLLLBBBB", "colour 'U' appears 5 times, not 4"},
      {"UUUURRRRFFFFDDDDLLLLBB\x01" "B", "sticker 23 is '\\x01'; a colour is a printable character"},
      // URF turned in place: its twists no longer add up.
      {"UUURFRRRFUFFDDDDLLLLBBBB", "twisted: the corners' twists add up to 2, not a multiple "
                                   "of 3 (a corner was turned in place)"},
      // Two stickers of URF swapped: the corner's colours run the other way.
      {"UUURURRRFFFFDDDDLLLLBBBB", "corner URF ('RUF'): mirrored (its colours run "
                                   "counter-clockwise)"},
  };
  for (const auto& [text, message] : refused) {
    auto position = Cube().ParseCompact(text);
    ASSERT_FALSE(position.ok()) << text;
    EXPECT_EQ(position.status().message(), message) << text;
  }
}

}  // namespace
}  // namespace puzzledb
