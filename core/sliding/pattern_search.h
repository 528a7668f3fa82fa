// IDA* over the 4x4 sliding-tile board guided by pattern tables (docs/PUZZLES.md, section
// 5): the exact distance and the lexicographically smallest optimal move sequence.
//
// The bound at a board is its Manhattan distance plus twice the larger of two sums of
// stored excesses: the tables read at the board, and read at its reflection about the main
// diagonal (tile t on cell (r, c) becomes the tile whose home is the transposed home of t,
// on cell (c, r); the goal reflects onto itself, so the reflected board is exactly as far
// from the goal). Both are admissible, so their maximum is (the reflected entry is read
// only for a child the direct one does not cut off). A move carries one tile, so
// only the group of that tile (and the group of its reflection) is looked up again; the
// entries of every child are prefetched before the first child is searched.
//
// Lexicographic order: as in core/search/ida_star.h, thresholds never pass the optimal
// distance and moves are tried in canonical order (U D L R), so the first path found at
// the last threshold is the smallest optimal one. The move that undoes the previous one
// is never tried, nor one that completes a sequence with a shorter or smaller equivalent
// (core/sliding/move_pruning.h), which the smallest optimal answer never contains.
// States within the perimeter (the exact distances around the goal) end the search below
// them with their smallest optimal completion.
#ifndef PUZZLEDB_CORE_SLIDING_PATTERN_SEARCH_H_
#define PUZZLEDB_CORE_SLIDING_PATTERN_SEARCH_H_

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "core/model/model.h"
#include "core/search/perimeter.h"
#include "core/search/walk_down.h"
#include "core/sliding/move_pruning.h"
#include "core/sliding/pattern_tables.h"
#include "core/util/strings.h"

namespace puzzledb {

// The moves of the empty place from a cell, in order, but the one that undoes the last
// (four from an inner cell at the root, which has no last move).
struct MoveList {
  int count;
  int move[4];
};

// The board tables every search shares: neighbours, Manhattan distances, the reflection.
struct TileBoardTables {
  int8_t destination[kTileCells][4];      // the empty place's cell after U D L R, or -1
  MoveList moves_after[kTileCells][5];    // [cell][last move + 1] (0: no last move)
  uint8_t manhattan[kTileCells][kTileCells];  // [tile][cell]
  uint8_t transposed[kTileCells];          // cell (r, c) -> (c, r)
  uint8_t reflected_tile[kTileCells];      // tile -> the tile whose home is its home transposed
  TileBoardTables();
};
const TileBoardTables& BoardTables();

// One search; not thread-safe (its helpers are its own threads). `tables` and `perimeter`
// (may be null) must outlive it.
template <PuzzleModel P>
class TilePatternSearch {
  static_assert(P::kNumMoves == 4, "the empty place's moves U D L R");

 public:
  using State = typename P::State;
  using PerimeterType = Perimeter<typename P::Space>;

  TilePatternSearch(const P& model, const PatternTables& tables, const PerimeterType* perimeter,
                    const SearchLimits& limits)
      : model_(model), tables_(tables), perimeter_(perimeter), limits_(limits) {}

  absl::StatusOr<Solution> Run(const State& start) {
    Solution solution;
    solution.source = Source::kSearch;
    if (model_.ProvablyUnsolvable(start)) {
      solution.outcome = Outcome::kUnsolvable;
      return solution;
    }
    const Node root = MakeNode(start);
    int threshold = Bound(root);
    std::vector<uint8_t> path;
    uint64_t last_iteration = 0;
    while (true) {
      if (limits_.max_moves > 0 && threshold > limits_.max_moves) {
        solution.outcome = Outcome::kNotWithinLimit;
        solution.nodes = nodes_;
        return solution;
      }
      const uint64_t before = nodes_;
      next_threshold_ = kInfinity;
      path.clear();
      node_ = root;
      // An iteration grows about sixfold on the one before: past kSplitAfter nodes the next
      // one is worth splitting over spare threads.
      const Step step = limits_.threads && last_iteration >= split_after_
                            ? SplitIteration(root, threshold, &path)
                            : Search(0, threshold, -1, &path);
      last_iteration = nodes_ - before;
      if (step == Step::kFound) break;
      if (step == Step::kAborted) return abort_status_;
      if (next_threshold_ == kInfinity) {
        return absl::InternalError("pattern search: nothing cut off and nothing found");
      }
      threshold = next_threshold_;
    }
    solution.outcome = Outcome::kSolved;
    solution.distance = static_cast<int>(path.size());
    solution.moves = std::move(path);
    solution.nodes = nodes_;
    solution.lookups = lookups_;
    return solution;
  }

