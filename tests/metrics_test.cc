// GET /metrics (docs/OPERATIONS.md, "Metrics") in-process: every call counted once, by
// method, transport, source and code, exactly as many as were sent; the latency
// histograms; refused searches; streams; background builds; tables; and the whole text
// accepted by Prometheus' own checker (promtool check metrics).
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>
#include <thread>

#include "core/puzzles/knobs.h"
#include "core/puzzles/rotation.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "puzzledb/client.h"
#include "server/server.h"
#include "puzzledb/v1/solver.grpc.pb.h"
#include "service/wire.h"
#include "tests/typed_wire.h"
#include "tests/channel.h"
#include "tests/small_db.h"
#include "tests/test_util.h"

namespace puzzledb {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

// One sample of the text format: the metric's name and its labels, sorted.
struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;
  bool operator<(const Sample& o) const { return std::tie(name, labels) < std::tie(o.name, o.labels); }
};

// The samples of a scrape. Label values here never hold quotes, commas or escapes.
std::map<Sample, double> ParseMetrics(const std::string& text) {
  std::map<Sample, double> samples;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    Sample sample;
    const size_t brace = line.find('{');
    const size_t space = line.rfind(' ');
    EXPECT_NE(space, std::string::npos) << line;
    if (space == std::string::npos) continue;
    if (brace != std::string::npos && brace < space) {
      sample.name = line.substr(0, brace);
      const size_t close = line.find('}', brace);
      std::string labels = line.substr(brace + 1, close - brace - 1);
      size_t at = 0;
      while (at < labels.size()) {
        const size_t eq = labels.find('=', at);
        const size_t end = labels.find('"', eq + 2);
        sample.labels[labels.substr(at, eq - at)] = labels.substr(eq + 2, end - eq - 2);
        at = end + 2;  // past '",'
      }
    } else {
      sample.name = line.substr(0, space);
    }
    samples[sample] = std::stod(line.substr(space + 1));
  }
  return samples;
}

// The value of a sample, or -1 when the scrape has none.
double Value(const std::map<Sample, double>& samples, const std::string& name,
             std::map<std::string, std::string> labels = {}) {
  auto it = samples.find(Sample{name, std::move(labels)});
  return it == samples.end() ? -1 : it->second;
}

double Calls(const std::map<Sample, double>& samples, const std::string& method,
             const std::string& transport, const std::string& source, const std::string& code) {
  return Value(samples, "puzzledb_calls_total",
               {{"method", method}, {"transport", transport}, {"source", source}, {"code", code}});
}

// promtool check metrics on `text`: its exit status and what it printed.
std::pair<int, std::string> Promtool(const std::string& text) {
  const std::string file = testing::TempPath("metrics.txt");
  {
    std::FILE* f = std::fopen(file.c_str(), "w");
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  }
  const std::string command = std::string(PUZZLEDB_PROMTOOL) + " check metrics < " + file + " 2>&1";
  std::FILE* pipe = popen(command.c_str(), "r");
  std::string output;
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, n);
  const int status = pclose(pipe);
  fs::remove(file);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

const char kRotation[] = "111132323132231222312133";

v1::SolveRequest RotationRequest(v1::Policy policy = v1::TABLE_THEN_SEARCH) {
  v1::SolveRequest request;
  InstanceToWire(*RotationPuzzle::ParseCompact(kRotation), request.mutable_puzzle());
  request.set_policy(policy);
  return request;
}

class MetricsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { db_ = new std::string(testing::MakeSmallDb("metrics_db")); }
  static void TearDownTestSuite() {
    fs::remove_all(*db_);
    delete db_;
  }
  void TearDown() override {
    client_.reset();
    if (server_ != nullptr) server_->Shutdown(1000ms);
    server_.reset();
  }

  void Start(ServerOptions options, const std::string& db = "") {
    options.db = db.empty() ? *db_ : db;
    options.listen = "127.0.0.1:0";
    options.http_listen = "127.0.0.1:0";
    auto started = PuzzledbServer::Start(options, nullptr);
    ASSERT_TRUE(started.ok()) << started.status();
    server_ = std::move(*started);
    ClientOptions client;
    client.target = "127.0.0.1:" + std::to_string(server_->port());
    client.max_attempts = 1;
    client_ = std::make_unique<Client>(client);
    ASSERT_TRUE(client_->WaitUntilServing(60000ms).ok());
    http_ = std::make_unique<httplib::Client>("127.0.0.1", server_->http_port());
    http_->set_read_timeout(60, 0);
  }

  // GET /metrics, checked for its status and type, parsed.
  std::map<Sample, double> Scrape(std::string* text = nullptr) {
    auto res = http_->Get("/metrics");
    EXPECT_TRUE(res);
    if (!res) return {};
    EXPECT_EQ(res->status, 200);
    EXPECT_EQ(res->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
    if (text != nullptr) *text = res->body;
    return ParseMetrics(res->body);
  }

  static std::string* db_;
  std::unique_ptr<PuzzledbServer> server_;
  std::unique_ptr<Client> client_;
  std::unique_ptr<httplib::Client> http_;
};
std::string* MetricsTest::db_ = nullptr;

