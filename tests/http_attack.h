// Idle and slowloris connections against a running HTTP server on loopback, with a real
// client's table answers timed while they are open (docs/PERFORMANCE.md, "HTTP on Beast,
// and under idle and slow connections"). Used by tests/http_attack_test.cc, which checks the figures, and
// by bench/http_attack.cc, which prints them for any server binary. Bounded in count and in
// time: every wait has a limit.
#ifndef PUZZLEDB_TESTS_HTTP_ATTACK_H_
#define PUZZLEDB_TESTS_HTTP_ATTACK_H_

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace puzzledb::testing {

struct AttackOptions {
  int port = 0;
  pid_t pid = 0;  // the server's, for its resident memory
  int idle = 1000;  // connections that send nothing
  int slow = 500;   // connections that send a request head one byte a second, never ending it
  int requests = 1000;  // the real client's, one after another on one keep-alive connection
  std::chrono::milliseconds request_timeout{5000};
  int give_up_after = 3;  // timed-out requests before the client stops trying
};

struct AttackReport {
  int idle_connected = 0;
  int slow_connected = 0;
  int answered = 0;  // 200 with an exact-looking answer
  int failed = 0;    // timed out, closed, or not 200
  double p50_ms = 0, p99_ms = 0, max_ms = 0;
  int healthz_status = 0;  // /healthz on a new connection while the attackers are open
  double healthz_ms = 0;
  long rss_before_kb = 0, rss_attacked_kb = 0, rss_after_kb = 0;
  int slow_closed_by_server = 0;  // during the run
  std::string first_failure;      // what the client got the first time it failed
};

inline long ResidentKbOf(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

// Enough descriptors for the attack and the client: the soft limit raised to the hard one.
inline void RaiseDescriptorLimit() {
  rlimit files{};
  if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    setrlimit(RLIMIT_NOFILE, &files);
  }
}

inline int ConnectLoopback(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  int yes = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
  return fd;
}

// Sends `request` on `fd` and reads one answer with a Content-Length body, within
// `timeout`. Returns the answer, or "" if it did not come whole.
inline std::string Exchange(int fd, const std::string& request, std::chrono::milliseconds timeout) {
  if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) !=
      static_cast<ssize_t>(request.size())) {
    return "";
  }
  const auto end = std::chrono::steady_clock::now() + timeout;
  std::string reply;
  char buffer[8192];
  while (true) {
    const size_t head = reply.find("\r\n\r\n");
    if (head != std::string::npos) {
      const size_t at = reply.find("Content-Length: ");
      if (at != std::string::npos && at < head &&
          reply.size() >= head + 4 + std::stoul(reply.substr(at + 16))) {
        return reply;
      }
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        end - std::chrono::steady_clock::now());
    if (left.count() <= 0) return "";
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return "";
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) return "";
    reply.append(buffer, static_cast<size_t>(n));
  }
}

// A random knight board (twelve of each colour and the empty cell), URL-ready.
inline std::string RandomKnightBoard(std::mt19937_64& rng) {
  std::string board = "111111111111000000000000*";
  std::shuffle(board.begin(), board.end(), rng);
  const size_t star = board.find('*');
  return board.substr(0, star) + "%2A" + board.substr(star + 1);
}

