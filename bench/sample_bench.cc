// Sampling at an exact distance and counting optimal solutions, in-process, on a built
// database (docs/PERFORMANCE.md, "Sampling and counting"):
//
//   PUZZLEDB_BENCH_DB=build/test-db build/bench/sample_bench
//
// Sample figures: cold_ms is the first call (the table's load, its band pages and the
// distance's block counts; for the rotation game the distance's split counts), ms_per_1000
// the calls after it. Count figures: per optimal count of a knight board at distance 39,
// median and worst over all 62 of them, and the counts themselves.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/puzzles/knight.h"
#include "core/puzzles/rotation.h"
#include "core/solver.h"

namespace puzzledb {
namespace {

double MillisSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// A fresh solver per benchmark, so that every cold figure is cold.
std::unique_ptr<Solver> OpenSolver(benchmark::State& state) {
  const char* db = std::getenv("PUZZLEDB_BENCH_DB");
  auto store = TableStore::Open(db != nullptr ? db : "var/db", TableStore::Mode::kReadOnly);
  if (!store.ok()) {
    state.SkipWithError("set PUZZLEDB_BENCH_DB to a database built by puzzledb-build");
    return nullptr;
  }
  return std::make_unique<Solver>(std::shared_ptr<TableStore>(std::move(*store)));
}

template <PuzzleModel P>
void SampleAt(benchmark::State& state) {
  auto solver = OpenSolver(state);
  if (solver == nullptr) return;
  const int distance = static_cast<int>(state.range(0));
  const uint64_t count = static_cast<uint64_t>(state.range(1));
  const P model;
  solver->Prepare<P>(model.params());  // the table's load is not the sampler's cost
  auto start = std::chrono::steady_clock::now();
  auto first = solver->Sample(model, distance, count, 1, SearchLimits{});
  const double cold = MillisSince(start);
  if (!first.ok()) {
    state.SkipWithError(std::string(Message(first.status())).c_str());
    return;
  }
  uint64_t seed = 2;
  double total = 0;
  for (auto _ : state) {
    start = std::chrono::steady_clock::now();
    auto sample = solver->Sample(model, distance, count, seed++, SearchLimits{});
    total += MillisSince(start);
    if (!sample.ok() || sample->states.size() != std::min(count, sample->population)) {
      state.SkipWithError("a sample went wrong");
      return;
    }
  }
  state.counters["cold_ms"] = cold;
  state.counters["ms_per_call"] = total / static_cast<double>(state.iterations());
  state.counters["states"] = static_cast<double>(first->states.size());
  state.counters["population"] = static_cast<double>(first->population);
}

void BM_SampleKnight(benchmark::State& state) { SampleAt<KnightPuzzle>(state); }
BENCHMARK(BM_SampleKnight)
    ->Args({25, 1000})
    ->Args({39, 1000})
    ->Args({5, 1000})
    ->Iterations(20)
    ->Unit(benchmark::kMillisecond);

void BM_SampleRotation(benchmark::State& state) { SampleAt<RotationPuzzle>(state); }
BENCHMARK(BM_SampleRotation)
    ->Args({9, 1000})
    ->Args({13, 1000})
    ->Args({3, 1000})
    ->Iterations(5)
    ->Unit(benchmark::kMillisecond);

// The number of boards at every distance, and their sum (24!/(8!)^3 = 9,465,511,770).
void BM_RotationPopulations(benchmark::State& state) {
  auto solver = OpenSolver(state);
  if (solver == nullptr) return;
  uint64_t sum = 0;
  for (auto _ : state) {
    sum = 0;
    for (int d = 0; d <= 14; ++d) {
      auto sample = solver->Sample(RotationPuzzle(), d, 0, 1, SearchLimits{});
      if (!sample.ok()) {
        state.SkipWithError(std::string(Message(sample.status())).c_str());
        return;
      }
      state.counters["d" + std::to_string(d)] = static_cast<double>(sample->population);
      sum += sample->population;
    }
  }
  state.counters["sum"] = static_cast<double>(sum);
}
BENCHMARK(BM_RotationPopulations)->Iterations(1)->Unit(benchmark::kSecond);

// The optimal count of every knight board at distance 39.
void BM_CountKnight39(benchmark::State& state) {
  auto solver = OpenSolver(state);
  if (solver == nullptr) return;
  const KnightPuzzle model;
  auto antipodes = solver->Sample(model, 39, 100, 1, SearchLimits{});
  if (!antipodes.ok() || antipodes->states.empty()) {
    state.SkipWithError("no knight table with band pages");
    return;
  }
  std::vector<double> millis;
  std::vector<double> counts, states;
  // The first count of the process, timed apart: it pays for the allocator's first pages.
  double first_ms = 0;
  {
    const KnightPuzzle::Instance instance{{}, antipodes->states.front()};
    const auto start = std::chrono::steady_clock::now();
    TableStep<KnightPuzzle> step = solver->FromTables(model, instance, 0);
    auto paths = solver->Optimal<KnightPuzzle>(instance, step, 1, 0, SearchLimits{});
    first_ms = MillisSince(start);
    benchmark::DoNotOptimize(paths);
  }
  for (auto _ : state) {
    for (const KnightBoard& board : antipodes->states) {
      const KnightPuzzle::Instance instance{{}, board};
      const auto start = std::chrono::steady_clock::now();
      TableStep<KnightPuzzle> step = solver->FromTables(model, instance, 0);
      auto paths = solver->Optimal<KnightPuzzle>(instance, step, 1, 0, SearchLimits{});
      millis.push_back(MillisSince(start));
      if (!paths.ok()) {
        state.SkipWithError(std::string(Message(paths.status())).c_str());
        return;
      }
      counts.push_back(static_cast<double>(paths->count));
      states.push_back(static_cast<double>(paths->states));
    }
  }
  std::sort(millis.begin(), millis.end());
  std::sort(counts.begin(), counts.end());
  std::sort(states.begin(), states.end());
  state.counters["boards"] = static_cast<double>(antipodes->states.size());
  state.counters["median_ms"] = millis[millis.size() / 2];
  state.counters["max_ms"] = millis.back();
  state.counters["first_ms"] = first_ms;  // the first count of the process (cold allocator)
  state.counters["count_min"] = counts.front();
  state.counters["count_median"] = counts[counts.size() / 2];
  state.counters["count_max"] = counts.back();
  state.counters["dag_states_max"] = states.back();
  state.SetLabel("exact: counts " + std::to_string(static_cast<uint64_t>(counts.front())) + ".." +
                 std::to_string(static_cast<uint64_t>(counts.back())) + ", states on optimal paths up to " +
                 std::to_string(static_cast<uint64_t>(states.back())));
}
BENCHMARK(BM_CountKnight39)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace puzzledb

BENCHMARK_MAIN();
