// The HTTP/JSON API in-process, on the test database: the same answers as gRPC for every
// golden sample (GET and POST), every error with its status and a JSON body, caching
// headers, health, the page's files, TLS, and clients that go away in the middle of a search.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <tuple>
#include <thread>

#include "core/puzzles/default_tables.h"
#include "core/puzzle.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "puzzledb/client.h"
#include "server/http/response.h"
#include "server/http/routes.h"
#include "server/server.h"
#include "service/puzzle_text.h"
#include "service/wire.h"
#include "tests/proto_json.h"
#include "tests/test_util.h"

namespace puzzledb {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

// Every golden input: puzzle, file.
const std::pair<const char*, const char*> kGoldenInputs[] = {
    {"knight", "knight.in"},        {"knight", "knight_statement.in"},
    {"knobs", "knobs_9001.in"},     {"knobs", "knobs_9002.in"},
    {"knobs", "knobs_9003.in"},     {"knobs", "knobs_9101_unsolvable.in"},
    {"rotation", "rotation.in"},    {"rotation", "rotation_statement.in"},
    {"eight", "eight.in"},          {"eight", "eight_statement.in"},
    {"fifteen", "fifteen_statement.in"},
};

using testing::Comparable;
using testing::FromJson;

class HttpTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    db_ = new std::string(testing::TempPath("http_db"));
    fs::remove_all(*db_);
    fs::copy(PUZZLEDB_TEST_DB, *db_, fs::copy_options::recursive);
  }
  static void TearDownTestSuite() {
    fs::remove_all(*db_);
    delete db_;
  }

  void SetUp() override { Start(ServerOptions{}); }
  void TearDown() override {
    client_.reset();
    if (server_ != nullptr) server_->Shutdown(1000ms);
    server_.reset();
  }

  void Start(ServerOptions options) {
    options.db = *db_;
    options.listen = "127.0.0.1:0";
    options.http_listen = "127.0.0.1:0";
    options.build_missing_tables = false;
    auto started = PuzzledbServer::Start(options, nullptr);
    ASSERT_TRUE(started.ok()) << started.status();
    server_ = std::move(*started);
    ClientOptions client;
    client.target = "127.0.0.1:" + std::to_string(server_->port());
    client_ = std::make_unique<Client>(client);
    ASSERT_TRUE(client_->WaitUntilServing(60000ms).ok());
    http_ = std::make_unique<httplib::Client>("127.0.0.1", server_->http_port());
    http_->set_read_timeout(60, 0);
  }

  httplib::Result Get(const std::string& path) { return http_->Get(path); }
  httplib::Result Post(const std::string& path, const std::string& body,
                       const std::string& type = "application/json") {
    return http_->Post(path, body, type);
  }

  static std::string Query(std::string_view puzzle, const std::string& state,
                           const std::string& extra = "") {
    return "puzzle=" + std::string(puzzle) + "&state=" + httplib::detail::encode_query_param(state) +
           extra;
  }

  // The error body's code, checking that the body is the documented JSON object.
  static std::string ErrorCode(const httplib::Result& r) {
    if (!r) return "no answer";
    google::protobuf::Struct body;
    const auto parsed = google::protobuf::util::JsonStringToMessage(r->body, &body);
    if (!parsed.ok()) return "not JSON: " + r->body;
    if (!body.fields().contains("message") || body.fields().at("message").string_value().empty()) {
      return "no message: " + r->body;
    }
    return body.fields().contains("code") ? body.fields().at("code").string_value() : r->body;
  }

  static std::string* db_;
  std::unique_ptr<PuzzledbServer> server_;
  std::unique_ptr<Client> client_;
  std::unique_ptr<httplib::Client> http_;
};
std::string* HttpTest::db_ = nullptr;

// Every case of every golden input, read by the models as the page reads them: the file,
// the puzzle and the case.
std::vector<std::tuple<std::string, std::string, v1::InputCase>> GoldenCases() {
  std::vector<std::tuple<std::string, std::string, v1::InputCase>> out;
  for (const auto& [puzzle, file] : kGoldenInputs) {
    v1::ParseInputRequest parse;
    parse.set_puzzle(puzzle);
    parse.set_input(testing::Golden(file));
    auto parsed = ParseInput(parse);
    EXPECT_TRUE(parsed.ok()) << parsed.status();
    if (!parsed.ok()) continue;
    for (const v1::InputCase& c : parsed->cases()) {
      EXPECT_TRUE(c.error().empty()) << file << ": " << c.error();
      out.emplace_back(file, puzzle, c);
    }
  }
  return out;
}

