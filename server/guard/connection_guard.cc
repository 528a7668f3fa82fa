#include "server/guard/connection_guard.h"

#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <list>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <vector>

#include "boost/asio/bind_executor.hpp"
#include "boost/asio/io_context.hpp"
#include "boost/asio/ip/tcp.hpp"
#include "boost/asio/local/stream_protocol.hpp"
#include "boost/asio/post.hpp"
#include "boost/asio/steady_timer.hpp"
#include "boost/asio/strand.hpp"
#include "openssl/ssl.h"
#include "core/util/strings.h"
#include "server/guard/tls_session.h"
#include "server/listener.h"
#include "server/metrics.h"
#include "server/tls_context.h"

namespace puzzledb {
namespace {

namespace net = boost::asio;
using tcp = net::ip::tcp;
using error_code = boost::system::error_code;

// Bytes waiting for one socket before the other side's reading stops (back-pressure).
constexpr size_t kHighWater = 256 << 10;
// Bytes read from one socket per wake-up, so that one busy connection does not hold a thread.
constexpr size_t kReadBudget = 256 << 10;
// After a GOAWAY: how long the client has to read it and close before the socket is closed.
constexpr auto kLinger = std::chrono::milliseconds(1000);

// The thread's read buffer: a connection holds bytes only while a socket will not take them.
char* Scratch() {
  thread_local std::array<char, 64 << 10> buffer;
  return buffer.data();
}
// A read shorter than this has drained its socket: the next wait for it is started at once
// instead of reading again to hear EAGAIN (a system call a call saved each way). Bytes
// that arrive meanwhile are not missed: Asio re-arms the descriptor (EPOLL_CTL_MOD, which
// reports a socket ready now) whenever a wait starts on it.
constexpr size_t kScratch = 64 << 10;

GrpcClose CloseFor(Http2Bound bound) {
  switch (bound) {
    case Http2Bound::kHeaderBlock: return GrpcClose::kHeaderBlock;
    case Http2Bound::kHeaderList: return GrpcClose::kHeaderList;
    case Http2Bound::kStreams: return GrpcClose::kStreams;
    case Http2Bound::kResets: return GrpcClose::kResets;
    case Http2Bound::kPings: return GrpcClose::kPings;
    case Http2Bound::kProtocol: return GrpcClose::kProtocol;
  }
  return GrpcClose::kProtocol;
}

class Connection;

}  // namespace

class ConnectionGuard::Engine {
 public:
  Engine(const GuardOptions& options, ConnectionGuard::HandOff hand_off, ServerMetrics* metrics,
         Log log)
      : options_(options), hand_off_(std::move(hand_off)), metrics_(metrics), log_(std::move(log)) {}

  absl::Status Listen();
  void Run();
  void StopAccepting();
  void Shutdown();
  int port() const { return listener_->port(); }
  size_t connections() const { return count_.load(); }

  // For the connections.
  const GuardOptions& options() const { return options_; }
  SSL_CTX* tls() { return tls_ ? tls_->native_handle() : nullptr; }
  // Gives gRPC its end of a socket pair; false (and the descriptor closed) once stopping.
  bool HandOff(int fd);
  void Opened(Connection* c);
  void Gone(Connection* c, GrpcClose reason);
  // One line, at most once a second (a flood is counted, not logged line by line).
  void Note(const std::string& line);

 private:
  void Accepted(tcp::socket socket);
  void Register(const std::shared_ptr<Connection>& c);

  const GuardOptions options_;
  const ConnectionGuard::HandOff hand_off_;
  ServerMetrics* const metrics_;
  const Log log_;
  net::io_context ioc_;
  std::optional<net::executor_work_guard<net::io_context::executor_type>> work_{ioc_.get_executor()};
  std::vector<std::thread> threads_;
  std::optional<net::ssl::context> tls_;
  std::unique_ptr<Listener> listener_;

  std::shared_mutex stopping_mutex_;  // HandOff reads stopping_ under it, shared
  bool stopping_ = false;
  std::atomic<bool> shut_down_{false};
  std::atomic<size_t> count_{0};
  std::mutex mutex_;  // guards the lists and the log's rate
  std::condition_variable gone_cv_;
  std::list<std::weak_ptr<Connection>> all_;
  std::list<std::weak_ptr<Connection>> opening_;  // oldest first
  std::chrono::steady_clock::time_point last_note_{};
  size_t notes_held_ = 0;
};

namespace {

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  using Engine = ConnectionGuard::Engine;

