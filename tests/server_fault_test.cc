// Faults around a running server (the real binary): kill -9 under load and restart,
// SIGTERM under load, a corrupted table file.
#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "core/puzzles/default_tables.h"
#include "core/puzzles/knight.h"
#include "core/puzzles/knobs.h"
#include "core/util/strings.h"
#include "gtest/gtest.h"
#include "service/wire.h"
#include "tests/typed_wire.h"
#include "puzzledb/client.h"
#include "tests/server_process.h"
#include "tests/test_db.h"
#include "tests/test_util.h"

namespace puzzledb {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

using testing::CopyOfTestDb;

Client ClientOf(const testing::ServerProcess& server) {
  ClientOptions options;
  options.target = server.address();
  options.timeout = 3000ms;
  options.max_attempts = 1;
  return Client(options);
}

// Table queries and searches from a few threads until told to stop; counts answers that
// replay correctly, clean failures, and wrong answers (which must never happen).
struct Load {
  std::atomic<bool> stop{false};
  std::atomic<int> good{0}, failed{0}, wrong{0};
  std::vector<std::thread> threads;

  void Start(const std::string& address) {
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([this, address, t] {
        ClientOptions options;
        options.target = address;
        options.timeout = 2000ms;
        options.max_attempts = 1;
        Client client(options);
        std::mt19937_64 rng(t);
        const KnightPuzzle knight;
        while (!stop) {
          const KnightPuzzle::Instance instance{{}, knight.RandomState(rng)};
          v1::SolveRequest request;
          InstanceToWire(instance, request.mutable_puzzle());
          if (t == 3) request.set_policy(v1::SEARCH_ONLY);  // one thread keeps a search busy
          auto answer = client.Solve(request, 500ms);
          if (!answer.ok()) {
            ++failed;
            continue;
          }
          (SolutionFromWire(knight, instance, *answer).ok() ? good : wrong)++;
        }
      });
    }
  }
  void Stop() {
    stop = true;
    for (auto& t : threads) t.join();
  }
  // Waits until `n` answers have come back (not for a time: a busy machine is slower).
  bool WaitForAnswers(int n) {
    for (int i = 0; i < 12000 && good.load() < n; ++i) std::this_thread::sleep_for(10ms);
    return good.load() >= n;
  }
};

TEST(ServerFaultTest, KilledUnderLoadItRestartsWithNothingLost) {
  const std::string db = CopyOfTestDb("fault_kill_db");
  int port = 0;
  {
    testing::ServerProcess server(PUZZLEDB_SERVER, db, {}, testing::TempPath("fault_kill.log"));
    ASSERT_FALSE(server.address().empty()) << server.Log();
    port = server.port();
    Load load;
    load.Start(server.address());
    EXPECT_TRUE(load.WaitForAnswers(200));
    ::kill(server.pid(), SIGKILL);
    std::this_thread::sleep_for(300ms);
    load.Stop();
    std::printf("before kill -9: %d answers, %d failed, %d wrong\n", load.good.load(),
                load.failed.load(), load.wrong.load());
    EXPECT_GE(load.good.load(), 200);
    EXPECT_EQ(load.wrong.load(), 0);
  }
  // The database still verifies, and a new server on the same port serves every table.
  const auto verify = testing::RunCommand(std::string(PUZZLEDB_BUILD) + " verify --db " + db, "");
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
  testing::ServerProcess again(PUZZLEDB_SERVER, db, {}, testing::TempPath("fault_kill2.log"), port);
  ASSERT_FALSE(again.address().empty()) << again.Log();
  EXPECT_NE(again.Log().find(Cat(testing::TestDbTableIds().size(), " tables loaded")), std::string::npos)
      << again.Log();
  Client client = ClientOf(again);
  auto tables = client.ListTables();
  ASSERT_TRUE(tables.ok()) << tables.status();
  EXPECT_EQ(static_cast<size_t>(tables->tables_size()), testing::TestDbTableIds().size());
  v1::SolveRequest request;
  request.mutable_puzzle()->mutable_knight()->set_board("010100*000110001010111111");
  auto answer = client.Solve(request);
  ASSERT_TRUE(answer.ok()) << answer.status();
  EXPECT_EQ(answer->distance(), 34u);
  EXPECT_EQ(again.Stop(SIGTERM), 0);
  fs::remove_all(db);
}

