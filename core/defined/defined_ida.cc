#include "core/defined/defined_ida.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "core/definition/defined_index.h"
#include "core/search/walk_down.h"
#include "core/util/strings.h"

namespace puzzledb {

// What every search of one definition with one set of tables shares, made once
// (DefinedIdaPlan's constructor): the compiled moves, which moves are not tried after which,
// the tables' views at each image, the goal tables by goal, the invariants.
class DefinedIdaPlan {
 public:
  DefinedIdaPlan(const Definition& d, std::span<const ProjectionTable* const> tables,
                 const std::vector<DefinedSymmetry>* symmetries)
      : d_(d),
        moves_of_(d_),
        tables_(tables),
        symmetries_(symmetries),
        images_(symmetries != nullptr ? symmetries->size() : 0),
        invariants_(DefinedIndex::Invariants(d_, moves_of_)) {
    PruneMoves();
    MakeViews();
    // Goal tables (ProjectionSpec::goal) by goal; the others bound every goal.
    for (size_t t = 0; t < tables_.size(); ++t) {
      const int goal = tables_[t]->spec().goal;
      if (goal == 0) {
        common_.push_back(t);
        continue;
      }
      if (by_goal_.size() < static_cast<size_t>(goal)) by_goal_.resize(static_cast<size_t>(goal));
      by_goal_[static_cast<size_t>(goal - 1)].push_back(t);
    }
    // A goal without a table of its own is bounded by the common tables alone (ByGoal).
    if (!by_goal_.empty()) by_goal_.resize(d_.patterns().size());
  }

  // Table t read at image k of a state (k 0: the state itself), straight from the
  // definition's bytes: the image and the projection composed, so that neither is made.
  struct View {
    const ProjectionTable* table = nullptr;
    std::vector<uint8_t> value;     // [projected byte * 256 + what its source holds]
    std::vector<uint32_t> first;    // by definition byte: its readers are [first[p], first[p + 1])
    std::vector<uint16_t> readers;  // projected bytes, by the byte they read
    DefinedIndex::Reading reading;  // the table's index read through source and value

    uint64_t Entry(const uint8_t* state) const { return table->index().RankRead(state, reading); }
    // True when `a` and `b`, which differ at most at the bytes `changed`, look the same.
    bool Same(const uint8_t* a, const uint8_t* b, const std::vector<uint16_t>& changed) const {
      for (const uint16_t p : changed) {
        for (uint32_t r = first[p]; r < first[p + 1]; ++r) {
          const size_t row = size_t{readers[r]} * 256;
          if (value[row + a[p]] != value[row + b[p]]) return false;
        }
      }
      return true;
    }
  };

  // The rest is read by the search below (Ida), this file's alone.

