// The live search of a definition (core/defined/defined_ida.h) over projection tables
// (core/defined/projection_table.h), against the tests' own breadth-first search: on every
// reachable state of small definitions (guarded moves, several goals, identical pieces,
// orientations) the same distance and the same moves (the lexicographically smallest
// optimal answer), with no table, with one and with two; each table's bound at most the
// distance everywhere; the node budget and cancellation end a search that cannot finish.
#include <algorithm>
#include <atomic>
#include <functional>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "core/defined/defined_census.h"
#include "core/defined/defined_ida.h"
#include "core/defined/defined_symmetry.h"
#include "core/definition/read_definition.h"
#include "core/util/strings.h"
#include "core/util/thread_lender.h"
#include "gtest/gtest.h"
#include "tests/definition_brute_force.h"
#include "tests/test_util.h"

namespace puzzledb {
namespace defined_ida_test {

using testing::BruteForce;

std::string SampleText(const std::string& name) {
  return testing::ReadFile(std::string(PUZZLEDB_GOLDEN_DIR) + "/definitions/" + name);
}

// Several goals, identical pieces, guarded moves.
const char kStrip[] =
    "Set S 5 1\nSolved\nS\n1 1 2 2 3\nEnd\nSolved\nS\n2 2 1 1 3\nEnd\n"
    "Move L\nIf S 5 3\nS\n1 2 3 5 4\nEnd\nMove L\nIf S 4 3\nS\n1 2 4 3 5\nEnd\n"
    "Move L\nIf S 3 3\nS\n1 3 2 4 5\nEnd\nMove L\nIf S 2 3\nS\n2 1 3 4 5\nEnd\n"
    "Move J\nIf S 1 3\nS\n3 2 1 4 5\nEnd\nMove J\nIf S 3 3\nS\n3 2 1 4 5\nEnd\n";
// Two sets, one with orientations; moves of order 3 (A, A2, B, B2).
const char kTwo[] =
    "Set C 4 3\nSet E 3 1\nSolved\nC\n1 2 3 4\n0 0 0 0\nE\n1 2 3\nEnd\n"
    "Move A\nC\n2 3 1 4\n0 1 2 0\nE\n2 3 1\nEnd\n"
    "Move B\nC\n1 3 4 2\n0 2 0 1\nE\n1 2 3\nEnd\n";

// X and Y commute (they move different sets), Z commutes with neither: the search never
// tries X right after Y, and still finds the smallest optimal answer.
const char kCommuting[] =
    "Set A 3 1\nSet B 4 1\nSolved\nA\n1 2 3\nB\n1 2 3 4\nEnd\n"
    "Move X\nA\n2 3 1\nEnd\n"
    "Move Y\nB\n2 3 4 1\nEnd\n"
    "Move Z\nA\n2 1 3\nB\n2 1 3 4\nEnd\n";

std::string Line(const Definition& d, const DefinedIdaResult& r) {
  if (!r.solved) return "-1";
  std::string line = std::to_string(r.moves.size());
  for (int m : r.moves) line += " " + d.moves()[static_cast<size_t>(m)].name;
  return line;
}

TEST(DefinedIdaTest, AnswersAreTheBruteForcesWithAndWithoutTables) {
  struct Case {
    std::string name, text;
    std::vector<std::string> projections;
    int farthest_searched;  // the states searched with tables: those this far at most
    bool sum = false;       // two tables: their bounds added (they are MoveDisjoint)
  };
  // strip: every state its moves reach from a goal reaches none (answered -1, the tables'
  // bound unreachable).
  const std::vector<Case> cases = {
      {"slide32", SampleText("slide32.tws"), {"T 1,2,6", "T 3-6"}, 99},
      {"pancake5", SampleText("pancake5.tws"), {"P 1-3", "P 3-5"}, 99},
      {"dials3", SampleText("dials3.tws"), {"D -o", "D"}, 99},
      {"strip", kStrip, {"S 3", "S 1,3"}, 99},
      {"two", kTwo, {"C -o", "C 1-2; E 1"}, 99},
      {"commuting", kCommuting, {"A", "B 1-2"}, 99},
      // The blank told apart in neither: a move carries one tile, seen by one table.
      {"slide32 summed", SampleText("slide32.tws"), {"T 1-2", "T 3-5"}, 99, true},
      // The blank free in both: each counts its own tiles' moves, the blank's path seen.
      {"slide32 free", SampleText("slide32.tws"), {"T 1-2 ~6", "T 3-5 ~6"}, 99, true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto d = ReadDefinition(c.text, c.name + ".tws");
    ASSERT_TRUE(d.ok()) << d.status();
    const BruteForce all(*d);
    std::vector<ProjectionTable> tables;
    for (const std::string& text : c.projections) {
      auto spec = ParseProjection(text, *d);
      ASSERT_TRUE(spec.ok()) << spec.status();
      DefinedSearchOptions one_thread;
      one_thread.threads = 1;
      auto table = ProjectionTable::Build(*d, *spec, 1 << 20, one_thread);
      ASSERT_TRUE(table.ok()) << text << ": " << table.status();
      tables.push_back(*std::move(table));
    }
    // Each bound (and, summed, their sum) is admissible and finite on every reachable
    // state.
    std::vector<ProjectionSpec> specs;
    for (const ProjectionTable& t : tables) specs.push_back(t.spec());
    ASSERT_EQ(MoveDisjoint(*d, specs), c.sum);
    DefinedState scratch;
    int strictly_more = 0;  // states where the sum beats the largest
    for (size_t i = 0; i < all.size(); ++i) {
      if (all.distance(i) < 0) continue;  // reached from a goal, but reaching none
      int total = 0, largest = 0;
      for (const ProjectionTable& t : tables) {
        const int bound = t.Bound(all.states()[i], &scratch);
        ASSERT_LE(bound, all.distance(i))
            << FormatProjection(t.spec()) << ": " << d->FormatCompact(all.states()[i]);
        total += bound;
        largest = std::max(largest, bound);
      }
      if (c.sum) {
        ASSERT_LE(total, all.distance(i)) << "summed: " << d->FormatCompact(all.states()[i]);
      }
      strictly_more += total > largest;
    }
    if (c.sum) {
      EXPECT_GT(strictly_more, 0) << "the sum should say more than the largest somewhere";
    }
    std::vector<std::vector<const ProjectionTable*>> sets = {{}, {&tables[0]}, {&tables[0], &tables[1]}};
    // And with a perimeter of a few layers (of up to 30 states: its answers' ends walked
    // down it).
    const DefinedPerimeter perimeter(*d, CompiledMoves(*d), 30);
    // And with the duplicate block sequences pruned (those of up to 8 blocks).
    const DefinedPruning pruning = DefinedPruning::Find(*d, CompiledMoves(*d), 8);
    std::cout << c.name << ": " << pruning.patterns().size() << " duplicate sequences of up to "
              << pruning.searched_length() << " blocks, " << pruning.states() << " states\n";
    for (const bool pruned : {false, true}) {
    for (const bool near : {false, true}) {
      for (const auto& set : sets) {
        DefinedIdaOptions options;
        options.max_depth = all.farthest();
        options.sum = c.sum;
        options.perimeter = near ? &perimeter : nullptr;
        options.pruning = pruned ? &pruning : nullptr;
        uint64_t nodes = 0;
        for (size_t i = 0; i < all.size(); ++i) {
          // Plain iterative deepening only where it ends soon.
          if (all.distance(i) > (set.empty() ? 8 : c.farthest_searched)) continue;
          auto found = DefinedIdaStar(*d, set, all.states()[i], options);
          ASSERT_TRUE(found.ok()) << found.status();
          ASSERT_EQ(Line(*d, *found), all.Answer(all.states()[i]))
              << set.size() << " tables" << (near ? ", a perimeter" : "")
              << (pruned ? ", pruned: " : ": ") << d->FormatCompact(all.states()[i]);
          nodes += found->nodes;
        }
        std::cout << c.name << ", " << set.size() << " tables" << (near ? " and a perimeter of radius " : "")
                  << (near ? std::to_string(perimeter.radius()) : "") << (pruned ? ", pruned" : "") << ": " << nodes
                  << " states generated, " << all.size() << " states, farthest " << all.farthest() << "\n";
      }
    }
    }
  }
}

// With no table, a state of the other parity sends the search as deep as it may go: the
// budget ends it, and so does cancellation.
// A projection with a free piece (the blank): its table holds, for each placement of the
// tiles told apart, the fewest moves of those tiles over every path, the blank's own moves
// free, the least over where the blank is. Checked against the tests' own relaxation over
// the projection that tells the blank apart (0-1 costs, Bellman-Ford rounds), entry by
// entry as every reachable state of the puzzle reads it; and never below the table of the
// same tiles with the blank merged, above it somewhere.
TEST(DefinedIdaTest, AFreePiecesTableIsTheLeastOverItsPlacesOfTheCountedMoves) {
  struct Case {
    std::string file, free, merged;
    bool every_entry_reached = true;  // else the parity of the free piece's leaves some out
    std::string drop = "";  // a move whose blocks are taken out: the others have no way back
  };
  for (const Case& c : std::vector<Case>{{"slide32.tws", "T 1-2 ~6", "T 1-2"},
                                         {"slide32.tws", "T 2,4-5 ~6", "T 2,4-5"},
                                         // One merged piece: the two indexes do not fold
                                         // (a byte a state, then the least taken); the
                                         // projection with the blank apart keeps a parity.
                                         {"slide32.tws", "T 1-4 ~6", "T 1-4", false},
                                         {"slide44.tws", "T 1-2,5 ~16", "T 1-2,5"},
                                         // The blank never steps down: the free moves'
                                         // closure is taken in rounds, not by groups.
                                         {"slide32.tws", "T 1-2 ~6", "T 1-2", false, "D"}}) {
    SCOPED_TRACE(c.free + (c.drop.empty() ? "" : ", no move " + c.drop));
    std::string text = SampleText(c.file);
    if (!c.drop.empty()) {
      const std::string head = "Move " + c.drop + "\n";
      for (size_t at; (at = text.find(head)) != std::string::npos;) text.erase(at, text.find("End\n", at) + 4 - at);
    }
    auto d = ReadDefinition(text, c.file);
    ASSERT_TRUE(d.ok()) << d.status();
    EXPECT_EQ(CompiledMoves(*d).undirected(), c.drop.empty());
    auto spec = ParseProjection(c.free, *d);
    ASSERT_TRUE(spec.ok()) << spec.status();
    EXPECT_EQ(FormatProjection(*spec), c.free);
    auto apart = Projection::Make(*d, *spec);
    ASSERT_TRUE(apart.ok()) << apart.status();
    const Definition& e = apart->projected();
    const std::vector<bool>& counted = apart->counted();
    ASSERT_FALSE(counted.empty());
    const int told = static_cast<int>(spec->sets[0].pieces.size());
    // The projection's own states and its 0-1 distances.
    const BruteForce states(e);
    std::vector<int> distance(states.size(), 1 << 20);
    std::map<std::string, size_t> at;
    for (size_t i = 0; i < states.size(); ++i) at[BruteForce::Key(states.states()[i])] = i;
    for (const DefinedState& goal : e.goals()) distance[at.at(BruteForce::Key(goal))] = 0;
    DefinedState next;
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t i = 0; i < states.size(); ++i) {
        const DefinedState& s = states.states()[i];
        for (int m = 0; m < static_cast<int>(e.moves().size()); ++m) {
          if (!e.Apply(s, m, &next)) continue;
          int cost = 0;
          for (size_t b = 0; b < s.size(); ++b) cost |= s[b] != next[b] && counted[s[b]] ? 1 : 0;
          const auto there = at.find(BruteForce::Key(next));
          if (there == at.end()) continue;
          if (distance[there->second] + cost < distance[i]) {
            distance[i] = distance[there->second] + cost;
            changed = true;
          }
        }
      }
    }
    // The least over the free piece's places: by the state with it merged.
    std::map<std::string, int> least;
    for (size_t i = 0; i < states.size(); ++i) {
      DefinedState merged = states.states()[i];
      for (uint8_t& label : merged) label = static_cast<uint8_t>(std::min(label, static_cast<uint8_t>(told + 1)));
      auto [it, fresh] = least.emplace(BruteForce::Key(merged), distance[i]);
      if (!fresh) it->second = std::min(it->second, distance[i]);
    }
    DefinedSearchOptions two_threads;
    two_threads.threads = 2;
    auto table = ProjectionTable::Build(*d, *spec, 1 << 24, two_threads);
    ASSERT_TRUE(table.ok()) << table.status();
    auto plain = ProjectionTable::Build(*d, *ParseProjection(c.merged, *d), 1 << 24, two_threads);
    ASSERT_TRUE(plain.ok()) << plain.status();
    if (c.every_entry_reached) {
      EXPECT_EQ(table->entries(), least.size());
    } else {
      EXPECT_GT(table->entries(), least.size());
    }
    EXPECT_EQ(table->entries(), plain->entries());
    // Every state of slide32; 3,000 of slide44, each a random walk of 300 moves.
    std::vector<DefinedState> puzzle;
    if (c.file == "slide32.tws") {
      puzzle = BruteForce(*d).states();
    } else {
      std::mt19937 random(51);
      for (int k = 0; k < 3000; ++k) {
        DefinedState s = d->goals()[0], moved;
        for (int step = 0; step < 300; ++step) {
          if (d->Apply(s, static_cast<int>(random() % d->moves().size()), &moved)) s = moved;
        }
        puzzle.push_back(s);
      }
    }
    DefinedState scratch, laid;
    int above = 0;
    for (const DefinedState& s : puzzle) {
      table->projection().Project(s, &laid);
      const int want = least.at(BruteForce::Key(laid));
      ASSERT_EQ(table->Bound(s, &scratch), want) << d->FormatCompact(s);
      const int weaker = plain->Bound(s, &scratch);
      ASSERT_LE(weaker, want) << d->FormatCompact(s);
      above += want > weaker ? 1 : 0;
    }
    EXPECT_GT(above, 0) << "the blank's detours should count somewhere";
  }
  // What free pieces need, refused with the rule.
  auto d = ReadDefinition(SampleText("slide32.tws"), "slide32.tws");
  ASSERT_TRUE(d.ok());
  auto clash = Projection::Make(*d, *ParseProjection("T 1-2 ~2", *d));
  EXPECT_EQ(clash.status().message(), "projection: set T: label 2 is told apart and free at once");
  auto all = Projection::Make(*d, *ParseProjection("T ~6", *d));
  EXPECT_EQ(all.status().message(),
            "projection: set T: free pieces (~6) need a projection of that set alone, its "
            "orientations left out (-o), with the labels whose moves count told apart");
}

// A perimeter that disagrees with the moves (here one of another puzzle over the same
// pieces: five in a row turned by rotations, searched with the pancakes' flips) is never
// followed: its answer's end is walked step by step as every walk down is, and the search
// fails DATA_LOSS rather than return moves that reach no goal.
TEST(DefinedIdaTest, APerimeterThatDisagreesWithTheMovesIsNeverFollowed) {
  auto pancakes = ReadDefinition(SampleText("pancake5.tws"), "pancake5.tws");
  ASSERT_TRUE(pancakes.ok()) << pancakes.status();
  auto turns = ReadDefinition("Set P 5 1\nSolved\nP\n1 2 3 4 5\nEnd\nMove R\nP\n2 3 4 5 1\nEnd\n",
                              "turns.tws");
  ASSERT_TRUE(turns.ok()) << turns.status();
  ASSERT_EQ(pancakes->sets()[0].name, "P") << "the same pieces, the same state bytes";
  const DefinedPerimeter other(*turns, CompiledMoves(*turns), 100);
  ASSERT_GE(other.radius(), 1);
  const auto start = pancakes->ParseCompact("2 3 4 5 1");  // one turn from the goal
  ASSERT_TRUE(start.ok()) << start.status();
  ASSERT_EQ(other.Distance(*start), 1);
  DefinedIdaOptions options;
  options.max_depth = 10;
  options.perimeter = &other;
  const auto found = DefinedIdaStar(*pancakes, {}, *start, options);
  ASSERT_FALSE(found.ok()) << Line(*pancakes, *found);
  EXPECT_EQ(found.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(found.status().message(),
            "the definition's perimeter is inconsistent: a state at distance 1 has no move to distance 0");
  // Its own perimeter answers the same state.
  const DefinedPerimeter own(*pancakes, CompiledMoves(*pancakes), 100);
  options.perimeter = &own;
  const auto answered = DefinedIdaStar(*pancakes, {}, *start, options);
  ASSERT_TRUE(answered.ok()) << answered.status();
  EXPECT_EQ(Line(*pancakes, *answered), BruteForce(*pancakes).Answer(*start));
}

// A perimeter lists every state within its radius at its distance, and nothing farther;
// the radius is the last layer that fits its states.
TEST(DefinedIdaTest, APerimeterListsTheLayersThatFit) {
  for (const std::string name : {"slide32", "pancake5", "dials3"}) {
    auto d = ReadDefinition(SampleText(name + ".tws"), name + ".tws");
    ASSERT_TRUE(d.ok()) << d.status();
    const BruteForce all(*d);
    for (const uint64_t budget : {uint64_t{1}, uint64_t{20}, uint64_t{100}, uint64_t{100000}}) {
      const DefinedPerimeter perimeter(*d, CompiledMoves(*d), budget);
      uint64_t within = 0, next_layer = 0;
      for (size_t i = 0; i < all.size(); ++i) {
        const int want = all.distance(i);
        if (want >= 0 && want <= perimeter.radius()) {
          ++within;
          ASSERT_EQ(perimeter.Distance(all.states()[i]), want) << name << ": " << d->FormatCompact(all.states()[i]);
        } else {
          ASSERT_EQ(perimeter.Distance(all.states()[i]), -1) << name << ": " << d->FormatCompact(all.states()[i]);
        }
        next_layer += want == perimeter.radius() + 1 ? 1 : 0;
      }
      EXPECT_EQ(perimeter.size(), within) << name;
      EXPECT_LE(within, std::max<uint64_t>(budget, d->goals().size())) << name;
      if (next_layer > 0) {
        EXPECT_GT(within + next_layer, budget) << name << ": the next layer would fit";
      }
    }
  }
}

// The eight puzzle as a definition (9 is the blank, home in the corner the transpose
// fixes): U D L R move the blank, as slide32.tws writes them.
std::string Slide33() {
  std::string text = "Set T 9 1\nSolved\nT\n1 2 3 4 5 6 7 8 9\nEnd\n";
  const struct {
    const char* name;
    int dr, dc;
  } directions[] = {{"U", -1, 0}, {"D", 1, 0}, {"L", 0, -1}, {"R", 0, 1}};
  for (const auto& dir : directions) {
    for (int blank = 0; blank < 9; ++blank) {
      const int r = blank / 3 + dir.dr, c = blank % 3 + dir.dc;
      if (r < 0 || r > 2 || c < 0 || c > 2) continue;
      std::vector<int> source(9);
      for (int i = 0; i < 9; ++i) source[static_cast<size_t>(i)] = i + 1;
      std::swap(source[static_cast<size_t>(blank)], source[static_cast<size_t>(3 * r + c)]);
      text += std::string("Move ") + dir.name + "\nIf T " + std::to_string(blank + 1) + " 9\nT\n";
      for (int i = 0; i < 9; ++i) text += std::to_string(source[static_cast<size_t>(i)]) + (i == 8 ? "\n" : " ");
      text += "End\n";
    }
  }
  return text;
}

// The symmetries found are those of the moves and the goals: the transpose of the fifteen
// and of the eight puzzle (the blank's home on the diagonal); none for the 3x2 board, the
// pancakes, a cube whose corners turn. Each takes every move's result to a move's result
// from the image, and the goals to goals; the search that reads the tables at the images
// too gives the same answers (the lexicographically smallest optimal ones) in fewer states.
TEST(DefinedIdaTest, SymmetriesTakeMovesToMovesAndTheirBoundsHold) {
  auto read = [](const std::string& text, const std::string& name) {
    auto d = ReadDefinition(text, name);
    EXPECT_TRUE(d.ok()) << d.status();
    return *std::move(d);
  };
  const Definition slide44 = read(SampleText("slide44.tws"), "slide44.tws");
  const Definition slide33 = read(Slide33(), "slide33.tws");
  for (const std::string name : {"slide32", "pancake5", "cube2urf"}) {
    const Definition d = read(SampleText(name + ".tws"), name + ".tws");
    EXPECT_TRUE(FindSymmetries(d, CompiledMoves(d)).empty()) << name;
  }
  std::mt19937 random(51);
  for (const Definition* d : {&slide44, &slide33}) {
    const std::vector<DefinedSymmetry> found = FindSymmetries(*d, CompiledMoves(*d));
    ASSERT_EQ(found.size(), 1u) << d->title();
    const DefinedSymmetry& transpose = found[0];
    for (int cell = 0; cell < static_cast<int>(transpose.position.size()); ++cell) {
      const int side = d == &slide44 ? 4 : 3;
      EXPECT_EQ(transpose.position[static_cast<size_t>(cell)], (cell % side) * side + cell / side);
    }
    DefinedState image;
    transpose.Apply(*d, d->goals()[0], &image);
    EXPECT_EQ(image, d->goals()[0]);
    // Random states: each move's result, seen through the symmetry, is a move's result.
    for (int k = 0; k < 300; ++k) {
      DefinedState s = d->goals()[0], next, from_image, moved_image;
      for (int step = 0; step < 100; ++step) {
        if (d->Apply(s, static_cast<int>(random() % d->moves().size()), &next)) s = next;
      }
      transpose.Apply(*d, s, &from_image);
      for (int m = 0; m < static_cast<int>(d->moves().size()); ++m) {
        if (!d->Apply(s, m, &next)) continue;
        transpose.Apply(*d, next, &moved_image);
        bool matched = false;
        for (int m2 = 0; m2 < static_cast<int>(d->moves().size()) && !matched; ++m2) {
          matched = d->Apply(from_image, m2, &next) && next == moved_image;
        }
        ASSERT_TRUE(matched) << d->FormatCompact(s) << ", move " << d->moves()[static_cast<size_t>(m)].name;
      }
    }
  }
  // The answers with the tables read at the images: those without, on 200 random states.
  std::vector<ProjectionTable> tables;
  for (const std::string text : {"T 1-4 ~9", "T 5-8 ~9"}) {
    auto table = ProjectionTable::Build(slide33, *ParseProjection(text, slide33), 1 << 20, {});
    ASSERT_TRUE(table.ok()) << table.status();
    tables.push_back(*std::move(table));
  }
  ASSERT_TRUE(MoveDisjoint(slide33, {tables[0].spec(), tables[1].spec()}));
  const std::vector<const ProjectionTable*> bounds = {&tables[0], &tables[1]};
  const std::vector<DefinedSymmetry> symmetries = FindSymmetries(slide33, CompiledMoves(slide33));
  uint64_t with = 0, without = 0;
  for (int k = 0; k < 200; ++k) {
    DefinedState s = slide33.goals()[0], next;
    for (int step = 0; step < 80; ++step) {
      if (slide33.Apply(s, static_cast<int>(random() % slide33.moves().size()), &next)) s = next;
    }
    std::string lines[2];
    for (const bool mirrored : {false, true}) {
      DefinedIdaOptions options;
      options.max_depth = 40;
      options.sum = true;
      options.symmetries = mirrored ? &symmetries : nullptr;
      auto found = DefinedIdaStar(slide33, bounds, s, options);
      ASSERT_TRUE(found.ok()) << found.status();
      lines[mirrored ? 1 : 0] = Line(slide33, *found);
      (mirrored ? with : without) += found->nodes;
    }
    ASSERT_EQ(lines[1], lines[0]) << slide33.FormatCompact(s);
  }
  EXPECT_LT(with, without) << "the images' bounds should cut the search";
  std::cout << "slide33, 200 states: " << without << " states generated, " << with
            << " with the transpose's bounds\n";
}

// The census by search (core/defined/defined_census.h): the states at each distance equal
// the tests' own breadth-first search's, on definitions whose moves can all be undone
// (guarded, several labels alike, orientations); cut short by the depth; a definition whose
// states take more than 128 bits and a budget too small are refused, saying why.
TEST(DefinedIdaTest, ACensusBySearchCountsTheStatesAtEachDistance) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"slide32", SampleText("slide32.tws")}, {"pancake5", SampleText("pancake5.tws")},
      {"dials3", SampleText("dials3.tws")},   {"two", kTwo},
      {"commuting", kCommuting}};
  for (const auto& [name, text] : cases) {
    SCOPED_TRACE(name);
    auto d = ReadDefinition(text, name + ".tws");
    ASSERT_TRUE(d.ok()) << d.status();
    const BruteForce all(*d);
    std::vector<uint64_t> expected(static_cast<size_t>(all.farthest()) + 1, 0);
    for (size_t i = 0; i < all.size(); ++i) ++expected[static_cast<size_t>(all.distance(i))];
    for (const int threads : {1, 2}) {
      DefinedCensusOptions options;
      options.depth = 255;
      options.threads = threads;
      std::vector<uint64_t> reported;
      options.on_layer = [&](int layer, uint64_t states, double) {
        EXPECT_EQ(layer, static_cast<int>(reported.size()));
        reported.push_back(states);
      };
      auto counted = DefinedCensus(*d, options);
      ASSERT_TRUE(counted.ok()) << counted.status();
      EXPECT_EQ(*counted, expected);
      EXPECT_EQ(reported, expected);
    }
    DefinedCensusOptions shallow;
    shallow.depth = 2;
    auto cut = DefinedCensus(*d, shallow);
    ASSERT_TRUE(cut.ok()) << cut.status();
    EXPECT_EQ(*cut, std::vector<uint64_t>(expected.begin(), expected.begin() + std::min<long>(3, static_cast<long>(expected.size()))));
  }
  // The 2x2x2 cube (3,674,160 states, too many for the brute force here) to distance 8:
  // section 6's positions per distance, as docs/PUZZLES.md gives them.
  auto cube = ReadDefinition(SampleText("cube2urf.tws"), "cube2urf.tws");
  ASSERT_TRUE(cube.ok()) << cube.status();
  DefinedCensusOptions eight;
  eight.depth = 8;
  eight.threads = 2;
  auto cube_counts = DefinedCensus(*cube, eight);
  ASSERT_TRUE(cube_counts.ok()) << cube_counts.status();
  EXPECT_EQ(*cube_counts, (std::vector<uint64_t>{1, 9, 54, 321, 1847, 9992, 50136, 227536, 870072}));
  DefinedCensusOptions small;
  small.memory = 100000;
  auto over = DefinedCensus(*cube, small);
  EXPECT_EQ(over.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(std::string(over.status().message()),
            "distance 5 of the census needs about 567,648 bytes, more than 100,000 (counted so far: 1 9 54 321 1847)");
  // 40 pieces of 40 labels: 6 bits each, 240 bits.
  std::vector<std::string> labels, swapped;
  for (int i = 1; i <= 40; ++i) labels.push_back(std::to_string(i));
  swapped = labels;
  std::swap(swapped[0], swapped[1]);
  auto w = ReadDefinition(Cat("Set W 40 1\nSolved\nW\n", Join(labels, " "), "\nEnd\nMove X\nW\n",
                              Join(swapped, " "), "\nEnd\n"),
                          "wide.tws");
  ASSERT_TRUE(w.ok()) << w.status();
  auto refused = DefinedCensus(*w, DefinedCensusOptions());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(refused.status().message()),
            "its states take 240 bits, more than the 128 a census by search keeps a state in");
}