TEST_F(HttpTest, GoldenSamplesAnswerAsOverGrpc) {
  int cases = 0;
  for (const auto& [file, puzzle, c] : GoldenCases()) {
    SCOPED_TRACE(file + " case " + std::to_string(c.number()));
    ++cases;
    // gRPC, then GET with the compact form, then POST with the same request message.
    v1::SolveRequest request;
    *request.mutable_puzzle() = *PuzzleFromCompact(puzzle, c.state());
    request.set_id(c.number());
    auto grpc = client_->Solve(request);
    ASSERT_TRUE(grpc.ok()) << grpc.status();
    auto get = Get("/v1/solve?" + Query(puzzle, c.state(), "&id=" + std::to_string(c.number())));
    ASSERT_TRUE(get && get->status == 200) << (get ? get->body : "no answer");
    EXPECT_EQ(get->get_header_value("Content-Type"), "application/json");
    EXPECT_EQ(Comparable(FromJson<v1::SolveResponse>(get->body)), Comparable(*grpc));
    auto post = Post("/v1/solve", ToJsonLine(request));
    ASSERT_TRUE(post && post->status == 200) << (post ? post->body : "no answer");
    EXPECT_EQ(Comparable(FromJson<v1::SolveResponse>(post->body)), Comparable(*grpc));

    v1::AnalyzeRequest analyze;
    *analyze.mutable_puzzle() = request.puzzle();
    auto grpc_analysis = client_->Analyze(analyze);
    ASSERT_TRUE(grpc_analysis.ok()) << grpc_analysis.status();
    auto get_analysis = Get("/v1/analyze?" + Query(puzzle, c.state()));
    ASSERT_TRUE(get_analysis && get_analysis->status == 200);
    EXPECT_EQ(Comparable(FromJson<v1::AnalyzeResponse>(get_analysis->body)),
              Comparable(*grpc_analysis));
    auto post_analysis = Post("/v1/analyze", ToJsonLine(analyze));
    ASSERT_TRUE(post_analysis && post_analysis->status == 200);
    EXPECT_EQ(Comparable(FromJson<v1::AnalyzeResponse>(post_analysis->body)),
              Comparable(*grpc_analysis));
  }
  EXPECT_GE(cases, 30);
}

// POST /v1/solve/batch: a SolveBatchRequest in, the SolveBatchResponse gRPC's SolveBatch
// answers out (but micros), errors in band; its body may be far larger than one request's.
TEST_F(HttpTest, BatchesAnswerAsOverGrpc) {
  v1::SolveBatchRequest batch;
  for (const auto& [file, puzzle, c] : GoldenCases()) {
    v1::SolveRequest* request = batch.add_requests();
    *request->mutable_puzzle() = *PuzzleFromCompact(puzzle, c.state());
    request->set_id(c.number());
    if (c.number() % 2 == 0) request->set_move_encoding(v1::MOVE_CODES);
  }
  batch.add_requests()->mutable_puzzle()->mutable_knight()->set_board("11");  // in band
  auto grpc = client_->SolveBatch(batch, 60000ms);
  ASSERT_TRUE(grpc.ok()) << grpc.status();
  auto post = Post("/v1/solve/batch", ToJsonLine(batch));
  ASSERT_TRUE(post && post->status == 200) << (post ? post->body : "no answer");
  EXPECT_EQ(post->get_header_value("Cache-Control"), "no-store");
  auto http = FromJson<v1::SolveBatchResponse>(post->body);
  ASSERT_EQ(http.responses_size(), batch.requests_size());
  for (int i = 0; i < batch.requests_size(); ++i) {
    EXPECT_EQ(Comparable(http.responses(i)), Comparable(grpc->responses(i))) << i;
  }
  EXPECT_EQ(http.responses(batch.requests_size() - 1).error().code(),
            static_cast<int>(absl::StatusCode::kInvalidArgument));
  EXPECT_NE(post->body.find(R"("move_codes":")"), std::string::npos);
  // A failed request's answer is its id and its error, and nothing else (docs/API.md,
  // "Batches").
  const size_t last = post->body.rfind(R"({"id":)");
  ASSERT_NE(last, std::string::npos);
  const std::string failed = post->body.substr(last);
  EXPECT_EQ(failed.rfind(R"({"id":"0","error":{"code":"INVALID_ARGUMENT","message":")", 0), 0u)
      << failed;
  EXPECT_EQ(failed.find("outcome"), std::string::npos) << failed;
  EXPECT_EQ(failed.substr(failed.size() - 5), "}}]}\n") << failed;

  // 4,000 requests, about 300 KB: a batch's body; the same bytes to /v1/solve are refused
  // from their Content-Length with a pointer to the batch path.
  v1::SolveBatchRequest large;
  for (int i = 0; i < 4000; ++i) {
    large.add_requests()->mutable_puzzle()->mutable_knight()->set_board("1111111111000*10000100000");
  }
  const std::string body = ToJsonLine(large);
  ASSERT_GT(body.size(), 200000u);
  auto answered = Post("/v1/solve/batch", body);
  ASSERT_TRUE(answered && answered->status == 200) << (answered ? answered->body.substr(0, 300) : "no answer");
  EXPECT_EQ(FromJson<v1::SolveBatchResponse>(answered->body).responses_size(), 4000);
  auto single = Post("/v1/solve", body);
  ASSERT_TRUE(single);
  EXPECT_EQ(single->status, 413);
  EXPECT_NE(single->body.find("/v1/solve/batch"), std::string::npos) << single->body;
  http_ = std::make_unique<httplib::Client>("127.0.0.1", server_->http_port());  // it was closed
  http_->set_read_timeout(60, 0);

  // The batch as a whole: too many requests, not JSON, not the message, not a POST.
  v1::SolveBatchRequest too_many;
  for (int i = 0; i < 10001; ++i) too_many.add_requests()->mutable_puzzle()->mutable_eight()->set_board("1");
  auto refused = Post("/v1/solve/batch", ToJsonLine(too_many));
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 400);
  EXPECT_EQ(ErrorCode(refused), "INVALID_ARGUMENT");
  EXPECT_NE(refused->body.find("requests: 10001 in one batch"), std::string::npos) << refused->body;
  auto not_json = Post("/v1/solve/batch", "[{");
  ASSERT_TRUE(not_json);
  EXPECT_EQ(not_json->status, 400);
  auto wrong_type = Post("/v1/solve/batch", "{}", "text/plain");
  ASSERT_TRUE(wrong_type);
  EXPECT_EQ(wrong_type->status, 415);
  auto get = Get("/v1/solve/batch");
  ASSERT_TRUE(get);
  EXPECT_EQ(get->status, 405);
  EXPECT_EQ(get->get_header_value("Allow"), "POST");
}

TEST_F(HttpTest, TablesAndHealthAsOverGrpc) {
  auto tables = Get("/v1/tables");
  ASSERT_TRUE(tables && tables->status == 200);
  auto grpc = client_->ListTables();
  ASSERT_TRUE(grpc.ok());
  EXPECT_EQ(ToJsonLine(FromJson<v1::ListTablesResponse>(tables->body)), ToJsonLine(*grpc));
  EXPECT_EQ(static_cast<size_t>(grpc->tables_size()), DefaultTableIds().size());

  auto health = Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  EXPECT_EQ(health->body, "SERVING\n");
  server_->StopServing();  // the first step of a drain: both transports say so
  health = Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 503);
  EXPECT_EQ(health->body, "NOT_SERVING\n");
  // Calls are still answered while draining.
  EXPECT_EQ(Get("/v1/solve?" + Query("eight", "283104765"))->status, 200);
}

