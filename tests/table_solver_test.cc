// Solving from tables (small or partial ones, built here) agrees with live search and
// brute force; partial tables bound the search; policies and analysis.
#include <array>
#include <filesystem>
#include <random>

#include "core/puzzles/knight.h"
#include "core/puzzles/knobs.h"
#include "core/puzzles/rotation.h"
#include "core/search/retrograde_bfs.h"
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

// One database for the suite: rotation (full), knight (to depth 10), knobs 9001 (full).
class TableSolverTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(testing::TempPath("table_solver_db"));
    std::filesystem::remove_all(*dir_);
    auto store = TableStore::Open(*dir_, TableStore::Mode::kReadWrite);
    ASSERT_TRUE(store.ok()) << store.status();
    ASSERT_TRUE(BuildTable(RotationPuzzle(), **store, BuildOptions{}).ok());
    BuildOptions partial;
    partial.max_depth = 10;
    ASSERT_TRUE(BuildTable(KnightPuzzle(), **store, partial).ok());
    ASSERT_TRUE(BuildTable(KnobsPuzzle(Knobs9001().params), **store, BuildOptions{}).ok());
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
  static SolveOptions Options(Policy policy = Policy::kTableThenSearch, int max_moves = 0) {
    SolveOptions options;
    options.policy = policy;
    options.limits.max_moves = max_moves;
    return options;
  }

  static std::string* dir_;
  static Solver* solver_;
};
std::string* TableSolverTest::dir_ = nullptr;
Solver* TableSolverTest::solver_ = nullptr;

TEST_F(TableSolverTest, RotationTableEqualsLiveSearch) {
  const RotationPuzzle rotation;
  std::mt19937 rng(40);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<uint32_t> values;
    for (uint32_t k = 1; k <= 3; ++k) values.insert(values.end(), 8, k);
    std::shuffle(values.begin(), values.end(), rng);
    const RotationPuzzle::Instance instance{{}, *RotationPuzzle::BoardFromValues(values)};
    auto table = solver_->Solve<RotationPuzzle>(instance, Options());
    auto live = solver_->Solve<RotationPuzzle>(instance, Options(Policy::kSearchOnly));
    ASSERT_TRUE(table.ok() && live.ok());
    EXPECT_EQ(table->source, Source::kTable);
    EXPECT_EQ(live->source, Source::kSearch);
    ASSERT_EQ(table->distance, live->distance);
    ASSERT_EQ(table->moves, live->moves);
    ASSERT_TRUE(testing::Replays(rotation, instance.state, table->moves));
  }
  // Nine 1s: no table answers it; search does.
  const auto nine = RotationPuzzle::ParseCompact("111111111222222223333333");
  auto answer = solver_->Solve<RotationPuzzle>(*nine, Options());
  ASSERT_TRUE(answer.ok());
  EXPECT_EQ(answer->source, Source::kSearch);
  EXPECT_TRUE(testing::Replays(rotation, nine->state, answer->moves));
}

TEST_F(TableSolverTest, KnobsTableEqualsBidirectionalSearchAndKnowsTheUnsolvable) {
  const auto instance = Knobs9001();
  const KnobsPuzzle knobs(instance.params);
  std::mt19937 rng(41);
  int unsolvable = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const KnobsPuzzle::Instance random{instance.params, static_cast<uint32_t>(rng() & 0xFFFFFF)};
    auto table = solver_->Solve<KnobsPuzzle>(random, Options());
    auto live = solver_->Solve<KnobsPuzzle>(random, Options(Policy::kSearchOnly));
    ASSERT_TRUE(table.ok() && live.ok());
    ASSERT_EQ(table->source, Source::kTable);
    ASSERT_EQ(table->outcome, live->outcome);
    ASSERT_EQ(table->distance, live->distance);
    ASSERT_EQ(table->moves, live->moves);
    unsolvable += table->outcome == Outcome::kUnsolvable;
  }
  EXPECT_GT(unsolvable, 100);  // about half the states have odd parity
  // A wiring without a table is searched.
  const auto other = *KnobsPuzzle::ParseOriginal(testing::Golden("knobs_9002.in"))[0].instance;
  auto searched = solver_->Solve<KnobsPuzzle>(other, Options());
  ASSERT_TRUE(searched.ok());
  EXPECT_EQ(searched->source, Source::kSearch);
  EXPECT_EQ(searched->distance, 15);
  auto refused = solver_->Solve<KnobsPuzzle>(other, Options(Policy::kTableOnly));
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
}