  // Which moves are not tried after which: after move a, move b when both are powers of one
  // written move (together they make another power, or nothing: a shorter sequence), or
  // when the two commute and b's written move comes first in canonical order (b a reaches
  // the same state and is smaller). Neither pair is ever in the lexicographically smallest
  // optimal answer. Guarded moves are never pruned: what they do depends on the state.
  void PruneMoves() {
    const int n = moves_of_.move_count();
    std::vector<int> family(static_cast<size_t>(n), -1);
    int f = -1;
    for (int m = 0; m < n; ++m) {
      const DefinedMove& move = d_.moves()[static_cast<size_t>(m)];
      const bool one_block = moves_of_.first_block(m + 1) - moves_of_.first_block(m) == 1 &&
                             moves_of_.block(moves_of_.first_block(m)).tests.empty();
      if (move.guarded || !one_block) continue;
      if (move.power == 1 || f < 0) ++f;
      family[static_cast<size_t>(m)] = f;
    }
    // A move alone in its family has no powers: it is its own inverse (and twice in a row
    // changes nothing, which the search sees), or single (Move A single), where twice in a
    // row is no power and may be in an answer.
    std::vector<int> members(static_cast<size_t>(f + 1), 0);
    for (const int fm : family) {
      if (fm >= 0) ++members[static_cast<size_t>(fm)];
    }
    skip_.assign(static_cast<size_t>(n), std::vector<char>(static_cast<size_t>(n), 0));
    for (int a = 0; a < n; ++a) {
      const int fa = family[static_cast<size_t>(a)];
      if (fa < 0) continue;
      for (int b = 0; b < n; ++b) {
        const int fb = family[static_cast<size_t>(b)];
        if (fb < 0) continue;
        skip_[static_cast<size_t>(a)][static_cast<size_t>(b)] =
            (fa == fb && members[static_cast<size_t>(fa)] > 1) ||
            // (Where Illegal lines forbid states, b then a may pass through one that a then
            // b does not: commuting moves are both tried.)
            (fb < fa && d_.illegal().empty() && Commute(moves_of_.first_block(a), moves_of_.first_block(b)));
      }
    }
  }
  // Blocks a and b give the same state in either order, from every state.
  bool Commute(int a, int b) const {
    const CompiledMoves::Block& x = moves_of_.block(a);
    const CompiledMoves::Block& y = moves_of_.block(b);
    for (int i = 0; i < moves_of_.state_bytes(); ++i) {
      // Byte i after x then y: byte x.source[y.source[i]] of the state, turned by
      // x.add[y.source[i]] + y.add[i]; the other way round likewise.
      const uint16_t xy = x.source[y.source[static_cast<size_t>(i)]];
      const uint16_t yx = y.source[x.source[static_cast<size_t>(i)]];
      if (xy != yx) return false;
      const unsigned mod = x.modulus[static_cast<size_t>(i)];
      if (mod == 0) continue;
      const unsigned turn_xy = x.add[y.source[static_cast<size_t>(i)]] + y.add[static_cast<size_t>(i)];
      const unsigned turn_yx = y.add[x.source[static_cast<size_t>(i)]] + x.add[static_cast<size_t>(i)];
      if (turn_xy % mod != turn_yx % mod) return false;
    }
    return true;
  }

  // views_[k * tables + t]: table t at image k.
  void MakeViews() {
    const size_t bytes = static_cast<size_t>(moves_of_.state_bytes());
    std::vector<int> set_of(bytes, -1);  // the set of each label byte
    for (size_t s = 0; s < d_.sets().size(); ++s) {
      const DefinedSet& set = d_.sets()[s];
      for (int j = 0; j < set.size; ++j) set_of[static_cast<size_t>(set.offset + j)] = static_cast<int>(s);
    }
    for (size_t k = 0; k <= images_; ++k) {
      // The definition's byte that image k's byte p comes from (what Apply writes there).
      std::vector<size_t> from(bytes);
      for (size_t p = 0; p < bytes; ++p) from[p] = p;
      const DefinedSymmetry* symmetry = k > 0 ? &(*symmetries_)[k - 1] : nullptr;
      if (symmetry != nullptr) {
        for (size_t q = 0; q < bytes; ++q) from[symmetry->position[q]] = q;
      }
      for (const ProjectionTable* table : tables_) {
        const Projection& projection = table->projection();
        View view;
        view.table = table;
        const int n = projection.bytes();
        view.value.assign(static_cast<size_t>(n) * 256, 0);
        std::vector<std::vector<uint16_t>> readers(bytes);
        std::vector<uint16_t> source;  // by projected byte: the definition's byte it reads
        for (int i = 0; i < n; ++i) {
          const size_t q = from[projection.SourceOf(i)];
          source.push_back(static_cast<uint16_t>(q));
          readers[q].push_back(static_cast<uint16_t>(i));
          for (int v = 0; v < 256; ++v) {
            uint8_t seen = static_cast<uint8_t>(v);  // what image k holds there
            if (symmetry != nullptr && set_of[q] >= 0) {  // (symmetries move no orientations)
              const std::vector<uint8_t>& label = symmetry->label[static_cast<size_t>(set_of[q])];
              if (static_cast<size_t>(v) >= label.size()) continue;
              seen = label[static_cast<size_t>(v)];
            }
            view.value[static_cast<size_t>(i) * 256 + static_cast<size_t>(v)] = projection.ValueOf(i, seen);
          }
        }
        view.reading = table->index().ReadingOf(source, view.value);
        view.first.push_back(0);
        for (const std::vector<uint16_t>& r : readers) {
          view.readers.insert(view.readers.end(), r.begin(), r.end());
          view.first.push_back(static_cast<uint32_t>(view.readers.size()));
        }
        views_.push_back(std::move(view));
      }
    }
  }