// Each malformed request gets its status, a JSON body with the gRPC code's name and a
// message saying what was wrong.
TEST_F(HttpTest, BadRequestsGetTheirStatusAndAMessage) {
  struct Case {
    std::string what;
    std::function<httplib::Result()> send;
    int status;
    std::string code;
    std::string message_part;
  };
  const std::string knight = "1111111111000*10000100000";
  const std::vector<Case> cases = {
      {"unknown puzzle", [&] { return Get("/v1/solve?" + Query("chess", knight)); }, 400,
       "INVALID_ARGUMENT", "puzzle: unknown puzzle 'chess'"},
      {"bad state", [&] { return Get("/v1/solve?" + Query("knight", "111")); }, 400,
       "INVALID_ARGUMENT", "state: a board has 25 cells"},
      {"no state", [&] { return Get("/v1/solve?puzzle=knight"); }, 400, "INVALID_ARGUMENT",
       "state is missing"},
      {"bad fifteen board", [&] { return Get("/v1/solve?" + Query("fifteen", "2340157896acdebg")); },
       400, "INVALID_ARGUMENT",
       "state: cell 16 (row 4, column 4) holds 'g'; a cell is a hexadecimal digit 0..f"},
      {"unknown parameter", [&] { return Get("/v1/solve?" + Query("knight", knight, "&depth=3")); },
       400, "INVALID_ARGUMENT", "unknown parameter 'depth'"},
      {"parameter twice", [&] { return Get("/v1/solve?" + Query("knight", knight, "&puzzle=eight")); },
       400, "INVALID_ARGUMENT", "'puzzle' is given 2 times"},
      {"bad number", [&] { return Get("/v1/solve?" + Query("knight", knight, "&max_moves=-1")); },
       400, "INVALID_ARGUMENT", "max_moves='-1' is not a whole number from 0 to 1000 (0: no limit)"},
      {"max_moves too large",
       [&] { return Get("/v1/solve?" + Query("knight", knight, "&max_moves=5000")); }, 400,
       "INVALID_ARGUMENT", "max_moves='5000' is not a whole number from 0 to 1000"},
      {"sample without the parameters' state",
       [&] { return Get("/v1/sample?puzzle=knobs&distance=3"); }, 400, "INVALID_ARGUMENT",
       "query: state is missing; the knobs puzzle has parameters, and state=COMPACT gives them"},
      {"sample with a bad state", [&] { return Get("/v1/sample?puzzle=knight&distance=3&state=xyz"); },
       400, "INVALID_ARGUMENT", "state: a board has 25 cells"},
      {"count not a flag",
       [&] { return Get("/v1/solve?" + Query("knight", knight, "&count=TRUE")); }, 400,
       "INVALID_ARGUMENT", "count='TRUE' is not a yes or no; use 1, true or yes, or 0, false or no"},
      {"bad policy", [&] { return Get("/v1/solve?" + Query("knight", knight, "&policy=fast")); },
       400, "INVALID_ARGUMENT", "policy='fast' is not a policy"},
      {"timeout_ms on analyze",
       [&] { return Get("/v1/analyze?" + Query("knight", knight, "&timeout_ms=5")); }, 400,
       "INVALID_ARGUMENT", "unknown parameter 'timeout_ms'"},
      {"no table, TABLE_ONLY",
       [&] {
         // A knobs wiring without a table.
         std::string state = "1 2 3 4 5";
         for (int knob = 2; knob <= 12; ++knob) {
           state += " 1 " + std::to_string(knob % 12 + 1) + " " + std::to_string(knob % 12 + 1) +
                    " " + std::to_string(knob % 12 + 1) + " " + std::to_string(knob % 12 + 1);
         }
         return Get("/v1/solve?" + Query("knobs", state, "&policy=table_only"));
       },
       412, "FAILED_PRECONDITION", "no usable knobs table"},
      {"search past its deadline",
       [&] {
         return Get("/v1/solve?" + Query("knight", "0000000000001*11111111111", "&policy=search_only&timeout_ms=1"));
       },
       504, "DEADLINE_EXCEEDED", "deadline"},
      {"unknown path", [&] { return Get("/v2/solve"); }, 404, "NOT_FOUND", "no such path '/v2/solve'"},
      {"POST to an unknown path", [&] { return Post("/solve", "{}"); }, 404, "NOT_FOUND", "no such path"},
      {"PUT", [&] { return http_->Put("/v1/solve", "{}", "application/json"); }, 405,
       "UNIMPLEMENTED", "PUT /v1/solve is not allowed; use GET, HEAD, POST"},
      {"DELETE of the page", [&] { return http_->Delete("/"); }, 405, "UNIMPLEMENTED", "use GET, HEAD"},
      {"GET of a POST-only path", [&] { return Get("/v1/play"); }, 405, "UNIMPLEMENTED", "use POST"},
      {"POST of a GET-only path", [&] { return Post("/v1/tables", "{}"); }, 405, "UNIMPLEMENTED",
       "use GET, HEAD"},
      {"form body", [&] { return Post("/v1/solve", "puzzle=knight", "application/x-www-form-urlencoded"); },
       415, "INVALID_ARGUMENT", "Content-Type: send application/json"},
      {"JSON-like type", [&] { return Post("/v1/solve", "{}", "application/jsonx"); }, 415,
       "INVALID_ARGUMENT", "got 'application/jsonx'"},
      {"empty body", [&] { return Post("/v1/solve", ""); }, 400, "INVALID_ARGUMENT", "body: empty"},
      {"not JSON", [&] { return Post("/v1/solve", "{\"puzzle\":"); }, 400, "INVALID_ARGUMENT",
       "body: not JSON (RFC 8259) at byte 10 (line 1, column 11)"},
      {"unknown field", [&] { return Post("/v1/solve", "{\"puzle\":{}}"); }, 400, "INVALID_ARGUMENT",
       "body: unknown field 'puzle' (a SolveRequest has puzzle, max_moves, policy, id"},
      {"unknown field inside",
       [&] { return Post("/v1/solve", R"({"puzzle":{"nam":"eight"}})"); }, 400,
       "INVALID_ARGUMENT", "body: unknown field 'nam' in puzzle (a Puzzle has "},
      {"negative number",
       [&] { return Post("/v1/solve", R"({"puzzle":{"name":"eight","state":"283104765"},"max_moves":-1})"); },
       400, "INVALID_ARGUMENT", "body: max_moves: '-1' is not a whole number from 0 to 4294967295"},
      {"not an enum's value",
       [&] { return Post("/v1/solve", R"({"puzzle":{"name":"eight","state":"283104765"},"policy":"FAST"})"); },
       400, "INVALID_ARGUMENT",
       "body: policy: 'FAST' is not one of TABLE_THEN_SEARCH, TABLE_ONLY, SEARCH_ONLY (or its number)"},
      {"a string for a message", [&] { return Post("/v1/solve", R"({"puzzle":"eight"})"); }, 400,
       "INVALID_ARGUMENT", "body: puzzle: the string 'eight' is not an object (Puzzle)"},
      // A value of the wrong kind: the field, the kind sent and the kind it takes.
      {"an object for a string (/v1/solve's puzzle sent to /v1/play)",
       [&] { return Post("/v1/play", R"({"puzzle":{"name":"eight","state":"283104765"},"moves":["U"]})"); },
       400, "INVALID_ARGUMENT", "\"body: puzzle: an object is not a string\""},
      {"a list for a string inside",
       [&] { return Post("/v1/solve", R"({"puzzle":{"name":"eight","state":["283104765"]}})"); }, 400,
       "INVALID_ARGUMENT", "\"body: puzzle.state: a list is not a string\""},
      {"a number in a list of strings",
       [&] { return Post("/v1/play", R"({"puzzle":"eight","state":"283104765","moves":["U",1]})"); }, 400,
       "INVALID_ARGUMENT", "\"body: moves[1]: the number '1' is not a string\""},
      {"a string for a typed board",
       [&] { return Post("/v1/solve", R"({"puzzle":{"eight":"x"}})"); }, 400, "INVALID_ARGUMENT",
       "\"body: puzzle.eight: the string 'x' is not an object (EightBoard)\""},
      {"no puzzle", [&] { return Post("/v1/solve", "{}"); }, 400, "INVALID_ARGUMENT",
       "puzzle: no puzzle given"},
      {"body over the limit", [&] { return Post("/v1/solve", std::string(70000, ' ')); }, 413,
       "RESOURCE_EXHAUSTED", "larger than 65536 bytes"},
      {"request line over 8 KB", [&] { return Get("/v1/solve?state=" + std::string(9000, '1')); }, 414,
       "INVALID_ARGUMENT", "too long"},
      {"illegal move played",
       [&] { return Post("/v1/play", R"({"puzzle":"eight","state":"283104765","moves":["U","U","U"]})"); },
       400, "INVALID_ARGUMENT", "moves[1]: 'U' is not a legal move there; legal: D L R"},
      {"input with too many cases",
       [&] {
         std::string input;
         for (int i = 0; i < 1001; ++i) input += "283104765\\n";
         return Post("/v1/parse", R"({"puzzle":"eight","input":")" + input + "\"}");
       },
       400, "INVALID_ARGUMENT", "1001 cases; at most 1000"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    const auto r = c.send();
    ASSERT_TRUE(r) << "no answer";
    EXPECT_EQ(r->status, c.status) << r->body;
    EXPECT_EQ(ErrorCode(r), c.code) << r->body;
    EXPECT_NE(r->body.find(c.message_part), std::string::npos) << r->body;
    EXPECT_EQ(r->get_header_value("Cache-Control"), "no-store");
  }
  // None of them harmed the server.
  auto after = Get("/v1/solve?" + Query("eight", "283104765"));
  ASSERT_TRUE(after);
  EXPECT_EQ(after->status, 200);
  EXPECT_EQ(FromJson<v1::SolveResponse>(after->body).distance(), 4u);
}

