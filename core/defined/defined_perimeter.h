// A definition's perimeter (issue 51): the exact distance of every state within `radius`
// moves of a goal, found by a breadth-first search backwards from the goals (each block's
// inverse, where its guards hold on the state it leaves), as many layers as fit a number of
// states. The live search stops where its bound falls within the radius: a state listed
// there is exactly that far, and its answer's end is walked down the listing; one not
// listed is at least radius + 1 away. Keyed by the states' bytes, so that it needs no index
// (the definitions it serves have none that fits). Immutable once built.
#ifndef PUZZLEDB_CORE_DEFINED_DEFINED_PERIMETER_H_
#define PUZZLEDB_CORE_DEFINED_DEFINED_PERIMETER_H_

#include <cstdint>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "core/definition/defined_index.h"
#include "core/definition/definition.h"

namespace puzzledb {

// The states a perimeter keeps at most by default: 2^17, a few megabytes, and fewer where
// its search would pass 2^27 bytes of blocks applied (PerimeterStates).
inline constexpr uint64_t kDefaultPerimeterStates = uint64_t{1} << 17;
uint64_t PerimeterStates(const CompiledMoves& moves);

class DefinedPerimeter {
 public:
  // The layers whose states, with those before, stay within max_states (radius 0: the goals
  // alone, whatever their number).
  DefinedPerimeter(const Definition& definition, const CompiledMoves& moves, uint64_t max_states);

  int radius() const { return radius_; }
  uint64_t size() const { return distance_.size(); }
  // The state's distance, or -1 when it is farther than radius().
  int Distance(const DefinedState& state) const {
    // A view of the bytes: no string is made for the lookup.
    const auto it = distance_.find(
        absl::string_view(reinterpret_cast<const char*>(state.data()), state.size()));
    return it == distance_.end() ? -1 : it->second;
  }

 private:
  int radius_ = 0;
  absl::flat_hash_map<std::string, uint8_t> distance_;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_DEFINED_DEFINED_PERIMETER_H_
