// Three real replicas behind a balancer: Debian's nginx with the configuration the build
// writes (build/deploy/nginx/puzzledb.conf, from deploy/nginx/puzzledb.conf.in; only its
// addresses changed), or the client library's own list of replicas (docs/OPERATIONS.md,
// "Replicas behind nginx"; docs/API.md, "Table affinity"). Both follow one rule:
//  - the calls of the tables every replica holds (the default database's, and those an
//    operator lists) are spread: 3,000 knight answers, 30 bulk runs of the command line and
//    30 fifteen-puzzle searches leave no replica more than 40 % of them, and every answer
//    is the one a replica gives directly;
//  - the calls of a table built on demand go to one replica, so each knobs wiring's table is
//    built on exactly one; a replica stopped with SIGTERM loses no call (nginx retries a
//    refused or broken connection on the next replica, the client library the next replica
//    in its order, and both retry a call the stopping replica cancelled); its wirings move
//    to the others, and nothing else moves.
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <map>
#include <numeric>
#include <sstream>
#include <random>
#include <regex>
#include <set>
#include <thread>

#include "core/puzzles/default_tables.h"
#include "core/puzzles/knobs.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "puzzledb/client.h"
#include "puzzledb/verify.h"
#include "service/wire.h"
#include "tests/server_process.h"
#include "tests/test_util.h"

namespace puzzledb {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

sockaddr_in Loopback(int port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<uint16_t>(port));
  return address;
}

// A loopback port free now (bound and released: nginx may lose it to another program
// before it binds, in which case it is started again on other ports).
int FreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address = Loopback(0);
  ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  socklen_t length = sizeof address;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  ::close(fd);
  return ntohs(address.sin_port);
}

bool Accepts(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  const sockaddr_in address = Loopback(port);
  const bool ok = ::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0;
  ::close(fd);
  return ok;
}

// nginx as this user, in a directory of its own, with the project's configuration pointed at
// the replicas.
class Nginx {
 public:
  // `replicated`: the operator's own list of tables every replica holds.
  Nginx(const std::string& dir, const std::vector<const testing::ServerProcess*>& replicas,
        const std::vector<std::string>& replicated = {})
      : dir_(dir) {
    fs::create_directories(dir_ + "/logs");
    fs::create_directories(dir_ + "/tables.d");
    std::string list;
    for (const std::string& id : replicated) list += id + " 1;\n";
    if (!list.empty()) testing::WriteFile(dir_ + "/tables.d/ours.map", list);
    std::string conf = testing::ReadFile(PUZZLEDB_NGINX_CONF);
    const std::string include = std::string("include ") + PUZZLEDB_NGINX_EXTRA_TABLES + ";";
    const size_t at = conf.find(include);
    EXPECT_NE(at, std::string::npos) << "the operator's list is not included";
    if (at != std::string::npos) {
      conf.replace(at, include.size(), "include " + dir_ + "/tables.d/*.map;");
    }
    // The replicas' addresses: the shipped file lists 127.0.0.1:5005N and :808N, in every
    // upstream.
    for (size_t i = 0; i < replicas.size(); ++i) {
      const std::string n = std::to_string(i + 1);
      conf = std::regex_replace(conf, std::regex("server 127\\.0\\.0\\.1:5005" + n + " "),
                                "server " + replicas[i]->address() + " ");
      conf = std::regex_replace(
          conf, std::regex("server 127\\.0\\.0\\.1:808" + n + " "),
          "server 127.0.0.1:" + std::to_string(replicas[i]->http_port()) + " ");
    }
    EXPECT_EQ(conf.find("server 127.0.0.1:5005"), std::string::npos) << "a replica address was not replaced";
    for (int attempt = 0; attempt < 5 && grpc_port_ == 0; ++attempt) {
      const int grpc_port = FreePort(), http_port = FreePort();
      std::string ours = std::regex_replace(conf, std::regex("listen 127\\.0\\.0\\.1:50050 "),
                                            "listen 127.0.0.1:" + std::to_string(grpc_port) + " ");
      ours = std::regex_replace(ours, std::regex("listen 127\\.0\\.0\\.1:8080;"),
                                "listen 127.0.0.1:" + std::to_string(http_port) + ";");
      testing::WriteFile(dir_ + "/puzzledb.conf", ours);
      std::string main = "daemon off;\nworker_processes 1;\npid " + dir_ + "/nginx.pid;\n" +
                         "error_log " + dir_ + "/logs/error.log info;\n";
      // As root, nginx's workers would switch to nobody, who cannot write here: stay root.
      if (::geteuid() == 0) main += "user root;\n";
      main += "events { worker_connections 1024; }\nhttp {\n  access_log " + dir_ +
              "/logs/access.log;\n";
      for (const char* temp : {"client_body", "proxy", "fastcgi", "uwsgi", "scgi"}) {
        main += std::string("  ") + temp + "_temp_path " + dir_ + "/" + temp + ";\n";
      }
      main += "  include " + dir_ + "/puzzledb.conf;\n}\n";
      testing::WriteFile(dir_ + "/nginx.conf", main);
      process_ = testing::StartProcess(
          {PUZZLEDB_NGINX, "-p", dir_, "-c", dir_ + "/nginx.conf", "-e", dir_ + "/logs/error.log"},
          dir_ + "/stderr.log");
      for (int i = 0; i < 1000; ++i) {
        if (Accepts(grpc_port) && Accepts(http_port)) {
          grpc_port_ = grpc_port;
          http_port_ = http_port;
          break;
        }
        if (::waitpid(process_.pid, nullptr, WNOHANG) == process_.pid) {  // lost a port
          process_.pid = -1;
          break;
        }
        std::this_thread::sleep_for(10ms);
      }
      if (grpc_port_ == 0) Stop();
    }
  }
  ~Nginx() { Stop(); }

