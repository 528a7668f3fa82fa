// States drawn uniformly at an exact distance from the goal (docs/API.md, "Sample").
//
// For a puzzle whose states are its table's space (the knight, the knobs, the 8-puzzle) a
// draw is a uniform rank among the table's entries at that distance (DistanceIndex). A
// model whose states are not its space's (the rotation game: boards over placements) says
// how to draw its states with `using BoardSampler = ...`, a class built from the space's
// exact distances with Population(d, limits) and Draw(d, count, rng, limits).
//
// A space that keeps one entry per class of states under a group of symmetries
// (core/table/state_classes.h: the knight's model, a board and its mirror; a definition
// with symmetry classes) holds classes, not states: a class stands for as many states as
// the group's order, or fewer (SmallClasses lists those). The states at distance d are
// counted member by member: the members 0 of all classes at d, then the members 1 of the
// classes that have one, and so on; state x among them is found by skipping, within its
// member's turn, the small classes that lack it: a uniform x is a uniform state.
#ifndef PUZZLEDB_CORE_TABLE_SAMPLER_H_
#define PUZZLEDB_CORE_TABLE_SAMPLER_H_

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>
#include <type_traits>
#include <vector>

#include "absl/status/statusor.h"
#include "core/model/model.h"
#include "core/table/distance_index.h"
#include "core/table/state_classes.h"
#include "core/util/random.h"
#include "core/util/strings.h"

namespace puzzledb {

// kAnyDistance (core/model/model.h) asks a puzzle without a table of distances (a pattern
// model, pattern_sampler.h) for states drawn among all of them.

namespace sampler_internal {
template <class P, class = void>
struct Own {
  using type = int;  // nothing
};
template <class P>
struct Own<P, std::void_t<typename P::BoardSampler>> {
  using type = std::unique_ptr<const typename P::BoardSampler>;
};
}  // namespace sampler_internal

template <PuzzleModel P>
struct Sample {
  int distance = 0;         // the distance sampled (the largest one, when asked for that)
  uint64_t population = 0;  // states at that distance
  std::vector<typename P::State> states;
  TableMetadata table;      // the table drawn from (its build's identity)
};

// Thread-safe.
template <PuzzleModel P>
class Sampler {
 public:
  static constexpr bool kOwnStates = requires { typename P::BoardSampler; };
  static constexpr int kLargest = kLargestDistance;

  Sampler(const P& model, std::shared_ptr<const DistanceIndex> index)
      : model_(model), index_(std::move(index)) {
    if constexpr (kOwnStates) {
      own_ = std::make_unique<const typename P::BoardSampler>(index_->distances());
    }
    if constexpr (!kOwnStates) {
      order_ = ClassOrder(model_);
      if (order_ > 1) small_ = SmallClasses(model_);
    }
  }

  const TableMetadata& metadata() const { return index_->metadata(); }
  // Every entry's exact distance, by the table space's rank (255 where not covered).
  const uint8_t* distances() const { return index_->distances(); }

  // `count` distinct states drawn uniformly among those at `distance` (kLargest: the
  // largest distance there is), all of them when there are no more; the same for the same
  // seed and table. FAILED_PRECONDITION when the table does not cover that distance.
  absl::StatusOr<Sample<P>> Draw(int distance, uint64_t count, uint64_t seed,
                                 const SearchLimits& limits) const {
    const TableMetadata& m = index_->metadata();
    const int covered = static_cast<int>(m.coverage_depth());
    Sample<P> sample;
    if (distance == kLargest) {
      if (!m.complete()) {
        return absl::FailedPreconditionError(
            Cat("table ", m.table_id(), " covers distances up to ", covered,
                " only; the largest distance needs a complete table"));
      }
      auto largest = Largest(limits);
      if (!largest.ok()) return largest.status();
      distance = *largest;
    } else if (distance > covered && !m.complete()) {
      return absl::FailedPreconditionError(
          Cat("table ", m.table_id(), " covers distances up to ", covered, " only, not ",
              distance, "; build it whole to sample there"));
    }
    sample.distance = distance;
    sample.table = m;
    if (distance > static_cast<int>(m.max_distance()) && m.complete()) return sample;  // none
    SeededRng rng(seed);
    if constexpr (kOwnStates) {
      auto population = own_->Population(distance, limits);
      if (!population.ok()) return population.status();
      sample.population = *population;
      auto states = own_->Draw(distance, count, rng, limits);
      if (!states.ok()) return states.status();
      sample.states = std::move(*states);
    } else {
      if (order_ > 1) {
        auto states = DrawClasses(distance, count, rng, &sample.population);
        if (!states.ok()) return states.status();
        sample.states = std::move(*states);
        return sample;
      }
      sample.population = index_->Population(distance);
      auto ranks = index_->Draw(distance, count, rng);
      if (!ranks.ok()) return ranks.status();
      sample.states.reserve(ranks->size());
      for (uint64_t rank : *ranks) sample.states.push_back(model_.space().Unrank(rank));
    }
    return sample;
  }

