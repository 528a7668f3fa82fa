// Probes that try to make a running server hold gigabytes or stall its other callers
// (docs/OPERATIONS.md, "Memory"), each through real sockets and real gRPC frames, with the
// server's resident memory read from /proc while it runs and after, and its table answers
// over HTTP timed meanwhile. tests/memory_probe_test.cc checks what they see;
// bench/memory_probes.cc prints the figures for any server binary (before and after a
// change). Bounded in count and in time: every wait has a limit.
#ifndef PUZZLEDB_TESTS_MEMORY_PROBES_H_
#define PUZZLEDB_TESTS_MEMORY_PROBES_H_

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "grpcpp/generic/generic_stub.h"
#include "nghttp2/nghttp2.h"
#include "grpcpp/grpcpp.h"
#include "puzzledb/v1/solver.grpc.pb.h"
#include "tests/http_attack.h"

namespace puzzledb::testing {

using ProbeClock = std::chrono::steady_clock;

inline double MillisSince(ProbeClock::time_point start) {
  return std::chrono::duration<double, std::milli>(ProbeClock::now() - start).count();
}

// What one probe saw.
struct ProbeFigures {
  std::string name;
  long rss_start_kb = 0, rss_peak_kb = 0, rss_settled_kb = 0;
  // Table answers over HTTP (GET /v1/solve, a knight board, a new connection each) sent
  // every 20 ms while the probe ran.
  int fast_answers = 0, fast_failed = 0;
  double fast_p50_ms = 0, fast_max_ms = 0;
  // The same over gRPC (unary Solve on one channel), when Observe is given its address.
  int grpc_answers = 0, grpc_failed = 0;
  double grpc_p50_ms = 0, grpc_max_ms = 0;
  std::string outcome;  // what the probe's own requests got
  double seconds = 0;
};

inline void PrintProbe(const ProbeFigures& f) {
  std::printf(
      "%-22s memory %6.0f MB at start, peak %6.0f MB (+%.0f), settled %6.0f MB (+%.0f); "
      "table GETs meanwhile: %d answered (%d failed), p50 %.1f ms, max %.1f ms; %.1f s\n"
      "%-22s %s\n",
      f.name.c_str(), f.rss_start_kb / 1024.0, f.rss_peak_kb / 1024.0,
      (f.rss_peak_kb - f.rss_start_kb) / 1024.0, f.rss_settled_kb / 1024.0,
      (f.rss_settled_kb - f.rss_start_kb) / 1024.0, f.fast_answers, f.fast_failed,
      f.fast_p50_ms, f.fast_max_ms, f.seconds, "", f.outcome.c_str());
  if (f.grpc_answers + f.grpc_failed > 0) {
    std::printf("%-22s table Solves over gRPC meanwhile: %d answered (%d failed), p50 %.1f ms, "
                "max %.1f ms\n",
                "", f.grpc_answers, f.grpc_failed, f.grpc_p50_ms, f.grpc_max_ms);
  }
  std::fflush(stdout);
}

// One table answer over HTTP on a new connection: its time in ms, or -1 if it did not come
// as a 200 within `timeout`.
inline double TimedTableGet(int http_port, std::mt19937_64& rng, std::chrono::milliseconds timeout) {
  const auto started = ProbeClock::now();
  const int fd = ConnectLoopback(http_port);
  if (fd < 0) return -1;
  const std::string reply =
      Exchange(fd, "GET /v1/solve?puzzle=knight&state=" + RandomKnightBoard(rng) +
                       " HTTP/1.1\r\nHost: x\r\n\r\n",
               timeout);
  ::close(fd);
  if (reply.rfind("HTTP/1.1 200", 0) != 0) return -1;
  return MillisSince(started);
}

// Runs `probe` (which fills `outcome`) while the server's memory is sampled every 10 ms
// and table GETs are timed every 20 ms (and table Solves over gRPC, given `grpc_address`);
// then waits up to `settle` for the memory to come back within 32 MB of the start
// (sampling every 250 ms).
inline ProbeFigures Observe(const std::string& name, int http_port, pid_t pid,
                            const std::function<std::string()>& probe,
                            std::chrono::milliseconds settle = std::chrono::milliseconds(8000),
                            const std::string& grpc_address = "") {
  ProbeFigures f;
  f.name = name;
  std::mt19937_64 rng(35);
  for (int i = 0; i < 20; ++i) TimedTableGet(http_port, rng, std::chrono::milliseconds(5000));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  f.rss_start_kb = ResidentKbOf(pid);
  std::atomic<bool> done{false};
  std::atomic<long> peak{f.rss_start_kb};
  std::thread sampler([&] {
    while (!done) {
      peak = std::max(peak.load(), ResidentKbOf(pid));
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
  std::vector<double> fast;
  std::thread timer([&] {
    std::mt19937_64 own(36);
    while (!done) {
      const double ms = TimedTableGet(http_port, own, std::chrono::milliseconds(30000));
      if (ms < 0) {
        ++f.fast_failed;
      } else {
        fast.push_back(ms);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  std::vector<double> grpc_times;
  std::thread grpc_timer([&] {
    if (grpc_address.empty()) return;
    auto stub = v1::Solver::NewStub(
        grpc::CreateChannel(grpc_address, grpc::InsecureChannelCredentials()));
    std::mt19937_64 own(37);
    while (!done) {
      v1::SolveRequest request;
      std::string board = RandomKnightBoard(own);
      board.replace(board.find("%2A"), 3, "*");
      request.mutable_puzzle()->mutable_knight()->set_board(board);
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
      v1::SolveResponse response;
      const auto asked = ProbeClock::now();
      if (stub->Solve(&context, request, &response).ok()) {
        grpc_times.push_back(MillisSince(asked));
      } else {
        ++f.grpc_failed;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  const auto started = ProbeClock::now();
  f.outcome = probe();
  f.seconds = MillisSince(started) / 1000;
  done = true;
  sampler.join();
  timer.join();
  grpc_timer.join();
  f.grpc_answers = static_cast<int>(grpc_times.size());
  std::sort(grpc_times.begin(), grpc_times.end());
  if (!grpc_times.empty()) {
    f.grpc_p50_ms = grpc_times[grpc_times.size() / 2];
    f.grpc_max_ms = grpc_times.back();
  }
  f.rss_peak_kb = peak;
  f.fast_answers = static_cast<int>(fast.size());
  std::sort(fast.begin(), fast.end());
  if (!fast.empty()) {
    f.fast_p50_ms = fast[fast.size() / 2];
    f.fast_max_ms = fast.back();
  }
  const auto settle_end = ProbeClock::now() + settle;
  f.rss_settled_kb = ResidentKbOf(pid);
  while (ProbeClock::now() < settle_end && f.rss_settled_kb > f.rss_start_kb + 32 * 1024) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    f.rss_settled_kb = ResidentKbOf(pid);
  }
  return f;
}

// Reads what the server sends on `fd` until it closes or `timeout` passes; `closed` says
// which.
inline std::string ReadUntilClosed(int fd, std::chrono::milliseconds timeout, bool* closed) {
  std::string got;
  char buffer[65536];
  const auto end = ProbeClock::now() + timeout;
  *closed = false;
  while (true) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(end - ProbeClock::now()).count();
    if (left <= 0) return got;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left)) <= 0) return got;
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) {
      *closed = true;
      return got;
    }
    got.append(buffer, static_cast<size_t>(n));
  }
}

inline bool SendAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// The status of the first HTTP answer in `reply`, or 0.
inline int StatusOf(const std::string& reply) {
  if (reply.size() < 12 || reply.rfind("HTTP/1.", 0) != 0) return 0;
  return std::atoi(reply.c_str() + 9);
}

// Finding 1: `connections` bodies of unclosed `[` (`{"requests":[` and then `[` to
// `bytes`), POST /v1/solve/batch, at once. Returns each one's status and time.
inline std::string JsonNestingProbe(int http_port, int connections, size_t bytes) {
  std::vector<std::string> results(static_cast<size_t>(connections));
  std::vector<std::thread> threads;
  for (int c = 0; c < connections; ++c) {
    threads.emplace_back([&, c] {
      std::string body = "{\"requests\":[";
      body.resize(bytes, '[');
      const auto started = ProbeClock::now();
      const int fd = ConnectLoopback(http_port);
      if (fd < 0) {
        results[static_cast<size_t>(c)] = "no connection";
        return;
      }
      const std::string head = "POST /v1/solve/batch HTTP/1.1\r\nHost: x\r\nContent-Type: "
                               "application/json\r\nContent-Length: " +
                               std::to_string(body.size()) + "\r\n\r\n";
      SendAll(fd, head);
      SendAll(fd, body);
      const std::string reply = Exchange(fd, "", std::chrono::milliseconds(60000));
      ::close(fd);
      const size_t message = reply.find("\"message\":");
      char text[64];
      std::snprintf(text, sizeof text, "%d in %.0f ms", StatusOf(reply), MillisSince(started));
      results[static_cast<size_t>(c)] =
          std::string(text) +
          (message != std::string::npos ? " (" + reply.substr(message + 11, 90) + "...)" : "");
    });
  }
  for (auto& t : threads) t.join();
  std::string out;
  for (const std::string& r : results) out += (out.empty() ? "" : "; ") + r;
  return out;
}

// A batch of `n` 8-puzzle requests (random boards) as one stream message.
inline v1::SolveRequest EightBatchMessage(int n, std::mt19937_64& rng) {
  v1::SolveRequest message;
  for (int i = 0; i < n; ++i) {
    std::string board = "012345678";
    std::shuffle(board.begin(), board.end(), rng);
    auto* request = message.mutable_batch()->add_requests();
    request->mutable_puzzle()->mutable_eight()->set_board(board);
    request->set_id(static_cast<uint64_t>(i));
  }
  return message;
}

// Finding 2: one SolveStream that sends batch messages of `batch` 8-puzzle requests and
// never reads; it stops at `messages`, or once a write has waited `stall` (the server
// stopped reading), and then cancels. Returns how many were written.
inline std::string StreamNeverReadsProbe(const std::string& address, int messages, int batch,
                                         std::chrono::milliseconds stall) {
  auto channel = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  auto stub = v1::Solver::NewStub(channel);
  grpc::ClientContext context;
  auto stream = stub->SolveStream(&context);
  std::mt19937_64 rng(2);
  const v1::SolveRequest message = EightBatchMessage(batch, rng);
  std::atomic<int> written{0};
  std::atomic<bool> finished{false};
  std::thread watchdog([&] {
    int last = -1;
    auto since = ProbeClock::now();
    while (!finished) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      if (written != last) {
        last = written;
        since = ProbeClock::now();
      } else if (ProbeClock::now() - since > stall) {
        context.TryCancel();
        return;
      }
    }
  });
  const auto started = ProbeClock::now();
  while (written < messages && stream->Write(message)) ++written;
  const double ms = MillisSince(started);
  finished = true;
  context.TryCancel();
  watchdog.join();
  stream->Finish();
  char text[160];
  std::snprintf(text, sizeof text,
                "%d of %d messages of %d requests (%zu bytes each) written in %.0f ms before the "
                "server stopped reading",
                written.load(), messages, batch, message.ByteSizeLong(), ms);
  return text;
}

// The knobs wiring of tests/golden/knobs_9001.in (a table of the default database): knob
// 1's targets for states 1..4, then knob 2's, ...
inline constexpr uint32_t kKnobs9001Wiring[48] = {10, 8,  12, 7, 4,  4,  8,  3,  5, 4,  7, 11,
                                                  7,  9,  9,  5, 3,  8,  2,  7,  11, 9, 1, 12,
                                                  4,  11, 1,  8, 10, 12, 9,  5,  1,  7, 6, 2,
                                                  12, 11, 4,  6, 9,  12, 12, 5,  5,  6, 1, 9};

// Finding 3: a SolveBatch of `n` random knobs states of that wiring (their optimal
// solutions number in the thousands and more), each asking for `list` of them, under
// `deadline`. Returns the status, the answer's size and how many listings were refused.
inline std::string LargeListingsProbe(const std::string& address, int n, uint32_t list,
                                      std::chrono::milliseconds deadline) {
  grpc::ChannelArguments arguments;
  arguments.SetMaxReceiveMessageSize(1 << 30);
  auto channel =
      grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), arguments);
  auto stub = v1::Solver::NewStub(channel);
  v1::SolveBatchRequest batch;
  std::mt19937_64 rng(3);
  for (int i = 0; i < n; ++i) {
    auto* request = batch.add_requests();
    auto* knobs = request->mutable_puzzle()->mutable_knobs();
    for (int k = 0; k < 12; ++k) knobs->add_positions(1 + static_cast<uint32_t>(rng() % 4));
    for (uint32_t t : kKnobs9001Wiring) knobs->add_wiring(t);
    request->set_max_solutions(list);
    request->set_id(static_cast<uint64_t>(i));
  }
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + deadline);
  v1::SolveBatchResponse response;
  const auto started = ProbeClock::now();
  const grpc::Status status = stub->SolveBatch(&context, batch, &response);
  const double ms = MillisSince(started);
  int listed = 0, refused = 0;
  for (const auto& r : response.responses()) {
    if (r.solutions_size() > 0) ++listed;
    if (r.has_error() && r.error().code() == v1::Error::RESOURCE_EXHAUSTED) ++refused;
  }
  char text[256];
  std::snprintf(text, sizeof text,
                "%s after %.0f ms: %zu-byte request, %zu-byte answer; %d answers listed "
                "solutions, %d listings refused",
                status.ok() ? "OK" : ("code " + std::to_string(status.error_code())).c_str(), ms,
                batch.ByteSizeLong(), response.ByteSizeLong(), listed, refused);
  return text;
}

// HTTP/2 as a client writes it, by hand (RFC 9113): enough for the rapid-reset probe.
namespace h2 {

inline std::string Frame(uint8_t type, uint8_t flags, uint32_t stream, std::string_view payload) {
  std::string f;
  const uint32_t n = static_cast<uint32_t>(payload.size());
  f.push_back(static_cast<char>(n >> 16));
  f.push_back(static_cast<char>(n >> 8));
  f.push_back(static_cast<char>(n));
  f.push_back(static_cast<char>(type));
  f.push_back(static_cast<char>(flags));
  f.push_back(static_cast<char>((stream >> 24) & 0x7f));
  f.push_back(static_cast<char>(stream >> 16));
  f.push_back(static_cast<char>(stream >> 8));
  f.push_back(static_cast<char>(stream));
  f.append(payload);
  return f;
}

// An HPACK string literal, not Huffman-coded (lengths under 127 here).
inline std::string Literal(std::string_view s) {
  return std::string(1, static_cast<char>(s.size())) + std::string(s);
}

// The request headers of a gRPC call to `path`: :method POST and :scheme http from the
// static table, the rest literal without indexing.
inline std::string GrpcHeaders(std::string_view path) {
  std::string h;
  h.push_back(static_cast<char>(0x83));  // :method POST
  h.push_back(static_cast<char>(0x86));  // :scheme http
  h.push_back(0x04);                     // :path, literal value
  h += Literal(path);
  h.push_back(0x01);  // :authority
  h += Literal("localhost");
  h.push_back(0x0f);  // content-type (index 31: 15 + 16)
  h.push_back(0x10);
  h += Literal("application/grpc");
  h.push_back(0x00);  // te: trailers, both literal
  h += Literal("te");
  h += Literal("trailers");
  return h;
}

// A gRPC message: not compressed, its length, the bytes.
inline std::string GrpcMessage(std::string_view bytes) {
  std::string m(5, '\0');
  const uint32_t n = static_cast<uint32_t>(bytes.size());
  m[1] = static_cast<char>(n >> 24);
  m[2] = static_cast<char>(n >> 16);
  m[3] = static_cast<char>(n >> 8);
  m[4] = static_cast<char>(n);
  m.append(bytes);
  return m;
}

constexpr std::string_view kPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

// An HPACK integer (RFC 7541 5.1): `first` holds the bits above the prefix.
inline std::string Integer(uint8_t first, int prefix_bits, size_t value) {
  const size_t limit = (size_t{1} << prefix_bits) - 1;
  std::string out;
  if (value < limit) {
    out.push_back(static_cast<char>(first | value));
    return out;
  }
  out.push_back(static_cast<char>(first | limit));
  value -= limit;
  while (value >= 128) {
    out.push_back(static_cast<char>(0x80 | (value & 0x7f)));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
  return out;
}

// A header field literal without indexing, its name new (RFC 7541 6.2.2), of any length.
inline std::string LiteralField(std::string_view name, std::string_view value) {
  return std::string(1, '\0') + Integer(0, 7, name.size()) + std::string(name) +
         Integer(0, 7, value.size()) + std::string(value);
}

// What a raw connection saw from the server: frames by type, and whether it closed.
struct Seen {
  int goaway = 0, rst_stream = 0, headers = 0, settings = 0;
  bool closed = false;
  std::string bytes;  // not yet parsed into frames
};

// Reads what is there (non-blocking) into `seen`, counting whole frames.
inline void ReadFrames(int fd, Seen* seen) {
  char buffer[65536];
  while (true) {
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, MSG_DONTWAIT);
    if (n == 0) seen->closed = true;
    if (n <= 0) break;
    seen->bytes.append(buffer, static_cast<size_t>(n));
  }
  size_t at = 0;
  while (at + 9 <= seen->bytes.size()) {
    const std::string& b = seen->bytes;
    const uint32_t n = static_cast<uint8_t>(b[at]) << 16 | static_cast<uint8_t>(b[at + 1]) << 8 |
                       static_cast<uint8_t>(b[at + 2]);
    if (at + 9 + n > b.size()) break;
    switch (b[at + 3]) {
      case 1: ++seen->headers; break;
      case 3: ++seen->rst_stream; break;
      case 4: ++seen->settings; break;
      case 7: ++seen->goaway; break;
      default: break;
    }
    at += 9 + n;
  }
  seen->bytes.erase(0, at);
}

// Sends `bytes` on a non-blocking `fd`, reading what comes meanwhile, until sent, the
// server closes, or `until`. False if not all was sent.
inline bool SendReading(int fd, std::string_view bytes, Seen* seen, ProbeClock::time_point until) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      bytes.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
      seen->closed = true;
      return false;
    }
    ReadFrames(fd, seen);
    if (seen->closed || ProbeClock::now() > until) return false;
    pollfd p{fd, POLLOUT | POLLIN, 0};
    ::poll(&p, 1, 20);
  }
  ReadFrames(fd, seen);
  return true;
}


