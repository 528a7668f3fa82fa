// Puzzles as data served: a server started on a database that holds definitions (and no
// file of them) answers every sample's cases over gRPC and over HTTP in the generic form as
// the original output says, lists them, and refuses a bad state naming the set and the rule.
#include <algorithm>
#include <mutex>
#include <memory>
#include <csignal>
#include <atomic>
#include <chrono>
#include <optional>
#include <filesystem>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "client/puzzledb/client.h"
#include "grpcpp/grpcpp.h"
#include "puzzledb/v1/solver.grpc.pb.h"
#include "tests/channel.h"
#include "tests/edit_metadata.h"
#include "gtest/gtest.h"
#include "tests/raw_http.h"
#include "tests/server_process.h"
#include "tests/test_util.h"

namespace puzzledb {
namespace definition_server_test {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::string Sample(const std::string& name) {
  return std::string(PUZZLEDB_GOLDEN_DIR) + "/definitions/" + name;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The original output's line from an answer's outcome, distance and move names.
std::string OriginalLine(const std::string& outcome, int distance, const std::vector<std::string>& moves) {
  if (outcome != "SOLVED") return "-1";
  std::string line = std::to_string(distance);
  for (const std::string& m : moves) line += " " + m;
  return line;
}

// "1 6 3" as a query value.
std::string UrlEncoded(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == ' ') {
      out += '+';
    } else if (c == '|') {
      out += "%7C";
    } else if (c == '/') {
      out += "%2F";
    } else {
      out += c;
    }
  }
  return out;
}

// The strings of a JSON array field ("moves":["D","L"]) in a flat answer.
std::vector<std::string> JsonStrings(const std::string& body, const std::string& field) {
  std::vector<std::string> out;
  size_t at = body.find("\"" + field + "\":[");
  if (at == std::string::npos) return out;
  at = body.find('[', at) + 1;
  const size_t end = body.find(']', at);
  while (at < end) {
    const size_t open = body.find('"', at);
    if (open == std::string::npos || open > end) break;
    const size_t close = body.find('"', open + 1);
    out.push_back(body.substr(open + 1, close - open - 1));
    at = close + 1;
  }
  return out;
}

std::string JsonField(const std::string& body, const std::string& field) {
  const size_t at = body.find("\"" + field + "\":");
  if (at == std::string::npos) return "";
  size_t begin = at + field.size() + 3;
  if (body[begin] == '"') ++begin;
  size_t end = begin;
  while (end < body.size() && body[end] != '"' && body[end] != ',' && body[end] != '}') ++end;
  return body.substr(begin, end - begin);
}

// A GET of /v1/solve as the original output's line, or what went wrong.
std::string OverHttp(const testing::ServerProcess& server, const std::string& target) {
  testing::Raw http(server.http_port());
  if (!http.connected() || !http.Send(testing::Get(target))) return "no connection";
  const std::string reply = http.Answer();
  if (testing::StatusOf(reply) != 200) return "status " + std::to_string(testing::StatusOf(reply)) + ": " + reply;
  const std::string body = testing::BodyOf(reply);
  return OriginalLine(JsonField(body, "outcome"), std::atoi(JsonField(body, "distance").c_str()),
                      JsonStrings(body, "moves"));
}

// Every case of a sample, over gRPC in the generic form and over HTTP, as its original
// output says; a solved one (not at a goal) from `source`, a search's with its nodes.
void ExpectSamplesAnswered(Client& client, const testing::ServerProcess& server,
                           const std::string& name, v1::Source source) {
  const auto in = Lines(testing::ReadFile(Sample(name + ".in")));
  const auto want = Lines(testing::ReadFile(Sample(name + ".out")));
  ASSERT_EQ(in.size(), want.size()) << name;
  for (size_t i = 0; i < in.size(); ++i) {
    v1::SolveRequest request;
    request.mutable_puzzle()->set_name(name);
    request.mutable_puzzle()->set_state(in[i]);
    auto answer = client.Solve(request);
    ASSERT_TRUE(answer.ok()) << name << ": " << in[i] << ": " << answer.status();
    std::vector<std::string> moves(answer->moves().begin(), answer->moves().end());
    EXPECT_EQ(OriginalLine(v1::Outcome_Name(answer->outcome()), static_cast<int>(answer->distance()), moves),
              want[i])
        << name << " over gRPC: " << in[i];
    if (answer->outcome() == v1::SOLVED && answer->distance() > 0) {
      EXPECT_EQ(answer->source(), source) << name << ": " << in[i];
      if (source == v1::SEARCH) {
        // States searched, or looked up in the perimeter near the goals (all of a small
        // puzzle's states).
        EXPECT_GT(answer->nodes() + answer->lookups(), 0u) << name << ": " << in[i];
      }
    }
    EXPECT_EQ(OverHttp(server, "/v1/solve?puzzle=" + name + "&state=" + UrlEncoded(in[i])), want[i])
        << name << " over HTTP: " << in[i];
  }
}

TEST(DefinitionServerTest, TheSamplesAreAnsweredOverGrpcAndHttp) {
  const std::string db = testing::TempPath("definition_server_db");
  fs::remove_all(db);
  const std::vector<std::string> names = {"slide32", "pancake5", "dials3", "cube2urf"};
  std::string build = std::string(PUZZLEDB_BUILD) + " -q --db " + db;
  // From copies that are then deleted: the server has the database alone.
  const fs::path copies = testing::TempPath("definition_server_files");
  fs::create_directories(copies);
  for (const std::string& name : names) {
    fs::copy_file(Sample(name + ".tws"), copies / (name + ".tws"), fs::copy_options::overwrite_existing);
    build += " --definition " + (copies / (name + ".tws")).string();
  }
  const auto built = testing::RunCommand(build, "");
  ASSERT_EQ(built.exit_code, 0) << built.err;
  fs::remove_all(copies);

  testing::ServerProcess server(PUZZLEDB_SERVER, db, {"--no-build-missing-tables"},
                                testing::TempPath("definition_server.log"));
  ASSERT_FALSE(server.address().empty()) << server.Log();
  EXPECT_NE(server.Log().find("serving 4 puzzle(s) given as definitions"), std::string::npos) << server.Log();
  ClientOptions options;
  options.target = server.address();
  options.timeout = 10000ms;
  Client client(options);

  auto listed = client.ListPuzzles();
  ASSERT_TRUE(listed.ok()) << listed.status();
  std::vector<std::string> listed_names;
  for (const auto& p : listed->puzzles()) listed_names.push_back(p.name());
  for (const std::string& name : names) {
    EXPECT_NE(std::find(listed_names.begin(), listed_names.end(), name), listed_names.end()) << name;
  }

  for (const std::string& name : names) ExpectSamplesAnswered(client, server, name, v1::TABLE);

  // The command line against the server knows its definitions from ListPuzzles (their
  // files), and reads and writes their states itself.
  for (const std::string& name : names) {
    const auto solved = testing::RunCommand(std::string(PUZZLEDB_CLI) + " --server " + server.address() +
                                                " solve --puzzle " + name,
                                            testing::ReadFile(Sample(name + ".in")));
    EXPECT_EQ(solved.exit_code, 0) << solved.err;
    EXPECT_EQ(solved.out, testing::ReadFile(Sample(name + ".out"))) << name;
  }
  const auto scrambled = testing::RunCommand(std::string(PUZZLEDB_CLI) + " --server " + server.address() +
                                                 " solve --scramble --puzzle cube2urf",
                                             testing::ReadFile(Sample("cube2urf_scramble.in")));
  EXPECT_EQ(scrambled.out, testing::ReadFile(Sample("cube2urf_scramble.out"))) << scrambled.err;

  // Metrics list a definition's table as any other (its states, its puzzle).
  {
    testing::Raw http(server.http_port());
    ASSERT_TRUE(http.Send(testing::Get("/metrics")));
    const std::string metrics = http.Answer();
    EXPECT_NE(metrics.find("puzzledb_table_states{table=\"cube2urf\"} 3674160"), std::string::npos) << metrics;
    EXPECT_NE(metrics.find("table=\"slide32\",puzzle=\"slide32\",status=\"LOADED\""), std::string::npos)
        << metrics;
  }

  // bench over the server draws a definition's positions too (its file from ListPuzzles),
  // and every one is answered.
  for (const std::string mode : {"unary", "batch"}) {
    const auto bench = testing::RunCommand(std::string(PUZZLEDB_CLI) + " bench --server " + server.address() +
                                               " --puzzle cube2urf --seconds 0.3 --json --mode " + mode,
                                           "");
    EXPECT_EQ(bench.exit_code, 0) << bench.err;
    EXPECT_NE(bench.out.find("\"puzzle\":\"cube2urf\""), std::string::npos) << bench.out;
    EXPECT_NE(bench.out.find("\"errors\":0,"), std::string::npos) << bench.out;
    EXPECT_EQ(bench.out.find("\"solves\":0,"), std::string::npos) << bench.out;
  }

  // Move sequences instead of states (`scramble`): the same answers as the command line's
  // --scramble, over gRPC and HTTP.
  const auto scrambles = Lines(testing::ReadFile(Sample("cube2urf_scramble.in")));
  const auto scrambled_want = Lines(testing::ReadFile(Sample("cube2urf_scramble.out")));
  ASSERT_EQ(scrambles.size(), scrambled_want.size());
  for (size_t i = 0; i < scrambles.size(); ++i) {
    v1::SolveRequest request;
    request.mutable_puzzle()->set_name("cube2urf");
    request.mutable_puzzle()->set_scramble(scrambles[i]);
    auto answer = client.Solve(request);
    ASSERT_TRUE(answer.ok()) << scrambles[i] << ": " << answer.status();
    std::vector<std::string> moves(answer->moves().begin(), answer->moves().end());
    EXPECT_EQ(OriginalLine(v1::Outcome_Name(answer->outcome()), static_cast<int>(answer->distance()), moves),
              scrambled_want[i])
        << "over gRPC: " << scrambles[i];
    EXPECT_EQ(OverHttp(server, "/v1/solve?puzzle=cube2urf&scramble=" + UrlEncoded(scrambles[i])),
              scrambled_want[i])
        << "over HTTP: " << scrambles[i];
  }
  // A scramble that names no move, one with a state too, and one for a puzzle with
  // parameters: refused naming the move and what to do, on both.
  struct BadScramble {
    std::string puzzle, query, grpc_state, scramble, says;
  };
  const std::vector<BadScramble> bad_scrambles = {
      {"cube2urf", "scramble=U+X+F", "", "U X F",
       "is no move of the cube2urf puzzle there"},
      {"cube2urf", "scramble=U&state=x", "x", "U", "both"},
      {"knobs", "scramble=1", "", "1", "carry parameters"},
  };
  for (const BadScramble& b : bad_scrambles) {
    v1::SolveRequest request;
    request.mutable_puzzle()->set_name(b.puzzle);
    request.mutable_puzzle()->set_scramble(b.scramble);
    if (!b.grpc_state.empty()) request.mutable_puzzle()->set_state(b.grpc_state);
    const auto answer = client.Solve(request);
    ASSERT_FALSE(answer.ok()) << b.scramble;
    EXPECT_EQ(answer.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(answer.status().message()).find(b.says), std::string::npos) << answer.status();
    testing::Raw http(server.http_port());
    ASSERT_TRUE(http.Send(testing::Get("/v1/solve?puzzle=" + b.puzzle + "&" + b.query)));
    const std::string reply = http.Answer();
    EXPECT_EQ(testing::StatusOf(reply), 400) << reply;
    EXPECT_NE(reply.find(b.says), std::string::npos) << reply;
  }

  // A bad state: refused naming the set and the rule, on both.
  v1::SolveRequest bad;
  bad.mutable_puzzle()->set_name("slide32");
  bad.mutable_puzzle()->set_state("1 2 3 4 5 5");
  const auto refused = client.Solve(bad);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(std::string(refused.status().message()).find("set T: holds label 5 2 times, the goal once"),
            std::string::npos)
      << refused.status();
  testing::Raw http(server.http_port());
  ASSERT_TRUE(http.Send(testing::Get("/v1/solve?puzzle=slide32&state=1+2+3+4+5+5")));
  const std::string reply = http.Answer();
  EXPECT_EQ(testing::StatusOf(reply), 400) << reply;
  EXPECT_NE(reply.find("set T: holds label 5 2 times, the goal once"), std::string::npos) << reply;
  fs::remove_all(db);
}

// Puzzles given as definitions added, replaced and removed while a server serves the
// database (docs/OPERATIONS.md, "Adding and removing puzzles while serving"): the same
// puzzledb-build commands, which build aside and hand the tables over through the
// database's folder. The server serves each change at once; calls in flight on other
// puzzles and on the one changed are answered exactly throughout (a removed one's, after
// its removal, refused as unknown); GET /v1/puzzles, ListTables and the metrics follow; a
// restart serves what the database now holds. A malformed request is answered failed; a
// server that does not answer times out; one that stops before it answers leaves the
// tables to the build, which takes them itself.
TEST(DefinitionServerTest, DefinitionsAreAddedReplacedAndRemovedWhileServing) {
  const std::string db = testing::TempPath("definition_server_live_db");
  fs::remove_all(db);
  const std::string build = std::string(PUZZLEDB_BUILD) + " --db " + db;
  ASSERT_EQ(testing::RunCommand(build + " -q --definition " + Sample("slide32.tws"), "").exit_code, 0);
  auto server = std::make_unique<testing::ServerProcess>(PUZZLEDB_SERVER, db, std::vector<std::string>{},
                                                         testing::TempPath("definition_server_live.log"));
  ASSERT_FALSE(server->address().empty()) << server->Log();
  ClientOptions options;
  options.target = server->address();
  options.timeout = 30000ms;
  Client client(options);

  // Calls that keep coming while the puzzles change: slide32's cases (exact until it is
  // removed, then unknown) and the 8-puzzle's (searched, no table: exact throughout).
  const auto slide_in = Lines(testing::ReadFile(Sample("slide32.in")));
  const auto slide_out = Lines(testing::ReadFile(Sample("slide32.out")));
  std::atomic<bool> stop{false}, removing{false};
  std::atomic<int> answered{0}, unknown{0}, wrong{0};
  std::string first_wrong;
  std::mutex wrong_mutex;
  std::thread traffic([&] {
    Client caller(options);
    for (size_t i = 0; !stop.load(); ++i) {
      const size_t k = i % slide_in.size();
      v1::SolveRequest request;
      request.mutable_puzzle()->set_name("slide32");
      request.mutable_puzzle()->set_state(slide_in[k]);
      const bool after = removing.load();
      auto answer = caller.Solve(request);
      std::string got;
      if (answer.ok()) {
        std::vector<std::string> moves(answer->moves().begin(), answer->moves().end());
        got = OriginalLine(v1::Outcome_Name(answer->outcome()), static_cast<int>(answer->distance()), moves);
      }
      if (answer.ok() && got == slide_out[k]) {
        ++answered;
      } else if (after && !answer.ok() && absl::IsInvalidArgument(answer.status()) &&
                 std::string(answer.status().message()).find("unknown puzzle 'slide32'") != std::string::npos) {
        ++unknown;
      } else {
        ++wrong;
        std::lock_guard<std::mutex> lock(wrong_mutex);
        if (first_wrong.empty()) first_wrong = answer.ok() ? slide_in[k] + " -> " + got : std::string(answer.status().message());
      }
      v1::SolveRequest eight;
      eight.mutable_puzzle()->set_name("eight");
      eight.mutable_puzzle()->set_state("283104765");
      auto searched = caller.Solve(eight);
      if (!searched.ok() || searched->distance() != 4) {
        ++wrong;
        std::lock_guard<std::mutex> lock(wrong_mutex);
        if (first_wrong.empty()) first_wrong = "eight: " + (searched.ok() ? std::to_string(searched->distance()) : std::string(searched.status().message()));
      }
    }
  });
  auto listed_names = [&] {
    std::vector<std::string> names;
    auto listed = client.ListPuzzles();
    if (listed.ok()) {
      for (const auto& p : listed->puzzles()) names.push_back(p.name() + ":" + p.title());
    }
    return names;
  };
  auto has = [](const std::vector<std::string>& names, const std::string& name) {
    return std::any_of(names.begin(), names.end(), [&](const std::string& n) { return n.rfind(name + ":", 0) == 0; });
  };
  auto metrics = [&] {
    testing::Raw http(server->http_port());
    if (!http.Send(testing::Get("/metrics"))) return std::string();
    return http.Answer();
  };

  // Added: the build says it handed the table over, and the server serves it already.
  const auto added = testing::RunCommand(build + " --definition " + Sample("pancake5.tws"), "");
  ASSERT_EQ(added.exit_code, 0) << added.err;
  EXPECT_NE(added.err.find("a puzzledb-server (pid " + std::to_string(server->pid()) + ") serves " + db +
                           ": building into " + db + "/handover/"),
            std::string::npos)
      << added.err;
  EXPECT_NE(added.out.find("handed over to the puzzledb-server (pid " + std::to_string(server->pid()) +
                           "): serving pancake5: tables pancake5 (generation 1, 120 entries)"),
            std::string::npos)
      << added.out;
  EXPECT_TRUE(has(listed_names(), "pancake5"));
  ExpectSamplesAnswered(client, *server, "pancake5", v1::TABLE);
  {
    const std::string text = metrics();
    EXPECT_NE(text.find("puzzledb_table_info{table=\"pancake5\",puzzle=\"pancake5\""), std::string::npos) << text;
    EXPECT_NE(text.find("puzzledb_puzzle_requests_total{result=\"imported\"} 1"), std::string::npos) << text;
    EXPECT_NE(text.find("puzzledb_puzzles 8"), std::string::npos) << text;
  }
  EXPECT_TRUE(fs::is_empty(db + "/handover")) << "the folder aside is removed";

  // Replaced: slide32 built again, with pattern tables and another title, while its calls
  // go on; its complete table goes.
  const std::string again = (fs::path(testing::TempPath("definition_server_live_files")) / "slide32.tws").string();
  fs::create_directories(fs::path(again).parent_path());
  testing::WriteFile(again, [&] {
    std::string text = testing::ReadFile(Sample("slide32.tws"));
    text.replace(text.find("Name Slide32"), 12, "Name Slide32 as patterns");
    return text;
  }());
  const auto replaced = testing::RunCommand(
      build + " -q --definition " + again + " --projection 'T 1-2 ~6' --projection 'T 3-5 ~6'", "");
  ASSERT_EQ(replaced.exit_code, 0) << replaced.err;
  EXPECT_NE(replaced.out.find("serving slide32: tables slide32-patterns (generation 1, 150 entries); removed slide32"),
            std::string::npos)
      << replaced.out;
  const auto names = listed_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "slide32:Slide32 as patterns"), names.end());
  EXPECT_EQ(std::count_if(names.begin(), names.end(), [](const std::string& n) { return n.rfind("slide32:", 0) == 0; }), 1);
  ExpectSamplesAnswered(client, *server, "slide32", v1::SEARCH);
  {
    auto tables = client.ListTables();
    ASSERT_TRUE(tables.ok());
    std::vector<std::string> ids;
    for (const auto& t : tables->tables()) {
      ids.push_back(t.table_id());
      EXPECT_EQ(t.status().rfind("REFUSED", 0), std::string::npos) << t.table_id() << ": " << t.status();
    }
    EXPECT_EQ(ids, (std::vector<std::string>{"pancake5", "slide32-patterns"}));
  }
  // Every call so far got its exact answer.
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(wrong.load(), 0) << first_wrong;

  // Removed: unknown at once to calls that come after; its tables gone.
  removing = true;
  const auto removed = testing::RunCommand(std::string(PUZZLEDB_BUILD) + " remove --db " + db + " --puzzle slide32", "");
  ASSERT_EQ(removed.exit_code, 0) << removed.err;
  EXPECT_EQ(removed.out, "the puzzledb-server (pid " + std::to_string(server->pid()) +
                             ") removed slide32 and its tables slide32-patterns\n");
  EXPECT_FALSE(has(listed_names(), "slide32"));
  v1::SolveRequest gone;
  gone.mutable_puzzle()->set_name("slide32");
  gone.mutable_puzzle()->set_state(slide_in[0]);
  EXPECT_NE(std::string(client.Solve(gone).status().message()).find("unknown puzzle 'slide32'"), std::string::npos);
  const auto built_in = testing::RunCommand(std::string(PUZZLEDB_BUILD) + " remove --db " + db + " --puzzle eight", "");
  EXPECT_EQ(built_in.exit_code, 1);
  EXPECT_NE(built_in.err.find("the eight puzzle is built in: its tables are built again, not removed"), std::string::npos)
      << built_in.err;
  // The traffic's calls after the removal: at least one, however slow the machine (a call
  // begun before it may still be running: under the sanitizers with every core busy, the
  // slide32 search and the 8-puzzle's outlasted a fixed 200 ms).
  std::this_thread::sleep_for(200ms);
  for (int i = 0; i < 600 && unknown.load() == 0; ++i) std::this_thread::sleep_for(50ms);
  stop = true;
  traffic.join();
  EXPECT_EQ(wrong.load(), 0) << first_wrong;
  EXPECT_GT(answered.load(), 10);
  EXPECT_GT(unknown.load(), 0);
  {
    const std::string text = metrics();
    EXPECT_NE(text.find("puzzledb_puzzle_requests_total{result=\"removed\"} 1"), std::string::npos) << text;
    EXPECT_NE(text.find("puzzledb_puzzle_requests_total{result=\"failed\"} 1"), std::string::npos) << text;
    EXPECT_EQ(text.find("table=\"slide32"), std::string::npos) << text;
  }

  // A request that is not one is answered failed, naming why.
  testing::WriteFile(db + "/requests/zz.request", "puzzledb request 1\nimport ../../etc\n");
  for (int i = 0; i < 500 && !fs::exists(db + "/requests/zz.answer"); ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(testing::ReadFile(db + "/requests/zz.answer"), "failed\nimport: '../../etc' is not a name\n");

  // A server that does not answer (stopped): the build gives up at --handover-timeout. And
  // one that dies before it answers: the build takes its tables itself.
  ::kill(server->pid(), SIGSTOP);
  const auto waited = testing::RunCommand(build + " -q --handover-timeout 1 --definition " + Sample("dials3.tws"), "");
  EXPECT_EQ(waited.exit_code, 1);
  EXPECT_NE(waited.err.find("did not answer within 1 s (--handover-timeout)"), std::string::npos) << waited.err;
  testing::Process late = testing::StartProcess(
      {PUZZLEDB_BUILD, "--db", db, "-q", "--definition", Sample("dials3.tws")}, testing::TempPath("definition_server_late.err"));
  bool asked = false;  // once its request waits in the folder
  for (int i = 0; i < 6000 && !asked; ++i) {
    for (const auto& entry : fs::directory_iterator(db + "/requests")) asked |= entry.path().extension() == ".request";
    if (!asked) std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(asked) << testing::ReadFile(late.stderr_path);
  ::kill(server->pid(), SIGKILL);
  server->Stop(0);
  EXPECT_EQ(testing::WaitProcess(late, 60), 0) << testing::ReadFile(late.stderr_path);
  EXPECT_NE(testing::ReadFile(late.stderr_path).find("stopped before it answered; taking the tables here"),
            std::string::npos)
      << testing::ReadFile(late.stderr_path);

  // Started again: what the database holds now, and nothing of the removed puzzle.
  server = std::make_unique<testing::ServerProcess>(PUZZLEDB_SERVER, db, std::vector<std::string>{"--no-build-missing-tables"},
                                                    testing::TempPath("definition_server_live_again.log"));
  ASSERT_FALSE(server->address().empty()) << server->Log();
  options.target = server->address();
  Client after(options);
  ExpectSamplesAnswered(after, *server, "pancake5", v1::TABLE);
  ExpectSamplesAnswered(after, *server, "dials3", v1::TABLE);
  auto relisted = after.ListPuzzles();
  ASSERT_TRUE(relisted.ok());
  for (const auto& p : relisted->puzzles()) EXPECT_NE(p.name(), "slide32");
  EXPECT_EQ(server->Stop(SIGTERM), 0) << server->Log();
  fs::remove_all(db);
}

// A definition with parameters served (tests/golden/definitions/wired3.tws): the database
// holds its example's table; a case of other values is answered by search at once, and the
// server builds that set's table in the background, after which it answers from the table,
// over gRPC, HTTP and the command line (which reads the file the server lists).
TEST(DefinitionServerTest, AnotherSetOfValuesGetsItsTableOnDemand) {
  const std::string db = testing::TempPath("definition_family_db");
  fs::remove_all(db);
  const auto built = testing::RunCommand(
      Cat(PUZZLEDB_BUILD, " -q --db ", db, " --definition ", Sample("wired3.tws")), "");
  ASSERT_EQ(built.exit_code, 0) << built.err;
  testing::ServerProcess server(PUZZLEDB_SERVER, db, {}, testing::TempPath("definition_family.log"));
  ASSERT_FALSE(server.address().empty()) << server.Log();
  ClientOptions options;
  options.target = server.address();
  options.timeout = 10000ms;
  Client client(options);
  v1::SolveRequest request;
  request.mutable_puzzle()->set_name("wired3");
  request.mutable_puzzle()->set_state("3 1 2 5 ; 1 2 3 / 4 4 0");
  auto first = client.Solve(request);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->distance(), 1u);
  EXPECT_EQ(first->source(), v1::SEARCH);
  // The table of these values appears.
  std::string id;
  for (const auto deadline = std::chrono::steady_clock::now() + 60s; std::chrono::steady_clock::now() < deadline;) {
    auto tables = client.ListTables();
    ASSERT_TRUE(tables.ok()) << tables.status();
    for (const auto& t : tables->tables()) {
      if (t.puzzle() == "wired3" && t.parameters().find("N 5") != std::string::npos) id = t.table_id();
    }
    if (!id.empty()) break;
    std::this_thread::sleep_for(100ms);
  }
  ASSERT_FALSE(id.empty()) << server.Log();
  EXPECT_EQ(id.rfind("wired3-", 0), 0u);
  std::optional<v1::SolveResponse> later;
  for (const auto deadline = std::chrono::steady_clock::now() + 30s; std::chrono::steady_clock::now() < deadline;) {
    auto again = client.Solve(request);
    ASSERT_TRUE(again.ok()) << again.status();
    if (again->source() == v1::TABLE) {
      later = *again;
      break;
    }
    std::this_thread::sleep_for(100ms);
  }
  ASSERT_TRUE(later.has_value()) << server.Log();
  EXPECT_EQ(later->table_id(), id);
  EXPECT_EQ(later->distance(), 1u);
  EXPECT_EQ(OverHttp(server, "/v1/solve?puzzle=wired3&state=" + UrlEncoded("3 1 2 5 %3B 1 2 3 / 4 4 2")),
            "10 T1 T1 T1 T1 T2 T2 T3 T3 T3 T3");
  // Values that break the file's rule: refused naming its line, over both.
  request.mutable_puzzle()->set_state("1 1 2 5 ; 1 2 3 / 4 4 0");
  auto refused = client.Solve(request);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("wired3.tws:23 (k=1): dial 1 is wired to itself"), std::string::npos)
      << refused.status();
  const auto solved = testing::RunCommand(Cat(PUZZLEDB_CLI, " --server ", server.address(), " solve --puzzle wired3"),
                                          "3 1 2 5 ; 1 2 3 / 4 4 2\n2 3 1 3 ; 1 2 3 / 1 2 0\n");
  EXPECT_EQ(solved.exit_code, 0) << solved.err;
  EXPECT_EQ(solved.out, "10 T1 T1 T1 T1 T2 T2 T3 T3 T3 T3\n3 T2 T3 T3\n");
  fs::remove_all(db);
}

