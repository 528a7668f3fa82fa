// One HTTP batch against single GETs (docs/PERFORMANCE.md, "Batches (issue 26)"): over one keep-alive
// connection to a running server, N random knight boards as N GET /v1/solve one after
// another, then as one POST /v1/solve/batch; rounds alternate, and every answer is
// checked to be a 200 with the number of answers expected.
//   http_batch PORT [BOARDS ROUNDS]     (defaults 10000 3)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "tests/http_attack.h"

namespace {

// Sends `request` and reads one whole answer (its head, then Content-Length bytes).
std::string Exchange(int fd, const std::string& request) {
  if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(request.size())) {
    return "";
  }
  std::string reply;
  size_t head = std::string::npos, want = 0;
  char buffer[1 << 16];
  while (head == std::string::npos || reply.size() < head + 4 + want) {
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) return "";
    const size_t before = reply.size();
    reply.append(buffer, static_cast<size_t>(n));
    if (head == std::string::npos) {
      head = reply.find("\r\n\r\n", before >= 3 ? before - 3 : 0);
      if (head != std::string::npos) {
        const size_t at = reply.find("Content-Length: ");
        if (at == std::string::npos || at > head) return "";
        want = std::stoul(reply.substr(at + 16));
      }
    }
  }
  return reply;
}

bool Ok(const std::string& reply) { return reply.compare(0, 12, "HTTP/1.1 200") == 0; }

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && argc != 4) {
    std::fprintf(stderr, "usage: http_batch PORT [BOARDS ROUNDS]\n");
    return 2;
  }
  const int port = std::atoi(argv[1]);
  const int boards = argc == 4 ? std::atoi(argv[2]) : 10000;
  const int rounds = argc == 4 ? std::atoi(argv[3]) : 3;
  std::mt19937_64 rng(26);
  std::vector<std::string> gets;
  std::string body = "{\"requests\":[";
  for (int i = 0; i < boards; ++i) {
    const std::string board = puzzledb::testing::RandomKnightBoard(rng);  // %2A for the *
    gets.push_back("GET /v1/solve?puzzle=knight&max_moves=0&state=" + board +
                   " HTTP/1.1\r\nHost: x\r\n\r\n");
    const size_t star = board.find("%2A");
    std::string plain = board.substr(0, star);
    plain.push_back('*');
    plain += board.substr(star + 3);
    if (i > 0) body += ',';
    body += "{\"puzzle\":{\"knight\":{\"board\":\"";
    body += plain;
    body += "\"}}}";
  }
  body += "]}";
  const std::string post = "POST /v1/solve/batch HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                           "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  const int fd = puzzledb::testing::ConnectLoopback(port);
  if (fd < 0) {
    std::fprintf(stderr, "http_batch: cannot connect to 127.0.0.1:%d\n", port);
    return 1;
  }
  std::printf("%d knight boards over one keep-alive connection, %d rounds\n", boards, rounds);
  std::vector<double> ratios;
  for (int r = 0; r < rounds; ++r) {
    auto start = std::chrono::steady_clock::now();
    for (const std::string& get : gets) {
      if (!Ok(Exchange(fd, get))) {
        std::fprintf(stderr, "http_batch: a GET failed\n");
        return 1;
      }
    }
    const double single = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    start = std::chrono::steady_clock::now();
    const std::string reply = Exchange(fd, post);
    const double batch = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!Ok(reply) || Count(reply, "\"outcome\":\"SOLVED\"") != static_cast<size_t>(boards)) {
      std::fprintf(stderr, "http_batch: the batch was not answered whole: %.300s\n", reply.c_str());
      return 1;
    }
    ratios.push_back(single / batch);
    std::printf("round %d: %d GETs %.3f s (%.0f/s), one batch POST %.3f s (%.0f/s, %zu bytes in, %zu out): %.1fx\n",
                r + 1, boards, single, boards / single, batch, boards / batch, body.size(), reply.size(),
                single / batch);
  }
  std::sort(ratios.begin(), ratios.end());
  std::printf("batch / single GETs: %.1fx to %.1fx\n", ratios.front(), ratios.back());
  return 0;
}