// Reads frames from `fd` (non-blocking) until a PING ACK; false on a close or a timeout.
inline bool AwaitPingAck(int fd, std::chrono::milliseconds timeout) {
  const auto end = ProbeClock::now() + timeout;
  std::string got;
  char buffer[65536];
  size_t at = 0;
  while (ProbeClock::now() < end) {
    while (at + 9 <= got.size()) {
      const uint32_t n = static_cast<uint8_t>(got[at]) << 16 | static_cast<uint8_t>(got[at + 1]) << 8 |
                         static_cast<uint8_t>(got[at + 2]);
      if (at + 9 + n > got.size()) break;
      if (got[at + 3] == 6 && (got[at + 4] & 1) != 0) return true;
      at += 9 + n;
    }
    got.erase(0, at);
    at = 0;
    pollfd p{fd, POLLIN, 0};
    ::poll(&p, 1, 100);
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n == 0) return false;
    if (n > 0) got.append(buffer, static_cast<size_t>(n));
  }
  return false;
}

// Waits up to 20 ms for bytes on a non-blocking `fd`, appends what is there to `*got`, and
// hands each whole frame in it to `each` (type, flags, stream, payload), leaving a part
// frame in `*got`. Sets `*closed` when the peer has closed (or reset) the connection.
inline void ReadWholeFrames(
    int fd, std::string* got, bool* closed,
    const std::function<void(uint8_t, uint8_t, uint32_t, std::string_view)>& each) {
  pollfd p{fd, POLLIN, 0};
  ::poll(&p, 1, 20);
  char buffer[65536];
  while (true) {
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) *closed = true;
    if (n <= 0) break;
    got->append(buffer, static_cast<size_t>(n));
  }
  size_t at = 0;
  while (at + 9 <= got->size()) {
    const auto* b = reinterpret_cast<const uint8_t*>(got->data() + at);
    const uint32_t len = uint32_t{b[0]} << 16 | uint32_t{b[1]} << 8 | b[2];
    if (at + 9 + len > got->size()) break;
    each(b[3], b[4],
         (uint32_t{b[5]} << 24 | uint32_t{b[6]} << 16 | uint32_t{b[7]} << 8 | b[8]) & 0x7fffffff,
         std::string_view(got->data() + at + 9, len));
    at += 9 + len;
  }
  got->erase(0, at);
}