  // Table t's entry for the child's image k (0: the child itself), found once.
  const Definition d_;
  const CompiledMoves moves_of_;
  const std::span<const ProjectionTable* const> tables_;
  const std::vector<DefinedSymmetry>* const symmetries_;
  const size_t images_;
  const DefinedIndex invariants_;
  std::vector<std::vector<char>> skip_;  // skip_[a][b]: b is not tried after a
  std::vector<View> views_;               // views_[k * tables + t]: table t at image k
  std::vector<size_t> common_;               // tables that bound every goal
  std::vector<std::vector<size_t>> by_goal_;  // by goal: its tables (empty: no goal tables)
};

namespace {

class Ida {
 public:
  Ida(const DefinedIdaPlan& plan, const DefinedIdaOptions& options) : plan_(plan), options_(options) {}

  absl::StatusOr<DefinedIdaResult> Run(const DefinedState& start) {
    Prepare(start);
    // Where every move flips a parity, a distance has the parity of its state: a bound of
    // the other is one short (and thresholds go up by two).
    const DefinedIndex& invariants = plan_.invariants_;
    parity_ = invariants.Indexable(start.data()) ? invariants.DistanceParity(start.data()) : -1;
    if (perimeter_ != nullptr) {
      ++result_.lookups;
      const int exact = perimeter_->Distance(start);
      if (exact >= 0 && exact <= options_.max_depth) {
        if (absl::Status walked = WalkDown(start, exact); !walked.ok()) return walked;
        result_.solved = true;
        result_.moves = moves_;
        return result_;
      }
    }
    int threshold = WithParity(Bound(start, ProjectionTable::kUnreachable), 0);
    uint64_t last_iteration = 0;
    while (threshold <= options_.max_depth) {
      ++result_.iterations;
      next_threshold_ = ProjectionTable::kUnreachable;
      moves_.clear();
      // An iteration grows on the one before: past split_after states, the next is worth
      // splitting over spare threads.
      const uint64_t before = result_.nodes;
      const bool split = options_.threads != nullptr && *options_.threads && last_iteration >= options_.split_after;
      Grow(threshold);
      auto found = split ? SplitIteration(threshold) : Dfs(0, threshold);
      last_iteration = result_.nodes - before;
      if (!found.ok()) return found.status();
      if (*found) {
        result_.solved = true;
        result_.moves = moves_;
        return result_;
      }
      threshold = next_threshold_;
    }
    result_.unreachable = threshold >= ProjectionTable::kUnreachable;
    return result_;
  }

 private:
  void Prepare(const DefinedState& start) {
    path_.assign(1, start);
    children_.clear();
    node_.assign(1, nullptr);
    pruning_state_.assign(1, DefinedPruning::kStart);
  }
  // Room for a path of `threshold` moves: before an iteration, never during one (Dfs holds
  // references into these). A short answer allocates for its own depth alone.
  void Grow(int threshold) {
    const size_t n = static_cast<size_t>(std::min(threshold, options_.max_depth)) + 2;
    if (path_.size() >= n) return;
    path_.resize(n, path_[0]);
    children_.resize(n);
    node_.resize(n, nullptr);
    pruning_state_.resize(n, DefinedPruning::kStart);
  }

  // Appends the smallest moves from `state`, `distance` away within the perimeter, down to
  // a goal: at each step the first move in canonical order to a state one nearer.
  // The definition's moves and goals as the shared walk down reads a model.
  struct Walked {
    using State = DefinedState;
    const Definition* d;
    const CompiledMoves* moves;
    int move_count() const { return moves->move_count(); }
    bool Apply(const State& s, int m, State* out) const {
      out->resize(s.size());
      return moves->Apply(s.data(), m, out->data());
    }
    bool IsGoal(const State& s) const { return d->IsGoal(s); }
  };

  // The answer's end: the smallest moves down the perimeter from `state`, `distance` away,
  // each step checked (core/search/walk_down.h): a perimeter that disagrees with the moves
  // is DATA_LOSS, never an answer that does not reach a goal.
  absl::Status WalkDown(const DefinedState& state, int distance) {
    return puzzledb::WalkDown(
        Walked{&d_, &moves_of_}, state, distance,
        [this](const DefinedState& s) {
          ++result_.lookups;
          return perimeter_->Distance(s);
        },
        "the definition's perimeter", &moves_);
  }

