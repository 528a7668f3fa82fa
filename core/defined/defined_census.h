// The census of a definition too large for a table (issue 51): how many states lie at each
// distance from the goals, up to a depth, counted by a breadth-first search that keeps the
// states it has seen (God's algorithm as far as memory allows), not by a table. What
// twsearch's -g prints for the 3×3×3 to distance 7 (100,803,036 positions).
//
// Each state is packed into 128 bits (each byte in as many bits as its set's labels or
// orientations need); a layer is a sorted vector of them, the next one the moves of the
// last, sorted (one part per thread, then merged) and rid of those seen before.
#ifndef PUZZLEDB_CORE_DEFINED_DEFINED_CENSUS_H_
#define PUZZLEDB_CORE_DEFINED_DEFINED_CENSUS_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "core/definition/definition.h"

namespace puzzledb {

struct DefinedCensusOptions {
  int depth = 7;                       // the last distance counted
  uint64_t memory = uint64_t{4} << 30; // bytes of states kept and made, at most
  int threads = 1;
  // After each layer: its distance, its states, the seconds since the start.
  std::function<void(int, uint64_t, double)> on_layer;
};

// The states at distances 0..depth (fewer where the search ends first: no state is
// farther). INVALID_ARGUMENT where a state needs more than 128 bits or the depth is out of
// 0..255; RESOURCE_EXHAUSTED, before the layer that would pass `memory`, saying how much it
// needs (the layers counted so far are in the message).
absl::StatusOr<std::vector<uint64_t>> DefinedCensus(const Definition& definition,
                                                    const DefinedCensusOptions& options);

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_DEFINED_DEFINED_CENSUS_H_
