// libFuzzer target: the three original input formats. Whatever the bytes, parsing ends
// with cases that are either refused with a message that names a line, or valid
// instances that survive a round trip through the compact form and the dense index.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/puzzles/registry.h"
#include "core/util/strings.h"

namespace {

template <puzzledb::PuzzleModel P>
void Check(std::string_view text) {
  for (const auto& parsed : P::ParseOriginal(text)) {
    if (!parsed.instance.ok()) {
      // Every refusal says where.
      if (puzzledb::Message(parsed.instance.status()).find("line ") == std::string_view::npos) {
        std::abort();
      }
      continue;
    }
    const auto& instance = *parsed.instance;
    auto again = P::ParseCompact(P::FormatCompact(instance));
    if (!again.ok() || !(again->state == instance.state) || !(again->params == instance.params)) {
      std::abort();
    }
    const P model(instance.params);
    std::array<uint64_t, P::kMaxKeys> keys;
    const int n = model.Project(instance.state, &keys);
    for (int i = 0; i < n; ++i) {
      if (keys[i] >= model.space().Size()) std::abort();
      if (model.space().Rank(model.space().Unrank(keys[i])) != keys[i]) std::abort();
    }
  }
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
