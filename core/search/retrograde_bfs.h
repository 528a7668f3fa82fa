// Retrograde breadth-first search: the distance to the goal of every state of a space,
// layer by layer from the goals, one byte per state.
//
// Each layer is found one of two ways, whichever is cheaper for it:
//  - top-down: scan for the states of layer d and mark their unseen predecessors d + 1;
//  - bottom-up: scan the unseen states and mark those with a move into layer d.
// Top-down costs about (layer size x moves), bottom-up about (unseen states x moves), so
// the late layers, once the layer outgrows the states still unseen, go bottom-up. Both
// scan the index range in order, split into chunks that the threads take in turn.
#ifndef PUZZLEDB_CORE_SEARCH_RETROGRADE_BFS_H_
#define PUZZLEDB_CORE_SEARCH_RETROGRADE_BFS_H_

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#include "core/util/huge_buffer.h"
#include "core/model/model.h"

namespace puzzledb {

struct BfsLayer {
  int depth = 0;
  uint64_t states = 0;  // states at this distance
  uint64_t total = 0;   // states at this distance or less
  double seconds = 0;   // since the search started
  bool bottom_up = false;
};

struct BfsOptions {
  int max_depth = -1;  // stop after this layer; -1: until no new state is found
  int threads = 0;     // 0: one per hardware thread
  // Called after every layer (from the calling thread).
  std::function<void(const BfsLayer&)> on_layer;
  // Asked before every layer; true stops the search (the result is then incomplete).
  std::function<bool()> stop;
};

struct BfsResult {
  static constexpr uint8_t kUnseen = 0xFF;
  HugeBuffer distance;             // per rank; kUnseen where not reached
  std::vector<uint64_t> histogram; // states per distance, 0..max_distance
  bool complete = false;           // the search ran out of states (not stopped by max_depth)
  bool stopped = false;            // BfsOptions::stop ended it early
  double seconds = 0;

  int max_distance() const { return static_cast<int>(histogram.size()) - 1; }
  uint64_t covered() const {
    uint64_t n = 0;
    for (uint64_t h : histogram) n += h;
    return n;
  }
};

template <IndexedSpace S>
class RetrogradeBfs {
 public:
  using State = typename S::State;
  static constexpr uint8_t kUnseen = BfsResult::kUnseen;
  // A space with holes (indices that are no state's rank, core/model/model.h).
  static constexpr bool kHoles = requires { S::kHoles; };

  explicit RetrogradeBfs(const S& space) : space_(space) {}

  BfsResult Run(const BfsOptions& options) {
    const auto started = std::chrono::steady_clock::now();
    const uint64_t n = space_.Size();
    BfsResult result;
    result.distance = HugeBuffer(n, kUnseen);
    dist_ = result.distance.data();
    threads_ = options.threads > 0 ? options.threads
                                   : std::max(1u, std::thread::hardware_concurrency());

    uint64_t layer = 0;
    for (const State& goal : space_.Goals()) {
      uint8_t& slot = dist_[space_.Rank(goal)];
      if (slot == kUnseen) {
        slot = 0;
        ++layer;
      }
    }
    uint64_t unseen = n - layer;
    result.histogram.push_back(layer);
    Report(options, result, 0, layer, false, started);
    // Layers are numbered in a byte; 254 is the deepest a table can hold.
    const int last = options.max_depth < 0 ? 254 : std::min(options.max_depth, 254);
    for (int d = 0; d < last && layer > 0; ++d) {
      if (options.stop && options.stop()) {
        result.stopped = true;
        break;
      }
      // Both locate and prefetch every move's entry: top-down of every state in layer d,
      // bottom-up of every unseen state (which then stops reading at its first move into
      // layer d). So the smaller set wins; measured on the knobs, switching when the layer
      // outgrew a third of the unseen states (as before) made the search 20 % slower
      // (docs/PERFORMANCE.md). The knight's layers never outgrow the unseen states.
      const bool bottom_up = layer > unseen;
      if (bottom_up) {
        layer = Parallel(d, &RetrogradeBfs::BottomUpChunk);
      } else {
        Parallel(d, &RetrogradeBfs::TopDownChunk);
        layer = Parallel(d, &RetrogradeBfs::CountChunk);
      }
      if (layer == 0) break;
      unseen -= layer;
      result.histogram.push_back(layer);
      Report(options, result, d + 1, layer, bottom_up, started);
    }
    result.complete = !result.stopped && (layer == 0 || unseen == 0);
    result.seconds = Seconds(started);
    return result;
  }

 private:
  static constexpr uint64_t kChunk = uint64_t{1} << 16;
  using ChunkFn = uint64_t (RetrogradeBfs::*)(int, uint64_t, uint64_t);

  static double Seconds(std::chrono::steady_clock::time_point since) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
  }

  void Report(const BfsOptions& options, const BfsResult& result, int depth, uint64_t states,
              bool bottom_up, std::chrono::steady_clock::time_point started) const {
    if (!options.on_layer) return;
    options.on_layer({depth, states, result.covered(), Seconds(started), bottom_up});
  }

