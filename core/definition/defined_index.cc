#include "core/definition/defined_index.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <numeric>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/util/bits.h"
#include "core/util/strings.h"

namespace puzzledb {
namespace {

// Above this, a label coordinate of distinct labels does not fit the 64-bit arithmetic
// (21! > 2^64); the size limit refuses such an index long before.
constexpr int kMaxDistinct = 20;
// Coordinates of more than one value in an index within 2^62 numbers.
constexpr size_t kMaxCoordinates = 62;
// An inner part's table (a 32-bit entry per inner number and block) stays within this.
constexpr uint64_t kInnerTableBytes = uint64_t{4} << 20;
// An order coordinate (the inner part) has at most 9! values: the search keeps a table of
// them for each permutation of its slots that the blocks make.
constexpr uint64_t kMaxOrders = 362880;
// An arrangement coordinate (the inner part) has at most this many slots (a step of the
// search carries their permutation).
constexpr int kMaxArrangementSlots = 32;

// Division by 1..255 of a product known to be a multiple of the divisor, whose quotient fits
// 64 bits (counts of arrangements of a multiset): a multiplication by the inverse of the
// divisor's odd part modulo 2^64, after shifting out its powers of two, instead of a
// division (the ranks of multisets did little else).
struct ExactDivisors {
  uint64_t inverse[256] = {};  // of each odd number, modulo 2^64
  constexpr ExactDivisors() {
    for (uint64_t d = 1; d < 256; d += 2) {
      uint64_t x = d;  // correct to 3 bits; each step doubles them
      for (int i = 0; i < 5; ++i) x *= 2 - d * x;
      inverse[d] = x;
    }
  }
};
constexpr ExactDivisors kExactDivisors;

uint64_t ExactQuotient(uint64_t a, uint64_t b, uint32_t divisor) {
  const int shift = std::countr_zero(divisor);
  const uint64_t inverse = kExactDivisors.inverse[divisor >> shift];
  if (a < (uint64_t{1} << 56)) return ((a * b) >> shift) * inverse;  // b < 256: no overflow
  const unsigned __int128 product = static_cast<unsigned __int128>(a) * b;
  return static_cast<uint64_t>(product >> shift) * inverse;
}

// Binomial coefficients C(n, k) for n up to 62 (each within 64 bits): the ranks of orbits
// of two labels.
constexpr int kMaxBinomial = 62;
struct Binomials {
  uint64_t c[kMaxBinomial + 1][kMaxBinomial + 1] = {};
  uint64_t below[kMaxBinomial + 1][kMaxBinomial + 2] = {};  // [n][k]: C(n, k - 1); [n][0] = 0
  constexpr Binomials() {
    for (int n = 0; n <= kMaxBinomial; ++n) {
      c[n][0] = 1;
      for (int k = 1; k <= n; ++k) c[n][k] = c[n - 1][k - 1] + (k < n ? c[n - 1][k] : 0);
      for (int k = 1; k <= n + 1; ++k) below[n][k] = c[n][k - 1];
    }
  }
};
constexpr Binomials kBinomials;

// shifted[i] = (i - 1)! for i from 1 to 21 (within 64 bits), shifted[0] = 0: the weight of
// a Lehmer digit with i pieces left to place, nothing when none is.
struct Factorials {
  uint64_t shifted[22] = {};
  constexpr Factorials() {
    shifted[1] = 1;
    for (int i = 2; i < 22; ++i) shifted[i] = shifted[i - 1] * static_cast<uint64_t>(i - 1);
  }
};
constexpr Factorials kFactorials;

// A kOrder coordinate's rank, a position at a time (its code there, 0xFF for another
// piece's). The Lehmer code of its pieces in the order of the positions holding them: its
// i-th piece's digit (the unused codes below its own) weighs (k - 1 - i)!, summed rather
// than multiplied in turn, so that the digits do not wait for one another. Without
// branches: a position of another piece adds nothing.
struct OrderRank {
  explicit OrderRank(const DefinedIndex::Coordinate& c) : k(static_cast<int>(c.label.size())) {}
  void Step(uint8_t code) {
    const bool ours = code != 0xFF;
    const uint32_t bit = ours ? uint32_t{1} << (code & 31) : 0;
    const uint32_t below = ours ? bit - 1 : 0;
    rank += static_cast<uint64_t>(std::popcount(below & ~used)) * kFactorials.shifted[k - placed];  // 0 once all are placed
    used |= bit;
    placed += ours ? 1 : 0;
  }
  const int k;
  uint32_t used = 0;
  int placed = 0;
  uint64_t rank = 0;
};

// A coordinate of two labels, a position at a time (1 where the second label is): before
// each position holding the second, the arrangements that put the first there,
// C(left - 1, firsts left - 1). Without branches: which label is where is a coin toss to a
// predictor.
struct TwoLabelRank {
  explicit TwoLabelRank(const DefinedIndex::Coordinate& c) : n(c.n), firsts(c.counts[0]) {}
  void Step(int j, uint64_t second) {
    rank += second * kBinomials.below[n - j - 1][firsts];
    firsts -= static_cast<int>(1 - second);
  }
  const int n;
  int firsts;
  uint64_t rank = 0;
};

// What a rank that checks its state (kCheck) finds besides the number: whether the
// coordinate breaks an invariant (a piece too many or missing, an orientation sum), and the
// parity of an orbit of distinct labels (the Lehmer digits' sum: its inversions).
struct RankChecks {
  bool bad = false;
  int parity = 0;
};

// The rank of coordinate c where seen(j) is what it reads at its position j: a code of its
// labels (kLabels, kOrder) or an orientation (kTwists). With kCheck, what Indexable asks of
// the coordinate is found in the same pass (`checks`), and a state that breaks it reads no
// memory out of the tables' bounds (its number is then meaningless).
template <bool kCheck = false, typename Seen>
uint64_t RankSeen(const DefinedIndex::Coordinate& c, Seen seen, RankChecks* checks = nullptr) {
  using Coordinate = DefinedIndex::Coordinate;
  if (c.kind == Coordinate::Kind::kTwists) {
    const int digits = c.sum_fixed ? c.n - 1 : c.n;
    uint64_t rank = 0;
    int j = digits - 1;
    if (c.reduce > 0) rank = static_cast<uint64_t>(seen(j--) / c.reduce);  // kept where the sums hold
    for (; j >= 0; --j) rank = rank * static_cast<uint64_t>(c.k) + seen(j);
    if constexpr (kCheck) {
      if (c.sum_fixed) {
        int total = 0;
        for (int j = 0; j < c.n; ++j) total += seen(j);
        checks->bad |= total % c.k != c.sum;
      }
    }
    return rank;
  }
  if (c.kind == Coordinate::Kind::kOrder) {
    OrderRank order(c);
    for (int j = 0; j < c.n; ++j) {
      const uint8_t code = seen(j);
      if constexpr (kCheck) checks->bad |= code != 0xFF && (order.used >> (code & 31) & 1) != 0;
      order.Step(code);
    }
    return order.rank;
  }
  if (c.kind == Coordinate::Kind::kArrangement) {
    // Two labels over the positions holding either, as TwoLabelRank over those alone.
    const int slots = c.counts[0] + c.counts[1];
    int slot = 0, firsts = c.counts[0];
    uint64_t rank = 0;
    for (int j = 0; j < c.n; ++j) {
      const uint8_t code = seen(j);
      if (code == 0xFF) continue;
      if constexpr (kCheck) {
        if (slot >= slots || (code == 0 && firsts == 0)) {
          checks->bad = true;
          return 0;
        }
      }
      rank += code * kBinomials.below[slots - slot - 1][firsts];
      firsts -= 1 - code;
      ++slot;
    }
    if constexpr (kCheck) checks->bad |= slot != slots;
    return rank;
  }
  if (c.distinct) {
    // The Lehmer code: how many unused codes below each one, in factorial digits.
    // Digit j weighs (n - 1 - j)!, summed as above.
    uint32_t used = 0;
    uint64_t rank = 0;
    int inversions = 0;
    for (int j = 0; j < c.n; ++j) {
      const uint8_t code = seen(j);
      if constexpr (kCheck) {
        if (code >= c.n || (used >> code & 1) != 0) {
          checks->bad = true;
          return 0;
        }
      }
      const uint32_t below = (uint32_t{1} << code) - 1;
      const int digit = std::popcount(below & ~used);
      if constexpr (kCheck) inversions += digit;
      rank += static_cast<uint64_t>(digit) * kFactorials.shifted[c.n - j];
      used |= uint32_t{1} << code;
    }
    if constexpr (kCheck) checks->parity = inversions & 1;
    return c.rule >= 0 ? rank >> 1 : rank;
  }
  if (c.label.size() == 2 && c.n <= kMaxBinomial) {
    TwoLabelRank two(c);
    for (int j = 0; j < c.n; ++j) {
      const uint8_t code = seen(j);
      if constexpr (kCheck) {
        if (code > 1 || (code == 0 && two.firsts == 0)) {
          checks->bad = true;
          return 0;
        }
      }
      two.Step(j, code);
    }
    if constexpr (kCheck) checks->bad |= two.firsts != 0;
    return two.rank;
  }
  if (!c.before.empty()) {
    // A multiset, its tables made (MultisetTables): one entry a position.
    const size_t labels = c.label.size();
    size_t key = c.arrangements.size() - 1;  // every count still to place
    uint64_t rank = 0;
    uint8_t left[256];
    if constexpr (kCheck) std::copy(c.counts.begin(), c.counts.end(), left);
    for (int j = 0; j < c.n; ++j) {
      const uint8_t code = seen(j);
      if constexpr (kCheck) {
        if (code >= labels || left[code] == 0) {
          checks->bad = true;
          return 0;
        }
        --left[code];
      }
      rank += c.before[key * labels + code];
      key -= c.stride[code];
    }
    return rank;
  }
  // A multiset: before each position, the arrangements that start with a smaller label
  // (arrangements * count[l] / left for each such l, summed before dividing).
  uint8_t count[256];
  std::copy(c.counts.begin(), c.counts.end(), count);
  uint64_t arrangements = c.size;  // of the positions still to place
  uint64_t rank = 0;
  for (int j = 0; j < c.n; ++j) {
    const auto left = static_cast<uint32_t>(c.n - j);
    const uint8_t code = seen(j);
    if constexpr (kCheck) {
      if (code >= c.label.size() || count[code] == 0) {
        checks->bad = true;
        return 0;
      }
    }
    uint32_t below = 0;
    for (int l = 0; l < code; ++l) below += count[l];
    rank += ExactQuotient(arrangements, below, left);
    arrangements = ExactQuotient(arrangements, count[code], left);
    --count[code];
  }
  return rank;
}


// Whether an orbit coordinate may be split into placements and an inner part (an order or
// an arrangement of some of its labels): repeated labels that guards read.
bool Splittable(const DefinedIndex::Coordinate& c) {
  return c.kind == DefinedIndex::Coordinate::Kind::kLabels && !c.distinct && c.read_by_guards && c.rule < 0;
}

// By code of coordinate c's labels: whether no guard tests that label on c's positions.
std::vector<bool> UntestedCodes(const DefinedIndex::Coordinate& c, const CompiledMoves& moves) {
  std::vector<bool> in_orbit(static_cast<size_t>(moves.state_bytes()), false);
  for (uint16_t at : c.bytes) in_orbit[at] = true;
  std::vector<bool> untested(c.label.size(), true);
  for (int b = 0; b < moves.block_count(); ++b) {
    for (const CompiledMoves::Test& t : moves.block(b).tests) {
      if (in_orbit[t.at] && c.code[t.value] != 0xFF) untested[c.code[t.value]] = false;
    }
  }
  return untested;
}

// The inner coordinate split off orbit coordinate c (its labels and counts still to set).
DefinedIndex::Coordinate SplitOff(const DefinedIndex::Coordinate& c, DefinedIndex::Coordinate::Kind kind,
                                  uint64_t size) {
  DefinedIndex::Coordinate inner;
  inner.kind = kind;
  inner.set = c.set;
  inner.orbit = c.orbit;
  inner.n = c.n;
  inner.bytes = c.bytes;
  inner.code.fill(0xFF);
  inner.size = size;
  inner.inner = true;
  return inner;
}

// The slots of a coordinate ranked from masks (Coordinate::mask_rank): its positions, or an
// arrangement's slots.
int MaskSlots(const DefinedIndex::Coordinate& c) {
  return c.kind == DefinedIndex::Coordinate::Kind::kArrangement ? c.counts[0] + c.counts[1] : c.n;
}

// A two-label coordinate's (or an arrangement's) mask tables, over at most 32 slots
// (Coordinate::mask_rank), and whether its positions are consecutive bytes.
void MaskTables(DefinedIndex::Coordinate* c) {
  using Kind = DefinedIndex::Coordinate::Kind;
  const bool two = c->kind == Kind::kLabels && !c->distinct && c->label.size() == 2;
  const int n = MaskSlots(*c);
  if ((!two && c->kind != Kind::kArrangement) || n > 32 || n < 1) return;
  c->consecutive = c->n <= 32;
  for (int j = 0; j < c->n; ++j) c->consecutive &= c->bytes[static_cast<size_t>(j)] == c->bytes[0] + j;
  for (int v = 0; v < 256; ++v) {
    if (c->code[static_cast<size_t>(v)] != 0xFF) c->values.push_back(static_cast<uint8_t>(v));
  }
  const int firsts = c->counts[0], chunks = (n + 7) / 8;
  c->mask_rank.assign(static_cast<size_t>(chunks) * static_cast<size_t>(firsts + 1) * 256, 0);
  for (int k = 0; k < chunks; ++k) {
    for (int f = 0; f <= firsts; ++f) {
      for (int byte = 0; byte < 256; ++byte) {
        uint64_t part = 0;
        int left = f;
        for (int t = 0; t < 8 && 8 * k + t < n; ++t) {
          if ((byte >> t) & 1) {
            part += left > 0 ? kBinomials.below[n - 8 * k - t - 1][left] : 0;
          } else {
            --left;
          }
        }
        c->mask_rank[(static_cast<size_t>(k) * static_cast<size_t>(firsts + 1) + static_cast<size_t>(f)) * 256 +
                     static_cast<size_t>(byte)] = part;
      }
    }
  }
}

// Bit j set where bytes[j] is `value`, of 32 bytes: two compares of 16 (SSE2, which every
// x86-64 has), or a byte at a time elsewhere.
uint32_t EqualMask(const uint8_t* bytes, uint8_t value) {
#if defined(__SSE2__)
  const __m128i v = _mm_set1_epi8(static_cast<char>(value));
  const __m128i low = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes));
  const __m128i high = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes + 16));
  return static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(low, v))) |
         static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(high, v))) << 16;