  uint64_t nodes() const { return nodes_; }
  // Iterations after one of at least `nodes` nodes are split when threads are lent
  // (tests lower it to split small searches).
  void set_split_after(uint64_t nodes) { split_after_ = nodes; }
  // Iterations split so far, and the helpers they got.
  int split_iterations() const { return split_iterations_; }
  int helpers_started() const { return helpers_started_; }

 private:
  enum class Step { kFound, kContinue, kAborted };
  static constexpr int kInfinity = std::numeric_limits<int>::max();
  static constexpr uint64_t kClockEvery = 4096;
  static constexpr int kMaxGroups = kMaxPatternGroups;
  static constexpr uint64_t kSplitAfter = 200'000;
  // An iteration is split into subtrees whose roots are this many moves deep (deeper
  // when that gives too few to share out).
  static constexpr int kSplitDepth = 8;
  static constexpr size_t kItemsPerThread = 64;
  // No optimal solution is longer than 80 moves, and thresholds never pass the optimal
  // distance; a deeper path means a broken table, and ends the search with an error.
  static constexpr int kMaxDepth = 256;

  // The board being searched, changed in place by each move and back: the board, the
  // reflected board, and what its bound is made of. Each group's index is kept in its two
  // halves (PatternGroup::Split), which a move changes a little: a child's index costs a
  // few operations, not a ranking of the whole group. Everything is kept in ints: a store
  // of a byte may alias any object, and would make the compiler reload every member after
  // it.
  struct Node {
    int32_t tile_at[kTileCells];         // by cell, 0 the empty place
    int32_t mirror_tile_at[kTileCells];  // the reflected board, by cell
    uint32_t cells[kMaxGroups];
    uint32_t order[kMaxGroups];
    uint32_t mirror_cells[kMaxGroups];
    uint32_t mirror_order[kMaxGroups];
    int32_t excess[kMaxGroups];
    int32_t mirror_excess[kMaxGroups];
    int blank = 0;
    int32_t pruning = MovePruning::kStart;  // the automaton's state after the path
    int manhattan = 0;
    int excess_sum = 0;
    int mirror_sum = 0;
  };

  Node MakeNode(const State& s) const {
    const TileBoardTables& t = board_;
    Node n{};
    const std::array<uint8_t, kTileCells> cells = P::CellsOfTiles(s);
    uint8_t cell_of[kTileCells];
    uint8_t mirror_of[kTileCells];  // the reflected board: cell of each tile
    for (int tile = 0; tile < kTileCells; ++tile) {
      cell_of[tile] = cells[tile];
      n.tile_at[cells[tile]] = tile;
      if (tile > 0) n.manhattan += t.manhattan[tile][cells[tile]];
      mirror_of[t.reflected_tile[tile]] = t.transposed[cells[tile]];
      n.mirror_tile_at[t.transposed[cells[tile]]] = t.reflected_tile[tile];
    }
    n.blank = cells[0];
    for (int g = 0; g < tables_.partition().group_count(); ++g) {
      const PatternGroup& group = tables_.group(g);
      group.Split(cell_of, &n.cells[g], &n.order[g]);
      group.Split(mirror_of, &n.mirror_cells[g], &n.mirror_order[g]);
      n.excess[g] = tables_.Excess(g, group.Join(n.cells[g], n.order[g]));
      n.mirror_excess[g] = tables_.Excess(g, group.Join(n.mirror_cells[g], n.mirror_order[g]));
      n.excess_sum += n.excess[g];
      n.mirror_sum += n.mirror_excess[g];
    }
    return n;
  }