  int grpc_port() const { return grpc_port_; }
  int http_port() const { return http_port_; }
  std::string Log() const { return testing::ReadFile(dir_ + "/logs/error.log"); }

  void Stop() {
    if (process_.pid <= 0) return;
    ::kill(process_.pid, SIGQUIT);  // graceful
    if (testing::WaitProcess(process_, 30) == -1) {
      ::kill(process_.pid, SIGKILL);
      testing::WaitProcess(process_, 10);
    }
    process_.pid = -1;
  }

 private:
  std::string dir_;
  testing::Process process_;
  int grpc_port_ = 0;
  int http_port_ = 0;
};

// `count` wirings no table covers, each with a state of an even knob sum (the first 30 are
// always the same).
std::vector<v1::Puzzle> Wirings(size_t count = 30) {
  std::mt19937 random(20261130);
  std::vector<v1::Puzzle> puzzles;
  while (puzzles.size() < count) {
    v1::Puzzle puzzle;
    auto* knobs = puzzle.mutable_knobs();
    int sum = 0;
    for (int knob = 1; knob <= 12; ++knob) {
      const int position = 1 + static_cast<int>(random() % 4);
      sum += position;
      knobs->add_positions(position);
      for (int wire = 0; wire < 4; ++wire) {
        int target = 1 + static_cast<int>(random() % 11);
        if (target >= knob) ++target;  // never the knob itself
        knobs->add_wiring(target);
      }
    }
    if (sum % 2 == 1) knobs->set_positions(0, knobs->positions(0) % 4 + 1);
    puzzles.push_back(puzzle);
  }
  return puzzles;
}

v1::SolveRequest RequestFor(const v1::Puzzle& puzzle, v1::Policy policy = v1::TABLE_THEN_SEARCH) {
  v1::SolveRequest request;
  *request.mutable_puzzle() = puzzle;
  request.set_policy(policy);
  return request;
}

