#include "core/puzzles/registry.h"

namespace puzzledb {

std::string PuzzleNames(std::string_view separator) {
  std::string names;
  ForEachPuzzle([&](auto model) {
    if (!names.empty()) names += separator;
    names += decltype(model)::type::kName;
  });
  return names;
}

std::vector<std::string> PuzzleNameList() {
  std::vector<std::string> names;
  ForEachPuzzle([&](auto model) { names.emplace_back(decltype(model)::type::kName); });
  return names;
}

}  // namespace puzzledb
