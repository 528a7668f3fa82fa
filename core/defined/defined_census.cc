#include "core/defined/defined_census.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <thread>

#include "core/definition/defined_index.h"
#include "core/util/strings.h"

namespace puzzledb {
namespace {

using Key = unsigned __int128;

// A state in 128 bits: byte i in width[i] bits, from the lowest up.
class Packing {
 public:
  explicit Packing(const Definition& d) {
    for (const DefinedSet& set : d.sets()) {
      const int label_bits = std::bit_width(static_cast<unsigned>(set.size));
      for (int j = 0; j < set.size; ++j) width_.push_back(label_bits);
      if (set.orientations > 1) {
        const int turn_bits = std::bit_width(static_cast<unsigned>(set.orientations - 1));
        for (int j = 0; j < set.size; ++j) width_.push_back(turn_bits);
      }
    }
    for (const int w : width_) bits_ += w;
  }
  int bits() const { return bits_; }
  Key Pack(const uint8_t* state) const {
    Key key = 0;
    int at = 0;
    for (size_t i = 0; i < width_.size(); ++i) {
      key |= static_cast<Key>(state[i]) << at;
      at += width_[i];
    }
    return key;
  }
  void Unpack(Key key, uint8_t* state) const {
    for (size_t i = 0; i < width_.size(); ++i) {
      state[i] = static_cast<uint8_t>(key & ((Key{1} << width_[i]) - 1));
      key >>= width_[i];
    }
  }

 private:
  std::vector<int> width_;
  int bits_ = 0;
};

}  // namespace

absl::StatusOr<std::vector<uint64_t>> DefinedCensus(const Definition& definition,
                                                    const DefinedCensusOptions& options) {
  if (options.depth < 0 || options.depth > 255) {
    return absl::InvalidArgumentError(Cat("the depth ", options.depth, " is not from 0 to 255"));
  }
  const Packing packing(definition);
  if (packing.bits() > 128) {
    return absl::InvalidArgumentError(Cat("its states take ", packing.bits(),
                                          " bits, more than the 128 a census by search keeps a state in"));
  }
  const auto started = std::chrono::steady_clock::now();
  const CompiledMoves moves(definition);
  const auto n = static_cast<size_t>(definition.state_bytes());
  const int threads = std::max(1, options.threads);
  // Every layer so far, each sorted.
  std::vector<std::vector<Key>> layers(1);
  for (const DefinedState& goal : definition.goals()) layers[0].push_back(packing.Pack(goal.data()));
  std::sort(layers[0].begin(), layers[0].end());
  layers[0].erase(std::unique(layers[0].begin(), layers[0].end()), layers[0].end());
  std::vector<uint64_t> counts = {layers[0].size()};
  if (options.on_layer) options.on_layer(0, counts[0], SecondsSince(started));
  uint64_t kept = layers[0].size();
  for (int d = 1; d <= options.depth && !layers.back().empty(); ++d) {
    const std::vector<Key>& last = layers.back();
    // The states one move before the last layer's: each block's inverse, where the block is
    // the one its move plays there.
    const uint64_t made = last.size() * static_cast<uint64_t>(moves.block_count());
    const uint64_t need = (kept + 2 * made) * sizeof(Key);  // the layers, the moves made, the merge
    if (need > options.memory) {
      return absl::ResourceExhaustedError(
          Cat("distance ", d, " of the census needs about ", Thousands(need), " bytes, more than ",
              Thousands(options.memory), " (counted so far: ", Join(counts, " "), ")"));
    }
    std::vector<std::vector<Key>> parts(static_cast<size_t>(threads));
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
      workers.emplace_back([&, t] {
        std::vector<Key>& part = parts[static_cast<size_t>(t)];
        const size_t begin = last.size() * static_cast<size_t>(t) / static_cast<size_t>(threads);
        const size_t end = last.size() * static_cast<size_t>(t + 1) / static_cast<size_t>(threads);
        part.reserve((end - begin) * static_cast<size_t>(moves.block_count()));
        DefinedState state(n), before(n);
        for (size_t i = begin; i < end; ++i) {
          packing.Unpack(last[i], state.data());
          for (int b = 0; b < moves.block_count(); ++b) {
            moves.Untransform(b, state.data(), before.data());
            if (moves.BlockAt(moves.block(b).move, before.data()) != b || !moves.Legal(before.data())) continue;
            part.push_back(packing.Pack(before.data()));
          }
        }
        std::sort(part.begin(), part.end());
        part.erase(std::unique(part.begin(), part.end()), part.end());
      });
    }
    for (std::thread& w : workers) w.join();
    // Merged, without repeats and without the states of any layer before: counted first,
    // then written, so that the layer takes no more than its own bytes.
    auto merge = [&](std::vector<Key>* out) {
      std::vector<size_t> at(parts.size(), 0);
      std::vector<size_t> seen(layers.size(), 0);
      uint64_t count = 0;
      while (true) {
        const Key* least = nullptr;
        for (size_t p = 0; p < parts.size(); ++p) {
          if (at[p] < parts[p].size() && (least == nullptr || parts[p][at[p]] < *least)) least = &parts[p][at[p]];
        }
        if (least == nullptr) break;
        const Key key = *least;
        for (size_t p = 0; p < parts.size(); ++p) {
          if (at[p] < parts[p].size() && parts[p][at[p]] == key) ++at[p];
        }
        bool old = false;
        for (size_t l = 0; l < layers.size() && !old; ++l) {
          const std::vector<Key>& layer = layers[l];
          while (seen[l] < layer.size() && layer[seen[l]] < key) ++seen[l];
          old = seen[l] < layer.size() && layer[seen[l]] == key;
        }
        if (old) continue;
        ++count;
        if (out != nullptr) out->push_back(key);
      }
      return count;
    };
    std::vector<Key> next;
    next.reserve(merge(nullptr));
    merge(&next);
    std::vector<std::vector<Key>>().swap(parts);
    if (next.empty()) break;  // no state is farther
    kept += next.size();
    counts.push_back(next.size());
    if (options.on_layer) options.on_layer(d, next.size(), SecondsSince(started));
    layers.push_back(std::move(next));
  }
  return counts;
}

}  // namespace puzzledb
