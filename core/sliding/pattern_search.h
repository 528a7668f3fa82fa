// IDA* over the 4x4 sliding-tile board guided by pattern tables (docs/PUZZLES.md, section
// 5): the exact distance and the lexicographically smallest optimal move sequence.
//
// The bound at a board is its Manhattan distance plus twice the larger of two sums of
// stored excesses: the tables read at the board, and read at its reflection about the main
// diagonal (tile t on cell (r, c) becomes the tile whose home is the transposed home of t,
// on cell (c, r); the goal reflects onto itself, so the reflected board is exactly as far
// from the goal). Both are admissible, so their maximum is. A move carries one tile, so
// only the group of that tile (and the group of its reflection) is looked up again; the
// entries of every child are prefetched before the first child is searched.
//
// Lexicographic order: as in core/search/ida_star.h, thresholds never pass the optimal
// distance and moves are tried in canonical order (U D L R), so the first path found at
// the last threshold is the smallest optimal one. The move that undoes the previous one
// is never tried. States within the perimeter (the exact distances around the goal) end
// the search below them with their smallest optimal completion.
#ifndef PUZZLEDB_CORE_SLIDING_PATTERN_SEARCH_H_
#define PUZZLEDB_CORE_SLIDING_PATTERN_SEARCH_H_

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <condition_variable>
#include <limits>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "core/model/model.h"
#include "core/search/perimeter.h"
#include "core/search/walk_down.h"
#include "core/sliding/pattern_tables.h"
#include "core/util/strings.h"

namespace puzzledb {

// The board tables every search shares: neighbours, Manhattan distances, the reflection.
struct TileBoardTables {
  int8_t destination[kTileCells][4];      // the empty place's cell after U D L R, or -1
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

  // The board being searched, changed in place by each move and back: the cells, the
  // reflected board's cells, and what its bound is made of.
  struct Node {
    uint8_t cell_of[kTileCells];    // by tile, 0 the empty place
    uint8_t tile_at[kTileCells];    // by cell
    uint8_t mirror_of[kTileCells];  // the reflected board: cell of each tile
    uint64_t index[kMaxGroups];
    uint64_t mirror_index[kMaxGroups];
    uint8_t excess[kMaxGroups];
    uint8_t mirror_excess[kMaxGroups];
    int manhattan = 0;
    int excess_sum = 0;
    int mirror_sum = 0;
  };

