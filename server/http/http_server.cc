#include "server/http/http_server.h"

#include <malloc.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <list>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_set>
#include <vector>

#include "boost/asio/dispatch.hpp"
#include "boost/asio/ip/tcp.hpp"
#include "boost/asio/post.hpp"
#include "boost/asio/ssl.hpp"
#include "boost/asio/steady_timer.hpp"
#include "boost/asio/strand.hpp"
#include "boost/beast/core.hpp"
#include "boost/beast/http.hpp"
#include "core/util/strings.h"
#include "core/util/text_input.h"
#include "server/http/content_coding.h"
#include "server/http/routes.h"
#include "server/listener.h"
#include "server/tls_context.h"
#include "service/memory_budget.h"

namespace puzzledb {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = net::ip::tcp;

namespace {

constexpr uint32_t kHeadLimit = 16 << 10;  // a request line and headers, in bytes
constexpr size_t kReadChunk = 4096;
constexpr size_t kSideBytes = 1024;  // a read while a request is answered
// Read ahead of the request being answered (pipelined requests), at most.
constexpr size_t kBufferLimit = kHeadLimit + kReadChunk;
// After an answer with Connection: close, what the client still sends is read and dropped
// for this long (or this much) before the socket is closed, so that closing with unread
// bytes does not reset the connection before the client has read its answer.
constexpr std::chrono::milliseconds kLinger{2000};
constexpr size_t kLingerBytes = 1 << 20;
// A body is charged to the memory budget at this many bytes per byte received: itself,
// what protobuf's JSON parser makes of it, and the messages of the request and of its
// answers until the answer's text is made (which is charged on its own). Measured: a batch
// of 10,000 requests of 9-cell boards, 609 KB of JSON, took the server 14-15 MB at its peak, its
// 2.6 MB answer included (docs/OPERATIONS.md, "Memory").
constexpr size_t kChargePerBodyByte = 16;

std::string_view View(beast::string_view s) { return {s.data(), s.size()}; }

tcp::socket& SocketOf(tcp::socket& stream) { return stream; }
tcp::socket& SocketOf(net::ssl::stream<tcp::socket>& stream) { return stream.next_layer(); }

}  // namespace

// What the engine's lists hold of a connection. The lists are the engine's, under its
// mutex; a connection takes itself off them before it is destroyed.
class ConnectionBase {
 public:
  enum class List { kNone, kIdle, kHead };
  virtual ~ConnectionBase() = default;
  // A hold on it, or null if it is being destroyed. Taken under the engine's mutex and let
  // go outside it: the last hold's destructor takes the mutex.
  virtual std::shared_ptr<ConnectionBase> Hold() = 0;
  // Closes the connection if it is still idle or sending its head. Any thread.
  virtual void Evict() = 0;
  // Cancels the search it waits for, or closes it if idle. Any thread.
  virtual void Cancel() = 0;

  List list = List::kNone;
  std::list<ConnectionBase*>::iterator where;
};

class HttpServer::Engine {
 public:
  Engine(const HttpOptions& options, HttpBackend backend, Log log)
      : options_(options),
        backend_(std::move(backend)),
        log_(std::move(log)),
        routes_(backend_.env, backend_.serving,
                HttpRoutesOptions{options.serve_api, options.serve_metrics, options.max_body_bytes,
                                  options.cors_origins, options.access_log, log_}) {}

  ~Engine() { Shutdown(std::chrono::milliseconds(0)); }

  absl::Status Listen();
  void Run();
  void Shutdown(std::chrono::milliseconds grace);

  const HttpOptions& options() const { return options_; }
  const HttpRoutes& routes() const { return routes_; }
  ServerMetrics* metrics() const { return backend_.env.metrics; }
  MemoryBudget* memory() const { return backend_.env.memory; }
  bool stopping() const { return stopping_.load(std::memory_order_relaxed); }
  int port() const { return listener_->port(); }
  const std::string& url() const { return url_; }
  size_t connections() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return all_.size();
  }

  // The lists: every connection, the idle ones and those sending their head, oldest first.
  void Opened(ConnectionBase* c) {
    std::lock_guard<std::mutex> lock(mutex_);
    all_.insert(c);
  }
  // True when the caller should give freed memory back to the system (see below).
  bool Closed(ConnectionBase* c) {
    std::lock_guard<std::mutex> lock(mutex_);
    MoveLocked(c, ConnectionBase::List::kNone);
    all_.erase(c);
    if (all_.empty()) closed_cv_.notify_all();
    // After a crowd of connections has left (a quarter of a peak of at least 64 remains),
    // their memory is returned once: glibc keeps small freed blocks in its heap otherwise,
    // and a burst of idle or slow connections would leave the process that much larger.
    peak_ = std::max(peak_, all_.size() + 1);
    if (peak_ >= 64 && all_.size() <= peak_ / 4) {
      peak_ = all_.size();
      return true;
    }
    return false;
  }
  void Move(ConnectionBase* c, ConnectionBase::List to) {
    std::lock_guard<std::mutex> lock(mutex_);
    MoveLocked(c, to);
  }

