// The server's Prometheus metrics (docs/OPERATIONS.md, "Metrics"), served at GET /metrics in
// Prometheus' text exposition format.
//
// Two kinds: what happens is counted as it happens (calls by method, transport, source and
// code; their latencies; streams), in prometheus-cpp's counters and histograms; what the
// server holds (searches running and queued, background builds, tables, memory) is read
// when scraped, from the parts that own it, so that no state is kept twice.
//
// prometheus-cpp (Debian's prometheus-cpp-dev, its core library only) keeps the counters and
// writes the format: its names are checked and its escaping is the reference one. Its HTTP
// exposer is not used; /metrics is one more path of puzzledb's own HTTP server.
#ifndef PUZZLEDB_SERVER_METRICS_H_
#define PUZZLEDB_SERVER_METRICS_H_

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace prometheus {
class Counter;
class Gauge;
class Histogram;
class Registry;
template <typename T>
class Family;
}  // namespace prometheus

namespace puzzledb {

// The API's methods, named as the gRPC service names them; HTTP's paths map onto them.
enum class CallMethod : uint8_t {
  kSolve,
  kAnalyze,
  kSample,
  kListTables,
  kSolveStream,  // each request of a stream is a call
  kParseInput,   // HTTP only
  kPlay,         // HTTP only
  kSolveBatch,   // each request of a batch is a call
  kListPuzzles,
};
inline constexpr int kCallMethods = 9;

enum class Transport : uint8_t { kGrpc, kHttp };
inline constexpr int kTransports = 2;

// Where an answer came from: the tables, a search, the search pool's refusal (RESOURCE
// EXHAUSTED, no search ran), or none of them (the request was rejected before either, or
// the method reads no table).
enum class AnswerSource : uint8_t { kTable, kSearch, kRefused, kNone };
inline constexpr int kAnswerSources = 4;

// Why the HTTP server closed a connection (docs/OPERATIONS.md, "HTTP").
enum class HttpClose : uint8_t {
  kClient,        // the client closed it, or the socket failed
  kDone,          // Connection: close, HTTP/1.0 without keep-alive, or the server stopping
  kIdle,          // no request within --http-idle-timeout
  kHeadTimeout,   // the request head took longer than --http-head-timeout
  kBodyTimeout,   // the body took longer than --http-body-timeout
  kWriteTimeout,  // the client did not read its answer within --http-body-timeout
  kEvicted,       // the oldest idle one, for a new connection over --http-max-connections
  kRefused,       // a request it could not be read past (malformed, or a body over the limit)
};
inline constexpr int kHttpCloses = 8;

// Why the gRPC port closed a connection (server/guard/connection_guard.h; docs/OPERATIONS.md,
// "gRPC connections").
enum class GrpcClose : uint8_t {
  kClient,            // the client closed it, or the socket failed
  kServer,            // gRPC closed it: idle (--grpc-idle-timeout), keepalive, the server stopping
  kHandshakeTimeout,  // TLS, the preface and SETTINGS took longer than --grpc-handshake-timeout
  kEvicted,           // the oldest still opening, for a new one over --grpc-max-handshakes
  kLimit,             // refused at once: --grpc-max-connections were open
  kHeaderBlock,       // a header block over --grpc-max-header-bytes
  kHeaderList,        // its headers decoded over --grpc-max-header-bytes
  kStreams,           // more calls open at once than --grpc-max-streams
  kResets,            // calls reset before their answer too fast (rapid reset)
  kProtocol,          // not HTTP/2 (or not TLS) as the RFCs frame it
  kPings,             // PINGs too fast
};
inline constexpr int kGrpcCloses = 11;

// The counts the server logs when it stops, and the tests read.
struct ServiceCounters {
  std::atomic<uint64_t> table_answers{0};
  std::atomic<uint64_t> searches{0};
  std::atomic<uint64_t> refused_searches{0};
  std::atomic<uint64_t> errors{0};
};

// What a scrape reads from the rest of the server. Each part may be absent.
struct MetricsSnapshot {
  int search_slots = 0;
  int searches_running = 0;
  size_t searches_queued = 0;
  size_t search_queue_limit = 0;
  // Background builds.
  bool builds_enabled = false;
  size_t builds_queued = 0;  // queued or running
  uint64_t builds_done = 0;
  uint64_t builds_failed = 0;
  uint64_t builds_dropped = 0;  // not queued: the queue was full
  uint64_t builds_deferred = 0;  // not queued: builds back off after a failure
  double builds_retry_in_seconds = 0;  // until builds are tried again (0: not held)
  double build_seconds = 0;     // spent building, done and failed
  size_t puzzles = 0;           // served now (the registry's)
  // Requests through the database's folder (server/puzzle_admin.h), with a writable one.
  bool admin_enabled = false;
  uint64_t admin_imported = 0;
  uint64_t admin_removed = 0;
  uint64_t admin_failed = 0;
  struct Table {
    std::string id;
    std::string puzzle;
    std::string status;  // LOADED, AVAILABLE or REFUSED
    uint64_t states = 0;
    uint64_t bytes = 0;
    uint64_t generation = 0;
  };
  std::vector<Table> tables;
  // The memory budget (service/memory_budget.h), when there is one.
  bool memory_enabled = false;
  uint64_t memory_limit = 0;  // 0: no limit
  uint64_t memory_peak = 0;
  uint64_t memory_returns = 0;
  struct MemoryUseFigures {
    std::string use;  // MemoryUseName
    uint64_t held = 0;     // bytes held now
    uint64_t refused = 0;  // refusals so far
  };
  std::vector<MemoryUseFigures> memory_uses;
};

// Thread-safe.
class ServerMetrics {
 public:
  ServerMetrics();
  ~ServerMetrics();
  ServerMetrics(const ServerMetrics&) = delete;
  ServerMetrics& operator=(const ServerMetrics&) = delete;