#else
  uint32_t mask = 0;
  for (int j = 0; j < 32; ++j) mask |= static_cast<uint32_t>(bytes[j] == value) << j;
  return mask;
#endif
}

// A multiset coordinate's tables (Coordinate::before), where they stay within this many
// entries: the knight's 12 + 12 + 1 pieces take 338 keys of 3 labels.
constexpr uint64_t kMultisetEntries = uint64_t{1} << 15;

void MultisetTables(DefinedIndex::Coordinate* c) {
  if (c->kind != DefinedIndex::Coordinate::Kind::kLabels || c->distinct || c->label.size() < 3) return;
  const size_t labels = c->label.size();
  uint64_t keys = 1;
  for (uint8_t count : c->counts) {
    keys *= uint64_t{count} + 1;
    if (keys * labels > kMultisetEntries) return;
  }
  c->stride.resize(labels);
  uint32_t stride = 1;
  for (size_t l = 0; l < labels; ++l) {
    c->stride[l] = stride;
    stride *= uint32_t{c->counts[l]} + 1u;
  }
  // arrangements(counts) = the sum over labels l left of arrangements(counts less one l):
  // each smaller key comes first. Every one divides the coordinate's size, within 64 bits.
  c->arrangements.assign(keys, 0);
  c->before.assign(keys * labels, 0);
  c->arrangements[0] = 1;
  for (uint64_t key = 1; key < keys; ++key) {
    uint64_t sum = 0;
    for (size_t l = 0; l < labels; ++l) {
      const uint64_t left = key / c->stride[l] % (uint64_t{c->counts[l]} + 1);
      c->before[key * labels + l] = left > 0 ? sum : UINT64_MAX;  // UnrankOf passes it over
      if (left > 0) sum += c->arrangements[key - c->stride[l]];
    }
    c->arrangements[key] = sum;
  }
}

// "88179840", or "2^71.3" past what a double counts exactly.
std::string ApproximateCount(double log2) {
  if (log2 < 52) return Cat(static_cast<uint64_t>(std::llround(std::exp2(log2))));
  char text[32];
  std::snprintf(text, sizeof text, "2^%.1f", log2);
  return text;
}

}  // namespace

CompiledMoves::CompiledMoves(const Definition& definition)
    : state_bytes_(static_cast<int>(definition.state_bytes())), illegal_(definition.illegal()) {
  const auto& sets = definition.sets();
  for (const DefinedSet& set : sets) {
    if (set.orientations > 1 && set.wild.any()) wild_sets_.push_back(set);
  }
  first_block_.clear();
  for (size_t m = 0; m < definition.moves().size(); ++m) {
    const DefinedMove& move = definition.moves()[m];
    first_block_.push_back(static_cast<int>(blocks_.size()));
    guarded_ |= move.guarded;
    single_ |= move.single;
    for (const MoveBlock& written : move.blocks) {
      Block block;
      block.move = static_cast<int>(m);
      block.source.resize(static_cast<size_t>(state_bytes_));
      block.add.assign(static_cast<size_t>(state_bytes_), 0);
      block.modulus.assign(static_cast<size_t>(state_bytes_), 0);
      size_t slot = 0;
      for (const DefinedSet& set : sets) {
        const int base = set.offset;
        for (int j = 0; j < set.size; ++j, ++slot) {
          const int from = written.transform.source[slot];
          block.source[static_cast<size_t>(base + j)] = static_cast<uint16_t>(base + from);
          if (set.orientations > 1) {
            const auto at = static_cast<size_t>(base + set.size + j);
            block.source[at] = static_cast<uint16_t>(base + set.size + from);
            block.add[at] = written.transform.twist[slot];
            block.modulus[at] = static_cast<uint8_t>(set.orientations);
          }
        }
      }
      for (const Guard& g : written.guards) {
        const DefinedSet& set = sets[static_cast<size_t>(g.set)];
        if (g.piece != 0) {
          block.tests.push_back({static_cast<uint16_t>(set.offset + g.position),
                                 static_cast<uint8_t>(g.piece)});
        }
        if (g.orientation >= 0 && set.orientations > 1) {
          block.tests.push_back({static_cast<uint16_t>(set.offset + set.size + g.position),
                                 static_cast<uint8_t>(g.orientation)});
        }
      }
      for (int i = 0; i < state_bytes_; ++i) {
        const auto at = static_cast<size_t>(i);
        if (block.source[at] != i || (block.modulus[at] != 0 && block.add[at] % block.modulus[at] != 0)) {
          block.changed.push_back(static_cast<uint16_t>(i));
        }
      }
      for (const Test& t : block.tests) {
        for (int i = 0; i < state_bytes_; ++i) {
          const auto at = static_cast<size_t>(i);
          if (block.source[at] != t.at) continue;
          const unsigned value = block.modulus[at] != 0 ? (t.value + block.add[at]) % block.modulus[at] : t.value;
          block.tests_after.push_back({static_cast<uint16_t>(i), static_cast<uint8_t>(value)});
          break;
        }
      }
      blocks_.push_back(std::move(block));
    }
  }
  first_block_.push_back(static_cast<int>(blocks_.size()));
  for (int m = 0; m < move_count(); ++m) {
    bool one = true;
    for (int b = first_block(m); b < first_block(m + 1); ++b) one &= blocks_[static_cast<size_t>(b)].tests.size() == 1;
    one_test_.push_back(one);
  }
  for (const Block& block : blocks_) {
    test_at_.push_back(block.tests.size() == 1 ? block.tests[0].at : 0);
    test_value_.push_back(block.tests.size() == 1 ? block.tests[0].value : 0);
  }
  // Unguarded moves are undone by one of their powers, unless some are single (Move A
  // single: no powers); guarded ones and those are looked at block by block (a pair at a
  // time: a few thousand blocks at most are looked at, past that the moves are taken as
  // one-way).
  constexpr int kMostBlocksLookedAt = 4096;
  if ((guarded_ || single_) && block_count() <= kMostBlocksLookedAt) {
    for (int b = 0; b < block_count() && one_way_block_ < 0; ++b) {
      if (InverseBlock(b) < 0) one_way_block_ = b;
    }
  }
  undirected_ = (!guarded_ && !single_) || (block_count() <= kMostBlocksLookedAt && one_way_block_ < 0);
}