  static int Bound(const Node& n) { return n.manhattan + 2 * std::max(n.excess_sum, n.mirror_sum); }

  // The state of the model for a node (for the perimeter).
  State ToState(const Node& n) const {
    State s;
    s.tiles = 0;
    for (int cell = 0; cell < kTileCells; ++cell) {
      s.tiles |= static_cast<uint64_t>(n.tile_at[cell]) << (4 * cell);
    }
    s.blank = static_cast<uint8_t>(n.blank);
    return s;
  }

  // A child of the node: the move, the tile it carries, the two groups that change and
  // their new halves and entries (whose bytes are prefetched when the child is made).
  struct Child {
    int move;
    int cell;  // where the empty place goes
    int tile;
    int group, mirror_group;
    int32_t pruning;
    uint32_t cells, order, mirror_cells, mirror_order;
    uint64_t index, mirror_index;
  };

  // Searches below the board `node_`, reached by the path `*path` (`g` moves, the last
  // `last_move`); on kFound, `*path` is the whole solution.
  Step Search(int g, int threshold, int last_move, std::vector<uint8_t>* path) {
    if (g >= kMaxDepth) return TooDeep();
    std::copy(path->begin(), path->end(), moves_);
    const Step step = Expand(g, threshold, last_move);
    if (step == Step::kFound) {
      *path = std::move(found_);
      found_.clear();
    }
    return step;
  }

  Step TooDeep() {
    abort_status_ = absl::InternalError(Cat("pattern search: deeper than ", kMaxDepth, " moves"));
    return Step::kAborted;
  }

  // The path so far (moves_[0, g)) as the solution's beginning.
  void Found(int g) { found_.assign(moves_, moves_ + g); }

