// The hot loops of core/: rank and unrank per puzzle, one BFS layer, a page decode.
//
//   build/bench/core_bench
#include <random>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/puzzles/knight.h"
#include "core/puzzles/knobs.h"
#include "core/search/retrograde_bfs.h"
#include "core/puzzles/rotation.h"
#include "core/table/table_store.h"

namespace puzzledb {
namespace {

template <class Space>
std::vector<typename Space::State> RandomStates(const Space& space, int n) {
  std::mt19937_64 rng(1);
  std::vector<typename Space::State> states;
  for (int i = 0; i < n; ++i) states.push_back(space.Unrank(rng() % space.Size()));
  return states;
}

template <class Space>
void Rank(benchmark::State& state, const Space& space) {
  const auto states = RandomStates(space, 4096);
  size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(space.Rank(states[i++ & 4095]));
}

template <class Space>
void Unrank(benchmark::State& state, const Space& space) {
  std::mt19937_64 rng(2);
  std::vector<uint64_t> ranks;
  for (int i = 0; i < 4096; ++i) ranks.push_back(rng() % space.Size());
  size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(space.Unrank(ranks[i++ & 4095]));
}

void BM_RankKnight(benchmark::State& s) { Rank(s, KnightPuzzle()); }
void BM_UnrankKnight(benchmark::State& s) { Unrank(s, KnightPuzzle()); }
void BM_RankRotationPlacement(benchmark::State& s) { Rank(s, CentrePlacementSpace()); }
void BM_UnrankRotationPlacement(benchmark::State& s) { Unrank(s, CentrePlacementSpace()); }
void BM_RankKnobs(benchmark::State& s) { Rank(s, KnobsPuzzle()); }
BENCHMARK(BM_RankKnight);
BENCHMARK(BM_UnrankKnight);
BENCHMARK(BM_RankRotationPlacement);
BENCHMARK(BM_UnrankRotationPlacement);
BENCHMARK(BM_RankKnobs);

// The knight's BFS to depth 20 (every layer up to the 4.6 M states at 20), per thread count.
void BM_KnightBfsToDepth20(benchmark::State& state) {
  BfsOptions options;
  options.max_depth = 20;
  options.threads = static_cast<int>(state.range(0));
  uint64_t covered = 0;
  for (auto _ : state) covered = RetrogradeBfs<KnightPuzzle>(KnightPuzzle()).Run(options).covered();
  state.counters["states"] = static_cast<double>(covered);
}
BENCHMARK(BM_KnightBfsToDepth20)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->Iterations(2);

// One layer, as the builder runs it: the knight's largest top-down layer (24 -> 25 is
// the first bottom-up one): time of the layer from 23 to 24 is the difference of two runs.
void BM_KnightBfsLayer24(benchmark::State& state) {
  double seconds = 0;
  for (auto _ : state) {
    BfsOptions options;
    options.max_depth = 24;
    options.on_layer = [&](const BfsLayer& layer) {
      static double before = 0;
      if (layer.depth == 23) before = layer.seconds;
      if (layer.depth == 24) seconds = layer.seconds - before;
    };
    RetrogradeBfs<KnightPuzzle>(KnightPuzzle()).Run(options);
  }
  state.counters["layer_24_ms"] = seconds * 1000;
}
BENCHMARK(BM_KnightBfsLayer24)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_PageDecode(benchmark::State& state) {
  // A knight page: 262,144 residues of a real table region (the first layers' pattern is
  // less compressible than all-uncovered, so use random residues with the real skew).
  std::mt19937 rng(3);
  std::string payload(65536, '\0');
  for (char& c : payload) c = static_cast<char>(rng() % 3 | (rng() % 3) << 2 | (rng() % 3) << 4);
  const std::string page = EncodePage(storage::v1::DISTANCE_MOD3, 0, 262144, payload, 9);
  for (auto _ : state) {
    benchmark::DoNotOptimize(DecodePage(page, storage::v1::DISTANCE_MOD3, 0, 262144));
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 65536);
  state.counters["page_bytes"] = static_cast<double>(page.size());
}
BENCHMARK(BM_PageDecode);

}  // namespace
}  // namespace puzzledb

BENCHMARK_MAIN();
