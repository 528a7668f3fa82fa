// The server in-process, through the client library: every RPC, every error code, the
// stream's ids under concurrency, deadlines, the search limit, background builds, health,
// reflection, and shutdown with calls in flight.
#include <atomic>
#include <filesystem>
#include <future>
#include <map>
#include <random>
#include <thread>

#include "core/puzzles/knight.h"
#include "core/puzzles/knobs.h"
#include "core/puzzle.h"
#include "core/puzzles/rotation.h"
#include "core/table/table_builder.h"
#include "reflection_subset.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "service/wire.h"
#include "tests/typed_wire.h"
#include "puzzledb/client.h"
#include "puzzledb/verify.h"
#include "puzzledb/v1/solver.grpc.pb.h"
#include "server/server.h"
#include "tests/channel.h"
#include "tests/test_util.h"

namespace puzzledb {
namespace {

using namespace std::chrono_literals;

const char* const kFarKnight = "010100*000110001010111111";  // 34 moves

KnobsPuzzle::Instance Knobs(const std::string& sample) {
  return *KnobsPuzzle::ParseOriginal(testing::Golden(sample))[0].instance;
}

v1::SolveRequest KnightRequest(const std::string& board, uint32_t max_moves = 0,
                               v1::Policy policy = v1::TABLE_THEN_SEARCH) {
  v1::SolveRequest request;
  request.mutable_puzzle()->mutable_knight()->set_board(board);
  request.set_max_moves(max_moves);
  request.set_policy(policy);
  return request;
}

template <class Instance>
v1::SolveRequest RequestFor(const Instance& instance, uint64_t id = 0) {
  v1::SolveRequest request;
  InstanceToWire(instance, request.mutable_puzzle());
  request.set_id(id);
  return request;
}

// A database with rotation (full), knight (to depth 12) and knobs 9001 (full); a server on
// a free port with one search at a time.
class ServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    db_ = new std::string(testing::TempPath("server_db"));
    std::filesystem::remove_all(*db_);
    {
      auto store = TableStore::Open(*db_, TableStore::Mode::kReadWrite);
      ASSERT_TRUE(store.ok()) << store.status();
      // Through the runtime puzzles: the models' build templates are compiled in core/, not
      // again here.
      const Puzzle& rotation = *FindPuzzle("rotation");
      ASSERT_TRUE(rotation.Build(rotation.Goal(nullptr), **store, BuildOptions{}).ok());
      BuildOptions partial;
      partial.max_depth = 12;
      const Puzzle& knight = *FindPuzzle("knight");
      ASSERT_TRUE(knight.Build(knight.Goal(nullptr), **store, partial).ok());
      const Puzzle& knobs = *FindPuzzle("knobs");
      auto wiring = knobs.ParseOriginal(testing::Golden("knobs_9001.in"))[0].instance;
      ASSERT_TRUE(wiring.ok()) << wiring.status();
      ASSERT_TRUE(knobs.Build(*wiring, **store, BuildOptions{}).ok());
    }
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*db_);
    delete db_;
  }

  void SetUp() override { StartServer(); }
  void TearDown() override {
    client_.reset();
    if (server_ != nullptr) server_->Shutdown(1000ms);
    server_.reset();
  }

  void StartServer(int searches = 1, size_t queue = 32) {
    ServerOptions options;
    options.db = *db_;
    options.listen = "127.0.0.1:0";
    options.max_concurrent_searches = searches;
    options.search_queue = queue;
    options.default_search_deadline = 10000ms;  // generous: the suite may share the CPU
    auto started = PuzzledbServer::Start(options, [this](std::string_view line) {
      std::lock_guard<std::mutex> lock(log_mutex_);
      log_ += std::string(line) + "\n";
    });
    ASSERT_TRUE(started.ok()) << started.status();
    server_ = std::move(*started);
    ClientOptions client;
    client.target = "127.0.0.1:" + std::to_string(server_->port());
    client_ = std::make_unique<Client>(client);
    ASSERT_TRUE(client_->WaitUntilServing(60000ms).ok());
  }

  std::string Log() {
    std::lock_guard<std::mutex> lock(log_mutex_);
    return log_;
  }

  static std::string* db_;
  std::unique_ptr<PuzzledbServer> server_;
  std::unique_ptr<Client> client_;
  std::mutex log_mutex_;
  std::string log_;
};
std::string* ServerTest::db_ = nullptr;

TEST_F(ServerTest, StartUpLogSaysWhatWasLoaded) {
  EXPECT_NE(Log().find("3 tables loaded (knight, knobs-"), std::string::npos) << Log();
  EXPECT_NE(Log().find("listening on 127.0.0.1:" + std::to_string(server_->port())),
            std::string::npos);
}

TEST_F(ServerTest, SolvesEveryPuzzleFromItsTable) {
  auto knight = client_->Solve(KnightRequest("1111111111000*10000100000"));
  ASSERT_TRUE(knight.ok()) << knight.status();
  EXPECT_EQ(knight->outcome(), v1::SOLVED);
  EXPECT_EQ(knight->distance(), 3u);
  EXPECT_EQ(knight->source(), v1::TABLE);
  EXPECT_EQ(std::vector<std::string>(knight->moves().begin(), knight->moves().end()),
            (std::vector<std::string>{"c1", "a2", "c3"}));

  auto knobs = client_->Solve(RequestFor(Knobs("knobs_9001.in"), 7));
  ASSERT_TRUE(knobs.ok()) << knobs.status();
  EXPECT_EQ(knobs->distance(), 10u);
  EXPECT_EQ(knobs->source(), v1::TABLE);
  EXPECT_EQ(knobs->id(), 7u);
  EXPECT_EQ(knobs->moves(0), "2");

  auto rotation = RotationPuzzle::ParseCompact("111132323132231222312133");
  auto answer = client_->Solve(RequestFor(*rotation));
  ASSERT_TRUE(answer.ok()) << answer.status();
  EXPECT_EQ(answer->source(), v1::TABLE);
  EXPECT_EQ(answer->final_state().rotation().cells(6), answer->final_state().rotation().cells(17));
}

