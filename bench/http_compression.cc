// What compression saves and costs on real answers (docs/PERFORMANCE.md, "Compression"),
// against a running server's HTTP port over loopback:
//   1. each body fetched as it is, gzipped and in brotli (Accept-Encoding), rounds
//      alternating: the bytes on the wire and the median time from request to whole answer
//      (the server's encoding included);
//   2. the plain bodies encoded in this process at other levels (libdeflate's gzip, Google's
//      brotli): bytes and time, to show what the server's levels (gzip 4, brotli 4) trade.
//   http_compression PORT [ROUNDS]     (default 5)
// The bodies: the OpenAPI document, a batch of 1,000 and one of 10,000 random knight boards,
// /v1/tables and /metrics.
#include <brotli/encode.h>
#include <libdeflate.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "tests/http_attack.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Body {
  std::string name;
  std::string head;  // without the Accept-Encoding line and the blank line
  std::string payload;
};

Body BatchOf(const char* name, int boards, std::mt19937_64& rng) {
  std::string json = R"({"requests":[)";
  for (int i = 0; i < boards; ++i) {
    std::string board = puzzledb::testing::RandomKnightBoard(rng);
    const size_t star = board.find("%2A");  // the URL's escape, as a JSON string: '*'
    board = board.substr(0, star) + "*" + board.substr(star + 3);
    json += std::string(i ? "," : "") + R"({"puzzle":{"knight":{"board":")" + board + R"("}}})";
  }
  json += "]}";
  return {name,
          "POST /v1/solve/batch HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
          "Content-Length: " + std::to_string(json.size()) + "\r\n",
          json};
}

std::string Get(const std::string& target) { return "GET " + target + " HTTP/1.1\r\nHost: x\r\n"; }

// The body's bytes, and whether the answer was a 200 in the coding asked for.
size_t BodyBytes(const std::string& reply, const std::string& coding) {
  if (reply.compare(0, 12, "HTTP/1.1 200") != 0) return 0;
  const size_t head = reply.find("\r\n\r\n");
  const bool coded = reply.find("Content-Encoding: " + coding) < head;
  if (coding != "identity" && !coded) return 0;
  return reply.size() - head - 4;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    std::fprintf(stderr, "usage: http_compression PORT [ROUNDS]\n");
    return 2;
  }
  const int port = std::atoi(argv[1]);
  const int rounds = argc == 3 ? std::atoi(argv[2]) : 5;
  std::mt19937_64 rng(1);
  std::vector<Body> bodies = {{"openapi.json", Get("/v1/openapi.json"), ""},
                              BatchOf("batch of 1,000", 1000, rng),
                              BatchOf("batch of 10,000", 10000, rng),
                              {"/v1/tables", Get("/v1/tables"), ""},
                              {"/metrics", Get("/metrics"), ""}};
  const char* codings[] = {"identity", "gzip", "br"};
  const int fd = puzzledb::testing::ConnectLoopback(port);
  if (fd < 0) {
    std::fprintf(stderr, "cannot connect to 127.0.0.1:%d\n", port);
    return 1;
  }
  std::printf("%-16s %-9s %12s %8s %10s\n", "body", "coding", "bytes", "ratio", "median ms");
  std::vector<std::string> plain(bodies.size());
  for (size_t i = 0; i < bodies.size(); ++i) {
    size_t bytes[3] = {0, 0, 0};
    std::vector<double> ms[3];
    for (int r = 0; r < rounds; ++r) {
      for (int c = 0; c < 3; ++c) {
        const std::string request =
            bodies[i].head + "Accept-Encoding: " + codings[c] + "\r\n\r\n" + bodies[i].payload;
        const auto start = Clock::now();
        const std::string reply =
            puzzledb::testing::Exchange(fd, request, std::chrono::milliseconds(60000));
        ms[c].push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
        bytes[c] = BodyBytes(reply, codings[c]);
        if (bytes[c] == 0) {
          std::fprintf(stderr, "%s: no 200 in %s: %.300s\n", bodies[i].name.c_str(), codings[c],
                       reply.c_str());
          return 1;
        }
        if (c == 0) plain[i] = reply.substr(reply.find("\r\n\r\n") + 4);
      }
    }
    for (int c = 0; c < 3; ++c) {
      std::printf("%-16s %-9s %12zu %7.1fx %10.2f\n", bodies[i].name.c_str(), codings[c], bytes[c],
                  static_cast<double>(bytes[0]) / bytes[c], Median(ms[c]));
    }
  }
  ::close(fd);

  std::printf("\nin this process, the plain bodies (median of %d):\n", rounds);
  std::printf("%-16s %-10s %12s %8s %10s %10s\n", "body", "coding", "bytes", "ratio", "ms", "MB/s");
  for (size_t i = 0; i < bodies.size(); ++i) {
    const std::string& body = plain[i];
    auto report = [&](const char* what, auto&& encode) {
      std::vector<double> ms;
      size_t n = 0;
      for (int r = 0; r < rounds; ++r) {
        const auto start = Clock::now();
        n = encode();
        ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
      }
      const double median = Median(ms);
      std::printf("%-16s %-10s %12zu %7.1fx %10.2f %10.0f\n", bodies[i].name.c_str(), what, n,
                  static_cast<double>(body.size()) / n, median, body.size() / 1e3 / median);
    };
    std::string out(body.size() + 65536, '\0');
    for (int level : {1, 4, 6, 9}) {
      libdeflate_compressor* c = libdeflate_alloc_compressor(level);
      const std::string name = "gzip " + std::to_string(level);
      report(name.c_str(), [&] {
        return libdeflate_gzip_compress(c, body.data(), body.size(), out.data(), out.size());
      });
      libdeflate_free_compressor(c);
    }
    for (int quality : {1, 4, 5, 9}) {
      const std::string name = "br " + std::to_string(quality);
      report(name.c_str(), [&] {
        size_t n = out.size();
        BrotliEncoderCompress(quality, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_TEXT, body.size(),
                              reinterpret_cast<const uint8_t*>(body.data()), &n,
                              reinterpret_cast<uint8_t*>(out.data()));
        return n;
      });
    }
  }
  return 0;
}