TEST_F(HttpTest, StatusesFollowTheGrpcCodes) {
  EXPECT_EQ(HttpStatusOf(absl::StatusCode::kOk), 200);
  EXPECT_EQ(HttpStatusOf(absl::StatusCode::kInvalidArgument), 400);
  EXPECT_EQ(HttpStatusOf(absl::StatusCode::kFailedPrecondition), 412);
  EXPECT_EQ(HttpStatusOf(absl::StatusCode::kResourceExhausted), 429);
  EXPECT_EQ(HttpStatusOf(absl::StatusCode::kCancelled), 499);
  EXPECT_EQ(HttpStatusOf(absl::StatusCode::kDeadlineExceeded), 504);
  EXPECT_EQ(HttpStatusOf(absl::StatusCode::kUnavailable), 503);
  EXPECT_EQ(HttpStatusOf(absl::StatusCode::kDataLoss), 500);
}

TEST_F(HttpTest, SearchesBeyondThePoolAreRefusedWith429) {
  TearDown();
  ServerOptions options;
  options.max_concurrent_searches = 1;
  options.search_queue = 0;
  Start(options);
  // One long search holds the only slot (a knight board far from the goal, never from the
  // table); the second is refused at once.
  const std::string far = "0000000000001*11111111111";
  std::thread holder([&] {
    httplib::Client other("127.0.0.1", server_->http_port());
    other.set_read_timeout(60, 0);
    other.Get("/v1/solve?" + Query("knight", far, "&policy=search_only&timeout_ms=3000"));
  });
  while (server_->searches_running() == 0) std::this_thread::sleep_for(1ms);
  auto refused = Get("/v1/solve?" + Query("knight", far, "&policy=search_only"));
  holder.join();
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 429) << refused->body;
  EXPECT_EQ(ErrorCode(refused), "RESOURCE_EXHAUSTED");
  EXPECT_NE(refused->body.find("--max-concurrent-searches"), std::string::npos);
  EXPECT_EQ(refused->get_header_value("Retry-After"), "1");
}