 private:
  void MoveLocked(ConnectionBase* c, ConnectionBase::List to) {
    if (c->list == to) return;
    if (c->list != ConnectionBase::List::kNone) ListOf(c->list).erase(c->where);
    c->list = to;
    if (to != ConnectionBase::List::kNone) {
      auto& list = ListOf(to);
      c->where = list.insert(list.end(), c);
    }
  }
  std::list<ConnectionBase*>& ListOf(ConnectionBase::List l) {
    return l == ConnectionBase::List::kIdle ? idle_ : heads_;
  }
  void Accepted(tcp::socket socket);
  // Over the cap: closes the connection idle the longest, else the one sending its head the
  // longest; false if every connection is busy with a request.
  bool MakeRoom();
  // Holds on every open connection (let go outside the mutex).
  std::vector<std::shared_ptr<ConnectionBase>> HoldAll();

  const HttpOptions options_;
  const HttpBackend backend_;
  const Log log_;
  const HttpRoutes routes_;
  std::atomic<bool> stopping_{false};
  bool shut_down_ = false;
  std::string url_;

  mutable std::mutex mutex_;
  std::condition_variable closed_cv_;
  std::unordered_set<ConnectionBase*> all_;
  std::list<ConnectionBase*> idle_;
  std::list<ConnectionBase*> heads_;
  size_t peak_ = 0;  // most connections open at once since memory was last returned

  // Declared after what the connections touch as they are destroyed (the lists, the TLS
  // context), so that the io_context, which destroys what is left of them, goes first.
  std::optional<net::ssl::context> tls_;
  net::io_context ioc_;
  // Keeps the loop's threads running while nothing is pending on a socket: a connection
  // that waits for its search has no operation in Asio, and its answer is posted later.
  std::optional<net::executor_work_guard<net::io_context::executor_type>> work_{
      net::make_work_guard(ioc_)};
  std::unique_ptr<Listener> listener_;
  std::vector<std::thread> threads_;
};

