// A definition made a puzzle (core/defined/): built into a table, answered through the same
// Puzzle interface and solver as the built-in puzzles, stored with its table and served
// again from the database alone.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/defined/defined_puzzle.h"
#include "core/definition/read_definition.h"
#include "core/solver.h"
#include "core/table/table_builder.h"
#include "core/table/table_store.h"
#include "core/util/strings.h"
#include "gtest/gtest.h"
#include "tests/answer_line.h"
#include "tests/definition_brute_force.h"
#include "tests/test_util.h"

namespace puzzledb {
namespace {

std::string SampleText(const std::string& name) {
  return testing::ReadFile(std::string(PUZZLEDB_GOLDEN_DIR) + "/definitions/" + name);
}

std::shared_ptr<const Puzzle> Make(const std::string& name, const std::string& text,
                                   uint64_t max_states = kDefaultMaxDefinedStates) {
  auto puzzle = MakeDefinedPuzzle(name, text, name + ".tws", max_states);
  EXPECT_TRUE(puzzle.ok()) << name << ": " << puzzle.status();
  return puzzle.ok() ? *puzzle : nullptr;
}

std::unique_ptr<TableStore> OpenStore(const std::string& name) {
  const std::string dir = testing::TempPath(name);
  std::filesystem::remove_all(dir);
  auto store = TableStore::Open(dir, TableStore::Mode::kReadWrite);
  EXPECT_TRUE(store.ok()) << store.status();
  return store.ok() ? *std::move(store) : nullptr;
}

// The original output of every case of `in`, solved from the tables.
std::string Answer(const Puzzle& puzzle, Solver& solver, const std::string& in) {
  std::string out;
  for (const auto& one : puzzle.ParseOriginal(in)) {
    if (!one.instance.ok()) return Cat("case ", one.number, ": ", Message(one.instance.status()));
    SolveOptions options;
    options.policy = Policy::kTableOnly;
    auto solution = solver.Solve(*one.instance, options);
    if (!solution.ok()) return Cat("case ", one.number, ": ", Message(solution.status()));
    out += puzzle.FormatOriginalAnswer(*one.instance, *solution);
  }
  return out;
}

// Every sample, built into a table and answered from it: its golden output, and the table
// checked against a fresh search.
TEST(DefinedPuzzleTest, TheSamplesAnswerTheirGoldenCasesFromTables) {
  auto store = OpenStore("defined_samples");
  ASSERT_NE(store, nullptr);
  std::shared_ptr<TableStore> shared(std::move(store));
  for (const std::string name : {"slide32", "pancake5", "dials3", "cube2urf"}) {
    const auto puzzle = Make(name, SampleText(name + ".tws"));
    ASSERT_NE(puzzle, nullptr);
    EXPECT_EQ(puzzle->name(), name);
    auto built = puzzle->Build(puzzle->Goal(nullptr), *shared, BuildOptions{});
    ASSERT_TRUE(built.ok()) << name << ": " << built.status();
    EXPECT_TRUE(built->complete());
    Solver solver(shared);
    EXPECT_EQ(Answer(*puzzle, solver, SampleText(name + ".in")), SampleText(name + ".out")) << name;
    EXPECT_TRUE(puzzle->Verify(*shared, *built, 2).ok()) << name;
  }
}

// A definition whose table keeps a class of positions per entry (twocolour33.tws: a turn
// by 180 degrees with the colours exchanged, layout 4) still samples and counts positions:
// at each distance the population is the brute force's count of positions and a sample of
// all of them is exactly those positions; the optimal solutions of every position are the
// brute force's paths, and the positions on them its positions.
TEST(DefinedPuzzleTest, ATableOfClassesSamplesAndCountsPositions) {
  auto store = OpenStore("defined_classes");
  ASSERT_NE(store, nullptr);
  std::shared_ptr<TableStore> shared(std::move(store));
  const std::string text = SampleText("twocolour33.tws");
  const auto puzzle = Make("twocolour33", text);
  ASSERT_NE(puzzle, nullptr);
  EXPECT_EQ(puzzle->table_entries(), "positions up to the definition's symmetries (a group of 2), one entry for each class of them");
  auto built = puzzle->Build(puzzle->Goal(nullptr), *shared, BuildOptions{});
  ASSERT_TRUE(built.ok()) << built.status();
  EXPECT_EQ(built->state_count(), 5u * 70) << "the empty cell's 9 places in 5 classes";
  Solver solver(shared);
  auto read = ReadDefinition(text, "twocolour33.tws");
  ASSERT_TRUE(read.ok());
  const testing::BruteForce all(*read);
  std::map<int, std::set<std::string>> at;  // positions by distance
  std::map<std::string, int> distance;
  for (size_t i = 0; i < all.size(); ++i) {
    const std::string compact = read->FormatCompact(all.states()[i]);
    at[all.distance(i)].insert(compact);
    distance[compact] = all.distance(i);
  }
  for (const auto& [d, positions] : at) {
    auto sample = puzzle->Sample(solver, puzzle->Goal(nullptr), d, 1000, 7, SearchLimits{});
    ASSERT_TRUE(sample.ok()) << sample.status();
    EXPECT_EQ(sample->population, positions.size()) << "distance " << d;
    std::set<std::string> drawn;
    for (const Position& p : sample->positions) drawn.insert(puzzle->FormatCompact(p));
    EXPECT_EQ(drawn.size(), sample->positions.size()) << "distinct, at distance " << d;
    EXPECT_EQ(drawn, positions) << "distance " << d;
    // Half of them: distinct, at that distance.
    auto half = puzzle->Sample(solver, puzzle->Goal(nullptr), d, (positions.size() + 1) / 2, 8, SearchLimits{});
    ASSERT_TRUE(half.ok());
    std::set<std::string> some;
    for (const Position& p : half->positions) {
      some.insert(puzzle->FormatCompact(p));
      EXPECT_TRUE(positions.contains(puzzle->FormatCompact(p)));
    }
    EXPECT_EQ(some.size(), (positions.size() + 1) / 2);
  }
  // Optimal solutions: paths down the brute force's distances.
  std::map<std::string, std::pair<uint64_t, std::set<std::string>>> memo;  // paths, positions on them
  std::function<const std::pair<uint64_t, std::set<std::string>>&(const DefinedState&)> paths =
      [&](const DefinedState& s) -> const std::pair<uint64_t, std::set<std::string>>& {
    const std::string key = read->FormatCompact(s);
    if (auto it = memo.find(key); it != memo.end()) return it->second;
    std::pair<uint64_t, std::set<std::string>> found{distance[key] == 0 ? 1 : 0, {key}};
    DefinedState next;
    for (int m = 0; m < static_cast<int>(read->moves().size()); ++m) {
      if (!read->Apply(s, m, &next) || distance[read->FormatCompact(next)] != distance[key] - 1) continue;
      const auto& below = paths(next);
      found.first += below.first;
      found.second.insert(below.second.begin(), below.second.end());
    }
    return memo[key] = found;
  };
  for (size_t i = 0; i < all.size(); i += 7) {
    auto position = puzzle->ParseCompact(read->FormatCompact(all.states()[i]));
    ASSERT_TRUE(position.ok());
    const TableStep step = puzzle->FromTables(solver, *position, 0);
    ASSERT_TRUE(step.answer.has_value());
    auto counted = puzzle->Optimal(solver, *position, step, 0, SearchLimits{});
    ASSERT_TRUE(counted.ok()) << counted.status();
    const auto& brute = paths(all.states()[i]);
    EXPECT_EQ(static_cast<uint64_t>(counted->count), brute.first) << read->FormatCompact(all.states()[i]);
    EXPECT_EQ(counted->states, brute.second.size()) << read->FormatCompact(all.states()[i]);
  }
}

// Move sequences played from the goal: the golden scrambles' answers, and each scramble's
// position the same as its compact form's.
TEST(DefinedPuzzleTest, ScramblesAreTheirPositions) {
  auto store = OpenStore("defined_scrambles");
  std::shared_ptr<TableStore> shared(std::move(store));
  const auto puzzle = Make("cube2urf", SampleText("cube2urf.tws"));
  ASSERT_NE(puzzle, nullptr);
  ASSERT_TRUE(puzzle->Build(puzzle->Goal(nullptr), *shared, BuildOptions{}).ok());
  Solver solver(shared);
  std::string out;
  for (const auto& one : puzzle->ParseScrambles(SampleText("cube2urf_scramble.in"))) {
    ASSERT_TRUE(one.instance.ok()) << one.instance.status();
    const auto compact = puzzle->ParseCompact(puzzle->FormatCompact(*one.instance));
    ASSERT_TRUE(compact.ok());
    SolveOptions options;
    options.policy = Policy::kTableOnly;
    const auto solved = solver.Solve(*one.instance, options);
    const auto again = solver.Solve(*compact, options);
    ASSERT_TRUE(solved.ok() && again.ok());
    EXPECT_EQ(solved->moves, again->moves);
    out += puzzle->FormatOriginalAnswer(*one.instance, *solved);
  }
  EXPECT_EQ(out, SampleText("cube2urf_scramble.out"));
  // A move of no such name, and one that does not apply (a guarded move where the blank
  // is not), named with the case and the line.
  const auto bad = puzzle->ParseScrambles("U R\nU X F\n");
  ASSERT_EQ(bad.size(), 2u);
  EXPECT_TRUE(bad[0].instance.ok());
  EXPECT_EQ(bad[1].instance.status().message(),
            "case 2, line 2: move 2: 'X' is no move of the cube2urf puzzle there (its moves: U U2 "
            "U' R R2 R' F F2 F'): 'U X F'");
  const auto slide = Make("slide_scramble", SampleText("slide32.tws"));
  ASSERT_NE(slide, nullptr);
  EXPECT_EQ(slide->ParseScrambles("U D D\n")[0].instance.status().message(),
            "case 1, line 1: move 3: 'D' does not apply there: 'U D D'");
  // A one-way puzzle (a frog that only steps right, into the empty cell): no move applies at
  // its goal, where every sequence starts, and the refusal says so.
  const auto frog = Make("oneway", "Set S 2 1\nSolved\nS\n2 1\nEnd\nMove R\nIf S 1 1\nS\n2 1\nEnd\n");
  ASSERT_NE(frog, nullptr);
  EXPECT_EQ(frog->ParseScrambles("R\n")[0].instance.status().message(),
            "case 1, line 1: move 1: 'R' does not apply there (no move applies at the goal, where a "
            "sequence starts: the oneway puzzle's moves lead only towards it; give the position in "
            "its compact form): 'R'");
  const auto compact = frog->ParseOriginal("1 2\n");
  ASSERT_EQ(compact.size(), 1u);
  ASSERT_TRUE(compact[0].instance.ok()) << compact[0].instance.status();
  EXPECT_EQ(frog->FormatCompact(*compact[0].instance), "1 2");
}

// The tests' own reading of a twisty definition (Set lines and unguarded Move blocks, no
// more), and its moves applied as twsearch applies them, with nothing of core/definition/:
// position j takes the piece from p_j, whose orientation gains o_{p_j} (by piece), or, read
// the old way, o_j (by destination).
class TwistySimulator {
 public:
  struct Set {
    std::string name;
    int size = 0, orientations = 1;
  };
  struct Part {
    std::vector<int> from, twist;  // 0-based sources; orientations as written (all 0 if none)
  };
  // A state: per set, the labels then the orientations.
  using State = std::vector<std::vector<int>>;