// True when some sequence of at most `left` moves takes `from` to `target`.
bool ShorterReaches(const CompiledMoves& moves, const DefinedState& from, const DefinedState& target, size_t left) {
  if (from == target) return true;
  if (left == 0) return false;
  for (int m = 0; m < moves.move_count(); ++m) {
    DefinedState to(from.size());
    if (moves.Apply(from.data(), m, to.data()) && ShorterReaches(moves, to, target, left - 1)) return true;
  }
  return false;
}

// The duplicate block sequences (DefinedPruning) of the eight puzzle, up to 8 blocks: on
// random states, wherever one's blocks play in turn (each the block its move plays there),
// a shorter sequence of moves, or one as long whose moves come first in canonical order,
// reaches the same state, found by trying them all. Every sequence is checked somewhere;
// the automaton prunes each at its last block and nothing shorter on the way.
TEST(DefinedIdaTest, DuplicateSequencesHaveShorterOrSmallerEqualsWhereverTheyApply) {
  auto d = ReadDefinition(Slide33(), "slide33.tws");
  ASSERT_TRUE(d.ok()) << d.status();
  const CompiledMoves moves(*d);
  const DefinedPruning pruning = DefinedPruning::Find(*d, moves, 8);
  ASSERT_EQ(pruning.searched_length(), 8);
  ASSERT_FALSE(pruning.patterns().empty());
  // Some are longer than a move and its undoing (the blank around a square and back).
  EXPECT_GT(pruning.patterns().back().size(), 2u);
  std::mt19937 random(51);
  std::vector<DefinedState> states;
  DefinedState s = d->goals()[0], next;
  for (int i = 0; i < 4000; ++i) {
    const int m = static_cast<int>(random() % moves.move_count());
    if (moves.Apply(s.data(), m, (next = s).data())) s = next;
    if (i % 10 == 0) states.push_back(s);
  }
  // Whether the moves `path` holds, then more, reach `target` from `from` in fewer moves than
  // the pattern's, or as many that come first (`smaller`: they already do).
  std::vector<int> path;
  std::function<bool(const DefinedState&, const DefinedState&, const std::vector<int>&, bool)> equal =
      [&](const DefinedState& from, const DefinedState& target, const std::vector<int>& pattern_moves, bool smaller) {
        if (from == target && (path.size() < pattern_moves.size() || smaller)) return true;
        if (path.size() == pattern_moves.size()) return false;
        for (int m = 0; m < moves.move_count(); ++m) {
          DefinedState to(from.size());
          if (!moves.Apply(from.data(), m, to.data())) continue;
          const size_t at = path.size();
          // Once a move is larger than the pattern's at an equal prefix, no equal of the
          // same length is smaller: only shorter ones count below.
          const bool now_smaller = smaller || m < pattern_moves[at];
          const bool larger = !smaller && m > pattern_moves[at];
          path.push_back(m);
          const bool found = larger ? path.size() < pattern_moves.size() &&
                                          ShorterReaches(moves, to, target, pattern_moves.size() - path.size() - 1)
                                    : equal(to, target, pattern_moves, now_smaller);
          path.pop_back();
          if (found) return true;
        }
        return false;
      };
  for (const std::vector<int>& pattern : pruning.patterns()) {
    std::vector<int> pattern_moves;
    for (const int b : pattern) pattern_moves.push_back(moves.block(b).move);
    int applied = 0;
    for (const DefinedState& start : states) {
      DefinedState at = start;
      bool plays = true;
      for (const int b : pattern) {
        if (moves.BlockAt(moves.block(b).move, at.data()) != b) {
          plays = false;
          break;
        }
        DefinedState to(at.size());
        moves.Transform(b, at.data(), to.data());
        at = to;
      }
      if (!plays) continue;
      ++applied;
      path.clear();
      ASSERT_TRUE(equal(start, at, pattern_moves, false))
          << "no shorter or smaller equal of a sequence of " << pattern.size() << " blocks from "
          << d->FormatCompact(start);
    }
    EXPECT_GT(applied, 0) << "a duplicate sequence of " << pattern.size() << " blocks played nowhere";
    // The automaton: kept up to the last block, pruned there.
    int32_t state = DefinedPruning::kStart;
    for (size_t i = 0; i + 1 < pattern.size(); ++i) {
      state = pruning.Next(state, pattern[i]);
      ASSERT_NE(state, DefinedPruning::kPruned);
    }
    EXPECT_EQ(pruning.Next(state, pattern.back()), DefinedPruning::kPruned);
  }
  // Patterns read back (as the table stores them) give the same automaton; bad ones are refused.
  auto again = DefinedPruning::FromPatterns(moves, pruning.patterns(), pruning.searched_length());
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->patterns(), pruning.patterns());
  EXPECT_EQ(again->states(), pruning.states());
  EXPECT_FALSE(DefinedPruning::FromPatterns(moves, {{0, moves.block_count()}}, 2).ok());
  EXPECT_FALSE(DefinedPruning::FromPatterns(moves, {{}}, 2).ok());
}

