// puzzledb-server: serves puzzledb.v1.Solver from a database built by puzzledb-build.
// Binds localhost unless told otherwise; stops cleanly on SIGINT or SIGTERM.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <ctime>
#include <iostream>
#include <mutex>

#include <malloc.h>
#include <pthread.h>
#include <sys/resource.h>

#include "CLI/CLI.hpp"
#include "absl/synchronization/mutex.h"
#include "service/exit_codes.h"
#include "google/protobuf/stubs/logging.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "grpc/support/log.h"
#include "core/puzzle.h"
#include "server/server.h"

namespace {

// The puzzles with parameters, for help texts.
std::string WithParameters() {
  std::string names;
  for (const puzzledb::Puzzle* puzzle : puzzledb::Puzzles()) {
    if (!puzzle->has_parameters()) continue;
    names += (names.empty() ? "" : ", ") + std::string(puzzle->name());
  }
  return names.empty() ? "none" : names;
}

std::mutex log_mutex;
bool json_log = false;  // --log-format json; set before any thread logs

// One line per event on standard error: "<time> puzzledb-server: <event>", or with
// --log-format json one JSON object per line, {"time", "program", "message"}, written by
// protobuf's JSON printer (a Struct), so that any event text is escaped correctly.
void Log(std::string_view line) {
  char stamp[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  std::string out;
  if (json_log) {
    google::protobuf::Struct event;
    auto& fields = *event.mutable_fields();
    fields["time"].set_string_value(stamp);
    fields["program"].set_string_value("puzzledb-server");
    fields["message"].set_string_value(std::string(line));
    if (!google::protobuf::util::MessageToJsonString(event, &out).ok()) {
      out = R"json({"program":"puzzledb-server","message":"(an event that is not valid UTF-8)"})json";
    }
  } else {
    out = std::string(stamp) + " puzzledb-server: " + std::string(line);
  }
  std::lock_guard<std::mutex> lock(log_mutex);
  std::cerr << out << std::endl;
}

// gRPC's status dumps ("UNKNOWN:No address added ... {created_time:..., children:[...
// os_error:\"Address already in use\" ...]}") as one short line: the outer message and the
// innermost operating-system error.
std::string SummarizeGrpcMessage(std::string message) {
  for (char& c : message) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  std::string summary = message.substr(0, message.find(" {"));
  if (summary.rfind("UNKNOWN:", 0) == 0) summary.erase(0, 8);
  const std::string key = "os_error:\"";
  if (const size_t at = message.rfind(key); at != std::string::npos) {
    const size_t end = message.find('"', at + key.size());
    summary += " (" + message.substr(at + key.size(), end - at - key.size()) + ")";
  }
  return summary;
}

// Messages a client can provoke once per call (gRPC's, protobuf's) go through the server's
// log at most once a second each: the first is logged, and the next one logged says how
// many were left out meanwhile.
class OncePerSecond {
 public:
  // Logs "<prefix><text>" unless a line went out less than a second ago.
  void Log(const std::string& prefix, const std::string& text) {
    uint64_t skipped = 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      const auto now = std::chrono::steady_clock::now();
      if (last_ != std::chrono::steady_clock::time_point{} && now - last_ < std::chrono::seconds(1)) {
        ++left_out_;
        return;
      }
      last_ = now;
      skipped = left_out_;
      left_out_ = 0;
    }
    std::string line = prefix + text;
    if (skipped > 0) line += " (" + std::to_string(skipped) + " such messages left out in the last second)";
    ::Log(line);
  }

 private:
  std::mutex mutex_;
  std::chrono::steady_clock::time_point last_{};
  uint64_t left_out_ = 0;
};

// Until the server has started, gRPC's errors are kept for the "cannot start" line (which
// says the same thing); after that each is logged as one line of the server's format, at
// most one a second (a compressed call, refused, makes gRPC log one). INFO and DEBUG
// messages are dropped.
std::atomic<bool> started{false};
std::string startup_grpc_error;  // guarded by log_mutex

void GrpcLog(gpr_log_func_args* args) {
  if (args->severity < GPR_LOG_SEVERITY_ERROR) return;
  const std::string summary = SummarizeGrpcMessage(args->message != nullptr ? args->message : "");
  if (!started) {
    std::lock_guard<std::mutex> lock(log_mutex);
    startup_grpc_error = summary;
    return;
  }
  static OncePerSecond limit;
  limit.Log("grpc: ", summary);
}

// protobuf's own messages (a request with a string that is not UTF-8 makes its parser log
// one per call).
void ProtobufLog(google::protobuf::LogLevel level, const char* /*file*/, int /*line*/,
                 const std::string& message) {
  if (level < google::protobuf::LOGLEVEL_WARNING) return;
  static OncePerSecond limit;
  limit.Log("protobuf: ", SummarizeGrpcMessage(message));
}

}  // namespace

