// Turns a distance oracle over the table space (a perimeter, or later a table) into what
// a search over puzzle states needs: a lower bound that is exact where the oracle covers
// the state, and the lexicographically smallest optimal path from any covered state.
#ifndef PUZZLEDB_CORE_SEARCH_ORACLE_BOUND_H_
#define PUZZLEDB_CORE_SEARCH_ORACLE_BOUND_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "core/util/strings.h"
#include "core/model/model.h"
#include "core/search/walk_down.h"

namespace puzzledb {

struct Estimate {
  int lower = 0;       // a lower bound on the distance
  bool exact = false;  // lower is the distance itself
};

// Oracle: `int Distance(uint64_t rank) const` (exact, or -1 if not covered) and
// `int UncoveredBound() const` (a lower bound on the distance of every uncovered rank).
template <PuzzleModel P, class Oracle>
class OracleBound {
 public:
  using State = typename P::State;

  // Both must outlive this object.
  OracleBound(const P& model, const Oracle& oracle) : model_(model), oracle_(oracle) {}

  Estimate Evaluate(const State& s) const {
    const int bound = model_.LowerBound(s);
    std::array<uint64_t, P::kMaxKeys> keys;
    const int n = model_.Project(s, &keys);
    if (n == 0) return {bound, false};
    // The state's distance is the smallest over its keys; an uncovered key is at least
    // UncoveredBound() away.
    int best = kUnbounded;
    bool exact = false;
    for (int i = 0; i < n; ++i) {
      const int d = oracle_.Distance(keys[i]);
      const int value = d >= 0 ? d : oracle_.UncoveredBound();
      if (value < best || (value == best && d >= 0)) {
        best = value;
        exact = d >= 0;
      }
    }
    if (exact) return {best, true};
    return {RaiseToParity<P>(s, std::max(bound, best)), false};
  }

  // Appends the lexicographically smallest optimal path from `s`, whose exact distance is
  // `distance` (WalkDown over the oracle's distances; DATA_LOSS if the oracle contradicts
  // itself).
  absl::Status Complete(State s, int distance, std::vector<uint8_t>* moves,
                        uint64_t* lookups) const {
    return WalkDown(
        model_, s, distance, [&](const State& t) { return CoveredMinimum(t, lookups); },
        "the distance oracle", moves);
  }

 private:
  static constexpr int kUnbounded = 1 << 20;

  // The smallest distance among the state's covered keys, or -1 if none is covered.
  int CoveredMinimum(const State& s, uint64_t* lookups) const {
    std::array<uint64_t, P::kMaxKeys> keys;
    const int n = model_.Project(s, &keys);
    int best = -1;
    for (int i = 0; i < n; ++i) {
      const int d = oracle_.Distance(keys[i]);
      ++*lookups;
      if (d >= 0 && (best < 0 || d < best)) best = d;
    }
    return best;
  }

  const P& model_;
  const Oracle& oracle_;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_SEARCH_ORACLE_BOUND_H_