  Step Expand(int g, int threshold, int last_move) {
    Node& n = node_;
    ++nodes_;
    if (absl::Status spent = BudgetSpent(limits_.max_nodes, nodes_, "the search"); !spent.ok()) {
      abort_status_ = std::move(spent);
      return Step::kAborted;
    }
    if (nodes_ % kClockEvery == 0) {
      if (split_ != nullptr) {
        const uint64_t all = split_->nodes_before + kClockEvery +
                             split_->nodes.fetch_add(kClockEvery, std::memory_order_relaxed);
        if (absl::Status spent = BudgetSpent(limits_.max_nodes, all, "the search"); !spent.ok()) {
          abort_status_ = std::move(spent);
          return Step::kAborted;
        }
        if (split_->stop.load(std::memory_order_relaxed)) {
          abort_status_ = absl::CancelledError("another part of the search stopped");
          return Step::kAborted;
        }
      }
      if (absl::Status reached = LimitsReached(limits_, "search"); !reached.ok()) {
        abort_status_ = absl::Status(reached.code(),
                                     Cat(std::string(reached.message()), " after ", nodes_, " nodes"));
        return Step::kAborted;
      }
    }
    const int h = Bound(n);
    if (collect_ != nullptr &&
        (g == collect_depth_ || h == 0 || (perimeter_ != nullptr && h <= perimeter_->radius()))) {
      // A subtree for SplitIteration's workers.
      collect_->push_back({n, std::vector<uint8_t>(moves_, moves_ + g), g, last_move});
      return Step::kContinue;
    }
    if (h == 0) {  // only the goal has a zero bound
      Found(g);
      return Step::kFound;
    }
    if (h <= perimeter_radius_) {
      const State s = ToState(n);
      ++lookups_;
      const int d = perimeter_->Distance(model_.Rank(s));
      if (d >= 0) {
        if (g + d > threshold) {
          next_threshold_ = std::min(next_threshold_, g + d);
          return Step::kContinue;
        }
        Found(g);
        absl::Status walked = WalkDown(
            model_, s, d,
            [this](const State& t) {
              ++lookups_;
              return perimeter_->Distance(model_.Rank(t));
            },
            "the perimeter", &found_);
        if (!walked.ok()) {
          abort_status_ = walked;
          return Step::kAborted;
        }
        return Step::kFound;
      }
      // Outside the perimeter: at least radius + 1 away.
      const int lower = RaiseToParity<P>(s, perimeter_->radius() + 1);
      if (g + lower > threshold) {
        next_threshold_ = std::min(next_threshold_, g + lower);
        return Step::kContinue;
      }
    }
    if (g + 1 >= kMaxDepth) return TooDeep();
    const TileBoardTables& t = board_;
    const int blank = n.blank;
    const MoveList& moves = t.moves_after[blank][last_move + 1];
    Child children[4];
    int count = 0;
    for (int k = 0; k < moves.count; ++k) {
      const int m = moves.move[k];
      const int32_t pruning = pruning_.Next(n.pruning, m);
      if (pruning == MovePruning::kPruned) continue;
      const int cell = t.destination[blank][m];
      Child& c = children[count++];
      c.move = m;
      c.pruning = pruning;
      c.cell = cell;
      c.tile = n.tile_at[cell];
      const TileView& tile = tiles_[c.tile];
      c.group = tile.group;
      c.mirror_group = tile.mirror_group;
      // The tile goes from `cell` to `blank`; on the reflected board, from the one's
      // transpose to the other's.
      const PatternGroup& group = tables_.group(c.group);
      c.cells = n.cells[c.group] ^ (1u << cell) ^ (1u << blank);
      c.order = group.OrderAfterMove(n.order[c.group], c.tile, cell, blank, n.tile_at);
      c.index = group.Join(c.cells, c.order);
      __builtin_prefetch(tables_.Address(c.group, c.index));
      const int mirror_from = t.transposed[c.cell], mirror_to = t.transposed[blank];
      const PatternGroup& mirror_group = tables_.group(c.mirror_group);
      c.mirror_cells = n.mirror_cells[c.mirror_group] ^ (1u << mirror_from) ^ (1u << mirror_to);
      c.mirror_order = mirror_group.OrderAfterMove(n.mirror_order[c.mirror_group],
                                                   tiles_[c.tile].mirror_tile, mirror_from,
                                                   mirror_to, n.mirror_tile_at);
      c.mirror_index = mirror_group.Join(c.mirror_cells, c.mirror_order);
      __builtin_prefetch(tables_.Address(c.mirror_group, c.mirror_index));
    }
    for (int i = 0; i < count; ++i) {
      const Child& c = children[i];
      const int e = tables_.Excess(c.group, c.index);
      ++lookups_;
      const int manhattan = n.manhattan + t.manhattan[c.tile][blank] - t.manhattan[c.tile][c.cell];
      const int sum = n.excess_sum + e - n.excess[c.group];
      const int base = g + 1 + manhattan;
      // A child the direct sum cuts off alone is dropped without waiting for its reflected
      // entry (prefetched all the same): half of the 7-8 set's time is spent waiting for
      // entries (docs/PERFORMANCE.md, "The reflected entry read only when it can matter").
      // Its f is then a smaller bound, still admissible, for the next threshold.
      if (base + 2 * sum > threshold) {
        const int direct = base + 2 * sum;
        if (direct < next_threshold_) next_threshold_ = direct;
        continue;
      }
      const int me = tables_.Excess(c.mirror_group, c.mirror_index);
      ++lookups_;
      const int mirror_sum = n.mirror_sum + me - n.mirror_excess[c.mirror_group];
      const int f = base + 2 * std::max(sum, mirror_sum);
      if (f > threshold) {
        if (f < next_threshold_) next_threshold_ = f;
        continue;
      }
      // Make the move, search below it, unmake it.
      const int mirror_blank = t.transposed[blank], mirror_cell = t.transposed[c.cell];
      const int mirror_tile = tiles_[c.tile].mirror_tile;
      const int old_e = n.excess[c.group], old_me = n.mirror_excess[c.mirror_group];
      const uint32_t old_cells = n.cells[c.group], old_order = n.order[c.group];
      const uint32_t old_mirror_cells = n.mirror_cells[c.mirror_group];
      const uint32_t old_mirror_order = n.mirror_order[c.mirror_group];
      const int old_manhattan = n.manhattan, old_sum = n.excess_sum, old_msum = n.mirror_sum;
      const int32_t old_pruning = n.pruning;
      n.blank = c.cell;
      n.pruning = c.pruning;
      n.tile_at[blank] = c.tile;
      n.tile_at[c.cell] = 0;
      n.mirror_tile_at[mirror_blank] = mirror_tile;
      n.mirror_tile_at[mirror_cell] = 0;
      n.cells[c.group] = c.cells;
      n.order[c.group] = c.order;
      n.mirror_cells[c.mirror_group] = c.mirror_cells;
      n.mirror_order[c.mirror_group] = c.mirror_order;
      n.excess[c.group] = e;
      n.mirror_excess[c.mirror_group] = me;
      n.manhattan = manhattan;
      n.excess_sum = sum;
      n.mirror_sum = mirror_sum;
      moves_[g] = c.move;
      const Step step = Expand(g + 1, threshold, c.move);
      if (step != Step::kContinue) return step;
      n.blank = blank;
      n.pruning = old_pruning;
      n.tile_at[blank] = 0;
      n.tile_at[c.cell] = c.tile;
      n.mirror_tile_at[mirror_blank] = 0;
      n.mirror_tile_at[mirror_cell] = mirror_tile;
      n.cells[c.group] = old_cells;
      n.order[c.group] = old_order;
      n.mirror_cells[c.mirror_group] = old_mirror_cells;
      n.mirror_order[c.mirror_group] = old_mirror_order;
      n.excess[c.group] = old_e;
      n.mirror_excess[c.mirror_group] = old_me;
      n.manhattan = old_manhattan;
      n.excess_sum = old_sum;
      n.mirror_sum = old_msum;
    }
    return Step::kContinue;
  }