// The knobs tables each replica holds, and whether any is still being built.
std::vector<std::set<std::string>> TablesOf(const std::vector<testing::ServerProcess*>& replicas,
                                            bool* building) {
  std::vector<std::set<std::string>> tables;
  *building = false;
  for (const auto* replica : replicas) {
    ClientOptions options;
    options.target = replica->address();
    Client client(options);
    auto listed = client.ListTables();
    EXPECT_TRUE(listed.ok()) << listed.status();
    std::set<std::string> ids;
    if (listed.ok()) {
      for (const auto& t : listed->tables()) ids.insert(t.table_id());
      *building |= listed->building_size() > 0;
    }
    tables.push_back(ids);
  }
  return tables;
}

// Asks through nginx for every wiring whose table no replica has yet, until every one has been
// built somewhere (a replica queues at most 8 builds and drops the rest, so a wiring may need
// asking again, as a popular one would be). Every answer must be the exact one. The tables
// the replicas hold at the end.
std::vector<std::set<std::string>> AskUntilBuilt(const Client& client,
                                                 const std::vector<v1::Puzzle>& wirings,
                                                 const std::map<std::string, int>& distance,
                                                 const std::vector<testing::ServerProcess*>& replicas) {
  std::vector<std::set<std::string>> tables;
  for (int round = 0; round < 600; ++round) {
    bool building = false;
    tables = TablesOf(replicas, &building);
    size_t missing = 0;
    for (const v1::Puzzle& puzzle : wirings) {
      const std::string id = TableIdOf(puzzle);
      bool held = false;
      for (const auto& t : tables) held |= t.count(id) > 0;
      if (held) continue;
      ++missing;
      if (building) continue;  // wait for the queued builds first
      auto answer = client.Solve(RequestFor(puzzle));
      EXPECT_TRUE(answer.ok()) << answer.status();
      if (answer.ok()) {
        EXPECT_EQ(answer->outcome() == v1::SOLVED ? static_cast<int>(answer->distance()) : -1,
                  distance.at(id));
      }
    }
    if (missing == 0 && !building) break;
    std::this_thread::sleep_for(200ms);
  }
  return tables;
}