// An answer tells a distance only where there is one: an unsolvable position's JSON has
// none (not "distance":0, which reads as solved), in a solve and an analysis alike; a
// solved one at the goal says 0.
TEST_F(HttpTest, OnlyASolvedAnswerHasADistance) {
  // Two tiles swapped: the other parity, which no move reaches.
  const auto unsolvable = Get("/v1/solve?" + Query("eight", "213804765"));
  ASSERT_TRUE(unsolvable);
  EXPECT_EQ(unsolvable->status, 200) << unsolvable->body;
  EXPECT_NE(unsolvable->body.find("\"outcome\":\"UNSOLVABLE\""), std::string::npos) << unsolvable->body;
  EXPECT_EQ(unsolvable->body.find("\"distance\""), std::string::npos) << unsolvable->body;
  const auto analysed = Get("/v1/analyze?" + Query("eight", "213804765"));
  ASSERT_TRUE(analysed);
  EXPECT_NE(analysed->body.find("\"outcome\":\"UNSOLVABLE\""), std::string::npos) << analysed->body;
  EXPECT_EQ(analysed->body.find("\"distance\""), std::string::npos) << analysed->body;
  const auto goal = Get("/v1/solve?" + Query("eight", "123804765"));
  ASSERT_TRUE(goal);
  EXPECT_NE(goal->body.find("\"outcome\":\"SOLVED\""), std::string::npos) << goal->body;
  EXPECT_NE(goal->body.find("\"distance\":0"), std::string::npos) << goal->body;
}

