// The live solvers against brute force: same distance, same lexicographically smallest
// sequence, and every answer replays to the goal.
#include "core/search/live_solver.h"

#include <algorithm>
#include <map>
#include <queue>
#include <random>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "core/puzzles/knight.h"
#include "core/puzzles/knobs.h"
#include "core/puzzles/rotation.h"
#include "gtest/gtest.h"
#include "tests/brute_force.h"
#include "tests/test_util.h"

namespace puzzledb {
namespace {

using testing::GreedyPath;
using testing::Replays;

SearchLimits NoLimit() { return SearchLimits{}; }
SearchLimits Cap(int moves) {
  SearchLimits limits;
  limits.max_moves = moves;
  return limits;
}

// ---------------------------------------------------------------- knight

class KnightLiveTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ball_ = new std::unordered_map<uint64_t, int>(testing::DistancesWithin(KnightPuzzle(), 12));
  }
  static void TearDownTestSuite() { delete ball_; }
  static int DistanceOf(const KnightBoard& s) {
    const auto it = ball_->find(KnightPuzzle().Rank(s));
    return it == ball_->end() ? -1 : it->second;
  }
  static std::unordered_map<uint64_t, int>* ball_;
};
std::unordered_map<uint64_t, int>* KnightLiveTest::ball_ = nullptr;

// Every state within 8 moves, with no perimeter (plain IDA* on the model's bound), a small
// one, and the default one.
TEST_F(KnightLiveTest, EveryStateWithinEightMovesMatchesBreadthFirstSearch) {
  const KnightPuzzle knight;
  for (int radius : {0, 3, KnightPuzzle::kPerimeterRadius}) {
    const LiveSolver<KnightPuzzle> solver(knight, radius);
    int checked = 0;
    for (const auto& [rank, d] : *ball_) {
      if (d > 8) continue;
      const KnightBoard s = knight.Unrank(rank);
      auto solution = solver.Solve(s, NoLimit());
      ASSERT_TRUE(solution.ok()) << solution.status();
      ASSERT_EQ(solution->outcome, Outcome::kSolved);
      ASSERT_EQ(solution->distance, d) << KnightPuzzle::FormatCompact({{}, s});
      ASSERT_EQ(solution->moves, GreedyPath(knight, s, DistanceOf)) << "radius " << radius;
      ASSERT_TRUE(Replays(knight, s, solution->moves));
      ++checked;
    }
    EXPECT_EQ(checked, 10486);
  }
}

// Random walks from the goal: the answer within the 15-move cap is the brute-force one, and
// beyond it the outcome is NOT_WITHIN_LIMIT, with a small and the default perimeter alike.
TEST_F(KnightLiveTest, ScramblesUnderTheOriginalCap) {
  const KnightPuzzle knight;
  const LiveSolver<KnightPuzzle> small(knight, 3), standard(knight);
  std::mt19937 rng(21);
  int beyond_ball = 0;
  for (int trial = 0; trial < 300; ++trial) {
    KnightBoard s = KnightPuzzle::Goal();
    const int steps = 5 + static_cast<int>(rng() % 30);
    for (int i = 0; i < steps; ++i) {
      KnightBoard t;
      while (!knight.Apply(s, static_cast<int>(rng() % 8), &t)) {
      }
      s = t;
    }
    auto a = small.Solve(s, Cap(15));
    auto b = standard.Solve(s, Cap(15));
    ASSERT_TRUE(a.ok() && b.ok());
    ASSERT_EQ(a->outcome, b->outcome);
    ASSERT_EQ(a->distance, b->distance);
    ASSERT_EQ(a->moves, b->moves);
    const int d = DistanceOf(s);
    if (d >= 0) {
      ASSERT_EQ(b->outcome, Outcome::kSolved);
      ASSERT_EQ(b->distance, d);
      ASSERT_EQ(b->moves, GreedyPath(knight, s, DistanceOf));
    } else {
      ++beyond_ball;
      if (b->outcome == Outcome::kSolved) {
        ASSERT_GT(b->distance, 12);
        ASSERT_LE(b->distance, 15);
        ASSERT_TRUE(Replays(knight, s, b->moves));
      }
    }
  }
  EXPECT_GT(beyond_ball, 0);
}

