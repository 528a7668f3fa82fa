// Sample, optimal counts and lists, provenance and puzzledb::Verify through the server, over
// gRPC and HTTP, on the test database (docs/API.md, "Sample", "Optimal solutions",
// "Provenance", "Checking answers").
#include <filesystem>
#include <set>
#include <thread>

#include "core/puzzle.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "puzzledb/client.h"
#include "puzzledb/verify.h"
#include "server/server.h"
#include "service/puzzle_text.h"
#include "service/wire.h"
#include "tests/typed_wire.h"
#include "tests/proto_json.h"
#include "tests/test_util.h"

namespace puzzledb {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

using testing::Comparable;
using testing::FromJson;

v1::SampleRequest SampleOf(std::string_view puzzle, uint32_t distance, uint32_t count,
                           uint64_t seed) {
  v1::SampleRequest request;
  *request.mutable_puzzle() = *PuzzleOfKind(puzzle);
  request.set_distance(distance);
  request.set_count(count);
  request.set_seed(seed);
  return request;
}

class SampleApiTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    db_ = new std::string(testing::TempPath("sample_api_db"));
    fs::remove_all(*db_);
    fs::copy(PUZZLEDB_TEST_DB, *db_, fs::copy_options::recursive);
  }
  static void TearDownTestSuite() {
    fs::remove_all(*db_);
    delete db_;
  }

  void SetUp() override {
    ServerOptions options;
    options.db = *db_;
    options.listen = "127.0.0.1:0";
    options.http_listen = "127.0.0.1:0";
    options.build_missing_tables = false;
    // The machine may be busy: under the sanitizers, with every core loaded, the eight
    // concurrent first draws of AbandonedAndConcurrentSamplesLeaveTheServerExact took 52 s
    // alone and passed 60 s beside another suite. The tests check answers, not speed.
    options.default_search_deadline = 300000ms;
    auto started = PuzzledbServer::Start(options, nullptr);
    ASSERT_TRUE(started.ok()) << started.status();
    server_ = std::move(*started);
    ClientOptions client;
    client.target = "127.0.0.1:" + std::to_string(server_->port());
    client.timeout = 300000ms;
    client_ = std::make_unique<Client>(client);
    ASSERT_TRUE(client_->WaitUntilServing(60000ms).ok());
    http_ = std::make_unique<httplib::Client>("127.0.0.1", server_->http_port());
    http_->set_read_timeout(60, 0);
  }
  void TearDown() override {
    client_.reset();
    if (server_ != nullptr) server_->Shutdown(1000ms);
    server_.reset();
  }

  // The table's build as ListTables reports it.
  v1::TableInfo Table(const std::string& id) {
    auto tables = client_->ListTables();
    EXPECT_TRUE(tables.ok());
    for (const auto& t : tables->tables()) {
      if (t.table_id() == id) return t;
    }
    ADD_FAILURE() << "no table " << id;
    return {};
  }

  static std::string* db_;
  std::unique_ptr<PuzzledbServer> server_;
  std::unique_ptr<Client> client_;
  std::unique_ptr<httplib::Client> http_;
};
std::string* SampleApiTest::db_ = nullptr;

TEST_F(SampleApiTest, TheKnightsAntipodesAreAllSixtyTwoAndAtDistance39) {
  v1::SampleRequest request = SampleOf("knight", 0, 100, 1);
  request.set_largest(true);
  auto sample = client_->Sample(request);
  ASSERT_TRUE(sample.ok()) << sample.status();
  EXPECT_EQ(sample->distance(), 39u);
  EXPECT_EQ(sample->population(), 62u);
  EXPECT_EQ(sample->seed(), 1u);
  ASSERT_EQ(sample->states_size(), 62);
  const v1::TableInfo knight = Table("knight");
  EXPECT_EQ(sample->table_id(), "knight");
  EXPECT_EQ(sample->table_generation(), knight.generation());
  EXPECT_EQ(sample->table_crc32(), knight.content_crc32());
  EXPECT_TRUE(knight.samples());
  std::set<std::string> boards;
  std::vector<v1::SolveRequest> solves;
  for (const v1::Puzzle& state : sample->states()) {
    boards.insert(state.knight().board());
    v1::SolveRequest solve;
    *solve.mutable_puzzle() = state;
    solves.push_back(solve);
  }
  EXPECT_EQ(boards.size(), 62u);
  auto solved = client_->SolveAll(solves, 60000ms);
  ASSERT_TRUE(solved.ok()) << solved.status();
  for (size_t i = 0; i < solved->size(); ++i) {
    EXPECT_EQ((*solved)[i].distance(), 39u) << solves[i].puzzle().knight().board();
    EXPECT_TRUE(Verify(solves[i].puzzle(), (*solved)[i]).ok());
  }
}