// A stored definition that fails its checksum is not served, and the server says so where
// one looks: GetTables lists it REFUSED with why (as a damaged table), and a request that
// names it is told why beside "unknown puzzle", over gRPC and HTTP.
TEST(DefinitionServerTest, ADefinitionThatFailsItsChecksumIsListedRefused) {
  const std::string db = testing::TempPath("definition_server_damaged_db");
  fs::remove_all(db);
  ASSERT_EQ(testing::RunCommand(std::string(PUZZLEDB_BUILD) + " -q --db " + db + " --definition " +
                                    Sample("pancake5.tws"), "")
                .exit_code,
            0);
  testing::EditMetadata(db, "pancake5", [](storage::v1::TableMetadata* m) {
    std::string text = m->parameters();
    text.replace(text.find("Name Pancake5"), 13, "Name Pancake6");
    m->set_parameters(text);
  });
  testing::ServerProcess server(PUZZLEDB_SERVER, db, {"--no-build-missing-tables"},
                                testing::TempPath("definition_server_damaged.log"));
  ASSERT_FALSE(server.address().empty()) << server.Log();
  ClientOptions options;
  options.target = server.address();
  options.timeout = 10000ms;
  Client client(options);
  const auto tables = client.ListTables();
  ASSERT_TRUE(tables.ok()) << tables.status();
  ASSERT_EQ(tables->tables_size(), 1);
  EXPECT_EQ(tables->tables(0).status().rfind("REFUSED: its stored definition fails its checksum (crc32 ", 0), 0u)
      << tables->tables(0).status();
  testing::Raw http(server.http_port());
  ASSERT_TRUE(http.Send(testing::Get("/v1/tables")));
  const std::string listed = http.Answer();
  EXPECT_NE(listed.find("\"status\":\"REFUSED: its stored definition fails its checksum"), std::string::npos)
      << listed;
  v1::SolveRequest request;
  request.mutable_puzzle()->set_name("pancake5");
  request.mutable_puzzle()->set_state("2 1 3 4 5");
  const auto answer = client.Solve(request);
  ASSERT_FALSE(answer.ok());
  EXPECT_NE(std::string(answer.status().message())
                .find("puzzle.name: unknown puzzle 'pancake5' (the database holds it, not served: its "
                      "stored definition fails its checksum"),
            std::string::npos)
      << answer.status();
  testing::Raw again(server.http_port());
  ASSERT_TRUE(again.Send(testing::Get("/v1/solve?puzzle=pancake5&state=2+1+3+4+5")));
  const std::string reply = again.Answer();
  EXPECT_EQ(testing::StatusOf(reply), 400) << reply;
  EXPECT_NE(reply.find("(the database holds it, not served: its stored definition fails its checksum"),
            std::string::npos)
      << reply;
  fs::remove_all(db);
}