int CompiledMoves::InverseBlock(int b) const {
  const Block& a = block(b);
  // What `a`'s tests ask of the state it applies to, by byte (-1: nothing).
  std::vector<int> asked(static_cast<size_t>(state_bytes_), -1);
  for (const Test& t : a.tests) asked[t.at] = t.value;
  for (int c = 0; c < block_count(); ++c) {
    const Block& undo = block(c);
    // a then undo: byte i of the result is byte a.source[undo.source[i]] of the state.
    bool identity = true;
    for (int i = 0; i < state_bytes_ && identity; ++i) {
      const uint16_t via = undo.source[static_cast<size_t>(i)];
      const uint8_t modulus = undo.modulus[static_cast<size_t>(i)];
      identity = a.source[via] == i &&
                 (modulus == 0 || (a.add[via] + undo.add[static_cast<size_t>(i)]) % modulus == 0);
    }
    if (!identity) continue;
    // Each of undo's tests reads a byte of a's result: the byte a took from a.source[at],
    // which a's tests must fix to the value that becomes the one asked.
    bool holds = true;
    for (const Test& t : undo.tests) {
      const int before = asked[a.source[t.at]];
      const uint8_t modulus = a.modulus[t.at];
      holds = before >= 0 &&
              (modulus == 0 ? before == t.value : (before + a.add[t.at]) % modulus == t.value);
      if (!holds) break;
    }
    if (holds) return c;
  }
  return -1;
}

void CompiledMoves::Transform(int b, const uint8_t* in, uint8_t* out) const {
  const Block& block = blocks_[static_cast<size_t>(b)];
  const uint16_t* source = block.source.data();
  const uint8_t* add = block.add.data();
  const uint8_t* modulus = block.modulus.data();
  std::memcpy(out, in, static_cast<size_t>(state_bytes_));
  for (const uint16_t i : block.changed) {
    unsigned v = in[source[i]];
    if (modulus[i] != 0) {
      v += add[i];
      if (v >= modulus[i]) v -= modulus[i];
    }
    out[i] = static_cast<uint8_t>(v);
  }
  if (!wild_sets_.empty()) ForgetWildTwists(wild_sets_, out);
}

void CompiledMoves::Untransform(int b, const uint8_t* in, uint8_t* out) const {
  const Block& block = blocks_[static_cast<size_t>(b)];
  // A byte the block leaves alone stays; the ones it moves or turns are a permutation of
  // one another (source[i] of a changed byte i is changed too), each put back where it came
  // from with its turn undone.
  std::memcpy(out, in, static_cast<size_t>(state_bytes_));
  const uint16_t* source = block.source.data();
  const uint8_t* add = block.add.data();
  const uint8_t* modulus = block.modulus.data();
  for (const uint16_t i : block.changed) {
    unsigned v = in[i];
    if (modulus[i] != 0) {
      v += modulus[i] - add[i];
      if (v >= modulus[i]) v -= modulus[i];
    }
    out[source[i]] = static_cast<uint8_t>(v);
  }
  if (!wild_sets_.empty()) ForgetWildTwists(wild_sets_, out);
}

int CompiledMoves::InverseMove(int m) const {
  if (first_block(m + 1) - first_block(m) != 1 || !block(first_block(m)).tests.empty()) return -1;
  const Block& a = block(first_block(m));
  for (int n = 0; n < move_count(); ++n) {
    if (first_block(n + 1) - first_block(n) != 1 || !block(first_block(n)).tests.empty()) continue;
    const Block& b = block(first_block(n));
    // a then b: byte i of the result is byte a.source[b.source[i]] of the state.
    bool identity = true;
    for (int i = 0; i < state_bytes_ && identity; ++i) {
      const uint16_t via = b.source[static_cast<size_t>(i)];
      identity = a.source[via] == i &&
                 (b.modulus[static_cast<size_t>(i)] == 0 ||
                  (a.add[via] + b.add[static_cast<size_t>(i)]) % b.modulus[static_cast<size_t>(i)] == 0);
    }
    if (identity) return n;
  }
  return -1;
}

absl::StatusOr<DefinedIndex> DefinedIndex::Make(const Definition& definition,
                                                const CompiledMoves& moves,
                                                uint64_t max_states, Options options) {
  return MakeIndex(definition, moves, max_states, /*numbers=*/true, options);
}

DefinedIndex DefinedIndex::Invariants(const Definition& definition, const CompiledMoves& moves) {
  auto index = MakeIndex(definition, moves, 0, /*numbers=*/false, {});
  return *std::move(index);  // without numbers, nothing is refused
}

