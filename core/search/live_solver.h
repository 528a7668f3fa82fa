// Exact live search for one puzzle model, chosen by the model's LiveSearchKind: IDA* with
// the model's bound strengthened by a perimeter around the goal, or bidirectional
// breadth-first search for small spaces with many transpositions (the knobs).
#ifndef PUZZLEDB_CORE_SEARCH_LIVE_SOLVER_H_
#define PUZZLEDB_CORE_SEARCH_LIVE_SOLVER_H_

#include <memory>

#include "absl/status/statusor.h"
#include "core/search/bidirectional_search.h"
#include "core/search/ida_star.h"
#include "core/search/oracle_bound.h"
#include "core/search/perimeter.h"
#include "core/model/model.h"
#include "core/search/retrograde_bfs.h"
#include "core/search/walk_down.h"

namespace puzzledb {

// Thread-safe: Solve may be called concurrently once constructed.
template <PuzzleModel P>
class LiveSolver {
 public:
  using State = typename P::State;
  using Space = typename P::Space;

  // Builds the perimeter (for IDA* models) of `perimeter_radius` moves, or of the model's
  // default radius when negative; 0 means no perimeter.
  explicit LiveSolver(const P& model, int perimeter_radius = -1) : model_(model) {
    if constexpr (P::kLiveSearch != LiveSearchKind::kBidirectional) {
      const int radius = perimeter_radius < 0 ? P::kPerimeterRadius : perimeter_radius;
      if (radius > 0) perimeter_ = std::make_unique<Perimeter<Space>>(model_.space(), radius);
    }
  }

  const P& model() const { return model_; }
  const Perimeter<Space>* perimeter() const { return perimeter_.get(); }

  absl::StatusOr<Solution> Solve(const State& start, const SearchLimits& limits) const {
    if constexpr (P::kLiveSearch == LiveSearchKind::kBidirectional) {
      auto answer = BidirectionalSearch<P>(model_, limits, kBidirectionalLimit).Run(start);
      if (!absl::IsAborted(answer.status())) return answer;
      // The two balls grew large (a start far from the goal): one breadth-first search of
      // the whole space, on every core, costs less from here.
      return WholeSpaceSearch(start, limits);
    } else {
      std::array<uint64_t, P::kMaxKeys> keys;
      if (perimeter_ != nullptr && model_.Project(start, &keys) > 0) {
        const OracleBound<P, Perimeter<Space>> bound(model_, *perimeter_);
        return IdaStar<P, OracleBound<P, Perimeter<Space>>>(model_, bound, limits).Run(start);
      }
      const ModelBound<P> bound(model_);
      return IdaStar<P, ModelBound<P>>(model_, bound, limits).Run(start);
    }
  }

 private:
  // States the bidirectional search expands before the whole-space search takes over:
  // about 0.1 s of it, while a whole knobs space takes about 0.3 s on two cores.
  static constexpr uint64_t kBidirectionalLimit = 400'000;

  // A retrograde BFS of the whole space, then the smallest-move walk down its distances.
  absl::StatusOr<Solution> WholeSpaceSearch(const State& start, const SearchLimits& limits) const {
    BfsOptions options;
    absl::Status ended;
    options.stop = [&limits, &ended] {
      ended = LimitsReached(limits, "search");
      return !ended.ok();
    };
    const BfsResult bfs = RetrogradeBfs<Space>(model_.space()).Run(options);
    if (bfs.stopped) return ended;
    Solution solution;
    solution.source = Source::kSearch;
    solution.nodes = bfs.covered();
    const uint8_t d = bfs.distance[model_.space().Rank(start)];
    if (d == BfsResult::kUnseen) {
      solution.outcome = Outcome::kUnsolvable;
      return solution;
    }
    if (limits.max_moves > 0 && d > limits.max_moves) {
      solution.outcome = Outcome::kNotWithinLimit;
      return solution;
    }
    const auto& space = model_.space();
    auto distance_of = [&](const State& t) {
      const uint8_t dt = bfs.distance[space.Rank(t)];
      return dt == BfsResult::kUnseen ? -1 : static_cast<int>(dt);
    };
    if (absl::Status walked = WalkDown(model_, start, d, distance_of, "the whole-space search",
                                       &solution.moves);
        !walked.ok()) {
      return walked;
    }
    solution.distance = d;
    return solution;
  }

  P model_;
  std::unique_ptr<Perimeter<Space>> perimeter_;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_SEARCH_LIVE_SOLVER_H_
