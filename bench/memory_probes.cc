// The probes of tests/memory_probes.h against a running server, with the figures printed:
// its memory at the start, at the peak and settled after each, and its table answers over
// HTTP meanwhile. Any server binary: bench/memory_probes.sh starts one (or two, before and
// after a change) and runs this.
//   memory_probes GRPC_PORT HTTP_PORT PID [PROBE...]
// PROBE: json, stream, listings, batch, reset, continuation, idle, smuggle, badstream,
// window, streams, refused, pings, open, forbidden (default: all).
#include <cstdlib>
#include <set>
#include <string>

#include "tests/memory_probes.h"

int main(int argc, char** argv) {
  using namespace puzzledb::testing;
  if (argc < 4) {
    std::fprintf(stderr, "usage: memory_probes GRPC_PORT HTTP_PORT PID [PROBE...]\n");
    return 2;
  }
  const int grpc_port = std::atoi(argv[1]);
  const int http_port = std::atoi(argv[2]);
  const pid_t pid = std::atoi(argv[3]);
  const std::string address = "127.0.0.1:" + std::to_string(grpc_port);
  std::set<std::string> wanted(argv + 4, argv + argc);
  auto want = [&](const std::string& name) { return wanted.empty() || wanted.count(name) > 0; };
  RaiseDescriptorLimit();
  const auto settle = std::chrono::milliseconds(8000);
  if (want("json")) {
    PrintProbe(Observe("json nesting", http_port, pid,
                       [&] { return JsonNestingProbe(http_port, 2, 4 << 20); }));
  }
  if (want("stream")) {
    PrintProbe(Observe("stream never read", http_port, pid, [&] {
      return StreamNeverReadsProbe(address, 600, 10000, std::chrono::milliseconds(3000));
    }));
  }
  if (want("listings")) {
    PrintProbe(Observe("40 listings", http_port, pid, [&] {
      return LargeListingsProbe(address, 40, 10000, std::chrono::seconds(60));
    }));
  }
  if (want("batch")) {
    PrintProbe(Observe("10,000 listings", http_port, pid, [&] {
      return LargeListingsProbe(address, 10000, 10000, std::chrono::seconds(10));
    }));
  }
  if (want("reset")) {
    PrintProbe(Observe(
        "rapid reset", http_port, pid, [&] { return RapidResetProbe(grpc_port, 11, 20000); },
        settle, address));
  }
  if (want("continuation")) {
    PrintProbe(Observe(
        "CONTINUATION, 1 conn", http_port, pid,
        [&] { return ContinuationFloodProbe(grpc_port, 1, 20000); }, settle, address));
    PrintProbe(Observe(
        "CONTINUATION, 6 conns", http_port, pid,
        [&] { return ContinuationFloodProbe(grpc_port, 6, 20000); }, settle, address));
    std::printf("a whole 200 KB header block: %s\n",
                LargeHeaderBlockProbe(grpc_port, 200 << 10).c_str());
  }
  if (want("compressed")) {
    for (const char* encoding : {"", "identity", "gzip"}) {
      std::printf("a message flagged compressed, grpc-encoding '%s': %s\n", encoding,
                  CompressedFlagProbe(grpc_port, encoding).c_str());
    }
  }
  if (want("idle")) {
    const std::pair<const char*, Opening> openings[] = {
        {"5,000 half prefaces", Opening::kHalfPreface},
        {"5,000 prefaces", Opening::kPreface},
        {"5,000 idle after SETTINGS", Opening::kSettings}};
    for (const auto& [name, opening] : openings) {
      PrintProbe(Observe(
          name, http_port, pid,
          [&] {
            return IdleConnectionsProbe(grpc_port, pid, 5000, opening, std::chrono::seconds(40));
          },
          settle, address));
    }
  }
  if (want("smuggle")) {
    for (const char* coding : {"gzip", "identity", "chunked, identity", "xchunked"}) {
      std::printf("smuggling, Transfer-Encoding: %-18s answers %s\n", coding,
                  SmugglingProbe(http_port, coding).c_str());
    }
  }
  if (want("window")) {
    PrintProbe(Observe(
        "D1 answers never sent", http_port, pid,
        [&] { return WindowZeroProbe(grpc_port, 56, std::chrono::seconds(4)); }, settle, address));
  }
  if (want("streams")) {
    PrintProbe(Observe(
        "D2 streams never sent", http_port, pid,
        [&] { return StreamsWindowZeroProbe(grpc_port, 20, 20, std::chrono::seconds(6)); },
        settle, address));
  }
  if (want("refused")) {
    PrintProbe(Observe(
        "D3 refused calls", http_port, pid, [&] { return RefusedMessagesProbe(grpc_port, 180000); },
        settle, address));
  }
  if (want("pings")) {
    PrintProbe(Observe(
        "D4 PING flood", http_port, pid, [&] { return PingFloodProbe(grpc_port, 20, 20000); },
        settle, address));
  }
  if (want("open")) {
    PrintProbe(Observe(
        "D5 calls never finished", http_port, pid,
        [&] { return OpenCallsProbe(grpc_port, 60, 99, 444, std::chrono::seconds(6)); }, settle,
        address));
    PrintProbe(Observe(
        "calls never finished, a call's own headers", http_port, pid,
        [&] { return OpenCallsProbe(grpc_port, 60, 99, 0, std::chrono::seconds(6)); }, settle,
        address));
  }
  if (want("forbidden")) {
    const std::string call = h2::GrpcHeaders("/puzzledb.v1.Solver/Solve");
    const std::pair<const char*, std::string> frames[] = {
        {"padded HEADERS", h2::Frame(1, 0xc, 1, std::string(1, '\x04') + call + std::string(4, '\0'))},
        {"HEADERS on stream 2", h2::Frame(1, 0x4, 2, call)},
        {"PUSH_PROMISE", h2::Frame(5, 0x4, 0, std::string("\0\0\0\x02", 4) + call)},
        {"SETTINGS of 5 bytes", h2::Frame(4, 0, 0, "12345")},
        {"a window past 2^31-1", h2::Frame(8, 0, 0, std::string("\x7f\xff\xff\xff", 4))}};
    for (const auto& [name, bytes] : frames) {
      std::printf("%-22s %s\n", name, GoawayAfter(grpc_port, bytes).c_str());
    }
  }
  if (want("badstream")) {
    puzzledb::v1::SolveRequest good;
    good.mutable_puzzle()->mutable_eight()->set_board("123456780");
    const std::string bytes = good.SerializeAsString();
    std::printf("stream with a bad message second: %s\n",
                RawStream(address, {bytes, std::string("\xff\xff\xff", 3), bytes}).c_str());
    const auto started = ProbeClock::now();
    const int refused = InvalidUtf8Calls(address, 5000);
    std::printf("5000 unary calls with a board that is not UTF-8: %d refused in %.1f s\n",
                refused, MillisSince(started) / 1000);
  }
  return 0;
}