absl::StatusOr<DefinedIndex> DefinedIndex::MakeIndex(const Definition& definition,
                                                     const CompiledMoves& moves,
                                                     uint64_t max_states, bool numbers,
                                                     Options options) {
  DefinedIndex index;
  index.state_bytes_ = moves.state_bytes();
  const auto& sets = definition.sets();
  const auto& goals = definition.goals();
  std::vector<bool> read(static_cast<size_t>(moves.state_bytes()), false);
  for (int b = 0; b < moves.block_count(); ++b) {
    for (const CompiledMoves::Test& t : moves.block(b).tests) read[t.at] = true;
  }
  std::vector<Coordinate> all;
  double log2_size = 0;
  int orbit_count = 0;
  for (size_t s = 0; s < sets.size(); ++s) {
    const DefinedSet& set = sets[s];
    const int n = set.size;
    // The set's orbits: positions that the blocks move into one another.
    std::vector<int> root(static_cast<size_t>(n));
    for (int j = 0; j < n; ++j) root[static_cast<size_t>(j)] = j;
    auto find = [&root](int j) {
      while (root[static_cast<size_t>(j)] != j) j = root[static_cast<size_t>(j)] = root[static_cast<size_t>(root[static_cast<size_t>(j)])];
      return j;
    };
    for (int b = 0; b < moves.block_count(); ++b) {
      for (int j = 0; j < n; ++j) {
        const int from = moves.block(b).source[static_cast<size_t>(set.offset + j)] - set.offset;
        root[static_cast<size_t>(find(j))] = find(from);
      }
    }
    std::vector<std::vector<int>> orbits;
    std::vector<int> orbit_of(static_cast<size_t>(n), -1);
    for (int j = 0; j < n; ++j) {
      const int r = find(j);
      if (orbit_of[static_cast<size_t>(r)] < 0) {
        orbit_of[static_cast<size_t>(r)] = static_cast<int>(orbits.size());
        orbits.emplace_back();
      }
      orbits[static_cast<size_t>(orbit_of[static_cast<size_t>(r)])].push_back(j);
    }
    // Goals that hold other pieces in an orbit than the first goal does: the set is then
    // one orbit (its coordinate has holes).
    for (const auto& orbit : orbits) {
      auto multiset = [&](const DefinedState& goal) {
        std::vector<uint8_t> labels;
        for (int j : orbit) labels.push_back(goal[static_cast<size_t>(set.offset + j)]);
        std::sort(labels.begin(), labels.end());
        return labels;
      };
      const bool same = std::all_of(goals.begin(), goals.end(), [&](const DefinedState& g) {
        return multiset(g) == multiset(goals[0]);
      });
      if (!same) {
        orbits.assign(1, {});
        for (int j = 0; j < n; ++j) orbits[0].push_back(j);
        break;
      }
    }
    for (const auto& orbit : orbits) {
      Coordinate labels;
      labels.kind = Coordinate::Kind::kLabels;
      labels.set = static_cast<int>(s);
      labels.orbit = orbit_count++;
      labels.n = static_cast<int>(orbit.size());
      for (int j : orbit) {
        labels.bytes.push_back(static_cast<uint16_t>(set.offset + j));
        labels.read_by_guards |= read[static_cast<size_t>(set.offset + j)];
      }
      // Labels coded 0.. in increasing order, with their counts in the first goal.
      std::vector<uint8_t> present;
      for (uint16_t at : labels.bytes) present.push_back(goals[0][at]);
      std::sort(present.begin(), present.end());
      labels.code.fill(0xFF);
      for (uint8_t label : present) {
        if (labels.code[label] == 0xFF) {
          labels.code[label] = static_cast<uint8_t>(labels.label.size());
          labels.label.push_back(label);
          labels.counts.push_back(0);
        }
        ++labels.counts[labels.code[label]];
      }
      labels.distinct = labels.label.size() == orbit.size();
      all.push_back(std::move(labels));
      if (set.orientations > 1) {
        Coordinate twists;
        twists.kind = Coordinate::Kind::kTwists;
        twists.set = static_cast<int>(s);
        twists.orbit = all.back().orbit;
        twists.n = static_cast<int>(orbit.size());
        twists.k = set.orientations;
        for (int j : orbit) {
          twists.bytes.push_back(static_cast<uint16_t>(set.offset + n + j));
          twists.read_by_guards |= read[static_cast<size_t>(set.offset + n + j)];
        }
        // The sum is kept when every block adds up to 0 over the orbit and every goal has
        // the same sum there (not where pieces' twists are forgotten: DefinedSet::wild).
        bool kept = set.wild.none();
        for (int b = 0; b < moves.block_count() && kept; ++b) {
          int total = 0;
          for (uint16_t at : twists.bytes) total += moves.block(b).add[at];
          kept = total % set.orientations == 0;
        }
        std::vector<int> sums;
        for (const DefinedState& goal : goals) {
          int total = 0;
          for (uint16_t at : twists.bytes) total += goal[at];
          sums.push_back(total % set.orientations);
        }
        kept &= std::all_of(sums.begin(), sums.end(), [&](int x) { return x == sums[0]; });
        twists.sum_fixed = kept;
        twists.sum = sums[0];
        all.push_back(std::move(twists));
      }
    }
  }

  // Parities: which orbits of distinct labels have a parity that follows from the others'.
  std::vector<int> distinct;  // coordinates
  for (size_t c = 0; c < all.size(); ++c) {
    // (An orbit of more distinct pieces than a number holds the placements of is refused
    // below for its size.)
    if (all[c].kind == Coordinate::Kind::kLabels && all[c].distinct && all[c].n >= 2 &&
        all[c].n <= kMaxDistinct) {
      distinct.push_back(static_cast<int>(c));
    }
  }
  if (!distinct.empty()) {
    const size_t k = distinct.size();
    auto goal_parities = [&](const DefinedState& goal) {
      std::vector<uint8_t> p(k);
      for (size_t i = 0; i < k; ++i) p[i] = static_cast<uint8_t>(Parity(all[static_cast<size_t>(distinct[i])], goal.data()));
      return p;
    };
    const std::vector<uint8_t> base = goal_parities(goals[0]);
    std::vector<std::vector<uint8_t>> generators;
    for (int b = 0; b < moves.block_count(); ++b) {
      std::vector<uint8_t> p(k);
      for (size_t i = 0; i < k; ++i) {
        const Coordinate& c = all[static_cast<size_t>(distinct[i])];
        // The block as a permutation of the orbit's positions.
        std::vector<uint8_t> moved(static_cast<size_t>(moves.state_bytes()), 0);
        for (int j = 0; j < c.n; ++j) moved[c.bytes[static_cast<size_t>(j)]] = c.label[static_cast<size_t>(j)];
        std::vector<uint8_t> after(moved.size(), 0);
        moves.Transform(b, moved.data(), after.data());
        p[i] = static_cast<uint8_t>(Parity(c, after.data()) ^ Parity(c, moved.data()));
      }
      generators.push_back(std::move(p));
    }
    const std::vector<std::vector<uint8_t>> blocks = generators;  // each block's parities
    for (size_t g = 1; g < goals.size(); ++g) {
      std::vector<uint8_t> p = goal_parities(goals[g]);
      for (size_t i = 0; i < k; ++i) p[i] ^= base[i];
      generators.push_back(std::move(p));
    }
    // A sum of parities that every block flips and every goal shares: the distance of a
    // state then has its parity (the fifteen's: a move is a transposition). The first such
    // sum, counted through the subsets of up to 16 orbits.
    if (k <= 16 && !blocks.empty()) {
      for (uint32_t w = 1; w < (uint32_t{1} << k) && index.flip_.empty(); ++w) {
        auto sum = [&](const std::vector<uint8_t>& p) {
          int x = 0;
          for (size_t i = 0; i < k; ++i) x ^= (w >> i & 1) ? p[i] : 0;
          return x;
        };
        bool flips = std::all_of(blocks.begin(), blocks.end(), [&](const auto& p) { return sum(p) == 1; });
        for (size_t g = 1; g < goals.size() && flips; ++g) flips = sum(generators[blocks.size() + g - 1]) == 0;
        if (!flips) continue;
        for (size_t i = 0; i < k; ++i) {
          if (w >> i & 1) index.flip_.push_back(all[static_cast<size_t>(distinct[i])].orbit);
        }
        index.flip_goal_ = sum(base);
      }
    }
    // Reduced row echelon form over GF(2): a basis with a pivot column each.
    std::vector<std::vector<uint8_t>> basis;
    std::vector<size_t> pivots;
    for (size_t col = 0; col < k; ++col) {
      size_t found = generators.size();
      for (size_t r = 0; r < generators.size(); ++r) {
        if (generators[r][col] != 0) {
          found = r;
          break;
        }
      }
      if (found == generators.size()) continue;
      std::vector<uint8_t> row = generators[found];
      generators.erase(generators.begin() + static_cast<std::ptrdiff_t>(found));
      for (auto& other : generators) {
        if (other[col] != 0) {
          for (size_t i = 0; i < k; ++i) other[i] ^= row[i];
        }
      }
      for (auto& other : basis) {
        if (other[col] != 0) {
          for (size_t i = 0; i < k; ++i) other[i] ^= row[i];
        }
      }
      basis.push_back(std::move(row));
      pivots.push_back(col);
    }
    // A column that is no pivot follows from the pivots: x[q] = x0[q] + sum over the
    // basis rows with a 1 at q of (x[p] + x0[p]).
    for (size_t q = 0; q < k; ++q) {
      if (std::find(pivots.begin(), pivots.end(), q) != pivots.end()) continue;
      ParityRule rule;
      rule.orbit = all[static_cast<size_t>(distinct[q])].orbit;
      rule.constant = base[q];
      for (size_t r = 0; r < basis.size(); ++r) {
        if (basis[r][q] != 0) {
          rule.from.push_back(all[static_cast<size_t>(distinct[pivots[r]])].orbit);
          rule.constant ^= base[pivots[r]];
        }
      }
      all[static_cast<size_t>(distinct[q])].rule = static_cast<int>(index.rules_.size());
      index.rules_.push_back(std::move(rule));
    }
  }

  // Coloured parities: for each orbit of distinct labels, the first piece that has one.
  for (const Coordinate& c : all) {
    if (c.kind != Coordinate::Kind::kLabels || !c.distinct || c.n < 2 || c.n > kMaxDistinct) continue;
    for (int li = 0; li < c.n; ++li) {
      ColouredParity rule;
      if (FindColouredParity(c, li, moves, goals, &rule)) {
        index.coloured_.push_back(std::move(rule));
        break;
      }
    }
  }

  // Sums of a set's orientations that every block keeps modulo a divisor of their number.
  for (const DefinedSet& set : sets) {
    // (Not where pieces' twists are forgotten: they are kept 0 whatever a move adds.)
    if (set.orientations < 2 || set.wild.any()) continue;
    TwistSum rule;
    for (int j = 0; j < set.size; ++j) rule.bytes.push_back(static_cast<uint16_t>(set.offset + set.size + j));
    int g = set.orientations;
    for (int b = 0; b < moves.block_count() && g > 1; ++b) {
      int added = 0;
      for (const uint16_t at : rule.bytes) added += moves.block(b).add[at];
      g = std::gcd(g, added % set.orientations);
    }
    if (g < 2) continue;
    rule.modulus = g;
    bool shared = true;
    for (size_t goal = 0; goal < goals.size() && shared; ++goal) {
      int sum = 0;
      for (const uint16_t at : rule.bytes) sum += goals[goal][at];
      if (goal == 0) rule.value = sum % g;
      shared = sum % g == rule.value;
    }
    if (shared) index.twist_sums_.push_back(std::move(rule));
  }

  if (!numbers) {
    // The invariants alone: Indexable reads the coordinates, their codes and the rules.
    index.labels_of_orbit_.assign(static_cast<size_t>(orbit_count), -1);
    for (size_t c = 0; c < all.size(); ++c) {
      if (all[c].kind == Coordinate::Kind::kLabels) index.labels_of_orbit_[static_cast<size_t>(all[c].orbit)] = static_cast<int>(c);
    }
    index.coordinates_ = std::move(all);
    index.size_ = 0;
    index.inner_size_ = 1;
    return index;
  }

  // Sizes: checked in floating point first, so that the exact products cannot overflow.
  std::vector<double> bits(all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    const Coordinate& c = all[i];
    if (c.kind == Coordinate::Kind::kLabels) {
      double b = std::lgamma(c.n + 1.0);
      for (uint8_t count : c.counts) b -= std::lgamma(count + 1.0);
      bits[i] = std::max(0.0, b / std::log(2.0) - (c.rule >= 0 ? 1 : 0));
    } else {
      bits[i] = (c.sum_fixed ? c.n - 1 : c.n) * std::log2(static_cast<double>(c.k));
    }
    log2_size += bits[i];
  }
  if (log2_size > std::log2(static_cast<double>(max_states)) + 1e-9 || log2_size > 62) {
    // The largest parts, in the order of the file.
    std::vector<size_t> largest;
    for (size_t i = 0; i < all.size(); ++i) {
      if (bits[i] > 1e-9) largest.push_back(i);
    }
    std::stable_sort(largest.begin(), largest.end(), [&](size_t a, size_t b) { return bits[a] > bits[b]; });
    const size_t shown = std::min<size_t>(largest.size(), 6);
    std::sort(largest.begin(), largest.begin() + static_cast<std::ptrdiff_t>(shown));
    std::vector<std::string> parts;
    for (size_t k = 0; k < shown; ++k) {
      const Coordinate& c = all[largest[k]];
      parts.push_back(Cat(sets[static_cast<size_t>(c.set)].name,
                          c.kind == Coordinate::Kind::kLabels ? " placements " : " orientations ",
                          ApproximateCount(bits[largest[k]])));
    }
    std::string listing = Join(parts, " x ");
    if (largest.size() > shown) {
      listing += Cat(" x ", largest.size() - shown, largest.size() - shown == 1 ? " smaller part" : " smaller parts");
    }
    return absl::InvalidArgumentError(
        Cat("its states need an index of ", ApproximateCount(log2_size), " numbers (",
            listing, "), more than the limit of ", max_states,
            " for a complete table"));
  }
  for (Coordinate& c : all) {
    if (c.kind == Coordinate::Kind::kLabels) {
      if (c.distinct && c.n > kMaxDistinct) {
        return absl::InvalidArgumentError(
            Cat("set ", sets[static_cast<size_t>(c.set)].name, ": more than ", kMaxDistinct,
                " distinct pieces that move among one another cannot be indexed"));
      }
      // n! / prod(count!) as a product of binomials, each step exact.
      unsigned __int128 size = 1;
      int placed = 0;
      for (uint8_t count : c.counts) {
        for (int i = 1; i <= count; ++i) {
          ++placed;
          size = size * static_cast<unsigned>(placed) / static_cast<unsigned>(i);
        }
      }
      c.size = static_cast<uint64_t>(size);
      if (c.rule >= 0) c.size /= 2;
    } else {
      c.size = 1;
      for (int j = 0; j < (c.sum_fixed ? c.n - 1 : c.n); ++j) c.size *= static_cast<uint64_t>(c.k);
    }
  }

  // The order split: an orbit of repeated labels that guards read, some of whose labels no
  // guard tests and are each there once. Those count as one piece in its coordinate, and
  // their order on the positions it gives them is a coordinate of its own, the whole inner
  // part (the one with most orders, up to kMaxOrders).
  size_t split = all.size();
  uint64_t orders = 1;
  std::vector<bool> untested;  // of the split orbit, by code
  for (size_t i = 0; i < all.size(); ++i) {
    const Coordinate& c = all[i];
    if (!Splittable(c)) continue;
    std::vector<bool> free = UntestedCodes(c, moves);
    uint64_t count = 1;
    int pieces = 0;
    for (size_t code = 0; code < c.label.size(); ++code) {
      free[code] = free[code] && c.counts[code] == 1;
      if (free[code]) count *= static_cast<uint64_t>(++pieces);
    }
    if (pieces >= 2 && count <= kMaxOrders && count > orders) {
      split = i;
      orders = count;
      untested = std::move(free);
    }
  }
  if (split < all.size()) {
    Coordinate& c = all[split];
    Coordinate order = SplitOff(c, Coordinate::Kind::kOrder, orders);
    // The orbit's codes again, the order's pieces one code (that of the smallest).
    const std::vector<uint8_t> labels = c.label, counts = c.counts;
    c.label.clear();
    c.counts.clear();
    c.code.fill(0xFF);
    int merged = -1;
    for (size_t code = 0; code < labels.size(); ++code) {
      const uint8_t label = labels[code];
      if (untested[code]) {
        order.code[label] = static_cast<uint8_t>(order.label.size());
        order.label.push_back(label);
        if (merged < 0) {
          merged = static_cast<int>(c.label.size());
          c.label.push_back(label);
          c.counts.push_back(0);
        }
        c.code[label] = static_cast<uint8_t>(merged);
        ++c.counts[static_cast<size_t>(merged)];
      } else {
        c.code[label] = static_cast<uint8_t>(c.label.size());
        c.label.push_back(label);
        c.counts.push_back(counts[code]);
      }
    }
    c.size /= orders;  // n! / prod(count!) with the order's pieces counted as one
    index.order_pieces_ = static_cast<int>(order.label.size());
    all.insert(all.begin() + static_cast<std::ptrdiff_t>(split) + 1, std::move(order));
  }

  // The arrangement split (layout 3), where no orbit has an order split: an orbit of
  // repeated labels that guards read, exactly two of whose labels no guard tests, each
  // there twice or more. Those count as one piece in its coordinate (coded as the smaller),
  // and which of the two each position it gives them holds is the whole inner part (the
  // orbit with most arrangements, within kMaxArrangementSlots slots and 2^32 numbers).
  uint64_t arrangements = 1;
  if (options.arrangements && split == all.size()) {
    std::array<int, 2> two{};
    for (size_t i = 0; i < all.size(); ++i) {
      const Coordinate& c = all[i];
      if (!Splittable(c)) continue;
      const std::vector<bool> free = UntestedCodes(c, moves);
      std::vector<int> untested;
      for (size_t code = 0; code < c.label.size(); ++code) {
        if (free[code]) untested.push_back(static_cast<int>(code));
      }
      if (untested.size() != 2) continue;
      const int first = c.counts[static_cast<size_t>(untested[0])];
      const int second = c.counts[static_cast<size_t>(untested[1])];
      if (first < 2 || second < 2 || first + second > kMaxArrangementSlots) continue;
      const uint64_t count = kBinomials.c[first + second][first];
      if (count > UINT32_MAX || count <= arrangements) continue;
      split = i;
      arrangements = count;
      two = {untested[0], untested[1]};
    }
    if (split < all.size()) {
      Coordinate& c = all[split];
      Coordinate arrangement = SplitOff(c, Coordinate::Kind::kArrangement, arrangements);
      for (int k = 0; k < 2; ++k) {
        const uint8_t label = c.label[static_cast<size_t>(two[static_cast<size_t>(k)])];
        arrangement.code[label] = static_cast<uint8_t>(k);
        arrangement.label.push_back(label);
        arrangement.counts.push_back(c.counts[static_cast<size_t>(two[static_cast<size_t>(k)])]);
      }
      // The orbit's codes again, the two labels one code (that of the smaller).
      const std::vector<uint8_t> labels = c.label, counts = c.counts;
      c.label.clear();
      c.counts.clear();
      c.code.fill(0xFF);
      for (size_t code = 0; code < labels.size(); ++code) {
        if (static_cast<int>(code) == two[1]) continue;
        c.code[labels[code]] = static_cast<uint8_t>(c.label.size());
        c.label.push_back(labels[code]);
        c.counts.push_back(static_cast<int>(code) == two[0]
                               ? static_cast<uint8_t>(counts[code] + counts[static_cast<size_t>(two[1])])
                               : counts[code]);
      }
      c.code[labels[static_cast<size_t>(two[1])]] = c.code[labels[static_cast<size_t>(two[0])]];
      c.size /= arrangements;
      index.arrangement_slots_ = arrangement.counts[0] + arrangement.counts[1];
      all.insert(all.begin() + static_cast<std::ptrdiff_t>(split) + 1, std::move(arrangement));
    }
  }
  const bool split_inner = index.order_pieces_ > 0 || index.arrangement_slots_ > 0;

  // Inner: the smallest coordinates no guard reads and no parity ties to another, while
  // their table stays small (or the order of a split orbit alone).
  std::vector<bool> tied(static_cast<size_t>(orbit_count), false);  // by orbit: its labels
  for (const ParityRule& rule : index.rules_) {
    if (rule.from.empty()) continue;
    tied[static_cast<size_t>(rule.orbit)] = true;
    for (int f : rule.from) tied[static_cast<size_t>(f)] = true;
  }
  std::vector<size_t> order(all.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return all[a].size < all[b].size; });
  const uint64_t blocks = static_cast<uint64_t>(std::max(1, moves.block_count()));
  uint64_t inner = index.order_pieces_ > 0 ? orders : index.arrangement_slots_ > 0 ? arrangements : 1;
  for (size_t i : order) {
    if (split_inner) break;
    Coordinate& c = all[i];
    const bool labels_tied = c.kind == Coordinate::Kind::kLabels && tied[static_cast<size_t>(c.orbit)];
    if (c.read_by_guards || labels_tied || c.size <= 1) continue;
    if (inner * c.size * blocks * 4 > kInnerTableBytes) break;
    inner *= c.size;
    c.inner = true;
  }
  // Outer ones first; within each part, free parities before those that follow from them
  // (unranking reads the parities a rule names before it places the orbit that follows).
  std::stable_sort(all.begin(), all.end(), [](const Coordinate& a, const Coordinate& b) {
    if (a.inner != b.inner) return !a.inner;
    return (a.rule >= 0) < (b.rule >= 0);
  });
  index.labels_of_orbit_.assign(static_cast<size_t>(orbit_count), -1);
  for (size_t c = 0; c < all.size(); ++c) {
    if (all[c].kind == Coordinate::Kind::kLabels) index.labels_of_orbit_[static_cast<size_t>(all[c].orbit)] = static_cast<int>(c);
  }
  // A set's orientation sum kept modulo g across its orbits (layout 5): the last of its
  // orientation coordinates keeps k / g values of its last digit, where they are all in one
  // part (an outer number's orientations are placed before the inner ones) and none keeps
  // its own sum (sum_fixed: the 2x2x2's corners).
  for (size_t r = 0; r < (options.twist_sums ? index.twist_sums_.size() : 0); ++r) {
    TwistSum& rule = index.twist_sums_[r];
    std::vector<size_t> holding;
    bool fits = true;
    for (size_t i = 0; i < all.size(); ++i) {
      const Coordinate& c = all[i];
      if (c.kind != Coordinate::Kind::kTwists ||
          std::find(rule.bytes.begin(), rule.bytes.end(), c.bytes[0]) == rule.bytes.end()) {
        continue;
      }
      fits &= !c.sum_fixed && c.reduce == 0 && c.k % rule.modulus == 0 &&
              (holding.empty() || all[holding[0]].inner == c.inner);
      holding.push_back(i);
    }
    if (!fits || holding.empty()) continue;
    Coordinate& last = all[holding.back()];
    last.reduce = rule.modulus;
    last.sum_rule = static_cast<int>(r);
    last.size = last.size / static_cast<uint64_t>(last.k) * static_cast<uint64_t>(last.k / rule.modulus);
    if (last.inner) inner = inner / static_cast<uint64_t>(last.k) * static_cast<uint64_t>(last.k / rule.modulus);
    rule.in_index = true;
    index.reduced_ = true;
  }
  index.coordinates_ = std::move(all);
  index.inner_begin_ = 0;
  while (index.inner_begin_ < index.coordinates_.size() && !index.coordinates_[index.inner_begin_].inner) {
    ++index.inner_begin_;
  }
  index.inner_size_ = inner;
  index.size_ = 1;
  for (Coordinate& c : index.coordinates_) {
    index.size_ *= c.size;
    MultisetTables(&c);
    MaskTables(&c);
  }
  index.MakeRankPlans();
  std::vector<DefinedSymmetry> found;
  const std::vector<DefinedSymmetry>* symmetries = options.symmetries;
  if (numbers && symmetries == nullptr && options.find_symmetries) {
    found = options.find_symmetries();
    symmetries = &found;
  }
  if (numbers && symmetries != nullptr && !symmetries->empty()) index.MakeClasses(definition, *symmetries);
  return index;
}

