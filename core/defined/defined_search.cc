#include "core/defined/defined_search.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>

#include "core/util/strings.h"

namespace puzzledb {
namespace {

constexpr uint32_t kNoMove = UINT32_MAX;

// The order maps of an index whose inner part is an order (DefinedIndex::inner_is_order)
// stop at this; past it, a step permutes each inner number itself. (An arrangement's steps
// keep no maps: ArrangementPermuter.)
constexpr uint64_t kOrderMapBytes = uint64_t{256} << 20;

// Where each move (or block) leads from one outer number: the outer number reached and the
// block that applies, or kNoMove; for an inner part that is an order or an arrangement,
// the permutation of its slots and, if kept, its table.
struct Step {
  uint64_t outer = 0;
  uint32_t block = kNoMove;
  bool free = false;  // moves no counted piece (DefinedSearchOptions::counted)
  const uint32_t* map = nullptr;  // inner number -> inner number
  std::array<uint8_t, 32> slots{};
  bool swap = false;  // an arrangement's two labels exchanged (a symmetry's, layout 4)
  int element = 0;    // the symmetry whose relabelling an order's pieces take (layout 4)
  // An arrangement's slots as tables of bits, where made (ArrangementPermuter::Tables).
  const uint32_t* bits = nullptr;
};

// An arrangement's inner numbers permuted by a step's slots (DefinedIndex::
// PermuteArrangement), fast: each number's slots of the second label as a mask, read from a
// table made once (while it takes at most kArrangementMaskBytes), the mask permuted, and
// ranked again a byte of slots at a time (DefinedIndex::MaskRank).
constexpr uint64_t kArrangementMaskBytes = uint64_t{128} << 20;

class ArrangementPermuter {
 public:
  explicit ArrangementPermuter(const DefinedIndex& index) : index_(index) {
    if (!index.inner_is_arrangement() || index.inner_size() * 4 > kArrangementMaskBytes) return;
    n_ = index.inner_slots();
    // Each number's mask: the numbers follow the lexicographic order of the slots' codes
    // (0 the first label, 1 the second), which next_permutation walks.
    masks_.resize(index.inner_size());
    std::vector<uint8_t> codes(static_cast<size_t>(n_), 1);
    std::fill(codes.begin(), codes.begin() + index.coordinates().back().counts[0], 0);
    for (uint64_t i = 0; i < masks_.size(); ++i) {
      uint32_t mask = 0;
      for (int s = 0; s < n_; ++s) mask |= uint32_t{codes[static_cast<size_t>(s)]} << s;
      masks_[i] = mask;
      std::next_permutation(codes.begin(), codes.end());
    }
  }

  // Whether Tables may be made (the numbers' masks are kept).
  bool fast() const { return !masks_.empty(); }
  // The permutation of slots as four tables of 256 entries, one for each byte of a mask: a
  // mask permuted is four lookups or'ed together. REQUIRES: fast().
  void Tables(const uint8_t* slots, uint32_t* tables) const {
    uint8_t to[32] = {};  // where each slot's bit goes
    for (int t = 0; t < n_; ++t) to[slots[t]] = static_cast<uint8_t>(t);
    for (int chunk = 0; chunk < 4; ++chunk) {
      for (uint32_t v = 0; v < 256; ++v) {
        uint32_t out = 0;
        for (int b = 0; b < 8 && 8 * chunk + b < n_; ++b) {
          if ((v >> b) & 1) out |= uint32_t{1} << to[8 * chunk + b];
        }
        tables[chunk * 256 + static_cast<int>(v)] = out;
      }
    }
  }
  uint64_t Permute(uint64_t inner, const uint32_t* tables, bool swap) const {
    const uint32_t mask = masks_[inner];
    uint32_t permuted = tables[mask & 0xFF] | tables[256 + ((mask >> 8) & 0xFF)] |
                        tables[512 + ((mask >> 16) & 0xFF)] | tables[768 + (mask >> 24)];
    if (swap) permuted ^= static_cast<uint32_t>((uint64_t{1} << n_) - 1);
    return DefinedIndex::MaskRank(index_.coordinates().back(), permuted);
  }

  uint64_t Permute(uint64_t inner, const uint8_t* slots, bool swap) const {
    if (masks_.empty()) return index_.PermuteArrangement(inner, slots, swap);
    const uint32_t mask = masks_[inner];
    uint32_t permuted = 0;
    for (int s = 0; s < n_; ++s) permuted |= ((mask >> slots[s]) & 1u) << s;
    if (swap) permuted ^= static_cast<uint32_t>((uint64_t{1} << n_) - 1);
    return DefinedIndex::MaskRank(index_.coordinates().back(), permuted);
  }

 private:
  const DefinedIndex& index_;
  int n_ = 0;
  std::vector<uint32_t> masks_;  // by inner number
};

// The steps' order maps, found by the threads as they need them: each keeps those it has
// used, and asks the shared ones under a lock when it meets a new permutation.
class OrderMaps {
 public:
  explicit OrderMaps(const DefinedIndex& index) : index_(index) {}

  // The map of the slots' permutation, its pieces relabelled as element e of the index's
  // symmetries does (0: not relabelled).
  const uint32_t* Find(const uint8_t* slots, int e, std::unordered_map<std::string, const uint32_t*>* mine) {
    std::string key(reinterpret_cast<const char*>(slots), static_cast<size_t>(index_.order_pieces()));
    key += static_cast<char>(e);
    if (auto it = mine->find(key); it != mine->end()) return it->second;
    std::lock_guard<std::mutex> lock(mutex_);
    auto& map = maps_[key];
    if (map == nullptr && bytes_ + index_.inner_size() * 4 <= kOrderMapBytes) {
      map = std::make_unique<std::vector<uint32_t>>(index_.inner_size());
      for (uint64_t i = 0; i < index_.inner_size(); ++i) {
        (*map)[i] = static_cast<uint32_t>(index_.PermuteOrder(i, slots, index_.Relabel(e)));
      }
      bytes_ += index_.inner_size() * 4;
    }
    const uint32_t* found = map == nullptr ? nullptr : map->data();
    (*mine)[key] = found;
    return found;
  }

 private:
  const DefinedIndex& index_;
  std::mutex mutex_;
  std::unordered_map<std::string, std::unique_ptr<std::vector<uint32_t>>> maps_;
  uint64_t bytes_ = 0;
};

class Search {
 public:
  Search(const Definition& definition, const CompiledMoves& moves, const DefinedIndex& index,
         const DefinedSearchOptions& options)
      : definition_(definition),
        moves_(moves),
        index_(index),
        options_(options),
        mod3_(!options.exact && DefinedEncoding(moves) == storage::v1::DISTANCE_MOD3),
        inner_(index.inner_size()),
        outer_(index.outer_size()),
        order_(index.inner_slots() > 0),
        arrangement_(index.inner_is_arrangement()),
        symmetric_(index.symmetric()),
        free_(!options.counted.empty()),
        moved_(static_cast<size_t>(moves.block_count())),
        maps_(index),
        move_count_(moves.move_count()),
        block_count_(moves.block_count()),
        threads_(options.threads > 0 ? options.threads
                                     : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))) {
    MakeDigitSteps();
  }