namespace {

// One connection, plain (tcp::socket) or TLS. Every handler runs on the connection's strand;
// the search pool's delivery reaches it through net::dispatch onto that strand.
template <class Stream>
class Connection final : public ConnectionBase,
                         public std::enable_shared_from_this<Connection<Stream>> {
 public:
  using Engine = HttpServer::Engine;

  Connection(Engine* engine, Stream stream)
      : engine_(engine), stream_(std::move(stream)), timer_(stream_.get_executor()),
        buffer_(kBufferLimit) {
    engine_->Opened(this);
    engine_->metrics()->HttpConnectionOpened();
  }

  ~Connection() override {
    engine_->metrics()->HttpConnectionClosed(reason_.value_or(HttpClose::kClient));
    if (engine_->Closed(this)) malloc_trim(0);
  }

  // From the acceptor's strand: everything else happens on the connection's own.
  void Start() {
    net::dispatch(stream_.get_executor(), [self = this->shared_from_this()] { self->Begin(); });
  }

  void Begin() {
    if (phase_ == Phase::kClosed) return;  // evicted before it began
    if constexpr (std::is_same_v<Stream, tcp::socket>) {
      EnterIdle();
      Read();
    } else {
      phase_ = Phase::kHandshake;
      engine_->Move(this, List::kHead);
      SetDeadline(engine_->options().head_timeout, HttpClose::kHeadTimeout);
      stream_.async_handshake(net::ssl::stream_base::server,
                              [self = this->shared_from_this()](beast::error_code ec) {
                                if (self->phase_ == Phase::kClosed) return;
                                if (ec) return self->Close(HttpClose::kRefused);
                                self->EnterIdle();
                                self->Read();
                              });
    }
  }

  std::shared_ptr<ConnectionBase> Hold() override { return this->weak_from_this().lock(); }

  void Evict() override {
    auto self = this->shared_from_this();
    net::post(stream_.get_executor(), [self] {
      if (self->phase_ == Phase::kIdle || self->phase_ == Phase::kHead ||
          self->phase_ == Phase::kHandshake) {
        self->Close(self->engine_->stopping() ? HttpClose::kDone : HttpClose::kEvicted);
      }
    });
  }

  void Cancel() override {
    auto self = this->shared_from_this();
    net::post(stream_.get_executor(), [self] {
      if (self->cancelled_ != nullptr) self->cancelled_->store(true);
      if (self->phase_ != Phase::kAnswering && self->phase_ != Phase::kWriting) {
        self->Close(HttpClose::kDone);
      }
    });
  }

 private:
  enum class Phase { kHandshake, kIdle, kHead, kBody, kAnswering, kWriting, kLinger, kClosed };

  void EnterIdle() {
    phase_ = Phase::kIdle;
    engine_->Move(this, List::kIdle);
    SetDeadline(engine_->options().idle_timeout, HttpClose::kIdle);
    // An idle connection keeps no buffer.
    if (buffer_.size() == 0) buffer_.shrink_to_fit();
    if (!reading_) side_.reset();
  }

  // The first bytes of a request came.
  void StartRequest() {
    phase_ = Phase::kHead;
    request_started_ = std::chrono::steady_clock::now();
    engine_->Move(this, List::kHead);
    SetDeadline(engine_->options().head_timeout, HttpClose::kHeadTimeout);
    parser_.emplace();
    parser_->header_limit(kHeadLimit);
    // The larger of the two limits; once the head names its path, its own (BodyLimit).
    parser_->body_limit(std::max(engine_->options().max_body_bytes,
                                 engine_->options().max_batch_body_bytes));
    parser_->eager(true);
  }

  // One read at a time, whatever the phase: while a request is answered, reading on is how
  // a hang-up is seen (and pipelined requests wait in the buffer). Only a read in the
  // phases that parse lands in `buffer_`; the others land in `side_` and are appended when
  // they come, so that `buffer_` is never moved or consumed under a pending read.
  void Read() {
    if (reading_ || phase_ == Phase::kClosed) return;
    reading_ = true;
    auto done = [self = this->shared_from_this()](beast::error_code ec, size_t n) {
      self->OnRead(ec, n);
    };
    if (phase_ == Phase::kIdle && buffer_.size() == 0 && !readable_) {
      // An idle connection holds no buffer: it waits for the socket to be readable, and
      // then reads.
      SocketOf(stream_).async_wait(tcp::socket::wait_read, [done](beast::error_code ec) mutable {
        done(ec, 0);
      });
      side_read_ = false;
      waiting_ = true;
      return;
    }
    readable_ = false;
    const bool parsing = phase_ == Phase::kIdle || phase_ == Phase::kHead || phase_ == Phase::kBody;
    if (parsing) {
      const size_t room = kBufferLimit - buffer_.size();
      if (room == 0) {
        reading_ = false;
        return;
      }
      side_read_ = false;
      stream_.async_read_some(buffer_.prepare(std::min(kReadChunk, room)), std::move(done));
      return;
    }
    const size_t room = phase_ == Phase::kLinger ? kSideBytes : kBufferLimit - buffer_.size();
    if (room == 0) {
      reading_ = false;
      return;
    }
    if (side_ == nullptr) side_ = std::make_unique<char[]>(kSideBytes);
    side_read_ = true;
    stream_.async_read_some(net::mutable_buffer(side_.get(), std::min(kSideBytes, room)),
                            std::move(done));
  }

  void OnRead(beast::error_code ec, size_t n) {
    reading_ = false;
    readable_ = waiting_ && !ec;
    waiting_ = false;
    if (phase_ == Phase::kClosed) return;
    if (ec) return Close(phase_ == Phase::kLinger ? HttpClose::kDone : HttpClose::kClient);
    if (phase_ == Phase::kLinger) {
      lingered_ += n;
      if (lingered_ > kLingerBytes) return Close(HttpClose::kDone);
      return Read();  // dropped
    }
    if (side_read_) {
      n = std::min(n, kBufferLimit - buffer_.size());
      net::buffer_copy(buffer_.prepare(n), net::buffer(side_.get(), n));
    }
    buffer_.commit(n);
    switch (phase_) {
      case Phase::kIdle:
        if (buffer_.size() == 0) return Read();  // readable: now read into a buffer
        StartRequest();
        Parse();
        break;
      case Phase::kHead:
      case Phase::kBody:
        Parse();
        break;
      default:  // answering or writing: read on
        Read();
        break;
    }
  }

  void Parse() {
    while (buffer_.size() > 0) {
      if (phase_ == Phase::kHead) {
        if (std::string folded = FoldedHead(); !folded.empty()) {
          return Fail(400, absl::StatusCode::kInvalidArgument, folded, HttpClose::kRefused);
        }
      }
      beast::error_code ec;
      const size_t used = parser_->put(buffer_.data(), ec);
      buffer_.consume(used);
      if (ec == bhttp::error::need_more) break;
      if (ec) return Refuse(ec);
      if (phase_ == Phase::kHead && parser_->is_header_done()) {
        phase_ = Phase::kBody;
        engine_->Move(this, List::kNone);
        SetDeadline(engine_->options().body_timeout, HttpClose::kBodyTimeout);
        if (auto unframed = UnframedBody(); !unframed.empty()) {
          return Fail(400, absl::StatusCode::kInvalidArgument, unframed, HttpClose::kRefused);
        }
        if (auto host = BadHost(); !host.empty()) {
          return Fail(400, absl::StatusCode::kInvalidArgument, host, HttpClose::kRefused);
        }
        body_limit_ = BodyLimit();
        const bool has_body = parser_->chunked() || parser_->content_length().value_or(0) > 0;
        if (absl::Status taken = CheckCoding(View(parser_->get()[bhttp::field::content_encoding]));
            has_body && !taken.ok()) {
          return Fail(415, taken.code(), Message(taken), HttpClose::kRefused);
        }
        if (parser_->content_length() && *parser_->content_length() > body_limit_) {
          return Refuse(bhttp::error::body_limit);
        }
        // The body is charged as it comes (below), so that a client that sends slowly
        // holds no more of the budget than it has sent.
        if (!ChargeBody(0)) return;
        if (WantsContinue()) SendContinue();
      }
      if (phase_ == Phase::kBody && parser_->get().body().size() > body_limit_) {
        return Refuse(bhttp::error::body_limit);
      }
      if (phase_ == Phase::kBody && !ChargeBody(parser_->get().body().size())) return;
      if (parser_->is_done()) return Dispatch();
      if (used == 0) break;
    }
    Read();
  }

  // Charges `body_bytes` of body (and their parsing) to the memory budget, beyond what is
  // charged already; false, with the request refused (503) and the connection closed, when
  // the budget cannot take them.
  bool ChargeBody(size_t body_bytes) {
    MemoryBudget* memory = engine_->memory();
    if (memory == nullptr) return true;
    const size_t wanted = body_bytes * kChargePerBodyByte;
    if (body_charge_.bytes() == 0 && !body_charge_started_) {
      body_charge_started_ = true;
      if (memory->TryCharge(MemoryUse::kHttpBody, wanted, &body_charge_)) return true;
    } else if (wanted <= body_charge_.bytes() ||
               body_charge_.Grow(wanted - body_charge_.bytes())) {
      return true;
    }
    Fail(503, memory->Refusal(MemoryUse::kHttpBody, wanted), HttpClose::kRefused);
    return false;
  }

  // Why the request's body cannot be framed, or "" when it can (RFC 9112, section 6.3). The
  // parser takes a Transfer-Encoding whose last coding is not `chunked` as "no body", which
  // would leave the body in the buffer to be read as the next request: behind a proxy that
  // frames it otherwise, a smuggled request. Such a request is refused, and the connection
  // closed with it (Fail). Codings other than chunked are not taken at all: a body is sent
  // plain or chunked. (Differing Content-Length values, and Content-Length beside
  // Transfer-Encoding, the parser refuses itself: Refuse.)
  std::string UnframedBody() const {
    const auto& request = parser_->get();
    std::string codings;
    bool only_chunked = true;
    int chunked = 0;
    const auto fields = request.equal_range(bhttp::field::transfer_encoding);
    for (auto field = fields.first; field != fields.second; ++field) {
      if (!codings.empty()) codings += ", ";
      codings += View(field->value());
      // Each coding of the list as written: `chunked` with a parameter (`chunked;q=1`) is
      // not `chunked`, whatever a lenient tokenizer makes of it.
      std::string_view list = View(field->value());
      while (!list.empty()) {
        const size_t comma = list.find(',');
        const std::string_view coding = StripWhitespace(list.substr(0, comma));
        list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
        if (coding.empty()) continue;  // "a, , b": empty elements are allowed (RFC 9110 5.6.1)
        if (beast::iequals(beast::string_view(coding.data(), coding.size()), "chunked")) {
          ++chunked;
        } else {
          only_chunked = false;
        }
      }
    }
    if (codings.empty() || (only_chunked && chunked == 1 && parser_->chunked())) return "";
    return Cat("Transfer-Encoding: ", QuoteInput(codings),
               ": a request's body is framed by Content-Length or by Transfer-Encoding: chunked "
               "alone (RFC 9112, section 6.3); the connection is closed");
  }

  // Why the head in the buffer is refused for a line that starts with a space or a tab, or
  // "" (also while the head is incomplete; the parser reads a head only once it is whole):
  // obsolete line folding (RFC 9112, section 5.2), which the parser would unfold, even
  // inside Content-Length and Transfer-Encoding, where a proxy in front may read the field
  // otherwise. RFC 9112 lets a server refuse it with 400, which frames nothing differently;
  // and whitespace before the first field after the request line (section 2.2) alike.
  std::string FoldedHead() const {
    const std::string_view bytes(static_cast<const char*>(buffer_.data().data()), buffer_.size());
    size_t at = 0;
    while (at < bytes.size() && (bytes[at] == '\r' || bytes[at] == '\n')) ++at;  // empty lines first
    for (size_t newline = bytes.find('\n', at); newline != std::string_view::npos;
         newline = bytes.find('\n', newline + 1)) {
      if (newline + 1 >= bytes.size()) break;
      const char next = bytes[newline + 1];
      if (next == '\r' || next == '\n') break;  // the empty line that ends the head
      if (next == ' ' || next == '\t') {
        const int line = 1 + static_cast<int>(std::count(bytes.begin() + static_cast<std::ptrdiff_t>(at),
                                                          bytes.begin() + static_cast<std::ptrdiff_t>(newline), '\n'));
        return Cat("line ", line + 1, " of the head starts with a space or a tab: obsolete line folding "
                   "(RFC 9112, section 5.2) is not taken; send each field on one line");
      }
    }
    return "";
  }

  // Why the request's Host field is not one a server may answer, or "" (RFC 9112, section
  // 3.2): an HTTP/1.1 request names its host once, as host[:port].
  std::string BadHost() const {
    const auto& request = parser_->get();
    const auto fields = request.equal_range(bhttp::field::host);
    const auto count = std::distance(fields.first, fields.second);
    if (count == 0) {
      if (request.version() < 11) return "";
      return "no Host header: an HTTP/1.1 request names the host it is for (RFC 9112, "
             "section 3.2), e.g. Host: 127.0.0.1:8080";
    }
    if (count > 1) {
      return Cat("Host given ", count, " times: a request names its host once (RFC 9112, section 3.2)");
    }
    const std::string_view host = View(fields.first->value());
    for (const char c : host) {
      const bool allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                           std::string_view("-._~!$&'()*+,;=%:[]").find(c) != std::string_view::npos;
      if (!allowed) {
        return Cat("Host: ", QuoteInput(host), ": not host[:port] (RFC 9112, section 3.2)");
      }
    }
    return "";
  }

  // The largest body the request's path takes: a batch's, or any other's.
  size_t BodyLimit() const {
    const std::string_view target = View(parser_->get().target());
    const bool batch = target.substr(0, target.find('?')) == kBatchPath;
    return batch ? engine_->options().max_batch_body_bytes : engine_->options().max_body_bytes;
  }

  // A request that cannot be read past: answered, and the connection closed.
  void Refuse(beast::error_code ec) {
    if (ec == bhttp::error::body_limit) {
      const size_t limit = parser_->is_header_done() ? BodyLimit() : engine_->options().max_body_bytes;
      const size_t batch = engine_->options().max_batch_body_bytes;
      Fail(413, absl::StatusCode::kResourceExhausted,
           limit == batch
               ? Cat("the body is larger than ", limit, " bytes (--max-message-bytes)")
               : Cat("the body is larger than ", limit, " bytes, the limit of one request; send "
                     "many as a batch (POST ", kBatchPath, ", up to ", batch,
                     " bytes: --max-message-bytes)"),
           HttpClose::kRefused);
    } else if (ec == bhttp::error::header_limit) {
      Fail(431, absl::StatusCode::kInvalidArgument,
           Cat("the request line and headers are larger than ", kHeadLimit, " bytes"),
           HttpClose::kRefused);
    } else {
      Fail(400, absl::StatusCode::kInvalidArgument,
           Cat("the request is not valid HTTP/1.1: ", ec.message()), HttpClose::kRefused);
    }
  }

  void Fail(int status, absl::StatusCode code, std::string_view message, HttpClose reason) {
    Fail(status, absl::Status(code, absl::string_view(message.data(), message.size())), reason);
  }
  void Fail(int status, const absl::Status& why, HttpClose reason) {
    reason_ = reason;
    HttpAnswer answer = ErrorAnswer(status, why);
    answer.close = true;
    engine_->Move(this, List::kNone);
    phase_ = Phase::kAnswering;
    Respond(std::move(answer));
  }

  void Dispatch() {
    ClearDeadline();
    phase_ = Phase::kAnswering;
    auto& request = parser_->get();
    keep_alive_ = request.keep_alive();
    head_ = request.method() == bhttp::verb::head;
    version_ = request.version();
    auto target = ParseTarget(View(request.target()));
    if (!target.ok()) {
      const int status = request.target().size() > kMaxTargetBytes ? 414 : 400;
      return Respond(ErrorAnswer(status, target.status().code(), Message(target.status())));
    }
    target_ = std::move(*target);
    coding_ = ChooseCoding(View(request[bhttp::field::accept_encoding]));
    HttpRequestView view;
    view.body = request.body();
    if (const auto coding = View(request[bhttp::field::content_encoding]);
        !coding.empty() && !request.body().empty()) {
      auto decoded = DecodeBody(coding, request.body(), body_limit_);
      if (!decoded.ok()) {
        return Respond(ErrorAnswer(DecodeErrorStatus(decoded.status()), decoded.status()));
      }
      // Parsed from its decoded size, so charged for it.
      if (!ChargeBody(decoded->size())) return;
      decoded_body_ = std::move(*decoded);
      view.body = decoded_body_;
    }
    view.method = View(request.method_string());
    view.target = &target_;
    view.content_type = View(request[bhttp::field::content_type]);
    view.if_none_match = View(request[bhttp::field::if_none_match]);
    view.if_modified_since = View(request[bhttp::field::if_modified_since]);
    view.request_id = View(request["X-Request-Id"]);
    view.origin = View(request[bhttp::field::origin]);
    view.access_control_request_method = View(request[bhttp::field::access_control_request_method]);
    cancelled_ = std::make_shared<std::atomic<bool>>(false);
    auto self = this->shared_from_this();
    engine_->routes().Handle(view, cancelled_, [self](HttpAnswer answer) {
      // Inline when on the connection's strand (a table answer), else queued onto it.
      net::dispatch(self->stream_.get_executor(),
                    [self, answer = std::move(answer)]() mutable { self->Respond(std::move(answer)); });
    });
    Read();  // hears a hang-up while a search runs
  }

  // A client that sent `Expect: 100-continue` waits for a "100 Continue" before it sends
  // the body (curl does for a body over 1 MiB, such as a large batch, and would wait a
  // second otherwise); a body already on its way makes no difference.
  bool WantsContinue() const {
    const auto& request = parser_->get();
    return request.version() >= 11 && !parser_->is_done() &&
           beast::iequals(request[bhttp::field::expect], "100-continue");
  }

  // The interim answer; the final one waits for it to be written (one write at a time).
  void SendContinue() {
    static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
    continue_writing_ = true;
    net::async_write(stream_, net::buffer(kContinue.data(), kContinue.size()),
                     [self = this->shared_from_this()](beast::error_code ec, size_t) {
                       self->continue_writing_ = false;
                       if (self->phase_ == Phase::kClosed) return;
                       if (ec) return self->Close(HttpClose::kClient);
                       if (self->deferred_) {
                         HttpAnswer answer = std::move(*self->deferred_);
                         self->deferred_.reset();
                         self->Respond(std::move(answer));
                       }
                     });
  }

  void Respond(HttpAnswer answer) {
    if (phase_ != Phase::kAnswering) return;  // closed meanwhile
    if (continue_writing_) {
      deferred_ = std::move(answer);
      return;
    }
    // Compressed when the client takes it and the body is worth it; Vary says so to caches
    // either way.
    if (Compressible(answer.content_type) || answer.status == 304) answer.AddVary("Accept-Encoding");
    if (coding_ != ContentCoding::kIdentity && Compressible(answer.content_type) &&
        answer.body.size() >= kCompressFromBytes) {
      answer.body = answer.encoded != nullptr ? answer.encoded->In(coding_)
                                              : Encode(coding_, answer.body);
      answer.Set("Content-Encoding", std::string(CodingName(coding_)));
    }
    // The answer is held until the client has read it: charged, or refused for a short
    // one when the budget is spent.
    if (MemoryBudget* memory = engine_->memory();
        memory != nullptr && !head_ &&
        !memory->TryCharge(MemoryUse::kHttpAnswer, answer.body.size(), &answer_charge_)) {
      const size_t bytes = answer.body.size();
      answer = ErrorAnswer(503, memory->Refusal(MemoryUse::kHttpAnswer, bytes));
      answer.close = true;
      reason_ = HttpClose::kRefused;
    }
    // Answers the engine made itself (a request it could not read whole) get an id, the
    // CORS headers of an allowed origin (so that a page can read why it was refused) and
    // their line in the access log, as every other answer.
    if (!answer.Has("X-Request-Id")) {
      // What of the head was read: a refusal from Content-Length comes before the head is
      // done, with every field in; one over the head's limit, with the fields before it.
      const bool head = parser_.has_value();
      const std::string request_id =
          RequestIdFor(head ? View(parser_->get()["X-Request-Id"]) : std::string_view());
      answer.Set("X-Request-Id", request_id);
      std::string_view path;
      if (head) {
        path = View(parser_->get().target());
        path = path.substr(0, path.find('?'));
      }
      engine_->routes().FinishRefusal(head ? View(parser_->get()[bhttp::field::origin]) : "",
                                      head ? View(parser_->get().method_string()) : "", path,
                                      request_id, request_started_, &answer);
    }
    phase_ = Phase::kWriting;
    response_.emplace();
    auto& response = *response_;
    response.version(version_ == 10 ? 10 : 11);
    response.result(static_cast<unsigned>(answer.status));
    if (answer.status == 499) response.reason("Client Closed Request");
    if (answer.status == 431) response.reason("Request Header Fields Too Large");
    for (auto& [name, value] : answer.headers) response.set(name, value);
    if (!answer.content_type.empty()) response.set(bhttp::field::content_type, answer.content_type);
    close_after_ = answer.close || !keep_alive_ || engine_->stopping();
    response.keep_alive(!close_after_);
    if (answer.status != 304 && answer.status != 204) response.content_length(answer.body.size());
    if (!head_) response.body() = std::move(answer.body);
    SetDeadline(engine_->options().body_timeout, HttpClose::kWriteTimeout);
    bhttp::async_write(stream_, response,
                       [self = this->shared_from_this()](beast::error_code ec, size_t) {
                         self->OnWritten(ec);
                       });
  }

  void OnWritten(beast::error_code ec) {
    if (phase_ == Phase::kClosed) return;
    if (ec) return Close(HttpClose::kClient);
    response_.reset();
    parser_.reset();
    decoded_body_ = std::string();
    coding_ = ContentCoding::kIdentity;
    cancelled_.reset();
    body_charge_.Release();
    body_charge_started_ = false;
    answer_charge_.Release();
    head_ = false;
    if (engine_->stopping()) return Close(HttpClose::kDone);
    if (close_after_) return Linger();
    if (buffer_.size() > 0) {  // a pipelined request
      StartRequest();
      return Parse();
    }
    EnterIdle();
    Read();
  }

  // Closes our side, then drops what the client still sends until it closes too.
  void Linger() {
    phase_ = Phase::kLinger;
    engine_->Move(this, List::kNone);
    if (!reason_) reason_ = HttpClose::kDone;
    beast::error_code ignored;
    SocketOf(stream_).shutdown(tcp::socket::shutdown_send, ignored);
    buffer_.consume(buffer_.size());
    SetDeadline(kLinger, *reason_);
    Read();
  }

  void SetDeadline(std::chrono::milliseconds after, HttpClose reason) {
    const uint64_t generation = ++timer_generation_;
    timer_.expires_after(after);
    timer_.async_wait([self = this->shared_from_this(), generation,
                       reason](beast::error_code ec) {
      if (ec || generation != self->timer_generation_ || self->phase_ == Phase::kClosed) return;
      self->OnDeadline(reason);
    });
  }

  void ClearDeadline() {
    ++timer_generation_;
    timer_.cancel();
  }

  void OnDeadline(HttpClose reason) {
    if (phase_ == Phase::kHead || phase_ == Phase::kBody) {
      const bool head = phase_ == Phase::kHead;
      Fail(408, absl::StatusCode::kDeadlineExceeded,
           head ? Cat("the request head did not arrive within ",
                      engine_->options().head_timeout.count(), " ms (--http-head-timeout)")
                : Cat("the request body did not arrive within ",
                      engine_->options().body_timeout.count(), " ms (--http-body-timeout)"),
           reason);
      return;
    }
    Close(reason);
  }

  void Close(HttpClose reason) {
    if (phase_ == Phase::kClosed) return;
    phase_ = Phase::kClosed;
    if (!reason_ || reason == HttpClose::kClient) reason_ = reason;
    if (cancelled_ != nullptr) cancelled_->store(true);  // the search stops
    engine_->Move(this, List::kNone);
    ClearDeadline();
    body_charge_.Release();  // the body goes with the connection
    beast::error_code ignored;
    SocketOf(stream_).shutdown(tcp::socket::shutdown_both, ignored);
    SocketOf(stream_).close(ignored);
  }

  Engine* const engine_;
  Stream stream_;
  net::steady_timer timer_;
  uint64_t timer_generation_ = 0;
  beast::flat_buffer buffer_;
  std::unique_ptr<char[]> side_;  // see Read(); kept while requests come, not while idle
  bool side_read_ = false;
  bool waiting_ = false;   // the pending "read" waits for readability
  bool readable_ = false;  // it said readable: the next read reads
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  std::optional<bhttp::response<bhttp::string_body>> response_;
  MemoryBudget::Charge body_charge_;    // the request's body, until its answer is written
  bool body_charge_started_ = false;
  // When the current request's first bytes came (its refusal's time in the access log).
  std::chrono::steady_clock::time_point request_started_ = std::chrono::steady_clock::now();
  MemoryBudget::Charge answer_charge_;  // the answer, until written
  HttpTarget target_;
  ContentCoding coding_ = ContentCoding::kIdentity;  // of the answer being made
  std::string decoded_body_;  // the request's body, when it came encoded
  std::shared_ptr<std::atomic<bool>> cancelled_;  // of the request being answered
  std::optional<HttpClose> reason_;
  Phase phase_ = Phase::kIdle;
  size_t body_limit_ = 0;  // the request's, once its head is read
  bool continue_writing_ = false;    // a "100 Continue" is being written
  std::optional<HttpAnswer> deferred_;  // the answer that waits for it
  unsigned version_ = 11;
  size_t lingered_ = 0;
  bool reading_ = false;
  bool keep_alive_ = true;
  bool head_ = false;
  bool close_after_ = false;
};

}  // namespace