TEST_F(MetricsTest, EveryCallIsCountedOnceByMethodTransportSourceAndCode) {
  ServerOptions options;
  options.build_missing_tables = false;
  Start(options);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(client_->Solve(RotationRequest()).ok());
  auto searched = client_->Solve(RotationRequest(v1::SEARCH_ONLY));
  ASSERT_TRUE(searched.ok()) << searched.status();
  EXPECT_EQ(searched->source(), v1::SEARCH);
  v1::SolveRequest bad = RotationRequest();
  bad.mutable_puzzle()->mutable_rotation()->add_cells(7);  // 25 cells, one of them 7
  EXPECT_EQ(client_->Solve(bad).status().code(), absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(client_->ListTables().ok());
  v1::AnalyzeRequest analyze;
  *analyze.mutable_puzzle() = RotationRequest().puzzle();
  ASSERT_TRUE(client_->Analyze(analyze).ok());
  {
    // One batch message in a stream (the client library sends batches as SolveBatch calls).
    auto stub = v1::Solver::NewStub(client_->channel());
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + 60s);
    auto stream = stub->SolveStream(&context);
    v1::SolveRequest message;
    for (int i = 0; i < 4; ++i) *message.mutable_batch()->add_requests() = RotationRequest();
    *message.mutable_batch()->add_requests() = bad;
    ASSERT_TRUE(stream->Write(message));
    ASSERT_TRUE(stream->WritesDone());
    v1::SolveResponse answer;
    ASSERT_TRUE(stream->Read(&answer));
    EXPECT_EQ(answer.batch().responses_size(), 5);
    while (stream->Read(&answer)) {
    }
    ASSERT_TRUE(stream->Finish().ok());
  }
  v1::SolveBatchRequest batch;
  for (int i = 0; i < 3; ++i) *batch.add_requests() = RotationRequest();
  *batch.add_requests() = bad;
  ASSERT_TRUE(client_->SolveBatch(batch, 60000ms).ok());
  const std::string query = std::string("/v1/solve?puzzle=rotation&state=") + kRotation;
  for (int i = 0; i < 2; ++i) ASSERT_EQ(http_->Get(query)->status, 200);
  ASSERT_EQ(http_->Get("/v1/solve?puzzle=rotation&state=12")->status, 400);
  ASSERT_EQ(http_->Post("/v1/solve", "{}", "text/plain")->status, 415);
  ASSERT_EQ(http_->Get("/v1/tables")->status, 200);
  ASSERT_EQ(http_->Get("/healthz")->status, 200);  // not an API call: not counted

  // The stream's end is counted when gRPC is done with the call, just after the client.
  std::map<Sample, double> m = Scrape();
  for (int i = 0; i < 5000 && Value(m, "puzzledb_streams_open") != 0; ++i) {
    std::this_thread::sleep_for(1ms);
    m = Scrape();
  }
  EXPECT_EQ(Calls(m, "Solve", "grpc", "table", "OK"), 3);
  EXPECT_EQ(Calls(m, "Solve", "grpc", "search", "OK"), 1);
  EXPECT_EQ(Calls(m, "Solve", "grpc", "none", "INVALID_ARGUMENT"), 1);
  EXPECT_EQ(Calls(m, "ListTables", "grpc", "none", "OK"), 1);
  EXPECT_EQ(Calls(m, "Analyze", "grpc", "table", "OK"), 1);
  EXPECT_EQ(Calls(m, "SolveStream", "grpc", "table", "OK"), 4);
  EXPECT_EQ(Calls(m, "SolveStream", "grpc", "none", "INVALID_ARGUMENT"), 1);
  EXPECT_EQ(Calls(m, "SolveBatch", "grpc", "table", "OK"), 3);
  EXPECT_EQ(Calls(m, "SolveBatch", "grpc", "none", "INVALID_ARGUMENT"), 1);
  EXPECT_EQ(Calls(m, "Solve", "http", "table", "OK"), 2);
  EXPECT_EQ(Calls(m, "Solve", "http", "none", "INVALID_ARGUMENT"), 2);  // the 400 and the 415
  EXPECT_EQ(Calls(m, "ListTables", "http", "none", "OK"), 1);
  // Nothing else: the sum of every call counter is the calls made above.
  double total = 0;
  for (const auto& [sample, value] : m) total += sample.name == "puzzledb_calls_total" ? value : 0;
  EXPECT_EQ(total, 3 + 1 + 1 + 1 + 1 + 5 + 4 + 2 + 2 + 1);

  EXPECT_EQ(Value(m, "puzzledb_table_answer_seconds_count", {{"method", "Solve"}}), 5);
  // A batch's table step is observed once, whatever it answered.
  EXPECT_EQ(Value(m, "puzzledb_table_answer_seconds_count", {{"method", "SolveStream"}}), 1);
  EXPECT_EQ(Value(m, "puzzledb_table_answer_seconds_count", {{"method", "SolveBatch"}}), 1);
  EXPECT_EQ(Value(m, "puzzledb_search_seconds_count", {{"method", "Solve"}}), 1);
  EXPECT_GT(Value(m, "puzzledb_search_seconds_sum", {{"method", "Solve"}}), 0);
  EXPECT_EQ(Value(m, "puzzledb_table_answer_seconds_bucket", {{"method", "Solve"}, {"le", "+Inf"}}),
            5);
  EXPECT_EQ(Value(m, "puzzledb_streams_total"), 1);
  EXPECT_EQ(Value(m, "puzzledb_streams_open"), 0);
  EXPECT_EQ(Value(m, "puzzledb_searches_refused_total"), 0);
  EXPECT_EQ(Value(m, "puzzledb_searches_running"), 0);
  EXPECT_EQ(Value(m, "puzzledb_searches_queued"), 0);
  EXPECT_EQ(Value(m, "puzzledb_search_slots"), std::max(1u, std::thread::hardware_concurrency()));
  // The same counts as the log's.
  EXPECT_EQ(server_->counters().table_answers.load(), 3u + 1 + 4 + 3 + 2);
  EXPECT_EQ(server_->counters().searches.load(), 1u);
  EXPECT_EQ(server_->counters().errors.load(), 1u + 1 + 1 + 2);

  // The tables, as ListTables describes them.
  auto tables = client_->ListTables();
  ASSERT_TRUE(tables.ok());
  m = Scrape();
  EXPECT_EQ(Value(m, "puzzledb_tables", {{"status", "loaded"}}), tables->tables_size());
  EXPECT_EQ(Value(m, "puzzledb_tables", {{"status", "refused"}}), 0);
  for (const v1::TableInfo& t : tables->tables()) {
    EXPECT_EQ(Value(m, "puzzledb_table_states", {{"table", t.table_id()}}),
              static_cast<double>(t.states()));
    EXPECT_EQ(Value(m, "puzzledb_table_bytes", {{"table", t.table_id()}}),
              static_cast<double>(t.size_bytes()));
    EXPECT_EQ(Value(m, "puzzledb_table_info",
                    {{"table", t.table_id()},
                     {"puzzle", t.puzzle()},
                     {"status", "LOADED"},
                     {"generation", std::to_string(t.generation())}}),
              1);
  }
  EXPECT_EQ(Value(m, "puzzledb_build_info", {{"version", PUZZLEDB_VERSION}}), 1);
  EXPECT_GT(Value(m, "process_resident_memory_bytes"), 10e6);
  EXPECT_GT(Value(m, "process_start_time_seconds"), 1.7e9);
  // No background builder: no build metrics.
  EXPECT_EQ(Value(m, "puzzledb_background_builds_queued"), -1);
  // The same text in-process (for servers run without HTTP).
  const std::string text = server_->MetricsText();
  EXPECT_EQ(ParseMetrics(text).count(Sample{"puzzledb_calls_total",
                                            {{"method", "Solve"},
                                             {"transport", "grpc"},
                                             {"source", "table"},
                                             {"code", "OK"}}}),
            1u);
}