  absl::StatusOr<DefinedSearchResult> Run() {
    const auto started = std::chrono::steady_clock::now();
    DefinedSearchResult result;
    result.entries = PackedTable(mod3_ ? storage::v1::DISTANCE_MOD3 : storage::v1::DISTANCE_BYTE,
                                 index_.size());
    bytes_ = result.entries.MutableBytes(0);
    BuildInnerTable();
    if (arrangement_) {
      position_of_.assign(static_cast<size_t>(index_.state_bytes()), -1);
      const DefinedIndex::Coordinate& c = index_.coordinates().back();
      for (int j = 0; j < c.n; ++j) position_of_[c.bytes[static_cast<size_t>(j)]] = j;
      for (int b = 0; b < block_count_; ++b) {
        // Undone, byte source[i] of the state before is byte i of the state after.
        const std::vector<uint16_t>& source = moves_.block(b).source;
        std::vector<uint16_t> from(source.size());
        for (size_t i = 0; i < source.size(); ++i) from[source[i]] = static_cast<uint16_t>(i);
        undone_from_.push_back(std::move(from));
      }
    }
    if (free_) {
      for (int b = 0; b < block_count_; ++b) {
        std::vector<uint16_t>& moved = moved_[static_cast<size_t>(b)];
        for (int i = 0; i < index_.state_bytes(); ++i) {
          if (moves_.block(b).source[static_cast<size_t>(i)] != i) moved.push_back(static_cast<uint16_t>(i));
        }
      }
      fresh_.assign((index_.size() + 63) / 64, 0);
      work_.assign(fresh_.size(), 0);
    }

    // Layer 0: the goals, and what they reach at no cost.
    uint64_t seen = 0;
    for (const DefinedState& goal : definition_.goals()) {
      const uint64_t i = index_.Rank(goal.data());
      if (Get(i) != Unseen()) continue;
      Claim(i, 0);
      ++seen;
    }
    if (free_) seen += Closure(0);
    result.histogram.push_back(seen);
    uint64_t total = seen;
    Report(0, seen, total, started, false);
    // Each value marks states of several layers (d, d - 3, ... for modulo 3): top-down
    // costs the states of all of them.
    for (int d = 0;; ++d) {
      uint64_t marked = 0;  // states whose entry holds d's value
      if (mod3_) {
        for (int e = d; e >= 0; e -= 3) marked += result.histogram[static_cast<size_t>(e)];
      } else {
        marked = result.histogram[static_cast<size_t>(d)];
      }
      const uint64_t unseen = index_.size() - total;
      // Top-down costs the layer's states, bottom-up the unseen ones.
      const bool bottom_up = unseen < marked;
      result.bottom_up_layers |= bottom_up;
      if (!mod3_ && d + 1 >= PackedTable::kByteUncovered) {
        return absl::InvalidArgumentError(
            Cat("a state is more than ", PackedTable::kByteUncovered - 1,
                " moves from every goal, farther than a table of this puzzle holds"));
      }
      uint64_t found = Layer(d, bottom_up);
      if (free_ && found > 0) found += Closure(d + 1);
      if (found == 0) break;
      result.histogram.push_back(found);
      total += found;
      Report(d + 1, found, total, started, bottom_up);
    }
    if (moves_.guarded()) {
      if (absl::Status once = CheckOneBlock(); !once.ok()) return once;
    }
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return result;
  }

  // SearchFolded: the layers in bitmaps, each state's layer written into `laid`'s entry it
  // folds into when that entry has none yet (layers come in increasing order).
  absl::StatusOr<DefinedSearchResult> RunFolded(const DefinedIndex& laid) {
    const auto started = std::chrono::steady_clock::now();
    DefinedSearchResult result;
    result.entries = PackedTable(storage::v1::DISTANCE_BYTE, laid.size());
    fold_bytes_ = result.entries.MutableBytes(0);
    std::memset(fold_bytes_, PackedTable::kByteUncovered, laid.size());
    for (int b = 0; b < block_count_; ++b) {
      std::vector<uint16_t>& moved = moved_[static_cast<size_t>(b)];
      for (int i = 0; i < index_.state_bytes(); ++i) {
        if (moves_.block(b).source[static_cast<size_t>(i)] != i) moved.push_back(static_cast<uint16_t>(i));
      }
    }
    // Where each outer number's states fold: the free pieces become the merged one.
    int counted = 0;
    for (bool c : options_.counted) counted += c ? 1 : 0;
    const auto merged = static_cast<uint8_t>(counted + 1);
    fold_outer_.resize(outer_);
    {
      std::vector<uint8_t> state(static_cast<size_t>(index_.state_bytes()), 0);
      for (uint64_t o = 0; o < outer_; ++o) {
        OuterState(o, state.data());
        for (uint8_t& label : state) label = label > merged ? merged : label;
        fold_outer_[o] = laid.RankOuter(state.data());
      }
    }
    // Each outer number's bits start a word: its states are one thread's at a time.
    stride_ = (inner_ + 63) / 64;
    const uint64_t words = outer_ * stride_;
    seen_.assign(words, 0);
    layer_.assign(words, 0);
    fresh_.assign(words, 0);
    layer_active_.assign(outer_, 0);
    fresh_active_.assign(outer_, 0);
    folded_ = true;
    const bool grouped = FreeGroups(laid.size() / inner_);
    if (!grouped) {
      work_.assign(words, 0);
      work_active_.assign(outer_, 0);
    }
    auto closure = [&](int d) { return grouped ? ClosureGroups(d) : ClosureBits(d); };

    uint64_t total = 0;
    for (const DefinedState& goal : definition_.goals()) {
      const uint64_t r = index_.Rank(goal.data());
      if (ClaimBit(r / inner_, r % inner_, 0)) ++total;
    }
    total += closure(0);
    result.histogram.push_back(total);
    Report(0, total, total, started, false);
    for (int d = 0;; ++d) {
      if (d + 1 >= PackedTable::kByteUncovered) {
        return absl::InvalidArgumentError(
            Cat("a state is more than ", PackedTable::kByteUncovered - 1,
                " moves from every goal, farther than a table of this puzzle holds"));
      }
      const uint64_t marked = result.histogram.back();
      const bool bottom_up = index_.size() - total < marked;
      uint64_t layer = OverOuters(bottom_up ? move_count_ : block_count_, [&](uint64_t o, Worker* w) {
        if (bottom_up) {
          BottomUpBits(d, o, w);
        } else {
          TopDownBits(d, o, w);
        }
      });
      // The layer at hand is done with: the next one is what the closure's rounds mark.
      for (uint64_t o = 0; o < outer_; ++o) {
        if (!layer_active_[o]) continue;
        std::fill(&layer_[o * stride_], &layer_[(o + 1) * stride_], 0);
        layer_active_[o] = 0;
      }
      if (layer > 0) layer += closure(d + 1);
      if (layer == 0) break;
      result.histogram.push_back(layer);
      total += layer;
      Report(d + 1, layer, total, started, bottom_up);
    }
    result.histogram = ByteHistogram(result.entries);  // the folded table's
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return result;
  }

 private:
  static bool Bit(const std::vector<uint64_t>& bits, uint64_t i) { return (bits[i >> 6] >> (i & 63)) & 1; }
  static bool SetBit(std::vector<uint64_t>& bits, uint64_t i) {
    const uint64_t bit = uint64_t{1} << (i & 63);
    return (std::atomic_ref<uint64_t>(bits[i >> 6]).fetch_or(bit, std::memory_order_relaxed) & bit) == 0;
  }
  // Folded, the bit of the state of outer number o and inner number i.
  uint64_t BitOf(uint64_t o, uint64_t i) const { return o * stride_ * 64 + i; }
  bool Seen(uint64_t o, uint64_t i) const {
    const uint64_t b = BitOf(o, i);
    return (std::atomic_ref<uint64_t>(const_cast<uint64_t&>(seen_[b >> 6])).load(std::memory_order_relaxed) >> (b & 63)) & 1;
  }
  // Seen now, marked for the closure, and folded: the entry it folds into gets `d` if it
  // has no distance yet.
  bool ClaimBit(uint64_t o, uint64_t i, int d) {
    const uint64_t b = BitOf(o, i);
    if (!SetBit(seen_, b)) return false;
    SetBit(fresh_, b);
    std::atomic_ref<uint8_t>(fresh_active_[o]).store(1, std::memory_order_relaxed);
    // Every claim between two of the search's barriers writes the same layer, so a load
    // and a store do what an exchange would (the folded entry is most often set already:
    // it folds the states of every place of the free pieces).
    std::atomic_ref<uint8_t> entry(fold_bytes_[fold_outer_[o] * inner_ + i]);
    if (entry.load(std::memory_order_relaxed) == PackedTable::kByteUncovered) {
      entry.store(static_cast<uint8_t>(d), std::memory_order_relaxed);
    }
    return true;
  }

