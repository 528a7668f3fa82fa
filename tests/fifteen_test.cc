// The fifteen puzzle's model (ranks, moves, parity, parsers) and its pattern tables: a
// small group's table against a brute-force search over the real abstract states, the
// bound's admissibility on random walks, the reflection, and the pattern search against
// plain IDA* on boards a few dozen moves from the goal. Korf's 100 and the 80-move boards
// over the 7-8 tables are in fifteen_db_test.cc.
#include "core/puzzles/fifteen.h"

#include <deque>
#include <functional>
#include <random>
#include <sstream>

#include "absl/container/flat_hash_map.h"
#include "core/search/ida_star.h"
#include "core/search/live_solver.h"
#include "core/sliding/move_pruning.h"
#include "core/sliding/pattern_search.h"
#include "core/sliding/pattern_tables.h"
#include "gtest/gtest.h"
#include "tests/test_util.h"

namespace puzzledb {
namespace {

FifteenBoard Fifteen(std::string_view compact) {
  auto instance = FifteenPuzzle::ParseCompact(compact);
  EXPECT_TRUE(instance.ok()) << instance.status();
  return instance.ok() ? instance->state : FifteenPuzzle::Goal();
}

std::string Compact(const FifteenBoard& s) { return FifteenPuzzle::FormatCompact({{}, s}); }

// `steps` random moves from the goal, none undoing the one before.
FifteenBoard RandomWalk(std::mt19937_64& rng, int steps) {
  const FifteenPuzzle model;
  FifteenBoard s = FifteenPuzzle::Goal();
  int last = -1;
  for (int i = 0; i < steps; ++i) {
    FifteenBoard t;
    int m;
    do {
      m = static_cast<int>(rng() % 4);
    } while ((last >= 0 && m == FifteenPuzzle::InverseMove(last)) || !model.Apply(s, m, &t));
    s = t;
    last = m;
  }
  return s;
}

TEST(FifteenTest, RanksAreDenseOverTheSolvableHalf) {
  const FifteenPuzzle model;
  EXPECT_EQ(model.Size(), 10461394944000u);
  EXPECT_EQ(model.Rank(FifteenPuzzle::Goal()), model.Rank(model.Unrank(model.Rank(FifteenPuzzle::Goal()))));
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    const uint64_t index = rng() % model.Size();
    const FifteenBoard s = model.Unrank(index);
    ASSERT_FALSE(FifteenPuzzle::ProvablyUnsolvable(s)) << Compact(s);
    ASSERT_EQ(model.Rank(s), index) << Compact(s);
    ASSERT_TRUE(FifteenPuzzle::ParseCompact(Compact(s)).ok());
  }
}

TEST(FifteenTest, ParityMatchesReachability) {
  // Every board a walk reaches is solvable; swapping two tiles makes it unsolvable.
  std::mt19937_64 rng(11);
  for (int i = 0; i < 2000; ++i) {
    FifteenBoard s = RandomWalk(rng, 1 + static_cast<int>(rng() % 200));
    ASSERT_FALSE(FifteenPuzzle::ProvablyUnsolvable(s)) << Compact(s);
    std::string text = Compact(s);
    const size_t a = text.find_first_not_of('0'), b = text.find_first_not_of('0', a + 1);
    std::swap(text[a], text[b]);
    ASSERT_TRUE(FifteenPuzzle::ProvablyUnsolvable(Fifteen(text))) << text;
  }
  EXPECT_TRUE(FifteenPuzzle::ProvablyUnsolvable(Fifteen("13,1,2,4,5,0,3,7,9,6,10,12,15,8,11,14")));
}

TEST(FifteenTest, MovesAreTheEmptyPlacesAndUndoEachOther) {
  const FifteenPuzzle model;
  FifteenBoard s = FifteenPuzzle::Goal(), t;
  EXPECT_FALSE(model.Apply(s, 1, &t));  // D: the empty place is on the bottom row
  EXPECT_FALSE(model.Apply(s, 3, &t));  // R
  ASSERT_TRUE(model.Apply(s, 0, &t));   // U: tile 12 comes down
  EXPECT_EQ(Compact(t), "123456789ab0defc");
  ASSERT_TRUE(model.Apply(s, 2, &t));  // L: tile 15 goes right
  EXPECT_EQ(Compact(t), "123456789abcde0f");
  FifteenBoard back;
  ASSERT_TRUE(model.Undo(t, 2, &back));
  EXPECT_EQ(back, s);
  EXPECT_EQ(model.LowerBound(Fifteen("123456789abcdef0")), 0);
  EXPECT_EQ(model.LowerBound(Fifteen("023456789abcdef1")), 6 + 0);  // tile 1 at (3, 3): 6
}

TEST(FifteenTest, ParsesTheOriginalInputAndSaysWhereItIsWrong) {
  auto cases = FifteenPuzzle::ParseOriginal(testing::Golden("fifteen_statement.in"));
  ASSERT_EQ(cases.size(), 2u);
  ASSERT_TRUE(cases[0].instance.ok());
  EXPECT_EQ(Compact(cases[0].instance->state), "2340157896acdebf");
  EXPECT_EQ(cases[1].line, 6);

  auto error = [](std::string_view text) {
    auto parsed = FifteenPuzzle::ParseOriginal(text);
    for (const auto& c : parsed) {
      if (!c.instance.ok()) return std::string(c.instance.status().message());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error(""), "line 1: the input is empty; the first line must be the number of boards N");
  EXPECT_EQ(error("x\n"), "line 1: the first line must be the number of boards N, found 'x'");
  EXPECT_EQ(error("1\n1 2 3 4\n5 6 7 8\n9 10 11 12\n13 14 15\n"),
            "case 1, line 5: row 4 of the board has 3 numbers, expected 4: '13 14 15'");
  EXPECT_EQ(error("1\n1 2 3 4\n5 6 7 8\n9 10 11 12\n13 14 15 16\n"),
            "case 1, line 5: row 4, column 4 holds 16; a cell holds 0..15 (0: the empty place)");
  EXPECT_EQ(error("1\n1 2 3 4\n5 6 7 8\n9 10 11 12\n13 14 15 15\n"),
            "case 1, line 2: tile 15 appears twice (cells 15 and 16); a board holds each of "
            "0..15 once");
  EXPECT_EQ(error("2\n1 2 3 4\n5 6 7 8\n9 10 11 12\n13 14 15 0\n"),
            "case 2, line 5: the input ended after 1 boards, and line 1 announces 2 boards");
  EXPECT_EQ(error("1\n1 2 3 4\n5 6 7 8\n"),
            "case 1, line 3: the input ended inside the board: 2 of 4 rows, and line 1 "
            "announces 1 board");
  EXPECT_EQ(error("1\n1 2 3 4\n5 6 7 8\n9 10 11 12\n13 14 15 0\n7\n"),
            "line 6: more input after the 1 board that line 1 announces: '7'");
}

TEST(FifteenTest, CompactFormRoundTripsAndNamesTheBadCell) {
  EXPECT_EQ(Compact(Fifteen("1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,0")), "123456789abcdef0");
  EXPECT_EQ(Compact(Fifteen("123456789ABCDEF0")), "123456789abcdef0");
  auto bad = [](std::string_view text) {
    return std::string(FifteenPuzzle::ParseCompact(text).status().message());
  };
  EXPECT_EQ(bad("123"), "a board is 16 hexadecimal digits (0 the empty place, a..f for 10..15) "
                        "or 16 numbers separated by commas; got 3 characters");
  EXPECT_EQ(bad("123456789abcdeg0"),
            "cell 15 (row 4, column 3) holds 'g'; a cell is a hexadecimal digit 0..f (0: the "
            "empty place)");
  EXPECT_EQ(bad("1,2,3"), "a board has 16 cells, got 3 numbers");
  EXPECT_EQ(bad("1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,99"),
            "cell 16 (row 4, column 4) holds 99; a cell holds 0..15 (0: the empty place)");
  EXPECT_EQ(bad("1123456789abcdef"),
            "tile 1 appears twice (cells 1 and 2); a board holds each of 0..15 once");
}

TEST(FifteenTest, OriginalAnswerIsTheMovesOrTheJudgesSentence) {
  const FifteenPuzzle model;
  FifteenPuzzle::Instance instance{{}, Fifteen("2340157896acdebf")};
  Solution solved;
  solved.distance = 2;
  solved.moves = {2, 0};
  EXPECT_EQ(FifteenPuzzle::FormatOriginalAnswer(instance, model, solved), "LU\n");
  Solution beyond;
  beyond.outcome = Outcome::kNotWithinLimit;
  EXPECT_EQ(FifteenPuzzle::FormatOriginalAnswer(instance, model, beyond),
            "This puzzle is not solvable.\n");
  EXPECT_EQ(FifteenPuzzle::Draw({{}, FifteenPuzzle::Goal()}, nullptr),
            "  1   2   3   4\n  5   6   7   8\n  9  10  11  12\n 13  14  15   .\n");
}

TEST(TilePartitionTest, ParsesEncodesAndRefuses) {
  auto p = TilePartition::Parse("1-8/9-15");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->group_count(), 2);
  EXPECT_EQ(p->group(1), (std::vector<int>{9, 10, 11, 12, 13, 14, 15}));
  EXPECT_EQ(p->group_of(9), 1);
  auto back = TilePartition::Decode(p->Encode());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, *p);
  EXPECT_EQ(back->Describe(), "1-8/9-15");
  EXPECT_EQ(TilePartition::Parse("1,2,5,6,9,10/3,4,7,8,11,12/13,14,15")->Describe(),
            "1,2,5,6,9,10/3,4,7,8,11,12/13-15");
  auto bad = [](std::string_view text) {
    return std::string(TilePartition::Parse(text).status().message());
  };
  EXPECT_EQ(bad("1-9/10-15"), "tile partition '1-9/10-15': a group has 9 tiles; at most 8");
  EXPECT_EQ(bad("1-8/8-15"), "tile partition '1-8/8-15': tile 8 is in two groups");
  EXPECT_EQ(bad("1-8/9-14"), "tile partition '1-8/9-14': tile 15 is in no group");
  EXPECT_EQ(bad("1-8/9-16"), "tile partition '1-8/9-16': tile 16 is not one of 1..15");
  EXPECT_EQ(bad("1-8//9-15"), "tile partition '1-8//9-15': expected a tile number at character 5");
  EXPECT_FALSE(TilePartition::Decode("short").ok());
  EXPECT_EQ(bad("1/2/3/4/5/6/7/8/9-15"),
            "tile partition '1/2/3/4/5/6/7/8/9-15': more than 8 groups");
}

