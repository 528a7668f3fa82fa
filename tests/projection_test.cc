// Projections of a definition (core/definition/projection.h): what they read from text, and
// that each is a lower bound. For every state the tests' own search reaches, the projected
// state's distance in the projection (searched the same way) is at most the state's own;
// the whole definition projected is the definition; a guarded move's blocks become moves
// of their own where the projection can no longer tell which applies.
#include <random>
#include <string>
#include <vector>

#include "core/definition/defined_index.h"
#include "core/definition/projection.h"
#include "core/definition/read_definition.h"
#include "gtest/gtest.h"
#include "tests/definition_brute_force.h"
#include "tests/test_util.h"

namespace puzzledb {
namespace projection_test {

using testing::BruteForce;

Definition Read(const std::string& file) {
  auto read = ReadDefinition(testing::ReadFile(std::string(PUZZLEDB_GOLDEN_DIR) + "/definitions/" + file), file);
  EXPECT_TRUE(read.ok()) << read.status();
  return read.ok() ? *std::move(read) : Definition();
}

Projection Make(const Definition& d, const std::string& text) {
  auto spec = ParseProjection(text, d);
  EXPECT_TRUE(spec.ok()) << text << ": " << spec.status();
  auto projection = Projection::Make(d, spec.ok() ? *spec : ProjectionSpec{});
  EXPECT_TRUE(projection.ok()) << text << ": " << projection.status();
  return *std::move(projection);
}

// Every reachable state's projected distance against its own; returns how many are
// strictly below (the bound loses something).
int CheckAdmissible(const Definition& d, const BruteForce& all, const Projection& p,
                    const std::string& what) {
  const BruteForce projected(p.projected());
  int below = 0;
  DefinedState q;
  for (size_t i = 0; i < all.size(); ++i) {
    if (all.distance(i) < 0) continue;
    p.Project(all.states()[i], &q);
    const int bound = projected.DistanceOf(q);
    EXPECT_GE(bound, 0) << what << ": " << d.FormatCompact(all.states()[i]) << " projects to no reachable state";
    EXPECT_LE(bound, all.distance(i)) << what << ": " << d.FormatCompact(all.states()[i]);
    below += bound < all.distance(i);
  }
  return below;
}

TEST(ProjectionTest, TheWholeDefinitionProjectsToItself) {
  for (const std::string file : {"slide32.tws", "pancake5.tws", "dials3.tws"}) {
    const Definition d = Read(file);
    std::string all_sets;
    for (const DefinedSet& s : d.sets()) all_sets += s.name + ";";
    const Projection p = Make(d, all_sets);
    const BruteForce all(d);
    DefinedState q;
    for (const DefinedState& s : all.states()) {
      p.Project(s, &q);
      ASSERT_EQ(q, s) << file;
    }
    EXPECT_EQ(CheckAdmissible(d, all, p, file), 0) << file << ": the same distances";
  }
}

TEST(ProjectionTest, EveryProjectionIsALowerBound) {
  struct Case {
    std::string file, projection;
    bool loses;  // some state's bound is below its distance
  };
  for (const Case& c : {Case{"slide32.tws", "T 1,6", true}, Case{"slide32.tws", "T 1-3", true},
                        Case{"slide32.tws", "T 6", true}, Case{"pancake5.tws", "P 1-2", true},
                        Case{"dials3.tws", "", false}}) {
    const Definition d = Read(c.file);
    const BruteForce all(d);
    std::string text = c.projection;
    if (text.empty()) {  // the first set, orientations left out
      text = d.sets()[0].name + (d.sets()[0].orientations > 1 ? " -o" : "");
    }
    const Projection p = Make(d, text);
    const int below = CheckAdmissible(d, all, p, c.file + ": " + text);
    if (c.loses) {
      EXPECT_GT(below, 0) << c.file << ": " << text << " bounds every state exactly";
    }
  }
}

// Two sets, one with orientations: every way of leaving out a set, some pieces or the
// twists bounds from below, and the spec reads back as written.
TEST(ProjectionTest, SetsPiecesAndTwistsLeftOut) {
  auto d = ReadDefinition(
      "Set C 4 3\nSet E 3 1\nSolved\nC\n1 2 3 4\n0 0 0 0\nE\n1 2 3\nEnd\n"
      "Move A\nC\n2 3 1 4\n0 1 2 0\nE\n2 1 3\nEnd\n"
      "Move B\nC\n1 3 4 2\n0 2 0 1\nE\n1 3 2\nEnd\n",
      "two.tws");
  ASSERT_TRUE(d.ok()) << d.status();
  const BruteForce all(*d);
  ASSERT_GT(all.size(), 100u);
  for (const std::string text : {"C -o", "C 1-2", "C 1,3 -o", "E", "C 4; E 1"}) {
    const Projection p = Make(*d, text);
    EXPECT_GT(CheckAdmissible(*d, all, p, text), 0) << text;
    EXPECT_EQ(FormatProjection(p.spec()), text);
  }
}

TEST(ProjectionTest, GuardedBlocksBecomeMovesWhereTheGuardIsLost) {
  const Definition d = Read("slide32.tws");
  // Tile 1 and the blank (6) told apart, tiles 2-5 merged: the labels become 1 (tile 1),
  // 2 (the blank) and 3 (the others), and every guard reads label 2. A move's blocks
  // still exclude each other here, but each is a move of its own all the same.
  const Projection kept = Make(d, "T 1,6");
  std::vector<std::string> names;
  for (const DefinedMove& m : kept.projected().moves()) names.push_back(m.name);
  EXPECT_EQ(names.front(), "U#1");
  EXPECT_EQ(names.size(), 14u);  // 3 + 3 + 4 + 4 blocks
  for (const DefinedMove& m : kept.projected().moves()) {
    ASSERT_EQ(m.blocks.size(), 1u);
    ASSERT_EQ(m.blocks[0].guards.size(), 1u) << m.name;
    EXPECT_EQ(m.blocks[0].guards[0].piece, 2) << m.name << ": the blank, as projected";
  }
  // The blank merged with tiles 2-5 (label 2): the guards read the merged label, so that
  // several blocks of a move apply where the merged pieces stand.
  const Projection lost = Make(d, "T 1");
  EXPECT_EQ(lost.projected().moves()[0].blocks[0].guards[0].piece, 2);
  EXPECT_EQ(lost.projected().goals().size(), 1u);
}

// Sums are admissible only where each block changes one projection at most: sliding
// tiles' groups with the blank in none, not with the blank in one, never the corners of a
// cube, whose turns move four at once.
TEST(ProjectionTest, MoveDisjointProjectionsAreFoundFromTheBlocks) {
  auto specs = [](const Definition& d, const std::vector<std::string>& texts) {
    std::vector<ProjectionSpec> out;
    for (const std::string& text : texts) {
      auto spec = ParseProjection(text, d);
      EXPECT_TRUE(spec.ok()) << text;
      if (spec.ok()) out.push_back(*spec);
    }
    return out;
  };
  const Definition slide = Read("slide32.tws");
  EXPECT_TRUE(MoveDisjoint(slide, specs(slide, {"T 1-2", "T 3-5"})));
  EXPECT_TRUE(MoveDisjoint(slide, specs(slide, {"T 1", "T 2", "T 3-5"})));
  EXPECT_FALSE(MoveDisjoint(slide, specs(slide, {"T 1-2,6", "T 3-5"})));
  EXPECT_FALSE(MoveDisjoint(slide, specs(slide, {"T 1-3", "T 3-5"})));  // 3 in both
  const Definition fifteen = Read("slide44.tws");
  EXPECT_TRUE(MoveDisjoint(fifteen, specs(fifteen, {"T 1-5", "T 6-10", "T 11-15"})));
  const Definition cube = Read("cube2urf.tws");
  EXPECT_FALSE(MoveDisjoint(cube, specs(cube, {"CORNER 1-3 -o", "CORNER 4-7 -o"})));
  EXPECT_FALSE(MoveDisjoint(cube, specs(cube, {"CORNER 1 -o", "CORNER 2 -o"})));
  // Orientations kept: any piece turning is seen by both.
  EXPECT_FALSE(MoveDisjoint(cube, specs(cube, {"CORNER 1", "CORNER 2"})));
}

// A projected state ranked without being made (DefinedIndex::RankRead through a Reading of
// the projection's bytes) is ranked as the projected state itself, on states of random walks:
// the fifteen's tiles with the blank merged (placements and order in one pass), some tiles
// alike, a cube's corners with their twists, and read through a relabelling of positions.
TEST(ProjectionTest, AReadingRanksAsTheProjectedState) {
  struct Case {
    std::string file, spec;
  };
  for (const Case& c : std::vector<Case>{{"slide44.tws", "T 1-8"},
                                         {"slide44.tws", "T 9-15"},
                                         {"slide44.tws", "T 1-3,16"},
                                         {"pancake5.tws", "P 2-4"},
                                         {"cube2urf.tws", "CORNER 1-4"},
                                         {"cube2urf.tws", "CORNER -o"}}) {
    SCOPED_TRACE(c.file + " " + c.spec);
    const Definition d = Read(c.file);
    const Projection p = Make(d, c.spec);
    const CompiledMoves moves(d);
    auto index = DefinedIndex::Make(p.projected(), CompiledMoves(p.projected()), uint64_t{1} << 40);
    ASSERT_TRUE(index.ok()) << index.status();
    // The projection as it is, and read through a reversal of the definition's bytes: the
    // reading then takes projected byte i from the reversed state's byte.
    const auto n = static_cast<size_t>(d.state_bytes());
    std::vector<uint16_t> direct, reversed;
    std::vector<uint8_t> values(static_cast<size_t>(p.bytes()) * 256);
    for (int i = 0; i < p.bytes(); ++i) {
      direct.push_back(static_cast<uint16_t>(p.SourceOf(i)));
      reversed.push_back(static_cast<uint16_t>(n - 1 - p.SourceOf(i)));
      for (int v = 0; v < 256; ++v) values[static_cast<size_t>(i) * 256 + static_cast<size_t>(v)] = p.ValueOf(i, static_cast<uint8_t>(v));
    }
    const DefinedIndex::Reading reading = index->ReadingOf(direct, values);
    const DefinedIndex::Reading through = index->ReadingOf(reversed, values);
    std::mt19937 random(7);
    DefinedState s = d.goals()[0], next(n), projected, mirrored(n);
    for (int step = 0; step < 3000; ++step) {
      const int m = static_cast<int>(random() % static_cast<unsigned>(moves.move_count()));
      if (moves.Apply(s.data(), m, next.data())) s = next;
      p.Project(s, &projected);
      const uint64_t rank = index->Rank(projected.data());
      ASSERT_EQ(index->RankRead(s.data(), reading), rank) << d.FormatCompact(s);
      for (size_t b = 0; b < n; ++b) mirrored[n - 1 - b] = s[b];
      ASSERT_EQ(index->RankRead(mirrored.data(), through), rank) << d.FormatCompact(s);
    }
  }
}

TEST(ProjectionTest, BadSpecsAreRefusedNamingTheWord) {
  const Definition d = Read("cube2urf.tws");
  EXPECT_EQ(ParseProjection("EDGE", d).status().message(), "projection: no set 'EDGE' (the sets: CORNER)");
  EXPECT_EQ(ParseProjection("CORNER 0-3", d).status().message(),
            "projection: set CORNER: '0-3' is not a label from 1 to 8 or a range of them (1-6)");
  EXPECT_EQ(ParseProjection("CORNER 5-3", d).status().message(),
            "projection: set CORNER: the range '5-3' runs backwards");
  EXPECT_EQ(ParseProjection("CORNER twist", d).status().message(),
            "projection: set CORNER: 'twist' is neither the labels to tell apart (1-6,9), -o (no "
            "orientations) nor ~ and the free labels (~16)");
  EXPECT_EQ(ParseProjection("CORNER 1-3 ~9", d).status().message(),
            "projection: set CORNER: '9' is not a label from 1 to 8 or a range of them (1-6)");
  // Free pieces where the set's orientations are kept: refused with the rule.
  EXPECT_EQ(Projection::Make(d, *ParseProjection("CORNER 1-3 ~4", d)).status().message(),
            "projection: set CORNER: free pieces (~4) need a projection of that set alone, its "
            "orientations left out (-o), with the labels whose moves count told apart");
  EXPECT_EQ(FormatProjection(*ParseProjection("CORNER 1-3 -o ~4,5", d)), "CORNER 1-3 -o ~4-5");
  auto twice = ParseProjection("CORNER; CORNER -o", d);
  ASSERT_TRUE(twice.ok());
  EXPECT_EQ(Projection::Make(d, *twice).status().message(), "projection: set CORNER is named twice");
  EXPECT_EQ(Projection::Make(d, ProjectionSpec{}).status().message(), "projection: it keeps no set");
}

}  // namespace projection_test
}  // namespace puzzledb