void DefinedIndex::MakeRankPlans() {
  outer_plan_.clear();
  inner_plan_.clear();
  single_.clear();
  plan_checks_ = rules_.empty();
  for (const Coordinate& c : coordinates_) {
    if (c.size <= 1) {
      if (c.kind == Coordinate::Kind::kLabels || (c.kind == Coordinate::Kind::kTwists && c.sum_fixed && c.n == 1)) {
        single_.push_back(c);
      } else {
        plan_checks_ = false;
      }
      continue;
    }
    std::vector<Coordinate>& plan = c.inner ? inner_plan_ : outer_plan_;
    auto plain_twists = [](const Coordinate& t) {
      return t.kind == Coordinate::Kind::kTwists && !t.sum_fixed && t.reduce == 0 && !t.consecutive;
    };
    if (!plan.empty() && plain_twists(plan.back()) && plain_twists(c) && plan.back().k == c.k) {
      // rank * c.size + RankOf(c): c's digits are the low ones, read first.
      Coordinate& run = plan.back();
      run.bytes.insert(run.bytes.begin(), c.bytes.begin(), c.bytes.end());
      run.n += c.n;
      run.size *= c.size;
      continue;
    }
    plan.push_back(c);
  }
  // Only where runs merged: coordinate by coordinate measured faster otherwise (the 2x2x2).
  plan_checks_ &= outer_plan_.size() + inner_plan_.size() + single_.size() < coordinates_.size();
}

