// The price of recording a call in the server's metrics (docs/PERFORMANCE.md, "The price of
// metrics"): one thread alone, and threads recording the same series at once, as gRPC's
// threads do when they answer from the tables; and the cost of a scrape's text.
#include "benchmark/benchmark.h"
#include "server/metrics.h"

namespace puzzledb {
namespace {

ServerMetrics& Metrics() {
  static ServerMetrics* metrics = new ServerMetrics();
  return *metrics;
}

void BM_RecordCall(benchmark::State& state) {
  ServerMetrics& metrics = Metrics();
  for (auto _ : state) {
    metrics.RecordCall(CallMethod::kSolve, Transport::kGrpc, AnswerSource::kTable,
                       absl::StatusCode::kOk, std::chrono::microseconds(3));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RecordCall)->Threads(1)->Threads(2)->UseRealTime();

void BM_Scrape(benchmark::State& state) {
  ServerMetrics& metrics = Metrics();
  size_t bytes = 0;
  for (auto _ : state) bytes = metrics.Scrape().size();
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_Scrape);

}  // namespace
}  // namespace puzzledb

BENCHMARK_MAIN();