// The header blocks a server sends on one connection, decoded in order (the decoder's table
// follows the server's encoder): the streams that had one, and the calls' grpc-status
// counted.
class Statuses {
 public:
  Statuses() { nghttp2_hd_inflate_new(&hpack_); }
  ~Statuses() { nghttp2_hd_inflate_del(hpack_); }
  Statuses(const Statuses&) = delete;
  Statuses& operator=(const Statuses&) = delete;

  // One whole frame as ReadWholeFrames hands it (HEADERS without CONTINUATION only).
  void Frame(uint8_t type, uint32_t stream, std::string_view payload) {
    if (type != 1 || broken) return;
    heard.insert(stream);
    const auto* in = reinterpret_cast<const uint8_t*>(payload.data());
    size_t left = payload.size();
    std::string status;
    while (true) {
      nghttp2_nv field;
      int inflated = 0;
      const ssize_t used = nghttp2_hd_inflate_hd2(hpack_, &field, &inflated, in, left, 1);
      if (used < 0) {
        broken = true;
        return;
      }
      in += used;
      left -= static_cast<size_t>(used);
      if ((inflated & NGHTTP2_HD_INFLATE_EMIT) != 0 &&
          std::string_view(reinterpret_cast<const char*>(field.name), field.namelen) == "grpc-status") {
        status.assign(reinterpret_cast<const char*>(field.value), field.valuelen);
      }
      if ((inflated & NGHTTP2_HD_INFLATE_FINAL) != 0) {
        nghttp2_hd_inflate_end_headers(hpack_);
        break;
      }
      if ((inflated & NGHTTP2_HD_INFLATE_EMIT) == 0 && left == 0) break;
    }
    if (!status.empty()) ++ended[status];
  }
  // "K ended: S=count ..." by grpc-status.
  std::string Ended() const {
    int total = 0;
    std::string by_status;
    for (const auto& [status, count] : ended) {
      total += count;
      by_status += " " + status + "=" + std::to_string(count);
    }
    return std::to_string(total) + " ended:" + by_status +
           (broken ? "; headers that do not decode" : "");
  }