  // The inner numbers of outer number o whose bit is set in `bits`.
  void Collect(const std::vector<uint64_t>& bits, uint64_t o, std::vector<uint32_t>* inner) const {
    inner->clear();
    for (uint64_t k = 0; k < stride_; ++k) {
      for (uint64_t word = bits[o * stride_ + k]; word != 0; word &= word - 1) {
        inner->push_back(static_cast<uint32_t>(k * 64 + static_cast<uint64_t>(std::countr_zero(word))));
      }
    }
  }

  // Folded: whether the closure can be taken by groups (ClosureGroups), and if so their
  // outer numbers and components. A group is the outer numbers that fold into one of the
  // `groups` outer numbers of the table (the places of the free pieces: the fifteen's
  // blank); it can where every free block keeps the inner number (it moves no counted
  // piece, so their order stays) and the outer number's group, and the moves are
  // undirected (a free block's way back is free too).
  bool FreeGroups(uint64_t groups) {
    if (!free_ || !order_ || symmetric_ || !moves_.undirected() || outer_ > (uint64_t{1} << 32)) return false;
    group_start_.assign(groups + 1, 0);
    for (uint64_t o = 0; o < outer_; ++o) ++group_start_[fold_outer_[o] + 1];
    for (uint64_t g = 0; g < groups; ++g) group_start_[g + 1] += group_start_[g];
    group_outers_.assign(outer_, 0);
    {
      std::vector<uint64_t> at(group_start_.begin(), group_start_.end() - 1);
      for (uint64_t o = 0; o < outer_; ++o) group_outers_[at[fold_outer_[o]]++] = static_cast<uint32_t>(o);
    }
    component_.assign(outer_, 0);
    std::atomic<bool> keeps{true};
    OverGroups(block_count_, [&](uint64_t g, Worker* w) {
      const uint64_t first = group_start_[g], n = group_start_[g + 1] - first;
      std::vector<uint64_t>& parent = w->scratch;
      parent.resize(n);
      for (uint64_t k = 0; k < n; ++k) parent[k] = k;
      auto root = [&parent](uint64_t k) {
        while (parent[k] != k) k = parent[k] = parent[parent[k]];
        return k;
      };
      for (uint64_t k = 0; k < n; ++k) {
        PredecessorSteps(group_outers_[first + k], w->state.data(), w->steps.data(), &w->cache);
        for (const Step& st : w->steps) {
          if (st.block == kNoMove || !st.free) continue;
          bool same = st.element == 0 && fold_outer_[st.outer] == g;
          for (int t = 0; same && t < index_.inner_slots(); ++t) same = st.slots[static_cast<size_t>(t)] == t;
          if (!same) {
            keeps.store(false, std::memory_order_relaxed);
            return;
          }
          uint64_t j = 0;
          while (group_outers_[first + j] != st.outer) ++j;  // a group holds a few outer numbers
          parent[root(k)] = root(j);
        }
      }
      for (uint64_t k = 0; k < n; ++k) component_[group_outers_[first + k]] = static_cast<uint32_t>(root(k));
    });
    if (!keeps.load()) {
      group_start_.clear();
      group_outers_.clear();
      component_.clear();
      return false;
    }
    return true;
  }

  // Folded, by groups (FreeGroups): the closure of the states found for layer d in one pass.
  // Every state of a component with the same inner number is reached from any other by free
  // blocks, and a state seen before had its whole component seen with it: a component's
  // layer is the union of its fresh states, less those seen. Each group is one thread's.
  uint64_t ClosureGroups(int d) {
    return OverGroups(0, [&](uint64_t g, Worker* w) {
      const uint64_t first = group_start_[g], n = group_start_[g + 1] - first;
      bool any = false;
      for (uint64_t k = 0; k < n && !any; ++k) any = fresh_active_[group_outers_[first + k]] != 0;
      if (!any) return;
      std::vector<uint64_t>& u = w->scratch;  // the union, a component at a time
      u.resize(stride_);
      for (uint64_t k = 0; k < n; ++k) {
        const uint64_t o = group_outers_[first + k];
        if (component_[o] != k) continue;  // each component from its root
        std::fill(u.begin(), u.end(), 0);
        bool fresh = false;
        for (uint64_t j = 0; j < n; ++j) {
          const uint64_t p = group_outers_[first + j];
          if (component_[p] != k || !fresh_active_[p]) continue;
          const uint64_t* f = &fresh_[p * stride_];
          for (uint64_t x = 0; x < stride_; ++x) u[x] |= f[x];
          fresh = true;
        }
        if (!fresh) continue;
        uint8_t* entries = fold_bytes_ + g * inner_;
        for (uint64_t j = 0; j < n; ++j) {
          const uint64_t p = group_outers_[first + j];
          if (component_[p] != k) continue;
          uint64_t* seen = &seen_[p * stride_];
          uint64_t* layer = &layer_[p * stride_];
          uint64_t* f = &fresh_[p * stride_];
          for (uint64_t x = 0; x < stride_; ++x) {
            const uint64_t add = u[x] & ~seen[x];
            seen[x] |= add;
            layer[x] |= add | f[x];
            f[x] = 0;
            w->found += static_cast<uint64_t>(std::popcount(add));
            for (uint64_t bits = add; bits != 0; bits &= bits - 1) {
              uint8_t& entry = entries[x * 64 + static_cast<uint64_t>(std::countr_zero(bits))];
              if (entry == PackedTable::kByteUncovered) entry = static_cast<uint8_t>(d);
            }
          }
          layer_active_[p] = 1;
          fresh_active_[p] = 0;
        }
      }
    });
  }

  // fn(g, worker) for each group g (FreeGroups) on the search's threads, as OverOuters
  // (a group holds a few outer numbers).
  template <class Fn>
  uint64_t OverGroups(int ways, Fn&& fn) {
    return OverRuns(group_start_.size() - 1, std::max<uint64_t>(1, (uint64_t{1} << 16) / (inner_ * 8)), ways, fn);
  }

  // Folded: the closure's rounds over the outer numbers that have marks, each round's
  // states joining layer d.
  uint64_t ClosureBits(int d) {
    uint64_t joined = 0;
    for (;;) {
      fresh_.swap(work_);
      fresh_active_.swap(work_active_);
      const uint64_t found = OverOuters(block_count_, [&](uint64_t o, Worker* w) {
        if (!work_active_[o]) return;
        uint64_t* work = &work_[o * stride_];
        uint64_t* layer = &layer_[o * stride_];
        for (uint64_t k = 0; k < stride_; ++k) layer[k] |= work[k];
        layer_active_[o] = 1;
        Collect(work_, o, &w->inner);
        PredecessorSteps(o, w->state.data(), w->steps.data(), &w->cache);
        for (const Step& s : w->steps) {
          if (s.block != kNoMove && s.free) Mark(s, static_cast<uint8_t>(d), w);
        }
        std::fill(work, work + stride_, 0);
        work_active_[o] = 0;
      });
      if (found == 0) return joined;
      joined += found;
    }
  }


  uint8_t Unseen() const { return mod3_ ? PackedTable::kMod3Uncovered : PackedTable::kByteUncovered; }
  uint8_t ValueOf(int d) const { return static_cast<uint8_t>(mod3_ ? d % 3 : d); }

  uint8_t Get(uint64_t i) const {
    const uint8_t byte = std::atomic_ref<uint8_t>(bytes_[mod3_ ? i >> 2 : i]).load(std::memory_order_relaxed);
    return mod3_ ? (byte >> (2 * (i & 3))) & 3 : byte;
  }
  // Set, and with free moves the state's mark for the closure of its layer.
  bool Claim(uint64_t i, uint8_t value) {
    if (!Set(i, value)) return false;
    if (free_) std::atomic_ref<uint64_t>(fresh_[i >> 6]).fetch_or(uint64_t{1} << (i & 63), std::memory_order_relaxed);
    return true;
  }