  // `client`'s executor is a strand of its own: every event of the connection runs on it.
  Connection(Engine* engine, tcp::socket client)
      : engine_(engine),
        strand_(client.get_executor()),
        client_(std::move(client)),
        timer_(strand_),
        inspector_(engine->options().limits, {}, engine->options().memory,
                   engine->options().calls_share) {}

  // A connection whose last handler went away without closing it (an exception in a
  // handler) still leaves the engine's count.
  ~Connection() {
    if (!closed_) engine_->Gone(this, GrpcClose::kServer);
  }

  // From the accepting thread.
  void Start() {
    net::post(strand_, [self = shared_from_this()] {
      if (self->closed_) return;
      if (SSL_CTX* ctx = self->engine_->tls()) self->tls_ = std::make_unique<TlsSession>(ctx);
      self->timer_.expires_after(self->engine_->options().handshake_timeout);
      self->timer_.async_wait([self](error_code ec) {
        if (!ec && !self->closed_ && self->state_ == State::kOpening) {
          self->Finish(GrpcClose::kHandshakeTimeout);
        }
      });
      self->Pump();
    });
  }
  // From any thread.
  void Close(GrpcClose reason) {
    net::post(strand_, [self = shared_from_this(), reason] { self->Finish(reason); });
  }

  std::list<std::weak_ptr<Connection>>::iterator all_at, opening_at;
  bool opening_listed = false;  // under the engine's mutex

 private:
  enum class State {
    kOpening,   // TLS, the preface, the first SETTINGS
    kRelaying,  // handed to gRPC
    kRefusing,  // a bound passed: its GOAWAY on the way
    kLingering  // the GOAWAY written; waiting for the client to close
  };

  void OnClientReadable(error_code ec) {
    waiting_client_read_ = false;
    if (closed_) return;
    if (ec) return Finish(GrpcClose::kClient);
    char* buffer = Scratch();
    size_t total = 0;
    while (total < kReadBudget && !client_eof_) {
      error_code read;
      const size_t n = client_.read_some(net::buffer(buffer, kScratch), read);
      if (read == net::error::would_block || read == net::error::try_again) break;
      if (read) {
        client_eof_ = true;
        break;
      }
      total += n;
      if (state_ == State::kLingering) continue;  // read to be dropped
      if (!FromClient(std::string_view(buffer, n))) return;
      if (state_ == State::kRefusing || to_inner_.size() >= kHighWater ||
          to_client_.size() >= kHighWater || n < kScratch) {
        break;  // a short read: the socket is drained (see kScratch)
      }
    }
    Pump();
  }

  // False once closed.
  bool FromClient(std::string_view bytes) {
    std::string decrypted;
    if (tls_ != nullptr) {
      if (!tls_->Receive(bytes, &decrypted, &to_client_)) {
        engine_->Note(Cat("gRPC connection from ", Peer(), " closed: TLS: ", tls_->error()));
        Flush();
        Finish(GrpcClose::kProtocol);
        return false;
      }
      if (tls_->closed()) client_eof_ = true;
      bytes = decrypted;
    }
    if (bytes.empty()) return true;
    std::string answers;  // the inspector's own, for the client
    auto refusal = inspector_.FromClient(bytes, &to_inner_, &answers);
    if (!answers.empty() && !SendToClient(answers)) return false;
    if (refusal) {
      Refuse(*refusal);
      return true;
    }
    if (state_ == State::kOpening && inspector_.opened()) return HandOff();
    return true;
  }

