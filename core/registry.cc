#include "core/registry.h"

namespace puzzledb {

std::string PuzzleNames(std::string_view separator) {
  std::string names;
  ForEachPuzzle([&](auto model) {
    if (!names.empty()) names += separator;
    names += decltype(model)::type::kName;
  });
  return names;
}

}  // namespace puzzledb