  // A bound of a state g moves from the start raised to the parity of its distance, where
  // the moves keep one.
  int WithParity(int h, int g) const {
    if (parity_ < 0 || h >= ProjectionTable::kUnreachable) return h;
    return h + ((h ^ parity_ ^ g) & 1);
  }

  // The start's largest bound (or the sum), stopping as soon as it passes `enough`.
  int Bound(const DefinedState& state, int enough) {
    if (!by_goal_.empty()) {
      return ByGoal([&](size_t t) { return tables_[t]->Bound(state, &scratch_); });
    }
    int h = 0;
    for (const ProjectionTable* t : tables_) {
      const int one = t->Bound(state, &scratch_);
      if (one >= ProjectionTable::kUnreachable) return ProjectionTable::kUnreachable;
      h = options_.sum ? h + one : std::max(h, one);
      if (h > enough) break;
    }
    return h;
  }

  // With goal tables: the largest bound of the tables of every goal, or, where larger, the
  // least over the goals of the largest bound of that goal's tables. `bound(t)`: table t's.
  template <class F>
  int ByGoal(const F& bound) const {
    int h = 0;
    for (const size_t t : common_) {
      h = std::max(h, bound(t));
      if (h >= ProjectionTable::kUnreachable) return h;
    }
    int least = ProjectionTable::kUnreachable;
    for (const std::vector<size_t>& goal : by_goal_) {
      int most = 0;
      for (const size_t t : goal) {
        most = std::max(most, bound(t));
        if (most >= least) break;
      }
      least = std::min(least, most);
    }
    return std::max(h, least);
  }

  // A state's children are made, and their tables' entries fetched, before the first is
  // searched: the entries of a large table are far apart in memory, and their loads then
  // overlap instead of each waiting for the last.
  struct Child {
    int move = 0;
    int block = 0;  // of the move, the one that applied
    int32_t pruning = DefinedPruning::kStart;  // the automaton's state after it
    DefinedState state;
    std::vector<uint64_t> entries;  // by image (0: the child), then by table; kNotYet
  };

  static constexpr uint64_t kNotYet = ~uint64_t{0};


  static bool SameAt(const DefinedState& a, const DefinedState& b, const std::vector<uint16_t>& bytes) {
    for (const uint16_t p : bytes) {
      if (a[p] != b[p]) return false;
    }
    return true;
  }

  uint64_t Entry(Child& child, size_t k, size_t t) {
    const size_t v = k * tables_.size() + t;
    uint64_t& entry = child.entries[v];
    if (entry == kNotYet) entry = views_[v].Entry(child.state.data());
    return entry;
  }