  bool HandOff() {
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds) != 0) {
      engine_->Note(Cat("gRPC connection from ", Peer(), " closed: no socket pair for it (",
                        std::strerror(errno), ")"));
      Finish(GrpcClose::kServer);
      return false;
    }
    error_code ec;
    inner_.emplace(strand_);
    inner_->assign(net::local::stream_protocol(), fds[0], ec);
    if (!ec) inner_->non_blocking(true, ec);
    if (ec) {
      ::close(fds[1]);
      Finish(GrpcClose::kServer);
      return false;
    }
    if (!engine_->HandOff(fds[1])) {  // the server is stopping
      Finish(GrpcClose::kServer);
      return false;
    }
    state_ = State::kRelaying;
    timer_.cancel();
    engine_->Opened(this);
    return true;
  }

  void OnInnerReadable(error_code ec) {
    waiting_inner_read_ = false;
    if (closed_) return;
    if (ec) {
      inner_eof_ = true;
      return Pump();
    }
    char* buffer = Scratch();
    size_t total = 0;
    while (total < kReadBudget && to_client_.size() < kHighWater && !inspector_.goaway_sent()) {
      error_code read;
      const size_t n = inner_->read_some(net::buffer(buffer, kScratch), read);
      if (read == net::error::would_block || read == net::error::try_again) break;
      if (read) {
        inner_eof_ = true;
        break;
      }
      total += n;
      if (tls_ == nullptr) {
        inspector_.FromServer(std::string_view(buffer, n), &to_client_);
      } else {
        std::string plain;
        inspector_.FromServer(std::string_view(buffer, n), &plain);
        if (!SendToClient(plain)) return;
      }
      if (n < kScratch) break;  // a short read: the socket is drained (see kScratch)
    }
    Pump();
  }

  // Plaintext for the client: as it is, or as TLS records. False once closed (TLS failed).
  bool SendToClient(std::string_view plain) {
    if (tls_ == nullptr) {
      to_client_ += plain;
      return true;
    }
    if (tls_->Send(plain, &to_client_)) return true;
    Finish(GrpcClose::kProtocol);
    return false;
  }

  void Refuse(const Http2Refusal& refusal) {
    refused_ = CloseFor(refusal.bound);
    engine_->Note(Cat("gRPC connection from ", Peer(), " closed: ", refusal.reason));
    state_ = State::kRefusing;
    to_inner_.clear();
    std::string plain;
    inspector_.Refuse(refusal, &plain);
    if (!SendToClient(plain)) return;
    timer_.cancel();
    timer_.expires_after(kLinger);
    timer_.async_wait([self = shared_from_this()](error_code ec) {
      if (!ec && !self->closed_) self->Finish(self->refused_);
    });
  }

  // Writes what the sockets take now; false if the client's socket failed.
  bool Flush() {
    if (!to_client_.empty() && !waiting_client_write_ && !WriteSome(client_, &to_client_)) {
      return false;
    }
    if (inner_ && state_ == State::kRelaying && !to_inner_.empty() && !waiting_inner_write_ &&
        !WriteSome(*inner_, &to_inner_)) {
      inner_eof_ = true;
    }
    return true;
  }

  template <class Socket>
  static bool WriteSome(Socket& socket, std::string* bytes) {
    error_code ec;
    const size_t n = socket.write_some(net::buffer(*bytes), ec);
    if (ec == net::error::would_block || ec == net::error::try_again) return true;
    if (ec) return false;
    bytes->erase(0, n);
    if (bytes->empty() && bytes->capacity() > 4096) std::string().swap(*bytes);  // idle: no buffer
    return true;
  }

  // After every event: writes, ends what is over, and waits for what comes next.
  void Pump() {
    if (closed_) return;
    if (!Flush()) return Finish(state_ == State::kRelaying || state_ == State::kOpening
                                    ? GrpcClose::kClient
                                    : refused_);
    switch (state_) {
      case State::kOpening:
        if (client_eof_) return Finish(GrpcClose::kClient);
        break;
      case State::kRelaying:
        if (client_eof_) return Finish(GrpcClose::kClient);
        if (inner_eof_ && to_client_.empty()) return Finish(GrpcClose::kServer);
        break;
      case State::kRefusing:
        if (inspector_.goaway_sent() && to_client_.empty()) {
          // The GOAWAY is out: gRPC lets go of the connection's calls, and the client gets
          // a moment to read it before the socket closes.
          state_ = State::kLingering;
          error_code ignored;
          client_.shutdown(tcp::socket::shutdown_send, ignored);
          if (inner_) inner_->close(ignored);
          inner_.reset();
        } else if (inner_eof_ && !inspector_.goaway_sent()) {
          return Finish(refused_);
        } else if (client_eof_ && to_client_.empty()) {
          return Finish(refused_);
        }
        break;
      case State::kLingering:
        if (client_eof_) return Finish(refused_);
        break;
    }
    auto self = shared_from_this();
    if (!to_client_.empty() && !waiting_client_write_) {
      waiting_client_write_ = true;
      client_.async_wait(tcp::socket::wait_write, [self](error_code ec) {
        self->waiting_client_write_ = false;
        if (self->closed_) return;
        if (ec) return self->Finish(GrpcClose::kClient);
        self->Pump();
      });
    }
    if (inner_ && state_ == State::kRelaying && !to_inner_.empty() && !waiting_inner_write_) {
      waiting_inner_write_ = true;
      inner_->async_wait(net::local::stream_protocol::socket::wait_write, [self](error_code ec) {
        self->waiting_inner_write_ = false;
        if (self->closed_) return;
        if (ec) self->inner_eof_ = true;
        self->Pump();
      });
    }
    // A client is not read from while it does not read what it is answered: the port's own
    // answers (a refused message's, a PING's) would pile up without bound.
    const bool read_client =
        !client_eof_ &&
        (state_ == State::kOpening || state_ == State::kLingering ||
         (state_ == State::kRelaying && to_inner_.size() < kHighWater &&
          to_client_.size() < kHighWater));
    if (read_client && !waiting_client_read_) {
      waiting_client_read_ = true;
      client_.async_wait(tcp::socket::wait_read,
                         [self](error_code ec) { self->OnClientReadable(ec); });
    }
    const bool read_inner = inner_ && !inner_eof_ && to_client_.size() < kHighWater &&
                            (state_ == State::kRelaying ||
                             (state_ == State::kRefusing && !inspector_.goaway_sent()));
    if (read_inner && !waiting_inner_read_) {
      waiting_inner_read_ = true;
      inner_->async_wait(net::local::stream_protocol::socket::wait_read,
                         [self](error_code ec) { self->OnInnerReadable(ec); });
    }
  }

  void Finish(GrpcClose reason) {
    if (closed_) return;
    closed_ = true;
    error_code ignored;
    timer_.cancel();
    client_.close(ignored);
    if (inner_) inner_->close(ignored);
    std::string().swap(to_client_);
    std::string().swap(to_inner_);
    engine_->Gone(this, reason);
  }

  std::string Peer() const {
    error_code ec;
    const tcp::endpoint peer = client_.remote_endpoint(ec);
    if (ec) return "a client gone";
    return Cat(peer.address().to_string(), ":", peer.port());
  }

  Engine* const engine_;
  net::any_io_executor strand_;
  tcp::socket client_;
  std::optional<net::local::stream_protocol::socket> inner_;
  net::steady_timer timer_;  // the opening's deadline, then the GOAWAY's
  std::unique_ptr<TlsSession> tls_;
  Http2Inspector inspector_;
  std::string to_client_;  // waiting for the client's socket (TLS records with TLS)
  std::string to_inner_;   // waiting for gRPC's
  State state_ = State::kOpening;
  GrpcClose refused_ = GrpcClose::kProtocol;
  bool waiting_client_read_ = false, waiting_client_write_ = false;
  bool waiting_inner_read_ = false, waiting_inner_write_ = false;
  bool client_eof_ = false, inner_eof_ = false;
  bool closed_ = false;
};

}  // namespace

