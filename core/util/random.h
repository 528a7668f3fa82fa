// A small random number generator whose output is fixed by its seed on every platform and
// library version (std::uniform_int_distribution is not), so that a sample drawn with a
// seed can be drawn again (docs/API.md, "Sample").
#ifndef PUZZLEDB_CORE_UTIL_RANDOM_H_
#define PUZZLEDB_CORE_UTIL_RANDOM_H_

#include <cstdint>
#include <utility>
#include <vector>

namespace puzzledb {

// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators",
// 2014): a 64-bit counter through a mixing function. Not for cryptography.
class SeededRng {
 public:
  explicit SeededRng(uint64_t seed) : state_(seed) {}

  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  // Uniform in [0, n), without bias (Lemire's multiply-and-reject). REQUIRES: n > 0.
  uint64_t Below(uint64_t n) {
    unsigned __int128 product = static_cast<unsigned __int128>(Next()) * n;
    auto low = static_cast<uint64_t>(product);
    if (low < n) {
      const uint64_t threshold = -n % n;
      while (low < threshold) {
        product = static_cast<unsigned __int128>(Next()) * n;
        low = static_cast<uint64_t>(product);
      }
    }
    return static_cast<uint64_t>(product >> 64);
  }

  // Shuffles `items` uniformly (Fisher-Yates).
  template <class T>
  void Shuffle(std::vector<T>* items) {
    for (size_t i = items->size(); i > 1; --i) {
      std::swap((*items)[i - 1], (*items)[Below(i)]);
    }
  }

 private:
  uint64_t state_;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_UTIL_RANDOM_H_