  // From unseen to `value`; true if this call changed it.
  bool Set(uint64_t i, uint8_t value) const {
    if (!mod3_) {
      uint8_t expected = PackedTable::kByteUncovered;
      return std::atomic_ref<uint8_t>(bytes_[i]).compare_exchange_strong(expected, value,
                                                                        std::memory_order_relaxed);
    }
    const int shift = 2 * static_cast<int>(i & 3);
    const auto clear = static_cast<uint8_t>(~((3 ^ value) << shift));
    const uint8_t old = std::atomic_ref<uint8_t>(bytes_[i >> 2]).fetch_and(clear, std::memory_order_relaxed);
    return ((old >> shift) & 3) == 3;
  }

  // Each block's effect on the inner numbers, forwards and backwards (none for an order:
  // its steps carry their maps).
  void BuildInnerTable() {
    if (order_) return;
    inner_table_.resize(inner_ * static_cast<uint64_t>(block_count_));
    inner_back_.resize(inner_table_.size());
    std::vector<uint8_t> state(static_cast<size_t>(index_.state_bytes()), 0);
    std::vector<uint8_t> next(state.size(), 0);
    for (uint64_t i = 0; i < inner_; ++i) {
      index_.UnrankInner(i, state.data());
      for (int b = 0; b < block_count_; ++b) {
        const uint64_t at = i * static_cast<uint64_t>(block_count_) + static_cast<uint64_t>(b);
        moves_.Transform(b, state.data(), next.data());
        inner_table_[at] = static_cast<uint32_t>(index_.RankInner(next.data()));
        moves_.Untransform(b, state.data(), next.data());
        inner_back_[at] = static_cast<uint32_t>(index_.RankInner(next.data()));
      }
    }
  }

  using MapCache = std::unordered_map<std::string, const uint32_t*>;

  // A state of outer number o (an order's first, inner number 0, where the inner part is
  // one: what a block then makes of its slots is the step's permutation).
  void OuterState(uint64_t o, uint8_t* state) const {
    index_.UnrankOuter(index_.BlockOuter(o), state);
    if (order_) index_.UnrankInner(0, state);
  }

  // The step of block b from `from` (an outer number's state, OuterState) to `reached`,
  // done (`back` false) or undone.
  Step StepTo(const uint8_t* from, const uint8_t* reached, int b, bool back, MapCache* cache) {
    Step step;
    const DefinedIndex::ToBlock to = index_.BlockOf(index_.RankOuter(reached));
    step.outer = to.block;
    step.block = static_cast<uint32_t>(b);
    if (arrangement_) {
      ArrangementSlots(from, reached, b, back, step.slots.data());  // no maps: Permute is fast
      if (to.slots != nullptr) {
        // Then the symmetry that takes the state reached to its block's outer number.
        const std::array<uint8_t, 32> reached_slots = step.slots;
        for (int t = 0; t < index_.inner_slots(); ++t) step.slots[static_cast<size_t>(t)] = reached_slots[to.slots[t]];
        step.swap = to.swap;
      }
    } else if (order_) {
      index_.OrderSlots(reached, step.slots.data());
      if (to.slots != nullptr) {
        // Then the symmetry that takes the state reached to its block, its pieces relabelled.
        const std::array<uint8_t, 32> reached_slots = step.slots;
        for (int t = 0; t < index_.inner_slots(); ++t) step.slots[static_cast<size_t>(t)] = reached_slots[to.slots[t]];
        step.element = to.element;
      }
      step.map = maps_.Find(step.slots.data(), step.element, cache);
    }
    return step;
  }

  // The arrangement's slots after block b (done or undone) took `from` to `reached`: slot s
  // of `reached` holds what slot slots[s] of `from` held, read from where the block takes
  // each byte (the pieces of an arrangement are not told apart).
  void ArrangementSlots(const uint8_t* from, const uint8_t* reached, int b, bool back, uint8_t* slots) const {
    const DefinedIndex::Coordinate& c = index_.coordinates().back();
    uint8_t slot_of[256];  // by position of the coordinate (a set's, at most 255), its slot in `from`
    int next = 0;
    for (int j = 0; j < c.n; ++j) {
      if (c.code[from[c.bytes[static_cast<size_t>(j)]]] != 0xFF) slot_of[j] = static_cast<uint8_t>(next++);
    }
    const CompiledMoves::Block& block = moves_.block(b);
    int s = 0;
    for (int j = 0; j < c.n; ++j) {
      const uint16_t at = c.bytes[static_cast<size_t>(j)];
      if (c.code[reached[at]] == 0xFF) continue;
      const uint16_t came = back ? undone_from_[static_cast<size_t>(b)][at] : block.source[at];
      slots[s++] = slot_of[position_of_[came]];
    }
  }

  // Outer numbers stepped as numbers, where the outer part is orientations alone, of
  // pieces no block moves, and the guards read nothing else (the knobs): a block's tests
  // read digits and its step changes some of them, so that no state is made and none
  // ranked. digit_blocks_ empty: states are made.
  struct DigitBlock {
    std::vector<std::pair<uint8_t, uint8_t>> tests;        // digit, orientation, before the block
    std::vector<std::pair<uint8_t, uint8_t>> tests_after;  // the same, read on what it makes
    std::vector<std::pair<uint8_t, uint8_t>> adds;         // digit, what the block adds to it
    bool never = false;  // a test of a byte that no outer number changes fails
  };
  // An outer number's orientation digits, the least significant first: digit i is
  // (its orientation / div) in radix `radix`, worth `weight`; where a set's sum is in the
  // index (layout 5), the residue of its last digit follows from the set's others.
  struct Digit {
    uint16_t at = 0;  // its byte
    unsigned k = 0;   // orientations
    unsigned radix = 0;
    int shift = -1;  // log2(radix) where a power of two
    unsigned div = 1;
    uint64_t weight = 1;
    std::vector<uint8_t> others;  // a reduced digit: the set's other digits
    int modulus = 0, value = 0;   // and its sum, modulo `modulus`
  };
  static constexpr int kMostDigits = 64;
  struct Worker;  // below
  static constexpr unsigned kMostKeyValues = 16;  // a key digit's orientations, at most