absl::Status HttpServer::Engine::Listen() {
  auto listener = Listener::Bind(ioc_, "--http", options_.listen);
  if (!listener.ok()) return listener.status();
  listener_ = std::move(*listener);
  const bool tls = !options_.tls_cert_file.empty();
  if (tls) {
    auto context = ServerTlsContext("HTTP", options_.tls_cert_file, options_.tls_key_file,
                                    options_.tls_client_ca_file);
    if (!context.ok()) return context.status();
    tls_.emplace(std::move(*context));
  }
  url_ = Cat(tls ? "https" : "http", "://", listener_->host(), ":", listener_->port(), "/");
  return absl::OkStatus();
}

void HttpServer::Engine::Run() {
  listener_->Start([this](tcp::socket socket) { Accepted(std::move(socket)); },
                   [this](const beast::error_code& ec) {
                     // Out of descriptors (or another passing failure): make room.
                     if (log_) log_(Cat("HTTP: accepting a connection failed: ", ec.message()));
                     MakeRoom();
                   });
  int threads = options_.threads;
  if (threads <= 0) threads = static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 4u));
  for (int i = 0; i < threads; ++i) {
    threads_.emplace_back([this] {
      for (;;) {
        try {
          ioc_.run();
          return;
        } catch (const std::exception& e) {  // one connection's failure, not the server's
          if (log_) log_(Cat("HTTP: ", e.what()));
        }
      }
    });
  }
}