  std::set<uint32_t> heard;
  std::map<std::string, int> ended;  // by grpc-status
  bool broken = false;

 private:
  nghttp2_hd_inflater* hpack_ = nullptr;
};

}  // namespace h2

// Finding 4: HTTP/2 rapid reset: on each of `connections` connections, `streams` calls of
// Solve, each HEADERS and DATA (a whole request) and then RST_STREAM (CANCEL), written in
// bursts while what the server sends is read and dropped. Returns the streams sent.
inline std::string RapidResetProbe(int grpc_port, int connections, int streams) {
  v1::SolveRequest request;
  request.mutable_puzzle()->mutable_knight()->set_board("111111111111*000000000000");
  const std::string data = h2::GrpcMessage(request.SerializeAsString());
  const std::string headers = h2::GrpcHeaders("/puzzledb.v1.Solver/Solve");
  std::atomic<long> sent{0};
  std::atomic<int> cut{0};
  std::vector<std::thread> threads;
  for (int c = 0; c < connections; ++c) {
    threads.emplace_back([&] {
      const int fd = ConnectLoopback(grpc_port);
      if (fd < 0) return;
      ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
      auto drain = [&] {
        char buffer[65536];
        while (::recv(fd, buffer, sizeof buffer, 0) > 0) {
        }
      };
      // Sends all of `bytes`, draining meanwhile; false if the server closed.
      auto send = [&](std::string_view bytes) {
        const auto end = ProbeClock::now() + std::chrono::seconds(10);
        while (!bytes.empty()) {
          const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
          if (n > 0) {
            bytes.remove_prefix(static_cast<size_t>(n));
            continue;
          }
          if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return false;
          if (ProbeClock::now() > end) return false;
          drain();
          pollfd p{fd, POLLOUT | POLLIN, 0};
          ::poll(&p, 1, 50);
        }
        return true;
      };
      std::string start(h2::kPreface);
      start += h2::Frame(4, 0, 0, "");    // SETTINGS, defaults
      start += h2::Frame(4, 0x1, 0, "");  // and the ACK of the server's, as a client sends it
      bool open = send(start);
      // Bursts of 50 calls, each burst's resets written after it: the calls reach the
      // server (and its handlers) before their resets do.
      std::string burst, resets;
      long in_burst = 0;
      for (int s = 0; open && s < streams; ++s) {
        const uint32_t id = 1 + 2 * static_cast<uint32_t>(s);
        burst += h2::Frame(1, 0x4, id, headers);  // HEADERS, END_HEADERS
        burst += h2::Frame(0, 0x1, id, data);     // DATA, END_STREAM
        resets += h2::Frame(3, 0, id, std::string("\0\0\0\x08", 4));  // RST_STREAM, CANCEL
        ++in_burst;
        if (in_burst == 50 || s + 1 == streams) {
          open = send(burst) && send(resets);
          if (open) sent += in_burst;
          burst.clear();
          resets.clear();
          in_burst = 0;
          drain();
        }
      }
      // A PING last: its ACK comes once the server has read everything before it.
      if (open) open = send(h2::Frame(6, 0, 0, std::string(8, 'p')));
      if (open && !h2::AwaitPingAck(fd, std::chrono::seconds(60))) open = false;
      if (!open) ++cut;
      ::close(fd);
    });
  }
  for (auto& t : threads) t.join();
  char text[200];
  std::snprintf(text, sizeof text,
                "%ld of %d x %d streams of HEADERS + DATA + RST_STREAM sent; %d connections "
                "closed by the server before the end",
                sent.load(), connections, streams, cut.load());
  return text;
}

// Runs `each(c, fd)` for each connection c of `connections` at once, a thread each, with a
// new loopback connection to `port` (fd -1 where none could be made, closed after), and
// waits for them all.
inline void OnConnections(int port, int connections, const std::function<void(int, int)>& each) {
  std::vector<std::thread> threads;
  for (int c = 0; c < connections; ++c) {
    threads.emplace_back([&, c] {
      const int fd = ConnectLoopback(port);
      each(c, fd);
      if (fd >= 0) ::close(fd);
    });
  }
  for (auto& t : threads) t.join();
}

// Issue 49, finding 1: a CONTINUATION flood. On each of `connections` connections: the
// preface and SETTINGS (the server's never acknowledged, as the attack sent them), one
// HEADERS frame of a Solve call without END_HEADERS, then up to `frames` CONTINUATION
// frames of one 16,000-byte literal header each, none of them ending the block. A
// connection stops at the server's GOAWAY, RST_STREAM or close, or after 30 s. Returns,
// summed over the connections: frames sent, and how the server ended them and how soon.
inline std::string ContinuationFloodProbe(int grpc_port, int connections, int frames) {
  const std::string padding(16000 - 16, 'p');
  struct Result {
    int sent = 0;
    h2::Seen seen;
    double ended_ms = -1;  // from the first CONTINUATION to what ended it
  };
  std::vector<Result> results(static_cast<size_t>(connections));
  OnConnections(grpc_port, connections, [&](int c, int fd) {
    Result& r = results[static_cast<size_t>(c)];
    if (fd < 0) {
      r.seen.closed = true;
      return;
    }
    const auto until = ProbeClock::now() + std::chrono::seconds(30);
    std::string start(h2::kPreface);
    start += h2::Frame(4, 0, 0, "");
    start += h2::Frame(1, 0, 1, h2::GrpcHeaders("/puzzledb.v1.Solver/Solve"));  // no END_HEADERS
    h2::SendReading(fd, start, &r.seen, until);
    const auto started = ProbeClock::now();
    for (int i = 0; i < frames; ++i) {
      const std::string field = h2::LiteralField("x-pad-" + std::to_string(i % 1000), padding);
      if (!h2::SendReading(fd, h2::Frame(9, 0, 1, field), &r.seen, until)) break;
      ++r.sent;
      if (r.seen.goaway > 0 || r.seen.rst_stream > 0) break;
    }
    // What the server says after the last frame: up to a second more.
    const auto wait_end = std::min(until, ProbeClock::now() + std::chrono::seconds(1));
    while (r.seen.goaway == 0 && r.seen.rst_stream == 0 && !r.seen.closed &&
           ProbeClock::now() < wait_end) {
      pollfd p{fd, POLLIN, 0};
      ::poll(&p, 1, 20);
      h2::ReadFrames(fd, &r.seen);
    }
    if (r.seen.goaway > 0 || r.seen.rst_stream > 0 || r.seen.closed) {
      r.ended_ms = MillisSince(started);
    }
  });
  long sent = 0;
  int goaway = 0, reset = 0, closed = 0, open = 0;
  double slowest = 0;
  for (const Result& r : results) {
    sent += r.sent;
    goaway += r.seen.goaway > 0;
    reset += r.seen.rst_stream > 0;
    closed += r.seen.closed;
    open += r.ended_ms < 0;
    slowest = std::max(slowest, r.ended_ms);
  }
  char text[300];
  std::snprintf(text, sizeof text,
                "%ld CONTINUATION frames (%.0f MB) sent on %d connections; %d got GOAWAY, %d "
                "RST_STREAM, %d closed, %d never ended; the last ended %.0f ms after its first "
                "CONTINUATION",
                sent, sent * 16000.0 / 1e6, connections, goaway, reset, closed, open, slowest);
  return text;
}