inline AttackReport RunAttack(const AttackOptions& options) {
  using Clock = std::chrono::steady_clock;
  RaiseDescriptorLimit();
  AttackReport report;
  std::mt19937_64 rng(2026);
  const int port = options.port;

  // Warm the server's path up, then take its memory as the baseline.
  {
    const int fd = ConnectLoopback(port);
    for (int i = 0; i < 200 && fd >= 0; ++i) {
      Exchange(fd, "GET /v1/solve?puzzle=knight&state=" + RandomKnightBoard(rng) +
                       " HTTP/1.1\r\nHost: x\r\n\r\n",
               options.request_timeout);
    }
    if (fd >= 0) ::close(fd);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  report.rss_before_kb = ResidentKbOf(options.pid);

  std::vector<int> idle, slow;
  for (int i = 0; i < options.idle; ++i) {
    const int fd = ConnectLoopback(port);
    if (fd >= 0) idle.push_back(fd);
  }
  for (int i = 0; i < options.slow; ++i) {
    const int fd = ConnectLoopback(port);
    if (fd < 0) continue;
    const std::string start = "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ";
    ::send(fd, start.data(), start.size(), MSG_NOSIGNAL);
    slow.push_back(fd);
  }
  report.idle_connected = static_cast<int>(idle.size());
  report.slow_connected = static_cast<int>(slow.size());

  // The slow ones grow their head by a byte a second until told to stop.
  std::atomic<bool> stop{false};
  std::atomic<int> slow_closed{0};
  std::thread dripper([&] {
    std::vector<bool> open(slow.size(), true);
    while (!stop) {
      for (size_t i = 0; i < slow.size(); ++i) {
        if (open[i] && ::send(slow[i], "a", 1, MSG_NOSIGNAL) != 1) {
          open[i] = false;
          ++slow_closed;
        }
      }
      for (int t = 0; t < 10 && !stop; ++t) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  report.rss_attacked_kb = ResidentKbOf(options.pid);

  // The real client: table answers one after another on one keep-alive connection.
  std::vector<double> latencies_ms;
  int fd = ConnectLoopback(port);
  int timeouts = 0;
  for (int i = 0; i < options.requests && timeouts < options.give_up_after; ++i) {
    if (fd < 0) fd = ConnectLoopback(port);
    const std::string request = "GET /v1/solve?puzzle=knight&state=" + RandomKnightBoard(rng) +
                                " HTTP/1.1\r\nHost: x\r\n\r\n";
    const auto started = Clock::now();
    const std::string reply = fd >= 0 ? Exchange(fd, request, options.request_timeout) : "";
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
    if (reply.rfind("HTTP/1.1 200", 0) == 0 && reply.find("\"outcome\":\"SOLVED\"") != std::string::npos) {
      ++report.answered;
      latencies_ms.push_back(ms);
    } else {
      if (report.failed == 0) {
        report.first_failure = "request " + std::to_string(i) + " after " + std::to_string(ms) +
                               " ms: " + (reply.empty() ? "(no answer)" : reply.substr(0, 300));
      }
      ++report.failed;
      if (reply.empty()) ++timeouts;
      if (fd >= 0) ::close(fd);
      fd = -1;
    }
  }
  if (fd >= 0) ::close(fd);
  {
    const auto started = Clock::now();
    const int health = ConnectLoopback(port);
    const std::string reply =
        health >= 0 ? Exchange(health, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
                               options.request_timeout)
                    : "";
    report.healthz_ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
    if (reply.size() > 12 && reply.rfind("HTTP/1.", 0) == 0) {
      report.healthz_status = std::stoi(reply.substr(9, 3));
    }
    if (health >= 0) ::close(health);
  }
  std::sort(latencies_ms.begin(), latencies_ms.end());
  if (!latencies_ms.empty()) {
    auto at = [&](double q) {
      return latencies_ms[std::min(latencies_ms.size() - 1,
                                   static_cast<size_t>(q * static_cast<double>(latencies_ms.size())))];
    };
    report.p50_ms = at(0.50);
    report.p99_ms = at(0.99);
    report.max_ms = latencies_ms.back();
  }

  stop = true;
  dripper.join();
  report.slow_closed_by_server = slow_closed.load();
  for (int f : idle) ::close(f);
  for (int f : slow) ::close(f);
  // Until the server has closed them all and its memory has settled (at most 5 s).
  report.rss_after_kb = ResidentKbOf(options.pid);
  for (int i = 0; i < 25; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const long now = ResidentKbOf(options.pid);
    if (i >= 4 && now == report.rss_after_kb) break;
    report.rss_after_kb = now;
  }
  return report;
}

inline void PrintAttackReport(const AttackOptions& options, const AttackReport& r) {
  std::printf(
      "attack: %d idle + %d slowloris connections open (of %d + %d); %d slowloris closed by the "
      "server meanwhile\n"
      "client: %d of %d table answers (%d failed), p50 %.2f ms, p99 %.2f ms, max %.2f ms\n"
      "/healthz: status %d in %.2f ms\n"
      "server memory: %ld kB before, %ld kB with the attackers open (%.1f kB a connection), "
      "%ld kB after they left\n",
      r.idle_connected, r.slow_connected, options.idle, options.slow, r.slow_closed_by_server,
      r.answered, options.requests, r.failed, r.p50_ms, r.p99_ms, r.max_ms, r.healthz_status,
      r.healthz_ms, r.rss_before_kb, r.rss_attacked_kb,
      static_cast<double>(r.rss_attacked_kb - r.rss_before_kb) /
          std::max(1, r.idle_connected + r.slow_connected),
      r.rss_after_kb);
  if (!r.first_failure.empty()) std::printf("first failure: %s\n", r.first_failure.c_str());
}

}  // namespace puzzledb::testing

#endif  // PUZZLEDB_TESTS_HTTP_ATTACK_H_
