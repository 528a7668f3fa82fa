// Sampling for a puzzle whose tables are pattern tables (the fifteen puzzle), where no
// table of distances exists (docs/API.md, "Sample"). Every draw is uniform among the
// states it says it draws from:
//  - any distance (kAnyDistance): a uniform rank of the model's space, every solvable
//    state equally likely;
//  - distances the perimeter covers: every state at that distance is listed (the
//    perimeter's breadth-first search from the goal) and `count` distinct ones are drawn;
//  - the largest distance: the model's list of the states there (P::Farthest());
//  - distances where at least kRejectionShare of all states lie: uniform states are drawn
//    and solved exactly, those at the distance kept (rejection sampling, so each state at
//    the distance is equally likely); the population is the model's published count
//    (P::kDistanceCounts);
//  - anything else is refused with FAILED_PRECONDITION saying why.
#ifndef PUZZLEDB_CORE_SLIDING_PATTERN_SAMPLER_H_
#define PUZZLEDB_CORE_SLIDING_PATTERN_SAMPLER_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "core/model/model.h"
#include "core/search/perimeter.h"
#include "core/sliding/pattern_search.h"
#include "core/table/sampler.h"
#include "core/util/random.h"
#include "core/util/strings.h"

namespace puzzledb {

// Rejection draws where at least 1 state in 100 lies at the distance: about 100 exact
// solves per state drawn at worst.
inline constexpr double kRejectionShare = 0.01;

template <PuzzleModel P>
absl::StatusOr<Sample<P>> PatternSample(const P& model, const PatternTables* tables,
                                        const Perimeter<typename P::Space>* perimeter,
                                        int distance, uint64_t count, uint64_t seed,
                                        const SearchLimits& limits) {
  using State = typename P::State;
  Sample<P> sample;
  SeededRng rng(seed);
  const auto& counts = P::kDistanceCounts;
  const int largest = static_cast<int>(counts.size()) - 1;
  uint64_t total = 0;
  for (uint64_t c : counts) total += c;
  auto distinct_from = [&](const std::vector<State>& states) {
    // `count` distinct ones in random order (a partial Fisher-Yates shuffle).
    std::vector<State> pool = states;
    const uint64_t n = std::min<uint64_t>(count, pool.size());
    for (uint64_t i = 0; i < n; ++i) std::swap(pool[i], pool[i + rng.Below(pool.size() - i)]);
    pool.resize(n);
    return pool;
  };
  if (distance == kAnyDistance) {
    sample.distance = 0;
    sample.population = model.space().Size();
    absl::flat_hash_set<uint64_t> seen;
    while (sample.states.size() < std::min<uint64_t>(count, sample.population)) {
      const uint64_t rank = rng.Below(model.space().Size());
      if (seen.insert(rank).second) sample.states.push_back(model.space().Unrank(rank));
    }
    return sample;
  }
  if (distance == Sampler<P>::kLargest || distance == largest) {
    sample.distance = largest;
    const std::vector<State> farthest = P::Farthest();
    sample.population = farthest.size();
    sample.states = distinct_from(farthest);
    return sample;
  }
  if (distance > largest) {
    sample.distance = distance;
    return sample;  // population 0
  }
  sample.distance = distance;
  sample.population = counts[distance];
  if (perimeter != nullptr && distance <= perimeter->radius()) {
    std::vector<State> states;
    for (uint64_t rank : perimeter->RanksAt(distance)) states.push_back(model.space().Unrank(rank));
    if (states.size() != counts[distance]) {
      return absl::DataLossError(Cat("the perimeter holds ", states.size(), " states at distance ",
                                     distance, ", the published count is ", counts[distance]));
    }
    sample.states = distinct_from(states);
    return sample;
  }
  const double share = static_cast<double>(counts[distance]) / static_cast<double>(total);
  if (share < kRejectionShare || tables == nullptr) {
    int low = largest, high = 0;
    for (int d = 0; d <= largest; ++d) {
      if (static_cast<double>(counts[d]) / static_cast<double>(total) >= kRejectionShare) {
        low = std::min(low, d);
        high = std::max(high, d);
      }
    }
    if (tables == nullptr && share >= kRejectionShare) {
      return absl::FailedPreconditionError(
          Cat("sampling the ", P::kName, " puzzle at distance ", distance,
              " solves uniform boards and keeps those at that distance, which needs its "
              "pattern tables (puzzledb-build --puzzle ", P::kName, ")"));
    }
    return absl::FailedPreconditionError(Cat(
        "the ", P::kName, " puzzle samples exactly at distances 0..",
        perimeter != nullptr ? perimeter->radius() : 0, " (every board listed), ", low, "..",
        high, " (uniform boards solved, kept at the distance) and ", largest,
        " (the boards known there); at distance ", distance, " only ", counts[distance], " of ",
        total, " boards lie, too few to find by drawing, and no table lists them"));
  }
  absl::flat_hash_set<uint64_t> seen;
  while (sample.states.size() < count && sample.states.size() < sample.population) {
    if (absl::Status reached = LimitsReached(limits, "sampling"); !reached.ok()) return reached;
    const uint64_t rank = rng.Below(model.space().Size());
    const State s = model.space().Unrank(rank);
    TilePatternSearch<P> search(model, *tables, perimeter, limits);
    auto solved = search.Run(s);
    if (!solved.ok()) return solved.status();
    if (solved->distance == distance && seen.insert(rank).second) sample.states.push_back(s);
  }
  return sample;
}

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_SLIDING_PATTERN_SAMPLER_H_