// knight_exact.txt: exact distances and sequences beyond the cap (the 34-move board is left
// to the table tests: live search needs tens of seconds for it).
TEST_F(KnightLiveTest, ExactSamplesWithoutACap) {
  const KnightPuzzle knight;
  const LiveSolver<KnightPuzzle> solver(knight);
  int checked = 0;
  for (const auto& sample : testing::ParseKnightExact(testing::Golden("knight_exact.txt"))) {
    if (sample.distance > 30) continue;
    const auto instance = KnightPuzzle::ParseCompact(sample.board);
    ASSERT_TRUE(instance.ok());
    auto solution = solver.Solve(instance->state, NoLimit());
    ASSERT_TRUE(solution.ok());
    ASSERT_EQ(solution->distance, sample.distance) << sample.board;
    EXPECT_EQ(testing::MoveNames(knight, instance->state, solution->moves), sample.moves)
        << sample.board;
    EXPECT_TRUE(Replays(knight, instance->state, solution->moves));
    auto capped = solver.Solve(instance->state, Cap(15));
    ASSERT_TRUE(capped.ok());
    EXPECT_EQ(capped->outcome,
              sample.distance <= 15 ? Outcome::kSolved : Outcome::kNotWithinLimit);
    ++checked;
  }
  EXPECT_EQ(checked, 9);
}