void HttpServer::Engine::Accepted(tcp::socket socket) {
  if (stopping()) return;
  beast::error_code ignored;
  if (connections() >= options_.max_connections && !MakeRoom()) {
    // Every connection is busy with a request: this one waits for none.
    metrics()->HttpConnectionOpened();
    metrics()->HttpConnectionClosed(HttpClose::kEvicted);
    socket.close(ignored);
    return;
  }
  if (tls_) {
    std::make_shared<Connection<net::ssl::stream<tcp::socket>>>(
        this, net::ssl::stream<tcp::socket>(std::move(socket), *tls_))
        ->Start();
  } else {
    std::make_shared<Connection<tcp::socket>>(this, std::move(socket))->Start();
  }
}

bool HttpServer::Engine::MakeRoom() {
  std::shared_ptr<ConnectionBase> oldest;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto* list : {&idle_, &heads_}) {
      while (oldest == nullptr && !list->empty()) {
        ConnectionBase* c = list->front();
        // Off the list now, so that the next accept picks another one.
        MoveLocked(c, ConnectionBase::List::kNone);
        oldest = c->Hold();
      }
    }
  }
  if (oldest == nullptr) return false;
  oldest->Evict();
  return true;
}

std::vector<std::shared_ptr<ConnectionBase>> HttpServer::Engine::HoldAll() {
  std::vector<std::shared_ptr<ConnectionBase>> held;
  std::lock_guard<std::mutex> lock(mutex_);
  for (ConnectionBase* c : all_) {
    if (auto h = c->Hold()) held.push_back(std::move(h));
  }
  return held;
}