TEST_F(SampleApiTest, SamplesAreReproducibleBySeedAndDistinct) {
  auto a = client_->Sample(SampleOf("knight", 20, 500, 7));
  auto b = client_->Sample(SampleOf("knight", 20, 500, 7));
  auto c = client_->Sample(SampleOf("knight", 20, 500, 8));
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(a->population(), 4594399u);
  EXPECT_EQ(Comparable(*a), Comparable(*b));
  EXPECT_NE(Comparable(*a), Comparable(*c));
  std::set<std::string> distinct;
  for (const auto& s : a->states()) distinct.insert(s.knight().board());
  EXPECT_EQ(distinct.size(), 500u);
  // Only the population.
  auto none = client_->Sample(SampleOf("rotation", 13, 0, 1));
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(none->population(), 192u);
  EXPECT_EQ(none->states_size(), 0);
  // Beyond the largest distance: nothing there.
  auto beyond = client_->Sample(SampleOf("eight", 200, 5, 1));
  ASSERT_TRUE(beyond.ok()) << beyond.status();
  EXPECT_EQ(beyond->population(), 0u);
  EXPECT_EQ(beyond->states_size(), 0);
}

TEST_F(SampleApiTest, KnobsSampleTheWiringGiven) {
  const auto cases = KnobsPuzzle::ParseOriginal(testing::Golden("knobs_9002.in"));
  v1::SampleRequest request = SampleOf("knobs", 0, 20, 3);
  request.set_largest(true);
  InstanceToWire(*cases[0].instance, request.mutable_puzzle());
  request.mutable_puzzle()->mutable_knobs()->clear_positions();  // the wiring is enough
  auto sample = client_->Sample(request);
  ASSERT_TRUE(sample.ok()) << sample.status();
  EXPECT_EQ(sample->table_id(), KnobsPuzzle::TableId(cases[0].instance->params));
  EXPECT_GE(sample->distance(), 18u);
  for (const auto& state : sample->states()) {
    v1::SolveRequest solve;
    *solve.mutable_puzzle() = state;
    auto solved = client_->Solve(solve);
    ASSERT_TRUE(solved.ok());
    EXPECT_EQ(solved->distance(), sample->distance());
  }
}

TEST_F(SampleApiTest, BadSampleRequestsSayWhatIsWrong) {
  auto expect = [&](const v1::SampleRequest& request, absl::StatusCode code,
                    std::string_view words) {
    auto sample = client_->Sample(request);
    ASSERT_FALSE(sample.ok());
    EXPECT_EQ(sample.status().code(), code) << sample.status();
    EXPECT_NE(sample.status().message().find(std::string(words)), std::string::npos)
        << sample.status();
  };
  expect(v1::SampleRequest(), absl::StatusCode::kInvalidArgument, "puzzle: no puzzle given");
  expect(SampleOf("knight", 5, 10001, 1), absl::StatusCode::kInvalidArgument,
         "count: 10001 is more than 10000");
  v1::SampleRequest both = SampleOf("knight", 5, 1, 1);
  both.set_largest(true);
  expect(both, absl::StatusCode::kInvalidArgument, "give one or the other");
  expect(SampleOf("knobs", 5, 1, 1), absl::StatusCode::kInvalidArgument, "puzzle.knobs.wiring");
  // A wiring without a table (this server builds none).
  v1::SampleRequest unknown = SampleOf("knobs", 5, 1, 1);
  for (uint32_t knob = 1; knob <= 12; ++knob) {
    for (int s = 0; s < 4; ++s) unknown.mutable_puzzle()->mutable_knobs()->add_wiring(knob % 12 + 1);
  }
  expect(unknown, absl::StatusCode::kFailedPrecondition, "which the database does not have");
}