// Definitions served with pattern tables of projections (no complete table): the samples
// answered by the live search over gRPC and HTTP as their complete tables answer them,
// source SEARCH; analyze answered by searches; sampling refused saying why; and a search
// that cannot finish (the fifteen puzzle written as a definition, weak tables, Korf's
// first board) ended by the server's node budget and by the call's deadline, on both.
TEST(DefinitionServerTest, PatternTablesGuideTheServersSearches) {
  const std::string db = testing::TempPath("definition_patterns_db");
  fs::remove_all(db);
  const std::string build = std::string(PUZZLEDB_BUILD) + " -q --threads 2 --db " + db;
  for (const std::string& args :
       {" --definition " + Sample("slide32.tws") + " --projection 'T 1-3,6' --projection 'T 4-6'",
        " --definition " + Sample("cube2urf.tws") + " --projection 'CORNER 1-4'",
        " --definition " + Sample("slide44.tws") + " --projection 'T 1-2,16'"}) {
    const auto built = testing::RunCommand(build + args, "");
    ASSERT_EQ(built.exit_code, 0) << args << ": " << built.err;
  }
  testing::ServerProcess server(PUZZLEDB_SERVER, db,
                                // A deadline far past the budget: on a busy machine (a search
                                // runs at nice 10) the budget, not the deadline, ends the
                                // search that cannot finish.
                                {"--no-build-missing-tables", "--search-node-budget", "1000000",
                                 "--default-deadline", "300"},
                                testing::TempPath("definition_patterns_server.log"));
  ASSERT_FALSE(server.address().empty()) << server.Log();
  ClientOptions options;
  options.target = server.address();
  // The budget's million nodes take about 30 s under ASan on two cores kept busy: the
  // client waits far longer than that, and less than the server's deadline.
  options.timeout = 150000ms;
  Client client(options);

  for (const std::string name : {"slide32", "cube2urf"}) {
    ExpectSamplesAnswered(client, server, name, v1::SEARCH);
  }
  // An analysis: every move's distance by a search of its own.
  {
    testing::Raw http(server.http_port());
    ASSERT_TRUE(http.Send(testing::Get("/v1/analyze?puzzle=slide32&state=1+6+3+2+5+4")));
    const std::string reply = http.Answer();
    EXPECT_EQ(testing::StatusOf(reply), 200) << reply;
    EXPECT_NE(reply.find("\"distance\":14"), std::string::npos) << reply;
  }
  // Sampling needs a complete table: refused, saying so.
  {
    testing::Raw http(server.http_port());
    ASSERT_TRUE(http.Send(testing::Get("/v1/sample?puzzle=cube2urf&distance=3&count=2")));
    const std::string reply = http.Answer();
    EXPECT_EQ(testing::StatusOf(reply), 412) << reply;
    EXPECT_NE(reply.find("sampling draws states at an exact distance from a complete table"), std::string::npos)
        << reply;
  }

  // Korf's first board (57 moves), far beyond what the budget lets these tables reach.
  const std::string korf = "13 6 8 12 15 14 16 10 11 7 4 5 9 1 3 2";
  v1::SolveRequest far;
  far.mutable_puzzle()->set_name("slide44");
  far.mutable_puzzle()->set_state(korf);
  const auto spent = client.Solve(far);
  ASSERT_FALSE(spent.ok());
  EXPECT_EQ(spent.status().code(), absl::StatusCode::kResourceExhausted) << spent.status();
  EXPECT_NE(std::string(spent.status().message()).find("1000000"), std::string::npos) << spent.status();
  {
    testing::Raw http(server.http_port());
    ASSERT_TRUE(http.Send(testing::Get("/v1/solve?puzzle=slide44&state=" + UrlEncoded(korf))));
    const std::string reply = http.Answer(150s);  // as the client's timeout above
    EXPECT_EQ(testing::StatusOf(reply), 429) << reply;
  }
  far.set_timeout_ms(100);
  const auto late = client.Solve(far);
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(late.status().code(), absl::StatusCode::kDeadlineExceeded) << late.status();
  {
    testing::Raw http(server.http_port());
    ASSERT_TRUE(http.Send(testing::Get("/v1/solve?puzzle=slide44&timeout_ms=100&state=" + UrlEncoded(korf))));
    const std::string reply = http.Answer();
    EXPECT_EQ(testing::StatusOf(reply), 504) << reply;
  }
  // The other parity is answered at once, searched not at all.
  v1::SolveRequest odd;
  odd.mutable_puzzle()->set_name("slide44");
  odd.mutable_puzzle()->set_state("6 13 8 12 15 14 16 10 11 7 4 5 9 1 3 2");
  const auto unsolvable = client.Solve(odd);
  ASSERT_TRUE(unsolvable.ok()) << unsolvable.status();
  EXPECT_EQ(unsolvable->outcome(), v1::UNSOLVABLE);
  // Streams of such searches (and quick ones) cut by the client at random points, while
  // their searches queue or run: neither side may crash or race (the sanitizer pass), and
  // the server answers exactly afterwards.
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(300 + t);
      auto stub = v1::Solver::NewStub(testing::ConnectedChannel(server.address()));
      for (int s = 0; s < 60; ++s) {
        grpc::ClientContext context;
        context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(rng() % 60));
        auto stream = stub->SolveStream(&context);
        const int requests = 1 + static_cast<int>(rng() % 6);
        for (int r = 0; r < requests; ++r) {
          v1::SolveRequest request;
          request.mutable_puzzle()->set_name("slide44");
          if (rng() % 2) {
            request.mutable_puzzle()->set_state(korf);
          } else {
            request.mutable_puzzle()->set_scramble("U L D R U");
          }
          request.set_id(static_cast<uint64_t>(r));
          if (!stream->Write(request)) break;
        }
        if (rng() % 2) stream->WritesDone();
        v1::SolveResponse response;
        if (rng() % 2 && stream->Read(&response) && !response.has_error() && response.distance() != 5) ++wrong;
        if (rng() % 2) context.TryCancel();  // else the deadline cuts it
        (void)stream->Finish();
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
  // The server still answers (its searches ended).
  v1::SolveRequest near;
  near.mutable_puzzle()->set_name("slide44");
  near.mutable_puzzle()->set_scramble("U L D R U");
  const auto answered = client.Solve(near);
  ASSERT_TRUE(answered.ok()) << answered.status();
  EXPECT_EQ(answered->distance(), 5u);
  fs::remove_all(db);
}

}  // namespace definition_server_test
}  // namespace puzzledb