  void MakeDigitSteps() {
    if (symmetric_ || order_ || arrangement_ || free_ || moves_.forgets_twists() || moves_.has_illegal()) return;
    // A guard may read a byte no outer number changes (where a size-1 coordinate keeps a
    // piece: the knob's own label): its test holds everywhere or nowhere.
    std::vector<int> digit_of(static_cast<size_t>(index_.state_bytes()), -1);
    std::vector<bool> constant(digit_of.size(), false);
    std::vector<Digit> digits;
    const std::vector<DefinedIndex::Coordinate>& all = index_.coordinates();
    uint64_t weight = 1;
    for (size_t i = all.size(); i-- > 0;) {
      const DefinedIndex::Coordinate& c = all[i];
      if (c.inner) continue;
      if (c.kind == DefinedIndex::Coordinate::Kind::kLabels && c.size <= 1) {
        for (const uint16_t at : c.bytes) constant[at] = true;
        continue;
      }
      if (c.kind != DefinedIndex::Coordinate::Kind::kTwists || c.sum_fixed || c.k < 2) return;
      for (int j = 0; j < c.n; ++j) {
        if (digits.size() == kMostDigits) return;
        Digit d;
        d.at = c.bytes[static_cast<size_t>(j)];
        d.k = static_cast<unsigned>(c.k);
        d.div = c.reduce > 0 && j == c.n - 1 ? static_cast<unsigned>(c.reduce) : 1;
        d.radix = d.k / d.div;
        d.shift = std::has_single_bit(d.radix) ? std::countr_zero(d.radix) : -1;
        d.weight = weight;
        if (d.div > 1) {
          const DefinedIndex::TwistSum& rule = index_.twist_sums()[static_cast<size_t>(c.sum_rule)];
          d.modulus = rule.modulus;
          d.value = rule.value;
        }
        weight *= d.radix;
        digit_of[d.at] = static_cast<int>(digits.size());
        digits.push_back(std::move(d));
      }
    }
    for (Digit& d : digits) {
      if (d.div == 1) continue;
      for (const DefinedIndex::TwistSum& rule : index_.twist_sums()) {
        if (std::find(rule.bytes.begin(), rule.bytes.end(), d.at) == rule.bytes.end()) continue;
        for (const uint16_t at : rule.bytes) {
          if (at == d.at) continue;
          if (digit_of[at] < 0) return;  // (an orientation of another part: not laid out so)
          d.others.push_back(static_cast<uint8_t>(digit_of[at]));
        }
      }
    }
    std::vector<uint8_t> first(digit_of.size(), 0);
    index_.UnrankOuter(0, first.data());
    std::vector<DigitBlock> blocks(static_cast<size_t>(block_count_));
    for (int b = 0; b < block_count_; ++b) {
      const CompiledMoves::Block& block = moves_.block(b);
      DigitBlock& db = blocks[static_cast<size_t>(b)];
      for (const auto& [tests, out] : {std::pair{&block.tests, &db.tests}, std::pair{&block.tests_after, &db.tests_after}}) {
        for (const CompiledMoves::Test& t : *tests) {
          const int j = digit_of[t.at];
          if (j >= 0) {
            out->emplace_back(static_cast<uint8_t>(j), t.value);
          } else if (!constant[t.at]) {
            return;  // a guard reads something else
          } else if (first[t.at] != t.value) {
            db.never = true;
          }
        }
      }
      for (size_t j = 0; j < digits.size(); ++j) {
        const uint16_t at = digits[j].at;
        if (block.source[at] != at || block.modulus[at] != digits[j].k) return;  // moved, or not a twist of k
        if (block.add[at] != 0) db.adds.emplace_back(static_cast<uint8_t>(j), block.add[at]);
      }
    }
    digits_ = std::move(digits);
    digit_blocks_ = std::move(blocks);
    // Moves whose blocks each test one digit, the same, at values that tell them apart
    // (a knob's four blocks, one for each value it shows): the block that applies, or
    // applied, read from a table by that digit.
    key_digit_.assign(static_cast<size_t>(move_count_), -1);
    for (int m = 0; m < move_count_; ++m) {
      const int first = moves_.first_block(m), last = moves_.first_block(m + 1);
      const DigitBlock& one = digit_blocks_[static_cast<size_t>(first)];
      if (one.tests.size() != 1 || one.tests_after.size() != 1) continue;
      const uint8_t key = one.tests[0].first;
      if (one.tests_after[0].first != key || digits_[key].k > kMostKeyValues) continue;
      std::vector<int> ahead(kMostKeyValues, -1), back(kMostKeyValues, -1);
      bool apart = true;
      for (int b = first; b < last && apart; ++b) {
        const DigitBlock& db = digit_blocks_[static_cast<size_t>(b)];
        apart = !db.never && db.tests.size() == 1 && db.tests_after.size() == 1 && db.tests[0].first == key &&
                db.tests_after[0].first == key && db.tests[0].second < kMostKeyValues &&
                db.tests_after[0].second < kMostKeyValues && ahead[db.tests[0].second] < 0 &&
                back[db.tests_after[0].second] < 0;
        if (!apart) break;
        ahead[db.tests[0].second] = b;
        back[db.tests_after[0].second] = b;
      }
      if (!apart) continue;
      key_digit_[static_cast<size_t>(m)] = key;
      key_ahead_.resize(static_cast<size_t>(move_count_) * kMostKeyValues, -1);
      key_back_.resize(key_ahead_.size(), -1);
      std::copy(ahead.begin(), ahead.end(), key_ahead_.begin() + static_cast<std::ptrdiff_t>(m * kMostKeyValues));
      std::copy(back.begin(), back.end(), key_back_.begin() + static_cast<std::ptrdiff_t>(m * kMostKeyValues));
    }
  }

  // The block of move m that applies to (`back`: made) the state of these digits, -1 if
  // none, m's blocks tried in turn where m has no key digit.
  int DigitBlockOf(int m, const uint8_t* digits, uint64_t o, bool back, uint64_t* to) const {
    const int key = key_digit_[static_cast<size_t>(m)];
    if (key >= 0) {
      const int b = (back ? key_back_ : key_ahead_)[static_cast<size_t>(m) * kMostKeyValues + digits[key]];
      return b >= 0 && DigitStep(b, digits, o, back, to) ? b : -1;
    }
    // (Without a key digit, several blocks of m may have made a state: TopDownDigits asks
    // each, and only the one that applies is asked for here.)
    for (int b = moves_.first_block(m); b < moves_.first_block(m + 1); ++b) {
      if (DigitStep(b, digits, o, back, to)) return b;
    }
    return -1;
  }

  // TopDown and BottomUp where outer numbers are stepped as numbers and the inner part is
  // one number (the knobs): no steps made, each state's entry read and claimed at once.
  void TopDownDigits(int d, uint64_t o, Worker* w) {
    if (Get(o) != ValueOf(d)) return;
    uint8_t digits[kMostDigits];
    Digits(o, digits);
    const uint8_t to = ValueOf(d + 1);
    for (int m = 0; m < move_count_; ++m) {
      uint64_t there = 0;
      if (key_digit_[static_cast<size_t>(m)] >= 0) {
        if (DigitBlockOf(m, digits, o, /*back=*/true, &there) >= 0 && Get(there) == Unseen()) {
          w->found += Claim(there, to) ? 1 : 0;
        }
        continue;
      }
      for (int b = moves_.first_block(m); b < moves_.first_block(m + 1); ++b) {
        if (DigitStep(b, digits, o, /*back=*/true, &there) && Get(there) == Unseen()) {
          w->found += Claim(there, to) ? 1 : 0;
        }
      }
    }
  }

  void BottomUpDigits(int d, uint64_t o, Worker* w) {
    if (Get(o) != Unseen()) return;
    uint8_t digits[kMostDigits];
    Digits(o, digits);
    const uint8_t from = ValueOf(d);
    for (int m = 0; m < move_count_; ++m) {
      uint64_t there = 0;
      if (DigitBlockOf(m, digits, o, /*back=*/false, &there) >= 0 && Get(there) == from) {
        w->found += Claim(o, ValueOf(d + 1)) ? 1 : 0;
        return;
      }
    }
  }

  // The orientations of outer number o, by digit.
  void Digits(uint64_t o, uint8_t* out) const {
    for (size_t j = 0; j < digits_.size(); ++j) {
      const Digit& d = digits_[j];
      uint64_t v = 0;
      if (d.shift >= 0) {
        v = o & (d.radix - 1);
        o >>= d.shift;
      } else {
        v = o % d.radix;
        o /= d.radix;
      }
      out[j] = static_cast<uint8_t>(v * d.div);
    }
    for (size_t j = 0; j < digits_.size(); ++j) {
      const Digit& d = digits_[j];
      if (d.div == 1) continue;
      int others = 0;
      for (const uint8_t i : d.others) others += out[i];
      out[j] = static_cast<uint8_t>(out[j] + ((d.value - others) % d.modulus + d.modulus) % d.modulus);
    }
  }

  // Block b's step from outer number o (its digits), done or undone (`back`: from the state
  // it made to the one it applied to); false where its tests do not hold.
  bool DigitStep(int b, const uint8_t* digits, uint64_t o, bool back, uint64_t* to) const {
    const DigitBlock& db = digit_blocks_[static_cast<size_t>(b)];
    if (db.never) return false;
    for (const auto& [j, value] : back ? db.tests_after : db.tests) {
      if (digits[j] != value) return false;
    }
    for (const auto& [j, add] : db.adds) {
      const Digit& d = digits_[j];
      unsigned v = digits[j] + (back ? d.k - add : add);
      if (v >= d.k) v -= d.k;
      o += (uint64_t{v / d.div} - digits[j] / d.div) * d.weight;  // modulo 2^64: the digit's change
    }
    *to = o;
    return true;
  }