TEST_F(SampleApiTest, CountsAndListsOfOptimalSolutions) {
  auto far = client_->Sample(SampleOf("knight", 39, 1, 5));
  ASSERT_TRUE(far.ok() && far->states_size() == 1);
  v1::SolveRequest request;
  *request.mutable_puzzle() = far->states(0);
  request.set_max_solutions(50);
  auto listed = client_->Solve(request);
  ASSERT_TRUE(listed.ok()) << listed.status();
  EXPECT_TRUE(Verify(request.puzzle(), *listed).ok()) << Verify(request.puzzle(), *listed);
  ASSERT_EQ(listed->solutions_size(), 50);
  EXPECT_EQ(ToJsonLine(listed->solutions(0)),
            ToJsonLine([&] {
              v1::Solution s;
              *s.mutable_moves() = listed->moves();
              return s;
            }()));
  EXPECT_EQ(listed->table_id(), "knight");
  // The count alone equals the sum of the counts after each optimal first move.
  v1::AnalyzeRequest analyze;
  *analyze.mutable_puzzle() = far->states(0);
  analyze.set_count_solutions(true);
  auto analysis = client_->Analyze(analyze);
  ASSERT_TRUE(analysis.ok()) << analysis.status();
  EXPECT_EQ(analysis->optimal_count(), listed->optimal_count());
  unsigned __int128 sum = 0;
  for (const auto& move : analysis->moves()) {
    if (move.optimal_count().empty()) {
      EXPECT_NE(move.distance(), 38u) << move.move();
      continue;
    }
    EXPECT_EQ(move.distance(), 38u);
    sum += std::stoull(move.optimal_count());
  }
  EXPECT_EQ(std::to_string(static_cast<uint64_t>(sum)), listed->optimal_count());
  EXPECT_GE(std::stoull(listed->optimal_count()), 50u);
  // In a batch as well.
  request.clear_max_solutions();
  request.set_count_solutions(true);
  auto streamed = client_->SolveAll({request, request}, 60000ms);
  ASSERT_TRUE(streamed.ok()) << streamed.status();
  EXPECT_EQ((*streamed)[1].optimal_count(), listed->optimal_count());
  EXPECT_EQ((*streamed)[1].solutions_size(), 0);
}

TEST_F(SampleApiTest, CountingNeedsATableAndHasLimits) {
  v1::SolveRequest request;
  InstanceToWire(*EightPuzzle::ParseCompact("283104765"), request.mutable_puzzle());
  request.set_count_solutions(true);
  request.set_policy(v1::SEARCH_ONLY);
  auto refused = client_->Solve(request);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.status().message().find("needs a table"), std::string::npos);
  request.set_policy(v1::TABLE_THEN_SEARCH);
  request.set_max_solutions(10001);
  auto too_many = client_->Solve(request);
  ASSERT_FALSE(too_many.ok());
  EXPECT_NE(too_many.status().message().find("max_solutions: 10001"), std::string::npos);
  // Unsolvable: none.
  InstanceToWire(*EightPuzzle::ParseCompact("213804765"), request.mutable_puzzle());
  request.set_max_solutions(0);
  auto unsolvable = client_->Solve(request);
  ASSERT_TRUE(unsolvable.ok()) << unsolvable.status();
  EXPECT_EQ(unsolvable->outcome(), v1::UNSOLVABLE);
  EXPECT_EQ(unsolvable->optimal_count(), "0");
}

