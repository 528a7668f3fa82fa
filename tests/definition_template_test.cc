// Definitions with parameters (core/definition/definition_template.h): loops, conditions and
// expressions unrolled for a set of values; every refusal naming the line and the loop
// variables there; a puzzle whose cases carry the values, a table per set; and the twelve
// knobs as data (data/puzzles/knobs.tws) against the knobs model on shipped, held-out and
// random wirings.
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/defined/defined_model.h"
#include "core/defined/defined_puzzle.h"
#include "core/definition/definition_template.h"
#include "core/solver.h"
#include "core/table/table_store.h"
#include "core/util/strings.h"
#include "gtest/gtest.h"
#include "tests/answer_line.h"
#include "tests/definition_brute_force.h"
#include "tests/test_util.h"

namespace puzzledb {
namespace {

std::string Golden(const std::string& name) {
  return testing::ReadFile(std::string(PUZZLEDB_GOLDEN_DIR) + "/" + name);
}

absl::StatusOr<DefinitionTemplate> Read(const std::string& text, TemplateLimits limits = {}) {
  return DefinitionTemplate::Read(text, "t.tws", DefinitionLimits{}, limits);
}

// A one-set puzzle of N dials (the moves written by the test's body) with parameters.
std::string Dials(const std::string& parameters, const std::string& example, const std::string& body) {
  return Cat("Name Dials\n", parameters, "\nExample\n", example, "\nEnd\nSet D 3 4\nSolved\nD\n1 2 3\nEnd\n", body);
}

TEST(DefinitionTemplateTest, LoopsConditionsAndExpressionsUnroll) {
  // The same file but for the line of move X's orientations (its line 25).
  auto with_x = [](const std::string& orientations) {
    return Dials("Parameter W 3 1..3\nParameter S -5..5", "2 3 1\n-3",
                 Cat("For k 1..3\n"
                     "When k != 2 || S < 0\n"
                     "Move T{k}  # {not read}\n"
                     "D\n"
                     "1 2 3\n"
                     "{for p 1..3: p == k || p == W[k] ? 1 : 0}\n"
                     "End\n"
                     "EndWhen\n"
                     "EndFor\n"
                     "Move X\n"
                     "D\n"
                     "1 2 3\n",
                     orientations, "\nEnd\n"));
  };
  // A name that is no loop variable nor parameter: refused with the line.
  auto bad = Read(with_x("{S % 4} {S / 2} {k_absent(0)}"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("t.tws:25:"), std::string::npos) << bad.status();

  const std::string good = with_x("{S % 4} {-S / 2} {(1 + 2) * 3 - 9 + (S > 0 ? W[4] : 0)}");
  auto t = Read(good);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->value_count(), 4u);
  EXPECT_EQ(t->example(), (std::vector<int>{2, 3, 1, -3}));
  std::vector<std::string> names;
  auto text_made = t->Expand(std::vector<int>{2, 3, 1, -3}, &names);
  ASSERT_TRUE(text_made.ok()) << text_made.status();
  // -3 % 4 is 1 (floored), 3 / 2 is 1; W[4] in the branch not taken is not read.
  EXPECT_EQ(*text_made,
            "Name Dials\nSet D 3 4\nSolved\nD\n1 2 3\nEnd\n"
            "Move T1\nD\n1 2 3\n1 1 0\nEnd\n"
            "Move T2\nD\n1 2 3\n0 1 1\nEnd\n"
            "Move T3\nD\n1 2 3\n1 0 1\nEnd\n"
            "Move X\nD\n1 2 3\n1 1 0\nEnd\n");
  ASSERT_EQ(names.size(), 26u);
  EXPECT_EQ(names[6], "15 (k=1)");
  EXPECT_EQ(names[9], "18 (k=1)");
  EXPECT_EQ(names[25], "26");
  // With S 0, T2 is left out; with S positive, W[4] is read, and refused.
  auto other = t->Expand(std::vector<int>{3, 1, 2, 0});
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_EQ(other->find("Move T2"), std::string::npos);
  EXPECT_NE(other->find("Move X\nD\n1 2 3\n0 0 0\n"), std::string::npos) << *other;
  auto read_w4 = t->Expand(std::vector<int>{3, 1, 2, 2});
  ASSERT_FALSE(read_w4.ok());
  EXPECT_EQ(read_w4.status().message(), "t.tws:25: {(1 + 2) * 3 - 9 + (S > 0 ? W[4] : 0)}: W's 1st index is 4; it runs from 1 to 3");
}

TEST(DefinitionTemplateTest, ValuesAreCheckedAndNamed) {
  auto t = Read(Dials("Parameter W 2 3 1..3", "1 2 3\n3 2 1", "Move A\nD\n2 3 1\nEnd\n"));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->Describe(t->example()), "W 1 2 3 | 3 2 1");
  EXPECT_EQ(DefinitionTemplate::FormatValues(t->example()), "1 2 3 3 2 1");
  auto count = t->ParseValues("1 2 3");
  ASSERT_FALSE(count.ok());
  EXPECT_EQ(count.status().message(), "3 values, want 6 (W 2 x 3)");
  auto word = t->ParseValues("1 2 3 3 x 1");
  ASSERT_FALSE(word.ok());
  EXPECT_EQ(word.status().message(), "value 5 is 'x', not a whole number");
  auto range = t->ParseValues("1 2 3 3 2 4");
  ASSERT_FALSE(range.ok());
  EXPECT_EQ(range.status().message(), "value 6 (W[2][3]) is 4; W's values run from 1 to 3");
  auto fine = t->ParseValues(" 3 3 3\t1 1 1 ");
  ASSERT_TRUE(fine.ok()) << fine.status();
  EXPECT_EQ(*fine, (std::vector<int>{3, 3, 3, 1, 1, 1}));
}

// Each refusal: INVALID_ARGUMENT naming the file, the line (and the loop variables' values
// there) and the rule. Nothing crashes or runs away.
TEST(DefinitionTemplateTest, EveryRefusalNamesTheLineAndTheLoopValues) {
  struct Case {
    std::string text;
    std::string wanted;
  };
  const std::string p = "Parameter W 3 1..3";
  const std::string e = "2 3 1";
  auto move = [](const std::string& line) { return Cat("For k 1..3\nMove T{k}\nD\n1 2 3\n", line, "\nEnd\nEndFor\n"); };
  TemplateLimits small;
  small.max_steps = 1000;
  const std::vector<Case> cases = {
      {Dials(p, e, move("{Q[k]} 0 0")), "t.tws:15 (k=1): {Q[k]}: no loop variable or parameter is named Q here (there are: k, W)"},
      {Dials(p, e, move("{W[k + 1]} 0 0")), "t.tws:15 (k=3): {W[k + 1]}: W's 1st index is 4; it runs from 1 to 3"},
      {Dials(p, e, move("{W} 0 0")), "W is a table of 3: give 1 index (W[i]), each from 1"},
      {Dials(p, e, move("{W[1][1]} 0 0")), "W takes 1 index"},
      {Dials(p, e, move("{k / (k - 2)} 0 0")), "t.tws:15 (k=2): {k / (k - 2)}: a division by zero"},
      {Dials(p, e, move("{k % 0} 0 0")), "a division by zero"},
      {Dials(p, e, move("{999999999999 * 999999999999} 0 0")), "a value past 64 bits"},
      {Dials(p, e, move("{1234567890123456789} 0 0")), "has more than 18 digits"},
      {Dials(p, e, move("{k 0 0")), "t.tws:15 (k=1): a '{' with no '}' after it"},
      {Dials(p, e, move("k} 0 0")), "a '}' with no '{' before it"},
      {Dials(p, e, move("{k ? 1} 0 0")), "a '?' with no ':' after it"},
      {Dials(p, e, move("{(k} 0 0")), "a '(' with no ')' after it"},
      {Dials(p, e, move("{k k} 0 0")), "unexpected 'k' after the expression"},
      {Dials(p, e, move("{} 0 0")), "an expression ends where a value is wanted"},
      {Dials(p, e, move(Cat("{", std::string(100, '('), "1", std::string(100, ')'), "} 0 0"))), "nested more than 64 deep"},
      {Dials(p, e, move(Cat("{", std::string(200, '-'), "1} 0 0"))), "nested more than 64 deep"},
      // What the reader refuses in the text made, named by the template's line.
      {Dials(p, e, move("0 0")), "t.tws:15 (k=1): Move T1: set D: 2 orientations, want 3"},
      {Dials(p, e, "For k 1..3\nRequire {W[k] != k} dial {k} turns itself\nEndFor\nMove A\nD\n2 3 1\nEnd\n"),
       ""},  // the example keeps the rule
      {Dials(p, "1 3 1", "For k 1..3\nRequire {W[k] != k} dial {k} turns itself\nEndFor\nMove A\nD\n2 3 1\nEnd\n"),
       "t.tws:12 (k=1): dial 1 turns itself"},
      {Dials(p, "1 3 1", "Require {W[1] == 2}\nMove A\nD\n2 3 1\nEnd\n"), "t.tws:11: Require {W[1] == 2} fails for these values"},
      {Dials(p, e, "For k 1..3\nMove A\nD\n2 3 1\nEnd\n"), "t.tws:11: For: no EndFor closes it"},
      {Dials(p, e, "When 1\nFor k 1..2\nEndWhen\n"), "t.tws:13: EndWhen where the For of line 12 is open"},
      {Dials(p, e, "EndFor\n"), "t.tws:11: EndFor with no For open"},
      {Dials(p, e, "For W 1..2\nEndFor\n"), "For: W is a parameter's name"},
      {Dials(p, e, "For k 1 12\nEndFor\n"), "want a range FROM..TO"},
      {Dials(p, e, "For 1k 1..2\nEndFor\n"), "want For VAR FROM..TO"},
      {Dials(p, e, "Require W[1] > 0\n"), "want Require {EXPR} MESSAGE"},
      {Dials(p, e, "When\n"), "want When EXPR"},
      {Dials(p, e, "For k 1..2\nParameter V 1..2\nEndFor\n"), "Parameter: inside a For or When block"},
      {Dials(Cat(p, "\nParameter W 1..2"), e, ""), "t.tws:3: Parameter W: given again (first at line 2)"},
      {Dials("Parameter W 3 5..1", e, ""), "want the range of its values last, LOW..HIGH"},
      {Dials("Parameter W 0 1..3", e, ""), "the size '0' is not a whole number from 1 to 4096"},
      {Dials("Parameter W 64 65 1..3", e, ""), "more than 4096 values in all"},
      {Dials("Parameter 3W 1..3", e, ""), "the name '3W' is not 1 to 32 letters"},
      {Dials(p, "2 3", ""), "t.tws:3: Example: 2 values, want 3 (W 3)"},
      {Dials(p, "2 3 7", ""), "t.tws:3: Example: value 3 (W[3]) is 7; W's values run from 1 to 3"},
      {Cat("Name X\n", p, "\nSet D 3 4\n"), "t.tws: no Example"},
      {Cat("Name X\n", p, "\nExample\n2 3 1\n"), "t.tws:3: Example: no End after its values"},
      {Dials(p, e, "Example\nEnd\n"), "t.tws:11: Example: given again (first at line 3)"},
      {Dials(p, e, "For i 1..1000000000\nEndFor\n"), "more than 1000 lines, loop turns and values in all"},
      {Dials(p, e, "Move A\nD\n2 3 1\n{for i 1..100000: i}\nEnd\n"), "more than 1000 lines, loop turns and values in all"},
      {Dials(p, e, "Move A\nD\n2 3 1\n{for i 1.2: i}\nEnd\n"), "want a range FROM..TO"},
      {Dials(p, e, "Move A\nD\n2 3 1\n{for 1..2: i}\nEnd\n"), "want {for VAR FROM..TO: EXPR}"},
      {Cat("Name X\n", p, "\x01\n"), "t.tws:2: a control character (byte 1)"},
  };
  for (const Case& c : cases) {
    auto t = Read(c.text, small);
    if (c.wanted.empty()) {
      EXPECT_TRUE(t.ok()) << c.text << "\n" << t.status();
      continue;
    }
    ASSERT_FALSE(t.ok()) << c.text;
    EXPECT_TRUE(absl::IsInvalidArgument(t.status())) << t.status();
    EXPECT_NE(t.status().message().find(c.wanted), std::string::npos) << c.text << "\ngot: " << t.status().message()
                                                                      << "\nwanted: " << c.wanted;
    EXPECT_EQ(t.status().message().rfind("t.tws", 0), 0u) << t.status();
  }
  // The text made may not pass the definition's size.
  DefinitionLimits tiny;
  tiny.max_file_bytes = 200;
  auto big = DefinitionTemplate::Read(Dials(p, e, "For i 1..100\n# a comment\nName N{i}\nEndFor\n"), "t.tws", tiny);
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.status().message().find("passes 200 bytes"), std::string::npos) << big.status();
  EXPECT_FALSE(DefinitionTemplate::Declares("Name X\n# Parameter W 1..2\nSet D 3 4\n"));
  EXPECT_TRUE(DefinitionTemplate::Declares("Name X\n  Parameter W 1..2\n"));
}