  // One iteration split over spare threads (docs/API.md, "Searches"). The subtrees below
  // the nodes `depth` moves deep are listed in canonical (DFS) order and handed out in that
  // order; a subtree's first solution is its smallest, so the answer is that of the
  // first-listed subtree with one, once every subtree before it is done. Subtrees after a
  // found one are not started.
  struct Item {
    Node node;
    std::vector<uint8_t> path;
    int g;
    int last_move;
  };
  struct Split {
    std::vector<Item> items;
    std::vector<std::vector<uint8_t>> found;  // by item: the solution below it, if any
    std::atomic<size_t> cursor{0};
    std::atomic<size_t> best{0};     // the first item known to hold a solution
    std::atomic<bool> stop{false};   // a worker aborted (deadline, budget, cancellation)
    std::atomic<uint64_t> nodes{0};  // every worker's, this iteration, in clock steps
    uint64_t nodes_before = 0;       // the iterations before, for the budget
    LentHelpers lent;
    std::mutex mutex;                // guards the rest
    absl::Status abort;
    int next_threshold = kInfinity;
    uint64_t nodes_done = 0, lookups_done = 0;
  };

  void Work(Split& split, int threshold, bool helper) {
    split_ = &split;
    const uint64_t start_nodes = nodes_, start_lookups = lookups_;
    next_threshold_ = kInfinity;
    while (!split.stop.load(std::memory_order_relaxed)) {
      if (helper && limits_.threads.ShouldYield()) break;
      const size_t i = split.cursor.fetch_add(1);
      if (i >= split.items.size() || i > split.best.load()) break;
      const Item& item = split.items[i];
      node_ = item.node;
      std::vector<uint8_t> path = item.path;
      const Step step = Search(item.g, threshold, item.last_move, &path);
      if (step == Step::kFound) {
        split.found[i] = std::move(path);
        size_t best = split.best.load();
        while (i < best && !split.best.compare_exchange_weak(best, i)) {
        }
      } else if (step == Step::kAborted) {
        std::lock_guard<std::mutex> lock(split.mutex);
        if (split.abort.ok()) split.abort = abort_status_;
        split.stop.store(true);
        break;
      }
    }
    split_ = nullptr;
    std::lock_guard<std::mutex> lock(split.mutex);
    split.next_threshold = std::min(split.next_threshold, next_threshold_);
    split.nodes_done += nodes_ - start_nodes;
    split.lookups_done += lookups_ - start_lookups;
  }