TEST(DefinedIdaTest, TheBudgetAndCancellationEndASearch) {
  auto d = ReadDefinition(SampleText("slide32.tws"), "slide32.tws");
  ASSERT_TRUE(d.ok());
  auto start = d->ParseCompact("2 1 3 4 5 6");  // no goal can be reached
  ASSERT_TRUE(start.ok());
  DefinedIdaOptions options;
  options.max_nodes = 50;
  auto spent = DefinedIdaStar(*d, {}, *start, options);
  EXPECT_EQ(spent.status().code(), absl::StatusCode::kResourceExhausted) << spent.status();
  SearchLimits limits;
  limits.cancelled = [] { return true; };
  DefinedIdaOptions cancel;
  cancel.limits = &limits;
  cancel.max_depth = 40;
  auto stopped = DefinedIdaStar(*d, {}, *start, cancel);
  EXPECT_EQ(stopped.status().code(), absl::StatusCode::kCancelled) << stopped.status();
  cancel.max_depth = 2000;
  EXPECT_EQ(DefinedIdaStar(*d, {}, *start, cancel).status().code(), absl::StatusCode::kInvalidArgument);
}

// Random positions a few moves deep of two definitions too large for the brute force here
// (the fifteen, guarded; the 2x2x2 cube, whose corners turn): everything the live search
// adds (tables, their images under the symmetries, the perimeter, the duplicate sequences,
// a split) gives plain iterative deepening's answers, the same distance and moves.
TEST(DefinedIdaTest, RandomPositionsGetPlainIterativeDeepeningsAnswers) {
  const ThreadLender lender = SpareThreads(1);
  struct Case {
    std::string file, spec;
    int positions, deepest;
  };
  int compared = 0;
  for (const Case& c : std::vector<Case>{{"slide44.tws", "T 1-4 ~16", 1000, 12},
                                         {"cube2urf.tws", "CORNER 1-4", 300, 5}}) {
    SCOPED_TRACE(c.file);
    auto d = ReadDefinition(SampleText(c.file), c.file);
    ASSERT_TRUE(d.ok()) << d.status();
    const CompiledMoves moves(*d);
    auto spec = ParseProjection(c.spec, *d);
    ASSERT_TRUE(spec.ok()) << spec.status();
    DefinedSearchOptions two;
    two.threads = 2;
    auto table = ProjectionTable::Build(*d, *spec, uint64_t{1} << 24, two);
    ASSERT_TRUE(table.ok()) << table.status();
    const ProjectionTable* tables[] = {&*table};
    const DefinedPerimeter perimeter(*d, moves, 2000);
    const std::vector<DefinedSymmetry> symmetries = FindSymmetries(*d, moves);
    const DefinedPruning pruning = DefinedPruning::Find(*d, moves, 8);
    DefinedIdaOptions plain, guided;
    plain.max_depth = guided.max_depth = c.deepest;
    guided.perimeter = &perimeter;
    guided.symmetries = &symmetries;
    guided.pruning = &pruning;
    guided.threads = &lender;
    guided.split_after = 2000;
    std::mt19937 random(51);
    for (int n = 0; n < c.positions; ++n) {
      DefinedState s = d->goals()[0], next(s.size());
      const int steps = 1 + static_cast<int>(random() % static_cast<unsigned>(c.deepest));
      for (int k = 0; k < steps; ++k) {
        if (moves.Apply(s.data(), static_cast<int>(random() % static_cast<unsigned>(moves.move_count())), next.data())) {
          s = next;
        }
      }
      auto alone = DefinedIdaStar(*d, {}, s, plain);
      auto helped = DefinedIdaStar(*d, tables, s, guided);
      ASSERT_TRUE(alone.ok() && helped.ok());
      ASSERT_TRUE(alone->solved) << d->FormatCompact(s);
      ASSERT_EQ(Line(*d, *helped), Line(*d, *alone)) << d->FormatCompact(s);
      ++compared;
    }
  }
  EXPECT_EQ(compared, 1300);
}

