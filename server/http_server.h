// The HTTP/JSON API and the web page (docs/API.md, "HTTP"): a second adapter over the
// service layer, beside the gRPC one. Requests go through the same RequestHandler and the
// same search pool, under the same limits, and answer the same messages in protobuf's
// JSON mapping. The page's files are compiled into the binary (server/web/).
//
// Threads: cpp-httplib serves each connection on a thread of its pool, for as long as the
// connection is kept alive (docs/OPERATIONS.md, "HTTP"). Table answers are given on that
// thread; a search runs on the search pool while the connection's thread waits for it.
#ifndef PUZZLEDB_SERVER_HTTP_SERVER_H_
#define PUZZLEDB_SERVER_HTTP_SERVER_H_

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "absl/status/statusor.h"
#include "server/metrics.h"
#include "server/search_pool.h"
#include "server/solver_service.h"
#include "service/request_handler.h"

namespace httplib {
class Server;
}

namespace puzzledb {

struct HttpOptions {
  std::string listen = "127.0.0.1:8080";  // port 0 picks a free port (see port())
  int threads = 16;                       // connections served at once; more wait
  size_t max_body_bytes = 64 << 10;
  std::chrono::milliseconds default_search_deadline{10000};
  std::chrono::seconds io_timeout{5};  // to read a request, write an answer, or keep alive
  // TLS (PEM files), as for gRPC: both empty for plaintext.
  std::string tls_cert_file;
  std::string tls_key_file;
  std::string tls_client_ca_file;
};

// Where the HTTP server reaches the rest of the server. All must outlive it.
struct HttpBackend {
  RequestHandler* handler = nullptr;
  SearchPool* pool = nullptr;
  ServerMetrics* metrics = nullptr;  // shared with gRPC; served at /metrics
  std::function<bool()> serving;        // the health state (/healthz)
};

class HttpServer {
 public:
  using Log = std::function<void(std::string_view)>;

  // Binds and starts serving on a thread of its own. Errors say what failed (a bad address
  // or TLS file is INVALID_ARGUMENT; an address in use UNAVAILABLE).
  static absl::StatusOr<std::unique_ptr<HttpServer>> Start(const HttpOptions& options,
                                                           HttpBackend backend, Log log);
  // Shuts down if still running.
  ~HttpServer();

  int port() const { return port_; }
  // "http://127.0.0.1:8080/" (or https), for the log and the tests.
  const std::string& url() const { return url_; }

  // Stops accepting connections and lets the requests in flight finish; searches still
  // running after `grace` are cancelled. Idempotent.
  void Shutdown(std::chrono::milliseconds grace);

 private:
  HttpServer() = default;
  class Routes;

  std::unique_ptr<httplib::Server> server_;
  std::unique_ptr<Routes> routes_;
  std::thread thread_;
  std::atomic<bool> cancelled_{false};  // set at the end of the shutdown grace
  std::atomic<bool> listen_ended_{false};
  int port_ = 0;
  std::string url_;
  bool shut_down_ = false;
};

// The HTTP status of a gRPC (absl) status code (docs/API.md, "Errors").
int HttpStatusOf(absl::StatusCode code);

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVER_HTTP_SERVER_H_
