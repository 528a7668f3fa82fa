#include "server/metrics.h"

#include <unistd.h>

#include <cstdio>

#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/metric_family.h"
#include "prometheus/registry.h"
#include "prometheus/text_serializer.h"

#ifndef PUZZLEDB_VERSION
#define PUZZLEDB_VERSION "unknown"
#endif

namespace puzzledb {
namespace {

constexpr const char* kMethodNames[kCallMethods] = {
    "Solve", "Analyze", "Sample", "ListTables", "SolveStream", "ParseInput", "Play",
    "SolveBatch", "ListPuzzles"};
constexpr const char* kTransportNames[kTransports] = {"grpc", "http"};
constexpr const char* kSourceNames[kAnswerSources] = {"table", "search", "refused", "none"};

// A table answer takes microseconds; the buckets run from 1 µs to 100 ms.
const prometheus::Histogram::BucketBoundaries kTableBuckets = {
    1e-6, 2.5e-6, 5e-6, 1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 1e-3, 1e-2, 0.1};
// A search takes milliseconds to its deadline (10 s by default, longer when asked).
const prometheus::Histogram::BucketBoundaries kSearchBuckets = {
    1e-3, 5e-3, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};

double NowUnixSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

prometheus::MetricFamily Family(std::string name, std::string help, prometheus::MetricType type) {
  prometheus::MetricFamily family;
  family.name = std::move(name);
  family.help = std::move(help);
  family.type = type;
  return family;
}

// One sample of a gauge or counter family.
void Add(prometheus::MetricFamily& family, double value,
         std::vector<prometheus::ClientMetric::Label> labels = {}) {
  prometheus::ClientMetric metric;
  metric.label = std::move(labels);
  (family.type == prometheus::MetricType::Counter ? metric.counter.value : metric.gauge.value) =
      value;
  family.metric.push_back(std::move(metric));
}

}  // namespace

uint64_t ResidentBytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  unsigned long long size = 0, resident = 0;
  const int read = std::fscanf(f, "%llu %llu", &size, &resident);
  std::fclose(f);
  if (read != 2) return 0;
  return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

ServerMetrics::ServerMetrics()
    : registry_(std::make_shared<prometheus::Registry>()), start_time_(NowUnixSeconds()) {
  calls_ = &prometheus::BuildCounter()
                .Name("puzzledb_calls_total")
                .Help("Calls answered, by method, transport (grpc, http), source of the answer "
                      "(table, search, refused, none) and status code; each request of a "
                      "SolveStream is a call")
                .Register(*registry_);
  refused_total_ = &prometheus::BuildCounter()
                        .Name("puzzledb_searches_refused_total")
                        .Help("Searches refused because every slot and the queue were taken")
                        .Register(*registry_)
                        .Add({});
  streams_opened_ = &prometheus::BuildCounter()
                         .Name("puzzledb_streams_total")
                         .Help("SolveStream calls opened")
                         .Register(*registry_)
                         .Add({});
  streams_now_ = &prometheus::BuildGauge()
                      .Name("puzzledb_streams_open")
                      .Help("SolveStream calls open now")
                      .Register(*registry_)
                      .Add({});
  http_connections_opened_ = &prometheus::BuildCounter()
                                  .Name("puzzledb_http_connections_total")
                                  .Help("HTTP connections accepted")
                                  .Register(*registry_)
                                  .Add({});
  http_connections_now_ = &prometheus::BuildGauge()
                               .Name("puzzledb_http_connections_open")
                               .Help("HTTP connections open now")
                               .Register(*registry_)
                               .Add({});
  auto& closed = prometheus::BuildCounter()
                     .Name("puzzledb_http_connections_closed_total")
                     .Help("HTTP connections closed, by reason")
                     .Register(*registry_);
  constexpr const char* kCloseReasons[kHttpCloses] = {
      "client", "done", "idle", "head_timeout", "body_timeout", "write_timeout", "evicted",
      "refused"};
  for (int i = 0; i < kHttpCloses; ++i) http_closed_[i] = &closed.Add({{"reason", kCloseReasons[i]}});
  grpc_connections_opened_ = &prometheus::BuildCounter()
                                  .Name("puzzledb_grpc_connections_total")
                                  .Help("gRPC connections accepted")
                                  .Register(*registry_)
                                  .Add({});
  grpc_connections_now_ = &prometheus::BuildGauge()
                               .Name("puzzledb_grpc_connections_open")
                               .Help("gRPC connections open now, opening ones included")
                               .Register(*registry_)
                               .Add({});
  auto& grpc_closed = prometheus::BuildCounter()
                          .Name("puzzledb_grpc_connections_closed_total")
                          .Help("gRPC connections closed, by reason")
                          .Register(*registry_);
  constexpr const char* kGrpcCloseReasons[kGrpcCloses] = {
      "client", "server", "handshake_timeout", "evicted", "limit", "header_block", "header_list",
      "streams", "resets", "protocol", "pings"};
  for (int i = 0; i < kGrpcCloses; ++i) {
    grpc_closed_[i] = &grpc_closed.Add({{"reason", kGrpcCloseReasons[i]}});
  }
  auto& table_seconds = prometheus::BuildHistogram()
                            .Name("puzzledb_table_answer_seconds")
                            .Help("Time to answer a call from the tables, by method")
                            .Register(*registry_);
  auto& search_seconds = prometheus::BuildHistogram()
                             .Name("puzzledb_search_seconds")
                             .Help("Time to answer a call by a search, waiting for a slot "
                                   "included, by method")
                             .Register(*registry_);
  for (int m = 0; m < kCallMethods; ++m) {
    const CallMethod method = static_cast<CallMethod>(m);
    // Only the methods that read tables or search get histograms.
    if (method == CallMethod::kListTables || method == CallMethod::kParseInput ||
        method == CallMethod::kPlay || method == CallMethod::kListPuzzles) {
      continue;
    }
    table_seconds_[m] = &table_seconds.Add({{"method", kMethodNames[m]}}, kTableBuckets);
    search_seconds_[m] = &search_seconds.Add({{"method", kMethodNames[m]}}, kSearchBuckets);
  }
}

ServerMetrics::~ServerMetrics() = default;

prometheus::Counter& ServerMetrics::CallCounter(CallMethod method, Transport transport,
                                                AnswerSource source, absl::StatusCode code) {
  int c = static_cast<int>(code);
  if (c < 0 || c >= kCodes) c = static_cast<int>(absl::StatusCode::kUnknown);
  const size_t slot = ((static_cast<size_t>(method) * kTransports + static_cast<size_t>(transport)) *
                           kAnswerSources +
                       static_cast<size_t>(source)) *
                          kCodes +
                      static_cast<size_t>(c);
  prometheus::Counter* counter = call_counters_[slot].load(std::memory_order_acquire);
  if (counter == nullptr) {
    // Two threads may both get here: Add returns the same counter for the same labels.
    counter = &calls_->Add(
        {{"method", kMethodNames[static_cast<int>(method)]},
         {"transport", kTransportNames[static_cast<int>(transport)]},
         {"source", kSourceNames[static_cast<int>(source)]},
         {"code", absl::StatusCodeToString(static_cast<absl::StatusCode>(c))}});
    call_counters_[slot].store(counter, std::memory_order_release);
  }
  return *counter;
}

void ServerMetrics::RecordCall(CallMethod method, Transport transport, AnswerSource source,
                               absl::StatusCode code, std::chrono::steady_clock::duration elapsed) {
  RecordCalls(method, transport, source, code, 1, elapsed);
}

void ServerMetrics::RecordCalls(CallMethod method, Transport transport, AnswerSource source,
                                absl::StatusCode code, uint64_t count,
                                std::chrono::steady_clock::duration elapsed) {
  if (count == 0) return;
  CallCounter(method, transport, source, code).Increment(static_cast<double>(count));
  const double seconds = std::chrono::duration<double>(elapsed).count();
  const int m = static_cast<int>(method);
  const bool ok = code == absl::StatusCode::kOk;
  switch (source) {
    case AnswerSource::kTable:
      if (table_seconds_[m] != nullptr) table_seconds_[m]->Observe(seconds);
      (ok ? counters_.table_answers : counters_.errors) += count;
      break;
    case AnswerSource::kSearch:
      if (search_seconds_[m] != nullptr) search_seconds_[m]->Observe(seconds);
      (ok ? counters_.searches : counters_.errors) += count;
      break;
    case AnswerSource::kRefused:
      refused_total_->Increment(static_cast<double>(count));
      counters_.refused_searches += count;
      break;
    case AnswerSource::kNone:
      if (!ok) counters_.errors += count;
      break;
  }
}

void ServerMetrics::StreamOpened() {
  streams_opened_->Increment();
  streams_now_->Increment();
}

void ServerMetrics::StreamClosed() { streams_now_->Decrement(); }

void ServerMetrics::HttpConnectionOpened() {
  http_connections_opened_->Increment();
  http_connections_now_->Increment();
}

void ServerMetrics::HttpConnectionClosed(HttpClose reason) {
  http_connections_now_->Decrement();
  http_closed_[static_cast<int>(reason)]->Increment();
}

void ServerMetrics::GrpcConnectionOpened() {
  grpc_connections_opened_->Increment();
  grpc_connections_now_->Increment();
}

void ServerMetrics::GrpcConnectionClosed(GrpcClose reason) {
  grpc_connections_now_->Decrement();
  grpc_closed_[static_cast<int>(reason)]->Increment();
}

std::string ServerMetrics::Scrape() const {
  std::vector<prometheus::MetricFamily> families = registry_->Collect();
  using prometheus::MetricType;
  const MetricsSnapshot s = snapshot_ ? snapshot_() : MetricsSnapshot{};

  auto slots = Family("puzzledb_search_slots", "Searches that may run at once "
                      "(--max-concurrent-searches)", MetricType::Gauge);
  Add(slots, s.search_slots);
  auto running = Family("puzzledb_searches_running", "Searches running now", MetricType::Gauge);
  Add(running, s.searches_running);
  auto queued = Family("puzzledb_searches_queued", "Searches waiting for a slot",
                       MetricType::Gauge);
  Add(queued, static_cast<double>(s.searches_queued));
  auto queue_limit = Family("puzzledb_search_queue_limit",
                            "Unary searches that may wait for a slot (--search-queue)",
                            MetricType::Gauge);
  Add(queue_limit, static_cast<double>(s.search_queue_limit));
  families.push_back(std::move(slots));
  families.push_back(std::move(running));
  families.push_back(std::move(queued));
  families.push_back(std::move(queue_limit));

  if (s.builds_enabled) {
    auto builds_queued = Family("puzzledb_background_builds_queued",
                                "Background table builds queued or running", MetricType::Gauge);
    Add(builds_queued, static_cast<double>(s.builds_queued));
    auto builds = Family("puzzledb_background_builds_total",
                         "Background table builds ended, by result (done, failed, dropped: "
                         "not queued because the queue was full, deferred: not queued "
                         "because builds back off after a failure)",
                         MetricType::Counter);
    Add(builds, static_cast<double>(s.builds_done), {{"result", "done"}});
    Add(builds, static_cast<double>(s.builds_failed), {{"result", "failed"}});
    Add(builds, static_cast<double>(s.builds_dropped), {{"result", "dropped"}});
    Add(builds, static_cast<double>(s.builds_deferred), {{"result", "deferred"}});
    auto retry_in = Family("puzzledb_background_builds_retry_in_seconds",
                           "Seconds until background builds are tried again after a failed "
                           "one (0: they are not held; --build-retry-after)",
                           MetricType::Gauge);
    Add(retry_in, s.builds_retry_in_seconds);
    auto build_seconds = Family("puzzledb_background_build_seconds_total",
                                "Time spent on background table builds", MetricType::Counter);
    Add(build_seconds, s.build_seconds);
    families.push_back(std::move(builds_queued));
    families.push_back(std::move(builds));
    families.push_back(std::move(retry_in));
    families.push_back(std::move(build_seconds));
  }

  auto puzzles = Family("puzzledb_puzzles", "Puzzles served now: the built-in ones and those given as definitions",
                        MetricType::Gauge);
  Add(puzzles, static_cast<double>(s.puzzles));
  families.push_back(std::move(puzzles));
  if (s.admin_enabled) {
    auto requests = Family("puzzledb_puzzle_requests_total",
                           "Requests of puzzledb-build to this server through the database's folder "
                           "(docs/OPERATIONS.md, \"Adding and removing puzzles while serving\"), by result "
                           "(imported, removed, failed)",
                           MetricType::Counter);
    Add(requests, static_cast<double>(s.admin_imported), {{"result", "imported"}});
    Add(requests, static_cast<double>(s.admin_removed), {{"result", "removed"}});
    Add(requests, static_cast<double>(s.admin_failed), {{"result", "failed"}});
    families.push_back(std::move(requests));
  }

  auto tables = Family("puzzledb_tables",
                       "Tables in the database, by status (loaded; available: not loaded "
                       "yet; refused: unreadable or from another version)",
                       MetricType::Gauge);
  double loaded = 0, available = 0, refused = 0;
  auto states = Family("puzzledb_table_states", "Entries of each table (its puzzle's index)",
                       MetricType::Gauge);
  auto bytes = Family("puzzledb_table_bytes", "Stored (compressed) size of each table",
                      MetricType::Gauge);
  auto info = Family("puzzledb_table_info",
                     "Each table's puzzle, status and generation (the build's identity, as "
                     "answers report it); always 1",
                     MetricType::Gauge);
  for (const MetricsSnapshot::Table& t : s.tables) {
    const std::string status = t.status.substr(0, t.status.find(':'));
    (status == "LOADED" ? loaded : status == "REFUSED" ? refused : available) += 1;
    Add(states, static_cast<double>(t.states), {{"table", t.id}});
    Add(bytes, static_cast<double>(t.bytes), {{"table", t.id}});
    Add(info, 1,
             {{"table", t.id},
              {"puzzle", t.puzzle},
              {"status", status},
              {"generation", std::to_string(t.generation)}});
  }
  Add(tables, loaded, {{"status", "loaded"}});
  Add(tables, available, {{"status", "available"}});
  Add(tables, refused, {{"status", "refused"}});
  families.push_back(std::move(tables));
  if (!states.metric.empty()) {
    families.push_back(std::move(states));
    families.push_back(std::move(bytes));
    families.push_back(std::move(info));
  }

  if (s.memory_enabled) {
    auto limit = Family("puzzledb_memory_budget_bytes",
                        "The bytes calls may hold beyond the tables (--memory-budget; 0: none)",
                        MetricType::Gauge);
    Add(limit, static_cast<double>(s.memory_limit));
    auto held = Family("puzzledb_memory_held_bytes",
                       "Bytes calls hold now, by what for (docs/OPERATIONS.md, \"Memory\")",
                       MetricType::Gauge);
    auto refused_memory = Family("puzzledb_memory_refused_total",
                                 "Requests, reads and listings refused for the memory budget, "
                                 "by what for",
                                 MetricType::Counter);
    for (const MetricsSnapshot::MemoryUseFigures& u : s.memory_uses) {
      Add(held, static_cast<double>(u.held), {{"use", u.use}});
      Add(refused_memory, static_cast<double>(u.refused), {{"use", u.use}});
    }
    auto peak = Family("puzzledb_memory_held_peak_bytes",
                       "The most bytes calls have held at once since the start", MetricType::Gauge);
    Add(peak, static_cast<double>(s.memory_peak));
    auto returns = Family("puzzledb_memory_returns_total",
                          "Times freed memory was given back to the system (malloc_trim)",
                          MetricType::Counter);
    Add(returns, static_cast<double>(s.memory_returns));
    families.push_back(std::move(limit));
    families.push_back(std::move(held));
    families.push_back(std::move(refused_memory));
    families.push_back(std::move(peak));
    families.push_back(std::move(returns));
  }

  auto build_info = Family("puzzledb_build_info", "The server's version; always 1",
                           MetricType::Gauge);
  Add(build_info, 1, {{"version", PUZZLEDB_VERSION}});
  families.push_back(std::move(build_info));
  auto rss = Family("process_resident_memory_bytes", "Resident memory size in bytes",
                    MetricType::Gauge);
  Add(rss, static_cast<double>(ResidentBytes()));
  families.push_back(std::move(rss));
  auto start = Family("process_start_time_seconds",
                      "Start time of the process since the Unix epoch in seconds",
                      MetricType::Gauge);
  Add(start, start_time_);
  families.push_back(std::move(start));

  return prometheus::TextSerializer().Serialize(families);
}

}  // namespace puzzledb