  // Every move's step from outer number o (`state` is scratch).
  void OuterSteps(uint64_t o, uint8_t* state, Step* steps, MapCache* cache) {
    if (!digit_blocks_.empty()) {
      uint8_t digits[kMostDigits];
      Digits(o, digits);
      // Only a step's block and outer number are read on this path: the rest stays as the
      // worker made it.
      for (int m = 0; m < move_count_; ++m) {
        const int b = DigitBlockOf(m, digits, o, /*back=*/false, &steps[m].outer);
        steps[m].block = b >= 0 ? static_cast<uint32_t>(b) : kNoMove;
      }
      return;
    }
    uint8_t next[4096];
    OuterState(o, state);
    for (int m = 0; m < move_count_; ++m) {
      const int b = moves_.BlockAt(m, state);
      if (b < 0) {
        steps[m] = Step{};
        continue;
      }
      moves_.Transform(b, state, next);
      steps[m] = StepTo(state, next, b, /*back=*/false, cache);
      steps[m].free = free_ && Free(b, next);
    }
  }

  // Every block's step back from outer number o: the outer number of the state that the
  // block takes to o's states, where the block applies to it (its guards hold there).
  void PredecessorSteps(uint64_t o, uint8_t* state, Step* steps, MapCache* cache) {
    if (!digit_blocks_.empty()) {
      uint8_t digits[kMostDigits];
      Digits(o, digits);
      for (int b = 0; b < block_count_; ++b) {
        const bool held = DigitStep(b, digits, o, /*back=*/true, &steps[b].outer);
        steps[b].block = held ? static_cast<uint32_t>(b) : kNoMove;
      }
      return;
    }
    uint8_t before[4096];
    OuterState(o, state);
    for (int b = 0; b < block_count_; ++b) {
      // A block whose guard cannot have held is passed over before its predecessor is made
      // (a knight's 96 blocks: 8 or fewer hold where the blank is).
      if (moves_.HeldBefore(b, state)) {
        moves_.Untransform(b, state, before);
        steps[b] = StepTo(state, before, b, /*back=*/true, cache);
      } else {
        steps[b] = Step{};
      }
      steps[b].free = free_ && Free(b, state);
    }
  }

  // Block b, which has made `after`, moved no counted piece.
  bool Free(int b, const uint8_t* after) const {
    for (uint16_t i : moved_[static_cast<size_t>(b)]) {
      if (options_.counted[after[i]]) return false;
    }
    return true;
  }

  // The states from which a free block leads to a state of the closure's last round join
  // layer d, until a round adds none; returns how many joined.
  uint64_t Closure(int d) {
    uint64_t joined = 0;
    for (;;) {
      work_.swap(fresh_);
      std::fill(fresh_.begin(), fresh_.end(), 0);
      const uint64_t found = OverOuters(block_count_, [&](uint64_t o, Worker* w) { FreeSteps(d, o, w); });
      if (found == 0) return joined;
      joined += found;
    }
  }

  // The inner number that step s reaches from inner number i (with symmetry classes, the
  // one its class keeps).
  uint64_t InnerAfter(const Step& s, uint64_t i, const std::vector<uint32_t>& inner_table, MapCache* cache) const {
    if (!order_) return inner_table[i * static_cast<uint64_t>(block_count_) + s.block];
    uint64_t there = 0;
    if (arrangement_) {
      there = s.bits != nullptr ? permuter_.Permute(i, s.bits, s.swap) : permuter_.Permute(i, s.slots.data(), s.swap);
    } else {
      there = s.map != nullptr ? s.map[i] : index_.PermuteOrder(i, s.slots.data(), index_.Relabel(s.element));
    }
    return symmetric_ ? Least(s.outer, there, cache) : there;
  }

  // The least of an inner number's images by the symmetries that fix its block's outer
  // number (layout 4): the one its class keeps.
  uint64_t Least(uint64_t block, uint64_t inner, MapCache* cache) const {
    uint64_t least = inner;
    for (const DefinedIndex::Fixing& f : index_.Stabilizer(block)) {
      uint64_t image = 0;
      if (arrangement_) {
        image = permuter_.Permute(inner, f.slots.data(), f.swap);
      } else {
        const uint32_t* map = maps_.Find(f.slots.data(), f.element, cache);
        image = map != nullptr ? map[inner] : index_.PermuteOrder(inner, f.slots.data(), index_.Relabel(f.element));
      }
      least = std::min(least, image);
    }
    return least;
  }

  template <class Worker>
  void RunThreads(Worker& worker) const {
    std::vector<std::thread> pool;
    for (int t = 1; t < threads_; ++t) pool.emplace_back(worker);
    worker();
    for (auto& t : pool) t.join();
  }

  // Layer d + 1 from layer d; returns how many states it holds.
  uint64_t Layer(int d, bool bottom_up) {
    if (!digit_blocks_.empty() && inner_ == 1) {
      return OverOuters(0, [&](uint64_t o, Worker* w) {
        if (bottom_up) {
          BottomUpDigits(d, o, w);
        } else {
          TopDownDigits(d, o, w);
        }
      });
    }
    return OverOuters(bottom_up ? move_count_ : block_count_, [&](uint64_t o, Worker* w) {
      if (bottom_up) {
        BottomUp(d, o, w);
      } else {
        TopDown(d, o, w);
      }
    });
  }

  // Calls fn(o, worker) for every outer number, the threads taking runs of them in turn,
  // each with a Worker of its own for `ways` steps; returns what the workers found.
  template <class Fn>
  uint64_t OverOuters(int ways, Fn&& fn) {
    return OverRuns(outer_, std::max<uint64_t>(1, (uint64_t{1} << 16) / inner_), ways, fn);
  }
  // The same for each k in [0, count), runs of `run` at a time.
  template <class Fn>
  uint64_t OverRuns(uint64_t count, uint64_t run, int ways, Fn&& fn) {
    std::atomic<uint64_t> next{0};
    std::atomic<uint64_t> found{0};
    auto worker = [&] {
      Worker mine(*this, ways);
      for (uint64_t first; (first = next.fetch_add(run)) < count;) {
        for (uint64_t k = first; k < std::min(count, first + run); ++k) fn(k, &mine);
      }
      found.fetch_add(mine.found);
    };
    RunThreads(worker);
    return found.load();
  }

  // What one thread keeps between outer numbers.
  struct Worker {
    Worker(const Search& search, int ways)
        : state(static_cast<size_t>(search.index_.state_bytes()), 0), steps(static_cast<size_t>(ways)) {}
    std::vector<uint8_t> state;
    std::vector<Step> steps;
    std::vector<uint32_t> bits;  // each step's tables of bits (ArrangementPermuter::Tables)
    std::vector<uint32_t> inner;  // the inner numbers of one outer number's states at hand
    std::vector<uint64_t> scratch;  // FreeGroups' parents of components, ClosureGroups' union
    MapCache cache;
    uint64_t found = 0;
  };

  // An arrangement's steps with tables of bits, where the permuter keeps masks: a step is
  // taken from many states of its outer number.
  void TableSteps(Worker* w) const {
    if (!arrangement_ || !permuter_.fast()) return;
    w->bits.resize(w->steps.size() * 1024);
    for (size_t k = 0; k < w->steps.size(); ++k) {
      Step& s = w->steps[k];
      if (s.block == kNoMove) continue;
      permuter_.Tables(s.slots.data(), &w->bits[k * 1024]);
      s.bits = &w->bits[k * 1024];
    }
  }

  // Top-down from outer number o: each block's step back, taken from every state of layer d
  // there in turn (the step's target states then share a few pages), marks the unseen
  // states from which the block leads to them.
  void TopDown(int d, uint64_t o, Worker* w) {
    const uint64_t base = o * inner_;
    w->inner.clear();
    ForEach(base, base + inner_, ValueOf(d), [&](uint64_t at) { w->inner.push_back(static_cast<uint32_t>(at - base)); });
    if (w->inner.empty()) return;
    // Once per outer number that has a state to visit: a table of these would cost memory
    // and save no time (docs/PERFORMANCE.md, "Definitions").
    PredecessorSteps(o, w->state.data(), w->steps.data(), &w->cache);
    TableSteps(w);
    const uint8_t to = ValueOf(d + 1);
    for (const Step& s : w->steps) {
      if (s.block == kNoMove || s.free) continue;
      Mark(s, to, w);
    }
  }

