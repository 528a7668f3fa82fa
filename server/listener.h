// The listening sockets of one port, the same for both (the gRPC port's guard,
// server/guard/connection_guard.h, and the HTTP engine, server/http/http_server.h): a
// host:port as the flag gave it (a host name resolved, every address it names bound on one
// port: localhost is 127.0.0.1 and ::1; port 0 picks a free port, the first address's),
// and the loop that accepts on each, a strand of its own per socket.
//
// What an accept that fails (out of descriptors, mostly) does is the caller's (`failed`:
// say it and make room); the listener then waits 50 ms before it accepts again, so that it
// never spins. SO_REUSEADDR only, never SO_REUSEPORT: a second server must not bind the
// same port and take half its connections.
#ifndef PUZZLEDB_SERVER_LISTENER_H_
#define PUZZLEDB_SERVER_LISTENER_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "boost/asio/io_context.hpp"
#include "boost/asio/ip/tcp.hpp"
#include "boost/asio/steady_timer.hpp"
#include "boost/asio/strand.hpp"

namespace puzzledb {

class Listener {
 public:
  using Socket = boost::asio::ip::tcp::socket;
  // A connection accepted (TCP_NODELAY set), on a strand of its own.
  using Accepted = std::function<void(Socket socket)>;
  // An accept failed; the next one is tried 50 ms later.
  using Failed = std::function<void(const boost::system::error_code& error)>;

  // Binds `listen` (host:port). `flag` names the option in errors: a bad address is
  // INVALID_ARGUMENT ("--listen host:port: ..."), an address in use or not this machine's
  // UNAVAILABLE.
  static absl::StatusOr<std::unique_ptr<Listener>> Bind(boost::asio::io_context& ioc,
                                                         std::string_view flag,
                                                         const std::string& listen);
  ~Listener();
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  // Accepts on every socket until Close(); the callbacks run on the sockets' strands, and
  // must outlive the listener's last accept (Close, then stop the io_context).
  void Start(Accepted accepted, Failed failed);
  // Closes the sockets (from their strands: safe from any thread). Idempotent.
  void Close();

  int port() const { return port_; }
  // The host as given ("[::1]" for an IPv6 literal): what a URL of the port names.
  const std::string& host() const { return host_; }

 private:
  struct Socket_;
  Listener() = default;
  void Accept(Socket_* s);

  std::vector<std::unique_ptr<Socket_>> sockets_;
  int port_ = 0;
  std::string host_;
  Accepted accepted_;
  Failed failed_;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVER_LISTENER_H_