TEST(PatternGroupTest, IndicesAreDenseAndInvertible) {
  for (const std::vector<int>& tiles :
       {std::vector<int>{13, 14, 15}, std::vector<int>{1, 2, 5, 6, 9, 10}}) {
    const PatternGroup group(tiles);
    std::vector<bool> seen(group.placements(), false);
    for (uint64_t i = 0; i < group.placements(); ++i) {
      const auto cells = group.Cells(i);
      uint8_t cell_of[kTileCells] = {};
      for (int t = 0; t < group.size(); ++t) cell_of[tiles[t]] = cells[t];
      const uint64_t back = group.Index(cell_of);
      ASSERT_EQ(back, i);
      seen[back] = true;
    }
    EXPECT_EQ(std::count(seen.begin(), seen.end(), true), static_cast<long>(group.placements()));
  }
}

// The search updates a group's index by the move alone (PatternGroup::OrderAfterMove and
// the cell set's bits): on random boards, after every move of one of the group's tiles,
// the index so made equals the one ranked afresh, for groups of 1 to 8 tiles.
TEST(PatternGroupTest, AMoveUpdatesTheIndexAsRankingAfreshWould) {
  std::mt19937_64 rng(37);
  for (const std::vector<int>& tiles :
       {std::vector<int>{4}, std::vector<int>{2, 3, 4}, std::vector<int>{1, 5, 6, 9, 10, 13},
        std::vector<int>{3, 7, 9, 12, 15, 1, 2}, std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8},
        std::vector<int>{8, 9, 10, 11, 12, 13, 14, 15}}) {
    std::vector<int> sorted = tiles;
    std::sort(sorted.begin(), sorted.end());
    const PatternGroup group(sorted);
    int checked = 0;
    for (int board = 0; board < 1000; ++board) {
      const FifteenBoard s = RandomWalk(rng, 101);
      const auto cells = FifteenPuzzle::CellsOfTiles(s);
      uint8_t cell_of[kTileCells], tile_at[kTileCells];
      for (int t = 0; t < kTileCells; ++t) {
        cell_of[t] = cells[t];
        tile_at[cells[t]] = static_cast<uint8_t>(t);
      }
      uint32_t set = 0, order = 0;
      group.Split(cell_of, &set, &order);
      ASSERT_EQ(group.Join(set, order), group.Index(cell_of));
      const int blank = cell_of[0];
      for (const int from : {blank - 4, blank + 4, blank - 1, blank + 1}) {
        if (from < 0 || from >= kTileCells) continue;
        if ((from == blank - 1 || from == blank + 1) && from / 4 != blank / 4) continue;
        const int tile = tile_at[from];
        if (std::find(sorted.begin(), sorted.end(), tile) == sorted.end()) continue;
        const uint32_t moved_set = set ^ (1u << from) ^ (1u << blank);
        const uint32_t moved_order = group.OrderAfterMove(order, tile, from, blank, tile_at);
        uint8_t after[kTileCells];
        std::copy(cell_of, cell_of + kTileCells, after);
        after[tile] = static_cast<uint8_t>(blank);
        ASSERT_EQ(group.Join(moved_set, moved_order), group.Index(after))
            << Compact(s) << ": tile " << tile << " from cell " << from << " to " << blank;
        ++checked;
      }
    }
    EXPECT_GT(checked, 100) << "too few moves of the group's tiles to check";
  }
}

