#include "core/puzzles/rotation_sampling.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <thread>
#include <unordered_set>

#include "core/util/bits.h"
#include "core/util/strings.h"

namespace puzzledb {
namespace {

using Ranker = CentrePlacementSpace::Ranker;
constexpr uint32_t kAllCells = (1u << RotationMoves::kCells) - 1;

// Where each cell sits on the 7x7 grid of the '#' (docs/PUZZLES.md, section 3).
constexpr std::array<std::array<int, 2>, 24> kCellXY = {{
    {2, 0}, {4, 0}, {2, 1}, {4, 1},                                  // 0..3
    {0, 2}, {1, 2}, {2, 2}, {3, 2}, {4, 2}, {5, 2}, {6, 2},          // 4..10
    {2, 3}, {4, 3},                                                  // 11, 12
    {0, 4}, {1, 4}, {2, 4}, {3, 4}, {4, 4}, {5, 4}, {6, 4},          // 13..19
    {2, 5}, {4, 5}, {2, 6}, {4, 6},                                  // 20..23
}};

std::array<std::array<int, 24>, 8> BuildSymmetries() {
  std::array<std::array<int, 24>, 8> image{};
  for (int g = 0; g < 8; ++g) {
    for (int cell = 0; cell < 24; ++cell) {
      int x = kCellXY[cell][0], y = kCellXY[cell][1];
      if (g & 1) x = 6 - x;
      if (g & 2) y = 6 - y;
      if (g & 4) std::swap(x, y);
      int to = -1;
      for (int c = 0; c < 24; ++c) {
        if (kCellXY[c][0] == x && kCellXY[c][1] == y) to = c;
      }
      image[g][cell] = to;  // the '#' maps onto itself: never -1
    }
  }
  return image;
}

}  // namespace

const std::array<std::array<int, 24>, 8>& RotationBoardSampler::Symmetries() {
  static const auto* symmetries = new std::array<std::array<int, 24>, 8>(BuildSymmetries());
  return *symmetries;
}

uint32_t RotationBoardSampler::Transform(int g, uint32_t mask) {
  const auto& image = Symmetries()[g];
  uint32_t out = 0;
  for (uint32_t m = mask; m != 0; m &= m - 1) out |= 1u << image[std::countr_zero(m)];
  return out;
}

RotationBoardSampler::RotationBoardSampler(const uint8_t* distances) : distances_(distances) {
  for (uint32_t h = 1; h < (1u << 16); h += 2) {
    if (std::popcount(h) == 8) halves_.push_back(static_cast<uint16_t>(h));
  }
}

uint8_t RotationBoardSampler::DistanceOf(uint32_t placement) const {
  return distances_[Ranker::Rank(placement)];
}

RotationBoardSampler::Split RotationBoardSampler::KthSplit(uint32_t placement, int d,
                                                           uint64_t k) const {
  const uint32_t rest = kAllCells & ~placement;
  for (uint16_t h : halves_) {
    const auto q = DepositBits(h, rest);
    const uint32_t r = rest ^ q;
    const int dq = DistanceOf(q), dr = DistanceOf(r);
    if (dq < d || dr < d) continue;
    if (k < 2) {
      Split split;
      split.q = k == 0 ? q : r;
      split.r = k == 0 ? r : q;
      split.multiplicity = 1 + (dq == d) + (dr == d);
      return split;
    }
    k -= 2;
  }
  return Split{0, 0, 0};  // k beyond the placement's splits: a caller's bug
}

absl::StatusOr<std::shared_ptr<const RotationBoardSampler::Level>> RotationBoardSampler::LevelFor(
    int d, const SearchLimits& limits) const {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = levels_.find(d); it != levels_.end()) return it->second;
  }
  // One distance counted at a time: callers that race to it wait for the first instead of
  // counting it again. A caller whose limits end the count leaves nothing behind.
  std::lock_guard<std::mutex> counting(count_mutex_);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = levels_.find(d); it != levels_.end()) return it->second;
  }
  auto level = std::make_shared<Level>();
  for (uint64_t rank = 0; rank < Ranker::kCount; ++rank) {
    if (distances_[rank] == d) level->placements.push_back(Ranker::Unrank(rank));
  }
  // One placement per orbit of the symmetries: the smallest mask of the orbit.
  auto canonical = [](uint32_t p) {
    uint32_t best = p;
    for (int g = 1; g < 8; ++g) best = std::min(best, Transform(g, p));
    return best;
  };
  std::vector<uint32_t> canon(level->placements.size());
  for (size_t i = 0; i < canon.size(); ++i) canon[i] = canonical(level->placements[i]);
  std::vector<uint32_t> reps = canon;
  std::sort(reps.begin(), reps.end());
  reps.erase(std::unique(reps.begin(), reps.end()), reps.end());

  // Per representative: its ordered splits (w) and twice its boards' share (6c1+3c2+2c3,
  // with c_m the splits of multiplicity m; see the header).
  std::vector<uint64_t> splits(reps.size()), shares(reps.size());
  std::atomic<size_t> next{0};
  std::atomic<bool> stop{false};
  absl::Status stopped;
  std::mutex stopped_mutex;
  auto worker = [&] {
    for (size_t i; !stop.load(std::memory_order_relaxed) && (i = next.fetch_add(1)) < reps.size();) {
      if ((i & 63) == 0) {
        absl::Status status = LimitsReached(limits, "counting rotation boards");
        if (!status.ok()) {
          std::lock_guard<std::mutex> lock(stopped_mutex);
          stopped = status;
          stop = true;
          return;
        }
      }
      const uint32_t rest = kAllCells & ~reps[i];
      uint64_t c[4] = {0, 0, 0, 0};
      for (uint16_t h : halves_) {
        const auto q = DepositBits(h, rest);
        const int dq = DistanceOf(q), dr = DistanceOf(rest ^ q);
        if (dq < d || dr < d) continue;
        c[1 + (dq == d) + (dr == d)] += 2;  // (q, r) and (r, q)
      }
      splits[i] = c[1] + c[2] + c[3];
      shares[i] = 6 * c[1] + 3 * c[2] + 2 * c[3];
    }
  };
  const unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1u, 4u);
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads && reps.size() > 256; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (stop) return stopped;

  level->prefix.resize(level->placements.size() + 1);
  uint64_t total_splits = 0, total_shares = 0;
  for (size_t i = 0; i < canon.size(); ++i) {
    const size_t r = static_cast<size_t>(std::lower_bound(reps.begin(), reps.end(), canon[i]) -
                                         reps.begin());
    level->prefix[i] = total_splits;
    total_splits += splits[r];
    total_shares += shares[r];
  }
  level->prefix.back() = total_splits;
  level->boards = total_shares / 2;
  std::lock_guard<std::mutex> lock(mutex_);
  auto& slot = levels_[d];
  if (slot == nullptr) slot = std::move(level);
  return slot;
}