// Three replicas over copies of the test database, and with GetParam() "nginx" nginx in
// front of them; target_ is what clients are given: nginx's address, or the list of the
// three.
class ReplicasTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    dir_ = testing::TempPath(std::string("replicas_") + GetParam());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    nginx_.reset();
    owned_.clear();
    fs::remove_all(dir_);
  }

  // `replicated`: tables beyond the defaults an operator says every replica holds.
  void StartReplicas(const std::vector<std::string>& flags,
                     const std::vector<std::string>& replicated = {}) {
    replicated_ = replicated;
    // Background builds at the default priority (nice 10) get a tenth of a core beside the
    // other tests ctest runs: the wirings' builds then took minutes, not seconds. What is
    // tested here is where calls and tables go, not the priority.
    std::vector<std::string> all_flags = flags;
    all_flags.insert(all_flags.end(), {"--search-priority", "normal"});
    for (int i = 0; i < 3; ++i) {
      const std::string db = dir_ + "/db" + std::to_string(i);
      fs::copy(PUZZLEDB_TEST_DB, db, fs::copy_options::recursive);
      owned_.push_back(std::make_unique<testing::ServerProcess>(
          PUZZLEDB_SERVER, db, all_flags, dir_ + "/replica" + std::to_string(i) + ".log"));
      ASSERT_FALSE(owned_.back()->address().empty()) << owned_.back()->Log();
      replicas_.push_back(owned_.back().get());
    }
    if (std::string(GetParam()) == "nginx") {
      nginx_ = std::make_unique<Nginx>(dir_ + "/nginx",
                                       std::vector<const testing::ServerProcess*>{
                                           replicas_[0], replicas_[1], replicas_[2]},
                                       replicated);
      ASSERT_NE(nginx_->grpc_port(), 0) << nginx_->Log();
      target_ = "127.0.0.1:" + std::to_string(nginx_->grpc_port());
    } else {
      target_ = replicas_[0]->address() + "," + replicas_[1]->address() + "," +
                replicas_[2]->address();
    }
  }

  ClientOptions Options() const {
    ClientOptions options;
    options.target = target_;
    options.timeout = 60000ms;
    if (nginx_ == nullptr) options.replicated_tables = replicated_;
    return options;
  }
  // The command line's options for the same.
  std::string CliServer() const {
    std::string flags = " --server " + target_;
    if (nginx_ == nullptr && !replicated_.empty()) {
      flags += " --replicated-tables ";
      for (size_t i = 0; i < replicated_.size(); ++i) flags += (i ? "," : "") + replicated_[i];
    }
    return flags;
  }
  std::string BalancerLog() const { return nginx_ ? nginx_->Log() : std::string(); }

  // puzzledb_calls_total of `method` on each replica (all other labels summed).
  std::vector<double> Calls(const std::string& method) const {
    std::vector<double> counts;
    for (const auto* replica : replicas_) {
      httplib::Client http("127.0.0.1", replica->http_port());
      http.set_read_timeout(30, 0);
      auto scraped = http.Get("/metrics");
      EXPECT_TRUE(scraped && scraped->status == 200);
      double total = 0;
      std::istringstream lines(scraped ? scraped->body : "");
      const std::string label = "method=\"" + method + "\"";
      for (std::string line; std::getline(lines, line);) {
        if (line.rfind("puzzledb_calls_total{", 0) == 0 && line.find(label) != std::string::npos) {
          total += std::stod(line.substr(line.rfind(' ') + 1));
        }
      }
      counts.push_back(total);
    }
    return counts;
  }

  // The calls each replica took between two counts, which must add up to `total`.
  static std::vector<double> Taken(const std::vector<double>& before,
                                   const std::vector<double>& after, double total,
                                   const std::string& what) {
    std::vector<double> taken;
    for (size_t r = 0; r < before.size(); ++r) taken.push_back(after[r] - before[r]);
    EXPECT_EQ(std::accumulate(taken.begin(), taken.end(), 0.0), total) << what;
    return taken;
  }
  static void ExpectSpread(const std::vector<double>& taken, double total,
                           const std::string& what) {
    std::printf("%s: the replicas took %.0f, %.0f and %.0f of %.0f\n", what.c_str(), taken[0],
                taken[1], taken[2], total);
    for (size_t r = 0; r < taken.size(); ++r) {
      EXPECT_LE(taken[r], 0.4 * total)
          << what << ": replica " << r << " took " << taken[r] << " of " << total << " ("
          << taken[0] << ", " << taken[1] << ", " << taken[2] << ")";
    }
  }

  std::string dir_;
  std::vector<std::unique_ptr<testing::ServerProcess>> owned_;
  std::vector<testing::ServerProcess*> replicas_;
  std::unique_ptr<Nginx> nginx_;
  std::string target_;
  std::vector<std::string> replicated_;
};

// `count` random knight boards (12 white, 12 black, one empty cell), as the original
// input's 5 lines each.
std::vector<std::string> KnightBoards(size_t count) {
  std::mt19937 random(20261201);
  std::vector<std::string> boards;
  std::string board = "111111111111000000000000*";
  for (size_t i = 0; i < count; ++i) {
    std::shuffle(board.begin(), board.end(), random);
    boards.push_back(board);
  }
  return boards;
}

v1::Puzzle KnightPuzzleOf(const std::string& board) {
  v1::Puzzle puzzle;
  puzzle.mutable_knight()->set_board(board);
  return puzzle;
}

std::string KnightInput(const std::vector<std::string>& boards, size_t begin, size_t end) {
  std::string input = std::to_string(end - begin) + "\n";
  for (size_t i = begin; i < end; ++i) {
    for (int row = 0; row < 5; ++row) input += boards[i].substr(5 * row, 5) + "\n";
  }
  return input;
}