// Calls on several threads over both transports, streams whose clients give up in the
// middle, and scrapes all the while: every scrape parses, the counters never go down, and
// at the end every call is counted exactly once and no stream is left open.
TEST_F(MetricsTest, ScrapesDuringLoadAndVanishingStreamsStayExact) {
  ServerOptions options;
  options.build_missing_tables = false;
  Start(options);
  constexpr int kThreads = 3, kCalls = 100, kStreams = 4;
  std::atomic<bool> done{false};
  std::atomic<int> scrapes{0};
  std::thread scraper([&] {
    httplib::Client http("127.0.0.1", server_->http_port());
    http.set_read_timeout(60, 0);
    double last_total = 0;
    while (!done) {
      auto res = http.Get("/metrics");
      ASSERT_TRUE(res && res->status == 200);
      double total = 0;
      for (const auto& [sample, value] : ParseMetrics(res->body)) {
        total += sample.name == "puzzledb_calls_total" ? value : 0;
      }
      EXPECT_GE(total, last_total);
      last_total = total;
      ++scrapes;
    }
  });
  std::vector<std::thread> callers;
  for (int t = 0; t < kThreads; ++t) {
    callers.emplace_back([&, t] {
      httplib::Client http("127.0.0.1", server_->http_port());
      http.set_read_timeout(60, 0);
      const std::string query = std::string("/v1/solve?puzzle=rotation&state=") + kRotation;
      for (int i = 0; i < kCalls; ++i) {
        if ((i + t) % 2 == 0) {
          EXPECT_TRUE(client_->Solve(RotationRequest()).ok());
        } else {
          auto res = http.Get(query);
          EXPECT_TRUE(res && res->status == 200);
        }
      }
    });
  }
  // Streams of searches for far knight boards (no knight table here) that run out of time:
  // the client goes away with searches running and answers unwritten.
  std::vector<v1::SolveRequest> far(6);
  for (auto& r : far) {
    r.mutable_puzzle()->mutable_knight()->set_board("0000000000001*11111111111");
    r.set_policy(v1::SEARCH_ONLY);
  }
  // The client cancels each stream itself while its searches run (a deadline would race
  // the server's: at the server's copy of it every search ends in band, and the stream could
  // finish first).
  auto stub = v1::Solver::NewStub(
      testing::ConnectedChannel("127.0.0.1:" + std::to_string(server_->port())));
  for (int s = 0; s < kStreams; ++s) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + 60s);
    auto stream = stub->SolveStream(&context);
    for (const auto& r : far) EXPECT_TRUE(stream->Write(r));
    stream->WritesDone();
    std::this_thread::sleep_for(200ms);  // the searches are running, their answers unwritten
    context.TryCancel();
    v1::SolveResponse response;
    while (stream->Read(&response)) {
    }
    EXPECT_EQ(stream->Finish().error_code(), grpc::StatusCode::CANCELLED);
  }
  for (auto& caller : callers) caller.join();
  std::map<Sample, double> m;
  for (int i = 0; i < 30000; ++i) {
    m = Scrape();
    if (Value(m, "puzzledb_streams_open") == 0 && Value(m, "puzzledb_searches_running") == 0) break;
    std::this_thread::sleep_for(1ms);
  }
  done = true;
  scraper.join();
  EXPECT_GT(scrapes.load(), 0);
  EXPECT_EQ(Value(m, "puzzledb_streams_open"), 0);
  EXPECT_EQ(Value(m, "puzzledb_streams_total"), kStreams);
  EXPECT_EQ(Calls(m, "Solve", "grpc", "table", "OK") + Calls(m, "Solve", "http", "table", "OK"),
            kThreads * kCalls);
  EXPECT_EQ(Value(m, "puzzledb_table_answer_seconds_count", {{"method", "Solve"}}),
            kThreads * kCalls);
}