// Every entry of the knobs table is the first move, in canonical order, to a state one step
// closer, by the distances of a search over all 16.8 M packed states (the model's own
// index, not the table's space); 14 at the goal, 15 where unsolvable.
TEST_F(TableSolverTest, KnobsEntriesAreTheFirstOptimalMoves) {
  const KnobsPuzzle knobs(Knobs9001().params);
  const BfsResult reference = RetrogradeBfs<KnobsPuzzle>(knobs).Run(BfsOptions{});
  auto table = solver_->store()->Load(KnobsPuzzle::TableId(knobs.params()));
  ASSERT_TRUE(table.ok()) << table.status();
  const PackedTable& entries = (*table)->entries;
  ASSERT_EQ(entries.encoding(), storage::v1::NEXT_MOVE);
  ASSERT_EQ(entries.size(), knobs.space().Size());
  std::array<uint64_t, 13> seen{};
  for (uint64_t i = 0; i < entries.size(); ++i) {
    const uint32_t s = knobs.space().Unrank(i);
    const uint8_t d = reference.distance[s];
    uint8_t expected = PackedTable::kNextMoveUncovered;
    if (d == 0) {
      expected = PackedTable::kNextMoveGoal;
    } else if (d != BfsResult::kUnseen) {
      for (int m = 0; m < KnobsPuzzle::kNumMoves; ++m) {
        uint32_t t;
        knobs.Apply(s, m, &t);
        if (reference.distance[t] == d - 1) {
          expected = static_cast<uint8_t>(m);
          break;
        }
      }
    }
    ASSERT_EQ(entries.Get(i), expected) << "entry " << i << ", state " << s;
    ++seen[std::min<int>(expected, 12)];
  }
  EXPECT_EQ(seen[12], 1u);  // the goal; every even state is solvable for this wiring
  for (int m = 0; m < 12; ++m) EXPECT_GT(seen[m], 0u) << "move " << m;
}

// A next-move walk checks what it can: an entry that marks a state as the goal, names a
// move that does not exist, or leads out of the coverage makes the table inconsistent
// (DATA_LOSS), never a wrong answer.
TEST_F(TableSolverTest, ADamagedNextMoveIsCaughtByTheWalk) {
  const KnobsPuzzle knobs(Knobs9001().params);
  auto table = solver_->store()->Load(KnobsPuzzle::TableId(knobs.params()));
  ASSERT_TRUE(table.ok()) << table.status();
  const uint32_t start = knobs.space().Unrank(4321);
  ASSERT_FALSE(knobs.IsGoal(start));
  struct Damage {
    uint8_t code;
    const char* message;
  };
  for (const Damage& damage : {Damage{PackedTable::kNextMoveGoal, "has the goal's mark"},
                               Damage{13, "names move 13"},
                               Damage{PackedTable::kNextMoveUncovered, "does not cover"}}) {
    auto damaged = std::make_shared<LoadedTable>(**table);
    // Damage the entry of the state one step along the walk, so the walk meets it.
    uint32_t next;
    knobs.Apply(start, damaged->entries.Get(4321), &next);
    ASSERT_FALSE(knobs.IsGoal(next));
    damaged->entries.Set(knobs.space().Rank(next), damage.code);
    const TableWalker<KnobsPuzzle> walker(knobs, damaged);
    auto answer = walker.Solve(start, 0);
    ASSERT_EQ(answer.status().code(), absl::StatusCode::kDataLoss) << answer.status();
    EXPECT_NE(Message(answer.status()).find(damage.message), std::string_view::npos)
        << answer.status();
  }
  // Intact, the same walk replays to the goal in the searched number of moves.
  const TableWalker<KnobsPuzzle> walker(knobs, *table);
  auto answer = walker.Solve(start, 0);
  ASSERT_TRUE(answer.ok()) << answer.status();
  auto live = solver_->Solve<KnobsPuzzle>({knobs.params(), start}, Options(Policy::kSearchOnly));
  ASSERT_TRUE(live.ok()) << live.status();
  EXPECT_EQ(answer->solution.distance, live->distance);
  EXPECT_EQ(answer->solution.moves, live->moves);
  EXPECT_TRUE(testing::Replays(knobs, start, answer->solution.moves));
}