// The tables every replica holds: their calls are spread, every answer the one a replica
// gives directly; a table listed by the operator is spread too, and one built on demand stays
// on one replica.
TEST_P(ReplicasTest, CallsOfTablesEveryReplicaHoldsAreSpread) {
  const std::vector<v1::Puzzle> wirings = Wirings(32);
  const v1::Puzzle listed = wirings[30], unlisted = wirings[31];
  StartReplicas({"--drain", "0"}, {TableIdOf(listed)});
  ASSERT_FALSE(HasFatalFailure());
  const std::vector<std::string> defaults = DefaultTableIds();
  for (const char* id : {"knight", "fifteen", "eight", "rotation"}) {
    EXPECT_NE(std::find(defaults.begin(), defaults.end(), id), defaults.end()) << id;
  }
  Client client(Options());
  ASSERT_TRUE(client.WaitUntilServing(60000ms).ok());
  ClientOptions direct_options;
  direct_options.target = replicas_[0]->address();
  direct_options.timeout = 60000ms;
  Client direct(direct_options);

  // 3,000 knight answers, four callers at once.
  const std::vector<std::string> boards = KnightBoards(3000);
  std::vector<v1::SolveRequest> requests;
  for (const std::string& board : boards) requests.push_back(RequestFor(KnightPuzzleOf(board)));
  auto expected = direct.SolveAll(requests, 120000ms);
  ASSERT_TRUE(expected.ok()) << expected.status();
  std::vector<double> before = Calls("Solve");
  std::atomic<int> wrong{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < 4; ++c) {
    callers.emplace_back([&, c] {
      for (size_t i = static_cast<size_t>(c); i < boards.size(); i += 4) {
        auto answer = client.Solve(requests[i]);
        const auto& want = (*expected)[i];
        if (!answer.ok() || answer->outcome() != want.outcome() ||
            answer->distance() != want.distance() ||
            !std::equal(answer->moves().begin(), answer->moves().end(), want.moves().begin(),
                        want.moves().end())) {
          ++wrong;
        }
      }
    });
  }
  for (std::thread& caller : callers) caller.join();
  EXPECT_EQ(wrong.load(), 0) << BalancerLog();
  ExpectSpread(Taken(before, Calls("Solve"), 3000, "knight calls"), 3000, "knight calls");

  // The command line's bulk runs: 30 of 100 boards, the answers those of one direct run.
  const auto whole = testing::RunCommand(
      std::string(PUZZLEDB_CLI) + " --server " + replicas_[0]->address() +
          " solve --puzzle knight", KnightInput(boards, 0, boards.size()), 300);
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  before = Calls("SolveBatch");
  std::string through;
  for (size_t run = 0; run < 30; ++run) {
    const auto part = testing::RunCommand(std::string(PUZZLEDB_CLI) + CliServer() +
                                              " solve --puzzle knight",
                                          KnightInput(boards, 100 * run, 100 * run + 100), 120);
    ASSERT_EQ(part.exit_code, 0) << part.err;
    through += part.out;
  }
  EXPECT_EQ(through, whole.out);
  ExpectSpread(Taken(before, Calls("SolveBatch"), 3000, "the command line's requests"), 3000,
               "the command line's requests");

  // Thirty fifteen-puzzle searches, at distance 14.
  v1::SampleRequest sample;
  sample.mutable_puzzle()->mutable_fifteen();
  sample.set_distance(14);
  sample.set_count(30);
  sample.set_seed(28);
  auto drawn = direct.Sample(sample);
  ASSERT_TRUE(drawn.ok()) << drawn.status();
  ASSERT_EQ(drawn->states_size(), 30);
  before = Calls("Solve");
  for (const v1::Puzzle& board : drawn->states()) {
    auto answer = client.Solve(RequestFor(board));
    ASSERT_TRUE(answer.ok()) << answer.status();
    EXPECT_EQ(answer->source(), v1::SEARCH);
    EXPECT_EQ(answer->distance(), 14u);
    EXPECT_TRUE(Verify(board, *answer).ok()) << Verify(board, *answer);
  }
  ExpectSpread(Taken(before, Calls("Solve"), 30, "fifteen searches"), 30, "fifteen searches");

  // The HTTP API behind nginx, as the web page calls it (the header names the table): the
  // same rule.
  if (nginx_ != nullptr) {
    httplib::Client http("127.0.0.1", nginx_->http_port());
    http.set_read_timeout(60, 0);
    before = Calls("Solve");
    for (size_t i = 0; i < 300; ++i) {
      auto answer = http.Get("/v1/solve?puzzle=knight&state=" + boards[i],
                             {{"puzzledb-table", "knight"}});
      ASSERT_TRUE(answer && answer->status == 200) << (answer ? answer->body : "no answer");
      EXPECT_NE(answer->body.find("\"distance\":" + std::to_string((*expected)[i].distance()) +
                                  "}"),
                std::string::npos);
    }
    ExpectSpread(Taken(before, Calls("Solve"), 300, "HTTP knight calls"), 300,
                 "HTTP knight calls");
    std::string compact;  // the knobs' compact form: each knob's state, then its four wires
    for (int k = 0; k < 12; ++k) {
      compact += (k ? "%20" : "") + std::to_string(unlisted.knobs().positions(k));
      for (int w = 0; w < 4; ++w) {
        compact += "%20" + std::to_string(unlisted.knobs().wiring(4 * k + w));
      }
    }
    before = Calls("Solve");
    for (int i = 0; i < 30; ++i) {
      auto answer = http.Get("/v1/solve?puzzle=knobs&policy=search_only&max_moves=1&state=" +
                                 compact,
                             {{"puzzledb-table", TableIdOf(unlisted)}});
      ASSERT_TRUE(answer && answer->status == 200) << (answer ? answer->body : "no answer");
    }
    const std::vector<double> taken = Taken(before, Calls("Solve"), 30, "HTTP knobs calls");
    EXPECT_EQ(*std::max_element(taken.begin(), taken.end()), 30);
  }

  // A wiring the operator listed is spread; one nobody listed stays on one replica. (A search
  // one move deep: no table is built.)
  for (const v1::Puzzle* wiring : {&listed, &unlisted}) {
    before = Calls("Solve");
    for (int i = 0; i < 30; ++i) {
      v1::SolveRequest request = RequestFor(*wiring, v1::SEARCH_ONLY);
      request.set_max_moves(1);
      auto answer = client.Solve(request);
      ASSERT_TRUE(answer.ok()) << answer.status();
    }
    const std::vector<double> taken = Taken(before, Calls("Solve"), 30, TableIdOf(*wiring));
    if (wiring == &listed) {
      ExpectSpread(taken, 30, "a listed wiring");
    } else {
      EXPECT_EQ(*std::max_element(taken.begin(), taken.end()), 30)
          << "a wiring built on demand: " << taken[0] << ", " << taken[1] << ", " << taken[2];
    }
  }
}