TEST(ServerFaultTest, SigtermUnderLoadEndsCallsCleanlyAndExitsZero) {
  const std::string db = CopyOfTestDb("fault_term_db");
  testing::ServerProcess server(PUZZLEDB_SERVER, db, {"--grace", "1"},
                                testing::TempPath("fault_term.log"));
  ASSERT_FALSE(server.address().empty()) << server.Log();
  Load load;
  load.Start(server.address());
  EXPECT_TRUE(load.WaitForAnswers(200));
  const int before = load.good.load();
  EXPECT_EQ(server.Stop(SIGTERM), 0) << server.Log();
  load.Stop();
  std::printf("SIGTERM under load: %d answers before the signal, %d in all, %d failed cleanly, "
              "%d wrong\n", before, load.good.load(), load.failed.load(), load.wrong.load());
  EXPECT_GE(before, 200);
  EXPECT_EQ(load.wrong.load(), 0);
  EXPECT_NE(server.Log().find("received SIGTERM"), std::string::npos);
  EXPECT_NE(server.Log().find("stopped:"), std::string::npos);
  fs::remove_all(db);
}

TEST(ServerFaultTest, ACorruptedTableIsRefusedAndItsStatesSearched) {
  // A database with the knobs 9001 table only, its file damaged in the middle, and its
  // unpacked copy too.
  const std::string db = testing::TempPath("fault_corrupt_db");
  fs::remove_all(db);
  const auto built = testing::RunCommand(std::string(PUZZLEDB_BUILD) + " --quiet --unpacked-copies all --db " + db +
                                             " --puzzle knobs --params " + PUZZLEDB_GOLDEN_DIR +
                                             "/knobs_9001.in",
                                         "");
  ASSERT_EQ(built.exit_code, 0) << built.err;
  // The table's pages' file: the largest (its metadata record has a file of its own).
  fs::path sst;
  for (const auto& entry : fs::directory_iterator(db)) {
    if (entry.path().extension() == ".sst" && (sst.empty() || entry.file_size() > fs::file_size(sst))) {
      sst = entry.path();
    }
  }
  {
    std::fstream f(sst, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(0, std::ios::end);
    const auto middle = static_cast<std::streamoff>(f.tellg()) / 2;
    f.seekp(middle);
    f.write("\xde\xad\xbe\xef\xde\xad\xbe\xef", 8);
  }
  // Its unpacked copy too (docs/FORMAT.md), which would otherwise stand in for the pages.
  for (const auto& entry : fs::directory_iterator(fs::path(db) / "unpacked")) {
    std::fstream f(entry.path(), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(entry.file_size() / 2));
    f.write("\xde\xad\xbe\xef", 4);
  }
  const auto verify = testing::RunCommand(std::string(PUZZLEDB_BUILD) + " verify --db " + db, "");
  EXPECT_EQ(verify.exit_code, 1);
  EXPECT_NE(verify.out.find("knobs-6f811fd419ed03df: FAILED"), std::string::npos) << verify.out;

  testing::ServerProcess server(PUZZLEDB_SERVER, db, {"--no-build-missing-tables"},
                                testing::TempPath("fault_corrupt.log"));
  ASSERT_FALSE(server.address().empty()) << server.Log();
  // The refusal names the damaged page and the copy's failed check.
  EXPECT_NE(server.Log().find("; its unpacked copy "), std::string::npos) << server.Log();
  EXPECT_NE(server.Log().find(": content CRC mismatch"), std::string::npos) << server.Log();
  EXPECT_NE(server.Log().find("refusing table knobs-6f811fd419ed03df"), std::string::npos)
      << server.Log();
  Client client = ClientOf(server);
  auto tables = client.ListTables();
  ASSERT_TRUE(tables.ok());
  ASSERT_EQ(tables->tables_size(), 1);
  EXPECT_EQ(tables->tables(0).status().rfind("REFUSED: ", 0), 0u) << tables->tables(0).status();
  const auto instance = *KnobsPuzzle::ParseOriginal(testing::Golden("knobs_9001.in"))[0].instance;
  v1::SolveRequest request;
  InstanceToWire(instance, request.mutable_puzzle());
  auto answer = client.Solve(request);
  ASSERT_TRUE(answer.ok()) << answer.status();
  EXPECT_EQ(answer->source(), v1::SEARCH);
  EXPECT_EQ(answer->distance(), 10u);
  EXPECT_EQ(Join(answer->moves(), " "), "2 2 3 11 11 11 11 5 7 12");
  EXPECT_EQ(server.Stop(SIGTERM), 0);
  fs::remove_all(db);
}

}  // namespace
}  // namespace puzzledb