// The group's moves counted exactly over the real abstract states (the group's cells and
// the empty place's cell, every other tile indistinct and free to move): a 0-1 BFS.
std::vector<int> BruteForceGroup(const PatternGroup& group) {
  const int k = group.size();
  std::vector<int> best(group.placements(), -1);
  absl::flat_hash_map<uint64_t, int> dist;
  std::deque<std::pair<std::array<uint8_t, kTileCells>, int>> queue;  // cell_of, cost
  std::array<uint8_t, kTileCells> goal{};
  for (int t = 1; t < kTileCells; ++t) goal[t] = static_cast<uint8_t>(t - 1);
  goal[0] = 15;
  auto key = [&](const std::array<uint8_t, kTileCells>& c) {
    return group.Index(c.data()) * 16 + c[0];
  };
  dist[key(goal)] = 0;
  queue.push_back({goal, 0});
  while (!queue.empty()) {
    auto [cells, d] = queue.front();
    queue.pop_front();
    if (dist[key(cells)] < d) continue;
    const uint64_t index = group.Index(cells.data());
    if (best[index] < 0 || d < best[index]) best[index] = d;
    const int blank = cells[0];
    for (int m = 0; m < 4; ++m) {
      const int to = BoardTables().destination[blank][m];
      if (to < 0) continue;
      std::array<uint8_t, kTileCells> next = cells;
      int moved = -1;
      for (int i = 0; i < k; ++i) {
        if (cells[group.tiles()[i]] == to) moved = group.tiles()[i];
      }
      next[0] = static_cast<uint8_t>(to);
      if (moved >= 0) next[moved] = static_cast<uint8_t>(blank);
      const int cost = d + (moved >= 0 ? 1 : 0);
      auto [it, fresh] = dist.try_emplace(key(next), cost);
      if (!fresh && it->second <= cost) continue;
      it->second = cost;
      if (moved >= 0) {
        queue.push_back({next, cost});
      } else {
        queue.push_front({next, cost});
      }
    }
  }
  return best;
}