TEST_F(MetricsTest, PromtoolAcceptsTheText) {
  ServerOptions options;
  Start(options);
  ASSERT_TRUE(client_->Solve(RotationRequest()).ok());
  ASSERT_TRUE(client_->Solve(RotationRequest(v1::SEARCH_ONLY)).ok());
  ASSERT_EQ(http_->Get("/v1/solve?puzzle=rotation&state=12")->status, 400);
  std::string text;
  Scrape(&text);
  const auto [status, output] = Promtool(text);
  EXPECT_EQ(status, 0) << output << "\n" << text;
  EXPECT_EQ(output, "") << text;
  // And it notices a broken text: the checker is really checking.
  const auto [bad_status, bad_output] =
      Promtool("# TYPE puzzledb_x counter\npuzzledb_x{a=\"1\"} 1\npuzzledb_x{a=\"1\"} 2\n");
  EXPECT_NE(bad_status, 0) << bad_output;
}

TEST_F(MetricsTest, RefusedAndRunningSearchesAreCounted) {
  ServerOptions options;
  options.max_concurrent_searches = 1;
  options.search_queue = 0;
  options.build_missing_tables = false;
  Start(options);
  // One long search holds the only slot (a knight board far from the goal, with no knight
  // table here); the second is refused at once.
  const std::string far = "/v1/solve?puzzle=knight&state=0000000000001*11111111111"
                          "&policy=search_only&timeout_ms=";
  std::thread holder([&] {
    httplib::Client other("127.0.0.1", server_->http_port());
    other.set_read_timeout(60, 0);
    other.Get(far + "4000");
  });
  while (server_->searches_running() == 0) std::this_thread::sleep_for(1ms);
  auto m = Scrape();
  auto refused = http_->Get(far + "1000");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 429);
  EXPECT_EQ(Value(m, "puzzledb_searches_running"), 1);
  EXPECT_EQ(Value(m, "puzzledb_search_slots"), 1);
  EXPECT_EQ(Value(m, "puzzledb_search_queue_limit"), 0);
  holder.join();
  m = Scrape();
  EXPECT_EQ(Value(m, "puzzledb_searches_refused_total"), 1);
  EXPECT_EQ(Calls(m, "Solve", "http", "refused", "RESOURCE_EXHAUSTED"), 1);
  // The holder's search ended by its deadline (or, on a very fast machine, by the node
  // budget): one search call, not OK.
  double holder_calls = 0;
  for (const auto& [sample, value] : m) {
    if (sample.name == "puzzledb_calls_total" && sample.labels.at("source") == "search") {
      holder_calls += value;
      EXPECT_NE(sample.labels.at("code"), "OK");
    }
  }
  EXPECT_EQ(holder_calls, 1);
  EXPECT_EQ(Value(m, "puzzledb_searches_running"), 0);
  EXPECT_EQ(server_->counters().refused_searches.load(), 1u);
}