// A body that starts with a UTF-8 byte order mark is read without it (RFC 8259, section
// 8.1).
TEST_F(HttpTest, ABodyWithAByteOrderMarkIsRead) {
  auto answered = Post("/v1/solve", "\xef\xbb\xbf" R"({"puzzle":{"name":"eight","state":"283104765"}})");
  ASSERT_TRUE(answered);
  EXPECT_EQ(answered->status, 200) << answered->body;
  EXPECT_EQ(FromJson<v1::SolveResponse>(answered->body).distance(), 4u) << answered->body;
}

TEST_F(HttpTest, TableAnswersCarryTheTablesBuildAsETag) {
  auto first = Get("/v1/solve?" + Query("eight", "283104765"));
  ASSERT_TRUE(first && first->status == 200);
  const std::string tag = first->get_header_value("ETag");
  auto tables = client_->ListTables();
  ASSERT_TRUE(tables.ok());
  for (const auto& t : tables->tables()) {
    if (t.table_id() == "eight") {
      EXPECT_EQ(tag.rfind("W/\"eight.", 0), 0u) << tag;
    }
  }
  EXPECT_EQ(first->get_header_value("Cache-Control"), "public, max-age=86400");
  // The tag docs/API.md ("Caching") tells a client to build from an answer's provenance:
  // W/"<table_id>.<table_generation in hex>.<table_crc32 in 8 hex digits>".
  const v1::SolveResponse answer = FromJson<v1::SolveResponse>(first->body);
  char built[128];
  std::snprintf(built, sizeof built, "W/\"%s.%llx.%08x\"", answer.table_id().c_str(),
                static_cast<unsigned long long>(answer.table_generation()), answer.table_crc32());
  EXPECT_EQ(tag, built);
  auto from_fields = http_->Get("/v1/solve?" + Query("eight", "283104765"),
                                {{"If-None-Match", std::string(built).substr(2)}});
  ASSERT_TRUE(from_fields);
  EXPECT_EQ(from_fields->status, 304);  // weak comparison: the tag without W/ matches too
  // The same tag for another board of the same table; a 304 when the client has it.
  auto other = Get("/v1/analyze?" + Query("eight", "123804765"));
  ASSERT_TRUE(other);
  EXPECT_EQ(other->get_header_value("ETag"), tag);
  auto again = http_->Get("/v1/solve?" + Query("eight", "283104765"), {{"If-None-Match", tag}});
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 304);
  EXPECT_TRUE(again->body.empty());
  // A search's answer has no tag: a table may come to answer it.
  auto searched = Get("/v1/solve?" + Query("eight", "283104765", "&policy=search_only"));
  ASSERT_TRUE(searched && searched->status == 200);
  EXPECT_EQ(FromJson<v1::SolveResponse>(searched->body).source(), v1::SEARCH);
  EXPECT_FALSE(searched->has_header("ETag"));
  EXPECT_EQ(searched->get_header_value("Cache-Control"), "public, max-age=300");
}

