// libFuzzer target: the original input formats of every puzzle. Whatever the bytes, parsing
// ends with cases that are either refused with a message that names a line, or valid
// positions that hold the model's invariants (Puzzle::SelfCheck: a round trip through the
// compact form and the dense index).
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
  for (const auto& parsed : puzzle.ParseOriginal(text)) {
    if (!parsed.instance.ok()) {
      // Every refusal says where.
      if (puzzledb::Message(parsed.instance.status()).find("line ") == std::string_view::npos) {
        std::abort();
      }
      continue;
    }
    if (!puzzle.SelfCheck(*parsed.instance).ok()) std::abort();
  }
  return 0;
}
