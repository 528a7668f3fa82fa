#include "core/puzzles/default_tables.h"

#include <algorithm>
#include <string_view>

#include "core/puzzle.h"

namespace puzzledb {
namespace {
#include "core/puzzles/default_params.inc"
}  // namespace

std::span<const DefaultParamsFile> DefaultParamsFiles() { return kDefaultParams; }

std::vector<std::string> DefaultTableIds() {
  std::vector<std::string> ids;
  for (const Puzzle* puzzle : Puzzles()) {
    if (!puzzle->has_parameters()) {
      ids.push_back(puzzle->TableId(puzzle->Goal(nullptr)));
      continue;
    }
    for (const DefaultParamsFile& file : kDefaultParams) {
      if (std::string_view(file.puzzle) != puzzle->name()) continue;
      // The files are checked when the builder reads them (and by DefaultTablesTest);
      // a case that does not parse names no table.
      for (const auto& parsed : puzzle->ParseOriginal(file.text)) {
        if (parsed.instance.ok()) ids.push_back(puzzle->TableId(*parsed.instance));
      }
    }
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

}  // namespace puzzledb
