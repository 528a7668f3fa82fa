// The service layer in-process, on the test database: one pass per request. The table step
// answers hits at once and hands a miss on as a search step that holds the request as
// parsed; policies are answers, never routes.
#include <memory>
#include <random>

#include "core/puzzles/knight.h"
#include "core/puzzles/knobs.h"
#include "core/puzzle.h"
#include "core/solver.h"
#include "core/table/table_store.h"
#include "core/util/strings.h"
#include "core/util/text_input.h"
#include "gtest/gtest.h"
#include "service/json.h"
#include "service/puzzle_text.h"
#include "service/request_handler.h"
#include "service/retry_hint.h"
#include "service/wire.h"
#include "tests/typed_wire.h"
#include "tests/test_util.h"

namespace puzzledb {
namespace {

// A request's table step in these tests' words: answered (status written) or handed on
// (search written).
enum class Route { kAnswered, kNeedsSearch };
template <class Request, class Response>
Route RouteOf(RequestHandler& handler, const Request& request, Response* response,
              absl::Status* status, RequestHandler::SearchStep<Response>* search,
              const Position* parsed = nullptr) {
  RequestHandler::Routed<Response> routed = handler.Answer(request, response, parsed);
  *status = routed.status;
  *search = routed.search;
  return routed.NeedsSearch() ? Route::kNeedsSearch : Route::kAnswered;
}

class ServiceTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto store = TableStore::Open(PUZZLEDB_TEST_DB, TableStore::Mode::kReadOnly);
    ASSERT_TRUE(store.ok()) << store.status();
    solver_ = new Solver(std::shared_ptr<TableStore>(std::move(*store)));
    handler_ = new RequestHandler(solver_, nullptr, HandlerOptions{});
  }
  static void TearDownTestSuite() {
    delete handler_;
    delete solver_;
  }

  // An instance of knobs_9101's wiring, which has no table: the goal, turned by `turns`.
  static KnobsPuzzle::Instance UntabledKnobs(std::initializer_list<int> turns) {
    auto instance = *KnobsPuzzle::ParseOriginal(testing::Golden("knobs_9101_unsolvable.in"))[0].instance;
    const KnobsPuzzle model(instance.params);
    instance.state = 0;
    for (int m : turns) {
      KnobsPuzzle::State next;
      EXPECT_TRUE(model.Apply(instance.state, m, &next));
      instance.state = next;
    }
    return instance;
  }

  static Solver* solver_;
  static RequestHandler* handler_;
};
Solver* ServiceTest::solver_ = nullptr;
RequestHandler* ServiceTest::handler_ = nullptr;

// The node budget is given to every step a request hands on (RequestHandler::HandOn) and
// checked the one way (BudgetSpent): a search and a count of optimal solutions past it are
// refused in the same words, naming the budget; a run within it answers.
TEST_F(ServiceTest, TheNodeBudgetStopsSearchesAndCountsAlike) {
  RequestHandler budgeted(solver_, nullptr, HandlerOptions{.search_node_budget = 50});
  auto run = [&](const v1::SolveRequest& request) {
    v1::SolveResponse response;
    auto routed = budgeted.Answer(request, &response);
    if (!routed.NeedsSearch()) return routed.status;
    return routed.search(SearchLimits{}, &response);
  };
  v1::SolveRequest search;
  search.mutable_puzzle()->mutable_knight()->set_board("0000000000001*11111111111");
  search.set_policy(v1::SEARCH_ONLY);
  const absl::Status searched = run(search);
  EXPECT_TRUE(absl::IsResourceExhausted(searched)) << searched;
  EXPECT_EQ(Message(searched), "the search passed its budget of 50 nodes");
  v1::SolveRequest count;
  count.mutable_puzzle()->mutable_knight()->set_board("0000000000001*11111111111");
  count.set_count_solutions(true);
  const absl::Status counted = run(count);
  EXPECT_TRUE(absl::IsResourceExhausted(counted)) << counted;
  EXPECT_EQ(std::string(Message(counted)).rfind("counting optimal solutions passed its budget of 50 nodes", 0), 0u)
      << counted;
  v1::SolveRequest near;
  near.mutable_puzzle()->mutable_eight()->set_board("123804765");
  near.set_policy(v1::SEARCH_ONLY);
  EXPECT_TRUE(run(near).ok());
}

