// MovePruning::Default(): the automaton the build found (core/sliding/move_pruning_gen.cc),
// compiled in.
#include <cstdint>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "core/sliding/move_pruning.h"

namespace puzzledb {
namespace {
#include "core/sliding/move_pruning_table.inc"
}  // namespace

const MovePruning& MovePruning::Default() {
  static const MovePruning pruning = [] {
    std::vector<std::string> patterns;
    std::string pattern;
    for (const char* c = kCompiledPatterns; *c != '\0'; ++c) {
      if (*c == ' ') {
        patterns.push_back(pattern);
        pattern.clear();
      } else {
        pattern.push_back(*c);
      }
    }
    return MovePruning(std::vector<int16_t>(std::begin(kCompiledNext), std::end(kCompiledNext)),
                       std::move(patterns));
  }();
  return pruning;
}

}  // namespace puzzledb