absl::Status ConnectionGuard::Engine::Listen() {
  // Every address the host names (localhost: 127.0.0.1 and ::1), as gRPC bound them.
  auto listener = Listener::Bind(ioc_, "--listen", options_.listen);
  if (!listener.ok()) return listener.status();
  listener_ = std::move(*listener);
  if (!options_.tls_cert_file.empty()) {
    auto context = ServerTlsContext("gRPC", options_.tls_cert_file, options_.tls_key_file,
                                    options_.tls_client_ca_file);
    if (!context.ok()) return context.status();
    tls_.emplace(std::move(*context));
    SelectHttp2ByAlpn(tls_->native_handle());
  }
  return absl::OkStatus();
}

void ConnectionGuard::Engine::Run() {
  listener_->Start([this](tcp::socket socket) { Accepted(std::move(socket)); },
                   [this](const error_code& ec) {
                     // Out of descriptors (or another passing failure): the connection that
                     // has been opening the longest makes room.
                     Note(Cat("gRPC: accepting a connection failed: ", ec.message()));
                     std::shared_ptr<Connection> oldest;
                     {
                       std::lock_guard<std::mutex> lock(mutex_);
                       if (!opening_.empty()) oldest = opening_.front().lock();
                     }
                     if (oldest != nullptr) oldest->Close(GrpcClose::kEvicted);
                   });
  const int threads = std::max(1, options_.threads);
  for (int i = 0; i < threads; ++i) {
    threads_.emplace_back([this] {
      for (;;) {
        try {
          ioc_.run();
          return;
        } catch (const std::exception& e) {  // one connection's failure, not the server's
          if (log_) log_(Cat("gRPC connections: ", e.what()));
        }
      }
    });
  }
}

