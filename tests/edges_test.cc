// The server's edges, with the real binaries: bulk solves through the CLI (one stream),
// the drain on SIGTERM, one log line per event (gRPC's own messages included), request
// bytes that do not parse, an oversized request inside a stream, info on a damaged table.
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>
#include <thread>

#include "core/puzzles/rotation.h"
#include "core/util/strings.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "service/wire.h"
#include "puzzledb/client.h"
#include "puzzledb/v1/solver.grpc.pb.h"
#include "tests/server_process.h"
#include "tests/channel.h"
#include "tests/test_util.h"

namespace puzzledb {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using testing::RunCommand;

using testing::CopyOfTestDb;

Client ClientOf(const std::string& address) {
  ClientOptions options;
  options.target = address;
  options.timeout = 10000ms;
  options.max_attempts = 1;
  return Client(options);
}

// `count` rotation boards in POJ 2286's input format (eight of each value, shuffled).
std::string RotationCases(int count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string text;
  for (int i = 0; i < count; ++i) {
    std::vector<uint32_t> values;
    for (uint32_t k = 1; k <= 3; ++k) values.insert(values.end(), 8, k);
    std::shuffle(values.begin(), values.end(), rng);
    text += Join(values, " ") + "\n";
  }
  return text + "0\n";
}

TEST(EdgesTest, BulkSolvesThroughTheCliMatchTheInProcessAnswers) {
  const std::string db = CopyOfTestDb("edges_bulk_db");
  testing::ServerProcess server(PUZZLEDB_SERVER, db, {}, testing::TempPath("edges_bulk.log"));
  ASSERT_FALSE(server.address().empty()) << server.Log();
  // Three batches of 4,096 (the last one short): each is sent while the one before is
  // checked and printed.
  const std::string input = RotationCases(9000, 1);
  const auto local = RunCommand(std::string(PUZZLEDB_CLI) + " --db " + db +
                                    " solve --puzzle rotation", input);
  ASSERT_EQ(local.exit_code, 0) << local.err;
  const auto remote = RunCommand(std::string(PUZZLEDB_CLI) + " --server " + server.address() +
                                     " solve --puzzle rotation", input);
  ASSERT_EQ(remote.exit_code, 0) << remote.err;
  EXPECT_EQ(remote.out, local.out);  // the same answers, in case order
  EXPECT_EQ(std::count(remote.out.begin(), remote.out.end(), '\n'), 18000);
  // A bad case in the second batch: text mode prints the answers before it and stops there
  // naming it; JSON goes on past it. Case 5000 is the input's line 5000.
  std::string broken = input;
  size_t at = 0;
  for (int line = 1; line < 5000; ++line) at = broken.find('\n', at) + 1;
  broken.replace(at, broken.find('\n', at) - at, "1 2 3");
  const auto stopped = RunCommand(std::string(PUZZLEDB_CLI) + " --server " + server.address() +
                                      " solve --puzzle rotation", broken);
  EXPECT_EQ(stopped.exit_code, 2) << stopped.err;
  EXPECT_NE(stopped.err.find("case 5000"), std::string::npos) << stopped.err;
  EXPECT_EQ(stopped.out, local.out.substr(0, stopped.out.size()));
  EXPECT_EQ(std::count(stopped.out.begin(), stopped.out.end(), '\n'), 2 * 4999);
  const auto went_on = RunCommand(std::string(PUZZLEDB_CLI) + " --server " + server.address() +
                                      " solve --json --puzzle rotation", broken);
  EXPECT_EQ(went_on.exit_code, 2) << went_on.err;
  EXPECT_EQ(std::count(went_on.out.begin(), went_on.out.end(), '\n'), 9000);
  EXPECT_NE(went_on.out.find(R"({"id":"5000","error":)"), std::string::npos);
  EXPECT_NE(went_on.out.find(R"("id":"9000")"), std::string::npos);
  // In JSON, every answer carries its case number as id.
  const auto json = RunCommand(std::string(PUZZLEDB_CLI) + " --server " + server.address() +
                                   " solve --json --puzzle rotation", RotationCases(50, 2));
  ASSERT_EQ(json.exit_code, 0) << json.err;
  std::istringstream lines(json.out);
  std::string line;
  for (int id = 1; std::getline(lines, line); ++id) {
    EXPECT_NE(line.find("\"id\":\"" + std::to_string(id) + "\""), std::string::npos) << line;
  }
  // Analyze's JSON has its id too.
  const auto analyze = RunCommand(std::string(PUZZLEDB_CLI) + " --server " + server.address() +
                                      " analyze --json --puzzle rotation", RotationCases(2, 3));
  EXPECT_NE(analyze.out.find("\"id\":\"2\""), std::string::npos) << analyze.out;
  EXPECT_EQ(server.Stop(SIGTERM), 0);
  fs::remove_all(db);
}

TEST(EdgesTest, TheCliTimeoutHoldsForEveryCaseOfAStream) {
  // The server would let a search run for an hour; --timeout 1 must still end each case.
  const std::string db = CopyOfTestDb("edges_timeout_db");
  testing::ServerProcess server(PUZZLEDB_SERVER, db, {"--default-deadline", "3600"},
                                testing::TempPath("edges_timeout.log"));
  ASSERT_FALSE(server.address().empty()) << server.Log();
  std::string input = "6\n";
  for (int i = 0; i < 6; ++i) input += "01010\n0*000\n11000\n10101\n11111\n";  // 34 moves
  const auto result = RunCommand(std::string(PUZZLEDB_CLI) + " --server " + server.address() +
                                     " --timeout 1 solve --json --puzzle knight --max-moves 0 "
                                     "--policy search-only",
                                 input);
  EXPECT_EQ(result.exit_code, 1) << result.err;
  for (int id = 1; id <= 6; ++id) {
    EXPECT_NE(result.out.find("{\"id\":\"" + std::to_string(id) + "\",\"error\":\"case " +
                              std::to_string(id) + ": "),
              std::string::npos)
        << result.out;
  }
  EXPECT_NE(result.out.find("deadline"), std::string::npos) << result.out;
  EXPECT_EQ(server.Stop(SIGTERM), 0);
  fs::remove_all(db);
}

TEST(EdgesTest, SigtermDrainsHealthFirstThenStops) {
  const std::string db = CopyOfTestDb("edges_drain_db");
  testing::ServerProcess server(PUZZLEDB_SERVER, db, {"--drain", "3", "--grace", "1"},
                                testing::TempPath("edges_drain.log"));
  ASSERT_FALSE(server.address().empty()) << server.Log();
  Client client = ClientOf(server.address());
  ASSERT_TRUE(client.WaitUntilServing(10000ms).ok());
  auto channel = testing::ConnectedChannel(server.address());
  auto health = grpc::health::v1::Health::NewStub(channel);
  ASSERT_EQ(::kill(server.pid(), SIGTERM), 0);
  // Health turns NOT_SERVING ...
  bool not_serving = false;
  for (int i = 0; i < 3000 && !not_serving; ++i) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + 2s);
    grpc::health::v1::HealthCheckRequest request;
    request.set_service("puzzledb.v1.Solver");
    grpc::health::v1::HealthCheckResponse response;
    const grpc::Status status = health->Check(&context, request, &response);
    ASSERT_TRUE(status.ok()) << "health went away before the drain: " << status.error_message();
    not_serving = response.status() == grpc::health::v1::HealthCheckResponse::NOT_SERVING;
    if (!not_serving) std::this_thread::sleep_for(1ms);
  }
  ASSERT_TRUE(not_serving);
  // The client library reads the same (its health check writes and reads the messages
  // itself: puzzledb/client.h).
  const absl::Status waited = client.WaitUntilServing(300ms);
  EXPECT_TRUE(absl::IsUnavailable(waited)) << waited;
  EXPECT_NE(waited.message().find("the server says NOT_SERVING"), std::string::npos) << waited;
  // ... while new calls are still answered, exactly.
  v1::SolveRequest request;
  request.mutable_puzzle()->mutable_knight()->set_board("1111111111000*10000100000");
  auto answer = client.Solve(request);
  ASSERT_TRUE(answer.ok()) << answer.status() << "\n" << server.Log();
  EXPECT_EQ(answer->distance(), 3u);
  EXPECT_EQ(server.Stop(0 /* already sent */, 30), 0) << server.Log();
  const std::string log = server.Log();
  EXPECT_NE(log.find("received SIGTERM: health NOT_SERVING, still answering for 3 s (--drain)"),
            std::string::npos) << log;
  EXPECT_NE(log.find("stopped:"), std::string::npos) << log;
  fs::remove_all(db);
}