int main(int argc, char** argv) {
  using namespace puzzledb;
  CLI::App app{"puzzledb-server: exact puzzle answers over gRPC (puzzledb.v1.Solver) and HTTP"};
  ServerOptions options;
  double default_deadline_s = 10;
  double grace_s = 5;
  app.add_option("--db", options.db, "Database folder (built by puzzledb-build)")
      ->capture_default_str();
  app.add_option("--listen", options.listen,
                 "Address to listen on; use 0.0.0.0:PORT to accept other machines, port 0 for "
                 "any free port")
      ->capture_default_str();
  options.http_listen = "127.0.0.1:8080";
  app.add_option("--http", options.http_listen,
                 "Address of the HTTP/JSON API and the web page ('' for none); 0.0.0.0:PORT "
                 "accepts other machines, port 0 any free port. The TLS flags and limits apply")
      ->capture_default_str();
  app.add_option("--http-threads", options.http_threads,
                 "Threads of HTTP's event loop (0: one per core, at most 4); connections are "
                 "not tied to threads")
      ->check(CLI::Range(0, 64))
      ->capture_default_str();
  app.add_option("--http-max-connections", options.http_max_connections,
                 "HTTP connections open at once; past that the one idle the longest is closed "
                 "for a new one")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  double head_timeout_s = 10, body_timeout_s = 10, idle_timeout_s = 30;
  app.add_option("--http-head-timeout", head_timeout_s,
                 "Seconds a request's line and headers may take to arrive, from their first "
                 "byte (408 after)")
      ->check(CLI::Range(0.01, 3600.0))
      ->capture_default_str();
  app.add_option("--http-body-timeout", body_timeout_s,
                 "Seconds a request's body may take to arrive after its headers, and an answer "
                 "to be read by the client")
      ->check(CLI::Range(0.01, 3600.0))
      ->capture_default_str();
  app.add_option("--http-idle-timeout", idle_timeout_s,
                 "Seconds a keep-alive HTTP connection may wait for its next request")
      ->check(CLI::Range(0.01, 86400.0))
      ->capture_default_str();
  app.add_option("--http-cors-origins", options.http_cors_origins,
                 "Origins whose web pages may call the HTTP API from a browser (CORS), "
                 "comma-separated: scheme://host[:port] each (https://puzzles.example.org), or "
                 "* for any. Default: none")
      ->delimiter(',');
  app.add_flag("--http-access-log", options.http_access_log,
               "Log a line per HTTP request (method, path, status, bytes, milliseconds, "
               "X-Request-Id); without it only requests that fail with 500 are logged");
  app.add_option("--metrics-listen", options.metrics_listen,
                 "Serve /metrics on this address (host:port) instead of on --http's, to keep "
                 "it off the public port");
  app.add_option("--threads", options.threads, "Cap on gRPC's threads (0: gRPC's default)")
      ->check(CLI::Range(0, 1024));
  app.add_option("--max-concurrent-searches", options.max_concurrent_searches,
                 "Live searches running at once (0: one per core); more wait in the queue")
      ->check(CLI::Range(0, 1024));
  app.add_option("--search-queue", options.search_queue,
                 "Unary calls whose search may wait for a slot, each within its deadline; "
                 "past that they are refused with RESOURCE_EXHAUSTED (streams always wait)")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
  std::string priority = "low";
  app.add_option("--search-priority", priority,
                 "CPU priority of searches and background builds: low (nice 10), idle "
                 "(SCHED_IDLE: best table latency on a dedicated machine, but searches stall "
                 "while anything else runs) or normal")
      ->check(CLI::IsMember({"low", "idle", "normal"}))
      ->capture_default_str();
  app.add_option("--search-node-budget", options.search_node_budget,
                 "Nodes one search may expand before it gives up with RESOURCE_EXHAUSTED "
                 "(0: no budget)")
      ->capture_default_str();
  app.add_option("--default-deadline", default_deadline_s,
                 "Seconds a search may run for a call that sets no deadline")
      ->check(CLI::Range(0.001, 86400.0))
      ->capture_default_str();
  app.add_flag("--build-missing-tables,!--no-build-missing-tables", options.build_missing_tables,
               "Build the table of parameters that had to be searched (puzzles with parameters: " +
                   WithParameters() + "), in the background (default: on; off opens the "
                   "database read-only)");
  app.add_option("--max-tables", options.max_tables,
                 "No background build once the database holds this many tables")
      ->capture_default_str();
  double build_retry_s = 30;
  app.add_option("--build-retry-after", build_retry_s,
                 "Seconds without background builds after one fails (a full disk); twice as "
                 "long after each further failure in a row, at most an hour")
      ->check(CLI::Range(0.01, 3600.0))
      ->capture_default_str();
  app.add_option("--max-message-bytes", options.max_message_bytes,
                 "Largest request message accepted (a batch of 10,000 requests is under "
                 "1.1 MB); an HTTP body is at most 64 KiB but a batch's")
      ->check(CLI::Range(1024, 64 << 20))
      ->capture_default_str();
  app.add_option("--memory-budget", options.memory_budget,
                 "Bytes calls may make the server hold beyond its tables (request bodies, "
                 "answers waiting to be read, streams' windows, batches, listings), e.g. 1G or "
                 "512M; past it they are refused with RESOURCE_EXHAUSTED (HTTP 503). 0: no limit")
      ->transform(CLI::AsSizeValue(false))
      ->capture_default_str();
  app.add_option("--max-answer-bytes", options.max_answer_bytes,
                 "Bytes the optimal solutions listed (max_solutions) may take in one answer, "
                 "a call's or a whole batch's; past it a listing is refused with "
                 "RESOURCE_EXHAUSTED. 0: no limit")
      ->transform(CLI::AsSizeValue(false))
      ->capture_default_str();
  app.add_option("--stream-window-bytes", options.stream_window_bytes,
                 "Bytes a SolveStream may hold (requests read but not answered, answers not "
                 "yet written) before it stops reading until its client reads")
      ->transform(CLI::AsSizeValue(false))
      ->check(CLI::Range(size_t{1} << 16, size_t{1} << 34))
      ->capture_default_str();
  app.add_option("--grpc-max-streams", options.grpc_max_streams,
                 "Calls one gRPC connection may have open at once (HTTP/2 streams)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app.add_option("--grpc-max-header-bytes", options.grpc_max_header_bytes,
                 "Bytes of one call's header block, as sent and as decoded; a connection that "
                 "sends more is closed with GOAWAY (ENHANCE_YOUR_CALM)")
      ->transform(CLI::AsSizeValue(false))
      ->check(CLI::Range(size_t{1} << 10, size_t{1} << 20))
      ->capture_default_str();
  app.add_option("--grpc-max-open-call-bytes", options.grpc_max_open_call_bytes,
                 "Bytes the calls open at once on one gRPC connection may hold in the server, "
                 "reckoned as 12 KiB a call and 5 times its decoded headers; a call past it is "
                 "refused with RESOURCE_EXHAUSTED")
      ->transform(CLI::AsSizeValue(false))
      ->check(CLI::Range(size_t{128} << 10, size_t{1} << 30))
      ->capture_default_str();
  double grpc_handshake_s = 10, grpc_idle_s = 60, grpc_keepalive_s = 60, grpc_keepalive_timeout_s = 20;
  app.add_option("--grpc-handshake-timeout", grpc_handshake_s,
                 "Seconds a gRPC connection may take for TLS, the HTTP/2 preface and its first "
                 "SETTINGS; it is closed after")
      ->check(CLI::Range(0.01, 3600.0))
      ->capture_default_str();
  app.add_option("--grpc-max-handshakes", options.grpc_max_handshakes,
                 "gRPC connections that may be opening (TLS, preface, SETTINGS) at once; past "
                 "that the one opening the longest is closed for a new one")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  size_t grpc_max_connections = 0;
  app.add_option("--grpc-max-connections", grpc_max_connections,
                 "gRPC connections held at once; past that a new one is closed at once. 0: "
                 "10000, or fewer to fit half the descriptor limit (3 descriptors each)")
      ->check(CLI::Range(0, 1000000))
      ->capture_default_str();
  app.add_option("--grpc-idle-timeout", grpc_idle_s,
                 "Seconds a gRPC connection may stay without a call before it gets a GOAWAY "
                 "and is closed (clients reconnect for their next call)")
      ->check(CLI::Range(0.01, 86400.0))
      ->capture_default_str();
  app.add_option("--grpc-keepalive-time", grpc_keepalive_s,
                 "Seconds of silence on a gRPC connection with calls before the server pings it")
      ->check(CLI::Range(1.0, 86400.0))
      ->capture_default_str();
  app.add_option("--grpc-keepalive-timeout", grpc_keepalive_timeout_s,
                 "Seconds the client has to answer that ping before its connection is closed "
                 "(a dead peer's calls are cancelled)")
      ->check(CLI::Range(1.0, 3600.0))
      ->capture_default_str();
  app.add_option("--tls-cert", options.tls_cert_file,
                 "Serve TLS with this certificate chain (PEM); with --tls-key");
  app.add_option("--tls-key", options.tls_key_file, "The key of --tls-cert (PEM)");
  app.add_option("--tls-client-ca", options.tls_client_ca_file,
                 "Require client certificates signed by this CA (PEM)");
  double drain_s = 2;
  app.add_option("--drain", drain_s,
                 "On SIGINT/SIGTERM: seconds health says NOT_SERVING while new calls are still "
                 "answered, so that load balancers move away first")
      ->check(CLI::Range(0.0, 3600.0))
      ->capture_default_str();
  std::string log_format = "text";
  app.add_option("--log-format", log_format,
                 "The log on standard error, one line per event: text (\"<time> puzzledb-server: "
                 "<event>\") or json (one object per line: time, program, message)")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  app.add_option("--grace", grace_s,
                 "Seconds calls in flight get to finish after the drain; then they are cancelled")
      ->check(CLI::Range(0.0, 3600.0))
      ->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitOk : kExitBadInput;
  }
  json_log = log_format == "json";
  options.search_priority = priority == "idle"     ? SearchPriority::kIdle
                            : priority == "normal" ? SearchPriority::kNormal
                                                   : SearchPriority::kLow;
  options.default_search_deadline =
      std::chrono::milliseconds(static_cast<int64_t>(default_deadline_s * 1000));
  auto millis = [](double seconds) {
    return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
  };
  options.http_head_timeout = millis(head_timeout_s);
  options.http_body_timeout = millis(body_timeout_s);
  options.http_idle_timeout = millis(idle_timeout_s);
  options.build_retry_after = millis(build_retry_s);
  options.grpc_handshake_timeout = millis(grpc_handshake_s);
  options.grpc_idle_timeout = millis(grpc_idle_s);
  options.grpc_keepalive_time = millis(grpc_keepalive_s);
  options.grpc_keepalive_timeout = millis(grpc_keepalive_timeout_s);
  // Each connection is a descriptor (a gRPC one three: its socket and a socket pair to
  // gRPC's transport): take what the system allows, and by default let gRPC's connections
  // take at most half of it.
  if (rlimit files{}; getrlimit(RLIMIT_NOFILE, &files) == 0) {
    if (files.rlim_cur < files.rlim_max) {
      files.rlim_cur = files.rlim_max;
      setrlimit(RLIMIT_NOFILE, &files);
      getrlimit(RLIMIT_NOFILE, &files);
    }
    if (grpc_max_connections == 0 && files.rlim_cur != RLIM_INFINITY) {
      const auto half = static_cast<size_t>(files.rlim_cur > 512 ? (files.rlim_cur - 256) / 6 : 64);
      grpc_max_connections = std::clamp<size_t>(half, 64, 10000);
    }
  }
  if (grpc_max_connections > 0) options.grpc_max_connections = grpc_max_connections;

  // SIGINT and SIGTERM are taken by sigwait below, in this thread only; block them before
  // any other thread starts so that every thread inherits the mask.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  // Debian's Abseil checks every mutex acquisition for lock-order cycles; gRPC takes many
  // per call. The check finds bugs in development builds, not in a server.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  gpr_set_log_verbosity(GPR_LOG_SEVERITY_ERROR);
  gpr_set_log_function(GrpcLog);
  google::protobuf::SetLogHandler(ProtobufLog);
  // Large blocks (a batch's body, an arena's blocks) are mapped on their own and unmapped
  // when freed, whatever the allocator has seen before: glibc raises this threshold after
  // each large free by default, and the heap then keeps them (docs/OPERATIONS.md, "Memory").
  mallopt(M_MMAP_THRESHOLD, 256 << 10);

  auto server = PuzzledbServer::Start(options, Log);
  if (!server.ok()) {
    if (absl::IsInvalidArgument(server.status())) {  // a flag is wrong: a usage error
      if (json_log) {
        Log(std::string(server.status().message()));
      } else {
        std::cerr << "puzzledb-server: " << server.status().message() << "\n";
      }
      return kExitBadInput;
    }
    std::string grpc_reason;
    {
      std::lock_guard<std::mutex> lock(log_mutex);
      grpc_reason = startup_grpc_error;
    }
    Log(std::string("cannot start: ") + std::string(server.status().message()) +
        (grpc_reason.empty() ? "" : "; gRPC says: " + grpc_reason));
    return kExitFailure;
  }
  started = true;
  int signal = 0;
  sigwait(&stop_signals, &signal);
  const char* name = signal == SIGINT ? "SIGINT" : "SIGTERM";
  if (drain_s > 0) {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%g", drain_s);
    Log(std::string("received ") + name + ": health NOT_SERVING, still answering for " +
        seconds + " s (--drain)");
    (*server)->StopServing();
    // A second signal ends the drain early.
    timespec wait{};
    wait.tv_sec = static_cast<time_t>(drain_s);
    wait.tv_nsec = static_cast<long>((drain_s - static_cast<double>(wait.tv_sec)) * 1e9);
    sigtimedwait(&stop_signals, nullptr, &wait);
  }
  Log(std::string("received ") + name + ": finishing the calls in flight");
  (*server)->Shutdown(std::chrono::milliseconds(static_cast<int64_t>(grace_s * 1000)));
  server->reset();
  return kExitOk;
}
