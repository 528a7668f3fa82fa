// libFuzzer target: any bytes as a definition file (core/definition/read_definition.h).
// Nothing may crash, hang or read out of bounds; a refusal is INVALID_ARGUMENT naming the
// file; and a definition read keeps its rules: within the limits, move names unique, every
// goal reads back from its compact form, and every move applied to a goal gives a state
// that reads back too (labels the goal's, orientations in range).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include "core/definition/read_definition.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  puzzledb::DefinitionLimits limits;
  limits.max_moves = 60;
  limits.max_blocks = 200;
  const auto read = puzzledb::ReadDefinition(text, "fuzz.tws", limits);
  if (!read.ok()) {
    if (!absl::IsInvalidArgument(read.status())) std::abort();
    if (read.status().message().rfind("fuzz.tws", 0) != 0) std::abort();
    return 0;
  }
  const puzzledb::Definition& d = *read;
  if (d.sets().empty() || d.goals().empty() || d.moves().empty()) std::abort();
  if (static_cast<int>(d.moves().size()) > limits.max_moves) std::abort();
  std::set<std::string> names;
  for (const auto& m : d.moves()) {
    if (!names.insert(m.name).second) std::abort();
  }
  puzzledb::DefinedState next;
  for (const puzzledb::DefinedState& goal : d.goals()) {
    const auto back = d.ParseCompact(d.FormatCompact(goal));
    if (!back.ok() || *back != goal) std::abort();
    for (int m = 0; m < static_cast<int>(d.moves().size()); ++m) {
      if (!d.Apply(goal, m, &next)) continue;
      const auto again = d.ParseCompact(d.FormatCompact(next));
      if (!again.ok() || *again != next) std::abort();
    }
  }
  return 0;
}