  // Runs `fn` over all chunks on all threads; returns the number of states marked d + 1.
  uint64_t Parallel(int d, ChunkFn fn) {
    std::atomic<uint64_t> next_chunk{0};
    std::atomic<uint64_t> found{0};
    const uint64_t n = space_.Size();
    auto worker = [&] {
      uint64_t mine = 0;
      while (true) {
        const uint64_t begin = next_chunk.fetch_add(kChunk, std::memory_order_relaxed);
        if (begin >= n) break;
        mine += (this->*fn)(d, begin, std::min(begin + kChunk, n));
      }
      found.fetch_add(mine, std::memory_order_relaxed);
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads_; ++t) pool.emplace_back(worker);
    worker();
    for (auto& t : pool) t.join();
    return found.load();
  }

  uint8_t Load(uint64_t i) const {
    return std::atomic_ref<uint8_t>(dist_[i]).load(std::memory_order_relaxed);
  }

  // Calls fn(i) for every i in [begin, end) whose byte equals `value`, skipping eight bytes
  // at a time where none does.
  template <class F>
  void ForEachEqual(uint8_t value, uint64_t begin, uint64_t end, F&& fn) {
    const uint64_t pattern = 0x0101010101010101ull * value;
    uint64_t i = begin;
    for (; i + 8 <= end; i += 8) {
      uint64_t word;
      std::memcpy(&word, dist_ + i, 8);
      const uint64_t x = word ^ pattern;  // zero bytes where equal
      if (((x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull) == 0) continue;
      for (uint64_t j = i; j < i + 8; ++j) {
        if (Load(j) == value) fn(j);
      }
    }
    for (; i < end; ++i) {
      if (Load(i) == value) fn(i);
    }
  }

  // Marks the unseen predecessors of layer d with d + 1. Another thread may mark the same
  // state in this layer: both write the same value, so a plain (relaxed) store is enough,
  // and the marks are counted afterwards (CountChunk) rather than by an exchange here,
  // whose lock would stop the processor from overlapping the cache misses of one state's
  // predecessors with the next's (they are what a layer costs).
  // The predecessors' indices are gathered in batches, each prefetched as it is found and
  // read when the batch is full, so that many misses are in flight at once.
  uint64_t TopDownChunk(int d, uint64_t begin, uint64_t end) {
    const auto next = static_cast<uint8_t>(d + 1);
    constexpr int kBatch = 128;
    std::array<uint64_t, kBatch + S::kNumMoves> batch;
    int pending = 0;
    auto flush = [&] {
      for (int k = 0; k < pending; ++k) {
        if (Load(batch[k]) == kUnseen) {
          std::atomic_ref<uint8_t>(dist_[batch[k]]).store(next, std::memory_order_relaxed);
        }
      }
      pending = 0;
    };
    ForEachEqual(static_cast<uint8_t>(d), begin, end, [&](uint64_t i) {
      const State s = space_.Unrank(i);
      for (int m = 0; m < MoveCount(space_); ++m) {
        State p;
        if (!space_.Undo(s, m, &p)) continue;
        const uint64_t j = space_.Rank(p);
        __builtin_prefetch(dist_ + j);
        batch[pending++] = j;
      }
      if (pending >= kBatch) flush();
    });
    flush();
    return 0;
  }

  // The states marked d + 1.
  uint64_t CountChunk(int d, uint64_t begin, uint64_t end) {
    uint64_t count = 0;
    ForEachEqual(static_cast<uint8_t>(d + 1), begin, end, [&](uint64_t) { ++count; });
    return count;
  }

  // Unseen states are taken in batches: every move's entry of every state in the batch is
  // located and prefetched first, then each state reads its moves in order and stops at the
  // first into layer d, so that the misses of a batch overlap.
  uint64_t BottomUpChunk(int d, uint64_t begin, uint64_t end) {
    uint64_t marked = 0;
    const auto layer = static_cast<uint8_t>(d);
    const auto next = static_cast<uint8_t>(d + 1);
    constexpr int kBatch = 16;
    struct Pending {
      uint64_t index;
      int count;
      std::array<uint64_t, S::kNumMoves> ranks;
    };
    std::array<Pending, kBatch> batch;
    int pending = 0;
    auto flush = [&] {
      for (int b = 0; b < pending; ++b) {
        const Pending& p = batch[b];
        for (int k = 0; k < p.count; ++k) {
          if (Load(p.ranks[k]) == layer) {
            // Only this thread writes state p.index in a bottom-up layer.
            std::atomic_ref<uint8_t>(dist_[p.index]).store(next, std::memory_order_relaxed);
            ++marked;
            break;
          }
        }
      }
      pending = 0;
    };
    ForEachEqual(kUnseen, begin, end, [&](uint64_t i) {
      const State s = space_.Unrank(i);
      if constexpr (kHoles) {
        if (space_.Rank(s) != i) return;  // no state's index: stays unseen
      }
      Pending& p = batch[pending];
      p.index = i;
      p.count = 0;
      for (int m = 0; m < MoveCount(space_); ++m) {
        State n;
        if (!space_.Apply(s, m, &n)) continue;
        p.ranks[p.count] = space_.Rank(n);
        __builtin_prefetch(dist_ + p.ranks[p.count]);
        ++p.count;
      }
      if (++pending == kBatch) flush();
    });
    flush();
    return marked;
  }

  const S& space_;
  uint8_t* dist_ = nullptr;
  int threads_ = 1;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_SEARCH_RETROGRADE_BFS_H_
