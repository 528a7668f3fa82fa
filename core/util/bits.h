// Bit tricks used by the state encodings: parallel bit extract/deposit (BMI2 when the
// build enables it, a portable loop otherwise), popcount, and the k-subset ranker.
#ifndef PUZZLEDB_CORE_UTIL_BITS_H_
#define PUZZLEDB_CORE_UTIL_BITS_H_

#include <array>
#include <bit>
#include <cstdint>
#include <vector>

#if defined(PUZZLEDB_HAVE_BMI2)
#include <immintrin.h>
#endif

namespace puzzledb {

// Gathers the bits of `value` selected by `mask` into the low bits of the result.
inline uint32_t ExtractBits(uint32_t value, uint32_t mask) {
#if defined(PUZZLEDB_HAVE_BMI2)
  return _pext_u32(value, mask);
#else
  uint32_t out = 0;
  for (uint32_t bit = 1; mask != 0; bit <<= 1) {
    const uint32_t low = mask & -mask;
    if (value & low) out |= bit;
    mask ^= low;
  }
  return out;
#endif
}

// Scatters the low bits of `value` to the positions selected by `mask`.
inline uint32_t DepositBits(uint32_t value, uint32_t mask) {
#if defined(PUZZLEDB_HAVE_BMI2)
  return _pdep_u32(value, mask);
#else
  uint32_t out = 0;
  for (uint32_t bit = 1; mask != 0; bit <<= 1) {
    const uint32_t low = mask & -mask;
    if (value & bit) out |= low;
    mask ^= low;
  }
  return out;
#endif
}

inline int PopCount(uint32_t x) { return std::popcount(x); }

// The low `n` bits of x in reverse order (bit i to bit n - 1 - i); the bits above n must
// be clear. REQUIRES: 1 <= n <= 32.
constexpr uint32_t ReverseLowBits(uint32_t x, int n) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4);
  x = ((x >> 8) & 0x00FF00FFu) | ((x & 0x00FF00FFu) << 8);
  x = (x >> 16) | (x << 16);
  return x >> (32 - n);
}

// The next larger integer with the same number of set bits (Gosper's hack). Enumerating
// k-subsets this way visits them in colexicographic order, i.e. in SubsetRanker rank order.
inline uint32_t NextSubset(uint32_t x) {
  const uint32_t low = x & -x;
  const uint32_t ripple = x + low;
  return ripple | (((x ^ ripple) >> 2) / low);
}

namespace bits_internal {
inline constexpr int kMaxBinomial = 32;
using BinomialTable = std::array<std::array<uint64_t, kMaxBinomial + 1>, kMaxBinomial + 1>;
constexpr BinomialTable BuildBinomials() {
  BinomialTable t{};
  for (int n = 0; n <= kMaxBinomial; ++n) {
    t[n][0] = 1;
    for (int k = 1; k <= n; ++k) t[n][k] = t[n - 1][k - 1] + (k <= n - 1 ? t[n - 1][k] : 0);
  }
  return t;
}
inline constexpr BinomialTable kBinomials = BuildBinomials();
}  // namespace bits_internal

// Binomial coefficients C(n, k) for n, k <= 32.
class Binomials {
 public:
  static constexpr uint64_t Get(int n, int k) {
    if (k < 0 || n < 0 || k > n || n > bits_internal::kMaxBinomial) return 0;
    return bits_internal::kBinomials[n][k];
  }
};

// The subset of k of the bits 0..n-1 of colexicographic rank `rank`, walking down from the
// top bit. REQUIRES: rank < C(n, k).
inline uint32_t UnrankSubset(uint64_t rank, int n, int k) {
  uint32_t mask = 0;
  for (int bit = n - 1; bit >= 0 && k > 0; --bit) {
    const uint64_t c = Binomials::Get(bit, k);
    if (rank >= c) {
      rank -= c;
      mask |= 1u << bit;
      --k;
    }
  }
  return mask;
}

// Ranks the K-element subsets of {0..N-1} (given as N-bit masks) in colexicographic order:
// rank(S) = sum over the j-th smallest element s_j (j = 1..K) of C(s_j, j). This is a
// bijection onto [0, C(N, K)). Ranking uses one lookup per byte of the mask, so it costs a
// few loads instead of a loop over N bits; unranking walks down from the top bit.
template <int N, int K>
class SubsetRanker {
  static_assert(N > 0 && N <= 24 && K >= 0 && K <= N, "masks up to 24 bits");
  static constexpr int kBytes = (N + 7) / 8;

 public:
  static constexpr uint64_t kCount = Binomials::Get(N, K);

  static uint32_t Rank(uint32_t mask) {
    uint32_t rank = 0;
    int before = 0;
    for (int b = 0; b < kBytes; ++b) {
      const uint32_t byte = (mask >> (8 * b)) & 0xFF;
      rank += kTables.contribution[b][byte][before];
      before += std::popcount(byte);
    }
    return rank;
  }

  // REQUIRES: rank < kCount. A lookup in a table of every mask by rank (built on first
  // use: C(24,12) masks take 10.8 MB), so that scans over the whole space stay cheap.
  static uint32_t Unrank(uint64_t rank) { return MasksByRank()[rank]; }

  // The same by walking down from the top bit; builds nothing.
  static uint32_t UnrankSlowly(uint64_t rank) { return UnrankSubset(rank, N, K); }

  // Every mask in rank (colexicographic) order.
  static const uint32_t* MasksByRank() {
    static const std::vector<uint32_t>* masks = [] {
      auto* out = new std::vector<uint32_t>(kCount);
      uint32_t mask = First();
      for (uint64_t r = 0; r < kCount; ++r) {
        (*out)[r] = mask;
        if (K > 0) mask = NextSubset(mask);
      }
      return out;
    }();
    return masks->data();
  }

  // The mask of rank 0: the K lowest bits.
  static constexpr uint32_t First() { return K == 0 ? 0u : ((1u << K) - 1); }

 private:
  struct Tables {
    // contribution[b][byte][before]: what the set bits of `byte`, placed at byte b, add to
    // the rank when `before` elements lie below that byte.
    uint32_t contribution[kBytes][256][K + 1];
  };
  static Tables BuildTables() {
    Tables t{};
    for (int b = 0; b < kBytes; ++b) {
      for (int byte = 0; byte < 256; ++byte) {
        for (int before = 0; before <= K; ++before) {
          uint64_t sum = 0;
          int j = before;
          for (int bit = 0; bit < 8; ++bit) {
            if (byte & (1 << bit)) {
              ++j;
              sum += Binomials::Get(8 * b + bit, j);
            }
          }
          t.contribution[b][byte][before] = static_cast<uint32_t>(sum);
        }
      }
    }
    return t;
  }
  static inline const Tables kTables = BuildTables();
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_UTIL_BITS_H_