TEST(PatternGroupTest, SearchMatchesABruteForceSearchOfTheSameGroup) {
  for (const std::vector<int>& tiles : {std::vector<int>{13, 14, 15}, std::vector<int>{1, 6, 11},
                                        std::vector<int>{4, 7, 10, 13}}) {
    const PatternGroup group(tiles);
    PatternBuildOptions options;
    options.threads = 2;
    auto searched = SearchPatternGroup(group, 0, options);
    ASSERT_TRUE(searched.ok()) << searched.status();
    const std::vector<int> expected = BruteForceGroup(group);
    for (uint64_t i = 0; i < group.placements(); ++i) {
      ASSERT_EQ((*searched)[i], expected[i]) << "placement " << i;
      ASSERT_GE((*searched)[i], group.Manhattan(i));
    }
  }
}

// The 6-6-3 tables, built once for the tests below (about a second).
const PatternTables& SixSixThree() {
  static const PatternTables* tables = [] {
    auto partition = TilePartition::Parse("1-4,7,8/5,6,9,10,13,14/11,12,15");
    auto entries = std::make_shared<PackedTable>(storage::v1::PATTERN_EXCESS,
                                                 PatternTables::EntryCount(*partition));
    uint64_t offset = 0;
    for (int g = 0; g < partition->group_count(); ++g) {
      const PatternGroup group(partition->group(g));
      auto distances = SearchPatternGroup(group, g, PatternBuildOptions{});
      EXPECT_TRUE(distances.ok());
      EXPECT_TRUE(EncodePatternGroup(group, *distances, offset, entries.get(), nullptr).ok());
      offset += group.placements();
    }
    return new PatternTables(*partition, std::move(entries));
  }();
  return *tables;
}