  absl::StatusOr<bool> Dfs(int g, int threshold) {
    const DefinedState& here = path_[static_cast<size_t>(g)];
    if (collect_ != nullptr && (g == collect_depth_ || d_.IsGoal(here))) {
      Collect(g);
      return false;
    }
    if (d_.IsGoal(here)) return true;
    std::vector<Child>& children = children_[static_cast<size_t>(g)];
    children.resize(static_cast<size_t>(moves_of_.move_count()));
    const Child* parent = node_[static_cast<size_t>(g)];  // whose entries are here's (none at the start)
    size_t made = 0;
    const std::vector<char>* skip = g > 0 ? &skip_[static_cast<size_t>(moves_.back())] : nullptr;
    for (int m = 0; m < moves_of_.move_count(); ++m) {
      if (skip != nullptr && (*skip)[static_cast<size_t>(m)]) continue;
      Child& child = children[made];
      child.state.resize(here.size());
      // The compiled blocks: what Definition::Apply does, without its bookkeeping.
      const int block = moves_of_.BlockAt(m, here.data());
      if (block < 0) continue;
      child.pruning = pruning_ == nullptr ? DefinedPruning::kStart
                                          : pruning_->Next(pruning_state_[static_cast<size_t>(g)], block);
      if (child.pruning == DefinedPruning::kPruned) continue;
      moves_of_.Transform(block, here.data(), child.state.data());
      if (moves_of_.has_illegal() && !moves_of_.Legal(child.state.data())) continue;
      // The child differs from here only where the block changes bytes, and here from the
      // state before only where its own block did: those bytes alone are compared.
      const std::vector<uint16_t>& changed = moves_of_.block(block).changed;
      if (SameAt(child.state, here, changed) ||
          (parent != nullptr && SameAt(child.state, path_[static_cast<size_t>(g) - 1], changed) &&
           SameAt(child.state, path_[static_cast<size_t>(g) - 1], moves_of_.block(parent->block).changed))) {
        continue;
      }
      child.move = m;
      child.block = block;
      child.entries.assign(views_.size(), kNotYet);
      // Where the move leaves a table's view of the state as it was, the child's entry is
      // its parent's: a move of the fifteen carries one tile, and changes one group's.
      if (parent != nullptr) {
        for (size_t v = 0; v < views_.size(); ++v) {
          const uint64_t known = parent->entries[v];
          if (known != kNotYet && views_[v].Same(child.state.data(), here.data(), changed)) {
            child.entries[v] = known;
          }
        }
      }
      // Summed, every table is read (at every image, unless the bound passes first): all
      // are fetched now. Otherwise the first table to read often decides alone: at each
      // image, the first entry not shared with the parent is fetched now, the others when
      // they are needed.
      for (size_t k = 0; k <= images_; ++k) {
        for (size_t t = 0; t < tables_.size(); ++t) {
          const bool shared = child.entries[k * tables_.size() + t] != kNotYet;
          if (!options_.sum && shared) continue;
          __builtin_prefetch(tables_[t]->AddressOf(Entry(child, k, t)));
          if (!options_.sum) break;
        }
      }
      ++made;
    }
    DefinedState& next = path_[static_cast<size_t>(g) + 1];
    for (size_t c = 0; c < made; ++c) {
      Child& child = children[c];
      ++result_.nodes;
      if (split_ == nullptr) {
        if (absl::Status spent = BudgetSpent(options_.max_nodes, result_.nodes, "the search");
            !spent.ok()) {
          return spent;
        }
      }
      if ((result_.nodes & 4095) == 0) {
        if (split_ != nullptr) {
          // The budget is all the workers' together; one that stopped stops the others.
          const uint64_t all = split_->nodes_before + split_->nodes.fetch_add(4096) + 4096;
          if (absl::Status spent = BudgetSpent(options_.max_nodes, all, "the search"); !spent.ok()) {
            return spent;
          }
          if (split_->stop.load()) return absl::CancelledError("another part of the search stopped");
        }
        if (options_.limits != nullptr) {
          if (absl::Status reached = LimitsReached(*options_.limits, "the search"); !reached.ok()) {
            return absl::Status(reached.code(), Cat(std::string(reached.message()), " after ", result_.nodes, " states"));
          }
        }
      }
      // The tables at the state, then at each image while the bound stays within reach.
      int h = 0;
      if (!by_goal_.empty()) h = ByGoal([&](size_t t) { return tables_[t]->BoundAt(Entry(child, 0, t)); });
      for (size_t k = 0; by_goal_.empty() && k <= images_ && h <= threshold - g - 1; ++k) {
        int here = 0;
        for (size_t t = 0; t < tables_.size(); ++t) {
          const int one = tables_[t]->BoundAt(Entry(child, k, t));
          here = one >= ProjectionTable::kUnreachable ? one : options_.sum ? here + one : std::max(here, one);
          if (here >= ProjectionTable::kUnreachable || here > threshold - g - 1) break;
        }
        h = std::max(h, here);
      }
      h = WithParity(h, g + 1);
      if (collect_ != nullptr && perimeter_ != nullptr && h <= perimeter_->radius()) {
        // Listing subtrees: one the perimeter may end is a subtree of its own.
        next = child.state;
        node_[static_cast<size_t>(g) + 1] = &child;
        pruning_state_[static_cast<size_t>(g) + 1] = child.pruning;
        moves_.push_back(child.move);
        Collect(g + 1);
        moves_.pop_back();
        continue;
      }
      if (perimeter_ != nullptr && h <= perimeter_->radius()) {
        ++result_.lookups;
        const int exact = perimeter_->Distance(child.state);
        if (exact >= 0) {
          if (g + 1 + exact > threshold) {
            next_threshold_ = std::min(next_threshold_, g + 1 + exact);
            continue;
          }
          // Within the threshold, which no answer is shorter than: the answer, its end the
          // smallest moves down the perimeter.
          moves_.push_back(child.move);
          if (absl::Status walked = WalkDown(child.state, exact); !walked.ok()) return walked;
          return true;
        }
        h = WithParity(perimeter_->radius() + 1, g + 1);
      }
      const int f = g + 1 + h;
      if (f > threshold) {
        next_threshold_ = std::min(next_threshold_, f);
        continue;
      }
      next = child.state;
      node_[static_cast<size_t>(g) + 1] = &child;
      pruning_state_[static_cast<size_t>(g) + 1] = child.pruning;
      moves_.push_back(child.move);
      auto found = Dfs(g + 1, threshold);
      if (!found.ok() || *found) return found;
      moves_.pop_back();
    }
    return false;
  }