void ConnectionGuard::Engine::Accepted(tcp::socket socket) {
  if (shut_down_) return;
  error_code ignored;
  socket.non_blocking(true, ignored);
  if (metrics_ != nullptr) metrics_->GrpcConnectionOpened();
  if (count_.load() >= options_.max_connections) {
    if (metrics_ != nullptr) metrics_->GrpcConnectionClosed(GrpcClose::kLimit);
    Note(Cat("gRPC: a connection refused: ", options_.max_connections,
             " are open (--grpc-max-connections)"));
    socket.close(ignored);
    return;
  }
  auto c = std::make_shared<Connection>(this, std::move(socket));
  Register(c);
  c->Start();
}

void ConnectionGuard::Engine::Register(const std::shared_ptr<Connection>& c) {
  std::shared_ptr<Connection> evicted;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++count_;
    c->all_at = all_.insert(all_.end(), c);
    while (opening_.size() >= options_.max_handshakes && evicted == nullptr) {
      // The one opening the longest makes room (off the list now, so that the next accept
      // picks another).
      std::weak_ptr<Connection> oldest = opening_.front();
      opening_.pop_front();
      evicted = oldest.lock();
      if (evicted != nullptr) evicted->opening_listed = false;
    }
    c->opening_at = opening_.insert(opening_.end(), c);
    c->opening_listed = true;
  }
  if (evicted != nullptr) evicted->Close(GrpcClose::kEvicted);
}

bool ConnectionGuard::Engine::HandOff(int fd) {
  std::shared_lock<std::shared_mutex> lock(stopping_mutex_);
  if (stopping_) {
    ::close(fd);
    return false;
  }
  hand_off_(fd);
  return true;
}

void ConnectionGuard::Engine::Opened(Connection* c) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (c->opening_listed) {
    opening_.erase(c->opening_at);
    c->opening_listed = false;
  }
}

void ConnectionGuard::Engine::Gone(Connection* c, GrpcClose reason) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (c->opening_listed) {
      opening_.erase(c->opening_at);
      c->opening_listed = false;
    }
    all_.erase(c->all_at);
    --count_;
  }
  if (metrics_ != nullptr) metrics_->GrpcConnectionClosed(reason);
  gone_cv_.notify_all();
}

void ConnectionGuard::Engine::Note(const std::string& line) {
  if (!log_) return;
  size_t held = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto now = std::chrono::steady_clock::now();
    if (now - last_note_ < std::chrono::seconds(1)) {
      ++notes_held_;
      return;
    }
    last_note_ = now;
    held = notes_held_;
    notes_held_ = 0;
  }
  log_(held == 0 ? line : Cat(line, " (and ", held, " more such events in the second before)"));
}

void ConnectionGuard::Engine::StopAccepting() {
  {
    std::unique_lock<std::shared_mutex> lock(stopping_mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  if (listener_ != nullptr) listener_->Close();
  std::vector<std::shared_ptr<Connection>> opening;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& w : opening_) {
      if (auto c = w.lock()) opening.push_back(std::move(c));
    }
  }
  for (auto& c : opening) c->Close(GrpcClose::kServer);
}

void ConnectionGuard::Engine::Shutdown() {
  if (shut_down_.exchange(true)) return;
  StopAccepting();
  if (threads_.empty()) return;  // never ran
  std::vector<std::shared_ptr<Connection>> left;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& w : all_) {
      if (auto c = w.lock()) left.push_back(std::move(c));
    }
  }
  for (auto& c : left) c->Close(GrpcClose::kServer);
  left.clear();
  {
    std::unique_lock<std::mutex> lock(mutex_);
    gone_cv_.wait(lock, [this] { return all_.empty(); });
  }
  work_.reset();
  ioc_.stop();
  for (auto& t : threads_) t.join();
}

absl::StatusOr<std::unique_ptr<ConnectionGuard>> ConnectionGuard::Start(const GuardOptions& options,
                                                                        HandOff hand_off,
                                                                        ServerMetrics* metrics,
                                                                        Log log) {
  auto engine = std::make_unique<Engine>(options, std::move(hand_off), metrics, std::move(log));
  if (absl::Status listening = engine->Listen(); !listening.ok()) return listening;
  engine->Run();
  return std::unique_ptr<ConnectionGuard>(new ConnectionGuard(std::move(engine)));
}

ConnectionGuard::ConnectionGuard(std::unique_ptr<Engine> engine) : engine_(std::move(engine)) {}
ConnectionGuard::~ConnectionGuard() { Shutdown(); }
int ConnectionGuard::port() const { return engine_->port(); }
size_t ConnectionGuard::connections() const { return engine_->connections(); }
void ConnectionGuard::StopAccepting() { engine_->StopAccepting(); }
void ConnectionGuard::Shutdown() { engine_->Shutdown(); }

}  // namespace puzzledb