int DefinedIndex::Parity(const Coordinate& c, const uint8_t* state) {
  uint8_t codes[kMaxDistinct];
  for (int j = 0; j < c.n; ++j) codes[j] = c.code[state[c.bytes[static_cast<size_t>(j)]]];
  uint32_t seen = 0;
  int parity = 0;
  for (int i = 0; i < c.n; ++i) {
    if (seen >> i & 1) continue;
    int length = 0;
    for (int j = i; !(seen >> j & 1); j = codes[j]) {
      seen |= uint32_t{1} << j;
      ++length;
    }
    parity ^= (length + 1) & 1;  // a cycle of length L is L - 1 transpositions
  }
  return parity;
}

int DefinedIndex::DistanceParity(const uint8_t* state) const {
  if (flip_.empty()) return -1;
  int parity = flip_goal_;
  for (int orbit : flip_) {
    parity ^= Parity(coordinates_[static_cast<size_t>(labels_of_orbit_[static_cast<size_t>(orbit)])], state);
  }
  return parity;
}

int DefinedIndex::RequiredParity(const ParityRule& rule, const uint8_t* state) const {
  int parity = rule.constant;
  for (int f : rule.from) {
    parity ^= Parity(coordinates_[static_cast<size_t>(labels_of_orbit_[static_cast<size_t>(f)])], state);
  }
  return parity;
}

bool DefinedIndex::FindColouredParity(const Coordinate& c, int li, const CompiledMoves& moves,
                                      const std::vector<DefinedState>& goals,
                                      ColouredParity* out) {
  const uint8_t piece = c.label[static_cast<size_t>(li)];
  const size_t n = static_cast<size_t>(c.n);
  auto position_of = [&c](uint16_t byte) {
    return static_cast<int>(std::find(c.bytes.begin(), c.bytes.end(), byte) - c.bytes.begin());
  };
  // colour(dest) = colour(from) xor parity, for every move of the piece a block may make:
  // edges of a graph whose 2-colouring, if one exists, is the colour.
  struct Edge {
    int to;
    int parity;
  };
  std::vector<std::vector<Edge>> edges(n);
  for (int b = 0; b < moves.block_count(); ++b) {
    const CompiledMoves::Block& block = moves.block(b);
    std::vector<int> dest(n, -1);
    for (size_t j = 0; j < n; ++j) {
      const int p = position_of(block.source[c.bytes[j]]);
      if (p >= c.n) return false;  // a block that mixes orbits: not an orbit then
      dest[static_cast<size_t>(p)] = static_cast<int>(j);
    }
    int parity = 0;
    std::vector<bool> seen(n, false);
    for (size_t i = 0; i < n; ++i) {
      int length = 0;
      for (size_t j = i; !seen[j]; j = static_cast<size_t>(dest[j])) {
        seen[j] = true;
        ++length;
      }
      if (length > 0) parity ^= (length + 1) & 1;
    }
    // Where the piece may be when the block applies: its guards on the orbit say.
    std::vector<bool> may(n, true);
    for (const CompiledMoves::Test& t : block.tests) {
      const int q = position_of(t.at);
      if (q >= c.n) continue;
      if (t.value == piece) {
        std::fill(may.begin(), may.end(), false);
        may[static_cast<size_t>(q)] = true;
        break;
      }
      may[static_cast<size_t>(q)] = false;
    }
    for (size_t p = 0; p < n; ++p) {
      if (!may[p]) continue;
      edges[p].push_back({dest[p], parity});
      edges[static_cast<size_t>(dest[p])].push_back({static_cast<int>(p), parity});
    }
  }
  std::vector<int> colour(n, -1);
  bool any = false;
  for (size_t root = 0; root < n; ++root) {
    if (colour[root] >= 0) continue;
    colour[root] = 0;
    std::vector<size_t> stack = {root};
    while (!stack.empty()) {
      const size_t p = stack.back();
      stack.pop_back();
      for (const Edge& e : edges[p]) {
        const int want = colour[p] ^ e.parity;
        int& other = colour[static_cast<size_t>(e.to)];
        if (other < 0) {
          other = want;
          any |= want != 0;
          stack.push_back(static_cast<size_t>(e.to));
        } else if (other != want) {
          return false;
        }
      }
    }
  }
  if (!any) return false;  // the orbit's parity alone: ParityRule's
  out->orbit = c;
  out->piece = piece;
  out->colour.assign(colour.begin(), colour.end());
  for (size_t g = 0; g < goals.size(); ++g) {
    const uint8_t* state = goals[g].data();
    for (uint16_t byte : c.bytes) {
      if (c.code[state[byte]] == 0xFF) return false;  // a goal of other pieces there
    }
    const int at = static_cast<int>(std::find_if(c.bytes.begin(), c.bytes.end(),
                                                 [&](uint16_t byte) { return state[byte] == piece; }) -
                                    c.bytes.begin());
    const int value = Parity(c, state) ^ out->colour[static_cast<size_t>(at)];
    if (g == 0) out->value = value;
    if (value != out->value) return false;
  }
  return true;
}

bool DefinedIndex::Possible(const uint8_t* state) const {
  if (!Indexable(state)) return false;
  for (const ColouredParity& rule : coloured_) {
    const Coordinate& c = rule.orbit;
    size_t at = 0;
    while (at < c.bytes.size() && state[c.bytes[at]] != rule.piece) ++at;
    if (at == c.bytes.size() || (Parity(c, state) ^ rule.colour[at]) != rule.value) return false;
  }
  for (const TwistSum& rule : twist_sums_) {
    int sum = 0;
    for (const uint16_t at : rule.bytes) sum += state[at];
    if (sum % rule.modulus != rule.value) return false;
  }
  return true;
}

bool DefinedIndex::Indexable(const uint8_t* state) const {
  for (const Coordinate& c : coordinates_) {
    if (c.kind == Coordinate::Kind::kTwists) {
      if (c.sum_fixed) {
        int total = 0;
        for (uint16_t at : c.bytes) total += state[at];
        if (total % c.k != c.sum) return false;
      }
      continue;
    }
    if (c.kind == Coordinate::Kind::kArrangement) {
      // Its first label as often as the goal has it (its labels coordinate counts the two
      // together).
      int firsts = 0;
      for (uint16_t at : c.bytes) firsts += c.code[state[at]] == 0 ? 1 : 0;
      if (firsts != c.counts[0]) return false;
      continue;
    }
    if (c.kind == Coordinate::Kind::kOrder) {
      // Each of its pieces once (its labels coordinate counts them together).
      uint32_t seen = 0;
      for (uint16_t at : c.bytes) {
        const uint8_t code = c.code[state[at]];
        if (code == 0xFF) continue;
        if (seen >> code & 1) return false;
        seen |= uint32_t{1} << code;
      }
      continue;
    }
    // The orbit holds the goal's pieces.
    uint8_t count[256] = {};
    for (uint16_t at : c.bytes) {
      const uint8_t code = c.code[state[at]];
      if (code == 0xFF || ++count[code] > c.counts[code]) return false;
    }
    if (c.rule >= 0 && Parity(c, state) != RequiredParity(rules_[static_cast<size_t>(c.rule)], state)) {
      return false;
    }
  }
  return SumsHold(state);
}

bool DefinedIndex::SumsHold(const uint8_t* state) const {
  if (!reduced_) return true;
  for (const TwistSum& rule : twist_sums_) {
    if (!rule.in_index) continue;
    int sum = 0;
    for (const uint16_t at : rule.bytes) sum += state[at];
    if (sum % rule.modulus != rule.value) return false;
  }
  return true;
}

uint64_t DefinedIndex::MaskRank(const Coordinate& c, uint32_t seconds) {
  const int n = MaskSlots(c), firsts = c.counts[0];
  uint64_t rank = 0;
  int f = firsts;
  for (int k = 0; 8 * k < n; ++k) {
    const uint32_t byte = (seconds >> (8 * k)) & 0xFF;
    rank += c.mask_rank[(static_cast<size_t>(k) * static_cast<size_t>(firsts + 1) + static_cast<size_t>(f)) * 256 + byte];
    f = std::max(0, f - (std::min(8, n - 8 * k) - std::popcount(byte)));
  }
  return rank;
}

// The rank of a coordinate with mask tables on consecutive bytes, and whether the state
// breaks its counts.
uint64_t RankFromMasks(const DefinedIndex::Coordinate& c, const uint8_t* state, bool* bad) {
  uint8_t bytes[32] = {};
  std::memcpy(bytes, state + c.bytes[0], static_cast<size_t>(c.n));
  uint32_t held = 0, seconds = 0, firsts = 0;  // where its labels are, by code
  for (const uint8_t v : c.values) {
    const uint32_t at = EqualMask(bytes, v);
    held |= at;
    (c.code[v] == 0 ? firsts : seconds) |= at;
  }
  if (c.kind == DefinedIndex::Coordinate::Kind::kArrangement) {
    // Over the slots its two labels hold.
    const uint32_t members = firsts | seconds;
    *bad = std::popcount(members) != MaskSlots(c) || std::popcount(seconds) != c.counts[1];
    return *bad ? 0 : DefinedIndex::MaskRank(c, ExtractBits(seconds, members));
  }
  const uint32_t all = c.n == 32 ? ~uint32_t{0} : (uint32_t{1} << c.n) - 1;
  *bad = held != all || std::popcount(seconds) != c.counts[1];
  return *bad ? 0 : DefinedIndex::MaskRank(c, seconds);
}