// An iteration split across spare threads (DefinedIdaOptions::threads, every iteration
// after the first split here) gives the brute force's answers, the lexicographically
// smallest, on every state of small definitions, with tables, a perimeter and the
// duplicate sequences; on the eight puzzle's random states, the same answers as alone. The
// budget counts every worker's states, and cancellation stops them all.
TEST(DefinedIdaTest, AnIterationSplitAcrossSpareThreadsGivesTheSameAnswers) {
  const ThreadLender lender = SpareThreads(2);
  int split = 0, helpers = 0;
  for (const auto& [name, text, spec] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"slide32", SampleText("slide32.tws"), "T 1-2 ~6"},
           {"pancake5", SampleText("pancake5.tws"), "P 1-2"},
           {"two", kTwo, "C -o"}}) {
    SCOPED_TRACE(name);
    auto d = ReadDefinition(text, name + ".tws");
    ASSERT_TRUE(d.ok()) << d.status();
    const BruteForce all(*d);
    auto parsed = ParseProjection(spec, *d);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    DefinedSearchOptions one_thread;
    one_thread.threads = 1;
    auto table = ProjectionTable::Build(*d, *parsed, 1 << 20, one_thread);
    ASSERT_TRUE(table.ok()) << table.status();
    const ProjectionTable* tables[] = {&*table};
    const DefinedPerimeter perimeter(*d, CompiledMoves(*d), 3);
    const DefinedPruning pruning = DefinedPruning::Find(*d, CompiledMoves(*d), 6);
    for (const bool near : {false, true}) {
      DefinedIdaOptions options;
      options.max_depth = all.farthest();
      options.threads = &lender;
      options.split_after = 1;
      options.perimeter = near ? &perimeter : nullptr;
      options.pruning = &pruning;
      // Every state of the two smaller ones, every fourth of the third's 972.
      const size_t every = all.size() > 500 ? 4 : 1;
      for (size_t i = 0; i < all.size(); i += every) {
        auto found = DefinedIdaStar(*d, tables, all.states()[i], options);
        ASSERT_TRUE(found.ok()) << found.status();
        ASSERT_EQ(Line(*d, *found), all.Answer(all.states()[i])) << d->FormatCompact(all.states()[i]);
        split += found->split_iterations;
        helpers += found->helpers;
      }
    }
  }
  EXPECT_GT(split, 100);
  EXPECT_GT(helpers, 100);

  // The eight puzzle, no table: states 14 to 20 moves deep, split and alone alike.
  auto d = ReadDefinition(Slide33(), "slide33.tws");
  ASSERT_TRUE(d.ok()) << d.status();
  const CompiledMoves moves(*d);
  std::mt19937 random(33);
  DefinedIdaOptions alone, shared;
  alone.max_depth = shared.max_depth = 31;
  shared.threads = &lender;
  shared.split_after = 1000;
  int compared = 0;
  for (int n = 0; n < 12; ++n) {
    DefinedState s = d->goals()[0], next(s.size());
    for (int step = 0; step < 200; ++step) {
      if (moves.Apply(s.data(), static_cast<int>(random() % 4), next.data())) s = next;
    }
    auto one = DefinedIdaStar(*d, {}, s, alone);
    auto many = DefinedIdaStar(*d, {}, s, shared);
    ASSERT_TRUE(one.ok() && many.ok());
    EXPECT_EQ(Line(*d, *many), Line(*d, *one)) << d->FormatCompact(s);
    compared += many->split_iterations > 0;
  }
  EXPECT_GT(compared, 3);

  // No goal within reach: the budget is the workers' together, cancellation reaches them.
  auto slide = ReadDefinition(SampleText("slide32.tws"), "slide32.tws");
  ASSERT_TRUE(slide.ok());
  auto start = slide->ParseCompact("2 1 3 4 5 6");
  ASSERT_TRUE(start.ok());
  DefinedIdaOptions budget;
  budget.threads = &lender;
  budget.split_after = 1;
  budget.max_depth = 60;
  budget.max_nodes = 100000;
  auto spent = DefinedIdaStar(*slide, {}, *start, budget);
  EXPECT_EQ(spent.status().code(), absl::StatusCode::kResourceExhausted) << spent.status();
  EXPECT_EQ(std::string(spent.status().message()), "the search passed its budget of 100000 nodes");
  std::atomic<int> asked{0};
  SearchLimits limits;
  limits.cancelled = [&asked] { return ++asked > 20; };
  DefinedIdaOptions cancel = budget;
  cancel.max_nodes = 0;
  cancel.limits = &limits;
  auto stopped = DefinedIdaStar(*slide, {}, *start, cancel);
  EXPECT_EQ(stopped.status().code(), absl::StatusCode::kCancelled) << stopped.status();
}

}  // namespace defined_ida_test
}  // namespace puzzledb