TEST_F(HttpTest, ServesThePage) {
  auto page = Get("/");
  ASSERT_TRUE(page && page->status == 200);
  EXPECT_EQ(page->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(page->body.find("<script src=\"/app.js\">"), std::string::npos);
  for (const char* file : {"/app.js", "/style.css", "/index.html"}) {
    auto r = Get(file);
    ASSERT_TRUE(r && r->status == 200) << file;
    EXPECT_GT(r->body.size(), 500u) << file;
    auto cached = http_->Get(file, {{"If-None-Match", r->get_header_value("ETag")}});
    ASSERT_TRUE(cached);
    EXPECT_EQ(cached->status, 304) << file;
  }
  EXPECT_EQ(Get("/app.js")->get_header_value("Content-Type"), "text/javascript; charset=utf-8");
  auto head = http_->Head("/v1/solve?" + Query("eight", "283104765"));
  ASSERT_TRUE(head);
  EXPECT_EQ(head->status, 200);
  EXPECT_TRUE(head->body.empty());
}

// docs/openapi.json, as served, describes every path with exactly the methods it takes, and
// no path the server does not serve (tests/openapi_test.py holds the answers to it).
TEST_F(HttpTest, TheOpenApiDocumentDescribesEveryPath) {
  auto served = Get("/v1/openapi.json");
  ASSERT_TRUE(served && served->status == 200);
  EXPECT_EQ(served->get_header_value("Content-Type"), "application/json");
  auto cached = http_->Get("/v1/openapi.json", {{"If-None-Match", served->get_header_value("ETag")}});
  ASSERT_TRUE(cached);
  EXPECT_EQ(cached->status, 304);
  google::protobuf::Struct document;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(served->body, &document).ok());
  const auto& paths = document.fields().at("paths").struct_value().fields();
  const auto endpoints = HttpRoutes::Endpoints();
  for (const auto& endpoint : endpoints) {
    const std::string path(endpoint.first);
    ASSERT_TRUE(paths.find(path) != paths.end()) << path << " is served but not in docs/openapi.json";
    std::vector<std::string> methods;
    for (const auto& [method, operation] : paths.at(path).struct_value().fields()) {
      methods.push_back(method);
    }
    std::sort(methods.begin(), methods.end());
    const std::vector<std::string> wanted =
        endpoint.second == "GET, HEAD"   ? std::vector<std::string>{"get", "head"}
        : endpoint.second == "POST"      ? std::vector<std::string>{"post"}
                                         : std::vector<std::string>{"get", "head", "post"};
    EXPECT_EQ(methods, wanted) << path << " takes " << endpoint.second;
  }
  for (const auto& [path, item] : paths) {
    EXPECT_TRUE(std::any_of(endpoints.begin(), endpoints.end(),
                            [&path = path](const auto& e) { return e.first == path; }))
        << path << " is in docs/openapi.json but not served";
  }
}

TEST_F(HttpTest, PlaysMovesAndReadsInputsByThePuzzlesModels) {
  auto played = Post("/v1/play", R"({"puzzle":"eight","state":"283104765","moves":["U","L","D","R"]})");
  ASSERT_TRUE(played && played->status == 200) << (played ? played->body : "");
  const auto states = FromJson<v1::PlayResponse>(played->body);
  ASSERT_EQ(states.states_size(), 5);
  EXPECT_EQ(states.states(0).state(), "283104765");
  EXPECT_FALSE(states.states(0).goal());
  EXPECT_EQ(states.states(4).state(), "123804765");
  EXPECT_TRUE(states.states(4).goal());
  EXPECT_EQ(Join(states.states(0).legal_moves(), " "), "U D L R");

  // A cube comes back in the colours it was sent in.
  auto cube = Post("/v1/play", R"({"puzzle":"cube2","state":"WWWWBBRRRRGGYYYYGGOOOOBB","moves":["U'"]})");
  ASSERT_TRUE(cube && cube->status == 200) << (cube ? cube->body : "");
  const auto turned = FromJson<v1::PlayResponse>(cube->body);
  ASSERT_EQ(turned.states_size(), 2);
  EXPECT_EQ(turned.states(0).state(), "WWWWBBRRRRGGYYYYGGOOOOBB");
  EXPECT_EQ(turned.states(1).state(), "WWWWRRRRGGGGYYYYOOOOBBBB");
  EXPECT_TRUE(turned.states(1).goal());
  auto cube_read = Post("/v1/parse", R"({"puzzle":"cube2","input":"wwwwbbrrrrggyyyyggoooobb\n"})");
  ASSERT_TRUE(cube_read && cube_read->status == 200);
  const auto cube_cases = FromJson<v1::ParseInputResponse>(cube_read->body);
  ASSERT_EQ(cube_cases.cases_size(), 1);
  EXPECT_EQ(cube_cases.cases(0).state(), "wwwwbbrrrrggyyyyggoooobb");

  auto read = Post("/v1/parse", R"({"puzzle":"rotation","input":"1 1 1\n0\n"})",
                   "application/json; charset=utf-8");
  ASSERT_TRUE(read && read->status == 200);
  const auto cases = FromJson<v1::ParseInputResponse>(read->body);
  ASSERT_EQ(cases.cases_size(), 1);
  EXPECT_NE(cases.cases(0).error().find("line 1"), std::string::npos) << read->body;
  EXPECT_TRUE(cases.cases(0).state().empty());
}

TEST_F(HttpTest, ClientsThatVanishMidSearchLeaveTheServerWhole) {
  // Ten clients each ask for a long search and hang up at once; the server keeps answering,
  // and the searches end by their deadline.
  const std::string request =
      "GET /v1/solve?" + Query("knight", "0000000000001*11111111111", "&policy=search_only&timeout_ms=500") +
      " HTTP/1.1\r\nHost: x\r\n\r\n";
  for (int i = 0; i < 10; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(server_->http_port()));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    ASSERT_EQ(::send(fd, request.data(), request.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(request.size()));
    ::close(fd);
  }
  auto answer = Get("/v1/solve?" + Query("eight", "283104765"));
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 200);
  // Shutting down with searches still running: they are cancelled after the grace.
  const auto started = std::chrono::steady_clock::now();
  server_->Shutdown(100ms);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 30s);
  server_.reset();
}