  // Every unseen state that step s takes back from w's states gets `value` (folded: layer d).
  void Mark(const Step& s, uint8_t value, Worker* w) {
    const uint64_t target = s.outer * inner_;
    if (folded_) {
      for (uint32_t i : w->inner) {
        const uint64_t there = InnerAfter(s, i, inner_back_, &w->cache);
        if (!Seen(s.outer, there)) w->found += ClaimBit(s.outer, there, value) ? 1 : 0;
      }
      return;
    }
    if (s.map != nullptr && !symmetric_) {
      for (uint32_t i : w->inner) {
        const uint64_t there = target + s.map[i];
        if (Get(there) == Unseen()) w->found += Claim(there, value) ? 1 : 0;
      }
    } else {
      for (uint32_t i : w->inner) {
        const uint64_t there = target + InnerAfter(s, i, inner_back_, &w->cache);
        if (Get(there) == Unseen()) w->found += Claim(there, value) ? 1 : 0;
      }
    }
  }

  // Bottom-up in outer number o: each unseen state there looks for a move into layer d (a
  // costing one).
  void BottomUp(int d, uint64_t o, Worker* w) {
    const uint64_t base = o * inner_;
    const uint8_t from = ValueOf(d);
    const uint8_t to = ValueOf(d + 1);
    bool stepped = false;
    const bool holes = symmetric_ && !index_.Stabilizer(o).empty();
    ForEach(base, base + inner_, Unseen(), [&](uint64_t at) {
      const uint64_t i = at - base;
      if (holes && Least(o, i, &w->cache) != i) return;  // no state's number
      if (!stepped) {
        OuterSteps(o, w->state.data(), w->steps.data(), &w->cache);
        TableSteps(w);
        stepped = true;
      }
      for (const Step& s : w->steps) {
        if (s.block == kNoMove || s.free) continue;
        if (Get(s.outer * inner_ + InnerAfter(s, i, inner_table_, &w->cache)) == from) {
          w->found += Claim(at, to) ? 1 : 0;
          return;
        }
      }
    });
  }

  // The closure's round in outer number o: the free blocks' steps back from the states
  // marked in the last round.
  void FreeSteps(int d, uint64_t o, Worker* w) {
    const uint64_t base = o * inner_;
    w->inner.clear();
    for (uint64_t i = base; i < base + inner_; ++i) {
      if ((work_[i >> 6] >> (i & 63)) & 1) w->inner.push_back(static_cast<uint32_t>(i - base));
    }
    if (w->inner.empty()) return;
    PredecessorSteps(o, w->state.data(), w->steps.data(), &w->cache);
    for (const Step& s : w->steps) {
      if (s.block != kNoMove && s.free) Mark(s, ValueOf(d), w);
    }
  }

  // Folded, top-down from outer number o: as TopDown, over the bits of layer d.
  void TopDownBits(int d, uint64_t o, Worker* w) {
    if (!layer_active_[o]) return;
    Collect(layer_, o, &w->inner);
    if (w->inner.empty()) return;
    PredecessorSteps(o, w->state.data(), w->steps.data(), &w->cache);
    for (const Step& s : w->steps) {
      if (s.block != kNoMove && !s.free) Mark(s, static_cast<uint8_t>(d + 1), w);
    }
  }

  // Folded, bottom-up in outer number o: each unseen state looks for a costing move into
  // layer d. The unseen states are read a word of bits at a time, the words of seen
  // states passed over at once (the last layers' few states are among billions seen): o's
  // seen bits change during the pass only by this thread's own claims.
  void BottomUpBits(int d, uint64_t o, Worker* w) {
    bool stepped = false;
    const uint64_t tail = inner_ % 64;
    for (uint64_t k = 0; k < stride_; ++k) {
      uint64_t open = ~std::atomic_ref<uint64_t>(seen_[o * stride_ + k]).load(std::memory_order_relaxed);
      if (k + 1 == stride_ && tail != 0) open &= (uint64_t{1} << tail) - 1;  // no state's bits
      for (; open != 0; open &= open - 1) {
        const uint64_t i = k * 64 + static_cast<uint64_t>(std::countr_zero(open));
        if (!stepped) {
          OuterSteps(o, w->state.data(), w->steps.data(), &w->cache);
          stepped = true;
        }
        for (const Step& s : w->steps) {
          if (s.block == kNoMove || s.free) continue;
          if (Bit(layer_, BitOf(s.outer, InnerAfter(s, i, inner_table_, &w->cache)))) {
            w->found += ClaimBit(o, i, d + 1) ? 1 : 0;
            break;
          }
        }
      }
    }
  }

  // Calls fn(i) for every i in [first, last) whose entry holds `value`.
  template <class Fn>
  void ForEach(uint64_t first, uint64_t last, uint8_t value, Fn&& fn) const {
    if (!mod3_) {
      for (uint64_t i = first; i < last; ++i) {
        if (Get(i) == value) fn(i);
      }
      return;
    }
    uint64_t i = first;
    // Entry by entry to a byte's start, then a byte of four at a time.
    for (; i < last && (i & 3) != 0; ++i) {
      if (Get(i) == value) fn(i);
    }
    const uint8_t pattern = static_cast<uint8_t>(value * 0x55);
    for (; i + 4 <= last; i += 4) {
      const uint8_t byte =
          std::atomic_ref<uint8_t>(bytes_[i >> 2]).load(std::memory_order_relaxed) ^ pattern;
      // Pairs of bits that are 00 are entries equal to `value`.
      const uint8_t equal = static_cast<uint8_t>(~(byte | (byte >> 1)) & 0x55);
      if (equal == 0) continue;
      for (int k = 0; k < 4; ++k) {
        if (equal >> (2 * k) & 1) fn(i + static_cast<uint64_t>(k));
      }
    }
    for (; i < last; ++i) {
      if (Get(i) == value) fn(i);
    }
  }

  // Whether tests a and b cannot both hold in a state of the index: one byte, two values;
  // or one label, of which the coordinate reading both bytes holds one piece (the blank of
  // sliding tiles, the knight's empty cell).
  bool Exclusive(const CompiledMoves::Test& a, const CompiledMoves::Test& b) const {
    if (a.at == b.at) return a.value != b.value;
    if (a.value != b.value) return false;
    for (const DefinedIndex::Coordinate& c : index_.coordinates()) {
      if (c.kind != DefinedIndex::Coordinate::Kind::kLabels) continue;
      const bool both = std::find(c.bytes.begin(), c.bytes.end(), a.at) != c.bytes.end() &&
                        std::find(c.bytes.begin(), c.bytes.end(), b.at) != c.bytes.end();
      if (!both) continue;
      const uint8_t code = c.code[a.value];
      return code != 0xFF && c.counts[code] == 1;
    }
    return false;
  }

  // Whether no two blocks of one move can apply in one state of the index, seen from their
  // tests alone (false when that takes too long to tell).
  bool BlocksExclusive() const {
    uint64_t work = 0;
    for (int m = 0; m < move_count_; ++m) {
      for (int b1 = moves_.first_block(m); b1 < moves_.first_block(m + 1); ++b1) {
        for (int b2 = b1 + 1; b2 < moves_.first_block(m + 1); ++b2) {
          bool apart = false;
          for (const CompiledMoves::Test& t1 : moves_.block(b1).tests) {
            for (const CompiledMoves::Test& t2 : moves_.block(b2).tests) {
              if (++work > (uint64_t{1} << 22)) return false;
              apart = apart || Exclusive(t1, t2);
            }
          }
          if (!apart) return false;
        }
      }
    }
    return true;
  }

