#include "core/puzzles/default_tables.h"

#include <algorithm>
#include <string_view>

#include "core/puzzles/registry.h"

namespace puzzledb {
namespace {
#include "core/puzzles/default_params.inc"
}  // namespace

std::span<const DefaultParamsFile> DefaultParamsFiles() { return kDefaultParams; }

std::vector<std::string> DefaultTableIds() {
  std::vector<std::string> ids;
  ForEachPuzzle([&ids](auto model) {
    using P = typename decltype(model)::type;
    if constexpr (!HasParams<P>) {
      ids.push_back(P::TableId(typename P::Params{}));
    } else {
      for (const DefaultParamsFile& file : kDefaultParams) {
        if (std::string_view(file.puzzle) != P::kName) continue;
        // The files are checked when the builder reads them (and by DefaultTablesTest);
        // a case that does not parse names no table.
        for (const auto& parsed : P::ParseOriginal(file.text)) {
          if (parsed.instance.ok()) ids.push_back(P::TableId(parsed.instance->params));
        }
      }
    }
  });
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

}  // namespace puzzledb
