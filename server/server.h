// puzzledb-server as an object: opens the database, loads the tables, serves
// puzzledb.v1.Solver (with health checking and reflection) until shut down. The binary's
// main() and the in-process tests both use it.
#ifndef PUZZLEDB_SERVER_SERVER_H_
#define PUZZLEDB_SERVER_SERVER_H_

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "server/metrics.h"
#include "server/search_pool.h"
#include "server/call.h"

namespace grpc {
class Server;
}

namespace puzzledb {

class BackgroundBuilder;
class PuzzleAdmin;
class ConnectionGuard;
class HttpServer;
class SolverService;
class Solver;
class TableStore;

struct ServerOptions {
  std::string db = "var/db";
  std::string listen = "127.0.0.1:50051";  // port 0 picks a free port (see port())
  int threads = 0;                         // cap on gRPC's threads; 0: gRPC's default
  int max_concurrent_searches = 0;         // 0: one per core
  size_t search_queue = 32;                // unary searches that may wait for a slot
  SearchPriority search_priority = SearchPriority::kLow;  // of searches and background builds
  uint64_t search_node_budget = 500'000'000;
  std::chrono::milliseconds default_search_deadline{10000};
  bool build_missing_tables = true;  // off: the database is opened read-only
  size_t max_tables = 64;
  // After a failed background build, none for this long (doubling after each further
  // failure in a row, at most an hour).
  std::chrono::milliseconds build_retry_after{30000};
  int max_message_bytes = 4 << 20;
  // The bytes calls may make the server hold beyond its tables (service/memory_budget.h,
  // docs/OPERATIONS.md "Memory"); 0: no limit.
  size_t memory_budget = size_t{1} << 30;
  // The optimal solutions listed in one answer, a call's or a batch's (HandlerOptions).
  size_t max_answer_bytes = 8 << 20;
  // A SolveStream's requests read but not answered, and answers not yet written, in bytes:
  // past it the stream stops reading until the client reads.
  size_t stream_window_bytes = 8 << 20;
  // HTTP/2 streams (calls) one gRPC connection may have open at once.
  int grpc_max_streams = 100;
  // gRPC connections (server/guard/connection_guard.h; docs/OPERATIONS.md, "gRPC
  // connections"): a header block's bytes, raw and decoded; how long TLS, the preface and
  // SETTINGS may take, and how many connections may be at it at once; how many may be
  // held; how long one may stay without a call; keepalive pings to find dead peers; the
  // threads that pass the bytes.
  size_t grpc_max_header_bytes = 16 << 10;
  // What one gRPC connection's calls open at once may hold (Http2Limits::max_open_call_bytes).
  size_t grpc_max_open_call_bytes = 2 << 20;
  std::chrono::milliseconds grpc_handshake_timeout{10000};
  size_t grpc_max_handshakes = 1000;
  size_t grpc_max_connections = 10000;
  std::chrono::milliseconds grpc_idle_timeout{300000};
  std::chrono::milliseconds grpc_keepalive_time{60000};
  std::chrono::milliseconds grpc_keepalive_timeout{20000};
  int grpc_guard_threads = 1;
  // TLS: the server's certificate chain and key (PEM files); both empty: plaintext.
  std::string tls_cert_file;
  std::string tls_key_file;
  // TLS: require clients to present a certificate signed by this CA (PEM file).
  std::string tls_client_ca_file;
  // HTTP/JSON API and web page (docs/API.md, "HTTP"): host:port, port 0 for any free port;
  // empty: none (the binary's --http defaults to 127.0.0.1:8080). The TLS files above and
  // the limits apply to it too.
  std::string http_listen;
  int http_threads = 0;  // HTTP's event-loop threads; 0: one per core, at most 4
  size_t http_max_connections = 10000;
  std::chrono::milliseconds http_head_timeout{10000};
  std::chrono::milliseconds http_body_timeout{10000};
  std::chrono::milliseconds http_idle_timeout{30000};
  // Origins whose pages may call the HTTP API ("https://host[:port]", or "*"); empty: none
  // (docs/API.md, "Cross-origin requests").
  std::vector<std::string> http_cors_origins;
  bool http_access_log = false;  // a log line per HTTP request, with its X-Request-Id
  // /metrics on an address of its own (host:port), off the HTTP API's; empty: on the API's.
  std::string metrics_listen;
  // Called with each table a background build finished (tests wait on it).
  std::function<void(const std::string&)> on_table_built;
};

class PuzzledbServer {
 public:
  using Log = std::function<void(std::string_view)>;

  // Opens the database (read-write when background builds store their tables, else
  // read-only), loads every table, starts listening. Errors name what failed (no database, address in use, ...).
  static absl::StatusOr<std::unique_ptr<PuzzledbServer>> Start(const ServerOptions& options,
                                                               Log log);
  // Shuts down if still running.
  ~PuzzledbServer();

  int port() const { return port_; }
  // The HTTP server's port and base URL ("http://127.0.0.1:8080/"); 0 and "" without one.
  int http_port() const;
  std::string http_url() const;
  // The --metrics-listen server's port and URL; 0 and "" without one.
  int metrics_port() const;
  std::string metrics_url() const;
  // HTTP connections open now (0 without HTTP).
  size_t http_connections() const;
  const ServiceCounters& counters() const;
  // GET /metrics's text (docs/OPERATIONS.md, "Metrics"), also for servers without HTTP.
  std::string MetricsText() const;
  // Searches running now, and waiting for a slot.
  int searches_running() const { return pool_->running(); }
  size_t searches_waiting() const { return pool_->waiting(); }

  // Health turns NOT_SERVING (for "" and puzzledb.v1.Solver) while calls are still
  // answered: the first step of a drain, so that load balancers stop sending calls here.
  void StopServing();

  // Stops accepting calls, lets the calls in flight finish (cancelling those still running
  // after `grace`), stops the searches and builds, closes the database. Idempotent.
  void Shutdown(std::chrono::milliseconds grace);

 private:
  PuzzledbServer() = default;
  MetricsSnapshot Snapshot() const;  // what a scrape reads

  Log log_;
  std::shared_ptr<TableStore> store_;
  std::unique_ptr<Solver> solver_;
  std::unique_ptr<BackgroundBuilder> builder_;
  std::unique_ptr<PuzzleAdmin> admin_;  // with a writable database
  std::unique_ptr<SearchPool> pool_;
  std::unique_ptr<RequestHandler> handler_;
  std::unique_ptr<ServerMetrics> metrics_;
  std::unique_ptr<MemoryBudget> memory_;
  std::unique_ptr<SolverService> service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<ConnectionGuard> guard_;
  std::unique_ptr<HttpServer> http_;
  std::unique_ptr<HttpServer> metrics_http_;
  std::atomic<bool> serving_{true};  // health, for gRPC and /healthz
  int port_ = 0;
  bool shut_down_ = false;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVER_SERVER_H_
