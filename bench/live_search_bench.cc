// Live search against the plain IDA* baselines, on the same boards in the same run.
// Figures per board: compare the *_per_board counters of a solver and its baseline.
//
//   build/bench/live_search_bench
#include <algorithm>
#include <chrono>
#include <random>
#include <string>
#include <vector>

#include "bench/baselines.h"
#include "benchmark/benchmark.h"
#include "core/puzzles/knight.h"
#include "core/puzzles/knobs.h"
#include "core/search/live_solver.h"
#include "core/puzzles/rotation.h"

namespace puzzledb {
namespace {

// Half scrambles of 8..47 random moves from the goal, half uniformly random boards (most of
// which are more than 15 moves away, so the answer is -1).
const std::vector<KnightBoard>& KnightMix() {
  static const auto* boards = [] {
    auto* out = new std::vector<KnightBoard>;
    const KnightPuzzle knight;
    std::mt19937_64 rng(2005);
    for (int i = 0; i < 200; ++i) {
      if (i % 2 == 0) {
        out->push_back(knight.Unrank(rng() % knight.Size()));
        continue;
      }
      KnightBoard s = KnightPuzzle::Goal();
      const int steps = 8 + static_cast<int>(rng() % 40);
      for (int k = 0; k < steps; ++k) {
        KnightBoard t;
        while (!knight.Apply(s, static_cast<int>(rng() % 8), &t)) {
        }
        s = t;
      }
      out->push_back(s);
    }
    return out;
  }();
  return *boards;
}

void BM_KnightCap15_PlainIda(benchmark::State& state) {
  bench::PlainKnightIda solver;
  std::vector<std::string> boards;
  for (const auto& b : KnightMix()) boards.push_back(KnightPuzzle::FormatCompact({{}, b}));
  int solved = 0;
  for (auto _ : state) {
    solved = 0;
    for (const auto& b : boards) solved += solver.Solve(b, 15) >= 0;
  }
  state.counters["boards"] = static_cast<double>(boards.size());
  state.counters["within_15"] = solved;
  state.counters["per_board"] = benchmark::Counter(
      static_cast<double>(boards.size()), benchmark::Counter::kIsIterationInvariantRate |
                                              benchmark::Counter::kInvert);
}
BENCHMARK(BM_KnightCap15_PlainIda)->Unit(benchmark::kMillisecond);

void BM_KnightCap15_LiveSolver(benchmark::State& state) {
  const LiveSolver<KnightPuzzle> solver(KnightPuzzle(), static_cast<int>(state.range(0)));
  SearchLimits cap;
  cap.max_moves = 15;
  int solved = 0;
  for (auto _ : state) {
    solved = 0;
    for (const auto& b : KnightMix()) {
      solved += solver.Solve(b, cap)->outcome == Outcome::kSolved;
    }
  }
  state.counters["boards"] = static_cast<double>(KnightMix().size());
  state.counters["within_15"] = solved;
  state.counters["per_board"] = benchmark::Counter(
      static_cast<double>(KnightMix().size()), benchmark::Counter::kIsIterationInvariantRate |
                                                   benchmark::Counter::kInvert);
}
// Argument: the perimeter radius (the default is KnightPuzzle::kPerimeterRadius).
BENCHMARK(BM_KnightCap15_LiveSolver)->Arg(8)->Arg(10)->Arg(11)->Arg(12)->Unit(benchmark::kMillisecond);

void BM_KnightPerimeterBuild(benchmark::State& state) {
  for (auto _ : state) {
    const LiveSolver<KnightPuzzle> solver(KnightPuzzle(), static_cast<int>(state.range(0)));
    state.counters["states"] = static_cast<double>(solver.perimeter()->size());
  }
}
BENCHMARK(BM_KnightPerimeterBuild)->Arg(10)->Arg(11)->Arg(12)->Unit(benchmark::kMillisecond);

void BM_RotationPerimeterBuild(benchmark::State& state) {
  for (auto _ : state) {
    const LiveSolver<RotationPuzzle> solver{RotationPuzzle()};
    state.counters["states"] = static_cast<double>(solver.perimeter()->size());
  }
}
BENCHMARK(BM_RotationPerimeterBuild)->Unit(benchmark::kMillisecond);

std::vector<std::vector<int>> RotationBoards() {
  std::mt19937 rng(2286);
  std::vector<std::vector<int>> boards;
  for (int i = 0; i < 40; ++i) {
    std::vector<int> cells;
    for (int k = 1; k <= 3; ++k) cells.insert(cells.end(), 8, k);
    std::shuffle(cells.begin(), cells.end(), rng);
    boards.push_back(cells);
  }
  return boards;
}

void BM_Rotation_PlainIda(benchmark::State& state) {
  const auto boards = RotationBoards();
  bench::PlainRotationIda solver;
  for (auto _ : state) {
    for (const auto& b : boards) benchmark::DoNotOptimize(solver.Solve(b));
  }
  state.counters["per_board"] = benchmark::Counter(
      static_cast<double>(boards.size()), benchmark::Counter::kIsIterationInvariantRate |
                                              benchmark::Counter::kInvert);
}
BENCHMARK(BM_Rotation_PlainIda)->Unit(benchmark::kMillisecond);

void BM_Rotation_LiveSolver(benchmark::State& state) {
  const auto boards = RotationBoards();
  const LiveSolver<RotationPuzzle> solver{RotationPuzzle()};
  std::vector<RotationBoard> parsed;
  bench::PlainRotationIda baseline;
  int mismatches = 0;
  for (const auto& b : boards) {
    parsed.push_back(*RotationPuzzle::BoardFromValues({b.begin(), b.end()}));
    const auto solution = solver.Solve(parsed.back(), {});
    std::string letters;
    for (uint8_t m : solution->moves) letters += RotationMoves::Name(m);
    mismatches += letters != baseline.Solve(b);
  }
  for (auto _ : state) {
    for (const auto& b : parsed) benchmark::DoNotOptimize(solver.Solve(b, {}));
  }
  state.counters["mismatches_vs_plain"] = mismatches;
  state.counters["per_board"] = benchmark::Counter(
      static_cast<double>(boards.size()), benchmark::Counter::kIsIterationInvariantRate |
                                              benchmark::Counter::kInvert);
}
BENCHMARK(BM_Rotation_LiveSolver)->Unit(benchmark::kMillisecond);

// Random valid wirings and random solvable-parity states: the median and the worst solve.
void BM_Knobs_Bidirectional(benchmark::State& state) {
  std::mt19937 rng(5507);
  std::vector<std::pair<KnobsWiring, uint32_t>> instances;
  for (int i = 0; i < 300; ++i) {
    std::vector<uint32_t> targets;
    for (int knob = 1; knob <= 12; ++knob) {
      for (int s = 0; s < 4; ++s) {
        uint32_t t;
        do t = 1 + rng() % 12; while (static_cast<int>(t) == knob);
        targets.push_back(t);
      }
    }
    uint32_t st;
    do st = rng() & 0xFFFFFF; while (KnobsPuzzle::ProvablyUnsolvable(st));
    instances.emplace_back(*KnobsWiring::FromNumbers(targets), st);
  }
  std::vector<double> millis;
  int max_distance = 0, unsolvable = 0;
  for (auto _ : state) {
    millis.clear();
    for (const auto& [wiring, st] : instances) {
      const KnobsPuzzle knobs(wiring);
      const auto start = std::chrono::steady_clock::now();
      const auto solution = LiveSolver<KnobsPuzzle>(knobs).Solve(st, {});
      millis.push_back(std::chrono::duration<double, std::milli>(
                           std::chrono::steady_clock::now() - start)
                           .count());
      max_distance = std::max(max_distance, solution->distance);
      unsolvable += solution->outcome == Outcome::kUnsolvable;
    }
  }
  std::sort(millis.begin(), millis.end());
  state.counters["median_ms"] = millis[millis.size() / 2];
  state.counters["p99_ms"] = millis[millis.size() * 99 / 100];
  state.counters["worst_ms"] = millis.back();
  state.counters["max_distance"] = max_distance;
  state.counters["unsolvable"] = unsolvable;
}
BENCHMARK(BM_Knobs_Bidirectional)->Unit(benchmark::kSecond)->Iterations(1);

// The hardest instances of one wiring: the states farthest from the goal, found by a full
// breadth-first search, solved one by one.
void BM_Knobs_FarthestStates(benchmark::State& state) {
  std::mt19937 rng(static_cast<uint32_t>(state.range(0)));
  std::vector<uint32_t> targets;
  for (int knob = 1; knob <= 12; ++knob) {
    for (int s = 0; s < 4; ++s) {
      uint32_t t;
      do t = 1 + rng() % 12; while (static_cast<int>(t) == knob);
      targets.push_back(t);
    }
  }
  const KnobsPuzzle knobs(*KnobsWiring::FromNumbers(targets));
  std::vector<int8_t> distance(knobs.Size(), -1);
  std::vector<uint32_t> frontier{0}, next;
  distance[0] = 0;
  int depth = 0;
  while (true) {
    next.clear();
    for (uint32_t s : frontier) {
      for (int m = 0; m < 12; ++m) {
        uint32_t p;
        knobs.Undo(s, m, &p);
        if (distance[p] < 0) {
          distance[p] = static_cast<int8_t>(depth + 1);
          next.push_back(p);
        }
      }
    }
    if (next.empty()) break;
    frontier.swap(next);
    ++depth;
  }
  if (frontier.size() > 20) frontier.resize(20);
  double worst = 0;
  int wrong = 0;
  for (auto _ : state) {
    for (uint32_t s : frontier) {
      const auto start = std::chrono::steady_clock::now();
      const auto solution = LiveSolver<KnobsPuzzle>(knobs).Solve(s, {});
      worst = std::max(worst, std::chrono::duration<double, std::milli>(
                                  std::chrono::steady_clock::now() - start)
                                  .count());
      wrong += solution->distance != depth;
    }
  }
  state.counters["distance"] = depth;
  state.counters["worst_ms"] = worst;
  state.counters["wrong"] = wrong;
}
BENCHMARK(BM_Knobs_FarthestStates)->Arg(1)->Arg(2)->Arg(3)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace
}  // namespace puzzledb

BENCHMARK_MAIN();
