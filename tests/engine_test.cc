// puzzledb::Engine (puzzledb/engine.h): the engine in-process, as the component `core` of the
// CMake package gives it, on the test database: answers checked by the puzzles' rules, the
// stored definitions served, refusals, batches, and one Engine shared by several threads
// (this suite runs under the sanitizers).
#include "puzzledb/engine.h"

#include <atomic>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "puzzledb/verify.h"
#include "tests/test_util.h"

namespace puzzledb {
namespace {

std::vector<std::string> Lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

v1::SolveRequest Generic(const std::string& name, const std::string& state) {
  v1::SolveRequest request;
  request.mutable_puzzle()->set_name(name);
  request.mutable_puzzle()->set_state(state);
  return request;
}

TEST(EngineTest, RefusesAMissingDatabaseSayingWhere) {
  auto engine = Engine::Open({.db = ::testing::TempDir() + "/no-such-db"});
  ASSERT_FALSE(engine.ok());
  EXPECT_NE(engine.status().message().find("no-such-db"), std::string::npos)
      << engine.status();
}

TEST(EngineTest, AnswersFromTheDatabaseAndItsDefinitions) {
  std::vector<std::string> warnings;
  auto engine = Engine::Open(
      {.db = PUZZLEDB_TEST_DB, .log = [&](std::string_view line) { warnings.emplace_back(line); }});
  ASSERT_TRUE(engine.ok()) << engine.status();
  EXPECT_TRUE(warnings.empty()) << warnings.front();

  // A built-in puzzle's samples, from its table, every answer by the rules.
  const std::vector<std::string> boards = Lines(std::string(PUZZLEDB_GOLDEN_DIR) + "/eight.in");
  const std::vector<std::string> distances = Lines(std::string(PUZZLEDB_GOLDEN_DIR) + "/eight.out");
  ASSERT_EQ(boards.size(), distances.size());
  for (size_t i = 0; i < boards.size(); ++i) {
    v1::SolveRequest request;
    request.mutable_puzzle()->mutable_eight()->set_board(boards[i]);
    auto answer = (*engine)->Solve(request);
    ASSERT_TRUE(answer.ok()) << boards[i] << ": " << answer.status();
    EXPECT_EQ(answer->outcome() == v1::UNSOLVABLE ? "-1" : std::to_string(answer->distance()),
              distances[i])
        << boards[i];
    EXPECT_EQ(answer->source(), v1::TABLE) << boards[i];
    EXPECT_TRUE(Verify(request.puzzle(), *answer).ok()) << Verify(request.puzzle(), *answer);
  }

  // A puzzle the database stores as a definition: listed, and answered as its samples say.
  const v1::ListPuzzlesResponse puzzles = (*engine)->ListPuzzles();
  bool listed = false;
  for (const auto& p : puzzles.puzzles()) listed |= p.name() == "slide32" && !p.definition().empty();
  EXPECT_TRUE(listed);
  const std::string dir = std::string(PUZZLEDB_GOLDEN_DIR) + "/definitions/";
  const std::vector<std::string> states = Lines(dir + "slide32.in");
  const std::vector<std::string> expected = Lines(dir + "slide32.out");
  for (size_t i = 0; i < states.size(); ++i) {
    const v1::SolveRequest request = Generic("slide32", states[i]);
    auto answer = (*engine)->Solve(request);
    ASSERT_TRUE(answer.ok()) << states[i] << ": " << answer.status();
    std::string line = std::to_string(answer->distance());
    for (const std::string& move : answer->moves()) line += " " + move;
    EXPECT_EQ(line, expected[i]) << states[i];
    EXPECT_TRUE(Verify(request.puzzle(), *answer).ok());
  }
  EXPECT_FALSE((*engine)->ListTables().tables().empty());

  // A malformed puzzle is refused, saying what is wrong, in a call and in a batch.
  auto refused = (*engine)->Solve(Generic("eight", "12345678"));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  v1::SolveBatchRequest batch;
  *batch.add_requests() = Generic("slide32", states[0]);
  *batch.add_requests() = Generic("eight", "12345678");
  *batch.add_requests() = Generic("no-such-puzzle", "1");
  const auto answers = (*engine)->SolveMany(batch);
  ASSERT_EQ(answers.size(), 3u);
  ASSERT_TRUE(answers[0].ok()) << answers[0].status();
  EXPECT_EQ(std::to_string(answers[0]->distance()), expected[0].substr(0, expected[0].find(' ')));
  EXPECT_EQ(answers[1].status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(answers[2].status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(answers[2].status().message().find("no-such-puzzle"), std::string::npos);
  // One request over a batch's 10,000: refused whole, every answer saying why.
  v1::SolveBatchRequest over;
  for (int i = 0; i < 10001; ++i) *over.add_requests() = Generic("eight", "123804765");
  const auto refused_whole = (*engine)->SolveMany(over);
  ASSERT_EQ(refused_whole.size(), 10001u);
  EXPECT_EQ(refused_whole.back().status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(refused_whole[0].status().message().find("split them"), std::string::npos)
      << refused_whole[0].status();
}

// One Engine, four threads asking at once (tables and live searches), every answer the one a
// lone call gets.
TEST(EngineTest, OneEngineServesSeveralThreads) {
  auto engine = Engine::Open({.db = PUZZLEDB_TEST_DB, .threads = 2});
  ASSERT_TRUE(engine.ok()) << engine.status();
  std::vector<v1::SolveRequest> requests;
  for (const std::string& board : Lines(std::string(PUZZLEDB_GOLDEN_DIR) + "/eight.in")) {
    v1::SolveRequest table;
    table.mutable_puzzle()->mutable_eight()->set_board(board);
    requests.push_back(table);
    v1::SolveRequest search = table;
    search.set_policy(v1::SEARCH_ONLY);
    requests.push_back(search);
  }
  for (const std::string& state :
       Lines(std::string(PUZZLEDB_GOLDEN_DIR) + "/definitions/slide32.in")) {
    requests.push_back(Generic("slide32", state));
  }
  std::vector<v1::SolveResponse> alone;
  for (const auto& request : requests) {
    auto answer = (*engine)->Solve(request);
    ASSERT_TRUE(answer.ok()) << answer.status();
    alone.push_back(*answer);
  }
  std::atomic<int> differ{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 3; ++round) {
        for (size_t i = 0; i < requests.size(); ++i) {
          const size_t k = (i + static_cast<size_t>(t) * 3) % requests.size();
          auto answer = (*engine)->Solve(requests[k]);
          if (!answer.ok() || answer->distance() != alone[k].distance() ||
              answer->moves_size() != alone[k].moves_size() ||
              !std::equal(answer->moves().begin(), answer->moves().end(),
                          alone[k].moves().begin())) {
            ++differ;
          }
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(differ.load(), 0);
}

}  // namespace
}  // namespace puzzledb
