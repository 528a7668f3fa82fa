// Sampling at an exact distance and counting optimal solutions (docs/API.md, "Sample" and
// "Optimal solutions"), against brute force: tables built here (the 8-puzzle, the rotation
// game and a knobs wiring whole, the knight to depth 12).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <unordered_set>

#include "core/puzzles/eight.h"
#include "core/puzzles/knight.h"
#include "core/puzzles/knobs.h"
#include "core/puzzle.h"
#include "core/puzzles/rotation_sampling.h"
#include "core/puzzles/rotation.h"
#include "core/solver.h"
#include "core/search/live_solver.h"
#include "core/table/sampler.h"
#include "core/table/table_walker.h"
#include "core/table/table_builder.h"
#include "core/util/strings.h"
#include "gtest/gtest.h"
#include "tests/brute_force.h"
#include "tests/test_util.h"

namespace puzzledb {
namespace {

constexpr int kKnightDepth = 12;

class SampleCountTest : public ::testing::Test {
 public:
  static void SetUpTestSuite() {
    dir_ = new std::string(testing::TempPath("sample_count_db"));
    std::filesystem::remove_all(*dir_);
    auto store = TableStore::Open(*dir_, TableStore::Mode::kReadWrite);
    ASSERT_TRUE(store.ok()) << store.status();
    ASSERT_TRUE(BuildTable(RotationPuzzle(), **store, BuildOptions{}).ok());
    ASSERT_TRUE(BuildTable(EightPuzzle(), **store, BuildOptions{}).ok());
    ASSERT_TRUE(BuildTable(KnobsPuzzle(Knobs9001().params), **store, BuildOptions{}).ok());
    // The knight with band pages, the 8-puzzle without (its first sample searches).
    BuildOptions partial;
    partial.max_depth = kKnightDepth;
    partial.band_pages = true;
    ASSERT_TRUE(BuildTable(KnightPuzzle(), **store, partial).ok());
    solver_ = new Solver(std::shared_ptr<TableStore>(std::move(*store)));
  }
  static void TearDownTestSuite() {
    delete solver_;
    std::filesystem::remove_all(*dir_);
    delete dir_;
  }
  static KnobsPuzzle::Instance Knobs9001() {
    return *KnobsPuzzle::ParseOriginal(testing::Golden("knobs_9001.in"))[0].instance;
  }

  // The exact distance of a state by the solver (the table, or live search alone), -1 if
  // unsolvable.
  template <PuzzleModel P>
  static int DistanceOf(const typename P::Instance& instance, Policy policy = Policy::kTableThenSearch) {
    SolveOptions options;
    options.policy = policy;
    auto solution = solver_->Solve<P>(instance, options);
    EXPECT_TRUE(solution.ok()) << solution.status();
    if (!solution.ok() || solution->outcome != Outcome::kSolved) return -1;
    return solution->distance;
  }

  template <PuzzleModel P>
  static absl::StatusOr<Sample<P>> Draw(const typename P::Params& params, int distance,
                                        uint64_t count, uint64_t seed) {
    return solver_->Sample(P(params), distance, count, seed, SearchLimits{});
  }

  // The optimal solutions of `instance` as the solver counts and lists them.
  template <PuzzleModel P>
  static typename TableWalker<P>::OptimalPaths Optimal(const typename P::Instance& instance,
                                                       size_t list) {
    const P model(instance.params);
    TableStep step = solver_->FromTables(model, instance, 0);
    auto paths = solver_->Optimal<P>(instance, step, list, SearchLimits{});
    EXPECT_TRUE(paths.ok()) << paths.status();
    return paths.ok() ? *paths : typename TableWalker<P>::OptimalPaths{};
  }

