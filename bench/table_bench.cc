// Table builds and table walks: the figures of docs/PERFORMANCE.md.
//
//   build/bench/table_bench                       # builds its own database in $TMPDIR
//   PUZZLEDB_BENCH_DB=var/db build/bench/table_bench --benchmark_filter=Walk
//
// Walk figures are per solve (the whole optimal path), measured one solve at a time:
// median_us and p99_us. Build figures are seconds of one build; peak_rss_mb is the
// process's peak resident memory so far (the knight build runs first).
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <span>
#include <sstream>
#include <string>

#include <unistd.h>

#include "bench/peak_memory.h"
#include "benchmark/benchmark.h"
#include "core/puzzles/knight.h"
#include "core/puzzles/knobs.h"
#include "core/puzzles/rotation.h"
#include "core/solver.h"
#include "core/search/live_solver.h"
#include "core/table/sampler.h"
#include "core/table/table_walker.h"
#include "core/table/table_builder.h"
#include "core/table/table_format.h"
#include "core/search/walk_down.h"
#include "core/search/retrograde_bfs.h"
#include "core/table/table_store.h"
#include "core/util/huge_buffer.h"

namespace puzzledb {
namespace {

double PeakRssMegabytes() { return static_cast<double>(bench::PeakResidentKilobytes()) / 1024.0; }

const std::string& DbPath() {
  static const std::string* path = [] {
    const char* given = std::getenv("PUZZLEDB_BENCH_DB");
    if (given != nullptr) return new std::string(given);
    const char* tmp = std::getenv("TMPDIR");
    auto* p = new std::string(std::string(tmp ? tmp : "/tmp") + "/puzzledb_bench_db_" +
                              std::to_string(::getpid()));
    return p;
  }();
  return *path;
}

TableStore& WritableStore() {
  static TableStore* store = [] {
    std::filesystem::remove_all(DbPath());
    auto opened = TableStore::Open(DbPath(), TableStore::Mode::kReadWrite);
    if (!opened.ok()) std::abort();
    return opened->release();
  }();
  return *store;
}

KnobsWiring SampleWiring(const char* name) {
  static const std::string dir = PUZZLEDB_WIRINGS_DIR;
  std::ifstream in(dir + "/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return KnobsPuzzle::ParseOriginal(text.str())[0].instance->params;
}

template <PuzzleModel P>
void BuildOnce(benchmark::State& state, const P& model) {
  BuildOptions options;
  options.threads = static_cast<int>(state.range(0));
  double search_seconds = 0;  // the search alone: its last layer's time
  options.on_layer = [&search_seconds](const BfsLayer& layer) { search_seconds = layer.seconds; };
  absl::StatusOr<TableMetadata> m;
  for (auto _ : state) m = BuildTable(model, WritableStore(), options);
  if (!m.ok()) state.SkipWithError(std::string(Message(m.status())).c_str());
  // seconds: the search and the entries made from it (a table's build_seconds); the
  // benchmark's own time adds compressing and writing the pages.
  state.counters["seconds"] = m.ok() ? m->build_seconds() : 0;
  state.counters["search_s"] = search_seconds;
  state.counters["stored_mb"] = m.ok() ? m->stored_bytes() / 1e6 : 0;
  state.counters["peak_rss_mb"] = PeakRssMegabytes();
}

void BM_BuildKnight(benchmark::State& state) { BuildOnce(state, KnightPuzzle()); }
BENCHMARK(BM_BuildKnight)->Arg(2)->Arg(1)->Iterations(1)->Unit(benchmark::kSecond);

void BM_BuildKnobs(benchmark::State& state) {
  BuildOnce(state, KnobsPuzzle(SampleWiring("knobs_9002.in")));
}
BENCHMARK(BM_BuildKnobs)->Arg(2)->Arg(1)->Iterations(1)->Unit(benchmark::kSecond);

void BM_BuildRotation(benchmark::State& state) { BuildOnce(state, RotationPuzzle()); }
BENCHMARK(BM_BuildRotation)->Arg(2)->Iterations(1)->Unit(benchmark::kSecond);

void BM_DatabaseSize(benchmark::State& state) {
  for (auto _ : state) {
    for (const char* w : {"knobs_9001.in", "knobs_9003.in"}) {
      (void)BuildTable(KnobsPuzzle(SampleWiring(w)), WritableStore(), BuildOptions{});
    }
  }
  uint64_t bytes = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(DbPath())) {
    if (e.is_regular_file()) bytes += e.file_size();
  }
  state.counters["db_mb"] = bytes / 1e6;
}
BENCHMARK(BM_DatabaseSize)->Iterations(1)->Unit(benchmark::kSecond);

// ---------------------------------------------------------------- walks

Solver& ReadSolver() {
  static Solver* solver = [] {
    auto store = TableStore::Open(DbPath(), TableStore::Mode::kReadOnly);
    if (!store.ok()) std::abort();
    auto* s = new Solver(std::shared_ptr<TableStore>(std::move(*store)));
    s->Preload();
    return s;
  }();
  return *solver;
}

template <PuzzleModel P>
void WalkAll(benchmark::State& state, const std::vector<typename P::Instance>& instances) {
  Solver& solver = ReadSolver();
  std::vector<double> micros;
  micros.reserve(instances.size());
  uint64_t lookups = 0, moves = 0;
  int from_table = 0;
  for (auto _ : state) {
    micros.clear();
    for (const auto& instance : instances) {
      const auto start = std::chrono::steady_clock::now();
      const auto solution = solver.Solve<P>(instance, SolveOptions{});
      micros.push_back(
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
              .count());
      lookups += solution->lookups;
      moves += solution->moves.size();
      from_table += solution->source == Source::kTable;
    }
  }
  std::sort(micros.begin(), micros.end());
  state.counters["median_us"] = micros[micros.size() / 2];
  state.counters["p99_us"] = micros[micros.size() * 99 / 100];
  state.counters["lookups_per_solve"] =
      static_cast<double>(lookups) / static_cast<double>(state.iterations() * instances.size());
  state.counters["moves_per_solve"] =
      static_cast<double>(moves) / static_cast<double>(state.iterations() * instances.size());
  state.counters["from_table"] = from_table / static_cast<double>(state.iterations());
}

void BM_WalkKnight(benchmark::State& state) {
  const KnightPuzzle knight;
  std::mt19937_64 rng(1);
  std::vector<KnightPuzzle::Instance> instances;
  for (int i = 0; i < 20000; ++i) instances.push_back({{}, knight.Unrank(rng() % knight.Size())});
  WalkAll<KnightPuzzle>(state, instances);
}
BENCHMARK(BM_WalkKnight)->Iterations(3)->Unit(benchmark::kMillisecond);

void BM_WalkKnobs(benchmark::State& state) {
  const KnobsWiring wiring = SampleWiring("knobs_9002.in");
  std::mt19937 rng(2);
  std::vector<KnobsPuzzle::Instance> instances;
  while (instances.size() < 20000) {
    const uint32_t s = rng() & 0xFFFFFF;
    if (!KnobsPuzzle::ProvablyUnsolvable(s)) instances.push_back({wiring, s});
  }
  WalkAll<KnobsPuzzle>(state, instances);
}
BENCHMARK(BM_WalkKnobs)->Iterations(3)->Unit(benchmark::kMillisecond);

void BM_WalkRotation(benchmark::State& state) {
  std::mt19937 rng(3);
  std::vector<RotationPuzzle::Instance> instances;
  for (int i = 0; i < 20000; ++i) {
    std::vector<uint32_t> values;
    for (uint32_t k = 1; k <= 3; ++k) values.insert(values.end(), 8, k);
    std::shuffle(values.begin(), values.end(), rng);
    instances.push_back({{}, *RotationPuzzle::BoardFromValues(values)});
  }
  WalkAll<RotationPuzzle>(state, instances);
}
BENCHMARK(BM_WalkRotation)->Iterations(3)->Unit(benchmark::kMillisecond);

// ---------------------------------------------------------------- walks taking turns (issue 26)
// The table step of the same 20,000 states one at a time (Solver::FromTables) and in
// batches (Solver::FromTablesMany, batch size the argument), alternated round by round in
// one run: ns_one and ns_batched per state (the best round of each), and their ratio. The
// answers must be the same (the benchmark fails otherwise).
template <PuzzleModel P>
void WalkBatched(benchmark::State& state, const P& model,
                 const std::vector<typename P::Instance>& instances) {
  Solver& solver = ReadSolver();
  const size_t batch = static_cast<size_t>(state.range(0));
  const std::vector<int> caps(instances.size(), 0);
  std::vector<TableStep> steps(instances.size());
  double best_one = 1e18, best_batched = 1e18;
  uint64_t moves_one = 0, moves_batched = 0;
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    moves_one = 0;
    for (const auto& instance : instances) {
      const TableStep step = solver.FromTables(model, instance, 0);
      moves_one += step.answer.has_value() ? step.answer->moves.size() : 0;
    }
    best_one = std::min(best_one, std::chrono::duration<double, std::nano>(
                                      std::chrono::steady_clock::now() - start).count());
    start = std::chrono::steady_clock::now();
    for (size_t i = 0; i < instances.size(); i += batch) {
      const size_t n = std::min(batch, instances.size() - i);
      solver.FromTablesMany(model, std::span(instances).subspan(i, n),
                            std::span(caps).subspan(i, n), std::span(steps).subspan(i, n));
    }
    best_batched = std::min(best_batched, std::chrono::duration<double, std::nano>(
                                              std::chrono::steady_clock::now() - start).count());
    moves_batched = 0;
    for (const TableStep& step : steps) {
      moves_batched += step.answer.has_value() ? step.answer->moves.size() : 0;
    }
    if (moves_one != moves_batched) state.SkipWithError("the batched walks answered differently");
  }
  const double n = static_cast<double>(instances.size());
  state.counters["ns_one"] = best_one / n;
  state.counters["ns_batched"] = best_batched / n;
  state.counters["speedup"] = best_one / best_batched;
  state.counters["moves_per_solve"] = static_cast<double>(moves_one) / n;
}

void BM_WalkKnightBatched(benchmark::State& state) {
  const KnightPuzzle knight;
  std::mt19937_64 rng(1);
  std::vector<KnightPuzzle::Instance> instances;
  for (int i = 0; i < 20000; ++i) instances.push_back({{}, knight.Unrank(rng() % knight.Size())});
  WalkBatched(state, knight, instances);
}
BENCHMARK(BM_WalkKnightBatched)->Arg(1)->Arg(16)->Arg(1000)->Iterations(5)->Unit(benchmark::kMillisecond);

void BM_WalkKnobsBatched(benchmark::State& state) {
  const KnobsWiring wiring = SampleWiring("knobs_9002.in");
  const KnobsPuzzle knobs(wiring);
  std::mt19937 rng(2);
  std::vector<KnobsPuzzle::Instance> instances;
  while (instances.size() < 20000) {
    const uint32_t s = rng() & 0xFFFFFF;
    if (!KnobsPuzzle::ProvablyUnsolvable(s)) instances.push_back({wiring, s});
  }
  WalkBatched(state, knobs, instances);
}
BENCHMARK(BM_WalkKnobsBatched)->Arg(1000)->Iterations(5)->Unit(benchmark::kMillisecond);

// ---------------------------------------------------------------- next moves (issue 13)
// How the knobs' encoding was chosen: the table as exact distances (one byte per state,
// what puzzledb stored before) beside two layouts that store the walk instead, 4 bits per
// state as NEXT_MOVE does (docs/FORMAT.md): the first optimal move (0..11), 14 at the goal,
// 15 where not covered, derived by NextMoves (core/table/table_builder.h). All are made
// from one search of one wiring and stored the way the store stores pages (zstd level 9,
// 262,144 entries a page); the walks run over the same 20,000 random solvable states, one
// solve at a time, and must give the same moves (the benchmark fails otherwise). Counters:
// stored_mb of each, derive_s (the pass that derives the moves from the distances, on one
// thread here), median_us of each bare walk.
// The third layout keeps only the solvable half: a turn advances two knobs by one step, so
// the parity of the sum of the knob states never changes, and bit 0 of a state (knob 1's
// low bit) follows from the other 23 bits on the goal's side. Index = state >> 1. It is what
// puzzledb now stores; BM_WalkKnobs walks it through the solver.
struct KnobsEncodings {
  KnobsPuzzle model;
  BfsResult bfs;
  PackedTable next;  // every state, by the packed word
  PackedTable half;  // the solvable states, by state >> 1
  double derive_seconds = 0;
};

const KnobsEncodings& Encodings() {
  static const KnobsEncodings* encodings = [] {
    auto* e = new KnobsEncodings{KnobsPuzzle(SampleWiring("knobs_9002.in")), {}, {}, {}, 0};
    e->bfs = RetrogradeBfs<KnobsPuzzle>(e->model).Run({});
    const auto start = std::chrono::steady_clock::now();
    // The product's derivation, over the model's own index of every state (on one thread).
    auto next = NextMoves(e->model, e->bfs.distance, 1);
    if (!next.ok()) std::abort();
    e->next = std::move(*next);
    // The solvable half: the goal's side of the parity, one state per index.
    const uint64_t n = e->model.Size();
    e->half = PackedTable(storage::v1::NEXT_MOVE, n / 2);
    for (uint64_t i = 0; i < n; ++i) {
      if (e->bfs.distance[i] != BfsResult::kUnseen) e->half.Set(i >> 1, e->next.Get(i));
    }
    e->derive_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return e;
  }();
  return *encodings;
}

double StoredMegabytes(const uint8_t* data, uint64_t bytes, uint64_t bytes_per_page) {
  uint64_t stored = 0;
  for (uint64_t first = 0; first < bytes; first += bytes_per_page) {
    const std::string payload(reinterpret_cast<const char*>(data) + first,
                              std::min(bytes_per_page, bytes - first));
    stored += EncodePage(storage::v1::DISTANCE_BYTE, first, static_cast<uint32_t>(payload.size()),
                         payload, 9)
                  .size();
  }
  return static_cast<double>(stored) / 1e6;
}

void BM_KnobsEncodings(benchmark::State& state) {
  const KnobsEncodings& e = Encodings();
  const uint8_t* dist = e.bfs.distance.data();
  std::mt19937_64 rng(5);
  std::vector<uint32_t> starts;
  while (starts.size() < 20000) {
    const auto s = static_cast<uint32_t>(rng() % e.model.Size());
    if (dist[s] != BfsResult::kUnseen) starts.push_back(s);
  }
  // A next-move walk: one read per step, the state shifted right by `shift` as its index.
  auto walk = [&e](const PackedTable& codes, int shift, uint32_t at,
                   std::vector<uint8_t>* moves) {
    moves->clear();
    for (int steps = 0; steps < 255; ++steps) {
      const uint8_t code = codes.Get(at >> shift);
      if (code >= KnobsPuzzle::kNumMoves) break;  // the goal's mark (or uncovered)
      moves->push_back(code);
      e.model.Apply(at, code, &at);
    }
  };
  std::vector<double> byte_us, next_us, half_us;
  std::vector<uint8_t> by_distance, by_next, by_half;
  uint64_t mismatches = 0;
  for (auto _ : state) {
    byte_us.clear();
    next_us.clear();
    half_us.clear();
    for (uint32_t s : starts) {
      by_distance.clear();
      auto start = std::chrono::steady_clock::now();
      // Exact distances: the walk puzzledb does (WalkDown, every move tried in order).
      const absl::Status walked = WalkDown(
          e.model, s, dist[s], [&](uint32_t t) { return dist[t] == 255 ? -1 : int{dist[t]}; },
          "bench", &by_distance);
      benchmark::DoNotOptimize(walked.ok());
      auto mid = std::chrono::steady_clock::now();
      walk(e.next, 0, s, &by_next);
      auto end = std::chrono::steady_clock::now();
      walk(e.half, 1, s, &by_half);  // the solvable half, indexed by state >> 1
      auto last = std::chrono::steady_clock::now();
      byte_us.push_back(std::chrono::duration<double, std::micro>(mid - start).count());
      next_us.push_back(std::chrono::duration<double, std::micro>(end - mid).count());
      half_us.push_back(std::chrono::duration<double, std::micro>(last - end).count());
      mismatches += by_distance != by_next;
      mismatches += by_distance != by_half;
    }
  }
  if (mismatches != 0) state.SkipWithError("the encodings walked differently");
  std::sort(byte_us.begin(), byte_us.end());
  std::sort(next_us.begin(), next_us.end());
  std::sort(half_us.begin(), half_us.end());
  state.counters["half_median_us"] = half_us[half_us.size() / 2];
  state.counters["half_stored_mb"] =
      StoredMegabytes(e.half.data(), e.half.BytesFor(e.half.size()), kDefaultEntriesPerPage / 2);
  state.counters["byte_median_us"] = byte_us[byte_us.size() / 2];
  state.counters["next_median_us"] = next_us[next_us.size() / 2];
  state.counters["byte_stored_mb"] =
      StoredMegabytes(dist, e.model.Size(), kDefaultEntriesPerPage);
  state.counters["next_stored_mb"] = StoredMegabytes(
      e.next.data(), e.next.BytesFor(e.next.size()), kDefaultEntriesPerPage / 2);
  state.counters["bfs_s"] = e.bfs.seconds;
  state.counters["derive_s"] = e.derive_seconds;
}
BENCHMARK(BM_KnobsEncodings)->Iterations(3)->Unit(benchmark::kMillisecond);

// The walk's bound: one step of a knight walk cannot start before the entries of the step
// before it have been read, so a walk is about 23.5 dependent memory round trips. This
// chases pointers through a buffer of the knight table's size (8.8 MB, in 2 MB pages like
// the table) in a random cycle: ns_per_read is the latency of one such round trip here.
// The argument is the buffer's size in KiB: also 1 MiB and 4 MiB (the knobs' next-move
// table over its solvable half would be 4 MiB), and 16 MiB (a knobs byte table).
void BM_MemoryLatency(benchmark::State& state) {
  const uint64_t n = static_cast<uint64_t>(state.range(0)) * 1024 / sizeof(uint64_t);
  HugeBuffer buffer(n * sizeof(uint64_t), 0);
  auto* next = reinterpret_cast<uint64_t*>(buffer.data());
  std::vector<uint64_t> order(n);
  for (uint64_t i = 0; i < n; ++i) order[i] = i;
  std::shuffle(order.begin() + 1, order.end(), std::mt19937_64(3));
  for (uint64_t i = 0; i < n; ++i) next[order[i]] = order[(i + 1) % n];
  constexpr uint64_t kReads = 2000000;
  uint64_t at = 0;
  double seconds = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    for (uint64_t r = 0; r < kReads; ++r) at = next[at];
    benchmark::DoNotOptimize(at);
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  state.counters["ns_per_read"] =
      seconds * 1e9 / static_cast<double>(state.iterations() * kReads);
}
BENCHMARK(BM_MemoryLatency)
    ->Arg(1024)
    ->Arg(4096)
    ->Arg(static_cast<int>(KnightClassSpace().Size() / 4 / 1024))  // the knight's 8.8 MB
    ->Arg(16384)
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace puzzledb

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (std::getenv("PUZZLEDB_BENCH_DB") == nullptr) {
    std::filesystem::remove_all(puzzledb::DbPath());  // the database this run built
  }
  return 0;
}
