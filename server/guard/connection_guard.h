// The gRPC port: accepts its connections, terminates TLS, and hands each connection to
// gRPC (grpc::AddInsecureChannelFromFd, over a socket pair) once its client has opened
// HTTP/2, passing the bytes both ways through an Http2Inspector (http2_inspector.h), which
// bounds what gRPC 1.51 does not (docs/OPERATIONS.md, "gRPC connections"):
//   - TLS, the client's preface and its first SETTINGS must arrive within
//     `handshake_timeout`; at most `max_handshakes` connections may be at it at once (past
//     that the one opening the longest is closed for the new one), and until then a
//     connection costs one descriptor and a few hundred bytes, nothing of gRPC's;
//   - at most `max_connections` are held at once; a connection past that is closed at once;
//   - header blocks and calls open at once bounded (Http2Limits); a bound passed ends the
//     connection with a GOAWAY that says which;
//   - what the calls open hold in gRPC, charged to the memory budget: a call past it, or
//     past its connection's share, is refused RESOURCE_EXHAUSTED.
// Idle connections, keepalive and pings are gRPC's own (its channel arguments, set by
// server.cc): gRPC closes the socket pair and the connection follows.
//
// Threads: `threads` threads run one event loop; each connection's events run on a strand
// of its own. A connection costs no thread and, while nothing is in flight, no buffer: bytes
// are read into a buffer of the thread's and kept only while a socket will not take them.
#ifndef PUZZLEDB_SERVER_GUARD_CONNECTION_GUARD_H_
#define PUZZLEDB_SERVER_GUARD_CONNECTION_GUARD_H_

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "server/guard/http2_inspector.h"

namespace puzzledb {

class ServerMetrics;

struct GuardOptions {
  std::string listen = "127.0.0.1:50051";  // host:port; port 0 picks a free port
  int threads = 1;
  std::chrono::milliseconds handshake_timeout{10000};
  size_t max_handshakes = 1000;
  size_t max_connections = 10000;
  Http2Limits limits;
  // Charged for the calls open on every connection (may be null; must outlive the guard),
  // within `calls_share` of it (Http2Inspector).
  MemoryBudget* memory = nullptr;
  size_t calls_share = SIZE_MAX;
  // TLS (PEM files): both empty for plaintext; with a client CA, client certificates are
  // required and verified.
  std::string tls_cert_file;
  std::string tls_key_file;
  std::string tls_client_ca_file;
};

class ConnectionGuard {
 public:
  using Log = std::function<void(std::string_view)>;
  // Gives gRPC its end of a socket pair (it takes the descriptor).
  using HandOff = std::function<void(int fd)>;

  // Binds `options.listen` (every address a host name resolves to) and starts serving.
  // Errors say what failed: a bad address or TLS file is INVALID_ARGUMENT, an address in
  // use UNAVAILABLE. `metrics` (may be null) must outlive the guard.
  static absl::StatusOr<std::unique_ptr<ConnectionGuard>> Start(const GuardOptions& options,
                                                                HandOff hand_off,
                                                                ServerMetrics* metrics, Log log);
  ~ConnectionGuard();  // Shutdown()

  int port() const;
  // Connections open now, opening ones included.
  size_t connections() const;

  // Closes the listening sockets and the connections still opening; the connections
  // handed to gRPC go on until gRPC closes them (gRPC's own shutdown sends their GOAWAY).
  void StopAccepting();
  // Closes every connection left and stops the threads. Idempotent.
  void Shutdown();

  class Engine;

 private:
  explicit ConnectionGuard(std::unique_ptr<Engine> engine);
  std::unique_ptr<Engine> engine_;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVER_GUARD_CONNECTION_GUARD_H_