  // One call answered (or refused) with `code`, `elapsed` after it arrived.
  void RecordCall(CallMethod method, Transport transport, AnswerSource source,
                  absl::StatusCode code, std::chrono::steady_clock::duration elapsed);
  // `count` calls of a batch answered alike (from the tables, or refused before either),
  // all at `elapsed`: counted `count` times, its time observed once (docs/OPERATIONS.md,
  // "Metrics").
  void RecordCalls(CallMethod method, Transport transport, AnswerSource source,
                   absl::StatusCode code, uint64_t count,
                   std::chrono::steady_clock::duration elapsed);
  void StreamOpened();
  void StreamClosed();
  void HttpConnectionOpened();
  void HttpConnectionClosed(HttpClose reason);
  void GrpcConnectionOpened();
  void GrpcConnectionClosed(GrpcClose reason);

  // Where scrapes read the server's state; set once, before the first scrape.
  void SetSnapshot(std::function<MetricsSnapshot()> snapshot) { snapshot_ = std::move(snapshot); }

  // Every metric in the text exposition format (version 0.0.4).
  std::string Scrape() const;

  const ServiceCounters& counters() const { return counters_; }

 private:
  prometheus::Counter& CallCounter(CallMethod method, Transport transport, AnswerSource source,
                                   absl::StatusCode code);

  static constexpr int kCodes = 17;  // the canonical status codes, 0..16

  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>* calls_;  // its counters are made on first use
  std::array<prometheus::Histogram*, kCallMethods> table_seconds_{};
  std::array<prometheus::Histogram*, kCallMethods> search_seconds_{};
  prometheus::Counter* refused_total_ = nullptr;
  prometheus::Counter* streams_opened_ = nullptr;
  prometheus::Gauge* streams_now_ = nullptr;
  prometheus::Gauge* http_connections_now_ = nullptr;
  prometheus::Counter* http_connections_opened_ = nullptr;
  std::array<prometheus::Counter*, kHttpCloses> http_closed_{};
  prometheus::Gauge* grpc_connections_now_ = nullptr;
  prometheus::Counter* grpc_connections_opened_ = nullptr;
  std::array<prometheus::Counter*, kGrpcCloses> grpc_closed_{};
  // The calls' counters, made on first use (prometheus-cpp's Family::Add takes a lock and
  // looks the labels up; this is one load).
  std::array<std::atomic<prometheus::Counter*>,
             kCallMethods * kTransports * kAnswerSources * kCodes>
      call_counters_{};
  ServiceCounters counters_;
  std::function<MetricsSnapshot()> snapshot_;
  const double start_time_;
};

// The process's resident memory in bytes (/proc/self/statm), 0 if unreadable.
uint64_t ResidentBytes();

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVER_METRICS_H_
