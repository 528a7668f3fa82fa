// The server's per-request work without gRPC: parse the puzzle, walk the table, shape the
// response, serialize it. Needs a database: PUZZLEDB_BENCH_DB (default var/db).
//
//   PUZZLEDB_BENCH_DB=var/db build/bench/handler_bench
#include <cstdlib>
#include <random>

#include "benchmark/benchmark.h"
#include "core/puzzles/knight.h"
#include "core/puzzles/knobs.h"
#include "core/solver.h"
#include "core/table/table_store.h"
#include "service/wire.h"
#include "tests/typed_wire.h"
#include "service/request_handler.h"

namespace puzzledb {
namespace {

struct Fixture {
  Fixture() {
    const char* db = std::getenv("PUZZLEDB_BENCH_DB");
    auto store = TableStore::Open(db ? db : "var/db", TableStore::Mode::kReadOnly);
    if (!store.ok()) {
      std::fprintf(stderr, "handler_bench: %s\n", std::string(store.status().message()).c_str());
      std::exit(1);
    }
    solver = std::make_unique<Solver>(std::shared_ptr<TableStore>(std::move(*store)));
    solver->Preload();
    handler = std::make_unique<RequestHandler>(solver.get(), nullptr, HandlerOptions{});
    std::mt19937_64 rng(7);
    const KnightPuzzle knight;
    for (int i = 0; i < 4096; ++i) {
      v1::SolveRequest r;
      InstanceToWire(KnightPuzzle::Instance{{}, knight.RandomState(rng)}, r.mutable_puzzle());
      requests.push_back(r.SerializeAsString());
    }
    // Knobs boards of the first knobs table's wiring (a table id of 22 characters, which
    // does not fit a short string).
    auto tables = solver->store()->List();
    for (const TableMetadata& m : tables.ok() ? *tables : std::vector<TableMetadata>{}) {
      if (m.puzzle() != KnobsPuzzle::kName) continue;
      auto wiring = KnobsPuzzle::DecodeParams(m.parameters());
      if (!wiring.ok()) continue;
      const KnobsPuzzle knobs(*wiring);
      for (int i = 0; i < 4096; ++i) {
        v1::SolveRequest r;
        InstanceToWire(KnobsPuzzle::Instance{*wiring, knobs.RandomState(rng)}, r.mutable_puzzle());
        knobs_requests.push_back(r.SerializeAsString());
      }
      break;
    }
  }
  std::unique_ptr<Solver> solver;
  std::unique_ptr<RequestHandler> handler;
  std::vector<std::string> requests;
  std::vector<std::string> knobs_requests;
};

Fixture& Get() {
  static Fixture* f = new Fixture;
  return *f;
}

void HandleAll(benchmark::State& state, const std::vector<std::string>& requests) {
  Fixture& f = Get();
  if (requests.empty()) {
    state.SkipWithError("the database has no such table");
    return;
  }
  size_t i = 0;
  for (auto _ : state) {
    v1::SolveRequest request;
    request.ParseFromString(requests[i++ % requests.size()]);
    v1::SolveResponse response;
    auto routed = f.handler->Answer(request, &response);
    benchmark::DoNotOptimize(routed.status.ok());
    benchmark::DoNotOptimize(response.SerializeAsString());
  }
}

void BM_HandlerKnight(benchmark::State& state) { HandleAll(state, Get().requests); }
BENCHMARK(BM_HandlerKnight);

// Knobs states drawn at random: half are unsolvable (answered at once), half walked.
void BM_HandlerKnobs(benchmark::State& state) { HandleAll(state, Get().knobs_requests); }
BENCHMARK(BM_HandlerKnobs);

void BM_SolverOnlyKnight(benchmark::State& state) {
  Fixture& f = Get();
  const KnightPuzzle knight;
  std::mt19937_64 rng(7);
  std::vector<KnightPuzzle::Instance> instances;
  for (int i = 0; i < 4096; ++i) instances.push_back({{}, knight.RandomState(rng)});
  size_t i = 0;
  SolveOptions options;
  options.policy = Policy::kTableOnly;
  for (auto _ : state) {
    benchmark::DoNotOptimize(f.solver->Solve<KnightPuzzle>(instances[i++ % instances.size()], options));
  }
}
BENCHMARK(BM_SolverOnlyKnight);

}  // namespace
}  // namespace puzzledb

BENCHMARK_MAIN();