TEST_F(ServerTest, SearchesWhatNoTableCoversAndHonoursPolicies) {
  // 20 moves: beyond the depth-12 table, so searched with the table as bound.
  auto far = client_->Solve(KnightRequest("011100101001001011*100110"));
  ASSERT_TRUE(far.ok()) << far.status();
  EXPECT_EQ(far->source(), v1::SEARCH);
  EXPECT_EQ(far->distance(), 20u);
  auto capped = client_->Solve(KnightRequest("011100101001001011*100110", 10));
  ASSERT_TRUE(capped.ok()) << capped.status();
  EXPECT_EQ(capped->outcome(), v1::NOT_WITHIN_LIMIT);
  EXPECT_EQ(capped->source(), v1::TABLE);  // the table proves "more than 12"
  auto search_only = client_->Solve(KnightRequest("1111111111000*10000100000", 0, v1::SEARCH_ONLY));
  ASSERT_TRUE(search_only.ok()) << search_only.status();
  EXPECT_EQ(search_only->source(), v1::SEARCH);
  EXPECT_EQ(search_only->distance(), 3u);
  auto table_only = client_->Solve(KnightRequest("011100101001001011*100110", 0, v1::TABLE_ONLY));
  EXPECT_EQ(table_only.status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST_F(ServerTest, AnalyzeListsMovesBestFirst) {
  v1::AnalyzeRequest request;
  request.mutable_puzzle()->mutable_knight()->set_board("1111111111000*10000100000");
  auto analysis = client_->Analyze(request);
  ASSERT_TRUE(analysis.ok()) << analysis.status();
  EXPECT_EQ(analysis->distance(), 3u);
  ASSERT_GE(analysis->moves_size(), 2);
  EXPECT_EQ(analysis->moves(0).move(), "c1");
  EXPECT_EQ(analysis->moves(0).distance(), 2u);
  for (int i = 1; i < analysis->moves_size(); ++i) {
    EXPECT_LE(analysis->moves(i - 1).distance(), analysis->moves(i).distance());
  }
}

// ListPuzzles describes every registered puzzle; each example, sent in the generic form
// (name and compact state), is answered as the same position sent as a typed message, and
// a generic request gets its states back in the generic form.
TEST_F(ServerTest, ListPuzzlesDescribesEveryPuzzleAndTheGenericFormAnswersAsTheTyped) {
  auto listed = client_->ListPuzzles();
  ASSERT_TRUE(listed.ok()) << listed.status();
  ASSERT_EQ(static_cast<size_t>(listed->puzzles_size()), Puzzles().size());
  for (const v1::PuzzleInfo& info : listed->puzzles()) {
    SCOPED_TRACE(info.name());
    const Puzzle* puzzle = FindPuzzle(info.name());
    ASSERT_NE(puzzle, nullptr);
    EXPECT_EQ(info.title(), puzzle->title());
    EXPECT_EQ(info.move_names_size(), puzzle->move_count());
    EXPECT_EQ(info.layout().cells_size(), static_cast<int>(puzzle->layout().cells.size()));
    int tables = 0;
    const auto all_tables = client_->ListTables();
    ASSERT_TRUE(all_tables.ok());
    for (const auto& t : all_tables->tables()) tables += t.puzzle() == info.name();
    EXPECT_EQ(info.tables_size(), tables);
    v1::SolveRequest generic;
    generic.mutable_puzzle()->set_name(info.name());
    generic.mutable_puzzle()->set_state(info.example());
    auto by_name = client_->Solve(generic);
    ASSERT_TRUE(by_name.ok()) << by_name.status();
    v1::SolveRequest typed;
    PositionToWire(*puzzle->ParseCompact(info.example()), /*typed=*/true, typed.mutable_puzzle());
    auto by_type = client_->Solve(typed);
    ASSERT_TRUE(by_type.ok()) << by_type.status();
    EXPECT_EQ(by_name->distance(), by_type->distance());
    EXPECT_EQ(Join(by_name->moves(), " "), Join(by_type->moves(), " "));
    EXPECT_TRUE(Verify(generic.puzzle(), *by_name).ok());
    if (by_name->has_final_state()) {
      EXPECT_EQ(by_name->final_state().name(), info.name());
      EXPECT_TRUE(FindPuzzle(info.name())->IsGoal(*PositionFromWire(by_name->final_state())));
    }
  }
  v1::SolveRequest bad;
  bad.mutable_puzzle()->set_name("chess");
  bad.mutable_puzzle()->set_state("e4");
  EXPECT_EQ(std::string(client_->Solve(bad).status().message()),
            "puzzle.name: unknown puzzle 'chess'; use one of " + PuzzleNames(", "));
  bad.mutable_puzzle()->set_name("eight");
  bad.mutable_puzzle()->set_state("12345678");
  EXPECT_EQ(client_->Solve(bad).status().message().substr(0, 14), "puzzle.state: ");
  bad.mutable_puzzle()->mutable_eight()->set_board("123804765");
  EXPECT_NE(client_->Solve(bad).status().message().find("give one form"), std::string::npos);
}

TEST_F(ServerTest, ListTablesDescribesEveryTable) {
  auto tables = client_->ListTables();
  ASSERT_TRUE(tables.ok()) << tables.status();
  ASSERT_EQ(tables->tables_size(), 3);
  for (const auto& t : tables->tables()) {
    EXPECT_EQ(t.status(), "LOADED") << t.table_id();
    EXPECT_GT(t.size_bytes(), 0u);
    if (t.table_id() == "knight") {
      EXPECT_EQ(t.coverage_depth(), 12u);
      EXPECT_FALSE(t.complete());
      // Entries are classes {board, mirror}: 259,471 boards and 137,262 at distance 12
      // (docs/PUZZLES.md), of which 107 and 74 are their own mirror.
      EXPECT_EQ(t.covered_states(), 129789u);
      EXPECT_EQ(t.histogram(12), 68668u);
    }
    if (t.puzzle() == "knobs") {
      EXPECT_EQ(t.wiring_size(), 48);
      // The same wiring in the puzzle's own message, generic for any puzzle with parameters.
      ASSERT_TRUE(t.parameters_puzzle().has_knobs());
      EXPECT_EQ(std::vector<uint32_t>(t.parameters_puzzle().knobs().wiring().begin(),
                                      t.parameters_puzzle().knobs().wiring().end()),
                std::vector<uint32_t>(t.wiring().begin(), t.wiring().end()));
    } else {
      EXPECT_FALSE(t.has_parameters_puzzle()) << t.table_id();
    }
  }
}

TEST_F(ServerTest, MalformedRequestsAreInvalidArgumentNamingTheField) {
  auto expect_invalid = [&](const v1::SolveRequest& request, const std::string& message) {
    auto answer = client_->Solve(request);
    EXPECT_EQ(answer.status().code(), absl::StatusCode::kInvalidArgument) << answer.status();
    EXPECT_EQ(std::string(answer.status().message()), message);
  };
  expect_invalid(v1::SolveRequest(), "puzzle: no puzzle given; set name (one of " +
                                         PuzzleNames(", ") + ") and state, or a typed message");
  expect_invalid(KnightRequest("01*"), "puzzle.knight.board: a board has 25 cells, got 3 characters");
  expect_invalid(KnightRequest("0111001010010010111*0011x"),
                 "puzzle.knight.board: cell e5 holds 'x'; a cell holds '1' (white knight), '0' "
                 "(black knight) or '*' (empty)");
  expect_invalid(KnightRequest("1111111111000*10000100000", 5000),
                 "max_moves: 5000 is more than 1000; use 0 for no limit");
  auto bad_policy = KnightRequest("1111111111000*10000100000");
  bad_policy.set_policy(static_cast<v1::Policy>(9));
  expect_invalid(bad_policy, "policy: unknown value 9; use TABLE_THEN_SEARCH (0), TABLE_ONLY (1) "
                             "or SEARCH_ONLY (2)");
  auto knobs = RequestFor(Knobs("knobs_9001.in"));
  knobs.mutable_puzzle()->mutable_knobs()->set_wiring(4, 2);
  expect_invalid(knobs, "puzzle.knobs.wiring: knob 2's wiring for state 1 points at knob 2 itself; "
                        "a turn must also advance another knob");
  knobs = RequestFor(Knobs("knobs_9001.in"));
  knobs.mutable_puzzle()->mutable_knobs()->set_positions(11, 5);
  expect_invalid(knobs, "puzzle.knobs.positions: knob 12's state is 5; states are 1..4");
  knobs.mutable_puzzle()->mutable_knobs()->clear_wiring();
  knobs.mutable_puzzle()->mutable_knobs()->set_positions(11, 1);
  expect_invalid(knobs, "puzzle.knobs.wiring: a wiring has 48 knob numbers (4 per knob), got 0");
  v1::SolveRequest rotation;
  for (int i = 0; i < 24; ++i) rotation.mutable_puzzle()->mutable_rotation()->add_cells(i % 3 + 1);
  rotation.mutable_puzzle()->mutable_rotation()->set_cells(3, 4);
  expect_invalid(rotation, "puzzle.rotation.cells: cell 3 holds 4; cells hold 1, 2 or 3");
  rotation.mutable_puzzle()->mutable_rotation()->add_cells(1);
  expect_invalid(rotation, "puzzle.rotation.cells: a board has 24 cells, got 25 values");
  v1::SolveRequest fifteen;
  for (int i = 1; i <= 15; ++i) fifteen.mutable_puzzle()->mutable_fifteen()->add_cells(i);
  expect_invalid(fifteen, "puzzle.fifteen.cells: a board has 16 cells, got 15");
  fifteen.mutable_puzzle()->mutable_fifteen()->add_cells(99);
  expect_invalid(fifteen, "puzzle.fifteen.cells: cell 16 holds 99; a cell holds 0..15 (0: the "
                          "empty place)");
  fifteen.mutable_puzzle()->mutable_fifteen()->set_cells(15, 1);
  expect_invalid(fifteen, "puzzle.fifteen.cells: tile 1 appears twice (cells 1 and 16); a board "
                          "holds each of 0..15 once");
  // The same for SEARCH_ONLY (refused before any search) and for Analyze.
  expect_invalid(KnightRequest("01*", 0, v1::SEARCH_ONLY),
                 "puzzle.knight.board: a board has 25 cells, got 3 characters");
  v1::AnalyzeRequest analyze;
  analyze.mutable_puzzle()->mutable_knight()->set_board("***");
  EXPECT_EQ(client_->Analyze(analyze).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(ServerTest, ASearchPastTheCallDeadlineIsDeadlineExceeded) {
  const auto started = std::chrono::steady_clock::now();
  auto answer = client_->Solve(KnightRequest(kFarKnight, 0, v1::SEARCH_ONLY), 200ms);
  EXPECT_EQ(answer.status().code(), absl::StatusCode::kDeadlineExceeded) << answer.status();
  // Well before the search could have finished (it takes over half a minute).
  EXPECT_LT(std::chrono::steady_clock::now() - started, 20s);
  // The search stopped: the one search slot is free again soon.
  std::this_thread::sleep_for(300ms);
  auto next = client_->Solve(KnightRequest("1111111111000*10000100000", 0, v1::SEARCH_ONLY));
  EXPECT_TRUE(next.ok()) << next.status();
}

// Polls `condition` (the server's own state, not a clock) for up to a minute.
template <class Condition>
bool Eventually(Condition condition) {
  for (int i = 0; i < 6000; ++i) {
    if (condition()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

// The gauge's value in the server's metrics text.
int SearchesRunning(const PuzzledbServer& server) {
  const std::string text = server.MetricsText();
  const std::string name = "\npuzzledb_searches_running ";
  const size_t at = text.find(name);
  return at == std::string::npos ? -1 : std::stoi(text.substr(at + name.size()));
}

// A fifteen-puzzle board at 80 moves, far beyond what the test database's 6-6-3 tables
// solve in a minute: one search that splits (docs/API.md, "Searches") borrows the second
// slot while nothing waits, gives it back as soon as another search waits, and stops when
// its client goes away.
TEST_F(ServerTest, AFifteenSearchBorrowsAnIdleSlotAndGivesItBack) {
  TearDown();
  // A database of the fifteen puzzle's 6-6-3 tables alone (a second to build).
  const std::string fifteen_db = testing::TempPath("server_fifteen_db");
  std::filesystem::remove_all(fifteen_db);
  {
    auto store = TableStore::Open(fifteen_db, TableStore::Mode::kReadWrite);
    ASSERT_TRUE(store.ok()) << store.status();
    const Puzzle& fifteen = *FindPuzzle("fifteen");
    ASSERT_EQ(fifteen.pattern_sets().at(1), "6-6-3");
    ASSERT_TRUE(fifteen.BuildPatterns("6-6-3", **store, BuildOptions{}).ok());
  }
  ServerOptions options;
  options.db = fifteen_db;
  options.listen = "127.0.0.1:0";
  options.max_concurrent_searches = 2;
  options.search_queue = 4;
  auto started = PuzzledbServer::Start(options, [](std::string_view) {});
  ASSERT_TRUE(started.ok()) << started.status();
  server_ = std::move(*started);
  ClientOptions client_options;
  client_options.target = "127.0.0.1:" + std::to_string(server_->port());
  client_ = std::make_unique<Client>(client_options);
  auto channel = testing::ConnectedChannel("127.0.0.1:" + std::to_string(server_->port()));
  auto stub = v1::Solver::NewStub(channel);
  v1::SolveRequest hard;
  for (int c : {0, 12, 9, 13, 15, 11, 10, 14, 3, 7, 2, 5, 4, 8, 6, 1}) {
    hard.mutable_puzzle()->mutable_fifteen()->add_cells(static_cast<uint32_t>(c));
  }
  grpc::ClientContext hard_context;
  hard_context.set_deadline(std::chrono::system_clock::now() + 60s);
  v1::SolveResponse hard_response;
  grpc::Status hard_status;
  std::thread hard_call([&] { hard_status = stub->Solve(&hard_context, hard, &hard_response); });
  // One search on two threads.
  EXPECT_TRUE(Eventually([&] { return SearchesRunning(*server_) == 2; }))
      << server_->MetricsText();
  // Another search is answered while the hard one goes on: the helper made room.
  const auto asked = std::chrono::steady_clock::now();
  v1::SolveRequest korf1;
  for (int c : {13, 6, 8, 12, 15, 14, 0, 10, 11, 7, 4, 5, 9, 1, 3, 2}) {
    korf1.mutable_puzzle()->mutable_fifteen()->add_cells(static_cast<uint32_t>(c));
  }
  auto other = client_->Solve(korf1);
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_EQ(other->distance(), 57u);
  EXPECT_LT(std::chrono::steady_clock::now() - asked, 30s);
  // The client goes away mid-search: every thread of the search comes back.
  hard_context.TryCancel();
  hard_call.join();
  EXPECT_EQ(hard_status.error_code(), grpc::StatusCode::CANCELLED) << hard_status.error_message();
  EXPECT_TRUE(Eventually([&] { return SearchesRunning(*server_) == 0; }))
      << server_->MetricsText();
  v1::SolveRequest statement;
  for (int c : {2, 3, 4, 0, 1, 5, 7, 8, 9, 6, 10, 12, 13, 14, 11, 15}) {
    statement.mutable_puzzle()->mutable_fifteen()->add_cells(static_cast<uint32_t>(c));
  }
  auto next = client_->Solve(statement);
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_EQ(next->distance(), 9u);
  TearDown();
  std::filesystem::remove_all(fifteen_db);
}

TEST_F(ServerTest, SearchesBeyondSlotsAndQueueAreRefusedAndTableAnswersDoNotWait) {
  TearDown();
  StartServer(/*searches=*/1, /*queue=*/1);
  // One slot: a long search holds it (it ends at its deadline, or when cancelled)...
  grpc::ClientContext long_context;
  long_context.set_deadline(std::chrono::system_clock::now() + 60s);
  auto channel = testing::ConnectedChannel("127.0.0.1:" + std::to_string(server_->port()));
  auto stub = v1::Solver::NewStub(channel);
  v1::SolveResponse long_response;
  grpc::Status long_status;
  std::thread long_search([&] {
    long_status = stub->Solve(&long_context, KnightRequest(kFarKnight, 0, v1::SEARCH_ONLY),
                              &long_response);
  });
  ASSERT_TRUE(Eventually([&] { return server_->searches_running() == 1; }));
  // ... the next search waits in the queue of one ...
  auto queued = std::async(std::launch::async, [&] {
    return client_->Solve(KnightRequest("1111111111000*10000100000", 0, v1::SEARCH_ONLY), 60000ms);
  });
  ASSERT_TRUE(Eventually([&] { return server_->searches_waiting() == 1; }));
  // ... and the one after is refused at once, saying which limits.
  auto refused = client_->Solve(KnightRequest("011100101001001011*100110", 0, v1::SEARCH_ONLY));
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted) << refused.status();
  EXPECT_EQ(std::string(refused.status().message()),
            "the server runs at most 1 search at once (--max-concurrent-searches) and its queue "
            "of 1 waiting (--search-queue) is full; retry later");
  // The client tried 4 times (ClientOptions::max_attempts), waiting the second the
  // server's pushback asked for between attempts.
  EXPECT_NE(server_->MetricsText().find("puzzledb_searches_refused_total 4\n"), std::string::npos)
      << server_->MetricsText().substr(0, 4000);
  // Table answers go on while the search holds the only slot.
  for (int i = 0; i < 100; ++i) {
    auto answer = client_->Solve(KnightRequest("1111111111000*10000100000"));
    ASSERT_TRUE(answer.ok());
    ASSERT_EQ(answer->source(), v1::TABLE);
  }
  EXPECT_EQ(server_->searches_running(), 1);
  EXPECT_EQ(server_->searches_waiting(), 1u);
  // Once the long search ends, the queued one is answered.
  long_context.TryCancel();
  long_search.join();
  EXPECT_EQ(long_status.error_code(), grpc::StatusCode::CANCELLED);
  auto answer = queued.get();
  ASSERT_TRUE(answer.ok()) << answer.status();
  EXPECT_EQ(answer->distance(), 3u);
  EXPECT_EQ(answer->source(), v1::SEARCH);
}

TEST_F(ServerTest, ASearchWhoseDeadlinePassesInTheQueueIsDeadlineExceeded) {
  grpc::ClientContext long_context;
  auto channel = testing::ConnectedChannel("127.0.0.1:" + std::to_string(server_->port()));
  auto stub = v1::Solver::NewStub(channel);
  v1::SolveResponse long_response;
  std::thread long_search([&] {
    (void)stub->Solve(&long_context, KnightRequest(kFarKnight, 0, v1::SEARCH_ONLY),
                      &long_response);
  });
  ASSERT_TRUE(Eventually([&] { return server_->searches_running() == 1; }));
  auto waited = client_->Solve(KnightRequest("1111111111000*10000100000", 0, v1::SEARCH_ONLY), 300ms);
  EXPECT_EQ(waited.status().code(), absl::StatusCode::kDeadlineExceeded) << waited.status();
  long_context.TryCancel();
  long_search.join();
  // The expired one was dropped without a search: the pool is empty again.
  EXPECT_TRUE(Eventually([&] {
    return server_->searches_running() == 0 && server_->searches_waiting() == 0;
  }));
}

// Rotation boards (eight of each value, shuffled) with their answers from the table.
std::vector<std::pair<v1::SolveRequest, std::string>> RotationSearches(Client& client, int count,
                                                                       uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::pair<v1::SolveRequest, std::string>> out;
  for (int i = 0; i < count; ++i) {
    std::vector<uint32_t> values;
    for (uint32_t k = 1; k <= 3; ++k) values.insert(values.end(), 8, k);
    std::shuffle(values.begin(), values.end(), rng);
    v1::SolveRequest request =
        RequestFor(RotationPuzzle::Instance{{}, *RotationPuzzle::BoardFromValues(values)});
    request.set_id(static_cast<uint64_t>(i));
    auto answer = client.Solve(request);
    EXPECT_TRUE(answer.ok()) << answer.status();
    EXPECT_EQ(answer->source(), v1::TABLE);
    request.set_policy(v1::SEARCH_ONLY);
    out.emplace_back(request, answer.ok() ? Cat(answer->distance(), ":", Join(answer->moves(), ""))
                                          : std::string("?"));
  }
  return out;
}

// After calls cut short: no search left running or waiting, and the searches of `quick`
// answered as before.
void ExpectIdleAndExact(const PuzzledbServer& server, Client& client,
                        const std::vector<std::pair<v1::SolveRequest, std::string>>& quick) {
  EXPECT_TRUE(Eventually([&] {
    return server.searches_running() == 0 && server.searches_waiting() == 0;
  }));
  for (const auto& [request, expected] : quick) {
    auto answer = client.Solve(request);
    ASSERT_TRUE(answer.ok()) << answer.status();
    EXPECT_EQ(Cat(answer->distance(), ":", Join(answer->moves(), "")), expected);
  }
}

TEST_F(ServerTest, SequentialSearchesAreNeverRefused) {
  // One search slot and no queue: a caller that waits for each answer before the next call
  // must find the slot free every time (it is released before the answer is sent).
  TearDown();
  StartServer(/*searches=*/1, /*queue=*/0);
  const auto cases = RotationSearches(*client_, 2000, 11);
  int refused = 0, wrong = 0;
  for (const auto& [request, expected] : cases) {
    auto answer = client_->Solve(request);
    if (!answer.ok()) {
      refused += absl::IsResourceExhausted(answer.status());
      ADD_FAILURE() << answer.status();
      continue;
    }
    wrong += answer->source() != v1::SEARCH ||
             Cat(answer->distance(), ":", Join(answer->moves(), "")) != expected;
  }
  std::printf("2000 sequential search-only calls: %d refused, %d wrong\n", refused, wrong);
  EXPECT_EQ(refused, 0);
  EXPECT_EQ(wrong, 0);
}

TEST_F(ServerTest, OneStreamOfSearchesIsNeverRefused) {
  TearDown();
  StartServer(/*searches=*/1, /*queue=*/0);
  const auto cases = RotationSearches(*client_, 10000, 12);
  std::vector<v1::SolveRequest> requests;
  for (const auto& c : cases) requests.push_back(c.first);
  std::vector<v1::SolveResponse> answers;
  const grpc::Status status = testing::StreamAll(*client_->channel(), requests, 600000ms, &answers);
  ASSERT_TRUE(status.ok()) << status.error_message();
  int refused = 0, errors = 0, wrong = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto& a = answers[i];
    if (a.has_error()) {
      ++errors;
      refused += a.error().code() == v1::Error::RESOURCE_EXHAUSTED;
      continue;
    }
    wrong += a.id() != i || a.source() != v1::SEARCH ||
             Cat(a.distance(), ":", Join(a.moves(), "")) != cases[i].second;
  }
  std::printf("one stream of 10000 search-needing requests: %d refused, %d errors, %d wrong\n",
              refused, errors, wrong);
  EXPECT_EQ(errors, 0);
  EXPECT_EQ(wrong, 0);
  // The client library's SolveAll (SolveBatch calls, two in flight) waits the same way.
  requests.resize(2000);
  auto batched = client_->SolveAll(requests, 600000ms);
  ASSERT_TRUE(batched.ok()) << batched.status();
  errors = wrong = 0;
  for (size_t i = 0; i < requests.size(); ++i) {
    const auto& a = (*batched)[i];
    errors += a.has_error();
    wrong += !a.has_error() && (a.source() != v1::SEARCH ||
                                Cat(a.distance(), ":", Join(a.moves(), "")) != cases[i].second);
  }
  EXPECT_EQ(errors, 0);
  EXPECT_EQ(wrong, 0);
}

TEST_F(ServerTest, StreamsCutWhileTheirSearchesRunLeaveTheServerExact) {
  // Many streams, each with searches that take long (far knight boards) or are quick
  // (rotation), cancelled by the client at random points: while reading, while its
  // searches queue or run, after some answers. The server must neither crash (under ASan a
  // use of a finished stream fails the test) nor answer anything wrongly afterwards.
  const auto quick = RotationSearches(*client_, 8, 13);
  const int kThreads = 4, kStreamsEach = 250;
  std::atomic<int> answered{0}, wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(100 + t);
      auto channel = testing::ConnectedChannel("127.0.0.1:" + std::to_string(server_->port()));
      auto stub = v1::Solver::NewStub(channel);
      for (int s = 0; s < kStreamsEach; ++s) {
        grpc::ClientContext context;
        // The deadline cuts the stream at a random moment, whatever it is doing.
        context.set_deadline(std::chrono::system_clock::now() +
                             std::chrono::milliseconds(rng() % 80));
        auto stream = stub->SolveStream(&context);
        const int requests = 1 + static_cast<int>(rng() % 12);
        const int cut_after_writes = static_cast<int>(rng() % (requests + 1));
        const int cut_after_reads = static_cast<int>(rng() % 4);
        for (int r = 0; r < requests && r < cut_after_writes; ++r) {
          v1::SolveRequest request = rng() % 3 == 0 ? KnightRequest(kFarKnight, 0, v1::SEARCH_ONLY)
                                                    : quick[rng() % quick.size()].first;
          request.set_id(static_cast<uint64_t>(r));
          if (!stream->Write(request)) break;
        }
        if (rng() % 2) stream->WritesDone();
        v1::SolveResponse response;
        for (int r = 0; r < cut_after_reads; ++r) {
          if (!stream->Read(&response)) break;
          ++answered;
          if (!response.has_error() && response.moves_size() != static_cast<int>(response.distance())) ++wrong;
        }
        if (rng() % 2) context.TryCancel();  // else the deadline cuts it
        (void)stream->Finish();
      }
    });
  }
  for (auto& t : threads) t.join();
  std::printf("%d streams cut, %d answers read before the cut\n", kThreads * kStreamsEach,
              answered.load());
  EXPECT_EQ(wrong.load(), 0);
  // Every cancelled search lets its slot go, and the server still answers exactly.
  ExpectIdleAndExact(*server_, *client_, quick);
  auto far = client_->Solve(KnightRequest("011100101001001011*100110"));
  ASSERT_TRUE(far.ok()) << far.status();
  EXPECT_EQ(far->distance(), 20u);
}

TEST_F(ServerTest, SolveAllsCutByTheirDeadlineLeaveTheServerExact) {
  // The client library's bulk path (SolveBatch calls from worker threads, over a list of
  // replicas' channels: here the one server twice) from four threads at once, each call cut
  // by a deadline at a random moment. Neither side may crash or race (the sanitizer pass),
  // and the server must answer exactly afterwards.
  const auto quick = RotationSearches(*client_, 8, 13);
  ClientOptions options;
  const std::string address = "127.0.0.1:" + std::to_string(server_->port());
  options.target = address + "," + address;
  Client listed(options);
  std::atomic<int> cut{0}, whole{0}, wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(200 + t);
      for (int s = 0; s < 40; ++s) {
        std::vector<v1::SolveRequest> requests;
        const int n = 8 + static_cast<int>(rng() % 40);
        for (int r = 0; r < n; ++r) {
          requests.push_back(rng() % 40 == 0 ? KnightRequest(kFarKnight, 0, v1::SEARCH_ONLY)
                                            : quick[rng() % quick.size()].first);
        }
        auto answers = listed.SolveAll(requests, std::chrono::milliseconds(1 + rng() % 200));
        if (!answers.ok()) {
          ++cut;
          continue;
        }
        ++whole;
        for (const auto& a : *answers) {
          if (!a.has_error() && a.moves_size() != static_cast<int>(a.distance())) ++wrong;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  std::printf("160 SolveAlls: %d cut by their deadline, %d whole\n", cut.load(), whole.load());
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GT(cut.load(), 0);
  ExpectIdleAndExact(*server_, *client_, quick);
}

// Random table-covered requests of all three puzzles, some malformed, with their answers
// computed one by one first.
std::vector<v1::SolveRequest> MixedRequests(int count, uint32_t seed) {
  std::mt19937 rng(seed);
  const KnightPuzzle knight;
  const auto wiring = Knobs("knobs_9001.in").params;
  std::vector<v1::SolveRequest> requests;
  for (int i = 0; i < count; ++i) {
    v1::SolveRequest r;
    switch (i % 4) {
      case 0: {  // knight within the depth-12 table
        KnightBoard s = KnightPuzzle::Goal();
        for (int k = 0; k < 8; ++k) {
          KnightBoard t;
          while (!knight.Apply(s, static_cast<int>(rng() % 8), &t)) {
          }
          s = t;
        }
        r = RequestFor(KnightPuzzle::Instance{{}, s});
        break;
      }
      case 1:
        r = RequestFor(KnobsPuzzle::Instance{wiring, static_cast<uint32_t>(rng() & 0xFFFFFF)});
        break;
      case 2: {
        std::vector<uint32_t> values;
        for (uint32_t k = 1; k <= 3; ++k) values.insert(values.end(), 8, k);
        std::shuffle(values.begin(), values.end(), rng);
        r = RequestFor(RotationPuzzle::Instance{{}, *RotationPuzzle::BoardFromValues(values)});
        break;
      }
      case 3:
        r.mutable_puzzle()->mutable_knight()->set_board(i % 8 == 3 ? "bad" : "1111111111000*10000100000");
        break;
    }
    r.set_id(static_cast<uint64_t>(1000 + i));
    requests.push_back(r);
  }
  return requests;
}

TEST_F(ServerTest, StreamsEchoIdsAndMatchUnaryAnswersUnderConcurrency) {
  const auto requests = MixedRequests(1200, 5);
  // The reference: one client, one unary call at a time.
  std::vector<std::string> expected;
  for (const auto& r : requests) {
    auto answer = client_->Solve(r);
    expected.push_back(answer.ok() ? Cat(answer->distance(), ":", Join(answer->moves(), ","))
                                   : Cat("error ", absl::StatusCodeToString(answer.status().code())));
  }
  // Four streams and four unary callers at once.
  std::atomic<int> mismatches{0}, answered{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      grpc::ClientContext context;
      auto channel = testing::ConnectedChannel("127.0.0.1:" + std::to_string(server_->port()));
      auto stub = v1::Solver::NewStub(channel);
      auto stream = stub->SolveStream(&context);
      std::thread writer([&] {
        for (const auto& r : requests) stream->Write(r);
        stream->WritesDone();
      });
      std::vector<int> seen(requests.size(), 0);
      v1::SolveResponse response;
      while (stream->Read(&response)) {
        const uint64_t index = response.id() - 1000;
        if (index >= requests.size()) {
          ++mismatches;
          continue;
        }
        ++seen[index];
        const std::string got =
            response.has_error() ? Cat("error ", v1::Error::Code_Name(response.error().code()))
                                 : Cat(response.distance(), ":", Join(response.moves(), ","));
        if (got != expected[index]) ++mismatches;
        ++answered;
      }
      writer.join();
      if (!stream->Finish().ok()) ++mismatches;
      for (int s : seen) mismatches += s != 1;
    });
    threads.emplace_back([&, t] {
      for (size_t i = t; i < requests.size(); i += 4) {
        auto answer = client_->Solve(requests[i]);
        const std::string got = answer.ok()
                                    ? Cat(answer->distance(), ":", Join(answer->moves(), ","))
                                    : Cat("error ", absl::StatusCodeToString(answer.status().code()));
        if (got != expected[i]) ++mismatches;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(answered.load(), 4 * static_cast<int>(requests.size()));
}

// Regression: a stream whose first write went out with gRPC's buffer hint (several answers
// were ready at once) kept its headers, and the write's completion, back until something
// else made the connection write; once the client had sent everything, nothing did, and the
// call never ended (a CLI run hung about once in 200 on a busy machine). Many short streams,
// each sent in one burst of 40 and half-closed, on one connection with nothing else on it
// (the code before the fix stalled within 1,500 rounds in two runs of three).
TEST_F(ServerTest, ShortStreamsSentInOneBurstAlwaysEnd) {
  const auto requests = MixedRequests(40, 11);
  auto channel = testing::ConnectedChannel("127.0.0.1:" + std::to_string(server_->port()));
  auto stub = v1::Solver::NewStub(channel);
  grpc::WriteOptions buffered;
  buffered.set_buffer_hint();
  int stalled = 0, short_answered = 0;
  for (int round = 0; round < 1500 && stalled == 0; ++round) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + 10s);
    auto stream = stub->SolveStream(&context);
    for (size_t i = 0; i < requests.size(); ++i) {
      stream->Write(requests[i], i + 1 < requests.size() ? buffered : grpc::WriteOptions());
    }
    stream->WritesDone();
    size_t answers = 0;
    v1::SolveResponse response;
    while (stream->Read(&response)) ++answers;
    const grpc::Status status = stream->Finish();
    if (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) ++stalled;
    if (answers != requests.size()) ++short_answered;
    ASSERT_TRUE(status.ok() || status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED)
        << status.error_message();
  }
  EXPECT_EQ(stalled, 0);
  EXPECT_EQ(short_answered, 0);
}

TEST_F(ServerTest, ClientSolveAllReturnsAnswersInRequestOrder) {
  auto requests = MixedRequests(200, 6);
  requests.push_back(KnightRequest("011100101001001011*100110"));  // needs a search
  auto answers = client_->SolveAll(requests, 20000ms);
  ASSERT_TRUE(answers.ok()) << answers.status();
  ASSERT_EQ(answers->size(), requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    auto one = client_->Solve(requests[i]);
    if (one.ok()) {
      ASSERT_FALSE((*answers)[i].has_error()) << i;
      ASSERT_EQ((*answers)[i].distance(), one->distance()) << i;
    } else {
      ASSERT_EQ((*answers)[i].error().code(), static_cast<int>(one.status().code())) << i;
    }
  }
  EXPECT_EQ(answers->back().source(), v1::SEARCH);
  EXPECT_EQ(answers->back().distance(), 20u);
}

TEST_F(ServerTest, ClientSolveAllKeepsTheCallersIds) {
  std::vector<v1::SolveRequest> requests;
  for (uint64_t id : {7777ull, 3ull, 3ull, 0ull, 123456789012ull}) {
    requests.push_back(KnightRequest("1111111111000*10000100000"));
    requests.back().set_id(id);
  }
  auto answers = client_->SolveAll(requests, 20000ms);
  ASSERT_TRUE(answers.ok()) << answers.status();
  ASSERT_EQ(answers->size(), requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    EXPECT_EQ((*answers)[i].id(), requests[i].id()) << i;
    EXPECT_EQ((*answers)[i].distance(), 3u) << i;
  }
}

// What an answer says, as text to compare: the moves by name (from move codes, named by
// the model, when the request asked for them), or the error's code.
std::string Said(const v1::SolveRequest& request, const v1::SolveResponse& answer) {
  if (answer.has_error()) return Cat("error ", v1::Error::Code_Name(answer.error().code()));
  std::vector<std::string> names(answer.moves().begin(), answer.moves().end());
  if (answer.has_move_codes()) {
    EXPECT_EQ(request.move_encoding(), v1::MOVE_CODES);
    EXPECT_EQ(answer.moves_size(), 0);
    EXPECT_EQ(answer.move_codes().size(), answer.distance());
    auto position = PositionFromWire(request.puzzle());
    EXPECT_TRUE(position.ok());
    if (position.ok()) {
      const Puzzle& puzzle = *position->puzzle();
      Position s = *position;
      for (const char c : answer.move_codes()) {
        names.push_back(puzzle.MoveName(s, static_cast<uint8_t>(c)));
        Position next;
        EXPECT_TRUE(puzzle.Apply(s, static_cast<uint8_t>(c), &next));
        s = next;
      }
    }
  }
  return Cat(v1::Outcome_Name(answer.outcome()), " ", answer.distance(), ":", Join(names, ","),
             " ", v1::Source_Name(answer.source()), " ", answer.optimal_count(), " ",
             answer.table_id());
}

std::string Said(const v1::SolveRequest& request, const absl::StatusOr<v1::SolveResponse>& answer) {
  return answer.ok() ? Said(request, *answer) : Cat("error ", absl::StatusCodeToString(answer.status().code()));
}

// MixedRequests and more: searches (knight boards beyond the depth-12 table, SEARCH_ONLY
// rotation boards), counts, move codes, and requests refused for what they are (a batch in
// a batch, an unknown move encoding, no puzzle).
std::vector<v1::SolveRequest> BatchRequests(int count, uint32_t seed) {
  std::vector<v1::SolveRequest> requests = MixedRequests(count, seed);
  std::mt19937 rng(seed);
  for (size_t i = 0; i < requests.size(); ++i) {
    v1::SolveRequest& r = requests[i];
    if (i % 5 == 1) r.set_move_encoding(v1::MOVE_CODES);
    if (i % 97 == 0) r.set_count_solutions(true);
    if (i % 211 == 7) r = KnightRequest("011100101001001011*100110");  // 20 moves: searched
    if (i % 4 == 2 && i % 9 == 0) r.set_policy(v1::SEARCH_ONLY);  // a rotation board
    if (i % 401 == 11) r.mutable_batch()->add_requests();
    if (i % 409 == 13) r.set_move_encoding(static_cast<v1::MoveEncoding>(7));
    if (i % 419 == 17) r.clear_puzzle();
    r.set_id(static_cast<uint64_t>(5000 + i));
  }
  return requests;
}

TEST_F(ServerTest, BatchesAnswerEveryRequestInOrderAsUnaryCallsDo) {
  TearDown();
  StartServer(/*searches=*/2);
  const auto requests = BatchRequests(1500, 9);
  std::vector<std::string> expected;
  for (const auto& r : requests) expected.push_back(Said(r, client_->Solve(r, 60000ms)));
  int errors = 0, searched = 0;
  for (const auto& e : expected) errors += e.rfind("error ", 0) == 0;
  // SolveBatch, in batches of several sizes (the largest past the chunk a lent thread takes).
  for (const size_t size : {size_t{1}, size_t{7}, size_t{1500}}) {
    for (size_t begin = 0; begin < requests.size(); begin += size) {
      v1::SolveBatchRequest batch;
      for (size_t i = begin; i < std::min(requests.size(), begin + size); ++i) {
        *batch.add_requests() = requests[i];
      }
      auto answers = client_->SolveBatch(batch, 60000ms);
      ASSERT_TRUE(answers.ok()) << answers.status();
      ASSERT_EQ(answers->responses_size(), batch.requests_size());
      for (int k = 0; k < batch.requests_size(); ++k) {
        const v1::SolveResponse& answer = answers->responses(k);
        ASSERT_EQ(answer.id(), batch.requests(k).id()) << "size " << size << ", request " << begin + k;
        ASSERT_EQ(Said(batch.requests(k), answer), expected[begin + k])
            << "size " << size << ", request " << begin + k;
        searched += size == 1500 && answer.source() == v1::SEARCH;
      }
    }
  }
  EXPECT_GT(errors, 3);
  EXPECT_GT(searched, 5);
  // A stream that carries single requests and batches, mixed.
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + 60s);
  auto stub = v1::Solver::NewStub(
      testing::ConnectedChannel("127.0.0.1:" + std::to_string(server_->port())));
  auto stream = stub->SolveStream(&context);
  std::map<uint64_t, std::vector<size_t>> sent;  // message id -> the requests it holds
  uint64_t id = 0;
  for (size_t begin = 0; begin < requests.size(); ++id) {
    v1::SolveRequest message;
    message.set_id(id);
    const size_t n = id % 3 == 0 ? 1 : 1 + id % 300;
    if (n == 1 && !requests[begin].has_batch()) {
      message = requests[begin];
      message.set_id(id);
      sent[id] = {begin++};
    } else {
      for (size_t i = begin; i < std::min(requests.size(), begin + n); ++i) {
        *message.mutable_batch()->add_requests() = requests[i];
        sent[id].push_back(i);
      }
      begin += n;
    }
    ASSERT_TRUE(stream->Write(message));
  }
  stream->WritesDone();
  v1::SolveResponse response;
  size_t answered = 0;
  while (stream->Read(&response)) {
    ASSERT_TRUE(sent.count(response.id())) << response.id();
    const std::vector<size_t>& held = sent[response.id()];
    if (response.has_batch()) {
      ASSERT_EQ(static_cast<size_t>(response.batch().responses_size()), held.size());
      for (size_t k = 0; k < held.size(); ++k) {
        EXPECT_EQ(Said(requests[held[k]], response.batch().responses(static_cast<int>(k))),
                  expected[held[k]]) << held[k];
      }
    } else {
      ASSERT_EQ(held.size(), 1u);
      EXPECT_EQ(Said(requests[held[0]], response), expected[held[0]]) << held[0];
    }
    answered += held.size();
    sent.erase(response.id());
  }
  EXPECT_TRUE(stream->Finish().ok());
  EXPECT_EQ(answered, requests.size());
}

TEST_F(ServerTest, ABatchIsCheckedAsAWholeAndItsSearchesKeepToTheirLimits) {
  // Over 10,000 requests: refused whole, naming the field.
  v1::SolveBatchRequest big;
  for (int i = 0; i < 10001; ++i) *big.add_requests() = KnightRequest("1111111111000*10000100000");
  auto refused = client_->SolveBatch(big);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument) << refused.status();
  EXPECT_NE(refused.status().message().find("requests: 10001 in one batch"), std::string::npos)
      << refused.status();
  // Empty: no answers.
  auto none = client_->SolveBatch(v1::SolveBatchRequest());
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(none->responses_size(), 0);
  // One slot, no queue: a batch of 30 searches is never refused its own searches, and each
  // keeps to its timeout_ms (the far knight's search outlives 150 ms) in band.
  TearDown();
  StartServer(/*searches=*/1, /*queue=*/0);
  const auto quick = RotationSearches(*client_, 30, 21);
  v1::SolveBatchRequest batch;
  for (const auto& [request, expected] : quick) *batch.add_requests() = request;
  v1::SolveRequest far = KnightRequest(kFarKnight, 0, v1::SEARCH_ONLY);
  far.set_timeout_ms(150);
  far.set_id(99);
  *batch.mutable_requests()->Add() = far;
  const auto started = std::chrono::steady_clock::now();
  auto answers = client_->SolveBatch(batch, 60000ms);
  ASSERT_TRUE(answers.ok()) << answers.status();
  for (size_t i = 0; i < quick.size(); ++i) {
    const v1::SolveResponse& answer = answers->responses(static_cast<int>(i));
    ASSERT_FALSE(answer.has_error()) << i << ": " << answer.error().message();
    EXPECT_EQ(answer.source(), v1::SEARCH);
    EXPECT_EQ(Cat(answer.distance(), ":", Join(answer.moves(), "")), quick[i].second);
  }
  const v1::SolveResponse& timed_out = answers->responses(30);
  EXPECT_EQ(timed_out.id(), 99u);
  EXPECT_EQ(timed_out.error().code(), static_cast<int>(absl::StatusCode::kDeadlineExceeded))
      << timed_out.error().message();
  EXPECT_LT(std::chrono::steady_clock::now() - started, 30s);
  // The call's own deadline bounds every search in it: the call ends at it (the server sees
  // the deadline a little before the client, and may answer every search DEADLINE_EXCEEDED
  // in band just in time; else the client's deadline ends the call), none of them runs on,
  // and the slot is free again soon after.
  v1::SolveBatchRequest slow;
  for (int i = 0; i < 3; ++i) *slow.add_requests() = KnightRequest(kFarKnight, 0, v1::SEARCH_ONLY);
  const auto slow_started = std::chrono::steady_clock::now();
  auto cut = client_->SolveBatch(slow, 300ms);
  EXPECT_LT(std::chrono::steady_clock::now() - slow_started, 5s);
  if (cut.ok()) {
    for (const v1::SolveResponse& answer : cut->responses()) {
      EXPECT_EQ(answer.error().code(), static_cast<int>(absl::StatusCode::kDeadlineExceeded))
          << answer.error().message();
    }
  } else {
    EXPECT_EQ(cut.status().code(), absl::StatusCode::kDeadlineExceeded) << cut.status();
  }
  EXPECT_TRUE(Eventually([&] {
    return server_->searches_running() == 0 && server_->searches_waiting() == 0;
  }));
  auto after = client_->Solve(quick[0].first);
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(Cat(after->distance(), ":", Join(after->moves(), "")), quick[0].second);
}

TEST_F(ServerTest, BatchesCutMidCallLeaveTheServerExact) {
  // Batches of searches and table answers, unary and inside streams, cut by their deadline
  // or cancelled at random moments: nothing may crash or leak (ASan), and the server stays
  // exact.
  const auto quick = RotationSearches(*client_, 8, 17);
  std::atomic<int> answered{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(300 + t);
      auto stub = v1::Solver::NewStub(
          testing::ConnectedChannel("127.0.0.1:" + std::to_string(server_->port())));
      for (int b = 0; b < 60; ++b) {
        v1::SolveBatchRequest batch;
        const int n = 1 + static_cast<int>(rng() % 40);
        for (int i = 0; i < n; ++i) {
          *batch.add_requests() = rng() % 4 == 0 ? KnightRequest(kFarKnight, 0, v1::SEARCH_ONLY)
                                  : rng() % 2   ? quick[rng() % quick.size()].first
                                                : KnightRequest("1111111111000*10000100000");
        }
        grpc::ClientContext context;
        context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(rng() % 60));
        if (b % 2 == 0) {
          v1::SolveBatchResponse response;
          std::thread cancel;
          if (rng() % 2) {
            cancel = std::thread([&context, wait = rng() % 20] {
              std::this_thread::sleep_for(std::chrono::milliseconds(wait));
              context.TryCancel();
            });
          }
          if (stub->SolveBatch(&context, batch, &response).ok()) ++answered;
          if (cancel.joinable()) cancel.join();
        } else {
          auto stream = stub->SolveStream(&context);
          v1::SolveRequest message;
          *message.mutable_batch() = batch;
          (void)stream->Write(message);
          if (rng() % 2) stream->WritesDone();
          v1::SolveResponse response;
          if (rng() % 2 && stream->Read(&response)) ++answered;
          context.TryCancel();
          (void)stream->Finish();
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  std::printf("180 batches cut, %d answered before the cut\n", answered.load());
  ExpectIdleAndExact(*server_, *client_, quick);
}

TEST_F(ServerTest, ABatchMessageInAStreamSetsNothingButBatchAndId) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + 30s);
  auto stub = v1::Solver::NewStub(
      testing::ConnectedChannel("127.0.0.1:" + std::to_string(server_->port())));
  auto stream = stub->SolveStream(&context);
  v1::SolveRequest message;
  message.set_id(4);
  message.set_max_moves(3);
  *message.mutable_batch()->add_requests() = KnightRequest("1111111111000*10000100000");
  ASSERT_TRUE(stream->Write(message));
  message.clear_max_moves();
  message.set_id(5);
  ASSERT_TRUE(stream->Write(message));
  stream->WritesDone();
  std::map<uint64_t, v1::SolveResponse> answers;
  v1::SolveResponse response;
  while (stream->Read(&response)) answers[response.id()] = response;
  EXPECT_TRUE(stream->Finish().ok());
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_EQ(answers[4].error().code(), static_cast<int>(absl::StatusCode::kInvalidArgument));
  EXPECT_NE(answers[4].error().message().find("sets only batch and id"), std::string::npos)
      << answers[4].error().message();
  ASSERT_EQ(answers[5].batch().responses_size(), 1);
  EXPECT_EQ(answers[5].batch().responses(0).distance(), 3u);
  // A batch sent to Solve is refused, naming the field.
  v1::SolveRequest unary;
  *unary.mutable_batch()->add_requests() = KnightRequest("1111111111000*10000100000");
  auto refused = client_->Solve(unary);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("batch: "), std::string::npos) << refused.status();
}

TEST(ClientTest, ConnectChecksTheTarget) {
  for (const auto& [target, message] : std::vector<std::pair<std::string, std::string>>{
           {"", "the server address is empty; give host:port"},
           {"garbage", "'garbage' has no port; give host:port, e.g. 127.0.0.1:50051"},
           {"127.0.0.1:99999", "'127.0.0.1:99999': the port must be a number from 1 to 65535, got '99999'"},
           {"127.0.0.1:0", "'127.0.0.1:0': the port must be a number from 1 to 65535, got '0'"},
           {"http://x:1", "'http://x:1': unknown scheme; use host:port, dns:///host:port, ipv4:, ipv6: or unix:"}}) {
    ClientOptions options;
    options.target = target;
    auto client = Client::Connect(options);
    ASSERT_FALSE(client.ok()) << target;
    EXPECT_EQ(client.status().code(), absl::StatusCode::kInvalidArgument) << target;
    EXPECT_EQ(std::string(client.status().message()), message);
    // The unchecked constructor fails every call with the same reason.
    EXPECT_EQ(Client(options).ListTables().status(), client.status());
  }
  for (const std::string target : {"127.0.0.1:50051", "[::1]:50051", "localhost:1",
                                   "dns:///db.example:50051", "10.0.0.1:1,10.0.0.2:2", "unix:/tmp/s"}) {
    ClientOptions options;
    options.target = target;
    EXPECT_TRUE(Client::Connect(options).ok()) << target;
  }
  ClientOptions half_tls;
  half_tls.tls_cert_file = "client.pem";
  EXPECT_EQ(std::string(Client::Connect(half_tls).status().message()),
            "a TLS client certificate needs its key (tls_key_file)");
}

TEST(ClientTest, WaitUntilServingOnARefusedPortSaysWhy) {
  ClientOptions options;
  options.target = "127.0.0.1:1";  // nothing listens on port 1
  Client client(options);
  const absl::Status status = client.WaitUntilServing(1500ms);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  const std::string message(status.message());
  EXPECT_EQ(message.rfind("no puzzledb server serving at 127.0.0.1:1: ", 0), 0u) << message;
  EXPECT_NE(message.find("onnect"), std::string::npos) << message;  // gRPC's connection error
  EXPECT_EQ(message.find("Deadline Exceeded"), std::string::npos) << message;
}

TEST_F(ServerTest, ANewWiringIsSearchedAtOnceAndThenBuiltInTheBackground) {
  const auto instance = Knobs("knobs_9002.in");
  auto first = client_->Solve(RequestFor(instance));
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->source(), v1::SEARCH);
  EXPECT_EQ(first->distance(), 15u);
  const std::string id = KnobsPuzzle::TableId(instance.params);
  bool listed = false;
  for (int i = 0; i < 1200 && !listed; ++i) {  // up to 2 minutes on a busy machine
    auto tables = client_->ListTables();
    ASSERT_TRUE(tables.ok());
    for (const auto& t : tables->tables()) listed |= t.table_id() == id;
    for (const auto& b : tables->building()) listed &= b != id;
    if (!listed) std::this_thread::sleep_for(100ms);
  }
  ASSERT_TRUE(listed) << Log();
  auto second = client_->Solve(RequestFor(instance));
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->source(), v1::TABLE);
  EXPECT_EQ(Join(second->moves(), " "), Join(first->moves(), " "));
  EXPECT_NE(Log().find("built table " + id), std::string::npos) << Log();
  // Leave the suite's database as it was.
  server_->Shutdown(1000ms);
  server_.reset();
  auto store = TableStore::Open(*db_, TableStore::Mode::kReadWrite);
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE((*store)->Remove(id).ok());
}

