// A definition's pattern tables (core/defined/defined_patterns.h) and the invariants of a
// definition of any size: the coloured parity proves exactly the unreachable half of a
// sliding puzzle unsolvable; projections are chosen within a budget; the tables written
// to a store read back as they were built, guide the live search to the tests' own
// answers on every reachable state, and a damaged record is refused or caught by verify.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "core/defined/defined_patterns.h"
#include "core/defined/defined_puzzle.h"
#include "core/definition/defined_index.h"
#include "core/definition/read_definition.h"
#include "core/puzzle.h"
#include "core/solver.h"
#include "core/table/table_store.h"
#include "core/util/strings.h"
#include "gtest/gtest.h"
#include "tests/answer_line.h"
#include "tests/definition_brute_force.h"
#include "tests/test_util.h"

namespace puzzledb {
namespace defined_patterns_test {

using testing::BruteForce;
namespace fs = std::filesystem;

// A definition of five pieces moved and sixty never moved: 65 bytes a state, 60 states.
std::string WideText() {
  std::string wide = "Set A 5 1\nSet F 60 1\nSolved\nA\n1 2 3 4 5\nF\n";
  for (int i = 1; i <= 60; ++i) wide += Cat(i, " ");
  return wide + "\nEnd\nMove X\nA\n2 3 1 4 5\nEnd\nMove Y\nA\n1 2 4 5 3\nEnd\n";
}

std::string Text(const std::string& file) {
  if (file == "wide.tws") return WideText();
  return testing::ReadFile(std::string(PUZZLEDB_GOLDEN_DIR) + "/definitions/" + file);
}

Definition Read(const std::string& file) {
  auto read = ReadDefinition(Text(file), file);
  EXPECT_TRUE(read.ok()) << read.status();
  return read.ok() ? *std::move(read) : Definition();
}

// Every placement of slide32's labels: Possible exactly where the tests' own search
// reaches, which a complete table's index (720 numbers for 360 states) cannot say.
TEST(DefinedPatternsTest, TheColouredParityProvesTheOtherHalfOfASlidingPuzzleUnsolvable) {
  const Definition d = Read("slide32.tws");
  const CompiledMoves moves(d);
  const DefinedIndex invariants = DefinedIndex::Invariants(d, moves);
  ASSERT_EQ(invariants.coloured().size(), 1u);
  EXPECT_EQ(invariants.coloured()[0].piece, 6);  // the blank
  const BruteForce all(d);
  DefinedState s = {1, 2, 3, 4, 5, 6};
  int possible = 0, placements = 0;
  do {
    ++placements;
    const bool reached = all.DistanceOf(s) >= 0;
    EXPECT_EQ(invariants.Possible(s.data()), reached) << d.FormatCompact(s);
    possible += invariants.Possible(s.data());
  } while (std::next_permutation(s.begin(), s.end()));
  EXPECT_EQ(placements, 720);
  EXPECT_EQ(possible, 360);
  // The fifteen puzzle written as a definition: the same rule as the built-in puzzle's
  // parity (inversions plus the blank's row), on random boards.
  const Definition fifteen = Read("slide44.tws");
  const DefinedIndex its = DefinedIndex::Invariants(fifteen, CompiledMoves(fifteen));
  std::mt19937_64 rng(11);
  DefinedState board(16);
  for (int i = 0; i < 16; ++i) board[static_cast<size_t>(i)] = static_cast<uint8_t>(i + 1);
  for (int k = 0; k < 2000; ++k) {
    std::shuffle(board.begin(), board.end(), rng);
    int inversions = 0, blank_row = 0;
    for (int i = 0; i < 16; ++i) {
      if (board[static_cast<size_t>(i)] == 16) blank_row = i / 4;
      for (int j = i + 1; j < 16; ++j) {
        inversions += board[static_cast<size_t>(i)] != 16 && board[static_cast<size_t>(j)] != 16 &&
                      board[static_cast<size_t>(i)] > board[static_cast<size_t>(j)];
      }
    }
    // Solvable on a 4-wide board: inversions plus the blank's row from the bottom (1..4)
    // odd.
    const bool solvable = (inversions + (4 - blank_row)) % 2 == 1;
    ASSERT_EQ(its.Possible(board.data()), solvable) << fifteen.FormatCompact(board);
  }
  // Never false on a reachable state, for every sample (guarded or not).
  for (const std::string file : {"pancake5.tws", "dials3.tws"}) {
    const Definition one = Read(file);
    const DefinedIndex rules = DefinedIndex::Invariants(one, CompiledMoves(one));
    const BruteForce reached(one);
    for (const DefinedState& state : reached.states()) {
      ASSERT_TRUE(rules.Possible(state.data())) << file << ": " << one.FormatCompact(state);
    }
  }
  // Moves that turn four corners and leave four in place keep no coloured parity.
  const Definition cube = Read("cube2urf.tws");
  EXPECT_TRUE(DefinedIndex::Invariants(cube, CompiledMoves(cube)).coloured().empty());
}

TEST(DefinedPatternsTest, ProjectionsAreChosenWithinTheBudget) {
  const Definition d = Read("cube2urf.tws");
  for (const uint64_t memory : {uint64_t{4} << 20, uint64_t{100000}, uint64_t{3000}}) {
    const std::vector<ProjectionSpec> chosen = ChooseProjections(d, memory, memory);
    ASSERT_FALSE(chosen.empty()) << memory;
    uint64_t total = 0;
    for (const ProjectionSpec& spec : chosen) {
      auto entries = ProjectionTable::EntriesOf(d, spec, memory);
      ASSERT_TRUE(entries.ok()) << FormatProjection(spec) << ": " << entries.status();
      total += *entries;
    }
    EXPECT_LE(total, memory) << memory;
    // The whole puzzle's table is 3,674,160 entries: with 4 MiB it is chosen whole.
    if (memory == (uint64_t{4} << 20)) {
      ASSERT_EQ(chosen.size(), 1u);
      EXPECT_EQ(FormatProjection(chosen[0]), "CORNER");
    }
  }
  EXPECT_TRUE(ChooseProjections(d, 2, 2).empty());
  // A cube's turn carries four corners: never groups that add up.
  std::string why;
  ChooseProjections(d, 100000, 100000, &why);
  EXPECT_EQ(why.find("add up"), std::string::npos) << why;

  // The fifteen's tiles, one carried a move, in groups that add up with the blank free, each
  // as large as fits: the eighth tile's table fits 512 MiB (519 MB) and the seventh's after
  // it 1 GiB, while their search (1.6 GB) fits the search's budget; with 1 GiB for the
  // search too, seven tiles a group.
  const Definition fifteen = Read("slide44.tws");
  constexpr uint64_t kGiB = uint64_t{1} << 30;
  for (const auto& [memory, search, expected] : std::vector<std::tuple<uint64_t, uint64_t, std::string>>{
           {kGiB / 2, kDefaultBuildMemory, "T 1-8 ~16|T 9-14 ~16|T 15 ~16"},
           {kGiB, kDefaultBuildMemory, "T 1-8 ~16|T 9-15 ~16"},
           {kGiB, kGiB, "T 1-7 ~16|T 8-14 ~16|T 15 ~16"}}) {
    const std::vector<ProjectionSpec> groups = ChooseProjections(fifteen, memory, search, &why);
    std::vector<std::string> texts;
    for (const ProjectionSpec& spec : groups) texts.push_back(FormatProjection(spec));
    EXPECT_EQ(Join(texts, "|"), expected) << memory << " " << search;
    EXPECT_TRUE(MoveDisjoint(fifteen, groups));
    EXPECT_NE(why.find("distances add up"), std::string::npos) << why;
  }
  EXPECT_NE(why.find("T 1-7 ~16 (one more piece: 1556.8 MB to build with 1073.7 MB for it)"), std::string::npos) << why;
  ChooseProjections(fifteen, kGiB / 2, kDefaultBuildMemory, &why);
  EXPECT_NE(why.find("T 9-14 ~16 (one more piece: 57.7 MB of table with 18.0 MB left)"), std::string::npos) << why;
  BuildOptions named;
  named.projections = {"CORNER 1-3 -o", "CORNER 4-7 -o"};
  auto specs = ProjectionsToBuild(d, named);
  ASSERT_TRUE(specs.ok()) << specs.status();
  EXPECT_EQ(specs->size(), 2u);
  named.pattern_memory = 100;
  EXPECT_EQ(std::string(ProjectionsToBuild(d, named).status().message()),
            "--projection 'CORNER 1-3 -o': its states need an index of 210 numbers (CORNER "
            "placements 210), more than the limit of 100 for a complete table (--pattern-memory)");
  named.pattern_memory = 1000;
  EXPECT_EQ(std::string(ProjectionsToBuild(d, named).status().message()),
            "the projections' tables take 1050 bytes together, more than --pattern-memory 1000");
  named.projections = {"EDGE"};
  EXPECT_EQ(ProjectionsToBuild(d, named).status().code(), absl::StatusCode::kInvalidArgument);
}

// Built with pattern tables into a store and served by a solver from it: every reachable
// state of three definitions (guarded and not) gets the tests' own answer, the
// lexicographically smallest optimal one, from SEARCH.
TEST(DefinedPatternsTest, StoredTablesGuideTheLiveSearchToTheSameAnswers) {
  struct Case {
    std::string file;
    std::vector<std::string> projections;
    uint64_t memory = 0;        // --pattern-memory; 0: the default
    std::string chosen = "";    // the projections the builder chose, when it chose
    uint64_t search = 0;        // --build-memory; 0: the default
  };
  const std::vector<Case> cases = {
      {"slide32.tws", {"T 1-2,6", "T 3-5"}},
      {"pancake5.tws", {"P 1-3"}},
      {"dials3.tws", {}},  // chosen within the budget
      // Tiles in groups that add up, the blank free: two tiles' search takes 45 bytes (3
      // bits for each of 120 states), three tiles' 135.
      {"slide32.tws", {}, 130, "projections T 1-2 ~6 | T 3-4 ~6 | T 5 ~6; chosen: set T", 130},
      // A state of 65 bytes, more than a complete table's walk holds (the Position keeps it
      // on the heap).
      {"wide.tws", {}},
      // Goals that leave cells to any piece: each goal's own table, the least over them.
      {"columns23.tws", {}, 0, "chosen: each goal's own table (the pieces it names), exact for that goal"},
      {"columns23.tws", {"goal 1: B 1", "goal 3: B 3"}},  // the second goal bounded by nothing
      // twsearch's Illegal: the projections do not read it (their moves only gain), the
      // search does.
      {"illegal6.tws", {"P 1-3"}},
  };
  const std::string dir = testing::TempPath("defined_patterns_db");
  fs::remove_all(dir);
  auto store = TableStore::Open(dir, TableStore::Mode::kReadWrite);
  ASSERT_TRUE(store.ok()) << store.status();
  std::shared_ptr<TableStore> shared(std::move(*store));
  for (const Case& c : cases) {
    const std::string name = DefinedNameOf(c.file) + "_p" + (c.memory > 0 ? "m" : "");
    auto puzzle = MakeDefinedPuzzle(name, Text(c.file), c.file, kDefaultMaxDefinedStates,
                                    DefinedTableKind::kPatterns);
    ASSERT_TRUE(puzzle.ok()) << puzzle.status();
    ASSERT_TRUE((*puzzle)->pattern_tables());
    BuildOptions options;
    options.threads = 2;
    options.projections = c.projections;
    options.pattern_memory = c.memory;
    options.build_memory = c.search;
    auto built = (*puzzle)->BuildPatterns("patterns", *shared, options);
    ASSERT_TRUE(built.ok()) << built.status();
    EXPECT_EQ(built->table_id(), name + "-patterns");
    if (!c.chosen.empty()) {
      EXPECT_NE(built->parameters_text().find(c.chosen), std::string::npos) << built->parameters_text();
    }
    auto loaded = shared->Load(built->table_id());
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    const absl::Status verified = (*puzzle)->Verify(*shared, *built, 2);
    EXPECT_TRUE(verified.ok()) << verified;

    Solver solver(shared);
    const Definition d = Read(c.file);
    const BruteForce all(d);
    for (const DefinedState& state : all.states()) {
      auto position = (*puzzle)->ParseCompact(d.FormatCompact(state));
      ASSERT_TRUE(position.ok()) << position.status();
      SolveOptions solve;
      auto answer = solver.Solve(*position, solve);
      ASSERT_TRUE(answer.ok()) << answer.status();
      std::string line = std::to_string(answer->distance);
      std::vector<std::string> names;
      (*puzzle)->Replay(*position, answer->moves, &names);
      for (const std::string& move : names) line += " " + move;
      ASSERT_EQ(line, all.Answer(state)) << c.file << ": " << d.FormatCompact(state);
      EXPECT_EQ(answer->source, Source::kSearch);
    }
  }
  fs::remove_all(dir);
}

// A definition of data/puzzles/ made to be searched with pattern tables, beside the built-in
// model of the same puzzle (the same moves in the same order), and a store of their own.
struct BesideTheModel {
  std::shared_ptr<const Puzzle> data;
  const Puzzle* model = nullptr;
  std::string dir;
  std::shared_ptr<TableStore> store;
};
void MakeBesideTheModel(const std::string& puzzle, BesideTheModel* out) {
  const std::string file = puzzle + ".tws";
  auto made = MakeDefinedPuzzle(puzzle + "_as_data", testing::DataPuzzle(file), file, kDefaultMaxDefinedStates,
                                DefinedTableKind::kPatterns);
  ASSERT_TRUE(made.ok()) << made.status();
  out->data = *std::move(made);
  out->model = FindPuzzle(puzzle);
  ASSERT_NE(out->model, nullptr);
  ASSERT_EQ(out->data->move_count(), out->model->move_count());
  out->dir = testing::TempPath(puzzle + "_as_data_db");
  fs::remove_all(out->dir);
  auto store = TableStore::Open(out->dir, TableStore::Mode::kReadWrite);
  ASSERT_TRUE(store.ok()) << store.status();
  out->store = std::move(*store);
}

// data/puzzles/fifteen.tws, the fifteen puzzle written from its rules, answers as the
// built-in model does: from 500 positions each reached by the same 40 random moves (by name)
// on both, the same distance and the same moves (the lexicographically smallest optimal
// ones), the definition through its pattern tables (three groups of five tiles, the blank
// free), the model by its own live search.
TEST(DefinedPatternsTest, TheFifteenAsDataAnswersAsTheModel) {
  BesideTheModel both;
  ASSERT_NO_FATAL_FAILURE(MakeBesideTheModel("fifteen", &both));
  const Puzzle& data = *both.data;
  const Puzzle* model = both.model;
  const std::string& dir = both.dir;
  std::shared_ptr<TableStore> shared = both.store;
  BuildOptions options;
  options.threads = 2;
  options.projections = {"T 1-5 ~16", "T 6-10 ~16", "T 11-15 ~16"};
  auto built = data.BuildPatterns("patterns", *shared, options);
  ASSERT_TRUE(built.ok()) << built.status();
  Solver solver(shared);
  auto answer = [&solver](const Puzzle& puzzle, const Position& p) {
    return testing::AnswerLine(solver, puzzle, p, Policy::kSearchOnly);
  };
  std::mt19937_64 rng(65);
  int farthest = 0;
  for (int i = 0; i < 500; ++i) {
    Position p = model->Goal(nullptr), q = data.Goal(nullptr), next;
    for (int k = 0; k < 40; ++k) {
      const int m = static_cast<int>(rng() % static_cast<uint64_t>(model->move_count()));
      ASSERT_EQ(data.MoveName(q, m), model->MoveName(p, m));
      const bool moved = model->Apply(p, m, &next);
      if (moved) p = next;
      ASSERT_EQ(data.Apply(q, m, &next), moved) << model->MoveName(p, m);
      if (moved) q = next;
    }
    const std::string by_model = answer(*model, p);
    ASSERT_EQ(answer(data, q), by_model) << model->FormatCompact(p) << " / " << data.FormatCompact(q);
    farthest = std::max(farthest, std::stoi(by_model));
  }
  EXPECT_GE(farthest, 20);
  fs::remove_all(dir);
}

// A search that cannot finish (the fifteen puzzle written as a definition, a far board,
// weak tables) ends at its node budget, its deadline or its cancellation, saying which.
TEST(DefinedPatternsTest, TheBudgetTheDeadlineAndCancellationEndASearch) {
  const Definition d = Read("slide44.tws");
  auto table = ProjectionTable::Build(d, *ParseProjection("T 1-2,16", d), 1 << 20, {});
  ASSERT_TRUE(table.ok()) << table.status();
  std::vector<ProjectionTable> tables;
  tables.push_back(*std::move(table));
  const DefinedPatterns patterns(std::move(tables), false);
  auto data = MakeDefinedPuzzle("slide44", Text("slide44.tws"), "slide44.tws", kDefaultMaxDefinedStates);
  ASSERT_TRUE(data.ok());
  DefinitionSummary summary;
  ASSERT_TRUE(SummarizeDefinition(**data, &summary));
  EXPECT_TRUE(summary.patterns);  // 16! placements: too many for a complete table
  // Korf's first board (tests/golden/fifteen_korf100.txt), 57 moves from the goal.
  auto far = d.ParseCompact("13 6 8 12 15 14 16 10 11 7 4 5 9 1 3 2");
  ASSERT_TRUE(far.ok()) << far.status();
  DefinedPuzzleData alone;
  alone.definition = d;
  alone.index = DefinedIndex::Invariants(d, CompiledMoves(d));
  SearchLimits limits;
  limits.max_nodes = 100000;
  auto spent = SearchDefined(alone, patterns, *far, limits);
  EXPECT_EQ(spent.status().code(), absl::StatusCode::kResourceExhausted) << spent.status();
  limits.max_nodes = 0;
  limits.deadline = std::chrono::steady_clock::now();
  auto late = SearchDefined(alone, patterns, *far, limits);
  EXPECT_EQ(late.status().code(), absl::StatusCode::kDeadlineExceeded) << late.status();
  limits.deadline.reset();
  limits.cancelled = [] { return true; };
  auto stopped = SearchDefined(alone, patterns, *far, limits);
  EXPECT_EQ(stopped.status().code(), absl::StatusCode::kCancelled) << stopped.status();
  // The other parity: proven unsolvable at once, no search.
  auto odd = d.ParseCompact("6 13 8 12 15 14 16 10 11 7 4 5 9 1 3 2");
  ASSERT_TRUE(odd.ok());
  auto refused = SearchDefined(alone, patterns, *odd, SearchLimits{});
  ASSERT_TRUE(refused.ok()) << refused.status();
  EXPECT_EQ(refused->outcome, Outcome::kUnsolvable);
  EXPECT_EQ(refused->nodes, 0u);
  // A cap on the answer's length: NOT_WITHIN_LIMIT once every answer is longer.
  SearchLimits capped;
  capped.max_moves = 20;
  auto beyond = SearchDefined(alone, patterns, *far, capped);
  ASSERT_TRUE(beyond.ok()) << beyond.status();
  EXPECT_EQ(beyond->outcome, Outcome::kNotWithinLimit);
}

// A definition with Illegal lines gets pattern tables: a complete table's search does not
// read them, and is refused saying so.
TEST(DefinedPatternsTest, IllegalLinesGetPatternTables) {
  const std::string text = Text("illegal6.tws");
  auto complete = MakeDefinedPuzzle("illegal6", text, "illegal6.tws", kDefaultMaxDefinedStates,
                                    DefinedTableKind::kComplete);
  EXPECT_EQ(complete.status().message(),
            "illegal6.tws: Illegal lines (the first at line 22), which a complete table's search does not read "
            "yet; pattern tables read them");
  auto chosen = MakeDefinedPuzzle("illegal6", text, "illegal6.tws", kDefaultMaxDefinedStates);
  ASSERT_TRUE(chosen.ok()) << chosen.status();
  EXPECT_TRUE((*chosen)->pattern_tables());
  const Definition d = Read("illegal6.tws");
  const auto index = DefinedIndex::Make(d, CompiledMoves(d), 1 << 20);
  ASSERT_TRUE(index.ok());
  EXPECT_EQ(SearchDefinition(d, CompiledMoves(d), *index, {}).status().code(), absl::StatusCode::kInvalidArgument);
}

// data/puzzles/rotation.tws, the rotation game written from its rules (three goals, the
// centre all one value and the rest left to any piece), answers as the built-in model does:
// on 2,000 uniformly random boards, the same distance and the same moves (the lexicographically
// smallest optimal ones), the definition through the tables the builder chose itself (each
// goal's own: one table of placements, shared by the three values), the model by its table.
TEST(DefinedPatternsTest, TheRotationGameAsDataAnswersAsTheModel) {
  BesideTheModel both;
  ASSERT_NO_FATAL_FAILURE(MakeBesideTheModel("rotation", &both));
  const Puzzle& data = *both.data;
  const Puzzle* model = both.model;
  const std::string& dir = both.dir;
  std::shared_ptr<TableStore> shared = both.store;
  BuildOptions options;
  options.threads = 2;
  auto built = data.BuildPatterns("patterns", *shared, options);
  ASSERT_TRUE(built.ok()) << built.status();
  // One table of placements, C(24, 8) entries, the three goals reading it.
  EXPECT_EQ(built->state_count(), 735'471u);
  ASSERT_EQ(built->projections_size(), 3);
  EXPECT_EQ(built->projections(1).shares(), 1u);
  EXPECT_EQ(built->projections(2).shares(), 1u);
  auto model_built = model->Build(model->Goal(nullptr), *shared, options);
  ASSERT_TRUE(model_built.ok()) << model_built.status();
  // Four threads answer at once through a fresh solver, racing to make the search's shared
  // plan (DefinedPatterns::Plan) as the server's callers do; then the model's answers.
  {
    Solver racing(shared);
    std::vector<std::string> boards, answers(400);
    std::mt19937_64 draw(2287);
    for (int i = 0; i < 400; ++i) {
      std::vector<int> cells(24);
      for (int c = 0; c < 24; ++c) cells[static_cast<size_t>(c)] = 1 + c / 8;
      std::shuffle(cells.begin(), cells.end(), draw);
      boards.push_back(Join(cells, " "));
    }
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        for (size_t i = static_cast<size_t>(t); i < boards.size(); i += 4) {
          auto q = data.ParseCompact(boards[i]);
          answers[i] = q.ok() ? testing::AnswerLine(racing, data, *q, Policy::kSearchOnly) : "bad board";
        }
      });
    }
    for (std::thread& t : threads) t.join();
    for (size_t i = 0; i < boards.size(); ++i) {
      auto p = model->ParseCompact(boards[i]);
      ASSERT_TRUE(p.ok()) << boards[i];
      ASSERT_EQ(answers[i], testing::AnswerLine(racing, *model, *p, Policy::kTableOnly)) << boards[i];
    }
  }
  Solver solver(shared);
  std::mt19937_64 rng(2286);
  std::vector<int> seen(16, 0);
  for (int i = 0; i < 2000; ++i) {
    std::vector<int> cells(24);
    for (int c = 0; c < 24; ++c) cells[static_cast<size_t>(c)] = 1 + c / 8;
    std::shuffle(cells.begin(), cells.end(), rng);
    const std::string board = Join(cells, " ");
    auto p = model->ParseCompact(board);
    auto q = data.ParseCompact(board);
    ASSERT_TRUE(p.ok() && q.ok()) << board;
    const std::string by_model = testing::AnswerLine(solver, *model, *p, Policy::kTableOnly);
    ASSERT_EQ(testing::AnswerLine(solver, data, *q, Policy::kSearchOnly), by_model) << board;
    ++seen[static_cast<size_t>(std::stoi(by_model))];
  }
  // Random boards need 4 to 11 moves (docs/PUZZLES.md): the answers spread over them.
  EXPECT_GE(*std::max_element(seen.begin(), seen.end()), 1);
  EXPECT_GT(seen[9], 0);
  EXPECT_GT(seen[6], 0);
  fs::remove_all(dir);
}

}  // namespace defined_patterns_test
}  // namespace puzzledb