TEST_F(HttpTest, ServesTlsWithTheGrpcCertificate) {
  TearDown();
  const std::string certs = testing::TempPath("http_certs");
  ASSERT_EQ(std::system(("sh " PUZZLEDB_TESTS_DIR "/make_test_certs.sh " + certs).c_str()), 0);
  ServerOptions options;
  options.tls_cert_file = certs + "/server.pem";
  options.tls_key_file = certs + "/server.key";
  options.db = *db_;
  options.listen = "127.0.0.1:0";
  options.http_listen = "127.0.0.1:0";
  auto started = PuzzledbServer::Start(options, nullptr);
  ASSERT_TRUE(started.ok()) << started.status();
  server_ = std::move(*started);
  EXPECT_EQ(server_->http_url().rfind("https://127.0.0.1:", 0), 0u) << server_->http_url();
  httplib::SSLClient tls("127.0.0.1", server_->http_port());
  tls.set_ca_cert_path((certs + "/ca.pem").c_str());
  tls.enable_server_certificate_verification(true);
  auto answer = tls.Get("/v1/solve?" + Query("eight", "283104765"));
  ASSERT_TRUE(answer) << httplib::to_string(answer.error());
  EXPECT_EQ(answer->status, 200);
  EXPECT_EQ(FromJson<v1::SolveResponse>(answer->body).distance(), 4u);
  // A client that does not trust the CA gets nothing.
  httplib::SSLClient untrusting("127.0.0.1", server_->http_port());
  untrusting.set_ca_cert_path((certs + "/other_ca.pem").c_str());
  untrusting.enable_server_certificate_verification(true);
  EXPECT_FALSE(untrusting.Get("/healthz"));
  fs::remove_all(certs);
}

// Both ports read their address alike (server/listener.h): a host name resolves, and every
// address it names is bound on one port; a name that resolves to nothing is refused naming
// the flag.
TEST_F(HttpTest, BothPortsTakeHostNamesAlike) {
  ServerOptions options;
  options.db = testing::TempPath("http_db_names");
  fs::remove_all(options.db);
  fs::copy(*db_, options.db, fs::copy_options::recursive);
  options.listen = "localhost:0";
  options.http_listen = "localhost:0";
  auto server = PuzzledbServer::Start(options, nullptr);
  ASSERT_TRUE(server.ok()) << server.status();
  const int port = (*server)->http_port();
  EXPECT_NE((*server)->http_url().find("http://localhost:" + std::to_string(port) + "/"),
            std::string::npos)
      << (*server)->http_url();
  httplib::Client v4("127.0.0.1", port);
  auto healthy = v4.Get("/healthz");
  ASSERT_TRUE(healthy) << httplib::to_string(healthy.error());
  EXPECT_EQ(healthy->status, 200);
  (*server)->Shutdown(std::chrono::milliseconds(0));
  server->reset();
  for (const char* flag : {"--listen", "--http"}) {
    options.listen = "127.0.0.1:0";
    options.http_listen = "127.0.0.1:0";
    (std::string(flag) == "--listen" ? options.listen : options.http_listen) =
        "no-such-host.invalid:0";
    auto refused = PuzzledbServer::Start(options, nullptr);
    ASSERT_FALSE(refused.ok()) << flag;
    EXPECT_TRUE(absl::IsInvalidArgument(refused.status())) << refused.status();
    EXPECT_NE(refused.status().message().find(std::string(flag) +
                                              " no-such-host.invalid:0: cannot resolve"),
              std::string::npos)
        << refused.status();
  }
  fs::remove_all(options.db);
}

TEST_F(HttpTest, AnAddressInUseIsAClearError) {
  ServerOptions options;
  options.db = testing::TempPath("http_db_second");
  fs::remove_all(options.db);
  fs::copy(*db_, options.db, fs::copy_options::recursive);
  options.listen = "127.0.0.1:0";
  options.http_listen = "127.0.0.1:" + std::to_string(server_->http_port());
  auto second = PuzzledbServer::Start(options, nullptr);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find("cannot listen on " + options.http_listen + " (--http)"),
            std::string::npos)
      << second.status();
  options.http_listen = "127.0.0.1";
  second = PuzzledbServer::Start(options, nullptr);
  ASSERT_FALSE(second.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(second.status())) << second.status();
  EXPECT_NE(second.status().message().find("--http '127.0.0.1' has no port"), std::string::npos)
      << second.status();
  fs::remove_all(options.db);
}

}  // namespace
}  // namespace puzzledb