int PatternBound(const PatternTables& tables, const FifteenBoard& s) {
  const auto cells = FifteenPuzzle::CellsOfTiles(s);
  const TileBoardTables& t = BoardTables();
  uint8_t mirror[kTileCells];
  for (int tile = 0; tile < kTileCells; ++tile) mirror[t.reflected_tile[tile]] = t.transposed[cells[tile]];
  const FifteenPuzzle model;
  return model.LowerBound(s) + 2 * std::max(tables.ExcessSum(cells.data()), tables.ExcessSum(mirror));
}

FifteenBoard Reflect(const FifteenBoard& s) {
  const TileBoardTables& t = BoardTables();
  std::array<int, kTileCells> cells{};
  for (int cell = 0; cell < kTileCells; ++cell) {
    cells[t.transposed[cell]] = t.reflected_tile[s.Tile(cell)];
  }
  return *FifteenPuzzle::BoardFromCells(cells);
}

// Admissible, with the distance's parity, and the same at a board's reflection. Not
// consistent: a placement's entry is its smallest distance over the free regions that may
// hold the empty place, and the region the board's empty place is in may be farther, so a
// move can change the bound by 3 or 5 (IDA* needs only admissibility).
TEST(PatternSearchTest, TheBoundIsAdmissibleWithTheDistancesParity) {
  const FifteenPuzzle model;
  const PatternTables& tables = SixSixThree();
  std::mt19937_64 rng(5);
  int largest_step = 0;
  for (int i = 0; i < 20000; ++i) {
    const int steps = static_cast<int>(rng() % 60);
    const FifteenBoard s = RandomWalk(rng, steps);
    const int h = PatternBound(tables, s);
    ASSERT_LE(h, steps) << Compact(s);  // a walk of `steps` moves reaches the goal back
    ASSERT_EQ((h - steps) % 2, 0);      // the bound has the distance's parity
    ASSERT_GE(h, model.LowerBound(s));
    for (int m = 0; m < 4; ++m) {
      FifteenBoard t;
      if (!model.Apply(s, m, &t)) continue;
      largest_step = std::max(largest_step, std::abs(PatternBound(tables, t) - h));
    }
    // The reflection is as far from the goal, and the bound takes the larger of the two.
    ASSERT_EQ(PatternBound(tables, Reflect(s)), h) << Compact(s);
  }
  // A move changes the bound by an odd number (the distance's parity flips), sometimes
  // more than one.
  EXPECT_EQ(largest_step % 2, 1);
  EXPECT_GT(largest_step, 1);
}

TEST(PatternSearchTest, AgreesWithPlainIdaStarAndTheReflection) {
  const FifteenPuzzle model;
  const PatternTables& tables = SixSixThree();
  const Perimeter<FifteenPuzzle> perimeter(model, 8);
  std::mt19937_64 rng(3);
  for (int i = 0; i < 40; ++i) {
    const FifteenBoard s = RandomWalk(rng, 30 + static_cast<int>(rng() % 20));
    auto guided = TilePatternSearch<FifteenPuzzle>(model, tables, &perimeter, {}).Run(s);
    ASSERT_TRUE(guided.ok()) << guided.status();
    const ModelBound<FifteenPuzzle> manhattan(model);
    auto plain = IdaStar<FifteenPuzzle, ModelBound<FifteenPuzzle>>(model, manhattan, {}).Run(s);
    ASSERT_TRUE(plain.ok());
    ASSERT_EQ(guided->distance, plain->distance) << Compact(s);
    ASSERT_EQ(guided->moves, plain->moves) << Compact(s);  // the same smallest sequence
    auto mirrored = TilePatternSearch<FifteenPuzzle>(model, tables, nullptr, {}).Run(Reflect(s));
    ASSERT_TRUE(mirrored.ok());
    EXPECT_EQ(mirrored->distance, guided->distance) << Compact(s);
  }
}