TEST_F(SampleApiTest, EveryTableAnswerNamesItsBuildAndSearchesDoNot) {
  const v1::TableInfo eight = Table("eight");
  v1::SolveRequest request;
  InstanceToWire(*EightPuzzle::ParseCompact("283104765"), request.mutable_puzzle());
  auto table = client_->Solve(request);
  ASSERT_TRUE(table.ok());
  EXPECT_EQ(table->table_id(), "eight");
  EXPECT_EQ(table->table_generation(), eight.generation());
  EXPECT_EQ(table->table_crc32(), eight.content_crc32());
  EXPECT_NE(eight.content_crc32(), 0u);
  v1::AnalyzeRequest analyze;
  *analyze.mutable_puzzle() = request.puzzle();
  auto analysis = client_->Analyze(analyze);
  ASSERT_TRUE(analysis.ok());
  EXPECT_EQ(analysis->table_id(), "eight");
  request.set_policy(v1::SEARCH_ONLY);
  auto searched = client_->Solve(request);
  ASSERT_TRUE(searched.ok());
  EXPECT_EQ(searched->table_id(), "");
  EXPECT_EQ(searched->table_generation(), 0u);
}

TEST_F(SampleApiTest, VerifyAcceptsTrueAnswersAndCatchesEveryTampering) {
  v1::SolveRequest request;
  InstanceToWire(*EightPuzzle::ParseCompact("283104765"), request.mutable_puzzle());
  request.set_max_solutions(10);
  auto answer = client_->Solve(request);
  ASSERT_TRUE(answer.ok());
  ASSERT_TRUE(Verify(request.puzzle(), *answer).ok()) << Verify(request.puzzle(), *answer);
  auto broken = [&](auto change, std::string_view words) {
    v1::SolveResponse tampered = *answer;
    change(&tampered);
    const absl::Status status = Verify(request.puzzle(), tampered);
    EXPECT_TRUE(absl::IsDataLoss(status)) << status;
    EXPECT_NE(status.message().find(std::string(words)), std::string::npos) << status;
  };
  broken([](v1::SolveResponse* r) { r->set_moves(0, "L"); }, "");
  broken([](v1::SolveResponse* r) { r->set_distance(r->distance() + 1); }, "");
  broken([](v1::SolveResponse* r) { r->set_optimal_count("0"); }, "optimal_count is 0");
  broken([](v1::SolveResponse* r) { r->set_optimal_count("x1"); }, "not a decimal");
  if (answer->solutions_size() >= 2) {
    broken([](v1::SolveResponse* r) { r->mutable_solutions()->SwapElements(0, 1); },
           "solutions[0] is not the answer's moves");
    broken([](v1::SolveResponse* r) { *r->add_solutions() = r->solutions(1); },
           "lexicographic order");
  }
  broken([](v1::SolveResponse* r) { r->mutable_solutions(0)->add_moves("U"); }, "solutions[0]");
  v1::Puzzle bad;
  bad.mutable_eight()->set_board("12345678");
  EXPECT_TRUE(absl::IsInvalidArgument(Verify(bad, *answer)));
}

// Callers that give up while a first draw counts, and callers that race to build the same
// sampling index, leave the server answering exactly.
TEST_F(SampleApiTest, AbandonedAndConcurrentSamplesLeaveTheServerExact) {
  // The first draw at rotation distance 10 counts splits for a good fraction of a second.
  auto abandoned = client_->Sample(SampleOf("rotation", 10, 5, 1), 20ms);
  if (!abandoned.ok()) {
    EXPECT_EQ(abandoned.status().code(), absl::StatusCode::kDeadlineExceeded) << abandoned.status();
  }
  std::vector<std::thread> threads;
  std::vector<absl::StatusOr<v1::SampleResponse>> knight(4), rotation(4);
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] { knight[i] = client_->Sample(SampleOf("knight", 30, 200, i % 2)); });
    threads.emplace_back([&, i] { rotation[i] = client_->Sample(SampleOf("rotation", 10, 20, i % 2)); });
  }
  for (auto& t : threads) t.join();
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(knight[i].ok()) << knight[i].status();
    ASSERT_TRUE(rotation[i].ok()) << rotation[i].status();
    EXPECT_EQ(knight[i]->population(), 1921476u);
    EXPECT_EQ(rotation[i]->population(), 1992066648u);
    // The same seed drew the same states, whichever caller built the index.
    EXPECT_EQ(Comparable(*knight[i]), Comparable(*knight[i % 2]));
    EXPECT_EQ(Comparable(*rotation[i]), Comparable(*rotation[i % 2]));
  }
  EXPECT_NE(Comparable(*knight[0]), Comparable(*knight[1]));
}

