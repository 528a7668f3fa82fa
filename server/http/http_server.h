// The HTTP/JSON API and the web page (docs/API.md, "HTTP") on Boost.Beast over Asio: a
// binding of the endpoints (routes.h) to connections, beside the gRPC binding (server/grpc/)
// over the same call path (server/call.h).
//
// Threads: a few threads run one event loop (epoll); a connection costs memory, never a
// thread, whatever it does. Table answers are given on a loop thread; a search runs on the
// search pool and its answer is written when it comes. What a connection may take
// (docs/OPERATIONS.md, "HTTP"):
//   - its request head must arrive whole within `head_timeout` of its first byte, and its
//     body within `body_timeout` of the head (deadlines for the whole, not per read);
//   - between requests it may stay idle for `idle_timeout`;
//   - a body over `max_body_bytes` is refused (413) as soon as its Content-Length is read;
//   - over `max_connections`, the connection idle the longest is closed for a new one (or,
//     with none idle, the one that has been sending its head the longest);
//   - a client that goes away while its search runs cancels the search.
#ifndef PUZZLEDB_SERVER_HTTP_HTTP_SERVER_H_
#define PUZZLEDB_SERVER_HTTP_HTTP_SERVER_H_

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "server/call.h"

namespace puzzledb {

struct HttpOptions {
  std::string listen = "127.0.0.1:8080";  // port 0 picks a free port (see port())
  int threads = 0;                        // event-loop threads; 0: one per core, at most 4
  size_t max_body_bytes = 64 << 10;  // a body, but a batch's
  size_t max_batch_body_bytes = 4 << 20;  // a body of POST kBatchPath (routes.h)
  size_t max_connections = 10000;
  std::chrono::milliseconds head_timeout{10000};
  std::chrono::milliseconds body_timeout{10000};  // also to write an answer
  std::chrono::milliseconds idle_timeout{30000};
  // What this address serves: the API, the page and /healthz; /metrics.
  bool serve_api = true;
  bool serve_metrics = true;
  // TLS (PEM files), as for gRPC: both empty for plaintext.
  std::string tls_cert_file;
  std::string tls_key_file;
  std::string tls_client_ca_file;
  // Origins whose pages may call the API (HttpRoutesOptions::cors_origins); empty: none.
  std::vector<std::string> cors_origins;
  bool access_log = false;  // a line per request in the log
};

// Where the HTTP server reaches the rest of the server. All must outlive it.
struct HttpBackend {
  CallEnv env;                    // its metrics are also served at /metrics
  std::function<bool()> serving;  // the health state (/healthz)
};

class HttpServer {
 public:
  using Log = std::function<void(std::string_view)>;

  // Binds and starts serving on threads of its own. Errors say what failed (a bad address
  // or TLS file is INVALID_ARGUMENT; an address in use UNAVAILABLE).
  static absl::StatusOr<std::unique_ptr<HttpServer>> Start(const HttpOptions& options,
                                                           HttpBackend backend, Log log);
  // Shuts down if still running.
  ~HttpServer();

  int port() const;
  // "http://127.0.0.1:8080/" (or https), for the log and the tests.
  const std::string& url() const;
  // Connections open now (for tests; also puzzledb_http_connections_open).
  size_t connections() const;

  // Stops accepting connections, closes the idle ones and lets the requests in flight
  // finish; searches still running after `grace` are cancelled. Returns once every
  // connection is closed. Idempotent.
  void Shutdown(std::chrono::milliseconds grace);

  class Engine;

 private:
  explicit HttpServer(std::unique_ptr<Engine> engine);
  std::unique_ptr<Engine> engine_;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVER_HTTP_HTTP_SERVER_H_