  Node MakeNode(const State& s) const {
    const TileBoardTables& t = board_;
    Node n{};
    const std::array<uint8_t, kTileCells> cells = P::CellsOfTiles(s);
    for (int tile = 0; tile < kTileCells; ++tile) {
      n.cell_of[tile] = cells[tile];
      n.tile_at[cells[tile]] = static_cast<uint8_t>(tile);
      if (tile > 0) n.manhattan += t.manhattan[tile][cells[tile]];
    }
    for (int tile = 0; tile < kTileCells; ++tile) {
      n.mirror_of[t.reflected_tile[tile]] = t.transposed[cells[tile]];
    }
    for (int g = 0; g < tables_.partition().group_count(); ++g) {
      n.index[g] = tables_.group(g).Index(n.cell_of);
      n.mirror_index[g] = tables_.group(g).Index(n.mirror_of);
      n.excess[g] = tables_.Excess(g, n.index[g]);
      n.mirror_excess[g] = tables_.Excess(g, n.mirror_index[g]);
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
    s.blank = n.cell_of[0];
    return s;
  }

  // A child of the node: the move, the tile it carries, the two groups that change and
  // their new indices (whose entries are prefetched when the child is made).
  struct Child {
    int move;
    int cell;  // where the empty place goes
    int tile;
    int group, mirror_group;
    uint64_t index, mirror_index;
  };

  Step Search(int g, int threshold, int last_move, std::vector<uint8_t>* path) {
    Node& n = node_;
    ++nodes_;
    if (limits_.max_nodes != 0 && nodes_ > limits_.max_nodes) {
      abort_status_ = absl::ResourceExhaustedError(
          Cat("search stopped after its budget of ", limits_.max_nodes, " nodes"));
      return Step::kAborted;
    }
    if (nodes_ % kClockEvery == 0) {
      if (split_ != nullptr) {
        const uint64_t all = split_->nodes_before + kClockEvery +
                             split_->nodes.fetch_add(kClockEvery, std::memory_order_relaxed);
        if (limits_.max_nodes != 0 && all > limits_.max_nodes) {
          abort_status_ = absl::ResourceExhaustedError(
              Cat("search stopped after its budget of ", limits_.max_nodes, " nodes"));
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
      collect_->push_back({n, *path, g, last_move});  // a subtree for SplitIteration's workers
      return Step::kContinue;
    }
    if (h == 0) return Step::kFound;  // only the goal has a zero bound
    if (perimeter_ != nullptr && h <= perimeter_->radius()) {
      const State s = ToState(n);
      ++lookups_;
      const int d = perimeter_->Distance(model_.Rank(s));
      if (d >= 0) {
        if (g + d > threshold) {
          next_threshold_ = std::min(next_threshold_, g + d);
          return Step::kContinue;
        }
        absl::Status walked = WalkDown(
            model_, s, d,
            [this](const State& t) {
              ++lookups_;
              return perimeter_->Distance(model_.Rank(t));
            },
            "the perimeter", path);
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
    const TileBoardTables& t = board_;
    const PatternPartitionView& groups = groups_;
    const int undo = last_move < 0 ? -1 : P::InverseMove(last_move);
    const int blank = n.cell_of[0];
    Child children[4];
    int count = 0;
    for (int m = 0; m < 4; ++m) {
      const int cell = t.destination[blank][m];
      if (m == undo || cell < 0) continue;
      Child& c = children[count++];
      c.move = m;
      c.cell = cell;
      c.tile = n.tile_at[cell];
      const int mirror_tile = t.reflected_tile[c.tile];
      c.group = groups.group_of[c.tile];
      c.mirror_group = groups.group_of[mirror_tile];
      n.cell_of[c.tile] = static_cast<uint8_t>(blank);
      c.index = tables_.group(c.group).Index(n.cell_of);
      n.cell_of[c.tile] = static_cast<uint8_t>(cell);
      n.mirror_of[mirror_tile] = t.transposed[blank];
      c.mirror_index = tables_.group(c.mirror_group).Index(n.mirror_of);
      n.mirror_of[mirror_tile] = t.transposed[cell];
      __builtin_prefetch(tables_.Address(c.group, c.index));
      __builtin_prefetch(tables_.Address(c.mirror_group, c.mirror_index));
    }
    for (int i = 0; i < count; ++i) {
      const Child& c = children[i];
      const uint8_t e = tables_.Excess(c.group, c.index);
      const uint8_t me = tables_.Excess(c.mirror_group, c.mirror_index);
      lookups_ += 2;
      const int manhattan = n.manhattan + t.manhattan[c.tile][blank] - t.manhattan[c.tile][c.cell];
      const int sum = n.excess_sum + e - n.excess[c.group];
      const int mirror_sum = n.mirror_sum + me - n.mirror_excess[c.mirror_group];
      const int f = g + 1 + manhattan + 2 * std::max(sum, mirror_sum);
      if (f > threshold) {
        if (f < next_threshold_) next_threshold_ = f;
        continue;
      }
      // Make the move, search below it, unmake it.
      const int mirror_tile = t.reflected_tile[c.tile];
      const uint8_t old_e = n.excess[c.group], old_me = n.mirror_excess[c.mirror_group];
      const uint64_t old_index = n.index[c.group], old_mirror = n.mirror_index[c.mirror_group];
      const int old_manhattan = n.manhattan, old_sum = n.excess_sum, old_msum = n.mirror_sum;
      n.cell_of[0] = static_cast<uint8_t>(c.cell);
      n.cell_of[c.tile] = static_cast<uint8_t>(blank);
      n.tile_at[blank] = static_cast<uint8_t>(c.tile);
      n.tile_at[c.cell] = 0;
      n.mirror_of[0] = t.transposed[c.cell];
      n.mirror_of[mirror_tile] = t.transposed[blank];
      n.index[c.group] = c.index;
      n.mirror_index[c.mirror_group] = c.mirror_index;
      n.excess[c.group] = e;
      n.mirror_excess[c.mirror_group] = me;
      n.manhattan = manhattan;
      n.excess_sum = sum;
      n.mirror_sum = mirror_sum;
      path->push_back(static_cast<uint8_t>(c.move));
      const Step step = Search(g + 1, threshold, c.move, path);
      if (step != Step::kContinue) return step;
      path->pop_back();
      n.cell_of[0] = static_cast<uint8_t>(blank);
      n.cell_of[c.tile] = static_cast<uint8_t>(c.cell);
      n.tile_at[blank] = 0;
      n.tile_at[c.cell] = static_cast<uint8_t>(c.tile);
      n.mirror_of[0] = t.transposed[blank];
      n.mirror_of[mirror_tile] = t.transposed[c.cell];
      n.index[c.group] = old_index;
      n.mirror_index[c.mirror_group] = old_mirror;
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
    std::mutex mutex;                // guards the rest
    std::condition_variable helpers_done;
    int helpers = 0;
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
    for (int h = 0; h < helpers; ++h) {
      {
        std::lock_guard<std::mutex> lock(split->mutex);
        ++split->helpers;
      }
      // Both keep `split` alive; `this` outlives them (waited for below).
      const bool started = limits_.threads.lend(
          [this, split, threshold] {
            TilePatternSearch helper(model_, tables_, perimeter_, limits_);
            helper.Work(*split, threshold, true);
          },
          [split] {
            std::lock_guard<std::mutex> lock(split->mutex);
            --split->helpers;
            split->helpers_done.notify_all();
          });
      if (!started) {
        std::lock_guard<std::mutex> lock(split->mutex);
        --split->helpers;
        break;
      }
      ++helpers_started_;
    }
    ++split_iterations_;
    const uint64_t own_nodes = nodes_, own_lookups = lookups_;
    Work(*split, threshold, false);
    std::unique_lock<std::mutex> lock(split->mutex);
    split->helpers_done.wait(lock, [&] { return split->helpers == 0; });
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

  // The group of every tile, copied out of the partition for the hot loop.
  struct PatternPartitionView {
    int8_t group_of[kTileCells];
  };
  PatternPartitionView MakeView() const {
    PatternPartitionView v{};
    for (int tile = 1; tile < kTileCells; ++tile) {
      v.group_of[tile] = static_cast<int8_t>(tables_.partition().group_of(tile));
    }
    return v;
  }

  const P& model_;
  const PatternTables& tables_;
  const PerimeterType* perimeter_;
  const SearchLimits limits_;
  const TileBoardTables& board_ = BoardTables();
  const PatternPartitionView groups_ = MakeView();
  Node node_;
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