TEST_F(SampleApiTest, HttpSamplesAndCountsAsOverGrpc) {
  auto grpc = client_->Sample(SampleOf("eight", 30, 5, 9));
  ASSERT_TRUE(grpc.ok());
  auto got = http_->Get("/v1/sample?puzzle=eight&distance=30&count=5&seed=9");
  ASSERT_TRUE(got);
  ASSERT_EQ(got->status, 200) << got->body;
  EXPECT_EQ(Comparable(FromJson<v1::SampleResponse>(got->body)), Comparable(*grpc));
  const std::string tag = got->get_header_value("ETag");
  EXPECT_EQ(tag.rfind("W/\"eight.", 0), 0u) << tag;
  auto posted = http_->Post("/v1/sample", ToJsonLine(SampleOf("eight", 30, 5, 9)), "application/json");
  ASSERT_TRUE(posted && posted->status == 200);
  EXPECT_EQ(Comparable(FromJson<v1::SampleResponse>(posted->body)), Comparable(*grpc));
  auto largest = http_->Get("/v1/sample?puzzle=rotation&distance=max&count=2&seed=1");
  ASSERT_TRUE(largest && largest->status == 200) << (largest ? largest->body : "");
  EXPECT_EQ(FromJson<v1::SampleResponse>(largest->body).distance(), 13u);
  // Knobs: the wiring of the state given.
  const auto knobs = KnobsPuzzle::ParseOriginal(testing::Golden("knobs_9001.in"));
  auto wired = http_->Get("/v1/sample?puzzle=knobs&distance=3&count=1&state=" +
                          httplib::detail::encode_query_param(
                              KnobsPuzzle::FormatCompact(*knobs[0].instance)));
  ASSERT_TRUE(wired && wired->status == 200) << (wired ? wired->body : "");
  for (const auto& [query, words] : std::vector<std::pair<std::string, std::string>>{
           {"puzzle=knight&distance=far", "distance='far' is not a distance"},
           {"puzzle=knight", "distance is missing"},
           {"puzzle=chess&distance=3", "chess"},
           {"puzzle=knight&distance=3&count=20000", "count="},
           {"puzzle=knight&distance=3&colour=white", "unknown parameter"},
           {"puzzle=knobs&distance=3", "state is missing; the knobs puzzle has parameters"}}) {
    auto bad = http_->Get("/v1/sample?" + query);
    ASSERT_TRUE(bad);
    EXPECT_EQ(bad->status, 400) << query << ": " << bad->body;
    EXPECT_NE(bad->body.find(words), std::string::npos) << query << ": " << bad->body;
  }
  // Solve with a count and a list, as over gRPC.
  v1::SolveRequest request;
  InstanceToWire(*EightPuzzle::ParseCompact("283104765"), request.mutable_puzzle());
  request.set_max_solutions(3);
  request.set_count_solutions(true);
  auto over_grpc = client_->Solve(request);
  ASSERT_TRUE(over_grpc.ok());
  auto over_http = http_->Get("/v1/solve?puzzle=eight&state=283104765&max_solutions=3&count=1");
  ASSERT_TRUE(over_http && over_http->status == 200) << (over_http ? over_http->body : "");
  EXPECT_EQ(Comparable(FromJson<v1::SolveResponse>(over_http->body)), Comparable(*over_grpc));
  EXPECT_EQ(over_http->get_header_value("ETag").rfind("W/\"eight.", 0), 0u);
  auto counted = http_->Get("/v1/analyze?puzzle=eight&state=283104765&count=yes");
  ASSERT_TRUE(counted && counted->status == 200);
  EXPECT_FALSE(FromJson<v1::AnalyzeResponse>(counted->body).optimal_count().empty());
  auto search_only = http_->Get("/v1/solve?puzzle=eight&state=283104765&count=1&policy=search_only");
  ASSERT_TRUE(search_only);
  EXPECT_EQ(search_only->status, 412) << search_only->body;
  auto bad_flag = http_->Get("/v1/solve?puzzle=eight&state=283104765&count=maybe");
  ASSERT_TRUE(bad_flag);
  EXPECT_EQ(bad_flag->status, 400);
}

}  // namespace
}  // namespace puzzledb