std::shared_ptr<const Puzzle> MakeFamily(const std::string& name, const std::string& text) {
  auto made = MakeDefinedPuzzle(name, text, name + ".tws", kDefaultMaxDefinedStates);
  EXPECT_TRUE(made.ok()) << made.status();
  return made.ok() ? *made : nullptr;
}

// A definition with parameters made a puzzle: each case carries its values, each set of
// values is its own puzzle with its own table; answers from the tables, and by search where
// a set has none, are the brute force's of that set's definition.
TEST(DefinitionTemplateTest, APuzzleWithParametersHasATablePerSetOfValues) {
  const std::string text = Golden("definitions/wired3.tws");
  const auto puzzle = MakeFamily("wired3", text);
  ASSERT_NE(puzzle, nullptr);
  EXPECT_TRUE(puzzle->has_parameters());
  EXPECT_EQ(puzzle->definition(), text);
  EXPECT_EQ(puzzle->FormatCompact(puzzle->Goal(nullptr)), "2 3 1 3 ; 1 2 3 / 0 0 0");
  auto a = puzzle->ParseCompact("2 3 1 3 ; 1 2 3 / 1 2 0");
  auto b = puzzle->ParseCompact("3 1 2 5;1 2 3/4 4 0");
  auto b_goal = puzzle->ParseCompact("3 1 2 5 ;");
  ASSERT_TRUE(a.ok() && b.ok() && b_goal.ok()) << a.status() << b.status() << b_goal.status();
  EXPECT_EQ(puzzle->FormatCompact(*b), "3 1 2 5 ; 1 2 3 / 4 4 0");
  EXPECT_EQ(puzzle->FormatCompact(*b_goal), "3 1 2 5 ; 1 2 3 / 0 0 0");
  EXPECT_TRUE(puzzle->SameParameters(*b, *b_goal));
  EXPECT_FALSE(puzzle->SameParameters(*a, *b));
  EXPECT_TRUE(puzzle->IsGoal(*b_goal));
  const std::string id_a = puzzle->TableId(*a), id_b = puzzle->TableId(*b);
  EXPECT_NE(id_a, id_b);
  EXPECT_EQ(id_a, puzzle->TableId(puzzle->Goal(nullptr)));
  EXPECT_EQ(id_a.rfind("wired3-", 0), 0u);
  EXPECT_EQ(id_a.size(), 7u + 16);
  // Refusals name what is wrong.
  struct Bad {
    std::string compact, wanted;
  };
  for (const Bad& bad : std::vector<Bad>{
           {"1 2 3 / 0 0 0", "the wired3 puzzle's cases carry parameters: give their values, then ';', then the state"},
           {"2 3 1 ; 1 2 3 / 0 0 0", "the parameters: 3 values, want 4 (W 3, N 1)"},
           {"2 3 1 9 ; 1 2 3 / 0 0 0", "the parameters: value 4 (N) is 9; N's values run from 2 to 5"},
           {"1 3 1 3 ; 1 2 3 / 0 0 0", "wired3.tws:23 (k=1): dial 1 is wired to itself"},
           {"2 3 1 3 ; 1 2 3 / 0 0 3", "orientation"},
       }) {
    auto p = puzzle->ParseCompact(bad.compact);
    ASSERT_FALSE(p.ok()) << bad.compact;
    EXPECT_TRUE(absl::IsInvalidArgument(p.status())) << p.status();
    EXPECT_NE(p.status().message().find(bad.wanted), std::string::npos) << bad.compact << ": " << p.status();
  }
  // A table for each of two sets; the third is searched.
  const std::string dir = testing::TempPath("template_family");
  std::filesystem::remove_all(dir);
  auto opened = TableStore::Open(dir, TableStore::Mode::kReadWrite);
  ASSERT_TRUE(opened.ok()) << opened.status();
  std::shared_ptr<TableStore> store(*std::move(opened));
  auto built_a = puzzle->Build(*a, *store, BuildOptions{});
  auto built_b = puzzle->Build(*b, *store, BuildOptions{});
  ASSERT_TRUE(built_a.ok() && built_b.ok()) << built_a.status() << built_b.status();
  EXPECT_EQ(built_a->table_id(), id_a);
  EXPECT_EQ(built_b->table_id(), id_b);
  EXPECT_EQ(built_a->state_count(), 27u);
  EXPECT_EQ(built_b->state_count(), 125u);
  EXPECT_NE(built_b->parameters_text().find("parameters W 3 1 2; N 5"), std::string::npos) << built_b->parameters_text();
  Solver solver(store);
  std::mt19937_64 rng(77);
  for (const std::string values : {"2 3 1 3", "3 1 2 5", "3 3 1 4", "2 1 2 2"}) {
    auto goal = puzzle->ParseCompact(values + " ;");
    ASSERT_TRUE(goal.ok()) << goal.status();
    const int n = std::stoi(values.substr(values.rfind(' ') + 1));
    auto read = ReadAnyDefinition(text, "wired3.tws");
    auto t = DefinitionTemplate::Read(text, "wired3.tws");
    ASSERT_TRUE(t.ok());
    auto parsed = t->ParseValues(values);
    ASSERT_TRUE(parsed.ok());
    auto d = t->Instantiate(*parsed);
    ASSERT_TRUE(d.ok()) << d.status();
    const testing::BruteForce all(*d);
    EXPECT_LE(all.size(), static_cast<size_t>(n * n * n)) << values;
    EXPECT_GE(all.size(), static_cast<size_t>(n * n)) << values;
    const bool tabled = values == "2 3 1 3" || values == "3 1 2 5";
    for (int i = 0; i < 30; ++i) {
      const Position p = puzzle->Random(*goal, rng);
      ASSERT_TRUE(puzzle->SameParameters(p, *goal));
      const std::string compact = puzzle->FormatCompact(p);
      auto state = d->ParseCompact(compact.substr(compact.find(';') + 1));
      ASSERT_TRUE(state.ok()) << compact;
      const int distance = all.DistanceOf(*state);
      // (Without a table, a state that reaches no goal is searched until the limits: the
      // invariants the index knows do not prove every such state unsolvable.)
      if (!tabled && distance < 0) continue;
      const std::string line =
          testing::AnswerLine(solver, *puzzle, p, tabled ? Policy::kTableOnly : Policy::kSearchOnly);
      EXPECT_EQ(line.substr(0, line.find(' ')), distance < 0 ? "no answer" : std::to_string(distance)) << compact << ": " << line;
    }
  }
  // Served again from the database alone: the puzzle made from a set's record reads the
  // other set's table too.
  auto stored = PuzzleOfStoredDefinition(*built_b, store->dir());
  ASSERT_TRUE(stored.ok() && *stored != nullptr) << stored.status();
  EXPECT_TRUE((*stored)->has_parameters());
  auto again = (*stored)->GoalOfStoredParameters(built_a->parameters());
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ((*stored)->TableId(*again), id_a);
  EXPECT_TRUE((*stored)->Verify(*store, *built_a, 2).ok());
  EXPECT_TRUE((*stored)->Verify(*store, *built_b, 2).ok());
  // Another file of the same name is not this family: its tables are refused.
  const auto other = MakeFamily("wired3", text + "# another file\n");
  ASSERT_NE(other, nullptr);
  auto foreign = other->GoalOfStoredParameters(built_b->parameters());
  ASSERT_FALSE(foreign.ok());
  EXPECT_NE(foreign.status().message().find("another definition of wired3"), std::string::npos) << foreign.status();
  std::filesystem::remove_all(dir);
}

