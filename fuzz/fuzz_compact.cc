// libFuzzer target: the compact one-line forms of the three puzzles (what CLI users and
// the wire formats lean on). Valid forms format back to themselves when parsed again.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/puzzles/registry.h"
#include "core/util/strings.h"

namespace {

template <puzzledb::PuzzleModel P>
void Check(std::string_view text) {
  auto instance = P::ParseCompact(text);
  if (!instance.ok()) {
    if (puzzledb::Message(instance.status()).empty()) std::abort();
    return;
  }
  const std::string formatted = P::FormatCompact(*instance);
  auto again = P::ParseCompact(formatted);
  if (!again.ok() || P::FormatCompact(*again) != formatted) std::abort();
  const P model(instance->params);
  (void)model.LowerBound(instance->state);
  (void)model.IsGoal(instance->state);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  // The first byte picks the puzzle; the rest is the input.
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  puzzledb::VisitPuzzleAt(data[0] % puzzledb::kPuzzleCount,
                          [&](auto type) { Check<typename decltype(type)::type>(text); });
  return 0;
}