TEST(EdgesTest, EveryLogLineIsOneEventInTheServersFormat) {
  // A second server on a taken port: one line says so, and nothing of a stop it never
  // began.
  const std::string db = CopyOfTestDb("edges_log_db");
  testing::ServerProcess first(PUZZLEDB_SERVER, db, {}, testing::TempPath("edges_log1.log"));
  ASSERT_FALSE(first.address().empty()) << first.Log();
  const std::string db2 = CopyOfTestDb("edges_log_db2");
  const std::string log = testing::TempPath("edges_log2.log");
  const auto second = testing::StartProcess(
      {PUZZLEDB_SERVER, "--db", db2, "--listen", first.address(), "--http", "127.0.0.1:0"}, log);
  const int status = testing::WaitProcess(second, 60);
  if (status == -1) ::kill(second.pid, SIGKILL);
  EXPECT_EQ(status, 1);
  const std::string text = testing::ReadFile(log);
  std::istringstream lines(text);
  std::string line;
  int count = 0;
  const std::regex format(R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ puzzledb-server: \S.*$)");
  while (std::getline(lines, line)) {
    EXPECT_TRUE(std::regex_match(line, format)) << line;
    // The database's definitions are read before the server listens.
    if (line.find("given as definitions") == std::string::npos) ++count;
  }
  // One event, one line: gRPC's reason is folded into the server's own.
  EXPECT_EQ(count, 1) << text;
  EXPECT_NE(text.find("cannot start: cannot listen on " + first.address()), std::string::npos)
      << text;
  EXPECT_NE(text.find("Address already in use"), std::string::npos) << text;
  EXPECT_EQ(first.Stop(SIGTERM), 0);
  fs::remove_all(db);
  fs::remove_all(db2);
}