TEST_F(KnightLiveTest, LimitsStopTheSearchWithTheRightStatus) {
  const KnightPuzzle knight;
  const LiveSolver<KnightPuzzle> solver(knight, 0);
  const auto far = KnightPuzzle::ParseCompact("010100*000110001010111111");
  SearchLimits budget;
  budget.max_nodes = 1000;
  auto a = solver.Solve(far->state, budget);
  EXPECT_EQ(a.status().code(), absl::StatusCode::kResourceExhausted);
  SearchLimits late;
  late.deadline = std::chrono::steady_clock::now();
  auto b = solver.Solve(far->state, late);
  EXPECT_EQ(b.status().code(), absl::StatusCode::kDeadlineExceeded);
  SearchLimits cancelled;
  cancelled.cancelled = [] { return true; };
  auto c = solver.Solve(far->state, cancelled);
  EXPECT_EQ(c.status().code(), absl::StatusCode::kCancelled);
  // The bidirectional search too, on a knobs instance that needs a few thousand states.
  const auto knobs = *KnobsPuzzle::ParseOriginal(testing::Golden("knobs_9002.in"))[0].instance;
  const LiveSolver<KnobsPuzzle> bidirectional{KnobsPuzzle(knobs.params)};
  EXPECT_EQ(bidirectional.Solve(knobs.state, late).status().code(),
            absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(bidirectional.Solve(knobs.state, cancelled).status().code(),
            absl::StatusCode::kCancelled);
  SearchLimits small_budget;
  small_budget.max_nodes = 100;
  EXPECT_EQ(bidirectional.Solve(knobs.state, small_budget).status().code(),
            absl::StatusCode::kResourceExhausted);
  // And afterwards it still answers (its scratch arrays were cleaned).
  auto answer = bidirectional.Solve(knobs.state, NoLimit());
  ASSERT_TRUE(answer.ok());
  EXPECT_EQ(answer->distance, 15);
}

// ---------------------------------------------------------------- rotation

RotationBoard RandomRotationBoard(std::mt19937& rng, std::array<int, 3> counts = {8, 8, 8}) {
  std::vector<uint32_t> values;
  for (uint32_t k = 1; k <= 3; ++k) values.insert(values.end(), counts[k - 1], k);
  std::shuffle(values.begin(), values.end(), rng);
  return *RotationPuzzle::BoardFromValues(values);
}

TEST(RotationLiveTest, RandomBoardsMatchThePlacementTable) {
  const RotationPuzzle rotation;
  const auto table = testing::AllDistances(rotation.space());
  auto distance_of = [&](const RotationBoard& b) {
    int d = 99;
    for (int k = 0; k < 3; ++k) d = std::min<int>(d, table[rotation.space().Rank(b.masks[k])]);
    return d;
  };
  const LiveSolver<RotationPuzzle> standard(rotation), plain(rotation, 0);
  std::mt19937 rng(8);
  for (int trial = 0; trial < 60; ++trial) {
    const RotationBoard board = RandomRotationBoard(rng);
    const auto expected = GreedyPath(rotation, board, distance_of);
    auto a = standard.Solve(board, NoLimit());
    ASSERT_TRUE(a.ok());
    ASSERT_EQ(a->distance, distance_of(board));
    ASSERT_EQ(a->moves, expected);
    ASSERT_TRUE(Replays(rotation, board, a->moves));
    if (trial < 20) {  // plain IDA* takes ~15 ms a board
      auto b = plain.Solve(board, NoLimit());
      ASSERT_TRUE(b.ok());
      ASSERT_EQ(b->moves, expected);
    }
  }
}

// Boards with nine or more copies of a value have no table; the search answers them. The
// reference is a breadth-first search over boards whose queue, filled in canonical move
// order, meets the lexicographically smallest shortest path first.
std::vector<uint8_t> BoardBfs(const RotationPuzzle& rotation, const RotationBoard& start) {
  struct Entry {
    RotationBoard board;
    std::vector<uint8_t> path;
  };
  auto key = [](const RotationBoard& b) { return uint64_t{b.masks[0]} | uint64_t{b.masks[1]} << 24; };
  std::unordered_set<uint64_t> seen{key(start)};
  std::queue<Entry> queue;
  queue.push({start, {}});
  while (!queue.empty()) {
    Entry e = queue.front();
    queue.pop();
    if (rotation.IsGoal(e.board)) return e.path;
    for (int m = 0; m < 8; ++m) {
      RotationBoard next;
      rotation.Apply(e.board, m, &next);
      if (!seen.insert(key(next)).second) continue;
      auto path = e.path;
      path.push_back(static_cast<uint8_t>(m));
      queue.push({next, path});
    }
  }
  return {};
}

TEST(RotationLiveTest, BoardsWithoutEightOfEachAreSolvedBySearch) {
  const RotationPuzzle rotation;
  const LiveSolver<RotationPuzzle> solver(rotation);
  std::mt19937 rng(12);
  for (const auto& counts : {std::array<int, 3>{9, 8, 7}, {10, 7, 7}, {6, 9, 9}, {12, 6, 6}}) {
    for (int trial = 0; trial < 3; ++trial) {
      // Scramble a solved board of these counts by a few random moves, so the reference BFS
      // stays small.
      RotationBoard board = RandomRotationBoard(rng, counts);
      while (!rotation.IsGoal(board)) board = RandomRotationBoard(rng, counts);
      for (int i = 0; i < 6; ++i) {
        RotationBoard next;
        rotation.Apply(board, static_cast<int>(rng() % 8), &next);
        board = next;
      }
      std::array<uint64_t, 3> keys;
      ASSERT_EQ(rotation.Project(board, &keys), 0);
      auto solution = solver.Solve(board, NoLimit());
      ASSERT_TRUE(solution.ok());
      EXPECT_EQ(solution->moves, BoardBfs(rotation, board));
      EXPECT_TRUE(Replays(rotation, board, solution->moves));
    }
  }
}

// ---------------------------------------------------------------- knobs

class KnobsLiveTest : public ::testing::TestWithParam<std::string> {
 protected:
  // The brute-force distances of a wiring, computed once per process: both tests of a
  // wiring read them (the suite runs in one process, tests/gtest_suites.cmake).
  static const std::vector<int8_t>& AllDistancesOf(const KnobsPuzzle& knobs,
                                                   const std::string& name) {
    static auto* cache = new std::map<std::string, std::vector<int8_t>>();
    auto it = cache->find(name);
    if (it == cache->end()) it = cache->emplace(name, testing::AllDistances(knobs)).first;
    return it->second;
  }
};

// The whole space of a sample wiring by brute force: half the states are solvable, and
// bidirectional search gives the same distance and sequence as the table on random states,
// UNSOLVABLE where the table has no distance, NOT_WITHIN_LIMIT past a cap.
TEST_P(KnobsLiveTest, RandomStatesMatchTheFullBreadthFirstSearch) {
  auto cases = KnobsPuzzle::ParseOriginal(testing::Golden(GetParam()));
  ASSERT_TRUE(cases[0].instance.ok());
  const KnobsPuzzle knobs(cases[0].instance->params);
  const auto& table = AllDistancesOf(knobs, GetParam());
  const auto reached = std::count_if(table.begin(), table.end(), [](int8_t d) { return d >= 0; });
  EXPECT_EQ(reached, 8388608);
  auto distance_of = [&](uint32_t s) { return static_cast<int>(table[s]); };
  const LiveSolver<KnobsPuzzle> solver(knobs);
  std::mt19937 rng(31);
  for (int trial = 0; trial < 200; ++trial) {
    const uint32_t s = rng() & 0xFFFFFF;
    auto solution = solver.Solve(s, NoLimit());
    ASSERT_TRUE(solution.ok()) << solution.status();
    if (table[s] < 0) {
      ASSERT_EQ(solution->outcome, Outcome::kUnsolvable);
      continue;
    }
    ASSERT_EQ(solution->outcome, Outcome::kSolved);
    ASSERT_EQ(solution->distance, table[s]);
    ASSERT_EQ(solution->moves, GreedyPath(knobs, s, distance_of));
    ASSERT_TRUE(Replays(knobs, s, solution->moves));
    if (table[s] > 3) {
      auto capped = solver.Solve(s, Cap(table[s] - 1));
      ASSERT_TRUE(capped.ok());
      ASSERT_EQ(capped->outcome, Outcome::kNotWithinLimit);
      auto exact = solver.Solve(s, Cap(table[s]));
      ASSERT_TRUE(exact.ok());
      ASSERT_EQ(exact->outcome, Outcome::kSolved);
    }
  }
}

// The farthest states make both balls of the bidirectional search large; the solver then
// switches to a breadth-first search of the whole space, with the same answers.
TEST_P(KnobsLiveTest, TheFarthestStatesAreExactToo) {
  auto cases = KnobsPuzzle::ParseOriginal(testing::Golden(GetParam()));
  const KnobsPuzzle knobs(cases[0].instance->params);
  const auto& table = AllDistancesOf(knobs, GetParam());
  const int8_t farthest = *std::max_element(table.begin(), table.end());
  auto distance_of = [&](uint32_t s) { return static_cast<int>(table[s]); };
  const LiveSolver<KnobsPuzzle> solver(knobs);
  int checked = 0;
  for (uint32_t s = 0; s < table.size() && checked < 3; ++s) {
    if (table[s] != farthest) continue;
    auto solution = solver.Solve(s, NoLimit());
    ASSERT_TRUE(solution.ok()) << solution.status();
    ASSERT_EQ(solution->distance, farthest);
    ASSERT_EQ(solution->moves, GreedyPath(knobs, s, distance_of));
    EXPECT_EQ(solution->nodes, 8388608u);  // the whole-space search answered
    auto capped = solver.Solve(s, Cap(farthest - 1));
    ASSERT_TRUE(capped.ok());
    ASSERT_EQ(capped->outcome, Outcome::kNotWithinLimit);
    ++checked;
  }
  EXPECT_EQ(checked, 3);
}

INSTANTIATE_TEST_SUITE_P(SampleWirings, KnobsLiveTest,
                         ::testing::Values("knobs_9001.in", "knobs_9002.in", "knobs_9003.in"));

}  // namespace
}  // namespace puzzledb