  // No two blocks of one move apply in a reachable state: proved from the blocks' tests
  // where it can be (BlocksExclusive), else looked for. Guards read outer coordinates
  // only, so one test per outer number with a reached state covers its inner states
  // (with symmetry classes, every outer number of a reached block's class: a symmetry may
  // take one move's blocks to another's).
  absl::Status CheckOneBlock() const {
    if (BlocksExclusive()) return absl::OkStatus();
    std::atomic<uint64_t> next{0};
    std::atomic<uint64_t> broken{UINT64_MAX};  // the smallest outer number that breaks it
    constexpr uint64_t kChunk = 256;
    const uint64_t outers = index_.raw_outer_size();
    auto worker = [&] {
      std::vector<uint8_t> state(static_cast<size_t>(index_.state_bytes()), 0);
      for (uint64_t first; (first = next.fetch_add(kChunk)) < outers;) {
        for (uint64_t o = first; o < std::min(outers, first + kChunk); ++o) {
          const uint64_t block = index_.BlockOf(o).block;
          bool reached = false;
          for (uint64_t i = block * inner_; i < (block + 1) * inner_ && !reached; ++i) {
            reached = Get(i) != Unseen();
          }
          if (!reached) continue;
          index_.UnrankOuter(o, state.data());
          for (int m = 0; m < move_count_; ++m) {
            int holding = 0;
            for (int b = moves_.first_block(m); b < moves_.first_block(m + 1); ++b) {
              holding += moves_.Holds(b, state.data()) ? 1 : 0;
            }
            if (holding > 1) {
              uint64_t seen = broken.load();
              while (o < seen && !broken.compare_exchange_weak(seen, o)) {
              }
            }
          }
        }
      }
    };
    RunThreads(worker);
    if (broken.load() == UINT64_MAX) return absl::OkStatus();
    // Name the first: a reached state of that outer number, and the blocks.
    const uint64_t o = broken.load();
    uint64_t i = index_.BlockOf(o).block * inner_;
    while (Get(i) == Unseen()) ++i;
    std::vector<uint8_t> state(static_cast<size_t>(index_.state_bytes()), 0);
    index_.Unrank(i, state.data());
    // Its image of outer number o.
    std::vector<uint8_t> image(state.size());
    for (int e = 1; e < index_.group_order() && index_.RankOuter(state.data()) != o; ++e) {
      index_.ApplyElement(e, state.data(), image.data());
      if (index_.RankOuter(image.data()) == o) state = image;
    }
    for (int m = 0; m < move_count_; ++m) {
      std::vector<std::string> lines;
      for (int b = moves_.first_block(m); b < moves_.first_block(m + 1); ++b) {
        if (moves_.Holds(b, state.data())) {
          const DefinedMove& move = definition_.moves()[static_cast<size_t>(m)];
          lines.push_back(Cat(move.blocks[static_cast<size_t>(b - moves_.first_block(m))].line));
        }
      }
      if (lines.size() > 1) {
        return absl::InvalidArgumentError(
            Cat("Move ", definition_.moves()[static_cast<size_t>(m)].name, ": its blocks at lines ",
                Join(lines, " and "), " both apply in the reachable state ",
                definition_.FormatCompact(DefinedState(state.begin(), state.end())),
                " (at most one block of a move may apply in any state)"));
      }
    }
    return absl::InternalError("a state with two blocks of one move applying was not found again");
  }

  void Report(int depth, uint64_t states, uint64_t total,
              std::chrono::steady_clock::time_point started, bool bottom_up) const {
    if (!options_.on_layer) return;
    BfsLayer layer;
    layer.depth = depth;
    layer.states = states;
    layer.total = total;
    layer.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    layer.bottom_up = bottom_up;
    options_.on_layer(layer);
  }

  const Definition& definition_;
  const CompiledMoves& moves_;
  const DefinedIndex& index_;
  const DefinedSearchOptions& options_;
  const bool mod3_;
  const uint64_t inner_;
  const uint64_t outer_;
  // The inner part is an order or an arrangement: steps carry their slots' permutation
  // and maps.
  const bool order_;
  const bool arrangement_;  // an arrangement: the slots are read from the blocks' bytes
  const bool symmetric_;    // symmetry classes (layout 4): steps lead to blocks' outer numbers
  // For an arrangement: by byte of a state, its position in the arrangement's coordinate
  // (-1: none); by block, the byte each byte of a state comes from when the block is undone.
  std::vector<int> position_of_;
  std::vector<std::vector<uint16_t>> undone_from_;
  ArrangementPermuter permuter_{index_};
  const bool free_;   // some blocks cost nothing (DefinedSearchOptions::counted)
  std::vector<std::vector<uint16_t>> moved_;  // by block: the bytes it moves
  std::vector<uint64_t> fresh_;  // marks of the states set since the closure's last round
  std::vector<uint64_t> work_;   // those of the round at hand
  // SearchFolded: the states seen, those of the layer at hand, and where each outer number
  // folds; the folded table's bytes.
  bool folded_ = false;
  uint64_t stride_ = 0;  // words of bits an outer number takes
  std::vector<uint64_t> seen_;
  std::vector<uint64_t> layer_;
  std::vector<uint8_t> layer_active_, fresh_active_, work_active_;  // by outer: any bit set
  std::vector<uint64_t> fold_outer_;
  uint8_t* fold_bytes_ = nullptr;
  // FreeGroups: the outer numbers by group, each group's first among them, and each outer
  // number's component (the place in its group of the component's root).
  std::vector<uint64_t> group_start_;
  std::vector<uint32_t> group_outers_;
  std::vector<uint32_t> component_;
  mutable OrderMaps maps_;  // found as the threads need them
  const int move_count_;
  const int block_count_;
  std::vector<DigitBlock> digit_blocks_;  // MakeDigitSteps
  std::vector<Digit> digits_;
  std::vector<int> key_digit_;  // by move: the digit its blocks test, or -1 (MakeDigitSteps)
  std::vector<int> key_ahead_, key_back_;  // [move * kMostKeyValues + orientation]: a block or -1
  const int threads_;
  uint8_t* bytes_ = nullptr;
  std::vector<uint32_t> inner_table_;  // [inner][block]: the block's effect
  std::vector<uint32_t> inner_back_;   // [inner][block]: what the block takes there
};

}  // namespace

std::vector<uint64_t> ByteHistogram(const PackedTable& entries) {
  std::vector<uint64_t> histogram(1, 0);
  const uint8_t* bytes = entries.data();
  for (uint64_t i = 0; i < entries.size(); ++i) {
    const uint8_t d = bytes[i];
    if (d == PackedTable::kByteUncovered) continue;
    if (histogram.size() <= d) histogram.resize(static_cast<size_t>(d) + 1, 0);
    ++histogram[d];
  }
  return histogram;
}

bool FoldsInto(const DefinedIndex& index, const DefinedIndex& laid) {
  return index.inner_is_order() && laid.inner_is_order() &&
         index.order_pieces() == laid.order_pieces() && index.inner_size() == laid.inner_size();
}

absl::StatusOr<DefinedSearchResult> SearchFolded(const Definition& definition,
                                                 const CompiledMoves& moves,
                                                 const DefinedIndex& index,
                                                 const DefinedIndex& laid,
                                                 const DefinedSearchOptions& options) {
  if (options.counted.empty() || !FoldsInto(index, laid)) {
    return absl::InternalError("SearchFolded: no free pieces, or indexes that do not fold");
  }
  return Search(definition, moves, index, options).RunFolded(laid);
}

TableEncoding DefinedEncoding(const CompiledMoves& moves) {
  return moves.undirected() ? storage::v1::DISTANCE_MOD3 : storage::v1::DISTANCE_BYTE;
}

absl::StatusOr<DefinedSearchResult> SearchDefinition(const Definition& definition,
                                                     const CompiledMoves& moves,
                                                     const DefinedIndex& index,
                                                     const DefinedSearchOptions& options) {
  if (!definition.illegal().empty()) {
    return absl::InvalidArgumentError(Cat("Illegal (line ", definition.illegal()[0].line,
                                          "): a complete table's search does not read Illegal lines yet; its "
                                          "projections' tables guide a live search instead"));
  }
  return Search(definition, moves, index, options).Run();
}

}  // namespace puzzledb