// Walks taking turns (SolveMany, FromTablesMany) answer exactly as one walk at a time: the
// same kind, outcome, distance, moves and lookups, for covered, uncovered, capped and
// unsolvable states of a residue table (knight, partial), a next-move table (knobs) and a
// distance table (rotation); more states than lanes, so lanes are refilled.
template <PuzzleModel P>
void ExpectManyEqualsOneByOne(const TableWalker<P>& walker, const std::vector<typename P::State>& states,
                              const std::vector<int>& caps) {
  std::vector<absl::StatusOr<typename TableWalker<P>::Answer>> many(states.size());
  walker.SolveMany(states, caps, std::span(many));
  for (size_t i = 0; i < states.size(); ++i) {
    auto one = walker.Solve(states[i], caps[i]);
    ASSERT_EQ(many[i].status(), one.status()) << i;
    if (!one.ok()) continue;
    ASSERT_EQ(many[i]->kind, one->kind) << i;
    ASSERT_EQ(many[i]->solution.outcome, one->solution.outcome) << i;
    ASSERT_EQ(many[i]->solution.distance, one->solution.distance) << i;
    ASSERT_EQ(many[i]->solution.moves, one->solution.moves) << i;
    ASSERT_EQ(many[i]->solution.lookups, one->solution.lookups) << i;
    ASSERT_EQ(many[i]->solution.source, Source::kTable);
  }
}