 private:
  // Draw over classes (the comment at the top); `population` gets the states at d.
  absl::StatusOr<std::vector<typename P::State>> DrawClasses(int d, uint64_t count, SeededRng& rng,
                                                             uint64_t* population) const {
    const uint64_t classes = index_->Population(d);
    // The small classes at d: their places among the classes there, ascending, and sizes;
    // and how many of them hold at most t states, for each t.
    std::vector<std::pair<uint64_t, int>> small;
    std::vector<uint64_t> at_most(static_cast<size_t>(order_), 0);
    for (const auto& [rank, size] : small_) {
      if (index_->Distance(rank) != d) continue;
      auto ordinal = index_->Ordinal(d, rank);
      if (!ordinal.ok()) return ordinal.status();
      small.emplace_back(*ordinal, size);
      for (int t = size; t < order_; ++t) ++at_most[static_cast<size_t>(t)];
    }
    if (small.size() > classes) {
      return absl::DataLossError(Cat("table ", index_->metadata().table_id(), " holds ", classes,
                                     " classes at distance ", d, " but ", small.size(),
                                     " classes of fewer states there"));
    }
    *population = 0;
    for (int t = 0; t < order_; ++t) *population += classes - at_most[static_cast<size_t>(t)];
    // State x is member t of a class: the members 0 of every class first, then the members
    // 1 of those that have one, and so on; within each, the classes in order.
    std::vector<std::pair<uint64_t, int>> picks;  // (class place, member), sorted for Select
    for (const uint64_t x : DrawDistinct(*population, count, rng)) {
      uint64_t k = x;
      int t = 0;
      while (k >= classes - at_most[static_cast<size_t>(t)]) k -= classes - at_most[static_cast<size_t>(t++)];
      for (const auto& [place, size] : small) {  // the k-th class with a member t
        if (size > t) continue;
        if (place > k) break;
        ++k;
      }
      picks.push_back({k, t});
    }
    std::sort(picks.begin(), picks.end());
    std::vector<uint64_t> places;
    places.reserve(picks.size());
    for (const auto& pick : picks) places.push_back(pick.first);
    auto ranks = index_->Select(d, places);
    if (!ranks.ok()) return ranks.status();
    std::vector<typename P::State> states;
    states.reserve(ranks->size());
    for (size_t i = 0; i < ranks->size(); ++i) states.push_back(ClassMember(model_, (*ranks)[i], picks[i].second));
    rng.Shuffle(&states);
    return states;
  }

  absl::StatusOr<int> Largest(const SearchLimits& limits) const {
    const int space_largest = static_cast<int>(index_->metadata().max_distance());
    if constexpr (kOwnStates) {
      // The largest distance of a state is at most its space's; step down to the first
      // distance that has states.
      for (int d = space_largest; d > 0; --d) {
        auto population = own_->Population(d, limits);
        if (!population.ok()) return population.status();
        if (*population > 0) return d;
      }
      return 0;
    } else {
      return space_largest;
    }
  }

  const P model_;
  const std::shared_ptr<const DistanceIndex> index_;
  // Only for models that draw their own states.
  typename sampler_internal::Own<P>::type own_{};
  // Only for a space of classes (core/table/state_classes.h): the group's order, and the
  // classes of fewer states (rank, size), by rank.
  int order_ = 1;
  std::vector<std::pair<uint64_t, int>> small_;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_TABLE_SAMPLER_H_
