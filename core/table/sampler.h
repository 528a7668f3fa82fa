// States drawn uniformly at an exact distance from the goal (docs/API.md, "Sample").
//
// For a puzzle whose states are its table's space (the knight, the knobs, the 8-puzzle) a
// draw is a uniform rank among the table's entries at that distance (DistanceIndex). A
// model whose states are not its space's (the rotation game: boards over placements) says
// how to draw its states with `using BoardSampler = ...`, a class built from the space's
// exact distances with Population(d, limits) and Draw(d, count, rng, limits).
//
// A space that keeps one entry per state and its mirror (`Space::kMirrorQuotient`: the
// knight) holds classes, not states: a class stands for two states, or one when the state
// is its own mirror (`Space::SelfMirrored()` lists those). The states at distance d are then
// 2 x (classes at d) - (self-mirrored states at d), and state j among them is class j (as
// the space's representative) for j below the class count, and otherwise the mirror of the
// (j - classes)-th class that is not its own mirror: a uniform j is a uniform state.
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
  static constexpr bool kMirrorQuotient = requires { P::Space::kMirrorQuotient; };
  static constexpr int kLargest = kLargestDistance;

  Sampler(const P& model, std::shared_ptr<const DistanceIndex> index)
      : model_(model), index_(std::move(index)) {
    if constexpr (kOwnStates) {
      own_ = std::make_unique<const typename P::BoardSampler>(index_->distances());
    }
    if constexpr (kMirrorQuotient) {
      for (const auto& s : P::Space::SelfMirrored()) {
        const uint64_t rank = model_.space().Rank(s);
        self_mirrored_.push_back({rank, index_->Distance(rank)});
      }
      std::sort(self_mirrored_.begin(), self_mirrored_.end());
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
    } else if constexpr (kMirrorQuotient) {
      auto states = DrawMirrored(distance, count, rng, &sample.population);
      if (!states.ok()) return states.status();
      sample.states = std::move(*states);
    } else {
      sample.population = index_->Population(distance);
      auto ranks = index_->Draw(distance, count, rng);
      if (!ranks.ok()) return ranks.status();
      sample.states.reserve(ranks->size());
      for (uint64_t rank : *ranks) sample.states.push_back(model_.space().Unrank(rank));
    }
    return sample;
  }

 private:
  // Draw for a mirror quotient (the comment at the top); `population` gets the states at d.
  absl::StatusOr<std::vector<typename P::State>> DrawMirrored(int d, uint64_t count,
                                                              SeededRng& rng,
                                                              uint64_t* population) const {
    const uint64_t classes = index_->Population(d);
    std::vector<uint64_t> own;  // the places of the self-mirrored classes at d, ascending
    for (const auto& [rank, distance] : self_mirrored_) {
      if (distance != d) continue;
      auto ordinal = index_->Ordinal(d, rank);
      if (!ordinal.ok()) return ordinal.status();
      own.push_back(*ordinal);
    }
    if (own.size() > classes) {
      return absl::DataLossError(Cat("table ", index_->metadata().table_id(), " holds ",
                                     classes, " classes at distance ", d, " but ", own.size(),
                                     " self-mirrored states there"));
    }
    *population = 2 * classes - own.size();
    // (class place, mirrored), sorted by place for Select.
    std::vector<std::pair<uint64_t, bool>> picks;
    for (uint64_t j : DrawDistinct(*population, count, rng)) {
      if (j < classes) {
        picks.push_back({j, false});
        continue;
      }
      uint64_t k = j - classes;  // the k-th class that is not its own mirror
      for (uint64_t place : own) {
        if (place > k) break;
        ++k;
      }
      picks.push_back({k, true});
    }
    std::sort(picks.begin(), picks.end());
    std::vector<uint64_t> places;
    places.reserve(picks.size());
    for (const auto& pick : picks) places.push_back(pick.first);
    auto ranks = index_->Select(d, places);
    if (!ranks.ok()) return ranks.status();
    std::vector<typename P::State> states;
    states.reserve(ranks->size());
    for (size_t i = 0; i < ranks->size(); ++i) {
      const auto s = model_.space().Unrank((*ranks)[i]);
      states.push_back(picks[i].second ? P::Mirror(s) : s);
    }
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
  // Only for mirror quotients: the self-mirrored states' (rank, distance), by rank.
  std::vector<std::pair<uint64_t, uint8_t>> self_mirrored_;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_TABLE_SAMPLER_H_