// Move pruning (core/sliding/move_pruning.h) keeps, for every board within twelve moves
// of a start, the shortest and then lexicographically smallest sequence that reaches it,
// from every cell of the empty place: the sequence an optimal search must be able to
// play. It does prune: fewer sequences survive than there are.
TEST(MovePruningTest, KeepsTheSmallestSequenceToEveryBoardItPrunes) {
  const FifteenPuzzle model;
  const MovePruning& pruning = MovePruning::Default();
  ASSERT_FALSE(pruning.patterns().empty());
  // Six moves around a 2x2 square one way equal six the other way, which starts smaller.
  EXPECT_NE(std::find(pruning.patterns().begin(), pruning.patterns().end(), "LURDLU"),
            pruning.patterns().end());
  constexpr int kLength = 13;  // past the automaton's own length
  std::mt19937_64 rng(11);
  for (int start_cell = 0; start_cell < kTileCells; ++start_cell) {
    // A board with the empty place on start_cell.
    FifteenBoard start = RandomWalk(rng, 60);
    while (start.blank != start_cell) {
      const int m = start.blank / 4 < start_cell / 4   ? 1
                    : start.blank / 4 > start_cell / 4 ? 0
                    : start.blank % 4 < start_cell % 4 ? 3
                                                       : 2;
      FifteenBoard next;
      ASSERT_TRUE(model.Apply(start, m, &next));
      start = next;
    }
    // Every sequence up to kLength moves, none undoing the last, in lexicographic order
    // within each length: the first to reach a board is its smallest.
    absl::flat_hash_map<uint64_t, std::string> smallest = {{start.tiles, ""}};
    uint64_t all = 0, kept = 0;
    for (int length = 1; length <= kLength; ++length) {
      std::string moves;
      std::function<void(const FifteenBoard&, int, int32_t)> walk =
          [&](const FifteenBoard& s, int last, int32_t state) {
            if (static_cast<int>(moves.size()) == length) {
              ++all;
              if (state != MovePruning::kPruned) ++kept;
              if (smallest.emplace(s.tiles, moves).second) {
                EXPECT_NE(state, MovePruning::kPruned)
                    << "the smallest sequence " << moves << " from cell " << start_cell
                    << " is pruned";
              }
              return;
            }
            for (int m = 0; m < 4; ++m) {
              FifteenBoard t;
              if ((last >= 0 && m == FifteenPuzzle::InverseMove(last)) || !model.Apply(s, m, &t)) {
                continue;
              }
              moves.push_back("UDLR"[m]);
              walk(t, m, state == MovePruning::kPruned ? state : pruning.Next(state, m));
              moves.pop_back();
            }
          };
      walk(start, -1, MovePruning::kStart);
    }
    EXPECT_LT(kept, all) << "nothing pruned from cell " << start_cell;
  }
}

// The automaton compiled in is the one the sequences give when they are found now, with
// the sizes docs/PERFORMANCE.md quotes; shorter ones are smaller and prune less.
TEST(MovePruningTest, TheCompiledAutomatonIsTheOneFoundNow) {
  const MovePruning found(MovePruning::kMaxLength);
  const MovePruning& compiled = MovePruning::Default();
  EXPECT_EQ(found.table(), compiled.table());
  EXPECT_EQ(found.patterns(), compiled.patterns());
  EXPECT_EQ(compiled.patterns().size(), 2536u);
  EXPECT_EQ(compiled.table().size(), 4u * 11759);
  const MovePruning ten(10);
  EXPECT_EQ(ten.patterns().size(), 336u);
  EXPECT_EQ(ten.table().size(), 4u * 1627);
  EXPECT_EQ(ten.patterns().front(), compiled.patterns().front());
}

// The search with its move pruning against plain IDA* (Manhattan distance, no pruning) on
// 2,000 random boards up to 26 moves from the goal, without a perimeter so that the
// search runs down to the goal: the same distance and the same smallest moves.
TEST(PatternSearchTest, MovePruningKeepsTheSmallestAnswerOfPlainIdaStar) {
  const FifteenPuzzle model;
  const PatternTables& tables = SixSixThree();
  const ModelBound<FifteenPuzzle> manhattan(model);
  std::mt19937_64 rng(2005);
  for (int i = 0; i < 2000; ++i) {
    const FifteenBoard s = RandomWalk(rng, 6 + static_cast<int>(rng() % 21));
    auto guided = TilePatternSearch<FifteenPuzzle>(model, tables, nullptr, {}).Run(s);
    ASSERT_TRUE(guided.ok()) << guided.status();
    auto plain = IdaStar<FifteenPuzzle, ModelBound<FifteenPuzzle>>(model, manhattan, {}).Run(s);
    ASSERT_TRUE(plain.ok());
    ASSERT_EQ(guided->distance, plain->distance) << Compact(s);
    ASSERT_EQ(guided->moves, plain->moves) << Compact(s);
  }
}