absl::StatusOr<uint64_t> RotationBoardSampler::Population(int d, const SearchLimits& limits) const {
  if (d < 0 || d > 254) return 0;
  auto level = LevelFor(d, limits);
  if (!level.ok()) return level.status();
  return (*level)->boards;
}

absl::StatusOr<std::vector<RotationBoard>> RotationBoardSampler::Draw(
    int d, uint64_t count, SeededRng& rng, const SearchLimits& limits) const {
  std::vector<RotationBoard> boards;
  if (d < 0 || d > 254 || count == 0) return boards;
  auto found = LevelFor(d, limits);
  if (!found.ok()) return found.status();
  const Level& level = **found;
  auto board_of = [](int v, uint32_t p, const Split& split) {
    RotationBoard board;
    board.masks[v] = p;
    board.masks[(v + 1) % 3] = split.q;
    board.masks[(v + 2) % 3] = split.r;
    return board;
  };
  if (count >= level.boards) {
    // All of them: each board once, from the first of its values at distance d.
    for (size_t i = 0; i < level.placements.size(); ++i) {
      const uint64_t n = level.prefix[i + 1] - level.prefix[i];
      for (uint64_t k = 0; k < n; ++k) {
        const Split split = KthSplit(level.placements[i], d, k);
        for (int v = 0; v < 3; ++v) {
          const RotationBoard board = board_of(v, level.placements[i], split);
          int first = 3;
          for (int u = 0; u < 3; ++u) {
            if (DistanceOf(board.masks[u]) == d) first = std::min(first, u);
          }
          if (first == v) boards.push_back(board);
        }
      }
    }
    if (boards.size() != level.boards) {
      return absl::InternalError(Cat("rotation sampling: ", boards.size(), " boards at distance ",
                                     d, ", counted ", level.boards));
    }
    rng.Shuffle(&boards);
    return boards;
  }
  std::unordered_set<uint64_t> seen;
  const uint64_t total = level.prefix.back();
  for (uint64_t tries = 0; boards.size() < count; ++tries) {
    if ((tries & 255) == 255) {
      if (auto status = LimitsReached(limits, "sampling rotation boards"); !status.ok()) {
        return status;
      }
    }
    const uint64_t u = rng.Below(total);
    const size_t i = static_cast<size_t>(
        std::upper_bound(level.prefix.begin(), level.prefix.end(), u) - level.prefix.begin() - 1);
    const Split split = KthSplit(level.placements[i], d, u - level.prefix[i]);
    if (split.multiplicity == 0) return absl::InternalError("rotation sampling: split out of range");
    const int v = static_cast<int>(rng.Below(3));
    if (rng.Below(static_cast<uint64_t>(split.multiplicity)) != 0) continue;
    const RotationBoard board = board_of(v, level.placements[i], split);
    if (seen.insert(uint64_t{board.masks[0]} << 24 | board.masks[1]).second) {
      boards.push_back(board);
    }
  }
  return boards;
}

}  // namespace puzzledb