TEST_F(TableSolverTest, WalksTakingTurnsAnswerAsOneWalkAtATime) {
  std::mt19937 rng(43);
  const int kCaps[] = {0, 0, 5, 9, 16};
  std::vector<int> caps;
  for (int i = 0; i < 500; ++i) caps.push_back(kCaps[rng() % 5]);
  {
    const KnightPuzzle knight;
    auto walker = solver_->store()->Load(KnightPuzzle::TableId({}));
    ASSERT_TRUE(walker.ok()) << walker.status();
    std::vector<KnightBoard> states;
    int covered = 0;
    for (size_t i = 0; i < caps.size(); ++i) {
      KnightBoard s = KnightPuzzle::Goal();
      for (int step = static_cast<int>(rng() % 40); step > 0; --step) {
        KnightBoard t;
        while (!knight.Apply(s, static_cast<int>(rng() % 8), &t)) {
        }
        s = t;
      }
      states.push_back(s);
    }
    const TableWalker<KnightPuzzle> table(knight, *walker);
    ExpectManyEqualsOneByOne(table, states, caps);
    for (const KnightBoard& s : states) covered += table.Solve(s, 0)->kind == TableLookup::Kind::kCovered;
    EXPECT_GT(covered, 100);
    EXPECT_LT(covered, 450) << "some states should lie beyond the depth-10 table";
    // The solver's table step of many equals its table step of one.
    std::vector<KnightPuzzle::Instance> instances;
    for (const KnightBoard& s : states) instances.push_back({{}, s});
    std::vector<TableStep> steps(states.size());
    solver_->FromTablesMany(knight, std::span<const KnightPuzzle::Instance>(instances),
                            std::span<const int>(caps), std::span(steps));
    for (size_t i = 0; i < states.size(); ++i) {
      const TableStep one = solver_->FromTables(knight, instances[i], caps[i]);
      ASSERT_EQ(steps[i].answer.has_value(), one.answer.has_value()) << i;
      ASSERT_EQ(steps[i].partial != nullptr, one.partial != nullptr) << i;
      ASSERT_EQ(steps[i].table, one.table) << i;
      if (!one.answer.has_value()) continue;
      ASSERT_EQ(steps[i].answer->outcome, one.answer->outcome) << i;
      ASSERT_EQ(steps[i].answer->moves, one.answer->moves) << i;
    }
  }
  {
    const KnobsPuzzle knobs(Knobs9001().params);
    auto table = solver_->store()->Load(KnobsPuzzle::TableId(knobs.params()));
    ASSERT_TRUE(table.ok()) << table.status();
    std::vector<uint32_t> states;
    for (size_t i = 0; i < caps.size(); ++i) states.push_back(static_cast<uint32_t>(rng() & 0xFFFFFF));
    const TableWalker<KnobsPuzzle> walker(knobs, *table);
    ExpectManyEqualsOneByOne(walker, states, caps);
    // A damaged entry along one walk fails that walk alone, with the same DATA_LOSS; every
    // other state is answered as before.
    const uint32_t start = knobs.space().Unrank(4321);
    auto damaged = std::make_shared<LoadedTable>(**table);
    uint32_t next;
    knobs.Apply(start, damaged->entries.Get(4321), &next);
    damaged->entries.Set(knobs.space().Rank(next), 13);
    states[7] = start;
    caps[7] = 0;
    const TableWalker<KnobsPuzzle> broken(knobs, damaged);
    ExpectManyEqualsOneByOne(broken, states, caps);
    std::vector<absl::StatusOr<TableWalker<KnobsPuzzle>::Answer>> many(states.size());
    broken.SolveMany(states, caps, std::span(many));
    EXPECT_EQ(many[7].status().code(), absl::StatusCode::kDataLoss) << many[7].status();
  }
  {
    const RotationPuzzle rotation;
    auto table = solver_->store()->Load(RotationPuzzle::TableId({}));
    ASSERT_TRUE(table.ok()) << table.status();
    const TableWalker<RotationPuzzle> walker(rotation, *table);
    std::vector<RotationPuzzle::State> states;
    for (size_t i = 0; i < caps.size(); ++i) {
      states.push_back(rotation.RandomState(rng));
    }
    ExpectManyEqualsOneByOne(walker, states, caps);
  }
}

// A depth-10 knight table answers what it covers, says NOT_WITHIN_LIMIT at once for caps it
// proves, and bounds the search beyond (a state outside is at least 11 away).
TEST_F(TableSolverTest, PartialKnightTableAnswersAndBoundsTheSearch) {
  const KnightPuzzle knight;
  const LiveSolver<KnightPuzzle> reference(knight);
  std::mt19937 rng(42);
  int from_table = 0, searched = 0;
  for (int trial = 0; trial < 150; ++trial) {
    KnightBoard s = KnightPuzzle::Goal();
    const int steps = 4 + static_cast<int>(rng() % 20);
    for (int i = 0; i < steps; ++i) {
      KnightBoard t;
      while (!knight.Apply(s, static_cast<int>(rng() % 8), &t)) {
      }
      s = t;
    }
    const KnightPuzzle::Instance instance{{}, s};
    auto answer = solver_->Solve<KnightPuzzle>(instance, Options(Policy::kTableThenSearch, 16));
    SearchLimits cap;
    cap.max_moves = 16;
    auto live = reference.Solve(s, cap);
    ASSERT_TRUE(answer.ok() && live.ok()) << answer.status();
    ASSERT_EQ(answer->outcome, live->outcome);
    ASSERT_EQ(answer->distance, live->distance);
    ASSERT_EQ(answer->moves, live->moves);
    (answer->source == Source::kTable ? from_table : searched)++;
    if (answer->source == Source::kTable && answer->outcome == Outcome::kSolved) {
      EXPECT_LE(answer->distance, 10);
    }
    // A cap below the table's reach is decided by the table alone.
    auto capped = solver_->Solve<KnightPuzzle>(instance, Options(Policy::kTableThenSearch, 9));
    ASSERT_TRUE(capped.ok());
    if (live->outcome == Outcome::kSolved && live->distance > 10) {
      EXPECT_EQ(capped->outcome, Outcome::kNotWithinLimit);
      EXPECT_EQ(capped->source, Source::kTable);
    }
  }
  EXPECT_GT(from_table, 10);
  EXPECT_GT(searched, 10);
}

