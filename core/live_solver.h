// Exact live search for one puzzle model, chosen by the model's LiveSearchKind: IDA* with
// the model's bound strengthened by a perimeter around the goal, or bidirectional
// breadth-first search for small spaces with many transpositions (the knobs).
#ifndef PUZZLEDB_CORE_LIVE_SOLVER_H_
#define PUZZLEDB_CORE_LIVE_SOLVER_H_

#include <memory>

#include "absl/status/statusor.h"
#include "core/bidirectional_search.h"
#include "core/ida_star.h"
#include "core/oracle_bound.h"
#include "core/perimeter.h"
#include "core/puzzle.h"

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
    if constexpr (P::kLiveSearch == LiveSearchKind::kIdaStar) {
      const int radius = perimeter_radius < 0 ? P::kPerimeterRadius : perimeter_radius;
      if (radius > 0) perimeter_ = std::make_unique<Perimeter<Space>>(model_.space(), radius);
    }
  }

  const P& model() const { return model_; }
  const Perimeter<Space>* perimeter() const { return perimeter_.get(); }

  absl::StatusOr<Solution> Solve(const State& start, const SearchLimits& limits) const {
    if constexpr (P::kLiveSearch == LiveSearchKind::kBidirectional) {
      return BidirectionalSearch<P>(model_, limits).Run(start);
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
  P model_;
  std::unique_ptr<Perimeter<Space>> perimeter_;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_LIVE_SOLVER_H_