TEST_F(ServiceTest, ATableHitIsAnsweredInTheTableStep) {
  v1::SolveRequest request;
  request.mutable_puzzle()->mutable_knight()->set_board("1111111111000*10000100000");
  v1::SolveResponse response;
  absl::Status status;
  RequestHandler::SearchStep<v1::SolveResponse> search;
  ASSERT_EQ(RouteOf(*handler_, request, &response, &status, &search), Route::kAnswered);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_FALSE(search);
  EXPECT_EQ(response.source(), v1::TABLE);
  EXPECT_EQ(response.outcome(), v1::SOLVED);
  EXPECT_EQ(static_cast<int>(response.moves_size()), static_cast<int>(response.distance()));
}

TEST_F(ServiceTest, AMissCarriesTheParsedRequestIntoItsSearchStep) {
  const auto instance = UntabledKnobs({0, 5, 5, 11});
  RequestHandler::SearchStep<v1::SolveResponse> search;
  {
    v1::SolveRequest request;
    InstanceToWire(instance, request.mutable_puzzle());
    v1::SolveResponse response;
    absl::Status status;
    ASSERT_EQ(RouteOf(*handler_, request, &response, &status, &search),
              Route::kNeedsSearch);
    EXPECT_TRUE(status.ok()) << status;
    EXPECT_EQ(response.ByteSizeLong(), 0u) << "nothing is written before the search";
    ASSERT_TRUE(search);
  }  // the request is gone: the search step needs nothing of it
  v1::SolveResponse response;
  ASSERT_TRUE(search(SearchLimits{}, &response).ok());
  EXPECT_EQ(response.source(), v1::SEARCH);
  ASSERT_EQ(response.outcome(), v1::SOLVED);
  const KnobsPuzzle model(instance.params);
  auto replayed = SolutionFromWire(model, instance, response);
  EXPECT_TRUE(replayed.ok()) << replayed.status();
}

TEST_F(ServiceTest, SearchOnlyRefusesABadPuzzleInTheTableStepAndSearchesAGoodOne) {
  v1::SolveRequest request;
  request.set_policy(v1::SEARCH_ONLY);
  request.mutable_puzzle()->mutable_knight()->set_board("1111111111000*1000010000x");
  v1::SolveResponse response;
  absl::Status status;
  RequestHandler::SearchStep<v1::SolveResponse> search;
  ASSERT_EQ(RouteOf(*handler_, request, &response, &status, &search), Route::kAnswered);
  EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
  EXPECT_FALSE(search);

  request.mutable_puzzle()->mutable_knight()->set_board("1111111111000*10000100000");
  status = absl::OkStatus();
  ASSERT_EQ(RouteOf(*handler_, request, &response, &status, &search), Route::kNeedsSearch);
  ASSERT_TRUE(search);
  v1::SolveResponse searched;
  ASSERT_TRUE(search(SearchLimits{}, &searched).ok());
  EXPECT_EQ(searched.source(), v1::SEARCH);
  // The same exact answer as the table's.
  request.set_policy(v1::TABLE_ONLY);
  v1::SolveResponse from_table;
  ASSERT_EQ(RouteOf(*handler_, request, &from_table, &status, &search), Route::kAnswered);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(searched.distance(), from_table.distance());
  EXPECT_EQ(std::vector<std::string>(searched.moves().begin(), searched.moves().end()),
            std::vector<std::string>(from_table.moves().begin(), from_table.moves().end()));
}

