#include "server/server.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <thread>

#include "service/address.h"
#include "service/files.h"
#include "core/defined/defined_puzzle.h"
#include "core/solver.h"
#include "core/util/strings.h"
#include "core/table/table_store.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/health_check_service_interface.h"
#include "grpcpp/server_posix.h"
#include "server/background_builder.h"
#include "server/guard/connection_guard.h"
#include "server/grpc/solver_service.h"
#include "server/http/http_server.h"
#include "server/http/routes.h"
#include "server/puzzle_admin.h"

namespace puzzledb {
namespace {

// The TLS flags go together, and their files can be read (the connection guard loads them).
absl::Status CheckTls(const ServerOptions& options) {
  if (options.tls_cert_file.empty() != options.tls_key_file.empty()) {
    return absl::InvalidArgumentError(options.tls_cert_file.empty()
                                          ? "--tls-key needs --tls-cert (the certificate chain)"
                                          : "--tls-cert needs --tls-key (the certificate's key)");
  }
  if (options.tls_cert_file.empty()) {
    if (!options.tls_client_ca_file.empty()) {
      return absl::InvalidArgumentError("--tls-client-ca needs --tls-cert and --tls-key");
    }
    return absl::OkStatus();
  }
  for (const auto& [file, what] : {std::pair{options.tls_cert_file, "TLS certificate"},
                                   std::pair{options.tls_key_file, "TLS key"},
                                   std::pair{options.tls_client_ca_file, "TLS client CA"}}) {
    if (file.empty()) continue;
    if (auto read = ReadSmallFile(file, what); !read.ok()) return read.status();
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<PuzzledbServer>> PuzzledbServer::Start(const ServerOptions& options,
                                                                      Log log) {
  if (absl::Status address = CheckHostPort(options.listen, /*allow_port_zero=*/true);
      !address.ok()) {
    return absl::InvalidArgumentError(Cat("--listen ", Message(address)));
  }
  if (!options.http_listen.empty()) {
    if (absl::Status address = CheckHostPort(options.http_listen, /*allow_port_zero=*/true);
        !address.ok()) {
      return absl::InvalidArgumentError(Cat("--http ", Message(address), " (or '' for no HTTP)"));
    }
  }
  for (const std::string& origin : options.http_cors_origins) {
    if (auto bad = BadCorsOrigin(origin)) return absl::InvalidArgumentError(Cat("--http-cors-origins: ", *bad));
  }
  if (!options.metrics_listen.empty()) {
    if (absl::Status address = CheckHostPort(options.metrics_listen, /*allow_port_zero=*/true);
        !address.ok()) {
      return absl::InvalidArgumentError(Cat("--metrics-listen ", Message(address)));
    }
  }
  if (absl::Status tls = CheckTls(options); !tls.ok()) return tls;
  std::unique_ptr<PuzzledbServer> server(new PuzzledbServer());
  server->log_ = log;
  const auto started = std::chrono::steady_clock::now();

  // A missing database is an error that says how to build one. Read-write when background
  // builds may store tables, read-only otherwise (a read-only mount, a database another
  // user owns). A database that cannot be written while builds are on is refused with the
  // flag that serves it as it is.
  auto store = TableStore::Open(options.db, options.build_missing_tables
                                                ? TableStore::Mode::kReadWriteExisting
                                                : TableStore::Mode::kReadOnly);
  if (!store.ok() && options.build_missing_tables && !absl::IsNotFound(store.status()) &&
      TableStore::Open(options.db, TableStore::Mode::kReadOnly).ok()) {
    return absl::FailedPreconditionError(
        Cat("the database ", options.db, " can be read but not written (", Message(store.status()),
            "); background builds write to it: start with --no-build-missing-tables to serve "
            "it read-only"));
  }
  if (!store.ok()) return store.status();
  server->store_ = std::move(*store);
  // Puzzles given as definitions are served from what the database stores of them.
  std::map<std::string, std::string> not_served;
  const int defined = RegisterStoredDefinitions(*server->store_, log, &not_served);
  if (defined > 0 && log) log(Cat("serving ", defined, " puzzle(s) given as definitions"));
  server->solver_ = std::make_unique<Solver>(server->store_, log);
  // Listed REFUSED with why, as a damaged table is.
  for (const auto& [table_id, why] : not_served) server->solver_->NoteRefused(table_id, why);
  const int loaded = server->solver_->Preload();

  const int searches = options.max_concurrent_searches > 0
                           ? options.max_concurrent_searches
                           : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  server->pool_ =
      std::make_unique<SearchPool>(searches, options.search_queue, options.search_priority);
  if (options.build_missing_tables) {
    BackgroundBuilderOptions build;
    build.max_tables = options.max_tables;
    build.on_built = options.on_table_built;
    build.priority = options.search_priority;
    build.retry_after = options.build_retry_after;
    server->builder_ = std::make_unique<BackgroundBuilder>(server->store_.get(),
                                                           server->solver_.get(), build, log);
    // Puzzles added and removed while serving (server/puzzle_admin.h): puzzledb-build's
    // requests through the database's folder, which a writable server answers.
    server->admin_ = std::make_unique<PuzzleAdmin>(server->store_.get(), server->solver_.get(), log);
    if (absl::Status watching = server->admin_->Start(); !watching.ok()) {
      if (log) log(Cat("puzzles cannot be added while serving: ", Message(watching)));
      server->admin_.reset();
    }
  }
  server->memory_ = std::make_unique<MemoryBudget>(options.memory_budget);
  // Freed memory goes back to the system once 32 MiB have been let go (MemoryBudget).
  server->memory_->StartReturning(std::chrono::milliseconds(1000), size_t{32} << 20);
  HandlerOptions handler;
  handler.search_node_budget = options.search_node_budget;
  handler.max_answer_bytes = options.max_answer_bytes;
  handler.memory = server->memory_.get();
  server->handler_ = std::make_unique<RequestHandler>(server->solver_.get(), server->builder_.get(),
                                                      handler);
  StreamOptions streams;
  streams.stream_searches = searches;
  streams.window_bytes = options.stream_window_bytes;
  server->metrics_ = std::make_unique<ServerMetrics>();
  {
    PuzzledbServer* self = server.get();
    server->metrics_->SetSnapshot([self] { return self->Snapshot(); });
  }
  CallEnv env;
  env.handler = server->handler_.get();
  env.pool = server->pool_.get();
  env.metrics = server->metrics_.get();
  env.memory = server->memory_.get();
  env.default_search_deadline = options.default_search_deadline;
  server->service_ = std::make_unique<SolverService>(env, streams);

  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  // gRPC listens on no port of its own: the connection guard accepts the connections,
  // terminates TLS and hands each one over once its client has opened HTTP/2, keeping the
  // bounds gRPC 1.51 does not (server/guard/connection_guard.h; docs/OPERATIONS.md, "gRPC
  // connections").
  grpc::ServerBuilder builder;
  builder.RegisterService(server->service_.get());
  builder.SetMaxReceiveMessageSize(options.max_message_bytes);
  // Compressed requests are refused (UNIMPLEMENTED): gRPC 1.51 checks the size of a message
  // before it inflates it, not after, and a 1 MB gzip message became 1 GB held
  // (docs/OPERATIONS.md, "gRPC connections"). Answers are never compressed either.
  builder.SetCompressionAlgorithmSupportStatus(GRPC_COMPRESS_DEFLATE, false);
  builder.SetCompressionAlgorithmSupportStatus(GRPC_COMPRESS_GZIP, false);
  // The transport's own memory (its buffers and calls, before they reach a handler) under a
  // quota of a quarter of the budget, and each connection's calls at once under a cap:
  // what gRPC 1.51 has against floods of streams (docs/OPERATIONS.md, "Memory").
  grpc::ResourceQuota quota("puzzledb-server");
  if (options.threads > 0) quota.SetMaxThreads(options.threads);
  if (options.memory_budget > 0) quota.Resize(std::max<size_t>(options.memory_budget / 4, 64 << 20));
  builder.SetResourceQuota(quota);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, options.grpc_max_streams);
  // Its own check of header lists (per frame, once acknowledged), at the guard's bound.
  builder.AddChannelArgument(GRPC_ARG_MAX_METADATA_SIZE,
                             static_cast<int>(options.grpc_max_header_bytes));
  auto millis = [](std::chrono::milliseconds d) {
    return static_cast<int>(std::min<int64_t>(d.count(), INT32_MAX));
  };
  // A connection with no call for this long gets a GOAWAY and is closed.
  builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS, millis(options.grpc_idle_timeout));
  // Dead peers: a connection with calls is pinged after this much silence, and closed when
  // the ping is not answered in time.
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, millis(options.grpc_keepalive_time));
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, millis(options.grpc_keepalive_timeout));
  // Clients' pings: one per 10 s at most while no call is open (gRPC's default is one per
  // 5 minutes), two too early end the connection (GOAWAY ENHANCE_YOUR_CALM).
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 10000);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 2);
  server->server_ = builder.BuildAndStart();
  if (server->server_ == nullptr) return absl::InternalError("gRPC's server did not start");

  GuardOptions guard;
  guard.listen = options.listen;
  guard.threads = options.grpc_guard_threads;
  guard.handshake_timeout = options.grpc_handshake_timeout;
  guard.max_handshakes = options.grpc_max_handshakes;
  guard.max_connections = options.grpc_max_connections;
  guard.limits.max_header_block = options.grpc_max_header_bytes;
  guard.limits.max_header_list = options.grpc_max_header_bytes;
  guard.limits.max_streams = static_cast<uint32_t>(options.grpc_max_streams);
  guard.limits.max_open_call_bytes = options.grpc_max_open_call_bytes;
  // The calls open on the gRPC port within a quarter of the budget, whatever answers hold:
  // a budget spent on answers still lets calls in (to be answered from the tables).
  guard.memory = server->memory_.get();
  if (options.memory_budget > 0) guard.calls_share = options.memory_budget / 4;
  guard.tls_cert_file = options.tls_cert_file;
  guard.tls_key_file = options.tls_key_file;
  guard.tls_client_ca_file = options.tls_client_ca_file;
  grpc::Server* grpc_server = server->server_.get();
  auto started_guard = ConnectionGuard::Start(
      guard, [grpc_server](int fd) { grpc::AddInsecureChannelFromFd(grpc_server, fd); },
      server->metrics_.get(), log);
  if (!started_guard.ok()) {
    server->log_ = nullptr;  // it never started: nothing to say of its stop
    server->Shutdown(std::chrono::milliseconds(0));
    return started_guard.status();
  }
  server->guard_ = std::move(*started_guard);
  server->port_ = server->guard_->port();
  auto* health = server->server_->GetHealthCheckService();
  health->SetServingStatus("puzzledb.v1.Solver", true);
  health->SetServingStatus(true);

  PuzzledbServer* self = server.get();
  auto start_http = [&](const std::string& listen, bool api,
                        bool metrics) -> absl::StatusOr<std::unique_ptr<HttpServer>> {
    HttpOptions http;
    http.listen = listen;
    http.threads = options.http_threads;
    // One request's body stays small (it is read whole before it is answered); a batch's
    // may take the whole message limit.
    http.max_body_bytes = std::min<size_t>(64 << 10, static_cast<size_t>(options.max_message_bytes));
    http.max_batch_body_bytes = static_cast<size_t>(options.max_message_bytes);
    http.max_connections = options.http_max_connections;
    http.head_timeout = options.http_head_timeout;
    http.body_timeout = options.http_body_timeout;
    http.idle_timeout = options.http_idle_timeout;
    http.serve_api = api;
    http.serve_metrics = metrics;
    http.tls_cert_file = options.tls_cert_file;
    http.tls_key_file = options.tls_key_file;
    http.tls_client_ca_file = options.tls_client_ca_file;
    if (api) http.cors_origins = options.http_cors_origins;
    http.access_log = options.http_access_log;
    HttpBackend backend;
    backend.env = env;
    backend.serving = [self] { return self->serving_.load(); };
    return HttpServer::Start(http, std::move(backend), log);
  };
  if (!options.http_listen.empty()) {
    auto started_http = start_http(options.http_listen, /*api=*/true,
                                   /*metrics=*/options.metrics_listen.empty());
    if (!started_http.ok()) {
      server->log_ = nullptr;
      server->Shutdown(std::chrono::milliseconds(0));
      return started_http.status();
    }
    server->http_ = std::move(*started_http);
  }
  if (!options.metrics_listen.empty()) {
    auto started_metrics = start_http(options.metrics_listen, /*api=*/false, /*metrics=*/true);
    if (!started_metrics.ok()) {
      server->log_ = nullptr;
      server->Shutdown(std::chrono::milliseconds(0));
      return absl::Status(started_metrics.status().code(),
                          Cat("--metrics-listen: ", Message(started_metrics.status())));
    }
    server->metrics_http_ = std::move(*started_metrics);
  }

  if (log) {
    const auto refused = server->solver_->Refused();
    std::string tables = Join(server->solver_->Loaded(), ", ");
    std::string refusals;
    for (const auto& [id, why] : refused) refusals += Cat("; refused ", id, ": ", why);
    const std::string host = options.listen.substr(0, options.listen.rfind(':'));
    log(Cat("listening on ", host, ":", server->port_,
            options.tls_cert_file.empty() ? " (plaintext)"
            : options.tls_client_ca_file.empty() ? " (TLS)"
                                                 : " (TLS, client certificates required)",
            server->http_ != nullptr ? Cat("; HTTP and the web page on ", server->http_->url())
                                     : std::string("; no HTTP"),
            server->metrics_http_ != nullptr ? Cat("; metrics on ", server->metrics_http_->url(), "metrics")
                                             : std::string(),
            "; database ", options.db,
            options.build_missing_tables ? "" : " (opened read-only: background builds off)",
            ": ", loaded,
            " tables loaded (", tables, ")", refusals, "; searches: ", searches,
            " at a time, ", options.search_queue, " may wait, default deadline ",
            options.default_search_deadline.count(), " ms, budget ",
            options.search_node_budget, " nodes; gRPC connections: at most ",
            options.grpc_max_connections, ", idle ", options.grpc_idle_timeout.count() / 1000.0,
            " s; background builds ",
            options.build_missing_tables ? "on" : "off", "; started in ",
            std::chrono::duration_cast<std::chrono::milliseconds>(
                std::chrono::steady_clock::now() - started)
                .count(),
            " ms"));
  }
  return server;
}

