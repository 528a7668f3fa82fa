#include "core/defined/defined_perimeter.h"

#include <algorithm>
#include <vector>

namespace puzzledb {

uint64_t PerimeterStates(const CompiledMoves& moves) {
  const uint64_t work = static_cast<uint64_t>(std::max(1, moves.block_count())) *
                        static_cast<uint64_t>(std::max(1, moves.state_bytes()));
  return std::min(kDefaultPerimeterStates, std::max<uint64_t>(1, (uint64_t{1} << 27) / work));
}

DefinedPerimeter::DefinedPerimeter(const Definition& definition, const CompiledMoves& moves,
                                   uint64_t max_states) {
  std::vector<std::string> frontier;
  for (const DefinedState& goal : definition.goals()) {
    std::string key(goal.begin(), goal.end());
    if (distance_.emplace(key, 0).second) frontier.push_back(std::move(key));
  }
  std::string before(static_cast<size_t>(moves.state_bytes()), '\0');
  for (int d = 1; d < 255 && !frontier.empty(); ++d) {
    std::vector<std::string> next;
    bool fits = true;
    for (const std::string& state : frontier) {
      const auto* bytes = reinterpret_cast<const uint8_t*>(state.data());
      for (int b = 0; b < moves.block_count() && fits; ++b) {
        auto* out = reinterpret_cast<uint8_t*>(before.data());
        moves.Untransform(b, bytes, out);
        if (!moves.Holds(b, out) || !moves.Legal(out) || distance_.contains(before)) continue;
        distance_.emplace(before, static_cast<uint8_t>(d));
        next.push_back(before);
        fits = distance_.size() <= max_states;
      }
      if (!fits) break;
    }
    if (!fits) {
      // The layer does not fit: it is left out whole.
      for (const std::string& state : next) distance_.erase(state);
      break;
    }
    radius_ = d;
    frontier.swap(next);
  }
}

}  // namespace puzzledb
