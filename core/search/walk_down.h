// The one walk from a state of known distance to the goal: at each step the smallest move
// (in the model's canonical order) to a state one step closer. That gives the
// lexicographically smallest optimal path. The perimeter bound, the table walker and the
// whole-space search all answer with it; they differ only in where distances come from
// (docs/ARCHITECTURE.md, "One walk down").
#ifndef PUZZLEDB_CORE_SEARCH_WALK_DOWN_H_
#define PUZZLEDB_CORE_SEARCH_WALK_DOWN_H_

#include <concepts>
#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "core/model/model.h"
#include "core/util/strings.h"

namespace puzzledb {

// What the walk reads of a model: its states, its moves (MoveCount) and its goals. Every
// PuzzleModel is one; so is a definition's moves and goals as the live search holds them
// (core/defined/defined_ida.cc).
template <class P>
concept WalkableModel = requires(const P& model, const typename P::State& s, typename P::State* out, int m) {
  { model.Apply(s, m, out) } -> std::convertible_to<bool>;
  { model.IsGoal(s) } -> std::convertible_to<bool>;
  { MoveCount(model) } -> std::convertible_to<int>;
};

// Appends to `moves` the lexicographically smallest optimal path from `s`, whose exact
// distance is `distance`. `distance_of(t)` is t's exact distance, or -1 where the source
// does not know it.
//
// Every step is checked: a move tried before the chosen one must not lead closer than
// d - 1, a move to d - 1 must exist, and distance 0 must be a goal. The moves after the
// chosen one are not read (they cannot change the answer). A source that breaks a rule is
// reported as DATA_LOSS naming `source` ("table knight", "the perimeter"), never followed.
template <WalkableModel P, class DistanceOf, class Move>
absl::Status WalkDown(const P& model, typename P::State s, int distance,
                      const DistanceOf& distance_of, std::string_view source,
                      std::vector<Move>* moves) {
  using State = typename P::State;
  auto broken = [source](std::string_view what) {
    return absl::DataLossError(Cat(source, " is inconsistent: ", what));
  };
  moves->reserve(moves->size() + static_cast<size_t>(distance));
  for (int d = distance; d > 0; --d) {
    int chosen = -1;
    State next{};
    for (int m = 0; m < MoveCount(model) && chosen < 0; ++m) {
      if (!model.Apply(s, m, &next)) continue;
      const int dt = distance_of(next);
      if (dt < 0) continue;
      if (dt < d - 1) return broken(Cat("a state at distance ", d, " has a move to distance ", dt));
      if (dt == d - 1) chosen = m;
    }
    if (chosen < 0) return broken(Cat("a state at distance ", d, " has no move to distance ", d - 1));
    moves->push_back(static_cast<Move>(chosen));
    s = next;
  }
  if (!model.IsGoal(s)) return broken("the walk ended at distance 0 on a state that is not a goal");
  return absl::OkStatus();
}

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_SEARCH_WALK_DOWN_H_