const ServiceCounters& PuzzledbServer::counters() const { return metrics_->counters(); }

std::string PuzzledbServer::MetricsText() const { return metrics_->Scrape(); }

MetricsSnapshot PuzzledbServer::Snapshot() const {
  MetricsSnapshot s;
  s.search_slots = pool_->capacity();
  s.searches_running = pool_->running();
  s.searches_queued = pool_->waiting();
  s.search_queue_limit = pool_->queue_limit();
  if (builder_ != nullptr) {
    const BackgroundBuilder::Stats stats = builder_->stats();
    s.builds_enabled = true;
    s.builds_queued = stats.queued;
    s.builds_done = stats.done;
    s.builds_failed = stats.failed;
    s.builds_dropped = stats.dropped;
    s.builds_deferred = stats.deferred;
    s.builds_retry_in_seconds = stats.retry_in_seconds;
    s.build_seconds = stats.seconds;
  }
  s.puzzles = Puzzles().size();
  if (admin_ != nullptr) {
    const PuzzleAdmin::Stats stats = admin_->stats();
    s.admin_enabled = true;
    s.admin_imported = stats.imported;
    s.admin_removed = stats.removed;
    s.admin_failed = stats.failed;
  }
  s.memory_enabled = true;
  s.memory_limit = memory_->limit();
  s.memory_peak = memory_->peak();
  s.memory_returns = memory_->returns();
  for (int i = 0; i < kMemoryUses; ++i) {
    const auto use = static_cast<MemoryUse>(i);
    s.memory_uses.push_back(
        {std::string(MemoryUseName(use)), memory_->held(use), memory_->refused(use)});
  }
  const v1::ListTablesResponse listed = handler_->ListTables();
  for (const v1::TableInfo& t : listed.tables()) {
    s.tables.push_back({t.table_id(), t.puzzle(), t.status(), t.states(), t.size_bytes(),
                        t.generation()});
  }
  return s;
}

