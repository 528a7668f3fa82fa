// TableWalker::Optimal: the optimal solutions of a covered state, counted layer by layer
// and the first ones listed (its contract is in table_walker.h). Apart from the walker
// because only the solver counts (core/solver.cc includes this).
#ifndef PUZZLEDB_CORE_TABLE_TABLE_OPTIMAL_H_
#define PUZZLEDB_CORE_TABLE_TABLE_OPTIMAL_H_

#include "core/table/table_walker.h"

namespace puzzledb {

template <PuzzleModel P>
absl::StatusOr<typename TableWalker<P>::OptimalPaths> TableWalker<P>::Optimal(
    const State& s, int distance, size_t list, const SearchLimits& limits,
    const uint8_t* exact) const {
  OptimalPaths paths;
  if (kNextMove && exact == nullptr) {
    return absl::InternalError(
        Cat(name_, ": counting over next moves needs the table's exact distances"));
  }
  if (!KeyFits()) {
    return absl::UnimplementedError(Cat(name_, ": its keys do not fit the counter's 64 bits"));
  }
  // Layer t holds the distinct states at distance t on optimal paths (a hash of their
  // identities finds repeats); edges[t] where each one's closer neighbours are in layer t - 1
  // (and the moves to them), so that the counts need no second pass over the moves.
  struct Node {
    uint64_t key;
    State state;
  };
  struct Edges {
    std::vector<uint32_t> begin;    // node i's edges: [begin[i], begin[i + 1])
    std::vector<uint32_t> targets;  // the neighbour's index in the closer layer
    std::vector<uint8_t> moves;
  };
  std::vector<std::vector<Node>> layers(static_cast<size_t>(distance) + 1);
  std::vector<Edges> edges(static_cast<size_t>(distance) + 1);
  layers[static_cast<size_t>(distance)].push_back({KeyOf(s), s});
  paths.states = 1;
  auto check = [&](std::string_view what) -> absl::Status {
    if (absl::Status spent = BudgetSpent(limits.max_nodes, paths.states, "counting optimal solutions");
        !spent.ok()) {
      return absl::Status(spent.code(), Cat(Message(spent), " (", what, ")"));
    }
    return LimitsReached(limits, "counting optimal solutions");
  };
  uint64_t expanded = 0;
  // Every move of every node is tried, so the table reads of a batch of nodes are
  // independent: their addresses are computed and prefetched first, then read, and the
  // memory latency of one overlaps the others' (the reads are what counting costs).
  constexpr size_t kBatch = 64;
  struct Candidate {
    State child;
    std::array<uint64_t, P::kMaxKeys> keys;
    uint64_t packed;
    int n;
    uint8_t move;
  };
  std::vector<Candidate> batch;
  batch.reserve(kBatch * static_cast<size_t>(MoveCount(model_)));
  absl::flat_hash_map<uint64_t, uint32_t> index;  // the closer layer's nodes by key
  for (int t = distance; t > 0; --t) {
    std::vector<Node>& next = layers[static_cast<size_t>(t) - 1];
    Edges& out = edges[static_cast<size_t>(t)];
    const std::vector<Node>& layer = layers[static_cast<size_t>(t)];
    index.clear();
    index.reserve(layer.size() * 2);
    for (size_t first = 0; first < layer.size(); first += kBatch) {
      const size_t last = std::min(layer.size(), first + kBatch);
      batch.clear();
      std::array<uint32_t, kBatch + 1> starts;
      for (size_t i = first; i < last; ++i) {
        starts[i - first] = static_cast<uint32_t>(batch.size());
        for (int m = 0; m < MoveCount(model_); ++m) {
          Candidate c;
          if (!model_.Apply(layer[i].state, m, &c.child)) continue;
          c.n = model_.Project(c.child, &c.keys);
          if (c.n == 0) continue;
          c.move = static_cast<uint8_t>(m);
          for (int k = 0; k < c.n; ++k) {
            __builtin_prefetch(kNextMove ? exact + c.keys[k] : entries_.Address(c.keys[k]));
          }
          batch.push_back(c);
        }
      }
      starts[last - first] = static_cast<uint32_t>(batch.size());
      // The closer ones, their keys' hash slots prefetched in turn.
      for (Candidate& c : batch) {
        if (!CloserByKeys(c.keys, c.n, t, exact, &paths.lookups)) {
          c.n = 0;
          continue;
        }
        c.packed = IdentityOf(c.child, c.keys, c.n);
        index.prefetch(c.packed);
      }
      for (size_t i = first; i < last; ++i) {
        out.begin.push_back(static_cast<uint32_t>(out.targets.size()));
        for (uint32_t j = starts[i - first]; j < starts[i - first + 1]; ++j) {
          const Candidate& c = batch[j];
          if (c.n == 0) continue;
          const uint64_t key = c.packed;
          const auto [it, added] = index.try_emplace(key, static_cast<uint32_t>(next.size()));
          if (added) next.push_back({key, c.child});
          out.targets.push_back(it->second);
          out.moves.push_back(c.move);
        }
      }
      expanded += last - first;
      if ((expanded & ~uint64_t{1023}) != ((expanded - (last - first)) & ~uint64_t{1023})) {
        if (auto status = check(Cat("distance ", t - 1)); !status.ok()) return status;
      }
    }
    out.begin.push_back(static_cast<uint32_t>(out.targets.size()));
    if (next.empty()) return Broken("a covered state has no move one step closer");
    paths.states += next.size();
    if (auto status = check(Cat("distance ", t - 1)); !status.ok()) return status;
  }
  // Counts from the goal up: a state's count is the sum of its closer neighbours'.
  std::vector<unsigned __int128> below(layers[0].size(), 1);
  for (const Node& node : layers[0]) {
    if (!model_.IsGoal(node.state)) return Broken("a state at distance 0 is not a goal");
  }
  paths.after_move.assign(static_cast<size_t>(MoveCount(model_)), 0);
  if (distance == 0) paths.after_move.clear();
  for (int t = 1; t <= distance; ++t) {
    std::vector<Node>& closer = layers[static_cast<size_t>(t) - 1];
    const Edges& from = edges[static_cast<size_t>(t)];
    const size_t here = from.begin.size() - 1;
    std::vector<unsigned __int128> counts(here, 0);
    const bool root = t == distance;
    for (size_t i = 0; i < here; ++i) {
      for (uint32_t e = from.begin[i]; e < from.begin[i + 1]; ++e) {
        const unsigned __int128 add = below[from.targets[e]];
        if (root) paths.after_move[from.moves[e]] = add;
        if (counts[i] + add < add) {
          return absl::OutOfRangeError("the number of optimal solutions exceeds 128 bits");
        }
        counts[i] += add;
      }
    }
    below = std::move(counts);
    std::vector<Node>().swap(closer);  // done with it
  }
  paths.count = below[0];
  // The first `list` in lexicographic order: depth first through the edges found above
  // (each node's in canonical move order); every branch of the optimal graph reaches the
  // goal, so no branch is wasted.
  std::vector<uint8_t> path;
  auto visit = [&](auto& self, uint32_t node, int t) -> bool {
    if (t == 0) {
      paths.first.push_back(path);
      return paths.first.size() < list;
    }
    const Edges& from = edges[static_cast<size_t>(t)];
    for (uint32_t e = from.begin[node]; e < from.begin[node + 1]; ++e) {
      path.push_back(from.moves[e]);
      if (!self(self, from.targets[e], t - 1)) return false;
      path.pop_back();
    }
    return true;
  };
  if (list > 0) visit(visit, 0, distance);
  return paths;
}

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_TABLE_TABLE_OPTIMAL_H_