// A program keeps the data of at most DefinedFamily::kMaxMembers sets of values of one
// definition (positions point to it): past them, a new set is RESOURCE_EXHAUSTED, saying
// so, while the sets made still serve.
TEST(DefinitionTemplateTest, AProgramKeepsABoundedNumberOfSetsOfValues) {
  const auto puzzle = MakeFamily("onedial", "Parameter S 0..100000\nExample\n0\nEnd\nName Dial {S}\nSet D 1 2\nSolved\nD\n1\nEnd\n"
                                            "Move A\nD\n1\n1\nEnd\n");
  ASSERT_NE(puzzle, nullptr);
  const int made = static_cast<int>(DefinedFamily::kMaxMembers);
  for (int s = 1; s <= made; ++s) {
    auto p = puzzle->ParseCompact(Cat(s, " ; 1 / 1"));
    ASSERT_TRUE(p.ok()) << s << ": " << p.status();
  }
  auto more = puzzle->ParseCompact(Cat(made + 1, " ;"));
  ASSERT_FALSE(more.ok());
  EXPECT_TRUE(absl::IsResourceExhausted(more.status())) << more.status();
  EXPECT_NE(more.status().message().find("as many sets of parameter values of onedial as it keeps (4096"),
            std::string::npos)
      << more.status();
  auto old = puzzle->ParseCompact("17 ; 1 / 1");
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_EQ(puzzle->FormatCompact(*old), "17 ; 1 / 1");
}

