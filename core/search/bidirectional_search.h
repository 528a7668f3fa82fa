// Breadth-first search from both ends at once, over dense per-state arrays: forwards from
// the start with Apply, backwards from the goal with Undo, always growing the smaller
// frontier by a whole layer. For the knobs (16.7 M states, branching 12, distances up to
// ~20) this touches a few thousand to a few hundred thousand states where IDA* would
// expand billions of nodes, and it proves unsolvability by exhausting a side.
//
// REQUIRES: the model is itself a dense space over its states (Size, Rank, Unrank, Undo:
// the knobs' model indexes every state by its packed word), and Size() fits the memory of
// two byte arrays.
#ifndef PUZZLEDB_CORE_SEARCH_BIDIRECTIONAL_SEARCH_H_
#define PUZZLEDB_CORE_SEARCH_BIDIRECTIONAL_SEARCH_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <type_traits>
#include <vector>

#include "absl/status/statusor.h"
#include "core/util/strings.h"
#include "core/model/model.h"

namespace puzzledb {

// Two byte arrays of one entry per state, all 0xFF between uses. Searches take a pair from
// a small shared pool and give it back clean, so a search pays for the states it touched,
// not for clearing 2 x 16 MB. Thread-safe.
class DenseScratchPool {
 public:
  struct Arrays {
    std::vector<uint8_t> forward;
    std::vector<uint8_t> backward;
  };
  static constexpr uint8_t kUnseen = 0xFF;

  // A clean pair of arrays of `size` entries.
  static std::unique_ptr<Arrays> Acquire(uint64_t size);
  // REQUIRES: every entry of `arrays` is kUnseen again.
  static void Release(std::unique_ptr<Arrays> arrays);
};

template <PuzzleModel P>
  requires IndexedSpace<P>
class BidirectionalSearch {
 public:
  using State = typename P::State;

  // With max_expanded > 0 the search gives up (ABORTED) after expanding that many states:
  // the caller then does better with a breadth-first search of the whole space.
  BidirectionalSearch(const P& model, const SearchLimits& limits, uint64_t max_expanded = 0)
      : model_(model), limits_(limits), max_expanded_(max_expanded) {}

  absl::StatusOr<Solution> Run(const State& start) {
    Solution solution;
    solution.source = Source::kSearch;
    if (model_.Size() > (uint64_t{1} << 32)) {
      return absl::InternalError("bidirectional search needs a space of at most 2^32 states");
    }
    if (model_.IsGoal(start)) return solution;
    if (model_.ProvablyUnsolvable(start)) {
      solution.outcome = Outcome::kUnsolvable;
      return solution;
    }
    arrays_ = DenseScratchPool::Acquire(model_.Size());
    absl::StatusOr<Solution> result = Meet(start, &solution);
    Clean();
    DenseScratchPool::Release(std::move(arrays_));
    return result;
  }

 private:
  static constexpr uint8_t kUnseen = DenseScratchPool::kUnseen;
  static constexpr uint8_t kOnPath = 0x80;  // forward mark: on an optimal path