// Issue 49, finding 1 too: one Solve call whose header block is whole but `bytes` long (as
// one HEADERS frame and CONTINUATION frames of 16,000 bytes). Returns what the server
// answered: "answered" (HEADERS back and no RST_STREAM), "RST_STREAM", "GOAWAY" or
// "closed".
inline std::string LargeHeaderBlockProbe(int grpc_port, size_t bytes) {
  const int fd = ConnectLoopback(grpc_port);
  if (fd < 0) return "no connection";
  const auto until = ProbeClock::now() + std::chrono::seconds(10);
  h2::Seen seen;
  v1::SolveRequest request;
  request.mutable_puzzle()->mutable_knight()->set_board("111111111111*000000000000");
  std::string block = h2::GrpcHeaders("/puzzledb.v1.Solver/Solve");
  for (int i = 0; block.size() < bytes; ++i) {
    block += h2::LiteralField("x-pad-" + std::to_string(i), std::string(1000, 'p'));
  }
  std::string out(h2::kPreface);
  out += h2::Frame(4, 0, 0, "");  // the server's SETTINGS never acknowledged, as the attack
  for (size_t at = 0; at < block.size(); at += 16000) {
    const bool last = at + 16000 >= block.size();
    out += h2::Frame(at == 0 ? 1 : 9, last ? 0x4 : 0, 1, std::string_view(block).substr(at, 16000));
  }
  out += h2::Frame(0, 0x1, 1, h2::GrpcMessage(request.SerializeAsString()));
  h2::SendReading(fd, out, &seen, until);
  while (seen.goaway == 0 && seen.rst_stream == 0 && seen.headers < 2 && !seen.closed &&
         ProbeClock::now() < until) {
    pollfd p{fd, POLLIN, 0};
    ::poll(&p, 1, 20);
    h2::ReadFrames(fd, &seen);
  }
  ::close(fd);
  return seen.goaway > 0        ? "GOAWAY"
         : seen.rst_stream > 0  ? "RST_STREAM"
         : seen.headers > 0     ? "answered"
         : seen.closed          ? "closed"
                                : "nothing within 10 s";
}

// Issue 64: what ended a raw connection that opened (preface, SETTINGS and the ACK of the
// server's) and then sent `bytes`: "GOAWAY code=N <its debug text>", "closed without
// GOAWAY" or "nothing within N s".
inline std::string GoawayAfter(int grpc_port, std::string_view bytes,
                               std::chrono::seconds wait = std::chrono::seconds(5)) {
  const int fd = ConnectLoopback(grpc_port);
  if (fd < 0) return "no connection";
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  std::string out(h2::kPreface);
  out += h2::Frame(4, 0, 0, "");
  out += h2::Frame(4, 0x1, 0, "");
  out += bytes;
  const auto until = ProbeClock::now() + wait;
  // Sent without reading (what comes is read after, the GOAWAY's payload kept); a server
  // that closes meanwhile ends the sending.
  for (std::string_view rest = out; !rest.empty() && ProbeClock::now() < until;) {
    const ssize_t n = ::send(fd, rest.data(), rest.size(), MSG_NOSIGNAL);
    if (n > 0) {
      rest.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) break;
    pollfd p{fd, POLLOUT, 0};
    ::poll(&p, 1, 20);
  }
  std::string got, goaway;
  bool closed = false;
  while (goaway.empty() && !closed && ProbeClock::now() < until) {
    h2::ReadWholeFrames(fd, &got, &closed,
                        [&](uint8_t type, uint8_t, uint32_t, std::string_view payload) {
                          if (type == 7) goaway = std::string(payload);
                        });
  }
  ::close(fd);
  if (goaway.size() >= 8) {
    const auto code = static_cast<uint8_t>(goaway[4]) << 24 | static_cast<uint8_t>(goaway[5]) << 16 |
                      static_cast<uint8_t>(goaway[6]) << 8 | static_cast<uint8_t>(goaway[7]);
    return "GOAWAY code=" + std::to_string(code) + " " + goaway.substr(8);
  }
  return closed ? "closed without GOAWAY"
                : "nothing within " + std::to_string(wait.count()) + " s";
}

// Issue 64, D3: on one connection never read from, up to `calls` calls, each its HEADERS and
// a DATA frame whose message is flagged 2 (neither plain nor compressed), for at most 10 s;
// each is refused by the port, which answers it and resets it towards gRPC. Then reads what
// came. Returns the calls sent and whether a GOAWAY came.
inline std::string RefusedMessagesProbe(int grpc_port, int calls) {
  const int fd = ConnectLoopback(grpc_port);
  if (fd < 0) return "no connection";
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  const std::string headers = h2::GrpcHeaders("/puzzledb.v1.Solver/Solve");
  const std::string message("\x02\0\0\0\x04\0\0\0\0", 9);
  std::string out(h2::kPreface);
  out += h2::Frame(4, 0, 0, "");
  out += h2::Frame(4, 0x1, 0, "");
  const auto until = ProbeClock::now() + std::chrono::seconds(10);
  int sent = 0;
  bool failed = false;
  std::string pending = out;
  for (int c = 0; c < calls && !failed && ProbeClock::now() < until;) {
    // Batches of 100 calls, written without reading.
    for (int i = 0; i < 100 && c < calls; ++i, ++c) {
      const uint32_t id = 1 + 2 * static_cast<uint32_t>(c);
      pending += h2::Frame(1, 0x4, id, headers) + h2::Frame(0, 0x1, id, message);
    }
    std::string_view rest = pending;
    while (!rest.empty()) {
      const ssize_t n = ::send(fd, rest.data(), rest.size(), MSG_NOSIGNAL);
      if (n > 0) {
        rest.remove_prefix(static_cast<size_t>(n));
        continue;
      }
      if ((n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) || ProbeClock::now() > until) {
        failed = true;
        break;
      }
      pollfd p{fd, POLLOUT, 0};
      ::poll(&p, 1, 50);
    }
    if (!failed) sent = c;
    pending.clear();
  }
  h2::Seen seen;
  const auto read_until = ProbeClock::now() + std::chrono::seconds(5);
  while (seen.goaway == 0 && !seen.closed && ProbeClock::now() < read_until) {
    pollfd p{fd, POLLIN, 0};
    ::poll(&p, 1, 20);
    h2::ReadFrames(fd, &seen);
  }
  ::close(fd);
  char text[200];
  std::snprintf(text, sizeof text, "%d of %d refused calls sent; %s", sent, calls,
                seen.goaway > 0 ? "GOAWAY" : seen.closed ? "closed without GOAWAY" : "no GOAWAY");
  return text;
}