TEST_F(ServerTest, HealthAndReflectionAnswer) {
  EXPECT_TRUE(client_->WaitUntilServing(10000ms).ok());
  auto channel = testing::ConnectedChannel("127.0.0.1:" + std::to_string(server_->port()));
  auto stub = grpc::reflection::v1alpha::ServerReflection::NewStub(channel);
  grpc::ClientContext context;
  auto stream = stub->ServerReflectionInfo(&context);
  grpc::reflection::v1alpha::ServerReflectionRequest request;
  request.set_list_services("*");
  ASSERT_TRUE(stream->Write(request));
  stream->WritesDone();
  grpc::reflection::v1alpha::ServerReflectionResponse response;
  ASSERT_TRUE(stream->Read(&response));
  std::vector<std::string> services;
  for (const auto& s : response.list_services_response().service()) services.push_back(s.name());
  EXPECT_NE(std::find(services.begin(), services.end(), "puzzledb.v1.Solver"), services.end());
  EXPECT_NE(std::find(services.begin(), services.end(), "grpc.health.v1.Health"), services.end());
  while (stream->Read(&response)) {
  }
  EXPECT_TRUE(stream->Finish().ok());
}

TEST_F(ServerTest, ShutdownWithCallsInFlightEndsThemCleanly) {
  auto in_flight = std::async(std::launch::async, [&] {
    return client_->Solve(KnightRequest(kFarKnight, 0, v1::SEARCH_ONLY), 10000ms);
  });
  std::atomic<bool> stop{false};
  auto table_calls = std::async(std::launch::async, [&] {
    int wrong = 0;
    while (!stop) {
      auto answer = client_->Solve(KnightRequest("1111111111000*10000100000"), 2000ms);
      if (answer.ok() && answer->distance() != 3) ++wrong;  // errors are fine, wrong answers not
    }
    return wrong;
  });
  std::this_thread::sleep_for(300ms);
  const auto started = std::chrono::steady_clock::now();
  server_->Shutdown(300ms);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 30s);  // not the search's 10 s
  stop = true;
  EXPECT_EQ(table_calls.get(), 0);
  const auto status = in_flight.get().status();
  EXPECT_TRUE(absl::IsCancelled(status) || absl::IsUnavailable(status) ||
              absl::IsDeadlineExceeded(status))
      << status;
  server_.reset();
  EXPECT_NE(Log().find("stopped:"), std::string::npos);
  // The database is closed: another writer can open it.
  EXPECT_TRUE(TableStore::Open(*db_, TableStore::Mode::kReadWrite).ok());
}

}  // namespace
}  // namespace puzzledb