// Threads that ask for the same new sets of values at once get one puzzle per set: the
// family makes each once under its lock, and every thread's positions share it.
TEST(DefinitionTemplateTest, ThreadsRacingForNewValuesShareOneSetEach) {
  const auto puzzle = MakeFamily("racedial", "Parameter S 0..100000\nExample\n0\nEnd\nName Dial {S}\nSet D 1 2\nSolved\nD\n1\nEnd\n"
                                             "Move A\nD\n1\n1\nEnd\n");
  ASSERT_NE(puzzle, nullptr);
  constexpr int kThreads = 4, kSets = 300;
  std::vector<std::vector<Position>> seen(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int s = 1; s <= kSets; ++s) {
        auto p = puzzle->ParseCompact(Cat((s * 7 + t) % kSets + 1, " ; 1 / 1"));
        if (p.ok()) seen[static_cast<size_t>(t)].push_back(*p);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  std::map<std::string, Position> by_values;
  for (const auto& one : seen) {
    ASSERT_EQ(one.size(), static_cast<size_t>(kSets));
    for (const Position& p : one) {
      const std::string compact = puzzle->FormatCompact(p);
      auto [it, fresh] = by_values.emplace(compact.substr(0, compact.find(';')), p);
      if (!fresh) EXPECT_TRUE(puzzle->SameParameters(it->second, p)) << compact;
    }
  }
  EXPECT_EQ(by_values.size(), static_cast<size_t>(kSets));
}

// One knobs wiring as the knobs model reads it (its original input, the states ignored) and
// as data/puzzles/knobs.tws's values.
struct Wiring {
  std::vector<int> targets;  // 48 knob numbers
  std::string name;
};

std::vector<int> WiringOf(const std::string& original) {
  std::vector<int> numbers;
  std::istringstream in(original);
  for (int knob = 0, v = 0; knob < 12; ++knob) {
    in >> v;  // the state
    for (int s = 0; s < 4; ++s) {
      in >> v;
      numbers.push_back(v);
    }
  }
  return numbers;
}

// The twelve knobs as data: on the wirings shipped (data/params/knobs/), the held-out one of
// tests/golden/ (knobs_9101) and random ones, every turn of thousands of random states
// lands where the model's does, the goal is the model's, and a state of odd sum is proved
// unsolvable by both; a wiring that turns a knob itself is refused naming the line.
TEST(DefinitionTemplateTest, TheKnobsAsDataTurnAsTheModelOnEveryWiring) {
  const auto data = MakeFamily("knobs_as_data", testing::DataPuzzle("knobs.tws"));
  ASSERT_NE(data, nullptr);
  const Puzzle* model = FindPuzzle("knobs");
  ASSERT_NE(model, nullptr);
  std::vector<Wiring> wirings;
  for (const std::string name : {"knobs_9001.in", "knobs_9002.in", "knobs_9003.in", "knobs_9101_unsolvable.in"}) {
    wirings.push_back({WiringOf(Golden(name)), name});
  }
  std::mt19937_64 rng(5507);
  for (int r = 0; r < 4; ++r) {
    Wiring w{{}, Cat("random ", r)};
    for (int knob = 1; knob <= 12; ++knob) {
      for (int s = 0; s < 4; ++s) {
        int other = 1 + static_cast<int>(rng() % 11);
        if (other >= knob) ++other;
        w.targets.push_back(other);
      }
    }
    wirings.push_back(std::move(w));
  }
  Solver solver;
  std::set<std::string> ids;
  for (const Wiring& w : wirings) {
    std::vector<int> knobs(12);
    auto model_text = [&] {
      std::string text;
      for (int k = 0; k < 12; ++k) {
        text += Cat(k ? " " : "", knobs[static_cast<size_t>(k)]);
        for (int s = 0; s < 4; ++s) text += Cat(" ", w.targets[static_cast<size_t>(4 * k + s)]);
      }
      return text;
    };
    auto data_text = [&] {
      std::vector<int> twists;
      for (const int k : knobs) twists.push_back(k - 1);
      return Cat(Join(w.targets, " "), " ; 1 2 3 4 5 6 7 8 9 10 11 12 / ", Join(twists, " "));
    };
    auto knobs_of = [](const Puzzle& puzzle, const Position& p) {
      std::vector<int> cells = puzzle.Cells(p);
      std::vector<int> shown;
      for (const int c : cells) shown.push_back(c % 256 + 1);  // the data's orientation
      return shown;
    };
    int checked = 0;
    for (int i = 0; i < 3000; ++i) {
      for (int& k : knobs) k = 1 + static_cast<int>(rng() % 4);
      auto m = model->ParseCompact(model_text());
      auto d = data->ParseCompact(data_text());
      ASSERT_TRUE(m.ok()) << m.status();
      ASSERT_TRUE(d.ok()) << w.name << ": " << d.status();
      ids.insert(data->TableId(*d));
      EXPECT_EQ(model->IsGoal(*m), data->IsGoal(*d));
      for (int move = 0; move < 12; ++move) {
        Position after_m, after_d;
        ASSERT_TRUE(model->Apply(*m, move, &after_m));
        ASSERT_TRUE(data->Apply(*d, move, &after_d)) << w.name << " move " << move;
        EXPECT_EQ(data->MoveName(*d, move), model->MoveName(*m, move));
        std::vector<int> expected;
        const std::string compact = model->FormatCompact(after_m);
        std::istringstream in(compact);
        for (int k = 0, v = 0; k < 12; ++k) {
          in >> v;
          expected.push_back(v);
          for (int s = 0; s < 4; ++s) in >> v;
        }
        ASSERT_EQ(knobs_of(*data, after_d), expected) << w.name << ": " << data_text() << " move " << move;
        ++checked;
      }
      // A state of odd sum: both prove it unsolvable at once (no table, no search).
      int sum = 0;
      for (const int k : knobs) sum += k - 1;
      if (sum % 2 == 1 && i % 100 == 1) {
        SolveOptions options;
        options.policy = Policy::kSearchOnly;
        auto by_model = solver.Solve(*m, options);
        auto by_data = solver.Solve(*d, options);
        ASSERT_TRUE(by_model.ok() && by_data.ok()) << by_model.status() << by_data.status();
        EXPECT_EQ(by_model->outcome, Outcome::kUnsolvable);
        EXPECT_EQ(by_data->outcome, Outcome::kUnsolvable) << w.name << ": " << data_text();
      }
    }
    EXPECT_EQ(checked, 3000 * 12);
  }
  EXPECT_EQ(ids.size(), wirings.size()) << "a table per wiring";
  // A knob wired to itself: refused, naming the Require line and the knob.
  std::vector<int> self = wirings[0].targets;
  self[4 * 6 + 2] = 7;
  auto refused = data->ParseCompact(Cat(Join(self, " "), " ;"));
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("knobs_as_data.tws:37 (k=7, s=3): knob 7 is wired to itself for value 3"),
            std::string::npos)
      << refused.status();
}

}  // namespace
}  // namespace puzzledb