int PuzzledbServer::http_port() const { return http_ != nullptr ? http_->port() : 0; }

std::string PuzzledbServer::http_url() const { return http_ != nullptr ? http_->url() : ""; }

int PuzzledbServer::metrics_port() const {
  return metrics_http_ != nullptr ? metrics_http_->port() : 0;
}

std::string PuzzledbServer::metrics_url() const {
  return metrics_http_ != nullptr ? metrics_http_->url() : "";
}

size_t PuzzledbServer::http_connections() const {
  return http_ != nullptr ? http_->connections() : 0;
}

void PuzzledbServer::StopServing() {
  if (shut_down_) return;
  serving_ = false;
  auto* health = server_->GetHealthCheckService();
  health->SetServingStatus("puzzledb.v1.Solver", false);
  health->SetServingStatus(false);
}

void PuzzledbServer::Shutdown(std::chrono::milliseconds grace) {
  if (shut_down_) return;
  shut_down_ = true;
  serving_ = false;
  if (auto* health = server_->GetHealthCheckService()) health->Shutdown();
  // HTTP first: its requests wait for their searches, which need the pool.
  const auto deadline = std::chrono::system_clock::now() + grace;
  if (http_ != nullptr) http_->Shutdown(grace);
  if (metrics_http_ != nullptr) metrics_http_->Shutdown(std::chrono::milliseconds(0));
  // No new connection; those still opening are closed. gRPC's shutdown then sends the
  // others their GOAWAY, waits for the calls in flight (those still running at the deadline
  // are cancelled: their searches see it and stop) and closes them.
  if (guard_ != nullptr) guard_->StopAccepting();
  server_->Shutdown(deadline);
  server_->Wait();
  if (guard_ != nullptr) guard_->Shutdown();
  pool_.reset();     // every accepted search has finished its call by now
  admin_.reset();    // finishes the request being answered; no longer SERVING
  builder_.reset();  // finishes the build in progress
  const auto& c = metrics_->counters();
  if (log_) {
    log_(Cat("stopped: ", c.table_answers.load(), " table answers, ", c.searches.load(),
             " searches, ", c.refused_searches.load(), " searches refused, ", c.errors.load(),
             " errors"));
  }
  solver_.reset();
  store_.reset();  // closes the database
}

PuzzledbServer::~PuzzledbServer() {
  if (!shut_down_ && server_ != nullptr) Shutdown(std::chrono::milliseconds(0));
}

}  // namespace puzzledb