namespace {

// A coordinate's rank, what Indexable asks of it found in the same pass (`checks`).
[[gnu::always_inline]] inline uint64_t RankChecked(const DefinedIndex::Coordinate& c, const uint8_t* read,
                                                   RankChecks* checks) {
  const uint16_t* at = c.bytes.data();
  if (c.consecutive) return RankFromMasks(c, read, &checks->bad);
  if (c.kind == DefinedIndex::Coordinate::Kind::kTwists) return RankSeen<true>(c, [&](int j) { return read[at[j]]; }, checks);
  return RankSeen<true>(c, [&](int j) { return c.code[read[at[j]]]; }, checks);
}

}  // namespace

bool DefinedIndex::RankPlansIfIndexable(const uint8_t* state, uint64_t* rank) const {
  // No parities to compare across orbits: the coordinates of one number checked alone,
  // the others ranked as RankOuter and RankInner read them.
  for (const Coordinate& c : single_) {
    if (c.kind == Coordinate::Kind::kTwists) {
      int total = 0;  // (sum_fixed: a coordinate of one number)
      for (const uint16_t at : c.bytes) total += state[at];
      if (total % c.k != c.sum) return false;
      continue;
    }
    for (const uint16_t at : c.bytes) {
      if (c.code[state[at]] != 0) return false;
    }
  }
  uint64_t part[2] = {0, 0};  // outer, inner
  for (int p = 0; p < 2; ++p) {
    for (const Coordinate& c : p == 0 ? outer_plan_ : inner_plan_) {
      RankChecks checks;
      const uint64_t value = RankChecked(c, state, &checks);
      if (checks.bad) return false;
      part[p] = part[p] * c.size + value;
    }
  }
  *rank = part[0] * inner_size_ + part[1];
  return true;
}

bool DefinedIndex::RankIfIndexable(const uint8_t* state, uint64_t* rank) const {
  std::array<uint8_t, 512> parity;
  if (!SumsHold(state)) return false;
  if (plan_checks_ && !symmetric()) return RankPlansIfIndexable(state, rank);
  if (coordinates_.size() > parity.size()) {
    if (!Indexable(state)) return false;
    *rank = Rank(state);
    return true;
  }
  uint64_t outer = 0, inner = 0;
  // With symmetry classes, the inner part is read from the image in the outer number's
  // block (an image of a state keeps its invariants: the symmetries keep the coordinates'
  // counts).
  uint8_t image[kMaxClassStateBytes];
  const uint8_t* read = state;
  for (size_t i = 0; i < coordinates_.size(); ++i) {
    const Coordinate& c = coordinates_[i];
    if (i == inner_begin_ && symmetric() && to_block_[outer] != 0) {
      ApplyElement(to_block_[outer], state, image);
      read = image;
    }
    RankChecks checks;
    const uint64_t value = RankChecked(c, read, &checks);
    if (checks.bad) return false;
    parity[i] = static_cast<uint8_t>(checks.parity);
    if (c.inner) {
      inner = inner * c.size + value;
    } else {
      outer = outer * c.size + value;
    }
  }
  for (size_t i = 0; i < coordinates_.size(); ++i) {
    const int rule = coordinates_[i].rule;
    if (rule < 0) continue;
    const ParityRule& r = rules_[static_cast<size_t>(rule)];
    int required = r.constant;
    for (int f : r.from) required ^= parity[static_cast<size_t>(labels_of_orbit_[static_cast<size_t>(f)])];
    if (parity[i] != required) return false;
  }
  *rank = symmetric() ? LeastInBlock(read, outer, inner) : outer * inner_size_ + inner;
  return true;
}

uint64_t DefinedIndex::RankOf(const Coordinate& c, const uint8_t* state) const {
  const uint16_t* at = c.bytes.data();
  if (c.consecutive) {
    bool bad = false;
    return RankFromMasks(c, state, &bad);
  }
  if (c.kind == Coordinate::Kind::kTwists) return RankSeen(c, [&](int j) { return state[at[j]]; });
  return RankSeen(c, [&](int j) { return c.code[state[at[j]]]; });
}

DefinedIndex::Reading DefinedIndex::ReadingOf(std::span<const uint16_t> source,
                                              std::span<const uint8_t> values) const {
  Reading reading;
  std::map<std::string, uint32_t> tables;  // each distinct table once
  for (const Coordinate& c : coordinates_) {
    reading.first.push_back(static_cast<uint32_t>(reading.from.size()));
    for (int j = 0; j < c.n; ++j) {
      const uint16_t p = c.bytes[static_cast<size_t>(j)];
      reading.from.push_back(source[p]);
      std::string table(256, '\0');
      for (int v = 0; v < 256; ++v) {
        const uint8_t value = values[size_t{p} * 256 + static_cast<size_t>(v)];
        table[static_cast<size_t>(v)] = static_cast<char>(c.kind == Coordinate::Kind::kTwists ? value : c.code[value]);
      }
      auto [it, added] = tables.emplace(table, static_cast<uint32_t>(reading.codes.size()));
      if (added) reading.codes.insert(reading.codes.end(), table.begin(), table.end());
      reading.table.push_back(it->second);
    }
  }
  reading.first.push_back(static_cast<uint32_t>(reading.from.size()));
  for (size_t i = 0; i < coordinates_.size(); ++i) {
    const auto begin = reading.table.begin() + reading.first[i], end = reading.table.begin() + reading.first[i + 1];
    const bool one = begin == end || std::all_of(begin, end, [&](uint32_t t) { return t == *begin; });
    reading.shared.push_back(one && begin != end ? static_cast<int64_t>(*begin) : -1);
  }
  // A two-label coordinate whose second label is the pieces of a kOrder coordinate on the
  // same positions (the order split, above): ranked together.
  reading.order_of.assign(coordinates_.size(), -1);
  for (size_t i = 0; i < coordinates_.size(); ++i) {
    const Coordinate& c = coordinates_[i];
    if (c.kind != Coordinate::Kind::kLabels || c.distinct || c.label.size() != 2 || c.n > kMaxBinomial ||
        reading.shared[i] < 0) {
      continue;
    }
    for (size_t o = 0; o < coordinates_.size(); ++o) {
      const Coordinate& order = coordinates_[o];
      if (order.kind == Coordinate::Kind::kOrder && order.bytes == c.bytes && reading.shared[o] >= 0 &&
          reading.order_of[o] == -1) {
        reading.order_of[i] = static_cast<int>(o);
        reading.order_of[o] = -2;
        break;
      }
    }
  }
  return reading;
}

uint64_t DefinedIndex::RankRead(const uint8_t* other, const Reading& reading) const {
  uint64_t values[kMaxCoordinates];
  for (size_t i = 0; i < coordinates_.size(); ++i) {
    const Coordinate& c = coordinates_[i];
    const uint16_t* from = reading.from.data() + reading.first[i];
    const uint32_t* table = reading.table.data() + reading.first[i];
    const int order = reading.order_of[i];
    if (order == -2) continue;  // done with its placements (below)
    if (order >= 0) {
      // Placements of an orbit's pieces as one, and their order: one pass reads both.
      const uint8_t* two_code = reading.codes.data() + reading.shared[i];
      const uint8_t* order_code = reading.codes.data() + reading.shared[static_cast<size_t>(order)];
      // The positions of the second label as a mask and the order's codes packed, in one
      // pass; then each is ranked over what it holds, not over every position.
      uint64_t seconds = 0;
      uint8_t codes[kMaxBinomial];
      int count = 0;
      for (int j = 0; j < c.n; ++j) {
        const uint8_t v = other[from[j]];
        seconds |= uint64_t{two_code[v]} << j;
        const uint8_t code = order_code[v];
        codes[count] = code;
        count += code != 0xFF ? 1 : 0;
      }
      uint64_t placed = 0;
      int before = 0;  // positions of the second label before j
      for (uint64_t m = seconds; m != 0; m &= m - 1, ++before) {
        const int j = std::countr_zero(m);
        placed += kBinomials.below[c.n - j - 1][c.counts[0] - (j - before)];  // as TwoLabelRank
      }
      OrderRank ranked(coordinates_[static_cast<size_t>(order)]);
      for (int p = 0; p < count; ++p) ranked.Step(codes[p]);
      values[i] = placed;
      values[order] = ranked.rank;
      continue;
    }
    // Mostly one table serves all a coordinate's positions (a set's labels map alike).
    values[i] =
        reading.shared[i] >= 0
            ? RankSeen(c, [&, code = reading.codes.data() + reading.shared[i]](int j) { return code[other[from[j]]]; })
            : RankSeen(c, [&, codes = reading.codes.data()](int j) { return codes[table[j] + other[from[j]]]; });
  }
  uint64_t outer = 0, inner = 0;
  for (size_t i = 0; i < coordinates_.size(); ++i) {
    const Coordinate& c = coordinates_[i];
    const uint64_t value = values[i];
    if (c.inner) {
      inner = inner * c.size + value;
    } else {
      outer = outer * c.size + value;
    }
  }
  return outer * inner_size_ + inner;
}