// Calls `method` with raw bytes; the status that comes back.
grpc::Status RawCall(const std::string& address, const std::string& method,
                     const std::string& bytes) {
  auto channel = testing::ConnectedChannel(address);
  grpc::GenericStub stub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + 10s);
  grpc::Slice slice(bytes);
  grpc::ByteBuffer request(&slice, 1), response;
  std::mutex mutex;
  std::condition_variable done;
  std::optional<grpc::Status> status;
  stub.UnaryCall(&context, method, grpc::StubOptions(), &request, &response,
                 [&](grpc::Status s) {
                   std::lock_guard<std::mutex> lock(mutex);
                   status = s;
                   done.notify_all();
                 });
  std::unique_lock<std::mutex> lock(mutex);
  done.wait(lock, [&] { return status.has_value(); });
  return *status;
}

TEST(EdgesTest, BytesThatDoNotParseGetWhatTheDocsSay) {
  const std::string db = CopyOfTestDb("edges_bytes_db");
  testing::ServerProcess server(PUZZLEDB_SERVER, db, {}, testing::TempPath("edges_bytes.log"));
  ASSERT_FALSE(server.address().empty()) << server.Log();
  // gRPC's callback API refuses a request it cannot parse before the service sees it, with
  // UNIMPLEMENTED and no message (docs/API.md, "Errors").
  for (const std::string& bytes : {std::string("\xff\xff\xff\xff\x0f garbage"),
                                   std::string("\x0a\x05\x0a\x03", 4)}) {
    const grpc::Status status = RawCall(server.address(), "/puzzledb.v1.Solver/Solve", bytes);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNIMPLEMENTED);
    EXPECT_EQ(status.error_message(), "");
  }
  // The server is unharmed.
  Client client = ClientOf(server.address());
  v1::SolveRequest request;
  request.mutable_puzzle()->mutable_knight()->set_board("1111111111000*10000100000");
  auto answer = client.Solve(request);
  ASSERT_TRUE(answer.ok()) << answer.status();
  EXPECT_EQ(answer->distance(), 3u);
  EXPECT_EQ(server.Stop(SIGTERM), 0);
  fs::remove_all(db);
}

