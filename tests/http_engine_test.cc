// The HTTP engine's rules for connections (docs/OPERATIONS.md, "HTTP"), in-process over raw
// sockets: the idle timeout, the deadlines of a request's head and body, the cap on open
// connections (the oldest idle one goes first), Connection: close, bodies over the limit
// refused from their Content-Length, pipelining, a client that hangs up cancelling its
// search, and /metrics on an address of its own.
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <mutex>
#include <vector>
#include <thread>

#include "gtest/gtest.h"
#include "server/server.h"
#include "tests/raw_http.h"
#include "tests/test_util.h"

namespace puzzledb {
namespace {

using testing::Get;
using testing::kEightAnswer;
using testing::kLongSearch;
using testing::Raw;
using testing::StatusOf;

using namespace std::chrono_literals;
namespace fs = std::filesystem;

class HttpEngineTest : public testing::InProcessHttpTest {
 protected:
  // Until the server counts `n` open HTTP connections (it counts them as it accepts them).
  bool WaitForConnections(size_t n) {
    for (int i = 0; i < 10000; ++i) {
      if (server_->http_connections() == n) return true;
      std::this_thread::sleep_for(1ms);
    }
    return false;
  }

  // Until /metrics holds `line` (a connection is counted closed when its last handler has
  // let go of it, a moment after its socket closed), for at most 10 s.
  bool WaitForMetric(const std::string& line) {
    for (int i = 0; i < 10000; ++i) {
      if (server_->MetricsText().find(line) != std::string::npos) return true;
      std::this_thread::sleep_for(1ms);
    }
    return false;
  }
};

TEST_F(HttpEngineTest, KeepAliveConnectionsAnswerManyRequestsAndCloseWhenIdle) {
  ServerOptions options;
  options.http_idle_timeout = 300ms;
  Start(options);
  Raw client(port());
  ASSERT_TRUE(client.connected());
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(client.Send(Get(kEightAnswer)));
    const std::string answer = client.Answer();
    EXPECT_EQ(StatusOf(answer), 200) << answer;
    EXPECT_NE(answer.find("\"distance\""), std::string::npos) << answer;
  }
  // Then nothing: the server closes it after the idle timeout (the bound here is not the
  // timeout's measure, only a limit on the wait).
  EXPECT_TRUE(client.ClosedWithin(20s));
  EXPECT_TRUE(WaitForMetric("puzzledb_http_connections_closed_total{reason=\"idle\"} 1"));
}

TEST_F(HttpEngineTest, AHeadThatDripsGets408AtItsDeadlineNotPerByte) {
  ServerOptions options;
  options.http_head_timeout = 500ms;
  Start(options);
  Raw slow(port());
  ASSERT_TRUE(slow.Send("GET /healthz HTTP/1.1\r\n"));
  // A byte every 50 ms for up to 20 s: a timeout per read (500 ms) would never end it.
  std::string answer;
  for (int i = 0; i < 400 && answer.empty(); ++i) {
    slow.Send("X");
    answer = slow.Answer(50ms);
  }
  EXPECT_EQ(StatusOf(answer), 408) << answer;
  EXPECT_NE(answer.find("\"code\":\"DEADLINE_EXCEEDED\""), std::string::npos) << answer;
  EXPECT_NE(answer.find("--http-head-timeout"), std::string::npos) << answer;
  EXPECT_TRUE(slow.ClosedWithin(20s));
}

TEST_F(HttpEngineTest, ABodyThatDoesNotComeGets408) {
  ServerOptions options;
  options.http_body_timeout = 300ms;
  Start(options);
  Raw slow(port());
  ASSERT_TRUE(slow.Send("POST /v1/solve HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                        "Content-Length: 100\r\n\r\n{\"puzzle\":"));
  const std::string answer = slow.Answer();
  EXPECT_EQ(StatusOf(answer), 408) << answer;
  EXPECT_NE(answer.find("--http-body-timeout"), std::string::npos) << answer;
  EXPECT_TRUE(slow.ClosedWithin(20s));
}

TEST_F(HttpEngineTest, BodiesOverTheLimitAreRefusedFromTheirContentLength) {
  Start(ServerOptions{});
  Raw big(port());
  // Only the head is sent: the answer cannot wait for the body.
  ASSERT_TRUE(big.Send("POST /v1/solve HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                       "Content-Length: 99999999999\r\n\r\n"));
  const std::string answer = big.Answer();
  EXPECT_EQ(StatusOf(answer), 413) << answer;
  EXPECT_NE(answer.find("\"code\":\"RESOURCE_EXHAUSTED\""), std::string::npos) << answer;
  EXPECT_NE(answer.find("--max-message-bytes"), std::string::npos) << answer;
  EXPECT_NE(answer.find("Connection: close"), std::string::npos) << answer;
  EXPECT_TRUE(big.ClosedWithin(20s));
}

// The engine's own refusals (a body over the limit, a head too large, not HTTP) are
// answered as every other answer: with the CORS headers of an allowed origin, so that the
// page that sent it can read why, an X-Request-Id, and a line in the access log.
TEST_F(HttpEngineTest, TheEnginesOwnRefusalsCarryCorsTheirIdAndALogLine) {
  ServerOptions options;
  options.http_cors_origins = {"http://page.test:8000"};
  options.http_access_log = true;
  auto lines = std::make_shared<std::vector<std::string>>();
  auto mutex = std::make_shared<std::mutex>();
  Start(options, [lines, mutex](std::string_view line) {
    std::lock_guard<std::mutex> lock(*mutex);
    lines->emplace_back(line);
  });
  Raw big(port());
  ASSERT_TRUE(big.Send("POST /v1/solve HTTP/1.1\r\nHost: x\r\nOrigin: http://page.test:8000\r\n"
                       "X-Request-Id: big-body-1\r\nContent-Type: application/json\r\n"
                       "Content-Length: 99999999999\r\n\r\n"));
  const std::string answer = big.Answer();
  EXPECT_EQ(StatusOf(answer), 413) << answer;
  EXPECT_NE(answer.find("Access-Control-Allow-Origin: http://page.test:8000\r\n"), std::string::npos)
      << answer;
  EXPECT_NE(answer.find("Access-Control-Expose-Headers: "), std::string::npos) << answer;
  EXPECT_NE(answer.find("X-Request-Id: big-body-1\r\n"), std::string::npos) << answer;
  // Another origin's refusal carries no CORS header.
  Raw stranger(port());
  ASSERT_TRUE(stranger.Send("POST /v1/solve HTTP/1.1\r\nHost: x\r\nOrigin: https://evil.test\r\n"
                            "Content-Type: application/json\r\nContent-Length: 99999999999\r\n\r\n"));
  const std::string refused = stranger.Answer();
  EXPECT_EQ(StatusOf(refused), 413) << refused;
  EXPECT_EQ(refused.find("Access-Control-Allow-Origin"), std::string::npos) << refused;
  // A head over the limit: read before its Origin could be trusted, still an id and a line.
  Raw huge(port());
  ASSERT_TRUE(huge.Send("GET /v1/tables HTTP/1.1\r\nHost: x\r\nX-Filler: " +
                        std::string(20000, 'a') + "\r\n\r\n"));
  const std::string too_large = huge.Answer();
  EXPECT_EQ(StatusOf(too_large), 431) << too_large;
  EXPECT_NE(too_large.find("X-Request-Id: "), std::string::npos) << too_large;
  std::lock_guard<std::mutex> lock(*mutex);
  std::string log;
  for (const std::string& line : *lines) log += line + "\n";
  EXPECT_NE(log.find("http POST '/v1/solve' 413 "), std::string::npos) << log;
  EXPECT_NE(log.find(" id=big-body-1"), std::string::npos) << log;
  EXPECT_NE(log.find(" 431 "), std::string::npos) << log;
}

// A client that asks `Expect: 100-continue` (curl, for a body over 1 MiB) gets "100
// Continue" as soon as the head is read and within the limit, and then its answer; over
// the limit it gets the 413 instead.
TEST_F(HttpEngineTest, ExpectContinueIsAnsweredBeforeTheBody) {
  Start(ServerOptions{});
  const std::string body = R"({"requests":[{"puzzle":{"eight":{"board":"283104765"}}}]})";
  Raw client(port());
  ASSERT_TRUE(client.Send("POST /v1/solve/batch HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                          "Expect: 100-continue\r\nContent-Length: " + std::to_string(body.size()) +
                          "\r\n\r\n"));
  const std::string interim = client.Answer(20s);
  EXPECT_EQ(interim.rfind("HTTP/1.1 100 Continue\r\n", 0), 0u) << interim;
  ASSERT_TRUE(client.Send(body));
  const std::string answer = client.Answer();
  EXPECT_EQ(StatusOf(answer), 200) << answer;
  EXPECT_NE(answer.find("\"distance\":4"), std::string::npos) << answer;
  // The connection goes on as usual.
  ASSERT_TRUE(client.Send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
  EXPECT_EQ(StatusOf(client.Answer()), 200);
  Raw big(port());
  ASSERT_TRUE(big.Send("POST /v1/solve HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                       "Expect: 100-continue\r\nContent-Length: 99999999\r\n\r\n"));
  const std::string refused = big.Answer();
  EXPECT_EQ(StatusOf(refused), 413) << refused;
}

TEST_F(HttpEngineTest, ConnectionCloseAndHttp10AreHonoured) {
  Start(ServerOptions{});
  {
    Raw client(port());
    ASSERT_TRUE(client.Send(Get("/healthz", "Connection: close\r\n")));
    const std::string answer = client.Answer();
    EXPECT_EQ(StatusOf(answer), 200) << answer;
    EXPECT_NE(answer.find("Connection: close"), std::string::npos) << answer;
    EXPECT_TRUE(client.ClosedWithin(20s));
  }
  {
    Raw client(port());
    ASSERT_TRUE(client.Send("GET /healthz HTTP/1.0\r\n\r\n"));
    EXPECT_EQ(StatusOf(client.Answer()), 200);
    EXPECT_TRUE(client.ClosedWithin(20s));
  }
  {  // HTTP/1.0 asking for keep-alive keeps it.
    Raw client(port());
    ASSERT_TRUE(client.Send("GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"));
    const std::string answer = client.Answer();
    EXPECT_NE(answer.find("Connection: keep-alive"), std::string::npos) << answer;
    ASSERT_TRUE(client.Send("GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"));
    EXPECT_EQ(StatusOf(client.Answer()), 200);
  }
}

TEST_F(HttpEngineTest, PipelinedRequestsAreAnsweredInOrder) {
  Start(ServerOptions{});
  Raw client(port());
  ASSERT_TRUE(client.Send(Get(kEightAnswer) + Get("/healthz") + Get("/nowhere")));
  EXPECT_NE(client.Answer().find("\"distance\""), std::string::npos);
  EXPECT_NE(client.Answer().find("SERVING"), std::string::npos);
  EXPECT_EQ(StatusOf(client.Answer()), 404);
  // A request that is not HTTP: 400, and the connection is not read past it.
  ASSERT_TRUE(client.Send("NOT HTTP AT ALL\r\n\r\n"));
  const std::string answer = client.Answer();
  EXPECT_EQ(StatusOf(answer), 400) << answer;
  EXPECT_TRUE(client.ClosedWithin(20s));
}

TEST_F(HttpEngineTest, OverTheCapTheOldestIdleConnectionMakesRoom) {
  ServerOptions options;
  options.http_max_connections = 3;
  Start(options);
  Raw oldest(port());
  ASSERT_TRUE(WaitForConnections(1));
  Raw second(port());
  ASSERT_TRUE(WaitForConnections(2));
  Raw third(port());
  ASSERT_TRUE(WaitForConnections(3));
  Raw newcomer(port());
  ASSERT_TRUE(newcomer.Send(Get("/healthz")));
  EXPECT_EQ(StatusOf(newcomer.Answer()), 200);
  EXPECT_TRUE(oldest.ClosedWithin(20s));
  ASSERT_TRUE(second.Send(Get("/healthz")));
  EXPECT_EQ(StatusOf(second.Answer()), 200);
  EXPECT_TRUE(WaitForMetric("puzzledb_http_connections_closed_total{reason=\"evicted\"} 1"));
}

TEST_F(HttpEngineTest, AClientThatHangsUpFreesItsSearchSlotAtOnce) {
  ServerOptions options;
  options.max_concurrent_searches = 1;
  options.search_queue = 0;
  options.default_search_deadline = 600s;  // the slot cannot come back by the deadline
  Start(options);
  {
    Raw leaving(port());
    ASSERT_TRUE(leaving.Send(Get(kLongSearch)));
    for (int i = 0; i < 30000 && server_->searches_running() == 0; ++i) {
      std::this_thread::sleep_for(1ms);
    }
    ASSERT_EQ(server_->searches_running(), 1);
  }  // hangs up
  const auto left = std::chrono::steady_clock::now();
  for (int i = 0; i < 30000 && server_->searches_running() != 0; ++i) {
    std::this_thread::sleep_for(1ms);
  }
  EXPECT_EQ(server_->searches_running(), 0);
  std::printf("the slot was free %.1f ms after the client hung up\n",
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - left)
                  .count());
  // The next search is admitted (not refused with 429) and runs to its own timeout.
  Raw next(port());
  ASSERT_TRUE(next.Send(Get(std::string(kLongSearch) + "&timeout_ms=200")));
  const std::string answer = next.Answer();
  EXPECT_EQ(StatusOf(answer), 504) << answer;
  EXPECT_TRUE(WaitForMetric("code=\"CANCELLED\""));
}

TEST_F(HttpEngineTest, MetricsCanLiveOnAnAddressOfTheirOwn) {
  ServerOptions options;
  options.metrics_listen = "127.0.0.1:0";
  Start(options);
  ASSERT_GT(server_->metrics_port(), 0);
  {
    Raw metrics(server_->metrics_port());
    ASSERT_TRUE(metrics.Send(Get("/metrics")));
    const std::string answer = metrics.Answer();
    EXPECT_EQ(StatusOf(answer), 200) << answer;
    EXPECT_NE(answer.find("puzzledb_http_connections_open"), std::string::npos);
    ASSERT_TRUE(metrics.Send(Get("/v1/tables")));
    EXPECT_EQ(StatusOf(metrics.Answer()), 404);
  }
  Raw api(port());
  ASSERT_TRUE(api.Send(Get("/metrics")));
  const std::string answer = api.Answer();
  EXPECT_EQ(StatusOf(answer), 404) << answer;
  ASSERT_TRUE(api.Send(Get("/v1/tables")));
  EXPECT_EQ(StatusOf(api.Answer()), 200);
}

TEST_F(HttpEngineTest, AnAddressInUseForMetricsIsAClearError) {
  // A port held by a listener of this test.
  const int holder = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(holder, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(::listen(holder, 1), 0);
  socklen_t length = sizeof address;
  ::getsockname(holder, reinterpret_cast<sockaddr*>(&address), &length);
  ServerOptions options;
  options.db = *db_;
  options.listen = "127.0.0.1:0";
  options.http_listen = "";
  options.metrics_listen = "127.0.0.1:" + std::to_string(ntohs(address.sin_port));
  options.build_missing_tables = false;
  auto server = PuzzledbServer::Start(options, nullptr);
  ::close(holder);
  ASSERT_FALSE(server.ok());
  EXPECT_EQ(server.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(server.status().message().find("--metrics-listen"), std::string::npos)
      << server.status();
  EXPECT_NE(server.status().message().find("in use"), std::string::npos) << server.status();
}

}  // namespace
}  // namespace puzzledb