void HttpServer::Engine::Shutdown(std::chrono::milliseconds grace) {
  if (shut_down_) return;
  shut_down_ = true;
  stopping_ = true;
  if (threads_.empty()) return;  // never ran
  listener_->Close();
  // Idle connections close now; the others after their answer (stopping() turns keep-alive
  // off); searches still running after the grace are cancelled.
  for (auto& c : HoldAll()) c->Evict();
  std::unique_lock<std::mutex> lock(mutex_);
  if (!closed_cv_.wait_for(lock, grace, [this] { return all_.empty(); })) {
    lock.unlock();
    for (auto& c : HoldAll()) c->Cancel();
    lock.lock();
    closed_cv_.wait(lock, [this] { return all_.empty(); });
  }
  lock.unlock();
  work_.reset();
  ioc_.stop();
  for (auto& t : threads_) t.join();
}

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(const HttpOptions& options,
                                                              HttpBackend backend, Log log) {
  auto engine = std::make_unique<Engine>(options, std::move(backend), std::move(log));
  if (absl::Status listening = engine->Listen(); !listening.ok()) return listening;
  engine->Run();
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(engine)));
}

HttpServer::HttpServer(std::unique_ptr<Engine> engine) : engine_(std::move(engine)) {}
HttpServer::~HttpServer() { Shutdown(std::chrono::milliseconds(0)); }
int HttpServer::port() const { return engine_->port(); }
const std::string& HttpServer::url() const { return engine_->url(); }
size_t HttpServer::connections() const { return engine_->connections(); }
void HttpServer::Shutdown(std::chrono::milliseconds grace) { engine_->Shutdown(grace); }

}  // namespace puzzledb
