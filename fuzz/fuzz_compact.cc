// libFuzzer target: the compact one-line forms of every puzzle (what CLI users, GET queries
// and the generic wire form lean on). Valid forms hold the model's invariants
// (Puzzle::SelfCheck: they format back to themselves, their keys rank back).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/puzzle.h"
#include "core/util/strings.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  // The first byte picks the puzzle; the rest is the input.
  const puzzledb::Puzzle& puzzle = *puzzledb::Puzzles()[data[0] % puzzledb::Puzzles().size()];
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  auto position = puzzle.ParseCompact(text);
  if (!position.ok()) {
    if (puzzledb::Message(position.status()).empty()) std::abort();
    return 0;
  }
  if (!puzzle.SelfCheck(*position).ok()) std::abort();
  (void)puzzle.IsGoal(*position);
  return 0;
}