  // One iteration split over spare threads: the subtrees at a depth, listed in canonical
  // (DFS) order, handed out in that order; a subtree's first answer is its smallest, so the
  // answer is the first listed subtree's that has one, once those before it are searched.
  // Subtrees after a found one are not started.
  struct Item {
    DefinedState before, state;  // path_[g - 1] (where g > 0) and path_[g]
    std::vector<int> moves;      // the g moves to it
    Child node;                  // what path_[g] is as a child: its entries, block, automaton state
    int g = 0;
  };
  struct Split {
    std::vector<Item> items;
    std::vector<std::vector<int>> found;  // by item: its answer's moves
    std::atomic<size_t> next{0};          // the next item to take
    std::atomic<size_t> best{0};          // the first item with an answer (items.size(): none yet)
    std::atomic<uint64_t> nodes{0};       // states since the split, all workers, in steps of 4096
    std::atomic<bool> stop{false};
    uint64_t nodes_before = 0;
    LentHelpers lent;
    std::mutex mutex;  // guards what follows
    int next_threshold = ProjectionTable::kUnreachable;
    uint64_t nodes_done = 0, lookups_done = 0;  // each worker's, added as it ends
    absl::Status abort;
  };
  // Subtrees as shallow as gives this many a thread (the fifteen's about 8 moves deep, a
  // cube's 3): the listing searches the levels above them once more.
  static constexpr size_t kItemsPerThread = 64;

  // While listing: path_[g] is a subtree.
  void Collect(int g) {
    Item item;
    if (g > 0) {
      item.before = path_[static_cast<size_t>(g) - 1];
      item.node = *node_[static_cast<size_t>(g)];
    }
    item.state = path_[static_cast<size_t>(g)];
    item.moves = moves_;
    item.g = g;
    collect_->push_back(std::move(item));
  }

  absl::StatusOr<bool> SplitIteration(int threshold) {
    auto split = std::make_shared<Split>();
    const int helpers = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) - 1);
    for (int depth = 1;; ++depth) {
      split->items.clear();
      collect_ = &split->items;
      collect_depth_ = depth;
      next_threshold_ = ProjectionTable::kUnreachable;
      moves_.clear();
      auto listed = Dfs(0, threshold);
      collect_ = nullptr;
      if (!listed.ok()) return listed.status();
      if (split->items.size() >= kItemsPerThread * static_cast<size_t>(helpers + 1) || depth >= threshold) break;
    }
    const int listed_threshold = next_threshold_;
    split->found.resize(split->items.size());
    split->best.store(split->items.size());
    split->nodes_before = result_.nodes;
    const DefinedState start = path_[0];
    // The task keeps `split` alive; `this` outlives it (waited for below).
    result_.helpers += split->lent.Lend(*options_.threads, helpers, [this, split, threshold, start] {
      Ida helper(plan_, options_);
      helper.Prepare(start);
      helper.parity_ = parity_;
      helper.Work(*split, threshold, true);
    });
    ++result_.split_iterations;
    const uint64_t own_nodes = result_.nodes, own_lookups = result_.lookups;
    Work(*split, threshold, false);
    split->lent.Wait();
    std::lock_guard<std::mutex> lock(split->mutex);
    // Every worker's counts, this one's included once.
    result_.nodes = own_nodes + split->nodes_done;
    result_.lookups = own_lookups + split->lookups_done;
    next_threshold_ = std::min(listed_threshold, split->next_threshold);
    if (split->stop.load()) return split->abort;
    const size_t best = split->best.load();
    if (best < split->items.size()) {
      moves_ = std::move(split->found[best]);
      return true;
    }
    return false;
  }