TEST_F(TableSolverTest, AnalyzeListsEveryMoveBestFirst) {
  // Three moves from the goal: c1 a2 c3 (knight_exact.txt, first line).
  const auto start = KnightPuzzle::ParseCompact("1111111111000*10000100000");
  auto analysis = solver_->Analyze<KnightPuzzle>(*start, Options());
  ASSERT_TRUE(analysis.ok()) << analysis.status();
  EXPECT_EQ(analysis->position.distance, 3);
  ASSERT_FALSE(analysis->moves.empty());
  EXPECT_EQ(analysis->moves[0].name, "c1");
  EXPECT_EQ(analysis->moves[0].distance, 2);
  for (size_t i = 1; i < analysis->moves.size(); ++i) {
    const auto& a = analysis->moves[i - 1];
    const auto& b = analysis->moves[i];
    EXPECT_TRUE(a.distance < b.distance || (a.distance == b.distance && a.move < b.move));
  }
  // Every legal move appears, and distances differ from 3 by one (moves are reversible).
  int legal = 0;
  for (int m = 0; m < 8; ++m) {
    KnightBoard t;
    legal += KnightPuzzle().Apply(start->state, m, &t);
  }
  EXPECT_EQ(static_cast<int>(analysis->moves.size()), legal);
  for (const auto& move : analysis->moves) EXPECT_TRUE(move.distance == 2 || move.distance == 4);
}

// An analysis at the edge of the depth-10 knight table: the table step answers the position
// and the moves it covers; the search step searches only the rest. Run on a solver with no
// tables at all, the search step still gives the position's table answer: it was kept, not
// looked up again. The result equals a one-call analysis.
TEST_F(TableSolverTest, AnalysisSearchStepKeepsTheTableAnswers) {
  const KnightPuzzle knight;
  std::mt19937 rng(10);
  int found = 0;
  for (int trial = 0; found < 3 && trial < 2000; ++trial) {
    KnightBoard s = KnightPuzzle::Goal();
    for (int i = 0; i < 10; ++i) {
      KnightBoard t;
      while (!knight.Apply(s, static_cast<int>(rng() % 8), &t)) {
      }
      s = t;
    }
    const KnightPuzzle::Instance instance{{}, s};
    AnalysisStep step = solver_->AnalyzeFromTables(knight, instance, 0);
    if (!step.position.answer.has_value() || step.position.answer->distance != 10) continue;
    if (step.Answered()) continue;  // every move leads to distance 9: no search needed
    int open = 0;
    for (const auto& after : step.after) open += after.answer.has_value() ? 0 : 1;
    EXPECT_GT(open, 0);
    ++found;
    Solver no_tables;
    auto searched = no_tables.AnalyzeSearch(knight, instance, step, SearchLimits{});
    ASSERT_TRUE(searched.ok()) << searched.status();
    EXPECT_EQ(searched->position.source, Source::kTable);
    EXPECT_EQ(searched->position.distance, 10);
    auto whole = solver_->Analyze<KnightPuzzle>(instance, Options());
    ASSERT_TRUE(whole.ok());
    ASSERT_EQ(searched->moves.size(), whole->moves.size());
    for (size_t i = 0; i < whole->moves.size(); ++i) {
      EXPECT_EQ(searched->moves[i].name, whole->moves[i].name);
      EXPECT_EQ(searched->moves[i].distance, whole->moves[i].distance);
      EXPECT_EQ(searched->moves[i].outcome, whole->moves[i].outcome);
    }
    EXPECT_EQ(whole->moves.back().distance, 11);
    // TABLE_ONLY cannot finish it.
    EXPECT_EQ(solver_->Analyze<KnightPuzzle>(instance, Options(Policy::kTableOnly)).status().code(),
              absl::StatusCode::kFailedPrecondition);
  }
  EXPECT_EQ(found, 3) << "no position at the table's edge found";
}

}  // namespace
}  // namespace puzzledb