TEST_F(MetricsTest, BackgroundBuildsAndTheirTablesAreCounted) {
  std::mutex mutex;
  std::condition_variable built_cv;
  int built = 0;
  ServerOptions options;
  options.on_table_built = [&](const std::string&) {
    std::lock_guard<std::mutex> lock(mutex);
    ++built;
    built_cv.notify_all();
  };
  const std::string db = testing::TempPath("metrics_build_db");
  fs::remove_all(db);
  fs::copy(*db_, db, fs::copy_options::recursive);
  Start(options, db);
  auto m = Scrape();
  EXPECT_EQ(Value(m, "puzzledb_background_builds_queued"), 0);
  EXPECT_EQ(Value(m, "puzzledb_background_builds_total", {{"result", "done"}}), 0);
  const double tables_before = Value(m, "puzzledb_tables", {{"status", "loaded"}}) +
                               Value(m, "puzzledb_tables", {{"status", "available"}});

  // A wiring with no table: searched, then built in the background.
  const auto wiring = *KnobsPuzzle::ParseOriginal(testing::Golden("knobs_9002.in"))[0].instance;
  v1::SolveRequest request;
  InstanceToWire(wiring, request.mutable_puzzle());
  auto answer = client_->Solve(request);
  ASSERT_TRUE(answer.ok()) << answer.status();
  EXPECT_EQ(answer->source(), v1::SEARCH);
  {
    std::unique_lock<std::mutex> lock(mutex);
    ASSERT_TRUE(built_cv.wait_for(lock, 120s, [&] { return built == 1; }));
  }
  m = Scrape();
  EXPECT_EQ(Value(m, "puzzledb_background_builds_total", {{"result", "done"}}), 1);
  EXPECT_EQ(Value(m, "puzzledb_background_builds_total", {{"result", "failed"}}), 0);
  EXPECT_EQ(Value(m, "puzzledb_background_builds_queued"), 0);
  EXPECT_GT(Value(m, "puzzledb_background_build_seconds_total"), 0);
  EXPECT_EQ(Value(m, "puzzledb_tables", {{"status", "loaded"}}) +
                Value(m, "puzzledb_tables", {{"status", "available"}}),
            tables_before + 1);
  TearDown();
  fs::remove_all(db);
}

}  // namespace
}  // namespace puzzledb
