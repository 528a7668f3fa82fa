// Overload, bounded in time, on loopback, against the real server binary: many clients
// mixing table queries, expensive searches with short deadlines, malformed requests and
// oversized messages. Table queries keep their latency and their exact answers, every
// search ends in an answer or a clean refusal, the server's memory stays flat.
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include "core/puzzles/knight.h"
#include "core/solver.h"
#include "core/search/live_solver.h"
#include "core/table/sampler.h"
#include "core/table/table_walker.h"
#include "gtest/gtest.h"
#include "service/wire.h"
#include "tests/typed_wire.h"
#include "puzzledb/client.h"
#include "tests/server_process.h"
#include "tests/test_util.h"

namespace puzzledb {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Expected {
  v1::SolveRequest request;
  uint32_t distance;
  std::string moves;
};

std::string Moves(const v1::SolveResponse& response) { return Join(response.moves(), " "); }

// The abusive clients run at the lowest priority: on another machine they would not take
// this machine's two cores from the server and from the clients whose latency is measured.
void Background() { setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 19); }

double Percentile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  return values.empty() ? 0 : values[std::min(values.size() - 1, static_cast<size_t>(p * values.size()))];
}

TEST(OverloadTest, TableQueriesKeepTheirLatencyAndEverythingElseEndsCleanly) {
  const std::string db = testing::TempPath("overload_db");
  fs::remove_all(db);
  fs::copy(PUZZLEDB_TEST_DB, db, fs::copy_options::recursive);

  // The exact answers, from the same tables, in-process.
  std::vector<Expected> table_queries;
  {
    auto store = TableStore::Open(db, TableStore::Mode::kReadOnly);
    ASSERT_TRUE(store.ok()) << store.status();
    Solver solver(std::shared_ptr<TableStore>(std::move(*store)));
    const KnightPuzzle knight;
    std::mt19937_64 rng(99);
    for (int i = 0; i < 2000; ++i) {
      const KnightPuzzle::Instance instance{{}, knight.RandomState(rng)};
      auto solution = solver.Solve<KnightPuzzle>(instance, SolveOptions{});
      ASSERT_TRUE(solution.ok());
      Expected e;
      InstanceToWire(instance, e.request.mutable_puzzle());
      v1::SolveResponse response;
      SolutionToWire(knight, instance, *solution, &response);
      e.distance = response.distance();
      e.moves = Moves(response);
      table_queries.push_back(e);
    }
  }

  testing::ServerProcess server(PUZZLEDB_SERVER, db,
                                {"--max-concurrent-searches", "1", "--search-priority", "idle",
                                 "--max-message-bytes", "65536",
                                 "--search-node-budget", "50000000"},
                                testing::TempPath("overload_server.log"));
  ASSERT_FALSE(server.address().empty()) << server.Log();
  ClientOptions options;
  options.target = server.address();
  options.timeout = 5000ms;
  options.max_attempts = 1;  // count every refusal as it is
  Client client(options);
  ASSERT_TRUE(client.WaitUntilServing(60000ms).ok());

  // The table clients alone first (the baseline), then the same with the abusive ones.
  const auto table_clients = [&](Clock::time_point until, std::vector<double>* latencies,
                                 std::map<std::string, int>* outcomes, std::mutex* mutex,
                                 std::atomic<int>* wrong) {
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; ++t) {
      threads.emplace_back([&, t] {
        std::vector<double> mine;
        int ok = 0, failed = 0;
        for (size_t i = t; Clock::now() < until; i += 3) {
          const auto& q = table_queries[i % table_queries.size()];
          const auto started = Clock::now();
          auto answer = client.Solve(q.request);
          mine.push_back(std::chrono::duration<double, std::micro>(Clock::now() - started).count());
          if (!answer.ok()) {
            ++failed;
          } else if (answer->distance() != q.distance || Moves(*answer) != q.moves) {
            ++*wrong;
          } else {
            ++ok;
          }
        }
        std::lock_guard<std::mutex> lock(*mutex);
        latencies->insert(latencies->end(), mine.begin(), mine.end());
        (*outcomes)["table: OK"] += ok;
        if (failed > 0) (*outcomes)["table: failed"] += failed;
      });
    }
    return threads;
  };
  std::mutex mutex;
  std::atomic<int> wrong{0};
  std::vector<double> idle;
  std::map<std::string, int> idle_outcomes;
  for (auto& t : table_clients(Clock::now() + 3s, &idle, &idle_outcomes, &mutex, &wrong)) t.join();
  const double idle_p99 = Percentile(idle, 0.99);
  const long rss_before = server.ResidentKb();

  // Load for 8 seconds.
  const auto end = Clock::now() + 8s;
  std::vector<double> loaded;
  std::map<std::string, int> outcomes;  // kind of request / outcome -> count
  auto count = [&](const std::string& key) {
    std::lock_guard<std::mutex> lock(mutex);
    ++outcomes[key];
  };
  std::vector<std::thread> threads = table_clients(end, &loaded, &outcomes, &mutex, &wrong);
  for (int t = 0; t < 3; ++t) {  // expensive searches with short deadlines
    threads.emplace_back([&, t] {
      Background();
      std::mt19937_64 rng(t);
      const KnightPuzzle knight;
      while (Clock::now() < end) {
        v1::SolveRequest request;
        InstanceToWire(KnightPuzzle::Instance{{}, knight.RandomState(rng)}, request.mutable_puzzle());
        request.set_policy(v1::SEARCH_ONLY);
        auto answer = client.Solve(request, std::chrono::milliseconds(100 + 100 * t));
        if (answer.ok()) {
          // A search that finished: its moves must replay to the goal in its distance.
          KnightPuzzle::Instance instance{{}, *KnightPuzzle::BoardFromCells(request.puzzle().knight().board())};
          if (!SolutionFromWire(knight, instance, *answer).ok()) ++wrong;
          count("search: OK");
        } else {
          count("search: " + std::string(absl::StatusCodeToString(answer.status().code())));
        }
      }
    });
  }
  threads.emplace_back([&] {  // malformed requests
    Background();
    int i = 0;
    while (Clock::now() < end) {
      v1::SolveRequest request;
      request.mutable_puzzle()->mutable_knight()->set_board(i++ % 2 ? "111*" : "11111111110000*000001111x");
      auto answer = client.Solve(request);
      count("malformed: " + std::string(absl::StatusCodeToString(answer.status().code())));
      std::this_thread::sleep_for(2ms);
    }
  });
  threads.emplace_back([&] {  // oversized messages
    Background();
    while (Clock::now() < end) {
      v1::SolveRequest request;
      request.mutable_puzzle()->mutable_knight()->set_board(std::string(200000, '1'));
      auto answer = client.Solve(request);
      count("oversized: " + std::string(absl::StatusCodeToString(answer.status().code())));
      std::this_thread::sleep_for(20ms);
    }
  });
  for (auto& t : threads) t.join();
  const long rss_after = server.ResidentKb();
  const double loaded_p99 = Percentile(loaded, 0.99);

  std::printf("table queries (3 clients) alone: p50 %.0f us, p99 %.0f us (%zu queries); with the "
              "abusive clients: p50 %.0f us, p99 %.0f us (%zu queries)\n",
              Percentile(idle, 0.5), idle_p99, idle.size(), Percentile(loaded, 0.5), loaded_p99,
              loaded.size());
  for (const auto& [key, n] : outcomes) std::printf("  %s: %d\n", key.c_str(), n);
  std::printf("server RSS %ld kB before, %ld kB after\n", rss_before, rss_after);

  EXPECT_EQ(wrong.load(), 0);
  // The latencies are figures, printed above and quoted in docs/PERFORMANCE.md, not pass
  // marks: they move with whatever else the machine runs (a ratio of p99s, and later a
  // bound of 100 ms on the loaded p99, each failed a run on a machine busy with a build
  // and a CPU hog). That table answers never wait behind a search is checked without a
  // clock by ServerTest.SearchesBeyondSlotsAndQueueAreRefusedAndTableAnswersDoNotWait.
  std::printf("p99 with abuse / p99 alone: %.2f\n", loaded_p99 / idle_p99);
  EXPECT_GT(outcomes["table: OK"], 1000);
  // Every search ended in an answer, its deadline, or a refusal for lack of a slot.
  for (const auto& [key, n] : outcomes) {
    if (key.rfind("search: ", 0) == 0) {
      EXPECT_TRUE(key == "search: OK" || key == "search: DEADLINE_EXCEEDED" ||
                  key == "search: RESOURCE_EXHAUSTED")
          << key;
    }
    EXPECT_NE(key, "table: failed");
  }
  EXPECT_GT(outcomes["search: DEADLINE_EXCEEDED"] + outcomes["search: RESOURCE_EXHAUSTED"], 0);
  EXPECT_GT(outcomes["malformed: INVALID_ARGUMENT"], 0);
  EXPECT_EQ(outcomes.count("malformed: OK"), 0u);
  EXPECT_GT(outcomes["oversized: RESOURCE_EXHAUSTED"], 0);
  EXPECT_EQ(outcomes.count("oversized: OK"), 0u);
  EXPECT_LT(rss_after - rss_before, 64 * 1024) << "kB";
  // The server is still well.
  EXPECT_TRUE(client.Solve(table_queries[0].request).ok());
  EXPECT_EQ(server.Stop(SIGTERM), 0) << server.Log();
  fs::remove_all(db);
}

}  // namespace
}  // namespace puzzledb