// Korf's first ten boards split over a helper from their second iteration on: the same
// distance and moves as one thread, and the limits still hold across the threads.
TEST(PatternSearchTest, ASplitSearchGivesTheSameSmallestAnswer) {
  const FifteenPuzzle model;
  const PatternTables& tables = SixSixThree();
  std::istringstream in(testing::Golden("fifteen_korf100.txt"));
  std::string line;
  int boards = 0, splits = 0, helpers = 0;
  while (boards < 10 && std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::array<int, 16> cells{};
    for (int& c : cells) fields >> c;
    int distance = 0;
    std::string moves;
    fields >> distance >> moves;
    const FifteenBoard s = *FifteenPuzzle::BoardFromCells(cells);
    SearchLimits limits;
    limits.threads = SpareThreads(1);
    TilePatternSearch<FifteenPuzzle> split(model, tables, nullptr, limits);
    split.set_split_after(100);
    auto answer = split.Run(s);
    ASSERT_TRUE(answer.ok()) << answer.status();
    EXPECT_EQ(answer->distance, distance);
    std::string letters;
    for (uint8_t m : answer->moves) letters += "UDLR"[m];
    EXPECT_EQ(letters, moves) << line;
    splits += split.split_iterations();
    helpers += split.helpers_started();
    ++boards;
  }
  EXPECT_EQ(boards, 10);
  EXPECT_GE(splits, 10);
  EXPECT_GE(helpers, splits);

  const FifteenBoard korf1 = Fifteen("13,6,8,12,15,14,0,10,11,7,4,5,9,1,3,2");
  SearchLimits budget;
  budget.max_nodes = 50000;
  budget.threads = SpareThreads(1);
  TilePatternSearch<FifteenPuzzle> limited(model, tables, nullptr, budget);
  limited.set_split_after(1000);
  auto stopped = limited.Run(korf1);
  EXPECT_TRUE(absl::IsResourceExhausted(stopped.status())) << stopped.status();
  // A helper that is told to yield leaves the work to the search's own thread.
  SearchLimits yielding;
  yielding.threads = SpareThreads(1);
  yielding.threads.should_yield = [] { return true; };
  TilePatternSearch<FifteenPuzzle> alone(model, tables, nullptr, yielding);
  alone.set_split_after(1000);
  auto answer = alone.Run(korf1);
  ASSERT_TRUE(answer.ok()) << answer.status();
  EXPECT_EQ(answer->distance, 57);
  EXPECT_GT(alone.helpers_started(), 0);
}

TEST(PatternSearchTest, HonoursLimitsAndRefusesByParity) {
  const FifteenPuzzle model;
  const PatternTables& tables = SixSixThree();
  const FifteenBoard korf1 = Fifteen("13,6,8,12,15,14,0,10,11,7,4,5,9,1,3,2");  // 57 moves
  SearchLimits budget;
  budget.max_nodes = 1000;
  auto stopped = TilePatternSearch<FifteenPuzzle>(model, tables, nullptr, budget).Run(korf1);
  EXPECT_TRUE(absl::IsResourceExhausted(stopped.status())) << stopped.status();
  SearchLimits capped;
  capped.max_moves = 50;
  auto beyond = TilePatternSearch<FifteenPuzzle>(model, tables, nullptr, capped).Run(korf1);
  ASSERT_TRUE(beyond.ok());
  EXPECT_EQ(beyond->outcome, Outcome::kNotWithinLimit);
  SearchLimits cancelled;
  cancelled.cancelled = [] { return true; };
  auto gone = TilePatternSearch<FifteenPuzzle>(model, tables, nullptr, cancelled).Run(korf1);
  EXPECT_TRUE(absl::IsCancelled(gone.status())) << gone.status();
  auto odd = TilePatternSearch<FifteenPuzzle>(model, tables, nullptr, {})
                 .Run(Fifteen("13,1,2,4,5,0,3,7,9,6,10,12,15,8,11,14"));
  ASSERT_TRUE(odd.ok());
  EXPECT_EQ(odd->outcome, Outcome::kUnsolvable);
  EXPECT_EQ(odd->nodes, 0u);
}

}  // namespace
}  // namespace puzzledb