TEST_F(ServiceTest, TableOnlyWithoutATableIsAnAnswerNotARoute) {
  v1::SolveRequest request;
  request.set_policy(v1::TABLE_ONLY);
  InstanceToWire(UntabledKnobs({3}), request.mutable_puzzle());
  v1::SolveResponse response;
  absl::Status status;
  RequestHandler::SearchStep<v1::SolveResponse> search;
  ASSERT_EQ(RouteOf(*handler_, request, &response, &status, &search), Route::kAnswered);
  EXPECT_TRUE(absl::IsFailedPrecondition(status)) << status;
  EXPECT_EQ(std::string(status.message()),
            "no usable knobs table for these parameters and the policy forbids search");

  v1::AnalyzeRequest analyze;
  analyze.set_policy(v1::TABLE_ONLY);
  *analyze.mutable_puzzle() = request.puzzle();
  v1::AnalyzeResponse analysis;
  RequestHandler::SearchStep<v1::AnalyzeResponse> analyze_search;
  ASSERT_EQ(RouteOf(*handler_, analyze, &analysis, &status, &analyze_search),
            Route::kAnswered);
  EXPECT_TRUE(absl::IsFailedPrecondition(status)) << status;
}

TEST_F(ServiceTest, AnAnalysisComesFromTheTablesOrFromItsSearchStep) {
  v1::AnalyzeRequest request;
  request.mutable_puzzle()->mutable_knight()->set_board("1111111111000*10000100000");
  v1::AnalyzeResponse response;
  absl::Status status;
  RequestHandler::SearchStep<v1::AnalyzeResponse> search;
  ASSERT_EQ(RouteOf(*handler_, request, &response, &status, &search), Route::kAnswered);
  ASSERT_TRUE(status.ok()) << status;
  ASSERT_GT(response.moves_size(), 0);
  EXPECT_EQ(response.moves(0).distance() + 1, response.distance());  // the best move

  InstanceToWire(UntabledKnobs({0, 7}), request.mutable_puzzle());
  ASSERT_EQ(RouteOf(*handler_, request, &response, &status, &search),
            Route::kNeedsSearch);
  v1::AnalyzeResponse searched;
  ASSERT_TRUE(search(SearchLimits{}, &searched).ok());
  EXPECT_EQ(searched.source(), v1::SEARCH);
  ASSERT_EQ(searched.moves_size(), KnobsPuzzle::kNumMoves);
  EXPECT_EQ(searched.moves(0).distance() + 1, searched.distance());
}

}  // namespace
}  // namespace puzzledb