// Issue 64, D4: on each of `connections` connections, `pings` PINGs written in one go (17
// bytes each), nothing read until they are sent. Returns how many connections were ended by
// a GOAWAY.
inline std::string PingFloodProbe(int grpc_port, int connections, int pings) {
  std::atomic<int> goaway{0}, closed{0};
  std::vector<std::thread> threads;
  for (int c = 0; c < connections; ++c) {
    threads.emplace_back([&] {
      std::string flood;
      for (int i = 0; i < pings; ++i) flood += h2::Frame(6, 0, 0, "pingpong");
      const std::string outcome = GoawayAfter(grpc_port, flood, std::chrono::seconds(10));
      if (outcome.rfind("GOAWAY", 0) == 0) ++goaway;
      if (outcome.rfind("closed", 0) == 0) ++closed;
    });
  }
  for (auto& t : threads) t.join();
  char text[200];
  std::snprintf(text, sizeof text, "%d connections x %d PINGs; %d ended by GOAWAY, %d closed without",
                connections, pings, goaway.load(), closed.load());
  return text;
}

// The knobs' sample 9001 (10 moves from the goal), listing up to 10,000 of its optimal
// solutions: an answer of about 0.3 MB serialized, 7 MB in memory.
inline v1::SolveRequest Knobs9001Listing() {
  v1::SolveRequest request;
  auto* knobs = request.mutable_puzzle()->mutable_knobs();
  for (uint32_t p : {1, 3, 3, 1, 3, 1, 3, 3, 3, 1, 4, 2}) knobs->add_positions(p);
  for (uint32_t t : kKnobs9001Wiring) knobs->add_wiring(t);
  request.set_max_solutions(10000);
  return request;
}

// Issue 64, D1: one connection that sets SETTINGS_INITIAL_WINDOW_SIZE to 0 (gRPC may send
// no answer's DATA), then `calls` unary Solves of Knobs9001Listing, one after the other: each sent once the
// one before has its header block back (which no window holds back), so that the search
// pool takes them all. Then keeps the connection for `hold`. Returns how the calls ended:
// "N calls sent; H answered (headers, their messages held back); K ended: S=count ..." by
// grpc-status.
inline std::string WindowZeroProbe(int grpc_port, int calls, std::chrono::milliseconds hold) {
  const int fd = ConnectLoopback(grpc_port);
  if (fd < 0) return "no connection";
  v1::SolveRequest request = Knobs9001Listing();
  const std::string message = h2::GrpcMessage(request.SerializeAsString());
  const std::string headers = h2::GrpcHeaders("/puzzledb.v1.Solver/Solve");
  std::string opening(h2::kPreface);
  opening += h2::Frame(4, 0, 0, std::string("\0\x04\0\0\0\0", 6));  // INITIAL_WINDOW_SIZE 0
  opening += h2::Frame(4, 0x1, 0, "");
  SendAll(fd, opening);
  h2::Statuses statuses;
  std::string got;
  bool closed = false;
  auto headers_of = [&](uint8_t type, uint8_t, uint32_t stream, std::string_view payload) {
    statuses.Frame(type, stream, payload);
  };
  // Reads what is there for up to `wait`, or until `stream` has a header block back.
  auto read = [&](std::chrono::milliseconds wait, uint32_t stream) {
    for (const auto until = ProbeClock::now() + wait;
         ProbeClock::now() < until && !statuses.broken && !closed &&
         statuses.heard.count(stream) == 0;) {
      h2::ReadWholeFrames(fd, &got, &closed, headers_of);
    }
  };
  int sent = 0;
  for (int c = 0; c < calls && !statuses.broken && !closed; ++c, ++sent) {
    const uint32_t id = 1 + 2 * static_cast<uint32_t>(c);
    SendAll(fd, h2::Frame(1, 0x4, id, headers) + h2::Frame(0, 0x1, id, message));
    read(std::chrono::seconds(30), id);
  }
  read(hold, 0);
  ::close(fd);
  return std::to_string(sent) + " calls sent; " + std::to_string(statuses.heard.size()) +
         " answered (headers); " + statuses.Ended() + (closed ? "; closed" : "");
}

// Issue 64, D5: a header block of `fields` fields besides a call's own (named x000, x001, ...,
// values empty: about 16 KiB decoded for 444, the most per byte that gRPC keeps).
inline std::string ManyFieldsHeaders(std::string_view path, int fields) {
  std::string h = h2::GrpcHeaders(path);
  for (int i = 0; i < fields; ++i) {
    char name[16];
    std::snprintf(name, sizeof name, "x%03d", i);
    h += h2::LiteralField(name, "");
  }
  return h;
}

// Issue 64, D5: on each of `connections` connections, `calls` Solve calls opened with
// ManyFieldsHeaders(`fields`) and never finished (no DATA, no END_STREAM), read meanwhile,
// and kept open for `hold`, and longer (up to a minute more) until the server has answered a
// PING sent after the calls: gRPC answers it once it has read every call before it, and the
// port's own answers to those calls go out before (a slow server's refusals all counted).
// Returns the calls sent and how the server answered them.
inline std::string OpenCallsProbe(int grpc_port, int connections, int calls, int fields,
                                  std::chrono::milliseconds hold) {
  const std::string headers = ManyFieldsHeaders("/puzzledb.v1.Solver/Solve", fields);
  struct Result {
    int sent = 0, resets = 0, goaways = 0;
    bool closed = false;
    std::map<std::string, int> ended;
  };
  std::vector<Result> results(static_cast<size_t>(connections));
  OnConnections(grpc_port, connections, [&](int c, int fd) {
    Result& r = results[static_cast<size_t>(c)];
    if (fd < 0) {
      r.closed = true;
      return;
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    h2::Statuses statuses;
    std::string got;
    bool pinged = false;
    auto each = [&](uint8_t type, uint8_t flags, uint32_t stream, std::string_view payload) {
      if (type == 6 && (flags & 1) != 0) pinged = true;
      if (type == 3) ++r.resets;
      if (type == 7) ++r.goaways;
      statuses.Frame(type, stream, payload);
    };
    const auto until = ProbeClock::now() + hold;
    std::string out(h2::kPreface);
    out += h2::Frame(4, 0, 0, "");
    out += h2::Frame(4, 0x1, 0, "");
    h2::Seen unused;
    h2::SendReading(fd, out, &unused, until);
    // Sends `frame` whole, reading what comes meanwhile; false if it could not by `by`.
    auto send = [&](const std::string& frame, ProbeClock::time_point by) {
      std::string_view rest = frame;
      while (!rest.empty() && !r.closed && ProbeClock::now() < by) {
        const ssize_t n = ::send(fd, rest.data(), rest.size(), MSG_NOSIGNAL);
        if (n > 0) {
          rest.remove_prefix(static_cast<size_t>(n));
        } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
          r.closed = true;
        } else {
          h2::ReadWholeFrames(fd, &got, &r.closed, each);
        }
      }
      return rest.empty();
    };
    for (int i = 0; i < calls && !r.closed && r.goaways == 0; ++i) {
      const uint32_t id = 1 + 2 * static_cast<uint32_t>(i);
      if (!send(h2::Frame(1, 0x4, id, headers), until + std::chrono::minutes(1))) break;
      ++r.sent;
    }
    send(h2::Frame(6, 0, 0, "after..."), until + std::chrono::minutes(1));
    for (auto now = ProbeClock::now();
         !r.closed && (now < until || (!pinged && now < until + std::chrono::minutes(1)));
         now = ProbeClock::now()) {
      h2::ReadWholeFrames(fd, &got, &r.closed, each);
    }
    r.ended = statuses.ended;
  });
  int sent = 0, resets = 0, goaways = 0, closed = 0;
  std::map<std::string, int> ended;
  for (const Result& r : results) {
    sent += r.sent;
    resets += r.resets;
    goaways += r.goaways;
    closed += r.closed;
    for (const auto& [status, count] : r.ended) ended[status] += count;
  }
  std::string by_status;
  for (const auto& [status, count] : ended) by_status += " " + status + "=" + std::to_string(count);
  char text[300];
  std::snprintf(text, sizeof text,
                "%d calls of %d fields opened on %d connections; ended by grpc-status:%s; %d "
                "RST_STREAM, %d GOAWAY, %d closed",
                sent, fields, connections, by_status.empty() ? " none" : by_status.c_str(), resets,
                goaways, closed);
  return text;
}