TEST(EdgesTest, AnOversizedRequestEndsItsStreamAfterTheAnswersBeforeIt) {
  const std::string db = CopyOfTestDb("edges_oversized_db");
  testing::ServerProcess server(PUZZLEDB_SERVER, db, {"--max-message-bytes", "4096"},
                                testing::TempPath("edges_oversized.log"));
  ASSERT_FALSE(server.address().empty()) << server.Log();
  auto channel = testing::ConnectedChannel(server.address());
  auto stub = v1::Solver::NewStub(channel);
  grpc::ClientContext context;
  auto stream = stub->SolveStream(&context);
  v1::SolveRequest good;
  good.mutable_puzzle()->mutable_knight()->set_board("1111111111000*10000100000");
  good.set_id(1);
  ASSERT_TRUE(stream->Write(good));
  v1::SolveResponse response;
  ASSERT_TRUE(stream->Read(&response));  // answered before the oversized one is sent
  EXPECT_EQ(response.id(), 1u);
  EXPECT_EQ(response.distance(), 3u);
  v1::SolveRequest oversized;
  oversized.mutable_puzzle()->mutable_knight()->set_board(std::string(10000, '1'));
  oversized.set_id(2);
  stream->Write(oversized);
  stream->WritesDone();
  while (stream->Read(&response)) ADD_FAILURE() << "an answer after the oversized request";
  const grpc::Status status = stream->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << status.error_message();
  // A new stream works (a generous deadline: the sanitizer pass shares a busy machine).
  std::vector<v1::SolveResponse> answers;
  const grpc::Status again = testing::StreamAll(*testing::ConnectedChannel(server.address()),
                                                {good, good}, 120000ms, &answers);
  ASSERT_TRUE(again.ok()) << again.error_message();
  EXPECT_EQ(answers[1].distance(), 3u);
  EXPECT_EQ(server.Stop(SIGTERM), 0);
  fs::remove_all(db);
}

TEST(EdgesTest, InfoSaysATableIsBadAndExitsOne) {
  const std::string db = testing::TempPath("edges_info_db");
  fs::remove_all(db);
  const auto built = RunCommand(std::string(PUZZLEDB_BUILD) + " --quiet --db " + db +
                                    " --puzzle knobs --wiring " + PUZZLEDB_GOLDEN_DIR +
                                    "/knobs_9001.in", "");
  ASSERT_EQ(built.exit_code, 0) << built.err;
  const auto good = RunCommand(std::string(PUZZLEDB_BUILD) + " info --db " + db, "");
  EXPECT_EQ(good.exit_code, 0) << good.err;
  EXPECT_NE(good.out.find("checksums     ok"), std::string::npos) << good.out;
  // Damage the middle of the table's pages (the largest file), not the metadata.
  fs::path pages;
  for (const auto& entry : fs::directory_iterator(db)) {
    if (entry.path().extension() == ".sst" &&
        (pages.empty() || fs::file_size(entry.path()) > fs::file_size(pages))) {
      pages = entry.path();
    }
  }
  {
    std::fstream f(pages, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(0, std::ios::end);
    f.seekp(static_cast<std::streamoff>(f.tellg()) / 2);
    f.write("\xde\xad\xbe\xef\xde\xad\xbe\xef", 8);
  }
  const auto bad = RunCommand(std::string(PUZZLEDB_BUILD) + " info --db " + db, "");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.out.find("checksums     BAD: "), std::string::npos) << bad.out;
  EXPECT_EQ(bad.err.rfind("puzzledb-build info: table knobs-6f811fd419ed03df is bad: ", 0), 0u)
      << bad.err;
  const auto json = RunCommand(std::string(PUZZLEDB_BUILD) + " info --json --db " + db, "");
  EXPECT_EQ(json.exit_code, 1);
  EXPECT_NE(json.out.find("\"problem\": \""), std::string::npos) << json.out;
  fs::remove_all(db);
}

}  // namespace
}  // namespace puzzledb