  Step SplitIteration(const Node& root, int threshold, std::vector<uint8_t>* path) {
    auto split = std::make_shared<Split>();
    const int helpers = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) - 1);
    for (int depth = kSplitDepth;; depth += 2) {
      split->items.clear();
      collect_ = &split->items;
      collect_depth_ = depth;
      node_ = root;
      next_threshold_ = kInfinity;
      std::vector<uint8_t> prefix;
      const Step step = Search(0, threshold, -1, &prefix);
      collect_ = nullptr;
      if (step == Step::kAborted) return step;
      if (split->items.size() >= kItemsPerThread * (helpers + 1) || depth >= threshold) break;
    }
    const int listed_threshold = next_threshold_;
    split->found.resize(split->items.size());
    split->best.store(split->items.size());
    split->nodes_before = nodes_;
    // The task keeps `split` alive; `this` outlives it (waited for below).
    helpers_started_ += split->lent.Lend(limits_.threads, helpers, [this, split, threshold] {
      TilePatternSearch helper(model_, tables_, perimeter_, limits_);
      helper.Work(*split, threshold, true);
    });
    ++split_iterations_;
    const uint64_t own_nodes = nodes_, own_lookups = lookups_;
    Work(*split, threshold, false);
    split->lent.Wait();
    std::lock_guard<std::mutex> lock(split->mutex);
    // Every worker's counts, this worker's included once.
    nodes_ = own_nodes + split->nodes_done;
    lookups_ = own_lookups + split->lookups_done;
    next_threshold_ = std::min(listed_threshold, split->next_threshold);
    if (split->stop.load()) {
      abort_status_ = split->abort;
      return Step::kAborted;
    }
    const size_t best = split->best.load();
    if (best < split->items.size()) {
      *path = std::move(split->found[best]);
      return Step::kFound;
    }
    return Step::kContinue;
  }

  // What the hot loop needs of each tile, copied out of the partition and the board: its
  // group, its reflection and the reflection's group.
  struct TileView {
    int group = 0;
    int mirror_tile = 0;
    int mirror_group = 0;
  };
  std::array<TileView, kTileCells> MakeTileViews() const {
    std::array<TileView, kTileCells> v{};
    for (int tile = 1; tile < kTileCells; ++tile) {
      v[tile].group = tables_.partition().group_of(tile);
      v[tile].mirror_tile = board_.reflected_tile[tile];
      v[tile].mirror_group = tables_.partition().group_of(v[tile].mirror_tile);
    }
    return v;
  }

  const P& model_;
  const PatternTables& tables_;
  const PerimeterType* perimeter_;
  const SearchLimits limits_;
  const TileBoardTables& board_ = BoardTables();
  const std::array<TileView, kTileCells> tiles_ = MakeTileViews();
  // The perimeter's radius, -1 without one (no bound is below 0).
  const int perimeter_radius_ = perimeter_ != nullptr ? perimeter_->radius() : -1;
  const MovePruning& pruning_ = MovePruning::Default();
  Node node_;
  int moves_[kMaxDepth] = {};      // the path to node_ (ints: see Node)
  std::vector<uint8_t> found_;     // the solution, once found
  std::vector<Item>* collect_ = nullptr;  // SplitIteration's listing, while it lists
  int collect_depth_ = 0;
  uint64_t split_after_ = kSplitAfter;
  int split_iterations_ = 0;
  int helpers_started_ = 0;
  Split* split_ = nullptr;  // the split iteration this worker works on
  uint64_t nodes_ = 0;
  uint64_t lookups_ = 0;
  int next_threshold_ = kInfinity;
  absl::Status abort_status_;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_SLIDING_PATTERN_SEARCH_H_