// Issue 64, D2: one connection that sets SETTINGS_INITIAL_WINDOW_SIZE to 0, then `streams`
// SolveStreams, each sent `requests` requests listing up to 10,000 optimal solutions of the
// knobs' sample 9001 (in one DATA frame, the stream left open), and kept for `hold`, and
// longer (up to a minute more) until every stream has its response headers back: the server
// answers, and can write none of it. Returns the streams opened and how many had their
// response headers back.
inline std::string StreamsWindowZeroProbe(int grpc_port, int streams, int requests,
                                          std::chrono::milliseconds hold) {
  const int fd = ConnectLoopback(grpc_port);
  if (fd < 0) return "no connection";
  v1::SolveRequest request = Knobs9001Listing();
  std::string messages;
  for (int r = 0; r < requests; ++r) {
    request.set_id(static_cast<uint64_t>(r));
    messages += h2::GrpcMessage(request.SerializeAsString());
  }
  const std::string headers = h2::GrpcHeaders("/puzzledb.v1.Solver/SolveStream");
  std::string out(h2::kPreface);
  out += h2::Frame(4, 0, 0, std::string("\0\x04\0\0\0\0", 6));  // INITIAL_WINDOW_SIZE 0
  out += h2::Frame(4, 0x1, 0, "");
  for (int s = 0; s < streams; ++s) {
    const uint32_t id = 1 + 2 * static_cast<uint32_t>(s);
    out += h2::Frame(1, 0x4, id, headers);
    for (size_t at = 0; at < messages.size(); at += 16000) {
      out += h2::Frame(0, 0, id, std::string_view(messages).substr(at, 16000));
    }
  }
  SendAll(fd, out);
  std::set<uint32_t> heard;
  std::string got;
  bool closed = false;
  const auto held = ProbeClock::now() + hold, latest = held + std::chrono::seconds(60);
  while (!closed && ProbeClock::now() < latest &&
         (ProbeClock::now() < held || heard.size() < static_cast<size_t>(streams))) {
    h2::ReadWholeFrames(fd, &got, &closed,
                        [&](uint8_t type, uint8_t, uint32_t stream, std::string_view) {
                          if (type == 1) heard.insert(stream);
                        });
  }
  ::close(fd);
  return std::to_string(streams) + " streams of " + std::to_string(requests) +
         " listings sent; " + std::to_string(heard.size()) + " with headers back" +
         (closed ? "; closed" : "");
}

// How an idle connection opens before it falls silent.
enum class Opening { kHalfPreface, kPreface, kSettings };

// Issue 49, finding 6: one Solve call whose message is flagged compressed (its first byte
// 1) but whose body is the plain request, on a call with `encoding` as its grpc-encoding
// ("" for none). Returns what ended the call: "grpc-status=N grpc-message=..." from the
// server's trailers (decoded with nghttp2's HPACK decoder), "RST_STREAM code=N", "GOAWAY"
// or "closed".
inline std::string CompressedFlagProbe(int grpc_port, std::string_view encoding) {
  const int fd = ConnectLoopback(grpc_port);
  if (fd < 0) return "no connection";
  v1::SolveRequest request;
  request.mutable_puzzle()->mutable_knight()->set_board("111111111111*000000000000");
  std::string message = h2::GrpcMessage(request.SerializeAsString());
  message[0] = 1;  // compressed, says the flag
  std::string headers = h2::GrpcHeaders("/puzzledb.v1.Solver/Solve");
  if (!encoding.empty()) headers += h2::LiteralField("grpc-encoding", encoding);
  std::string out(h2::kPreface);
  out += h2::Frame(4, 0, 0, "");
  out += h2::Frame(4, 0x1, 0, "");
  out += h2::Frame(1, 0x4, 1, headers);
  out += h2::Frame(0, 0x1, 1, message);
  const auto until = ProbeClock::now() + std::chrono::seconds(10);
  SendAll(fd, out);  // small enough for the socket's buffer: nothing of the answer read yet
  // Reads the server's frames whole, decoding every header block in order.
  nghttp2_hd_inflater* hpack = nullptr;
  nghttp2_hd_inflate_new(&hpack);
  std::string got, result;
  char buffer[65536];
  while (result.empty() && ProbeClock::now() < until) {
    size_t at = 0;
    while (result.empty() && at + 9 <= got.size()) {
      const auto* b = reinterpret_cast<const uint8_t*>(got.data() + at);
      const uint32_t n = uint32_t{b[0]} << 16 | uint32_t{b[1]} << 8 | b[2];
      if (at + 9 + n > got.size()) break;
      const uint8_t type = b[3], flags = b[4];
      std::string_view payload(got.data() + at + 9, n);
      if (type == 1) {  // HEADERS (no padding or priority from gRPC)
        std::string status, text;
        const auto* in = reinterpret_cast<const uint8_t*>(payload.data());
        size_t left = payload.size();
        while (true) {
          nghttp2_nv field;
          int inflated = 0;
          const ssize_t used = nghttp2_hd_inflate_hd2(hpack, &field, &inflated, in, left, 1);
          if (used < 0) return "the server's headers do not decode";
          in += used;
          left -= static_cast<size_t>(used);
          if ((inflated & NGHTTP2_HD_INFLATE_EMIT) != 0) {
            const std::string name(reinterpret_cast<const char*>(field.name), field.namelen);
            const std::string value(reinterpret_cast<const char*>(field.value), field.valuelen);
            if (name == "grpc-status") status = value;
            if (name == "grpc-message") text = value;
          }
          if ((inflated & NGHTTP2_HD_INFLATE_FINAL) != 0) {
            nghttp2_hd_inflate_end_headers(hpack);
            break;
          }
          if ((inflated & NGHTTP2_HD_INFLATE_EMIT) == 0 && left == 0) break;
        }
        if ((flags & 0x1) != 0) result = "grpc-status=" + status + " grpc-message=" + text;
      } else if (type == 3 && n == 4) {
        result = "RST_STREAM code=" + std::to_string(static_cast<uint8_t>(payload[3]));
      } else if (type == 7) {
        result = "GOAWAY";
      }
      at += 9 + n;
    }
    got.erase(0, at);
    if (!result.empty()) break;
    pollfd p{fd, POLLIN, 0};
    ::poll(&p, 1, 50);
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, MSG_DONTWAIT);
    if (n == 0) {
      result = "closed";
      break;
    }
    if (n > 0) got.append(buffer, static_cast<size_t>(n));
  }
  nghttp2_hd_inflate_del(hpack);
  ::close(fd);
  return result.empty() ? "nothing within 10 s" : result;
}

