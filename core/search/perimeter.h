// A perimeter: the exact distance of every state within `radius` moves of the goal,
// found by a breadth-first search backwards from the goals. Outside it a state is at least
// radius + 1 away, which makes it a strong bound for live search (the search only needs to
// reach the perimeter, not the goal) and its exact distances finish the path.
#ifndef PUZZLEDB_CORE_SEARCH_PERIMETER_H_
#define PUZZLEDB_CORE_SEARCH_PERIMETER_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/model/model.h"

namespace puzzledb {

// A distance oracle over a space's ranks: Distance(rank) is exact for covered ranks and -1
// otherwise; every uncovered rank is at least UncoveredBound() away (or unreachable).
// Thread-safe for concurrent readers once built.
template <IndexedSpace S>
class Perimeter {
 public:
  Perimeter(const S& space, int radius) : radius_(radius) {
    std::vector<typename S::State> frontier = space.Goals();
    for (const auto& goal : frontier) distance_.emplace(space.Rank(goal), 0);
    std::vector<typename S::State> next;
    for (int d = 1; d <= radius && !frontier.empty(); ++d) {
      next.clear();
      for (const auto& state : frontier) {
        for (int m = 0; m < MoveCount(space); ++m) {
          typename S::State before;
          if (!space.Undo(state, m, &before)) continue;
          if (distance_.try_emplace(space.Rank(before), static_cast<uint8_t>(d)).second) {
            next.push_back(before);
          }
        }
      }
      frontier.swap(next);
    }
  }

  int radius() const { return radius_; }
  size_t size() const { return distance_.size(); }
  int Distance(uint64_t rank) const {
    const auto it = distance_.find(rank);
    return it == distance_.end() ? -1 : it->second;
  }
  int UncoveredBound() const { return radius_ + 1; }
  // The ranks of every state at exactly `distance`, ascending.
  std::vector<uint64_t> RanksAt(int distance) const {
    std::vector<uint64_t> ranks;
    for (const auto& [rank, d] : distance_) {
      if (d == distance) ranks.push_back(rank);
    }
    std::sort(ranks.begin(), ranks.end());
    return ranks;
  }

 private:
  int radius_;
  absl::flat_hash_map<uint64_t, uint8_t> distance_;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_SEARCH_PERIMETER_H_
