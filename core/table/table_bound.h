// A partial table as the bound of IDA* (core/search/ida_star.h): the solver's search over a
// table that does not cover the state.
#ifndef PUZZLEDB_CORE_TABLE_TABLE_BOUND_H_
#define PUZZLEDB_CORE_TABLE_TABLE_BOUND_H_

#include <algorithm>
#include <vector>

#include "core/table/table_walker.h"

namespace puzzledb {

// A partial table as the bound of IDA*: exact inside the table (and the rest of the path is
// the table's walk), at least coverage depth + 1 outside it.
template <PuzzleModel P>
class TableBound {
 public:
  explicit TableBound(const P& model, const TableWalker<P>& walker) : model_(model), walker_(walker) {}

  Estimate Evaluate(const typename P::State& s) const {
    uint64_t lookups = 0;
    auto lookup = walker_.Lookup(s, &lookups);
    const int bound = model_.LowerBound(s);
    if (lookup.ok() && lookup->kind == TableLookup::Kind::kCovered) return {lookup->distance, true};
    int lower = bound;
    if (lookup.ok() && lookup->kind == TableLookup::Kind::kUncovered) {
      lower = std::max(lower, walker_.UncoveredBound());
    }
    lower = RaiseToParity<P>(s, lower);
    return {lower, false};
  }

  absl::Status Complete(const typename P::State& s, int distance, std::vector<uint8_t>* moves,
                        uint64_t* lookups) const {
    auto walk = walker_.Walk(s, 0);
    if (!walk.ok()) return walk.status();
    if (walk->distance != distance) return absl::DataLossError("table walk length changed");
    moves->insert(moves->end(), walk->moves.begin(), walk->moves.end());
    *lookups += walk->lookups;
    return absl::OkStatus();
  }

 private:
  const P& model_;
  const TableWalker<P>& walker_;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_TABLE_TABLE_BOUND_H_