// Issue 49, finding 2: `connections` connections that send half the preface, the preface,
// or the preface and SETTINGS (with the ACK of the server's, as a client that then makes
// no call), and nothing else; held for `hold`. Returns how many the server closed, and
// when the first and the last of those closes came, with the server's descriptors at the
// start and at their peak.
inline std::string IdleConnectionsProbe(int grpc_port, pid_t pid, int connections,
                                        Opening opening, std::chrono::milliseconds hold) {
  auto descriptors = [pid] {
    std::error_code error;
    long n = 0;
    for (auto it = std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", error);
         !error && it != std::filesystem::directory_iterator(); it.increment(error)) {
      ++n;
    }
    return n;
  };
  const long fds_start = descriptors();
  long fds_peak = fds_start;
  std::vector<int> fds;
  std::string preface(h2::kPreface);
  if (opening == Opening::kHalfPreface) preface.resize(preface.size() / 2);
  if (opening == Opening::kSettings) preface += h2::Frame(4, 0, 0, "") + h2::Frame(4, 0x1, 0, "");
  const auto started = ProbeClock::now();
  int refused = 0;
  for (int i = 0; i < connections; ++i) {
    const int fd = ConnectLoopback(grpc_port);
    if (fd < 0) {
      ++refused;
      continue;
    }
    ::send(fd, preface.data(), preface.size(), MSG_NOSIGNAL);
    fds.push_back(fd);
  }
  const double opened_ms = MillisSince(started);
  std::vector<double> closed_at(fds.size(), -1);
  size_t closed = 0;
  const auto end = started + hold;
  std::vector<pollfd> polls;
  for (int fd : fds) polls.push_back({fd, POLLIN, 0});
  while (ProbeClock::now() < end && closed < fds.size()) {
    fds_peak = std::max(fds_peak, descriptors());
    ::poll(polls.data(), polls.size(), 200);
    for (size_t i = 0; i < polls.size(); ++i) {
      if (closed_at[i] >= 0 || (polls[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      char buffer[4096];
      ssize_t n;
      while ((n = ::recv(polls[i].fd, buffer, sizeof buffer, MSG_DONTWAIT)) > 0) {
      }
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
        closed_at[i] = MillisSince(started);
        polls[i].fd = -1;  // no more polling of it
        ++closed;
      }
    }
  }
  for (int fd : fds) ::close(fd);
  double first = -1, last = -1;
  for (double t : closed_at) {
    if (t < 0) continue;
    first = first < 0 ? t : std::min(first, t);
    last = std::max(last, t);
  }
  char text[300];
  std::snprintf(text, sizeof text,
                "%zu connections that sent %s (%d refused) opened in %.0f ms; %zu "
                "closed by the server within %.0f s (first at %.1f s, last at %.1f s); server "
                "descriptors %ld at start, peak %ld",
                fds.size(),
                opening == Opening::kHalfPreface ? "half a preface"
                : opening == Opening::kPreface   ? "the preface"
                                                 : "the preface and SETTINGS",
                refused, opened_ms, closed,
                std::chrono::duration<double>(hold).count(), first / 1000, last / 1000, fds_start,
                fds_peak);
  return text;
}

// Finding 5: a request whose Transfer-Encoding does not end in chunked, with a second
// request as its "body". Returns the statuses of the answers and whether the connection was
// closed.
inline std::string SmugglingProbe(int http_port, std::string_view coding) {
  const int fd = ConnectLoopback(http_port);
  if (fd < 0) return "no connection";
  const std::string smuggled = "GET /v1/tables HTTP/1.1\r\nHost: x\r\n\r\n";
  const std::string request = "POST /v1/parse HTTP/1.1\r\nHost: x\r\nContent-Type: "
                              "application/json\r\nTransfer-Encoding: " +
                              std::string(coding) + "\r\n\r\n" + smuggled;
  SendAll(fd, request);
  bool closed = false;
  const std::string reply = ReadUntilClosed(fd, std::chrono::milliseconds(3000), &closed);
  ::close(fd);
  std::string statuses;
  for (size_t at = reply.find("HTTP/1.1 "); at != std::string::npos;
       at = reply.find("HTTP/1.1 ", at + 1)) {
    statuses += (statuses.empty() ? "" : ",") + reply.substr(at + 9, 3);
  }
  return statuses + (closed ? " closed" : " open");
}

// Finding 6: raw messages on one SolveStream (the generic stub sends bytes as they are):
// returns the answers read and the stream's final status, "answers=N status=CODE: message".
inline std::string RawStream(const std::string& address, const std::vector<std::string>& messages) {
  auto channel = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  grpc::GenericStub stub(channel);
  grpc::CompletionQueue cq;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  auto call = stub.PrepareCall(&context, "/puzzledb.v1.Solver/SolveStream", &cq);
  void* tag = nullptr;
  bool ok = false;
  auto wait = [&](intptr_t want) {
    cq.Next(&tag, &ok);
    return reinterpret_cast<intptr_t>(tag) == want && ok;
  };
  call->StartCall(reinterpret_cast<void*>(1));
  wait(1);
  for (const std::string& m : messages) {
    grpc::Slice slice(m);
    grpc::ByteBuffer buffer(&slice, 1);
    call->Write(buffer, reinterpret_cast<void*>(2));
    if (!wait(2)) break;
  }
  call->WritesDone(reinterpret_cast<void*>(3));
  wait(3);
  int answers = 0;
  while (true) {
    grpc::ByteBuffer answer;
    call->Read(&answer, reinterpret_cast<void*>(4));
    if (!wait(4)) break;
    ++answers;
  }
  grpc::Status status;
  call->Finish(&status, reinterpret_cast<void*>(5));
  wait(5);
  cq.Shutdown();
  while (cq.Next(&tag, &ok)) {
  }
  return "answers=" + std::to_string(answers) + " status=" + std::to_string(status.error_code()) +
         ": " + status.error_message();
}

// Unary Solve calls whose board is not UTF-8 (the generic stub sends the bytes as they
// are); returns how many were refused (gRPC 1.51 answers a unary request that does not
// parse with UNIMPLEMENTED).
inline int InvalidUtf8Calls(const std::string& address, int calls) {
  auto channel = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  grpc::GenericStub stub(channel);
  // SolveRequest{puzzle: {knight: {board: "\xff\xfe"}}}, by hand: field 1 (Puzzle), field 1
  // (KnightBoard), field 1 (string).
  const std::string bytes("\x0a\x06\x0a\x04\x0a\x02\xff\xfe", 8);
  int refused = 0;
  grpc::CompletionQueue cq;
  for (int i = 0; i < calls; ++i) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    grpc::Slice slice(bytes);
    grpc::ByteBuffer request(&slice, 1);
    grpc::ByteBuffer response;
    auto call = stub.PrepareUnaryCall(&context, "/puzzledb.v1.Solver/Solve", request, &cq);
    call->StartCall();
    grpc::Status status;
    call->Finish(&response, &status, reinterpret_cast<void*>(1));
    void* tag = nullptr;
    bool ok = false;
    cq.Next(&tag, &ok);
    if (!status.ok()) ++refused;
  }
  cq.Shutdown();
  void* tag = nullptr;
  bool ok = false;
  while (cq.Next(&tag, &ok)) {
  }
  return refused;
}

}  // namespace puzzledb::testing

#endif  // PUZZLEDB_TESTS_MEMORY_PROBES_H_