TEST_P(ReplicasTest, EachWiringIsBuiltOnOneReplicaAndAStoppedReplicaLosesNoCall) {
  StartReplicas({"--drain", "1", "--grace", "10"});
  ASSERT_FALSE(HasFatalFailure());
  std::vector<testing::ServerProcess*>& replicas = replicas_;
  // The client library's own options: nginx retries what failed on a replica's connection;
  // the client retries the calls a stopping replica cancelled as they reached it (see
  // ClientOptions::max_attempts), which nginx cannot see (a gRPC status, not an HTTP one);
  // with a list of replicas, the client also tries a table's next replica.
  Client client(Options());
  ASSERT_TRUE(client.WaitUntilServing(60000ms).ok());

  const std::vector<v1::Puzzle> wirings = Wirings();
  std::map<std::string, int> distance;  // by table id
  for (const v1::Puzzle& puzzle : wirings) {
    const std::string id = TableIdOf(puzzle);
    ASSERT_EQ(distance.count(id), 0u) << "two wirings share " << id;
    auto answer = client.Solve(RequestFor(puzzle));
    ASSERT_TRUE(answer.ok()) << answer.status() << "\n" << BalancerLog();
    EXPECT_EQ(answer->source(), v1::SEARCH);
    EXPECT_TRUE(Verify(puzzle, *answer).ok()) << Verify(puzzle, *answer);
    distance[id] = answer->outcome() == v1::SOLVED ? static_cast<int>(answer->distance()) : -1;
  }

  // Each wiring's table is built, on exactly one replica.
  std::vector<std::set<std::string>> tables = AskUntilBuilt(client, wirings, distance, replicas);
  std::map<std::string, int> holder;  // table id -> replica
  for (const auto& [id, d] : distance) {
    int copies = 0;
    for (int r = 0; r < 3; ++r) {
      if (tables[r].count(id)) {
        ++copies;
        holder[id] = r;
      }
    }
    EXPECT_EQ(copies, 1) << id;
  }
  // Every call of a wiring reaches its table: TABLE_ONLY never fails, and agrees with the
  // search. Through the command line too, which sends the same metadata.
  for (const v1::Puzzle& puzzle : wirings) {
    auto answer = client.Solve(RequestFor(puzzle, v1::TABLE_ONLY));
    ASSERT_TRUE(answer.ok()) << answer.status();
    EXPECT_EQ(answer->source(), v1::TABLE);
    EXPECT_EQ(answer->table_id(), TableIdOf(puzzle));
    EXPECT_EQ(answer->outcome() == v1::SOLVED ? static_cast<int>(answer->distance()) : -1,
              distance[TableIdOf(puzzle)]);
  }
  for (int w = 0; w < 5; ++w) {
    const auto& knobs = wirings[w].knobs();
    std::string input;
    for (int k = 0; k < 12; ++k) {
      input += std::to_string(knobs.positions(k));
      for (int wire = 0; wire < 4; ++wire) input += " " + std::to_string(knobs.wiring(4 * k + wire));
      input += "\n";
    }
    const auto run = testing::RunCommand(
        std::string(PUZZLEDB_CLI) + CliServer() + " solve --puzzle knobs --policy table-only",
        input, 120);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    const int d = distance[TableIdOf(wirings[w])];
    EXPECT_EQ(run.out.substr(0, run.out.find('\n')), d < 0 ? std::string("-1") : std::to_string(d))
        << run.err;
  }

  // Stop the replica holding most wirings with SIGTERM while calls keep coming.
  std::array<int, 3> held{};
  for (const auto& [id, r] : holder) held[r]++;
  const int gone = static_cast<int>(std::max_element(held.begin(), held.end()) - held.begin());
  ASSERT_GT(held[gone], 0);
  std::atomic<bool> stop{false};
  std::atomic<int> calls{0}, failures{0};
  std::string first_failure;
  std::thread load([&] {
    for (size_t i = 0; !stop; ++i) {
      const v1::Puzzle& puzzle = wirings[i % wirings.size()];
      auto answer = client.Solve(RequestFor(puzzle));
      ++calls;
      const int d = answer.ok() && answer->outcome() == v1::SOLVED ? static_cast<int>(answer->distance()) : -1;
      if (!answer.ok() || d != distance[TableIdOf(puzzle)]) {
        if (failures++ == 0) {
          first_failure = (answer.ok() ? "a wrong distance" : answer.status().ToString()) +
                          " at call " + std::to_string(calls.load()) + " of " + TableIdOf(puzzle);
        }
      }
    }
  });
  std::this_thread::sleep_for(500ms);
  const int before_stop = calls;
  EXPECT_EQ(replicas[gone]->Stop(SIGTERM, 60), 0) << replicas[gone]->Log();
  const int at_stop = calls;
  std::this_thread::sleep_for(2s);
  stop = true;
  load.join();
  EXPECT_EQ(failures.load(), 0) << first_failure << "; the SIGTERM after call " << before_stop
                                << ", the exit after call " << at_stop << "\n"
                                << BalancerLog() << replicas[gone]->Log();
  EXPECT_GT(before_stop, 0);
  EXPECT_GT(calls.load(), at_stop) << "no call was answered after the replica stopped";

  // Its wirings move to the others (their tables are built there); nothing else moves.
  std::vector<testing::ServerProcess*> left;
  for (int r = 0; r < 3; ++r) {
    if (r != gone) left.push_back(replicas[r]);
  }
  tables = AskUntilBuilt(client, wirings, distance, left);
  for (const auto& [id, r] : holder) {
    int copies = 0;
    for (size_t l = 0; l < left.size(); ++l) {
      if (tables[l].count(id)) {
        ++copies;
        if (r != gone) {
          EXPECT_EQ(left[l], replicas[r]) << id << " moved off a running replica";
        }
      }
    }
    EXPECT_EQ(copies, 1) << id << (r == gone ? " (from the stopped replica)" : "");
  }
  nginx_.reset();
  for (auto* replica : left) EXPECT_EQ(replica->Stop(SIGTERM, 60), 0);
}