namespace puzzledb {
namespace {

// ToJson's direct path for one line writes what protobuf's printer writes, byte for byte:
// on real answers of every kind, and on random SolveResponses and AnalyzeResponses (every
// field, unknown enum numbers, 64-bit extremes, strings protobuf escapes).
TEST_F(ServiceTest, JsonOnOneLineIsProtobufsMappingByteForByte) {
  std::vector<std::unique_ptr<google::protobuf::Message>> messages;
  for (const auto& [name, state] : std::vector<std::pair<std::string, std::string>>{
           {"knight", "1111111111000*10000100000"}, {"eight", "283104765"},
           {"rotation", "233233121112233123123112"}, {"fifteen", "2340157896acdebf"}}) {
    v1::SolveRequest solve;
    *solve.mutable_puzzle() = *PuzzleFromCompact(name, state);
    auto response = std::make_unique<v1::SolveResponse>();
    absl::Status status;
    RequestHandler::SearchStep<v1::SolveResponse> search;
    if (RouteOf(*handler_, solve, response.get(), &status, &search) == Route::kNeedsSearch) {
      ASSERT_TRUE(search(SearchLimits{}, response.get()).ok());
    }
    messages.push_back(std::move(response));
    v1::AnalyzeRequest analyze;
    *analyze.mutable_puzzle() = solve.puzzle();
    auto analysis = std::make_unique<v1::AnalyzeResponse>();
    RequestHandler::SearchStep<v1::AnalyzeResponse> analysis_search;
    if (RouteOf(*handler_, analyze, analysis.get(), &status, &analysis_search) ==
        Route::kNeedsSearch) {
      ASSERT_TRUE(analysis_search(SearchLimits{}, analysis.get()).ok());
    }
    messages.push_back(std::move(analysis));
  }
  v1::SampleRequest sample;
  *sample.mutable_puzzle() = *PuzzleOfKind("knight");
  sample.set_distance(20);
  sample.set_count(3);
  auto drawn = std::make_unique<v1::SampleResponse>();
  absl::Status status;
  RequestHandler::SearchStep<v1::SampleResponse> draw;
  ASSERT_EQ(RouteOf(*handler_, sample, drawn.get(), &status, &draw), Route::kNeedsSearch);
  ASSERT_TRUE(draw(SearchLimits{}, drawn.get()).ok());
  messages.push_back(std::move(drawn));
  messages.push_back(std::make_unique<v1::ListTablesResponse>(handler_->ListTables()));

  std::mt19937_64 rng(25);
  auto text = [&rng] {
    std::string s(rng() % 6, ' ');
    for (char& c : s) c = static_cast<char>(rng() % 4 == 0 ? rng() % 256 : 'a' + rng() % 26);
    if (rng() % 5 == 0) s += "\"<\\é";
    return s;
  };
  for (int i = 0; i < 2000; ++i) {
    auto r = std::make_unique<v1::SolveResponse>();
    r->set_outcome(static_cast<v1::Outcome>(rng() % 7));
    r->set_distance(static_cast<uint32_t>(rng()));
    for (uint64_t k = rng() % 4; k > 0; --k) r->add_moves(text());
    r->set_source(static_cast<v1::Source>(rng() % 5));
    r->set_lookups(rng() % 3 == 0 ? UINT64_MAX : rng());
    r->set_nodes(rng() % 2 ? 0 : rng());
    r->set_id(rng());
    if (rng() % 3 == 0) {
      r->mutable_error()->set_code(static_cast<v1::Error::Code>(static_cast<int32_t>(rng())));
      r->mutable_error()->set_message(text());
    }
    for (uint64_t k = rng() % 3; k > 0; --k) r->add_solutions()->add_moves(text());
    r->set_optimal_count(text());
    r->set_table_id(text());
    r->set_table_crc32(static_cast<uint32_t>(rng()));
    // Move codes: any bytes, of every length base64 pads differently; or unset.
    if (rng() % 2) {
      std::string codes(rng() % 9, '\0');
      for (char& c : codes) c = static_cast<char>(rng() % 256);
      r->set_move_codes(codes);
    }
    if (rng() % 2) {
      auto* listed = r->add_solutions();
      listed->set_move_codes(std::string(rng() % 5, static_cast<char>(rng() % 8)));
    }
    if (rng() % 7 == 0) *r->mutable_batch()->add_responses() = *r;
    messages.push_back(std::move(r));
    auto a = std::make_unique<v1::AnalyzeResponse>();
    for (uint64_t k = rng() % 3; k > 0; --k) {
      auto* move = a->add_moves();
      move->set_move(text());
      move->set_distance(static_cast<uint32_t>(rng() % 100));
    }
    a->set_micros(rng());
    messages.push_back(std::move(a));
  }
  // The real answers but the table list (its build time is a double) take the direct path.
  for (size_t i = 0; i < 9; ++i) {
    std::string direct;
    EXPECT_TRUE(ToJsonDirect(*messages[i], &direct)) << messages[i]->GetDescriptor()->name();
  }
  int direct_count = 0;
  for (const auto& m : messages) {
    std::string direct;
    if (ToJsonDirect(*m, &direct)) {
      ++direct_count;
      EXPECT_EQ(direct, ToJsonByProtobuf(*m, JsonLayout::kOneLine)) << m->GetDescriptor()->name();
    }
    EXPECT_EQ(ToJson(*m, JsonLayout::kOneLine), ToJsonByProtobuf(*m, JsonLayout::kOneLine))
        << m->GetDescriptor()->name();
  }
  EXPECT_GT(direct_count, 1000);  // the random ones with plain strings
}

}  // namespace
}  // namespace puzzledb