  // Takes the split's items in turn until none is left, one after an answer found, or a
  // worker stopped (a helper also when the lender wants its thread back: another search
  // waits); then adds what it counted and its next threshold to the split's.
  void Work(Split& split, int threshold, bool helper) {
    Grow(threshold);
    split_ = &split;
    const uint64_t nodes_at_start = result_.nodes, lookups_at_start = result_.lookups;
    next_threshold_ = ProjectionTable::kUnreachable;
    absl::Status failed;
    while (!split.stop.load() && !(helper && options_.threads->ShouldYield())) {
      const size_t i = split.next.fetch_add(1);
      if (i >= split.items.size() || i > split.best.load()) break;
      const Item& item = split.items[i];
      const auto g = static_cast<size_t>(item.g);
      if (g > 0) path_[g - 1] = item.before;
      path_[g] = item.state;
      node_[g] = g > 0 ? &item.node : nullptr;
      pruning_state_[g] = g > 0 ? item.node.pruning : DefinedPruning::kStart;
      moves_ = item.moves;
      auto found = Dfs(item.g, threshold);
      if (!found.ok()) {
        failed = found.status();
        break;
      }
      if (*found) {
        split.found[i] = moves_;
        size_t best = split.best.load();
        while (i < best && !split.best.compare_exchange_weak(best, i)) {
        }
      }
    }
    split_ = nullptr;
    std::lock_guard<std::mutex> lock(split.mutex);
    if (!failed.ok() && split.abort.ok()) {
      split.abort = failed;  // the first to stop says why
      split.stop.store(true);
    }
    split.next_threshold = std::min(split.next_threshold, next_threshold_);
    split.nodes_done += result_.nodes - nodes_at_start;
    split.lookups_done += result_.lookups - lookups_at_start;
  }

  const DefinedIdaPlan& plan_;
  const DefinedIdaOptions& options_;
  const Definition& d_ = plan_.d_;
  const CompiledMoves& moves_of_ = plan_.moves_of_;
  const std::span<const ProjectionTable* const> tables_ = plan_.tables_;
  const std::vector<std::vector<char>>& skip_ = plan_.skip_;
  const size_t images_ = plan_.images_;
  const std::vector<DefinedIdaPlan::View>& views_ = plan_.views_;
  const std::vector<size_t>& common_ = plan_.common_;
  const std::vector<std::vector<size_t>>& by_goal_ = plan_.by_goal_;
  std::vector<DefinedState> path_;  // path_[g]: the state after g moves
  std::vector<std::vector<Child>> children_;  // children_[g]: those of path_[g]
  std::vector<int> moves_;
  DefinedState scratch_;
  int next_threshold_ = 0;
  int parity_ = -1;  // of the start's distance, where the moves keep one (DistanceParity)
  const DefinedPerimeter* perimeter_ = options_.perimeter;
  // node_[g]: the child that path_[g] is, whose entries its own children may share; null
  // at the start.
  std::vector<const Child*> node_;
  const DefinedPruning* pruning_ = options_.pruning;
  std::vector<int32_t> pruning_state_;  // by depth: the automaton's state after the path
  DefinedIdaResult result_;
  std::vector<Item>* collect_ = nullptr;  // SplitIteration's listing, while it lists
  int collect_depth_ = 0;
  Split* split_ = nullptr;  // the split iteration this worker works on
};

}  // namespace

absl::StatusOr<DefinedIdaResult> DefinedIdaStar(const Definition& definition,
                                                std::span<const ProjectionTable* const> tables,
                                                const DefinedState& start,
                                                const DefinedIdaOptions& options) {
  const DefinedIdaPlan plan(definition, tables, options.symmetries);
  return DefinedIdaStar(plan, start, options);
}

std::shared_ptr<const DefinedIdaPlan> PlanDefinedIda(const Definition& definition,
                                                     std::span<const ProjectionTable* const> tables,
                                                     const std::vector<DefinedSymmetry>* symmetries) {
  return std::make_shared<const DefinedIdaPlan>(definition, tables, symmetries);
}

absl::StatusOr<DefinedIdaResult> DefinedIdaStar(const DefinedIdaPlan& plan, const DefinedState& start,
                                                const DefinedIdaOptions& options) {
  if (options.max_depth < 0 || options.max_depth > 1000) {
    return absl::InvalidArgumentError(Cat("max_depth ", options.max_depth, " is not from 0 to 1000"));
  }
  return Ida(plan, options).Run(start);
}

}  // namespace puzzledb