void DefinedIndex::UnrankOf(const Coordinate& c, uint64_t value, uint8_t* state) const {
  const uint16_t* at = c.bytes.data();
  if (c.kind == Coordinate::Kind::kTwists) {
    const int digits = c.sum_fixed ? c.n - 1 : c.n;
    int total = 0;
    for (int j = 0; j < (c.reduce > 0 ? digits - 1 : digits); ++j) {
      const auto digit = static_cast<uint8_t>(value % static_cast<uint64_t>(c.k));
      state[at[j]] = digit;
      value /= static_cast<uint64_t>(c.k);
      total += digit;
    }
    if (c.sum_fixed) state[at[c.n - 1]] = static_cast<uint8_t>(((c.sum - total) % c.k + c.k) % c.k);
    if (c.reduce > 0) {
      // The set's other orientations are placed (this coordinate is its sum's last).
      const TwistSum& rule = twist_sums_[static_cast<size_t>(c.sum_rule)];
      int others = 0;
      for (const uint16_t b : rule.bytes) others += b == at[c.n - 1] ? 0 : state[b];
      const int residue = ((rule.value - others) % c.reduce + c.reduce) % c.reduce;
      state[at[c.n - 1]] = static_cast<uint8_t>(static_cast<int>(value) * c.reduce + residue);
    }
    return;
  }
  if (c.kind == Coordinate::Kind::kArrangement) {
    // Onto the positions the labels coordinate gave the two labels (either of them).
    const int slots = c.counts[0] + c.counts[1];
    int slot = 0, firsts = c.counts[0];
    for (int j = 0; j < c.n; ++j) {
      if (c.code[state[at[j]]] == 0xFF) continue;
      const uint64_t starting = kBinomials.below[slots - slot - 1][firsts];  // a first here
      const bool second = firsts == 0 || value >= starting;
      if (second) {
        value -= firsts == 0 ? 0 : starting;
      } else {
        --firsts;
      }
      state[at[j]] = c.label[second ? 1 : 0];
      ++slot;
    }
    return;
  }
  if (c.kind == Coordinate::Kind::kOrder) {
    // Onto the positions the labels coordinate gave the order's pieces (any of them).
    uint8_t codes[kMaxDistinct];
    UnrankOrder(c, value, codes);
    int next = 0;
    for (int j = 0; j < c.n; ++j) {
      if (c.code[state[at[j]]] != 0xFF) state[at[j]] = c.label[codes[next++]];
    }
    return;
  }
  if (c.distinct) {
    const uint64_t rank = c.rule >= 0 ? value << 1 : value;
    uint64_t digits[kMaxDistinct];
    uint64_t r = rank;
    for (int j = c.n - 1; j >= 0; --j) {
      digits[j] = r % static_cast<uint64_t>(c.n - j);
      r /= static_cast<uint64_t>(c.n - j);
    }
    uint32_t unused = (uint32_t{1} << c.n) - 1;
    for (int j = 0; j < c.n; ++j) {
      uint32_t left = unused;
      for (uint64_t k = 0; k < digits[j]; ++k) left &= left - 1;
      const int code = std::countr_zero(left);
      state[at[j]] = c.label[static_cast<size_t>(code)];
      unused &= ~(uint32_t{1} << code);
    }
    // rank and rank + 1 differ by their last two labels, and in parity.
    if (c.rule >= 0 && Parity(c, state) != RequiredParity(rules_[static_cast<size_t>(c.rule)], state)) {
      std::swap(state[at[c.n - 2]], state[at[c.n - 1]]);
    }
    return;
  }
  if (!c.before.empty()) {
    // From the tables (MultisetTables): the label whose arrangements hold `value`.
    const size_t labels = c.label.size();
    size_t key = c.arrangements.size() - 1;
    for (int j = 0; j < c.n; ++j) {
      // The last label whose entry is not above `value` (a label none of is left has none):
      // a choice without branches, which the labels' order would defeat.
      const uint64_t* before = c.before.data() + key * labels;
      size_t code = 0;
      for (size_t l = 1; l < labels; ++l) code = before[l] <= value ? l : code;
      value -= before[code];
      state[at[j]] = c.label[code];
      key -= c.stride[code];
    }
    return;
  }
  uint8_t count[256];
  std::copy(c.counts.begin(), c.counts.end(), count);
  uint64_t arrangements = c.size;
  for (int j = 0; j < c.n; ++j) {
    const auto left = static_cast<uint32_t>(c.n - j);
    for (size_t l = 0;; ++l) {
      if (count[l] == 0) continue;
      const uint64_t starting = ExactQuotient(arrangements, count[l], left);
      if (value < starting) {
        state[at[j]] = c.label[l];
        arrangements = starting;
        --count[l];
        break;
      }
      value -= starting;
    }
  }
}

uint64_t DefinedIndex::RankOuter(const uint8_t* state) const {
  uint64_t rank = 0;
  for (const Coordinate& c : outer_plan_) rank = rank * c.size + RankOf(c, state);
  return rank;
}

uint64_t DefinedIndex::RankInner(const uint8_t* state) const {
  uint64_t rank = 0;
  for (const Coordinate& c : inner_plan_) rank = rank * c.size + RankOf(c, state);
  return rank;
}

void DefinedIndex::UnrankRange(uint64_t number, size_t first, size_t last, uint8_t* state) const {
  // The digits, last first; then placed in order (a parity that follows from others comes
  // after them).
  uint64_t values[kMaxCoordinates];
  size_t count = 0;
  for (size_t i = last; i-- > first;) {
    if (coordinates_[i].size <= 1) continue;
    values[count++] = number % coordinates_[i].size;
    number /= coordinates_[i].size;
  }
  for (size_t i = first; i < last; ++i) {
    UnrankOf(coordinates_[i], coordinates_[i].size <= 1 ? 0 : values[--count], state);
  }
}

void DefinedIndex::UnrankOuter(uint64_t outer, uint8_t* state) const {
  UnrankRange(outer, 0, inner_begin_, state);
}

void DefinedIndex::UnrankInner(uint64_t inner, uint8_t* state) const {
  UnrankRange(inner, inner_begin_, coordinates_.size(), state);
}

void DefinedIndex::UnrankOrder(const Coordinate& c, uint64_t value, uint8_t* codes) {
  const int k = static_cast<int>(c.label.size());
  uint64_t digits[kMaxDistinct];
  for (int j = k - 1; j >= 0; --j) {
    digits[j] = value % static_cast<uint64_t>(k - j);
    value /= static_cast<uint64_t>(k - j);
  }
  uint32_t unused = (uint32_t{1} << k) - 1;
  for (int j = 0; j < k; ++j) {
    uint32_t left = unused;
    for (uint64_t d = 0; d < digits[j]; ++d) left &= left - 1;
    codes[j] = static_cast<uint8_t>(std::countr_zero(left));
    unused &= ~(uint32_t{1} << codes[j]);
  }
}

void DefinedIndex::OrderSlots(const uint8_t* state, uint8_t* slots) const {
  const Coordinate& c = coordinates_.back();  // the inner part, alone
  int next = 0;
  for (int j = 0; j < c.n; ++j) {
    const uint8_t code = c.code[state[c.bytes[static_cast<size_t>(j)]]];
    if (code != 0xFF) slots[next++] = code;
  }
}

uint64_t DefinedIndex::PermuteOrder(uint64_t inner, const uint8_t* slots, const uint8_t* relabel) const {
  const Coordinate& c = coordinates_.back();
  const int k = order_pieces_;
  uint8_t codes[kMaxDistinct];
  UnrankOrder(c, inner, codes);
  uint32_t used = 0;
  uint64_t rank = 0;
  for (int j = 0; j < k; ++j) {
    const uint8_t code = relabel != nullptr ? relabel[codes[slots[j]]] : codes[slots[j]];
    rank = rank * static_cast<uint64_t>(k - j) +
           static_cast<uint64_t>(std::popcount(((uint32_t{1} << code) - 1) & ~used));
    used |= uint32_t{1} << code;
  }
  return rank;
}

uint64_t DefinedIndex::PermuteArrangement(uint64_t inner, const uint8_t* slots, bool swap) const {
  const Coordinate& c = coordinates_.back();
  const int n = arrangement_slots_;
  // The second label's slots as bits, then ranked again in the permuted order.
  uint64_t seconds = 0;
  int firsts = c.counts[0];
  for (int s = 0; s < n; ++s) {
    const uint64_t starting = kBinomials.below[n - s - 1][firsts];
    const bool second = firsts == 0 || inner >= starting;
    if (second) {
      inner -= firsts == 0 ? 0 : starting;
      seconds |= uint64_t{1} << s;
    } else {
      --firsts;
    }
  }
  uint64_t rank = 0;
  firsts = c.counts[0];
  for (int s = 0; s < n; ++s) {
    const uint64_t second = ((seconds >> slots[s]) & 1) ^ (swap ? 1 : 0);
    rank += second * kBinomials.below[n - s - 1][firsts];
    firsts -= static_cast<int>(1 - second);
  }
  return rank;
}

std::string DefinedIndex::Describe(const Definition& definition) const {
  std::vector<std::string> parts;
  for (const Coordinate& c : coordinates_) {
    if (c.size <= 1) continue;
    const std::string& set = definition.sets()[static_cast<size_t>(c.set)].name;
    if (c.kind == Coordinate::Kind::kOrder) {
      parts.push_back(Cat(set, " order ", c.size));
    } else if (c.kind == Coordinate::Kind::kArrangement) {
      parts.push_back(Cat(set, " arrangement ", c.size));
    } else if (c.kind == Coordinate::Kind::kLabels) {
      parts.push_back(Cat(set, " placements ", c.size, c.rule >= 0 ? " (one parity)" : ""));
    } else {
      parts.push_back(c.reduce > 0 ? Cat(set, " orientations ", c.k, "^", c.n, "/", c.reduce, " (the set's sum kept mod ",
                                         c.reduce, ")")
                                   : Cat(set, " orientations ", c.k, "^", c.sum_fixed ? c.n - 1 : c.n,
                                         c.sum_fixed ? " (sum kept)" : ""));
    }
  }
  const std::string product = Cat(parts.empty() ? std::string("1") : Join(parts, " x "));
  if (symmetric()) {
    return Cat(size_, " = ", outer_size(), " classes of ", raw_outer_size(), " placements under ",
               group_order(), " symmetries x ", inner_size_, " (of ", raw_outer_size() * inner_size_, " = ",
               product, ")");
  }
  return Cat(size_, " = ", product);
}

}  // namespace puzzledb
