// Raw HTTP/1.1 over loopback sockets, for tests that must see exactly what the server wrote
// (its headers, its bytes, when it closed), and the in-process server those tests start on a
// copy of the test database.
#ifndef PUZZLEDB_TESTS_RAW_HTTP_H_
#define PUZZLEDB_TESTS_RAW_HTTP_H_

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "gtest/gtest.h"
#include "server/server.h"
#include "tests/test_util.h"

namespace puzzledb::testing {

using namespace std::chrono_literals;

// A client connection that sends what it is told and reads answers byte by byte off the
// socket, so that a test sees exactly what the server wrote and when it closed.
class Raw {
 public:
  explicit Raw(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  }
  ~Raw() {
    if (fd_ >= 0) ::close(fd_);
  }
  bool connected() const { return connected_; }
  void Close() {
    ::close(fd_);
    fd_ = -1;
  }

  bool Send(const std::string& bytes) {
    return ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
           static_cast<ssize_t>(bytes.size());
  }

  // One whole answer (head, and Content-Length bytes of body; only the head for a HEAD
  // request's), or what came before the server closed or `timeout` passed.
  std::string Answer(std::chrono::milliseconds timeout = 30s, bool to_head = false) {
    const auto end = std::chrono::steady_clock::now() + timeout;
    while (true) {
      const size_t head = pending_.find("\r\n\r\n");
      if (head != std::string::npos) {
        size_t length = 0;
        const std::string lower = Lower(pending_.substr(0, head));
        if (const size_t at = lower.find("content-length: "); at != std::string::npos) {
          length = std::stoul(lower.substr(at + 16));
        }
        if (lower.rfind("http/1.1 304", 0) == 0 || to_head) length = 0;
        if (pending_.size() >= head + 4 + length) {
          std::string answer = pending_.substr(0, head + 4 + length);
          pending_.erase(0, head + 4 + length);
          return answer;
        }
      }
      if (!ReadSome(end)) {
        std::string partial = std::move(pending_);
        pending_.clear();
        return partial;
      }
    }
  }

  // Whether the server closes the connection within `timeout` (what it sends before is
  // dropped).
  bool ClosedWithin(std::chrono::milliseconds timeout) {
    const auto end = std::chrono::steady_clock::now() + timeout;
    while (ReadSome(end)) pending_.clear();
    return closed_;
  }

 private:
  static std::string Lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  }
  // Appends what arrives before `end`; false once closed or timed out.
  bool ReadSome(std::chrono::steady_clock::time_point end) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        end - std::chrono::steady_clock::now());
    if (left <= 0ms) return false;
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
    char buffer[4096];
    const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
    if (n <= 0) {
      closed_ = true;
      return false;
    }
    pending_.append(buffer, static_cast<size_t>(n));
    return true;
  }

  int fd_ = -1;
  bool connected_ = false;
  bool closed_ = false;
  std::string pending_;
};

inline std::string Get(const std::string& target, const std::string& headers = "") {
  return "GET " + target + " HTTP/1.1\r\nHost: x\r\n" + headers + "\r\n";
}

inline int StatusOf(const std::string& answer) {
  if (answer.rfind("HTTP/1.", 0) != 0 || answer.size() < 12) return 0;
  return std::stoi(answer.substr(9, 3));
}

// The eight-puzzle board of the table's answer in the samples (docs/API.md).
constexpr char kEightAnswer[] = "/v1/solve?puzzle=eight&state=283104765";
// A knight board far from the goal, never answered by the table with policy=search_only:
// its search runs for longer than any test waits.
constexpr char kLongSearch[] =
    "/v1/solve?puzzle=knight&state=0000000000001%2A11111111111&policy=search_only";

// The value of header `name` (any case) in a raw answer, or "" when absent.
inline std::string HeaderOf(const std::string& answer, const std::string& name) {
  const size_t head = answer.find("\r\n\r\n");
  std::string lower_name;
  for (char c : name) lower_name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  size_t at = answer.find("\r\n");
  while (at != std::string::npos && at < head) {
    const size_t end = answer.find("\r\n", at + 2);
    const std::string line = answer.substr(at + 2, end - at - 2);
    const size_t colon = line.find(':');
    std::string key = line.substr(0, colon);
    for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (colon != std::string::npos && key == lower_name) {
      size_t from = colon + 1;
      while (from < line.size() && line[from] == ' ') ++from;
      return line.substr(from);
    }
    at = end;
  }
  return "";
}

// The body of a raw answer.
inline std::string BodyOf(const std::string& answer) {
  const size_t head = answer.find("\r\n\r\n");
  return head == std::string::npos ? "" : answer.substr(head + 4);
}

// A server in this process on a copy of the test database, HTTP on a free port; a suite
// derives from it and starts one per test with the options it needs.
class InProcessHttpTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    db_ = new std::string(TempPath("in_process_http_db"));
    std::filesystem::remove_all(*db_);
    std::filesystem::copy(PUZZLEDB_TEST_DB, *db_, std::filesystem::copy_options::recursive);
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*db_);
    delete db_;
    db_ = nullptr;
  }
  void TearDown() override {
    if (server_ != nullptr) server_->Shutdown(1000ms);
    server_.reset();
  }

  void Start(ServerOptions options, PuzzledbServer::Log log = nullptr) {
    options.db = *db_;
    options.listen = "127.0.0.1:0";
    options.http_listen = "127.0.0.1:0";
    options.build_missing_tables = false;
    auto started = PuzzledbServer::Start(options, std::move(log));
    ASSERT_TRUE(started.ok()) << started.status();
    server_ = std::move(*started);
  }
  int port() const { return server_->http_port(); }

  // One request on a new connection, its whole answer.
  std::string Ask(const std::string& request) {
    Raw client(port());
    EXPECT_TRUE(client.connected());
    if (!client.Send(request)) return "";
    return client.Answer(30s, request.rfind("HEAD ", 0) == 0);
  }

  static inline std::string* db_ = nullptr;
  std::unique_ptr<PuzzledbServer> server_;
};

}  // namespace puzzledb::testing

#endif  // PUZZLEDB_TESTS_RAW_HTTP_H_