  TwistySimulator(const std::string& text, bool by_piece) : by_piece_(by_piece) {
    std::istringstream in(text);
    std::string line;
    std::vector<std::vector<std::string>> lines;
    while (std::getline(in, line)) {
      if (const size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
      std::istringstream words(line);
      std::vector<std::string> tokens;
      for (std::string w; words >> w;) tokens.push_back(w);
      if (!tokens.empty()) lines.push_back(tokens);
    }
    for (size_t i = 0; i < lines.size(); ++i) {
      if (lines[i][0] == "Set") {
        sets_.push_back({lines[i][1], std::stoi(lines[i][2]), std::stoi(lines[i][3])});
      } else if (lines[i][0] == "Move") {
        names_.push_back(lines[i][1]);
        std::vector<Part> move(sets_.size());
        for (size_t s = 0; s < sets_.size(); ++s) {
          for (int j = 0; j < sets_[s].size; ++j) move[s].from.push_back(j);
          move[s].twist.assign(static_cast<size_t>(sets_[s].size), 0);
        }
        // Each set it changes: its name, its sources, maybe its orientations; then End.
        for (++i; lines[i][0] != "End"; ++i) {
          size_t s = 0;
          while (sets_[s].name != lines[i][0]) ++s;
          const auto number = [&](size_t line, int j) { return std::stoi(lines[line][static_cast<size_t>(j)]); };
          for (int j = 0; j < sets_[s].size; ++j) move[s].from[static_cast<size_t>(j)] = number(i + 1, j) - 1;
          ++i;
          if (std::isdigit(static_cast<unsigned char>(lines[i + 1][0][0]))) {
            for (int j = 0; j < sets_[s].size; ++j) move[s].twist[static_cast<size_t>(j)] = number(i + 1, j);
            ++i;
          }
        }
        moves_.push_back(move);
      }
    }
  }

  State Goal() const {
    State s;
    for (const Set& set : sets_) {
      std::vector<int> v;
      for (int j = 0; j < set.size; ++j) v.push_back(j + 1);
      for (int j = 0; j < set.size; ++j) v.push_back(0);
      s.push_back(v);
    }
    return s;
  }
  State Apply(const State& s, size_t move) const {
    State out = s;
    for (size_t k = 0; k < sets_.size(); ++k) {
      const int n = sets_[k].size;
      const Part& part = moves_[move][k];
      for (int j = 0; j < n; ++j) {
        const int from = part.from[static_cast<size_t>(j)];
        const int twist = part.twist[static_cast<size_t>(by_piece_ ? from : j)];
        out[k][static_cast<size_t>(j)] = s[k][static_cast<size_t>(from)];
        out[k][static_cast<size_t>(n + j)] = (s[k][static_cast<size_t>(n + from)] + twist) % sets_[k].orientations;
      }
    }
    return out;
  }
  // "U R' F" played from `s`: each name a move, or its inverse with '.
  State Play(State s, const std::string& sequence) const {
    std::istringstream words(sequence);
    for (std::string w; words >> w;) {
      const bool inverse = w.back() == '\'';
      if (inverse) w.pop_back();
      const size_t m = static_cast<size_t>(std::find(names_.begin(), names_.end(), w) - names_.begin());
      EXPECT_LT(m, names_.size()) << w;
      if (m >= names_.size()) return s;
      if (!inverse) {
        s = Apply(s, m);
        continue;
      }
      // The inverse: the state the move's cycle through s passes just before s.
      for (State t = s;;) {
        State next = Apply(t, m);
        if (next == s) {
          s = t;
          break;
        }
        t = std::move(next);
      }
    }
    return s;
  }
  std::string Compact(const State& s) const {
    std::vector<std::string> parts;
    for (size_t k = 0; k < sets_.size(); ++k) {
      const int n = sets_[k].size;
      std::vector<int> labels(s[k].begin(), s[k].begin() + n), twists(s[k].begin() + n, s[k].end());
      parts.push_back(sets_[k].orientations > 1 ? Cat(Join(labels, " "), " / ", Join(twists, " "))
                                                : Join(labels, " "));
    }
    return Join(parts, " | ");
  }
  // Every state's distance from the goal, each power of a move counting one (breadth first
  // from the goal: the powers hold every move's inverse).
  std::map<State, int> Distances() const {
    std::map<State, int> d{{Goal(), 0}};
    std::vector<State> layer{Goal()};
    for (int depth = 1; !layer.empty(); ++depth) {
      std::vector<State> next;
      for (const State& s : layer) {
        for (size_t m = 0; m < moves_.size(); ++m) {
          for (State t = Apply(s, m); t != s; t = Apply(t, m)) {
            if (d.emplace(t, depth).second) next.push_back(t);
          }
        }
      }
      layer.swap(next);
    }
    return d;
  }

 private:
  bool by_piece_;
  std::vector<Set> sets_;
  std::vector<std::vector<Part>> moves_;
  std::vector<std::string> names_;
};

// Move orientations are read by piece, as twsearch reads them (docs/PUZZLES.md, section 7).
// On a file whose moves twist a cycle's pieces unevenly, every scramble is the position the
// tests' own reading gives, at the distance it gives, which is twsearch's too
// (uneven_twsearch.txt), and so is the census; every answer replays to the goal. Read the
// old way (by destination) the file is another puzzle, and the rewrite a migration makes of
// it (RewriteLegacyTwists) is that other puzzle read today's way.
TEST(DefinedPuzzleTest, MoveOrientationsAreReadByPieceAsTwsearchReadsThem) {
  const std::string text = SampleText("uneven.tws");
  std::vector<uint64_t> census;  // twsearch's
  std::vector<int> distances;
  {
    std::istringstream in(SampleText("uneven_twsearch.txt"));
    for (std::string line; std::getline(in, line);) {
      std::istringstream words(line);
      std::string what;
      words >> what;
      for (uint64_t v; (what == "census" || what == "distances") && words >> v;) {
        if (what == "census") census.push_back(v);
        else distances.push_back(static_cast<int>(v));
      }
    }
  }
  std::vector<std::string> scrambles;
  {
    std::istringstream in(SampleText("uneven_scramble.in"));
    for (std::string line; std::getline(in, line);) scrambles.push_back(line);
  }
  ASSERT_EQ(census.size(), 9u);
  ASSERT_EQ(scrambles.size(), distances.size());
  const TwistySimulator by_piece(text, /*by_piece=*/true), by_destination(text, /*by_piece=*/false);
  const auto census_of = [](const std::map<TwistySimulator::State, int>& distance) {
    std::vector<uint64_t> counts;
    for (const auto& [state, d] : distance) {
      if (counts.size() <= static_cast<size_t>(d)) counts.resize(static_cast<size_t>(d) + 1, 0);
      ++counts[static_cast<size_t>(d)];
    }
    return counts;
  };
  const auto distance = by_piece.Distances();
  const auto old_distance = by_destination.Distances();
  EXPECT_EQ(census_of(distance), census) << "the tests' own reading counts what twsearch counts";
  EXPECT_NE(census_of(old_distance), census) << "read by destination, the file is another puzzle";

  auto store = OpenStore("defined_uneven");
  std::shared_ptr<TableStore> shared(std::move(store));
  const auto puzzle = Make("uneven", text);
  ASSERT_NE(puzzle, nullptr);
  const auto built = puzzle->Build(puzzle->Goal(nullptr), *shared, BuildOptions{});
  ASSERT_TRUE(built.ok()) << built.status();
  EXPECT_EQ(std::vector<uint64_t>(built->histogram().begin(), built->histogram().end()), census);
  Solver solver(shared);
  SolveOptions options;
  options.policy = Policy::kTableOnly;
  const auto cases = puzzle->ParseScrambles(SampleText("uneven_scramble.in"));
  ASSERT_EQ(cases.size(), scrambles.size());
  int told_apart = 0;  // scrambles whose distance the old reading gets wrong
  for (size_t i = 0; i < cases.size(); ++i) {
    ASSERT_TRUE(cases[i].instance.ok()) << cases[i].instance.status();
    const auto state = by_piece.Play(by_piece.Goal(), scrambles[i]);
    EXPECT_EQ(puzzle->FormatCompact(*cases[i].instance), by_piece.Compact(state)) << scrambles[i];
    const auto solved = solver.Solve(*cases[i].instance, options);
    ASSERT_TRUE(solved.ok()) << solved.status();
    EXPECT_EQ(solved->distance, distances[i]) << scrambles[i] << ": twsearch's distance";
    EXPECT_EQ(solved->distance, distance.at(state)) << scrambles[i];
    std::string answer;
    for (const uint8_t m : solved->moves) answer += puzzle->MoveName(*cases[i].instance, m) + " ";
    EXPECT_EQ(by_piece.Play(state, answer), by_piece.Goal()) << scrambles[i] << ": " << answer;
    const auto old_state = by_destination.Play(by_destination.Goal(), scrambles[i]);
    told_apart += old_distance.at(old_state) != distances[i];
  }
  EXPECT_GE(told_apart, 5) << "the scrambles tell the readings apart";

  // What a migration makes of the file read the old way: the old reading's positions.
  const auto legacy = RewriteLegacyTwists(text, "uneven.tws");
  ASSERT_TRUE(legacy.ok()) << legacy.status();
  EXPECT_NE(*legacy, text);
  const auto old_puzzle = Make("uneven_old", *legacy);
  ASSERT_NE(old_puzzle, nullptr);
  const auto old_cases = old_puzzle->ParseScrambles(SampleText("uneven_scramble.in"));
  ASSERT_EQ(old_cases.size(), scrambles.size());
  for (size_t i = 0; i < old_cases.size(); ++i) {
    ASSERT_TRUE(old_cases[i].instance.ok());
    EXPECT_EQ(old_puzzle->FormatCompact(*old_cases[i].instance),
              by_destination.Compact(by_destination.Play(by_destination.Goal(), scrambles[i])))
        << scrambles[i];
  }
  // Only the orientation lines change, in place; comments, blank lines and CRs stay.
  const auto kept = RewriteLegacyTwists("# a cube\r\nSet C 3 3\r\nSolved\r\nC\r\n1 2 3\r\nEnd\r\n"
                                        "Move M  # turns\r\nC\r\n  2 3 1\r\n\t1 2 0   # by destination\r\nEnd\r\n",
                                        "crlf.tws");
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_EQ(*kept, "# a cube\r\nSet C 3 3\r\nSolved\r\nC\r\n1 2 3\r\nEnd\r\n"
                   "Move M  # turns\r\nC\r\n  2 3 1\r\n\t0 1 2   # by destination\r\nEnd\r\n");
  EXPECT_EQ(RewriteLegacyTwists("Set C 3 3\nMove", "bad.tws").status().message(),
            "bad.tws:2: Move takes one name (Move U), got 0 words");
}

// Every reachable state of each small definition, and thousands drawn at random from its
// index (reachable or not), answered from its table through the Puzzle interface, against
// the brute force: the distance and the lexicographically smallest moves, or -1.
TEST(DefinedPuzzleTest, RandomStatesAgreeWithTheBruteForce) {
  auto store = OpenStore("defined_random");
  std::shared_ptr<TableStore> shared(std::move(store));
  const std::string strip =  // several goals, identical pieces, guarded moves
      "Set S 5 1\nSolved\nS\n1 1 2 2 3\nEnd\nSolved\nS\n2 2 1 1 3\nEnd\n"
      "Move L\nIf S 5 3\nS\n1 2 3 5 4\nEnd\nMove L\nIf S 4 3\nS\n1 2 4 3 5\nEnd\n"
      "Move L\nIf S 3 3\nS\n1 3 2 4 5\nEnd\nMove L\nIf S 2 3\nS\n2 1 3 4 5\nEnd\n"
      "Move J\nIf S 1 3\nS\n3 2 1 4 5\nEnd\nMove J\nIf S 3 3\nS\n3 2 1 4 5\nEnd\n";
  const std::string turns =  // orientations, a sum kept, powers
      "Set C 4 3\nSolved\nC\n1 2 3 4\nEnd\nMove A\nC\n2 3 1 4\n0 1 2 0\nEnd\n"
      "Move B\nC\n1 3 4 2\n0 2 0 1\nEnd\n";
  struct Case {
    std::string name, text;
    // The table's entries: 2 bits a state where every block has its way back (the blank's
    // steps of slide32, unguarded moves), a byte where one has none (the strip's L moves
    // the blank left only; a dial turns one way), or a byte because the table was stored so
    // before.
    TableEncoding encoding = storage::v1::DISTANCE_MOD3;
    std::optional<TableEncoding> stored;
  };
  std::mt19937_64 rng(50);
  constexpr TableEncoding kMod3 = storage::v1::DISTANCE_MOD3, kByte = storage::v1::DISTANCE_BYTE;
  for (const Case& c : {Case{"r_slide", SampleText("slide32.tws"), kMod3, std::nullopt},
                        Case{"r_slide_bytes", SampleText("slide32.tws"), kByte, kByte},
                        Case{"r_pancake", SampleText("pancake5.tws"), kMod3, std::nullopt},
                        Case{"r_dials", SampleText("dials3.tws"), kByte, std::nullopt},
                        Case{"r_strip", strip, kByte, std::nullopt},
                        Case{"r_turns", turns, kMod3, std::nullopt},
                        // Goals that leave cells to any piece; single moves (R, S) without
                        // powers, so with no way back: a byte a state.
                        Case{"r_columns", SampleText("columns23.tws"), kByte, std::nullopt}}) {
    auto definition = ReadDefinition(c.text, c.name + ".tws");
    ASSERT_TRUE(definition.ok()) << c.name << ": " << definition.status();
    const testing::BruteForce all(*definition);
    auto made = MakeDefinedPuzzle(c.name, c.text, c.name + ".tws", kDefaultMaxDefinedStates,
                                  DefinedTableKind::kComplete, c.stored);
    ASSERT_TRUE(made.ok()) << c.name << ": " << made.status();
    const auto built = (*made)->Build((*made)->Goal(nullptr), *shared, BuildOptions{});
    ASSERT_TRUE(built.ok()) << c.name;
    EXPECT_EQ(built->encoding(), c.encoding) << c.name;
    // Served as a stored definition is: the puzzle made from the table's record.
    auto stored = PuzzleOfStoredDefinition(*built, shared->dir());
    ASSERT_TRUE(stored.ok() && *stored != nullptr) << c.name << ": " << stored.status();
    const std::shared_ptr<const Puzzle> puzzle = *stored;
    const std::vector<uint64_t> census = all.Histogram();
    EXPECT_EQ(std::vector<uint64_t>(built->histogram().begin(), built->histogram().end()), census)
        << c.name << ": the states that reach a goal, at each distance";
    Solver solver(shared);
    SolveOptions options;
    options.policy = Policy::kTableOnly;
    auto answer = [&](const Position& p) {
      const auto solved = solver.Solve(p, options);
      EXPECT_TRUE(solved.ok()) << c.name << ": " << solved.status();
      std::string line = puzzle->FormatOriginalAnswer(p, *solved);
      line.pop_back();
      return line;
    };
    for (const DefinedState& s : all.states()) {
      const auto p = puzzle->ParseCompact(definition->FormatCompact(s));
      ASSERT_TRUE(p.ok());
      ASSERT_EQ(answer(*p), all.Answer(s)) << c.name << ": " << definition->FormatCompact(s);
    }
    for (int i = 0; i < 3000; ++i) {
      const Position p = puzzle->Random(puzzle->Goal(nullptr), rng);
      auto s = definition->ParseCompact(puzzle->FormatCompact(p));
      ASSERT_TRUE(s.ok());
      ASSERT_EQ(answer(p), all.Answer(*s)) << c.name << ": " << definition->FormatCompact(*s);
    }
  }
}

// data/puzzles/knight.tws, the knight swap written from its rules, moves as the built-in
// model does: from thousands of random boards, the same moves by name to the same boards.
// (Its census, built in minutes: bench/builtin_as_data.sh.)
TEST(DefinedPuzzleTest, TheKnightAsDataMovesAsTheModel) {
  const std::string text =
      testing::DataPuzzle("knight.tws");
  const auto data = Make("knight_as_data", text, 0);
  ASSERT_NE(data, nullptr);
  const Puzzle* model = FindPuzzle("knight");
  ASSERT_NE(model, nullptr);
  // The model's board (25 of '1', '0', '*') as the definition's labels (1, 2, 3).
  auto as_data = [&](const Position& p) {
    std::string labels;
    for (const char c : model->FormatCompact(p)) {
      if (!labels.empty()) labels += ' ';
      labels += c == '1' ? '1' : c == '0' ? '2' : '3';
    }
    auto parsed = data->ParseCompact(labels);
    EXPECT_TRUE(parsed.ok()) << labels << ": " << parsed.status();
    return parsed.ok() ? data->FormatCompact(*parsed) : std::string();
  };
  EXPECT_EQ(as_data(model->Goal(nullptr)), data->FormatCompact(data->Goal(nullptr)));
  std::mt19937_64 rng(65);
  for (int i = 0; i < 3000; ++i) {
    const Position p = model->Random(model->Goal(nullptr), rng);
    auto q = data->ParseCompact(as_data(p));
    ASSERT_TRUE(q.ok());
    std::set<std::pair<std::string, std::string>> by_model, by_data;
    Position next;
    for (int m = 0; m < model->move_count(); ++m) {
      if (model->Apply(p, m, &next)) by_model.insert({model->MoveName(p, m), as_data(next)});
    }
    for (int m = 0; m < data->move_count(); ++m) {
      if (data->Apply(*q, m, &next)) by_data.insert({data->MoveName(*q, m), data->FormatCompact(next)});
    }
    ASSERT_EQ(by_data, by_model) << model->FormatCompact(p);
  }
}

// data/puzzles/cube2.tws, the 2x2x2 written from section 6's rules, has the model's census
// and answers as the model does: from 3,000 positions each reached by the same 25 random
// moves (by name) on both, the same distance and the same moves (the lexicographically
// smallest optimal ones), from both complete tables.
TEST(DefinedPuzzleTest, TheCubeAsDataAnswersAsTheModel) {
  const std::string text =
      testing::DataPuzzle("cube2.tws");
  const auto data = Make("cube2_as_data", text);
  ASSERT_NE(data, nullptr);
  const Puzzle* model = FindPuzzle("cube2");
  ASSERT_NE(model, nullptr);
  ASSERT_EQ(data->move_count(), model->move_count());
  auto store = OpenStore("cube2_as_data_db");
  ASSERT_NE(store, nullptr);
  std::shared_ptr<TableStore> shared(std::move(store));
  auto built_model = model->Build(model->Goal(nullptr), *shared, BuildOptions{});
  ASSERT_TRUE(built_model.ok()) << built_model.status();
  auto built_data = data->Build(data->Goal(nullptr), *shared, BuildOptions{});
  ASSERT_TRUE(built_data.ok()) << built_data.status();
  EXPECT_EQ(std::vector<uint64_t>(built_data->histogram().begin(), built_data->histogram().end()),
            std::vector<uint64_t>(built_model->histogram().begin(), built_model->histogram().end()));
  Solver solver(shared);
  auto answer = [&solver](const Puzzle& puzzle, const Position& p) {
    return testing::AnswerLine(solver, puzzle, p, Policy::kTableOnly);
  };
  std::mt19937_64 rng(65);
  std::set<int> distances;
  for (int i = 0; i < 3000; ++i) {
    Position p = model->Goal(nullptr), q = data->Goal(nullptr), next;
    for (int k = 0; k < 25; ++k) {
      const int m = static_cast<int>(rng() % static_cast<uint64_t>(model->move_count()));
      ASSERT_EQ(data->MoveName(q, m), model->MoveName(p, m));
      ASSERT_TRUE(model->Apply(p, m, &next));
      p = next;
      ASSERT_TRUE(data->Apply(q, m, &next));
      q = next;
    }
    const std::string by_model = answer(*model, p);
    ASSERT_EQ(answer(*data, q), by_model) << model->FormatCompact(p) << " / " << data->FormatCompact(q);
    distances.insert(std::stoi(by_model));
  }
  EXPECT_GE(distances.size(), 6u) << "positions at many distances";
}

// data/puzzles/eight.tws, the 8-puzzle written from its rules, answers as the built-in
// model does from both complete tables: the same distance and the same moves by name (the
// lexicographically smallest optimal ones) for every fifth board of all 9! placements, and
// no answer where the model has none.
TEST(DefinedPuzzleTest, TheEightAsDataAnswersAsTheModel) {
  const std::string text =
      testing::DataPuzzle("eight.tws");
  const auto data = Make("eight_as_data", text);
  ASSERT_NE(data, nullptr);
  const Puzzle* model = FindPuzzle("eight");
  ASSERT_NE(model, nullptr);
  auto store = OpenStore("eight_as_data_db");
  ASSERT_NE(store, nullptr);
  std::shared_ptr<TableStore> shared(std::move(store));
  ASSERT_TRUE(model->Build(model->Goal(nullptr), *shared, BuildOptions{}).ok());
  ASSERT_TRUE(data->Build(data->Goal(nullptr), *shared, BuildOptions{}).ok());
  Solver solver(shared);
  auto answer = [&solver](const Puzzle& puzzle, const Position& p) {
    return testing::AnswerLine(solver, puzzle, p, Policy::kTableOnly);
  };
  std::string cells = "012345678";
  int solved = 0;
  for (int board = 0; std::next_permutation(cells.begin(), cells.end()); ++board) {
    if (board % 5 != 0) continue;
    auto p = model->ParseCompact(cells);
    ASSERT_TRUE(p.ok()) << cells << ": " << p.status();
    std::string labels;
    for (const char c : cells) labels += Cat(labels.empty() ? "" : " ", c == '0' ? 9 : c - '0');
    auto q = data->ParseCompact(labels);
    ASSERT_TRUE(q.ok()) << labels << ": " << q.status();
    const std::string by_model = answer(*model, *p);
    ASSERT_EQ(answer(*data, *q), by_model) << cells;
    solved += by_model != "no answer" ? 1 : 0;
  }
  EXPECT_GT(solved, 30000);  // half of every fifth of 9!
}

TEST(DefinedPuzzleTest, TheCubeAsDataHasSectionSixsCensus) {
  auto store = OpenStore("defined_cube");
  const auto puzzle = Make("cube2urf", SampleText("cube2urf.tws"));
  ASSERT_NE(puzzle, nullptr);
  auto built = puzzle->Build(puzzle->Goal(nullptr), *store, BuildOptions{});
  ASSERT_TRUE(built.ok()) << built.status();
  std::vector<uint64_t> census(built->histogram().begin(), built->histogram().end());
  EXPECT_EQ(census, (std::vector<uint64_t>{1, 9, 54, 321, 1847, 9992, 50136, 227536, 870072,
                                           1887748, 623800, 2644}));
  EXPECT_EQ(built->encoding(), storage::v1::DISTANCE_MOD3);
  EXPECT_EQ(built->state_count(), 3674160u);
}

// A server started on the database knows the puzzle from the stored definition alone;
// a definition whose stored text fails its checksum is not served.
TEST(DefinedPuzzleTest, StoredDefinitionsAreServedWithoutTheirFiles) {
  auto store = OpenStore("defined_stored");
  ASSERT_NE(store, nullptr);
  const std::string text = SampleText("slide32.tws");
  {
    const auto puzzle = Make("stored_slide", text);
    ASSERT_NE(puzzle, nullptr);
    ASSERT_TRUE(puzzle->Build(puzzle->Goal(nullptr), *store, BuildOptions{}).ok());
  }
  EXPECT_EQ(FindPuzzle("stored_slide"), nullptr) << "made, not registered";
  std::vector<std::string> logged;
  EXPECT_EQ(RegisterStoredDefinitions(*store, [&](std::string_view line) { logged.emplace_back(line); }), 1);
  EXPECT_TRUE(logged.empty()) << logged[0];
  const Puzzle* served = FindPuzzle("stored_slide");
  ASSERT_NE(served, nullptr);
  std::shared_ptr<TableStore> shared(std::move(store));
  Solver solver(shared);
  EXPECT_EQ(Answer(*served, solver, SampleText("slide32.in")), SampleText("slide32.out"));
  DefinitionSummary summary;
  ASSERT_TRUE(SummarizeDefinition(*served, &summary));
  EXPECT_EQ(summary.file, "stored_slide.tws");
  EXPECT_EQ(summary.text_crc32, Crc32(text));
  EXPECT_EQ(summary.moves, "U D L R");
  // Registering again changes nothing.
  EXPECT_EQ(RegisterStoredDefinitions(*shared, nullptr), 0);
}

// What a server lists is input too: a definition that breaks a rule, one under a built-in
// name and one under a bad name are each refused naming the puzzle and the rule; the good
// one beside them is registered and reads states as the server would.
TEST(DefinedPuzzleTest, ListedDefinitionsAreCheckedAsFilesAre) {
  std::vector<std::string> logged;
  const std::vector<std::pair<std::string, std::string>> listed = {
      {"listed_bad", "Set T 3 1\nSolved\nT\n1 2 3\nEnd\nMove X\nT\n1 1 3\nEnd\n"},
      {"knight", SampleText("pancake5.tws")},
      {"Bad Name", SampleText("pancake5.tws")},
      {"listed_pancake", SampleText("pancake5.tws")},
      {"listed_empty", ""},
  };
  EXPECT_EQ(RegisterListedDefinitions(listed, [&](std::string_view line) { logged.emplace_back(line); }), 1);
  ASSERT_EQ(logged.size(), 2u);  // knight is known here: the built-in one stays, unasked
  EXPECT_NE(logged[0].find("the server's puzzle listed_bad cannot be read here: listed_bad.tws:8: Move X: set T: position 1 given twice"),
            std::string::npos)
      << logged[0];
  EXPECT_NE(logged[1].find("the server's puzzle Bad Name cannot be read here: the name 'Bad Name' is not"),
            std::string::npos)
      << logged[1];
  EXPECT_EQ(FindPuzzle("listed_bad"), nullptr);
  EXPECT_EQ(FindPuzzle("listed_empty"), nullptr);
  EXPECT_EQ(FindPuzzle("knight")->definition(), "");
  const Puzzle* pancake = FindPuzzle("listed_pancake");
  ASSERT_NE(pancake, nullptr);
  EXPECT_TRUE(pancake->ParseCompact("5 4 3 2 1").ok());
}

TEST(DefinedPuzzleTest, NamesAndBoundsAreChecked) {
  const std::string text = SampleText("pancake5.tws");
  EXPECT_EQ(MakeDefinedPuzzle("Pancake", text, "p.tws", kDefaultMaxDefinedStates).status().message(),
            "the name 'Pancake' is not 1 to 32 of a-z, 0-9 and _, not starting with _");
  EXPECT_EQ(MakeDefinedPuzzle("knight", text, "p.tws", kDefaultMaxDefinedStates).status().message(),
            "the name knight is a built-in puzzle's; give the definition another (--name)");
  EXPECT_EQ(MakeDefinedPuzzle("pancake", text, "p.tws", 100, DefinedTableKind::kComplete)
                .status()
                .message(),
            "p.tws: its states need an index of 120 numbers (P placements 120), more than the "
            "limit of 100 for a complete table");
  // Left to choose, a definition too large for a complete table is searched with pattern
  // tables, and says why.
  auto guided = MakeDefinedPuzzle("pancake", text, "p.tws", 100);
  ASSERT_TRUE(guided.ok()) << guided.status();
  EXPECT_TRUE((*guided)->pattern_tables());
  DefinitionSummary summary;
  ASSERT_TRUE(SummarizeDefinition(**guided, &summary));
  EXPECT_TRUE(summary.patterns);
  EXPECT_EQ(summary.index, "none: its states need an index of 120 numbers (P placements 120), "
                           "more than the limit of 100 for a complete table");
  // A state past what a complete table's walk holds (56 bytes) gets pattern tables, and
  // says why; one past a kilobyte is refused.
  std::string wide = "Set A 5 1\nSet F 60 1\nSolved\nA\n1 2 3 4 5\nF\n";
  for (int i = 1; i <= 60; ++i) wide += Cat(i, " ");
  wide += "\nEnd\nMove X\nA\n2 3 1 4 5\nEnd\nMove Y\nA\n1 2 4 5 3\nEnd\n";
  EXPECT_EQ(MakeDefinedPuzzle("wide", wide, "w.tws", kDefaultMaxDefinedStates, DefinedTableKind::kComplete)
                .status()
                .message(),
            "w.tws: a state takes 65 bytes (a byte for each position, and one more for each that "
            "turns), more than the 56 a complete table's walk holds; pattern tables take up to 1016");
  auto wide_guided = MakeDefinedPuzzle("wide", wide, "w.tws", kDefaultMaxDefinedStates);
  ASSERT_TRUE(wide_guided.ok()) << wide_guided.status();
  ASSERT_TRUE(SummarizeDefinition(**wide_guided, &summary));
  EXPECT_TRUE(summary.patterns);
  EXPECT_NE(summary.index.find("more than the 56 a complete table's walk holds"), std::string::npos) << summary.index;
  std::string huge;
  for (int set = 0; set < 5; ++set) huge += Cat("Set S", set, " 204 1\n");
  huge += "Solved\n";
  for (int set = 0; set < 5; ++set) {
    huge += Cat("S", set, "\n");
    for (int i = 1; i <= 204; ++i) huge += Cat(i, " ");
    huge += "\n";
  }
  huge += "End\nMove X\nS0\n2 1";
  for (int i = 3; i <= 204; ++i) huge += Cat(" ", i);
  huge += "\nEnd\n";
  EXPECT_EQ(MakeDefinedPuzzle("huge", huge, "h.tws", kDefaultMaxDefinedStates).status().message(),
            "h.tws: a state takes 1020 bytes (a byte for each position, and one more for each "
            "that turns); a puzzle here holds at most 1016");
  EXPECT_EQ(DefinedNameOf("/x/y/Cube2URF.tws"), "cube2urf");
  EXPECT_EQ(DefinedNameOf("lo33"), "lo33");
}

}  // namespace
}  // namespace puzzledb