INSTANTIATE_TEST_SUITE_P(Nginx, ReplicasTest, ::testing::Values("nginx"));
INSTANTIATE_TEST_SUITE_P(ClientList, ReplicasTest, ::testing::Values("list"));

// The id the client library sends is the one docs/API.md ("Table affinity") tells other
// clients to compute, and the model's own table id.
TEST(TableIdTest, TheClientsTableIdIsTheDocumentedOne) {
  for (const v1::Puzzle& puzzle : Wirings()) {
    uint64_t hash = 14695981039346656037ull;  // FNV-1a of the numbers less one
    for (uint32_t n : puzzle.knobs().wiring()) {
      hash ^= n - 1;
      hash *= 1099511628211ull;
    }
    char documented[32];
    std::snprintf(documented, sizeof documented, "knobs-%016llx",
                  static_cast<unsigned long long>(hash));
    EXPECT_EQ(TableIdOf(puzzle), documented);
    std::vector<uint32_t> numbers(puzzle.knobs().wiring().begin(), puzzle.knobs().wiring().end());
    auto wiring = KnobsWiring::FromNumbers(numbers);
    ASSERT_TRUE(wiring.ok());
    EXPECT_EQ(TableIdOf(puzzle), KnobsPuzzle::TableId(*wiring));
  }
  v1::Puzzle puzzle;
  EXPECT_EQ(TableIdOf(puzzle), "");
  puzzle.mutable_knight();
  EXPECT_EQ(TableIdOf(puzzle), "knight");
  puzzle.mutable_eight();
  EXPECT_EQ(TableIdOf(puzzle), "eight");
  puzzle.mutable_rotation();
  EXPECT_EQ(TableIdOf(puzzle), "rotation");
  puzzle.mutable_knobs()->add_wiring(3);
  EXPECT_EQ(TableIdOf(puzzle), "knobs");  // not a wiring: the server will say why
  // The client computes it from the message alone (it links no model): for every typed
  // message of the wire, the model's id, which the server's mapping gives.
  const google::protobuf::OneofDescriptor* kinds = v1::Puzzle::descriptor()->FindOneofByName("kind");
  ASSERT_NE(kinds, nullptr);
  for (int k = 0; k < kinds->field_count(); ++k) {
    v1::Puzzle typed;
    typed.GetReflection()->MutableMessage(&typed, kinds->field(k));
    EXPECT_EQ(TableIdOf(typed), TableIdFromWire(typed)) << kinds->field(k)->name();
    EXPECT_EQ(TableIdOf(typed), kinds->field(k)->name());
  }
  // The generic form is named by its name: its parameters' id needs the puzzle's rules.
  v1::Puzzle generic;
  generic.set_name("knight");
  EXPECT_EQ(TableIdOf(generic), "knight");
  EXPECT_EQ(TableIdOf(generic), TableIdFromWire(generic));
}

}  // namespace
}  // namespace puzzledb