  static std::string* dir_;
  static Solver* solver_;
};
std::string* SampleCountTest::dir_ = nullptr;
Solver* SampleCountTest::solver_ = nullptr;

// Every move sequence of exactly `depth` moves from `s` that ends on a goal, in
// lexicographic order (depth is the distance, so none passes a goal earlier).
template <PuzzleModel P>
void AllPaths(const P& model, const typename P::State& s, int depth, std::vector<uint8_t>* path,
              std::vector<std::vector<uint8_t>>* out) {
  if (depth == 0) {
    if (model.IsGoal(s)) out->push_back(*path);
    return;
  }
  for (int m = 0; m < P::kNumMoves; ++m) {
    typename P::State t;
    if (!model.Apply(s, m, &t)) continue;
    path->push_back(static_cast<uint8_t>(m));
    AllPaths(model, t, depth - 1, path, out);
    path->pop_back();
  }
}

// For states drawn at distances 1..max_depth: the count and the list of optimal solutions
// equal brute force, and the first is the solve's answer.
template <PuzzleModel P>
void CountsMatchBruteForce(const typename P::Params& params, int max_depth, uint64_t seed) {
  const P model(params);
  int checked = 0;
  for (int d = 1; d <= max_depth; ++d) {
    auto sample = SampleCountTest::solver_->Sample(model, d, 3, seed + d, SearchLimits{});
    ASSERT_TRUE(sample.ok()) << sample.status();
    for (const auto& state : sample->states) {
      const typename P::Instance instance{params, state};
      std::vector<uint8_t> path;
      std::vector<std::vector<uint8_t>> expected;
      AllPaths(model, state, d, &path, &expected);
      ASSERT_FALSE(expected.empty()) << P::FormatCompact(instance);
      TableStep step = SampleCountTest::solver_->FromTables(model, instance, 0);
      ASSERT_TRUE(step.answer.has_value());
      ASSERT_EQ(step.answer->distance, d);
      auto paths = SampleCountTest::solver_->Optimal<P>(instance, step, expected.size() + 5,
                                                         SearchLimits{});
      ASSERT_TRUE(paths.ok()) << paths.status();
      EXPECT_EQ(static_cast<uint64_t>(paths->count), expected.size()) << P::FormatCompact(instance);
      EXPECT_EQ(paths->first, expected) << P::FormatCompact(instance);
      EXPECT_EQ(paths->first.front(), step.answer->moves);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 3 * max_depth);
}

TEST_F(SampleCountTest, OptimalCountsEqualBruteForceOnEveryPuzzle) {
  CountsMatchBruteForce<KnightPuzzle>({}, 7, 100);
  CountsMatchBruteForce<KnobsPuzzle>(Knobs9001().params, 6, 200);
  CountsMatchBruteForce<RotationPuzzle>({}, 6, 300);
  CountsMatchBruteForce<EightPuzzle>({}, 11, 400);
}

TEST_F(SampleCountTest, ListsStopAtTheAskedNumberInLexicographicOrder) {
  // The 8-puzzle's farthest boards have many optimal solutions.
  auto sample = Draw<EightPuzzle>({}, 30, 1, 7);
  ASSERT_TRUE(sample.ok()) << sample.status();
  const EightPuzzle::Instance far{{}, sample->states[0]};
  const auto all = Optimal<EightPuzzle>(far, 100000);
  ASSERT_GT(all.count, 10u);
  EXPECT_EQ(all.first.size(), static_cast<size_t>(all.count));
  EXPECT_TRUE(std::is_sorted(all.first.begin(), all.first.end()));
  // Distinct: sorted, and no two neighbours equal.
  EXPECT_EQ(std::adjacent_find(all.first.begin(), all.first.end()), all.first.end());
  for (const auto& moves : all.first) {
    ASSERT_EQ(moves.size(), 30u);
    EXPECT_TRUE(testing::Replays(EightPuzzle(), far.state, moves));
  }
  const auto some = Optimal<EightPuzzle>(far, 4);
  EXPECT_EQ(some.count, all.count);
  ASSERT_EQ(some.first.size(), 4u);
  EXPECT_TRUE(std::equal(some.first.begin(), some.first.end(), all.first.begin()));
}

TEST_F(SampleCountTest, CountingStopsAtItsBudget) {
  auto sample = Draw<EightPuzzle>({}, 30, 1, 8);
  ASSERT_TRUE(sample.ok());
  const EightPuzzle::Instance far{{}, sample->states[0]};
  const EightPuzzle model;
  TableStep step = solver_->FromTables(model, far, 0);
  SearchLimits budget;
  budget.max_nodes = 20;
  auto paths = solver_->Optimal<EightPuzzle>(far, step, 1, budget);
  ASSERT_TRUE(absl::IsResourceExhausted(paths.status())) << paths.status();
  EXPECT_NE(Message(paths.status()).find("counting optimal solutions passed its budget of 20 nodes"),
            std::string_view::npos)
      << paths.status();
  SearchLimits past;
  past.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  paths = solver_->Optimal<EightPuzzle>(far, step, 1, past);
  EXPECT_TRUE(absl::IsDeadlineExceeded(paths.status())) << paths.status();
}

TEST_F(SampleCountTest, CountingNeedsATable) {
  // Beyond the knight table's depth the table step does not answer.
  const KnightPuzzle model;
  auto far = KnightPuzzle::ParseCompact("010100*000110001010111111");  // 34 moves away
  ASSERT_TRUE(far.ok()) << far.status();
  TableStep step = solver_->FromTables(model, *far, 0);
  ASSERT_FALSE(step.answer.has_value());
  auto paths = solver_->Optimal<KnightPuzzle>(*far, step, 1, SearchLimits{});
  ASSERT_TRUE(absl::IsFailedPrecondition(paths.status())) << paths.status();
  EXPECT_NE(Message(paths.status()).find("needs a table that covers the state"),
            std::string_view::npos);
}

// Samples: at their distance (by the solver), distinct, reproducible by seed, and the
// population is the table's count.
template <PuzzleModel P>
void SamplesHold(const typename P::Params& params, int distance, uint64_t count,
                 uint64_t expected_population) {
  auto a = SampleCountTest::solver_->Sample(P(params), distance, count, 11, SearchLimits{});
  auto b = SampleCountTest::solver_->Sample(P(params), distance, count, 11, SearchLimits{});
  auto c = SampleCountTest::solver_->Sample(P(params), distance, count, 12, SearchLimits{});
  ASSERT_TRUE(a.ok() && b.ok() && c.ok()) << a.status() << b.status() << c.status();
  EXPECT_EQ(a->population, expected_population);
  EXPECT_EQ(a->distance, distance);
  ASSERT_EQ(a->states.size(), std::min(count, expected_population));
  std::set<std::string> seen;
  for (size_t i = 0; i < a->states.size(); ++i) {
    const typename P::Instance instance{params, a->states[i]};
    EXPECT_EQ(SampleCountTest::DistanceOf<P>(instance), distance) << P::FormatCompact(instance);
    // Near the goal live search confirms it without the table.
    if (distance <= 6 && i < 10) {
      EXPECT_EQ(SampleCountTest::DistanceOf<P>(instance, Policy::kSearchOnly), distance)
          << P::FormatCompact(instance);
    }
    seen.insert(P::FormatCompact(instance));
    EXPECT_EQ(P::FormatCompact(instance), P::FormatCompact({params, b->states[i]}));
  }
  EXPECT_EQ(seen.size(), a->states.size());
  if (count < expected_population) {
    bool differs = false;
    for (size_t i = 0; i < a->states.size(); ++i) {
      differs |= P::FormatCompact({params, a->states[i]}) != P::FormatCompact({params, c->states[i]});
    }
    EXPECT_TRUE(differs) << "another seed drew the same states";
  }
}

TEST_F(SampleCountTest, SamplesAreAtTheirDistanceDistinctAndReproducible) {
  SamplesHold<EightPuzzle>({}, 30, 20, 148);
  SamplesHold<EightPuzzle>({}, 30, 1000, 148);  // fewer than asked: all of them
  SamplesHold<EightPuzzle>({}, 0, 5, 1);
  SamplesHold<KnightPuzzle>({}, 12, 50, 137262);
  SamplesHold<KnightPuzzle>({}, 3, 100, 38);
  SamplesHold<KnightPuzzle>({}, 6, 30, 1001);
  SamplesHold<RotationPuzzle>({}, 2, 30, 1698840);
  SamplesHold<EightPuzzle>({}, 6, 20, 60);
  SamplesHold<RotationPuzzle>({}, 13, 500, 192);
  const auto knobs = Knobs9001().params;
  auto table = solver_->store()->ReadMetadata(KnobsPuzzle::TableId(knobs));
  ASSERT_TRUE(table.ok());
  SamplesHold<KnobsPuzzle>(knobs, 9, 40, table->histogram(9));
}

TEST_F(SampleCountTest, LargestDistanceAndWhatTablesCannotAnswer) {
  auto eight = Draw<EightPuzzle>({}, Sampler<EightPuzzle>::kLargest, 2, 1);
  ASSERT_TRUE(eight.ok()) << eight.status();
  EXPECT_EQ(eight->distance, 30);
  EXPECT_EQ(eight->population, 148u);
  auto rotation = Draw<RotationPuzzle>({}, Sampler<RotationPuzzle>::kLargest, 1, 1);
  ASSERT_TRUE(rotation.ok()) << rotation.status();
  EXPECT_EQ(rotation->distance, 13);  // placements reach 14, boards only 13
  EXPECT_EQ(rotation->population, 192u);
  // Beyond the largest distance there is nothing to draw.
  auto beyond = Draw<EightPuzzle>({}, 31, 5, 1);
  ASSERT_TRUE(beyond.ok());
  EXPECT_EQ(beyond->population, 0u);
  EXPECT_TRUE(beyond->states.empty());
  // A partial table knows neither its far distances nor its largest.
  auto far = Draw<KnightPuzzle>({}, kKnightDepth + 1, 1, 1);
  EXPECT_TRUE(absl::IsFailedPrecondition(far.status())) << far.status();
  EXPECT_NE(Message(far.status()).find("covers distances up to 12"), std::string_view::npos);
  auto largest = Draw<KnightPuzzle>({}, Sampler<KnightPuzzle>::kLargest, 1, 1);
  EXPECT_TRUE(absl::IsFailedPrecondition(largest.status())) << largest.status();
  // No table for this wiring.
  KnobsPuzzle::Params other = Knobs9001().params;
  std::swap(other.target[0], other.target[4]);
  auto none = Draw<KnobsPuzzle>(other, 3, 1, 1);
  EXPECT_TRUE(absl::IsFailedPrecondition(none.status())) << none.status();
  EXPECT_NE(Message(none.status()).find("puzzledb-build --puzzle knobs"), std::string_view::npos);
}

// A residue table without band pages samples all the same: its first sample searches for
// the exact distances and checks the table against them, so a table whose residues are
// wrong is refused for sampling with DATA_LOSS naming the entry.
TEST_F(SampleCountTest, AResidueTableWithoutBandPagesSearchesForItsDistances) {
  for (const bool corrupt : {false, true}) {
    const std::string dir = testing::TempPath("no_bands_db");
    std::filesystem::remove_all(dir);
    const KnightPuzzle model;
    uint64_t corrupted = 0;
    {
      auto store = TableStore::Open(dir, TableStore::Mode::kReadWrite);
      ASSERT_TRUE(store.ok());
      BfsOptions bfs_options;
      bfs_options.max_depth = 6;
      BfsResult bfs = RetrogradeBfs<KnightClassSpace>(model.space()).Run(bfs_options);
      const TableMetadata m = MetadataFor(model, bfs, 6);
      if (corrupt) {
        // The first state at distance 2 claims distance 1.
        while (bfs.distance[corrupted] != 2) ++corrupted;
        bfs.distance[corrupted] = 1;
      }
      PackedTable entries(storage::v1::DISTANCE_MOD3, model.space().Size());
      entries.FromDistances(bfs.distance);
      ASSERT_TRUE((*store)->Write(m, entries, TableWriteOptions{}).ok());
    }
    auto store = TableStore::Open(dir, TableStore::Mode::kReadOnly);
    ASSERT_TRUE(store.ok());
    Solver solver(std::shared_ptr<TableStore>(std::move(*store)));
    auto sample = solver.Sample(KnightPuzzle(), 3, 100, 1, SearchLimits{});
    if (corrupt) {
      ASSERT_TRUE(absl::IsDataLoss(sample.status())) << sample.status();
      EXPECT_NE(Message(sample.status()).find(Cat("entry ", corrupted, " holds 1, but the state "
                                                   "is 2 moves from the goal")),
                std::string_view::npos)
          << sample.status();
    } else {
      ASSERT_TRUE(sample.ok()) << sample.status();
      EXPECT_EQ(sample->population, 38u);  // boards at distance 3 (docs/PUZZLES.md)
      ASSERT_EQ(sample->states.size(), 38u);
      for (const KnightBoard& s : sample->states) {
        auto solved = solver.Solve<KnightPuzzle>({{}, s}, SolveOptions{});
        ASSERT_TRUE(solved.ok()) << solved.status();
        EXPECT_EQ(solved->distance, 3);
      }
    }
    std::filesystem::remove_all(dir);
  }
}

// A table as an earlier puzzledb wrote it for `model`: over the model's own index of every
// state (not its table space), in `encoding`, to `depth`. The solver refuses it with a
// message that says what it holds (`holds`) and how to rebuild it, and live search answers
// `near`, a state one move from the goal.
template <PuzzleModel P>
void ExpectEarlierTableRefused(const std::string& name, const P& model, TableEncoding encoding,
                               int depth, const typename P::State& near, std::string_view holds) {
  const std::string dir = testing::TempPath(name);
  std::filesystem::remove_all(dir);
  {
    auto store = TableStore::Open(dir, TableStore::Mode::kReadWrite);
    ASSERT_TRUE(store.ok());
    BfsOptions bfs_options;
    bfs_options.max_depth = depth;
    BfsResult bfs = RetrogradeBfs<P>(model).Run(bfs_options);  // every state
    PackedTable entries(encoding, model.Size());
    entries.FromDistances(bfs.distance);
    TableMetadata m = MetadataFor(model, bfs, depth);
    m.set_state_count(model.Size());
    ASSERT_TRUE((*store)->Write(m, entries, TableWriteOptions{}).ok());
  }
  auto store = TableStore::Open(dir, TableStore::Mode::kReadOnly);
  ASSERT_TRUE(store.ok());
  Solver solver(std::shared_ptr<TableStore>(std::move(*store)));
  const typename P::Instance instance{model.params(), near};
  EXPECT_FALSE(solver.FromTables(model, instance, 0).had_table);
  auto solved = solver.Solve<P>(instance, SolveOptions{});
  ASSERT_TRUE(solved.ok()) << solved.status();
  EXPECT_EQ(solved->distance, 1);
  EXPECT_EQ(solved->source, Source::kSearch);
  auto sample = solver.Sample(model, depth - 1, 1, 1, SearchLimits{});
  ASSERT_TRUE(absl::IsFailedPrecondition(sample.status())) << sample.status();
  EXPECT_NE(Message(sample.status()).find(holds), std::string_view::npos) << sample.status();
  EXPECT_NE(Message(sample.status()).find(Cat("rebuild it with puzzledb-build --db ", dir,
                                              " --puzzle ", P::kName)),
            std::string_view::npos)
      << sample.status();
  std::filesystem::remove_all(dir);
}

// A knight table over every board, as puzzledb wrote it before the table held one entry per
// mirror class.
TEST_F(SampleCountTest, AKnightTableOverEveryBoardIsRefusedWithAClearMessage) {
  KnightBoard near = KnightPuzzle::Goal();
  KnightPuzzle().Apply(near, 0, &near);  // every knight move can be undone
  ExpectEarlierTableRefused("board_space_db", KnightPuzzle(), storage::v1::DISTANCE_MOD3, 4,
                            near,
                            "holds 67603900 entries (DISTANCE_MOD3) where this puzzledb's "
                            "knight table holds 35154028 (DISTANCE_MOD3)");
}

// A knobs table of exact distances over all 16.8 M states, as puzzledb wrote it before the
// knobs' table held the solvable half's next moves.
TEST_F(SampleCountTest, AKnobsTableOfDistancesIsRefusedWithAClearMessage) {
  const KnobsPuzzle model(Knobs9001().params);
  uint32_t near = 0;
  model.Undo(near, 5, &near);  // one turn before the goal
  ExpectEarlierTableRefused("knobs_bytes_db", model, storage::v1::DISTANCE_BYTE, 3, near,
                            "holds 16777216 entries (DISTANCE_BYTE) where this puzzledb's "
                            "knobs table holds 8388608 (NEXT_MOVE)");
}

TEST_F(SampleCountTest, BandPagesGiveTheExactDistances) {
  auto walker_table = solver_->store()->Load("knight");
  ASSERT_TRUE(walker_table.ok());
  auto exact = solver_->store()->LoadExactDistances(**walker_table);
  ASSERT_TRUE(exact.ok()) << exact.status();
  const KnightPuzzle model;
  const auto reference = testing::DistancesWithin(model, kKnightDepth);
  // The table's entries are classes, the reference's keys boards (KnightPuzzle::Rank).
  uint64_t covered = 0;
  for (uint64_t rank = 0; rank < exact->size(); ++rank) {
    if ((*exact)[rank] == 255) continue;
    ++covered;
    auto it = reference.find(model.Rank(model.space().Unrank(rank)));
    ASSERT_NE(it, reference.end()) << rank;
    ASSERT_EQ((*exact)[rank], it->second) << rank;
  }
  std::set<uint64_t> classes;
  for (const auto& [board, d] : reference) classes.insert(model.space().Rank(model.Unrank(board)));
  EXPECT_EQ(covered, classes.size());
}

// The chi-square statistic of observed counts against expected probabilities.
double ChiSquare(const std::vector<uint64_t>& observed, const std::vector<double>& expected) {
  uint64_t n = 0;
  for (uint64_t o : observed) n += o;
  double chi = 0;
  for (size_t i = 0; i < observed.size(); ++i) {
    const double e = expected[i] * static_cast<double>(n);
    chi += (static_cast<double>(observed[i]) - e) * (static_cast<double>(observed[i]) - e) / e;
  }
  return chi;
}

// An upper quantile of chi-square with k degrees of freedom (Wilson-Hilferty), z the
// standard normal quantile: z = 4.75 is a false alarm once in a million.
double ChiSquareQuantile(int k, double z) {
  const double a = 2.0 / (9.0 * k);
  return k * std::pow(1 - a + z * std::sqrt(a), 3);
}

TEST_F(SampleCountTest, EightPuzzleSamplesAreUniform) {
  // The 148 farthest boards, one draw per seed: 14,800 draws, 100 expected per board.
  std::map<std::string, uint64_t> counts;
  for (uint64_t seed = 1; seed <= 14800; ++seed) {
    auto sample = Draw<EightPuzzle>({}, 30, 1, seed);
    ASSERT_TRUE(sample.ok());
    ++counts[EightPuzzle::FormatCompact({{}, sample->states[0]})];
  }
  ASSERT_EQ(counts.size(), 148u);
  std::vector<uint64_t> observed;
  for (const auto& [board, n] : counts) observed.push_back(n);
  const double chi = ChiSquare(observed, std::vector<double>(148, 1.0 / 148));
  EXPECT_LT(chi, ChiSquareQuantile(147, 4.75)) << "chi-square " << chi;
  // The statistic can tell: the same draws with a third of the boards never drawn fail it.
  std::vector<uint64_t> skewed = observed;
  for (size_t i = 0; i < skewed.size(); i += 3) skewed[i] = 0;
  EXPECT_GT(ChiSquare(skewed, std::vector<double>(148, 1.0 / 148)), ChiSquareQuantile(147, 4.75));
}

// Every rotation board within `radius` moves, by breadth-first search over boards from the
// goal boards; key: the masks of values 1 and 2.
std::vector<std::unordered_set<uint64_t>> RotationBoardLayers(int radius) {
  auto key = [](const RotationBoard& b) { return uint64_t{b.masks[0]} << 24 | b.masks[1]; };
  std::vector<std::unordered_set<uint64_t>> layers(static_cast<size_t>(radius) + 1);
  std::unordered_set<uint64_t> seen;
  std::vector<RotationBoard> frontier;
  const uint32_t outside = ((1u << 24) - 1) & ~RotationMoves::kCentre;
  for (int v = 0; v < 3; ++v) {
    for (uint32_t h = 0; h < (1u << 16); ++h) {
      if (std::popcount(h) != 8) continue;
      RotationBoard b;
      b.masks[v] = RotationMoves::kCentre;
      b.masks[(v + 1) % 3] = DepositBits(h, outside);
      b.masks[(v + 2) % 3] = outside & ~b.masks[(v + 1) % 3];
      if (seen.insert(key(b)).second) frontier.push_back(b);
    }
  }
  layers[0] = seen;
  const RotationPuzzle model;
  for (int d = 1; d <= radius; ++d) {
    std::vector<RotationBoard> next;
    for (const RotationBoard& b : frontier) {
      for (int m = 0; m < RotationPuzzle::kNumMoves; ++m) {
        RotationBoard t;
        model.Apply(b, m, &t);
        if (seen.insert(key(t)).second) {
          next.push_back(t);
          layers[static_cast<size_t>(d)].insert(key(t));
        }
      }
    }
    frontier.swap(next);
  }
  return layers;
}

TEST_F(SampleCountTest, RotationPopulationsAreBoardsCountedByBruteForce) {
  const auto layers = RotationBoardLayers(2);
  for (int d = 0; d <= 2; ++d) {
    auto sample = Draw<RotationPuzzle>({}, d, 0, 1);
    ASSERT_TRUE(sample.ok()) << sample.status();
    EXPECT_EQ(sample->population, layers[static_cast<size_t>(d)].size()) << "distance " << d;
  }
  // The farthest boards another way: every partition of the cells into three placements
  // at distance >= 13 whose smallest is 13, from the table alone.
  auto table = solver_->store()->Load("rotation");
  ASSERT_TRUE(table.ok());
  const PackedTable& placements = (*table)->entries;
  using Ranker = CentrePlacementSpace::Ranker;
  std::set<std::array<uint32_t, 3>> far;
  std::vector<uint32_t> at_least_13;
  for (uint64_t r = 0; r < Ranker::kCount; ++r) {
    if (placements.Get(r) >= 13) at_least_13.push_back(Ranker::Unrank(r));
  }
  for (uint32_t p : at_least_13) {
    for (uint32_t q : at_least_13) {
      if (p & q) continue;
      const uint32_t r = ((1u << 24) - 1) & ~(p | q);
      const int dr = placements.Get(Ranker::Rank(r));
      const int smallest = std::min({static_cast<int>(placements.Get(Ranker::Rank(p))),
                                     static_cast<int>(placements.Get(Ranker::Rank(q))), dr});
      if (dr >= 13 && smallest == 13) far.insert({p, q, r});
    }
  }
  auto all = Draw<RotationPuzzle>({}, 13, 1000, 5);
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(all->population, far.size());
  std::set<std::array<uint32_t, 3>> drawn;
  for (const RotationBoard& b : all->states) drawn.insert(b.masks);
  EXPECT_EQ(drawn, far);
}

TEST_F(SampleCountTest, RotationSymmetriesKeepDistances) {
  auto table = solver_->store()->Load("rotation");
  ASSERT_TRUE(table.ok());
  using Ranker = CentrePlacementSpace::Ranker;
  for (int g = 0; g < 8; ++g) {
    // A symmetry maps every move's line onto a line (and the centre onto itself).
    EXPECT_EQ(RotationBoardSampler::Transform(g, RotationMoves::kCentre), RotationMoves::kCentre);
    for (uint64_t r = 0; r < Ranker::kCount; r += 7) {
      const uint32_t p = Ranker::Unrank(r);
      ASSERT_EQ((*table)->entries.Get(r),
                (*table)->entries.Get(Ranker::Rank(RotationBoardSampler::Transform(g, p))))
          << "symmetry " << g << " placement " << p;
    }
  }
}

TEST_F(SampleCountTest, RotationSamplesAreUniformOverBoards) {
  // Boards at distance 1 fall in classes by their three placements' distances (sorted);
  // a sampler uniform over placements instead of boards would get the classes' shares
  // wrong. Expected shares from the brute-force layer, against 40,000 draws.
  auto table = solver_->store()->Load("rotation");
  ASSERT_TRUE(table.ok());
  using Ranker = CentrePlacementSpace::Ranker;
  auto profile = [&](uint32_t m0, uint32_t m1) {
    const uint32_t m2 = ((1u << 24) - 1) & ~(m0 | m1);
    std::array<int, 3> d = {(*table)->entries.Get(Ranker::Rank(m0)),
                            (*table)->entries.Get(Ranker::Rank(m1)),
                            (*table)->entries.Get(Ranker::Rank(m2))};
    std::sort(d.begin(), d.end());
    return d[1] * 32 + d[2];
  };
  const auto layers = RotationBoardLayers(1);
  std::map<int, uint64_t> expected_counts;
  for (uint64_t key : layers[1]) {
    ++expected_counts[profile(static_cast<uint32_t>(key >> 24), key & 0xFFFFFF)];
  }
  std::map<int, uint64_t> observed_counts;
  for (const auto& [cls, n] : expected_counts) observed_counts[cls] = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    auto sample = Draw<RotationPuzzle>({}, 1, 2000, seed);
    ASSERT_TRUE(sample.ok()) << sample.status();
    for (const RotationBoard& b : sample->states) {
      auto it = observed_counts.find(profile(b.masks[0], b.masks[1]));
      ASSERT_NE(it, observed_counts.end());
      ++it->second;
    }
  }
  std::vector<uint64_t> observed;
  std::vector<double> expected;
  for (const auto& [cls, n] : expected_counts) {
    observed.push_back(observed_counts[cls]);
    expected.push_back(static_cast<double>(n) / static_cast<double>(layers[1].size()));
  }
  ASSERT_GE(observed.size(), 3u);
  const int dof = static_cast<int>(observed.size()) - 1;
  const double chi = ChiSquare(observed, expected);
  EXPECT_LT(chi, ChiSquareQuantile(dof, 4.75)) << "chi-square " << chi << " over " << dof + 1
                                                << " classes";
}

// Sampled states written as the original input read back as the same states.
template <PuzzleModel P>
void OriginalRoundTrip(const typename P::Params& params, int distance) {
  auto sample = SampleCountTest::solver_->Sample(P(params), distance, 7, 1, SearchLimits{});
  ASSERT_TRUE(sample.ok()) << sample.status();
  std::vector<typename P::Instance> instances;
  for (const auto& state : sample->states) instances.push_back({params, state});
  const auto cases = P::ParseOriginal(P::FormatOriginal(instances));
  ASSERT_EQ(cases.size(), instances.size()) << P::FormatOriginal(instances);
  for (size_t i = 0; i < cases.size(); ++i) {
    ASSERT_TRUE(cases[i].instance.ok()) << cases[i].instance.status();
    EXPECT_EQ(P::FormatCompact(*cases[i].instance), P::FormatCompact(instances[i]));
  }
}

TEST_F(SampleCountTest, SamplesWrittenAsTheOriginalInputReadBack) {
  OriginalRoundTrip<KnightPuzzle>({}, 9);
  OriginalRoundTrip<KnobsPuzzle>(Knobs9001().params, 8);
  OriginalRoundTrip<RotationPuzzle>({}, 4);
  OriginalRoundTrip<EightPuzzle>({}, 20);
}

TEST_F(SampleCountTest, DrawDistinctIsDistinctAndComplete) {
  SeededRng rng(3);
  auto some = DrawDistinct(1000, 10, rng);
  EXPECT_EQ(some.size(), 10u);
  EXPECT_TRUE(std::is_sorted(some.begin(), some.end()));
  EXPECT_EQ(std::set(some.begin(), some.end()).size(), 10u);
  EXPECT_LT(some.back(), 1000u);
  auto all = DrawDistinct(7, 9, rng);
  EXPECT_EQ(all, (std::vector<uint64_t>{0, 1, 2, 3, 4, 5, 6}));
  // Fixed by the seed, on every platform.
  SeededRng a(42), b(42);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(a.Below(1000003), b.Below(1000003));
  EXPECT_EQ(SeededRng(1).Next(), 0x910A2DEC89025CC1ull);
}

}  // namespace
}  // namespace puzzledb
