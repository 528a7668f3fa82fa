// Iterative-deepening A* over any puzzle model: the exact distance and the
// lexicographically smallest optimal move sequence.
//
// Why the first path found is the lexicographically smallest optimal one: the threshold
// never passes the optimal distance D (an admissible bound never prunes a node on an optimal
// path at threshold D), and at threshold D the depth-first search tries moves in canonical
// order, so the first complete path of length D it meets is the smallest. Skipping the move
// that undoes the previous one loses nothing: an optimal path never undoes a move. Where the
// bound is exact (the state is covered by a perimeter or table), the rest of the path is the
// bound's own smallest completion, which is what the search below that node would find.
#ifndef PUZZLEDB_CORE_SEARCH_IDA_STAR_H_
#define PUZZLEDB_CORE_SEARCH_IDA_STAR_H_

#include <chrono>
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/status/statusor.h"
#include "core/util/strings.h"
#include "core/search/oracle_bound.h"
#include "core/model/model.h"

namespace puzzledb {

// Bound: `Estimate Evaluate(const State&) const` and, for exact estimates,
// `absl::Status Complete(State, int distance, std::vector<uint8_t>*, uint64_t* lookups) const`.
template <PuzzleModel P, class Bound>
class IdaStar {
 public:
  using State = typename P::State;

  // `model` and `bound` must outlive the search. Not thread-safe; one search per object.
  IdaStar(const P& model, const Bound& bound, const SearchLimits& limits)
      : model_(model), bound_(bound), limits_(limits) {}

  absl::StatusOr<Solution> Run(const State& start) {
    Solution solution;
    solution.source = Source::kSearch;
    if (model_.ProvablyUnsolvable(start)) {
      solution.outcome = Outcome::kUnsolvable;
      return solution;
    }
    const Estimate root = bound_.Evaluate(start);
    int threshold = root.lower;
    path_.clear();
    while (true) {
      if (limits_.max_moves > 0 && threshold > limits_.max_moves) {
        solution.outcome = Outcome::kNotWithinLimit;
        solution.nodes = nodes_;
        solution.lookups = lookups_;
        return solution;
      }
      next_threshold_ = kInfinity;
      const Step step = Search(start, 0, threshold, -1);
      if (step == Step::kFound) break;
      if (step == Step::kAborted) return abort_status_;
      if (next_threshold_ == kInfinity) {
        // Nothing was cut off and nothing found: no path to the goal exists.
        solution.outcome = Outcome::kUnsolvable;
        solution.nodes = nodes_;
        return solution;
      }
      threshold = next_threshold_;
    }
    solution.outcome = Outcome::kSolved;
    solution.distance = static_cast<int>(path_.size());
    solution.moves = path_;
    solution.nodes = nodes_;
    solution.lookups = lookups_;
    return solution;
  }

  uint64_t nodes() const { return nodes_; }

 private:
  enum class Step { kFound, kContinue, kAborted };
  static constexpr int kInfinity = std::numeric_limits<int>::max();
  static constexpr uint64_t kClockEvery = 1024;

  Step Search(const State& s, int g, int threshold, int last_move) {
    ++nodes_;
    if (absl::Status spent = BudgetSpent(limits_.max_nodes, nodes_, "the search"); !spent.ok()) {
      abort_status_ = std::move(spent);
      return Step::kAborted;
    }
    if (nodes_ % kClockEvery == 0) {
      if (absl::Status ended = LimitsReached(limits_, "search"); !ended.ok()) {
        abort_status_ = absl::Status(ended.code(), Cat(Message(ended), " after ", nodes_, " nodes"));
        return Step::kAborted;
      }
    }
    const Estimate e = bound_.Evaluate(s);
    const int f = g + e.lower;
    if (f > threshold) {
      if (f < next_threshold_) next_threshold_ = f;
      return Step::kContinue;
    }
    if (e.exact) {
      const absl::Status done = bound_.Complete(s, e.lower, &path_, &lookups_);
      if (!done.ok()) {
        abort_status_ = done;
        return Step::kAborted;
      }
      return Step::kFound;
    }
    if (model_.IsGoal(s)) return Step::kFound;
    const int undo = last_move < 0 ? -1 : InverseOf(model_, last_move);
    for (int m = 0; m < MoveCount(model_); ++m) {
      if (m == undo) continue;
      State t;
      if (!model_.Apply(s, m, &t)) continue;
      path_.push_back(static_cast<uint8_t>(m));
      const Step step = Search(t, g + 1, threshold, m);
      if (step != Step::kContinue) return step;
      path_.pop_back();
    }
    return Step::kContinue;
  }

  const P& model_;
  const Bound& bound_;
  const SearchLimits limits_;
  std::vector<uint8_t> path_;
  uint64_t nodes_ = 0;
  uint64_t lookups_ = 0;
  int next_threshold_ = kInfinity;
  absl::Status abort_status_;
};

// The model's own bound, nothing else: the plain IDA* baseline (and the fallback for states
// no perimeter or table can project).
template <PuzzleModel P>
class ModelBound {
 public:
  explicit ModelBound(const P& model) : model_(model) {}
  Estimate Evaluate(const typename P::State& s) const {
    const int lower = model_.LowerBound(s);
    return {lower, false};
  }
  absl::Status Complete(const typename P::State&, int, std::vector<uint8_t>*, uint64_t*) const {
    return absl::InternalError("ModelBound is never exact");
  }

 private:
  const P& model_;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_SEARCH_IDA_STAR_H_