namespace puzzledb {
namespace {

// A puzzle parsed once by its model (a GET's compact form) is answered as the same puzzle
// sent on the wire; the request's own `puzzle` is not read then.
TEST_F(ServiceTest, AParsedPuzzleIsAnsweredAsItsWireForm) {
  for (const auto& [name, state] : std::vector<std::pair<std::string, std::string>>{
           {"knight", "1111111111000*10000100000"}, {"eight", "283104765"},
           {"rotation", "233233121112233123123112"}}) {
    v1::SolveRequest wire;
    *wire.mutable_puzzle() = *PuzzleFromCompact(name, state);
    v1::SolveResponse by_wire, by_parsed;
    absl::Status wire_status, parsed_status;
    RequestHandler::SearchStep<v1::SolveResponse> search;
    ASSERT_EQ(RouteOf(*handler_, wire, &by_wire, &wire_status, &search), Route::kAnswered);
    const auto parsed = PositionFromCompact(name, state);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    v1::SolveRequest fields;  // no puzzle
    ASSERT_EQ(RouteOf(*handler_, fields, &by_parsed, &parsed_status, &search, &*parsed),
              Route::kAnswered);
    EXPECT_TRUE(wire_status.ok() && parsed_status.ok()) << parsed_status;
    EXPECT_EQ(by_parsed.SerializeAsString(), by_wire.SerializeAsString()) << name;
    v1::AnalyzeRequest analyze;
    v1::AnalyzeResponse analysis;
    RequestHandler::SearchStep<v1::AnalyzeResponse> analysis_search;
    RouteOf(*handler_, analyze, &analysis, &parsed_status, &analysis_search, &*parsed);
    EXPECT_TRUE(parsed_status.ok()) << parsed_status;
  }
  const auto refused = PositionFromCompact("knight", "11");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message().substr(0, 7), "state: ");
  // Without a parsed puzzle and without one on the wire, the request says so.
  v1::SolveRequest empty;
  v1::SolveResponse response;
  absl::Status status;
  RequestHandler::SearchStep<v1::SolveResponse> search;
  RouteOf(*handler_, empty, &response, &status, &search);
  EXPECT_NE(status.message().find("puzzle: no puzzle given"), std::string::npos) << status;
}

// MOVE_CODES gives each move's index in the canonical order where MOVE_NAMES gives its
// name, for every puzzle (the rotation game's final state too), in a solve's moves and in
// its listed solutions; SolutionFromWire reads either back and refuses codes that are not
// legal moves.
TEST_F(ServiceTest, MoveCodesAreTheNamedMovesIndices) {
  for (const auto& named_state : std::vector<std::pair<std::string, std::string>>{
           {"knight", "1111111111000*10000100000"}, {"eight", "283104765"},
           {"rotation", "233233121112233123123112"}, {"fifteen", "2340157896acdebf"}}) {
    // Not a structured binding: the lambdas below capture these, which clang 14 refuses
    // for bindings.
    const std::string& name = named_state.first;
    const std::string& state = named_state.second;
    v1::SolveResponse by_name, by_code;
    for (v1::SolveResponse* out : {&by_name, &by_code}) {
      v1::SolveRequest request;
      *request.mutable_puzzle() = *PuzzleFromCompact(name, state);
      if (name != "fifteen") request.set_max_solutions(3);
      if (out == &by_code) request.set_move_encoding(v1::MOVE_CODES);
      absl::Status status;
      RequestHandler::SearchStep<v1::SolveResponse> search;
      if (RouteOf(*handler_, request, out, &status, &search) == Route::kNeedsSearch) {
        status = search(SearchLimits{}, out);
      }
      ASSERT_TRUE(status.ok()) << name << ": " << status;
    }
    EXPECT_FALSE(by_name.has_move_codes()) << name;
    EXPECT_EQ(by_code.moves_size(), 0) << name;
    ASSERT_TRUE(by_code.has_move_codes()) << name;
    EXPECT_EQ(by_code.final_state().SerializeAsString(), by_name.final_state().SerializeAsString());
    EXPECT_EQ(by_code.solutions_size(), by_name.solutions_size());
    const Position position = *PositionFromCompact(name, state);
    const Puzzle& puzzle = *position.puzzle();
    auto names = [&](const std::string& codes) {
      std::vector<std::string> out;
      Position s = position;
      for (const char c : codes) {
        out.push_back(puzzle.MoveName(s, static_cast<uint8_t>(c)));
        Position next;
        puzzle.Apply(s, static_cast<uint8_t>(c), &next);
        s = next;
      }
      return Join(out, " ");
    };
    EXPECT_EQ(names(by_code.move_codes()), Join(by_name.moves(), " ")) << name;
    for (int i = 0; i < by_code.solutions_size(); ++i) {
      EXPECT_EQ(names(by_code.solutions(i).move_codes()), Join(by_name.solutions(i).moves(), " "));
    }
    auto read = SolutionFromWire(position, by_code);
    ASSERT_TRUE(read.ok()) << read.status();
    EXPECT_EQ(read->moves.size(), by_code.distance());
    v1::SolveResponse bad = by_code;
    bad.set_move_codes(std::string(1, static_cast<char>(puzzle.move_count())) +
                       bad.move_codes().substr(1));
    EXPECT_EQ(SolutionFromWire(position, bad).status().code(), absl::StatusCode::kDataLoss);
    bad = by_code;
    bad.add_moves("x");
    EXPECT_EQ(SolutionFromWire(position, bad).status().code(), absl::StatusCode::kDataLoss);
  }
  v1::SolveRequest unknown;
  *unknown.mutable_puzzle() = *PuzzleFromCompact("eight", "283104765");
  unknown.set_move_encoding(static_cast<v1::MoveEncoding>(5));
  v1::SolveResponse response;
  absl::Status status;
  RequestHandler::SearchStep<v1::SolveResponse> search;
  RouteOf(*handler_, unknown, &response, &status, &search);
  EXPECT_NE(status.message().find("move_encoding: unknown value 5"), std::string::npos) << status;
}

// A batch's or a stream's error says by name what went wrong, and when retrying may help
// (the hint a full search pool or memory budget gives; docs/API.md, "Retries").
TEST(InBandErrorTest, CarriesTheCodeByNameAndTheRetryHint) {
  v1::SolveResponse out;
  SetErrorInBand(WithRetryHint(absl::ResourceExhaustedError("full"), std::chrono::milliseconds(1500)),
                 7, &out);
  EXPECT_EQ(out.error().code(), v1::Error::RESOURCE_EXHAUSTED);
  EXPECT_EQ(out.error().retry_after_ms(), 1500u);
  EXPECT_EQ(out.id(), 7u);
  EXPECT_NE(ToJson(out, JsonLayout::kOneLine).find(R"("error":{"code":"RESOURCE_EXHAUSTED","message":"full","retry_after_ms":1500})"),
            std::string::npos)
      << ToJson(out, JsonLayout::kOneLine);
  SetErrorInBand(absl::InvalidArgumentError("bad"), 8, &out);
  EXPECT_EQ(out.error().code(), v1::Error::INVALID_ARGUMENT);
  EXPECT_EQ(out.error().retry_after_ms(), 0u);
  EXPECT_EQ(RetryHintOf(absl::InvalidArgumentError("bad")), std::nullopt);
  EXPECT_EQ(RetryHintOf(WithRetryHint(absl::UnavailableError("stopping"))), kRetryAfter);
}

}  // namespace
}  // namespace puzzledb
