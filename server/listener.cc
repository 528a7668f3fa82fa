#include "server/listener.h"

#include <atomic>

#include "boost/asio/ip/v6_only.hpp"
#include "boost/asio/post.hpp"
#include "core/util/strings.h"
#include "service/address.h"

namespace puzzledb {

namespace net = boost::asio;
using tcp = net::ip::tcp;
using error_code = boost::system::error_code;

struct Listener::Socket_ {
  explicit Socket_(net::io_context& ioc)
      : ioc(ioc), strand(net::make_strand(ioc)), acceptor(strand), retry(strand) {}
  net::io_context& ioc;
  net::strand<net::io_context::executor_type> strand;
  tcp::acceptor acceptor;
  net::steady_timer retry;
  std::atomic<bool> closed{false};
};

Listener::~Listener() = default;

absl::StatusOr<std::unique_ptr<Listener>> Listener::Bind(net::io_context& ioc,
                                                         std::string_view flag,
                                                         const std::string& listen) {
  if (absl::Status address = CheckHostPort(listen, /*allow_port_zero=*/true); !address.ok()) {
    return absl::InvalidArgumentError(Cat(flag, " ", Message(address)));
  }
  std::unique_ptr<Listener> l(new Listener());
  const size_t colon = listen.rfind(':');
  l->host_ = listen.substr(0, colon);
  std::string host = l->host_;
  if (host.front() == '[') host = host.substr(1, host.size() - 2);
  const std::string port = listen.substr(colon + 1);
  error_code ec;
  tcp::resolver resolver(ioc);
  const auto found =
      resolver.resolve(host, port, tcp::resolver::passive | tcp::resolver::numeric_service, ec);
  if (ec || found.empty()) {
    return absl::InvalidArgumentError(Cat(flag, " ", listen, ": cannot resolve '", host, "'",
                                          ec ? Cat(" (", ec.message(), ")") : std::string()));
  }
  std::string failure;
  for (const auto& entry : found) {
    tcp::endpoint endpoint = entry.endpoint();
    if (l->port_ != 0) endpoint.port(static_cast<uint16_t>(l->port_));
    auto s = std::make_unique<Socket_>(ioc);
    tcp::acceptor& acceptor = s->acceptor;
    acceptor.open(endpoint.protocol(), ec);
    if (!ec) acceptor.set_option(net::socket_base::reuse_address(true), ec);
    if (!ec && endpoint.protocol() == tcp::v6()) acceptor.set_option(net::ip::v6_only(true), ec);
    if (!ec) acceptor.bind(endpoint, ec);
    if (!ec) acceptor.listen(net::socket_base::max_listen_connections, ec);
    if (ec) {
      if (failure.empty()) failure = Cat(endpoint.address().to_string(), ": ", ec.message());
      continue;
    }
    l->port_ = acceptor.local_endpoint().port();
    l->sockets_.push_back(std::move(s));
  }
  if (l->sockets_.empty()) {
    return absl::UnavailableError(Cat("cannot listen on ", listen, " (", flag, "): ", failure,
                                      " (address in use, or not an address of this machine?)"));
  }
  return l;
}

void Listener::Start(Accepted accepted, Failed failed) {
  accepted_ = std::move(accepted);
  failed_ = std::move(failed);
  for (auto& s : sockets_) net::post(s->strand, [this, s = s.get()] { Accept(s); });
}

void Listener::Accept(Socket_* s) {
  if (s->closed) return;
  s->acceptor.async_accept(net::make_strand(s->ioc),
                           [this, s](error_code ec, tcp::socket socket) {
    if (s->closed || !s->acceptor.is_open()) return;
    if (ec) {
      failed_(ec);
      s->retry.expires_after(std::chrono::milliseconds(50));
      s->retry.async_wait([this, s](error_code wait) {
        if (!wait) Accept(s);
      });
      return;
    }
    error_code ignored;
    socket.set_option(tcp::no_delay(true), ignored);
    accepted_(std::move(socket));
    Accept(s);
  });
}

void Listener::Close() {
  for (auto& s : sockets_) {
    if (s->closed.exchange(true)) continue;
    net::post(s->strand, [s = s.get()] {
      error_code ignored;
      s->acceptor.close(ignored);
      s->retry.cancel();
    });
  }
}

}  // namespace puzzledb
