#include "core/sliding/walking_distance.h"

#include <algorithm>
#include <array>
#include <cstdlib>

#include "absl/container/flat_hash_map.h"

namespace puzzledb {
namespace {

uint64_t Key(const uint8_t (&count)[4][4], int empty_line) {
  uint64_t key = 0;
  for (int line = 0; line < 4; ++line) {
    for (int home = 0; home < 4; ++home) key |= uint64_t{count[line][home]} << (3 * (4 * line + home));
  }
  return key | uint64_t(empty_line) << 48;
}

void Unkey(uint64_t key, uint8_t (&count)[4][4], int* empty_line) {
  for (int line = 0; line < 4; ++line) {
    for (int home = 0; home < 4; ++home) count[line][home] = (key >> (3 * (4 * line + home))) & 7;
  }
  *empty_line = static_cast<int>(key >> 48);
}

}  // namespace

WalkingDistance::WalkingDistance() {
  // Breadth-first from the goal: every line holds its own four tiles, the last three and
  // the empty place. The moves are their own inverses, so distances from the goal are
  // distances to it.
  uint8_t goal[4][4] = {};
  for (int line = 0; line < 4; ++line) goal[line][line] = line == 3 ? 3 : 4;
  std::vector<uint64_t> keys = {Key(goal, 3)};
  std::vector<int> distance = {0};
  absl::flat_hash_map<uint64_t, int32_t> number = {{keys[0], 0}};
  std::vector<std::array<int32_t, 8>> edges;  // [state][later * 4 + home]: a state number
  for (size_t i = 0; i < keys.size(); ++i) {
    uint8_t count[4][4];
    int empty;
    Unkey(keys[i], count, &empty);
    std::array<int32_t, 8> out;
    out.fill(-1);
    for (int later = 0; later < 2; ++later) {
      const int from = later ? empty + 1 : empty - 1;  // the line the tile comes from
      if (from < 0 || from > 3) continue;
      for (int home = 0; home < 4; ++home) {
        if (count[from][home] == 0) continue;
        --count[from][home];
        ++count[empty][home];
        const uint64_t key = Key(count, from);
        auto [it, fresh] = number.try_emplace(key, static_cast<int32_t>(keys.size()));
        if (fresh) {
          keys.push_back(key);
          distance.push_back(distance[i] + 1);
        }
        out[later * 4 + home] = it->second;
        ++count[from][home];
        --count[empty][home];
      }
    }
    edges.push_back(out);
  }
  auto packed = [&](int32_t state) { return static_cast<Packed>((state << kDistanceBits) | distance[state]); };
  next_.resize(keys.size() * 8);
  for (size_t i = 0; i < keys.size(); ++i) {
    for (int e = 0; e < 8; ++e) next_[i * 8 + e] = edges[i][e] < 0 ? -1 : packed(edges[i][e]);
    by_key_.push_back({keys[i], packed(static_cast<int32_t>(i))});
    largest_ = std::max(largest_, distance[i]);
  }
  std::sort(by_key_.begin(), by_key_.end());
}

const WalkingDistance& WalkingDistance::Default() {
  static const WalkingDistance table;
  return table;
}

WalkingDistance::Packed WalkingDistance::Find(const uint8_t (&count)[4][4], int empty_line) const {
  const uint64_t key = Key(count, empty_line);
  auto it = std::lower_bound(by_key_.begin(), by_key_.end(), std::make_pair(key, Packed{-1}));
  // Every board's counts are a state of the table (the search above reaches them all).
  if (it == by_key_.end() || it->first != key) std::abort();
  return it->second;
}

}  // namespace puzzledb