  absl::StatusOr<Solution> Meet(const State& start, Solution* solution) {
    auto& fwd = arrays_->forward;
    auto& bwd = arrays_->backward;
    forward_layers_.assign(1, {static_cast<uint32_t>(model_.Rank(start))});
    fwd[forward_layers_[0][0]] = 0;
    backward_layers_.clear();
    backward_layers_.emplace_back();
    for (const State& goal : model_.Goals()) {
      const auto r = static_cast<uint32_t>(model_.Rank(goal));
      if (bwd[r] == kUnseen) {
        bwd[r] = 0;
        backward_layers_[0].push_back(r);
      }
    }
    int a = 0, b = 0;  // radii of the forward and backward balls
    while (true) {
      // Balls of radii a and b do not meet, so every path has at least a + b + 1 moves.
      if (limits_.max_moves > 0 && a + b + 1 > limits_.max_moves) {
        solution->outcome = Outcome::kNotWithinLimit;
        solution->nodes = nodes_;
        return *solution;
      }
      if (a + b + 1 >= kOnPath) {
        return absl::InternalError("bidirectional search passed 127 moves");
      }
      const bool grow_forward = forward_layers_.back().size() <= backward_layers_.back().size();
      bool met = false;
      absl::Status status = grow_forward ? Grow(true, a, &met) : Grow(false, b, &met);
      if (!status.ok()) return status;
      if (grow_forward) {
        ++a;
      } else {
        ++b;
      }
      if (met) break;
      if ((grow_forward ? forward_layers_ : backward_layers_).back().empty()) {
        solution->outcome = Outcome::kUnsolvable;
        solution->nodes = nodes_;
        return *solution;
      }
    }
    // Every meeting state lies on a shortest path of a + b moves (the balls of radii a - 1
    // and b, or a and b - 1, did not meet). Mark the forward states on shortest paths, layer
    // a first, then each earlier layer from the one after it.
    const int distance = a + b;
    for (uint32_t r : forward_layers_[a]) {
      if (bwd[r] == b) fwd[r] |= kOnPath;
    }
    for (int t = a - 1; t >= 0; --t) {
      for (uint32_t r : forward_layers_[t]) {
        const State s = model_.Unrank(r);
        for (int m = 0; m < MoveCount(model_); ++m) {
          State n;
          if (!model_.Apply(s, m, &n)) continue;
          if (fwd[model_.Rank(n)] == (kOnPath | (t + 1))) {
            fwd[r] |= kOnPath;
            break;
          }
        }
      }
    }
    // Walk: the smallest move onto a marked state while inside the forward ball, then the
    // smallest move one step closer to the goal inside the backward ball.
    State s = start;
    for (int t = 0; t < distance; ++t) {
      int chosen = -1;
      for (int m = 0; m < MoveCount(model_) && chosen < 0; ++m) {
        State n;
        if (!model_.Apply(s, m, &n)) continue;
        const uint64_t r = model_.Rank(n);
        const bool next = t + 1 <= a ? fwd[r] == (kOnPath | (t + 1)) : bwd[r] == distance - t - 1;
        if (next) {
          chosen = m;
          s = n;
        }
      }
      if (chosen < 0) return absl::InternalError("bidirectional search lost its path");
      solution->moves.push_back(static_cast<uint8_t>(chosen));
    }
    if (!model_.IsGoal(s)) return absl::InternalError("bidirectional search missed the goal");
    solution->outcome = Outcome::kSolved;
    solution->distance = distance;
    solution->nodes = nodes_;
    return *solution;
  }

  // Expands the last layer of one side into a new layer at radius + 1; sets *met when a new
  // state is already in the other side's ball.
  absl::Status Grow(bool forward, int radius, bool* met) {
    auto& layers = forward ? forward_layers_ : backward_layers_;
    auto& mine = forward ? arrays_->forward : arrays_->backward;
    auto& theirs = forward ? arrays_->backward : arrays_->forward;
    std::vector<uint32_t> next;
    const auto value = static_cast<uint8_t>(radius + 1);
    for (uint32_t r : layers.back()) {
      if (++nodes_ % kClockEvery == 0) {
        if (max_expanded_ != 0 && nodes_ > max_expanded_) {
          layers.push_back(std::move(next));
          return absl::AbortedError(Cat("bidirectional search gave up after ", nodes_, " states"));
        }
        if (absl::Status spent = BudgetSpent(limits_.max_nodes, nodes_, "the search"); !spent.ok()) {
          layers.push_back(std::move(next));  // so Clean() resets what was marked
          return spent;
        }
        if (absl::Status ended = LimitsReached(limits_, "search"); !ended.ok()) {
          layers.push_back(std::move(next));
          return absl::Status(ended.code(), Cat(Message(ended), " after ", nodes_, " nodes"));
        }
      }
      const State s = model_.Unrank(r);
      for (int m = 0; m < MoveCount(model_); ++m) {
        State n;
        if (!(forward ? model_.Apply(s, m, &n) : model_.Undo(s, m, &n))) continue;
        const auto nr = static_cast<uint32_t>(model_.Rank(n));
        if (mine[nr] != kUnseen) continue;
        mine[nr] = value;
        next.push_back(nr);
        if (theirs[nr] != kUnseen) *met = true;
      }
    }
    layers.push_back(std::move(next));
    return absl::OkStatus();
  }

  // Resets every entry this search wrote.
  void Clean() {
    for (const auto& layer : forward_layers_) {
      for (uint32_t r : layer) arrays_->forward[r] = kUnseen;
    }
    for (const auto& layer : backward_layers_) {
      for (uint32_t r : layer) arrays_->backward[r] = kUnseen;
    }
  }

  static constexpr uint64_t kClockEvery = 4096;

  const P& model_;
  const SearchLimits limits_;
  const uint64_t max_expanded_;
  std::unique_ptr<DenseScratchPool::Arrays> arrays_;
  std::vector<std::vector<uint32_t>> forward_layers_;
  std::vector<std::vector<uint32_t>> backward_layers_;
  uint64_t nodes_ = 0;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_SEARCH_BIDIRECTIONAL_SEARCH_H_
