// Sampling at an exact distance and counting optimal solutions, in-process, on a built
// database (docs/PERFORMANCE.md, "Sampling and counting"):
//
//   PUZZLEDB_BENCH_DB=build/test-db build/bench/sample_bench
//
// Sample figures: cold_ms is the first call (the table's load, its band pages and the
// distance's block counts; for the rotation game the distance's split counts), ms_per_1000
// the calls after it. Count figures: per optimal count of a board at the largest distance
// (the knight's 62 at 39, the knobs_9001 wiring's 21 at 19), median and worst over all of
// them, and the counts themselves. Run it from the source folder (it reads the wiring from
// data/params/knobs/).
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/puzzles/knight.h"
#include "core/puzzles/knobs.h"
#include "core/puzzles/rotation.h"
#include "core/solver.h"
#include "core/search/live_solver.h"
#include "core/table/sampler.h"
#include "core/table/table_walker.h"

namespace puzzledb {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

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
      std::string name = "d";
      name += std::to_string(d);
      state.counters[name] = static_cast<double>(sample->population);
      sum += sample->population;
    }
  }
  state.counters["sum"] = static_cast<double>(sum);
}
BENCHMARK(BM_RotationPopulations)->Iterations(1)->Unit(benchmark::kSecond);

// The optimal count of every board at the largest distance: the knight's 62 at 39, the
// knobs_9001 wiring's 21 at 19.
template <PuzzleModel P>
void CountFarthest(benchmark::State& state, const P& model) {
  auto solver = OpenSolver(state);
  if (solver == nullptr) return;
  solver->Prepare<P>(model.params());  // the table's load is not the sampler's cost
  const auto sampled = std::chrono::steady_clock::now();
  auto antipodes = solver->Sample(model, Sampler<P>::kLargest, 100, 1, SearchLimits{});
  // The first sample of the table: its exact distances (band pages or a search), the
  // distance's block counts, the draw.
  state.counters["first_sample_ms"] = MillisSince(sampled);
  if (!antipodes.ok() || antipodes->states.empty()) {
    state.SkipWithError(antipodes.ok() ? "no states" : std::string(Message(antipodes.status())).c_str());
    return;
  }
  std::vector<double> millis;
  std::vector<double> counts, states;
  auto count = [&](const typename P::State& board) -> absl::StatusOr<double> {
    const typename P::Instance instance{model.params(), board};
    const auto start = std::chrono::steady_clock::now();
    TableStep step = solver->FromTables(model, instance, 0);
    auto paths = solver->Optimal<P>(instance, step, 1, SearchLimits{});
    const double ms = MillisSince(start);
    if (!paths.ok()) return paths.status();
    counts.push_back(static_cast<double>(paths->count));
    states.push_back(static_cast<double>(paths->states));
    return ms;
  };
  // The first count of the process, timed apart: it pays for the allocator's first pages.
  auto first = count(antipodes->states.front());
  if (!first.ok()) {
    state.SkipWithError(std::string(Message(first.status())).c_str());
    return;
  }
  counts.clear();
  states.clear();
  for (auto _ : state) {
    for (const auto& board : antipodes->states) {
      auto ms = count(board);
      if (!ms.ok()) {
        state.SkipWithError(std::string(Message(ms.status())).c_str());
        return;
      }
      millis.push_back(*ms);
    }
  }
  std::sort(millis.begin(), millis.end());
  std::sort(counts.begin(), counts.end());
  std::sort(states.begin(), states.end());
  state.counters["boards"] = static_cast<double>(antipodes->states.size());
  state.counters["distance"] = antipodes->distance;
  state.counters["median_ms"] = millis[millis.size() / 2];
  state.counters["max_ms"] = millis.back();
  state.counters["first_ms"] = *first;  // the first count of the process (cold allocator)
  state.counters["count_min"] = counts.front();
  state.counters["count_median"] = counts[counts.size() / 2];
  state.counters["count_max"] = counts.back();
  state.counters["dag_states_max"] = states.back();
  state.SetLabel("exact: counts " + std::to_string(static_cast<uint64_t>(counts.front())) + ".." +
                 std::to_string(static_cast<uint64_t>(counts.back())) + ", states on optimal paths up to " +
                 std::to_string(static_cast<uint64_t>(states.back())));
}

void BM_CountKnight39(benchmark::State& state) { CountFarthest(state, KnightPuzzle()); }
BENCHMARK(BM_CountKnight39)->Iterations(1)->Unit(benchmark::kMillisecond);

// The knobs_9001 wiring (data/params/knobs/), whose table the default database holds.
void BM_CountKnobsFarthest(benchmark::State& state) {
  auto cases = KnobsPuzzle::ParseOriginal(ReadFile("data/params/knobs/knobs_9001.in"));
  if (cases.empty() || !cases[0].instance.ok()) {
    state.SkipWithError("run from the source folder (data/params/knobs/knobs_9001.in)");
    return;
  }
  CountFarthest(state, KnobsPuzzle(cases[0].instance->params));
}
BENCHMARK(BM_CountKnobsFarthest)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace puzzledb

BENCHMARK_MAIN();
