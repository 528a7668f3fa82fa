#include "core/sliding/pattern_tables.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "core/util/bits.h"
#include "core/util/on_threads.h"
#include "core/util/strings.h"
#include "core/util/text_input.h"

namespace puzzledb {
namespace {

constexpr uint64_t kFactorials[kMaxGroupTiles + 1] = {1, 1, 2, 6, 24, 120, 720, 5040, 40320};

int Manhattan(int tile, int cell) {
  const int home = tile - 1;
  return std::abs(home / 4 - cell / 4) + std::abs(home % 4 - cell % 4);
}

// The orders of k tiles on k slots: order rank -> the slot of each tile, and back.
struct Orders {
  int k;
  std::vector<std::array<uint8_t, kMaxGroupTiles>> slots;  // by rank
  explicit Orders(int size) : k(size), slots(kFactorials[size]) {
    for (uint64_t r = 0; r < slots.size(); ++r) {
      uint64_t rest = r;
      uint32_t used = 0;
      for (int i = 0; i < k; ++i) {
        const uint64_t w = kFactorials[k - 1 - i];
        int skip = static_cast<int>(rest / w);
        rest %= w;
        int slot = 0;
        for (;; ++slot) {
          if ((used & (1u << slot)) == 0 && skip-- == 0) break;
        }
        used |= 1u << slot;
        slots[r][i] = static_cast<uint8_t>(slot);
      }
    }
  }
  uint32_t Rank(const std::array<uint8_t, kMaxGroupTiles>& s) const {
    uint32_t used = 0, rank = 0;
    for (int i = 0; i < k; ++i) {
      rank += static_cast<uint32_t>(s[i] - std::popcount(used & ((1u << s[i]) - 1))) *
              static_cast<uint32_t>(kFactorials[k - 1 - i]);
      used |= 1u << s[i];
    }
    return rank;
  }
};

// The regions of free cells of every cell set of one size: for set rank r, the number of
// regions and the region of each free cell (4 bits per cell), and the first block (one
// block per (set, region)).
struct Regions {
  std::vector<uint32_t> masks;    // by set rank
  std::vector<uint8_t> count;     // regions per set
  std::vector<uint64_t> label;    // 4 bits per cell; 15 under a tile
  std::vector<uint32_t> first_block;
  uint32_t blocks = 0;

  explicit Regions(int k) {
    const uint64_t sets = Binomials::Get(kTileCells, k);
    masks.resize(sets);
    count.resize(sets);
    label.resize(sets);
    first_block.resize(sets);
    uint32_t mask = (1u << k) - 1;
    for (uint64_t r = 0; r < sets; ++r) {
      masks[r] = mask;
      uint64_t labels = ~uint64_t{0};
      int n = 0;
      for (int start = 0; start < kTileCells; ++start) {
        if ((mask >> start) & 1 || ((labels >> (4 * start)) & 15) != 15) continue;
        // Flood the region of `start`.
        int stack[kTileCells], top = 0;
        stack[top++] = start;
        labels &= ~(uint64_t{15} << (4 * start));
        labels |= uint64_t(n) << (4 * start);
        while (top > 0) {
          const int c = stack[--top];
          const int next[4] = {c >= 4 ? c - 4 : -1, c < 12 ? c + 4 : -1, c % 4 ? c - 1 : -1,
                               c % 4 != 3 ? c + 1 : -1};
          for (int d : next) {
            if (d < 0 || (mask >> d) & 1 || ((labels >> (4 * d)) & 15) != 15) continue;
            labels &= ~(uint64_t{15} << (4 * d));
            labels |= uint64_t(n) << (4 * d);
            stack[top++] = d;
          }
        }
        ++n;
      }
      label[r] = labels;
      count[r] = static_cast<uint8_t>(n);
      first_block[r] = blocks;
      blocks += static_cast<uint32_t>(n);
      if (k > 0 && r + 1 < sets) mask = NextSubset(mask);
    }
  }
  int RegionOf(uint64_t set, int cell) const {
    return static_cast<int>((label[set] >> (4 * cell)) & 15);
  }
};

// One move of a block: the group tile on cell `from` (slot `from_slot`) steps onto the
// free cell `to` of the block's region; the placement's order changes by `orders`.
struct BlockMove {
  uint32_t target;  // the block reached
  const uint16_t* orders;
};

}  // namespace

// ------------------------------------------------------------------ TilePartition

absl::StatusOr<TilePartition> TilePartition::Parse(std::string_view text) {
  TilePartition p;
  p.group_of_.fill(-1);
  std::vector<int> current;
  auto bad = [&](std::string_view what) {
    return absl::InvalidArgumentError(Cat("tile partition ", QuoteInput(text), ": ", what));
  };
  size_t i = 0;
  auto close_group = [&]() -> absl::Status {
    if (current.empty()) return bad("a group is empty");
    if (current.size() > kMaxGroupTiles) {
      return bad(Cat("a group has ", current.size(), " tiles; at most ", kMaxGroupTiles));
    }
    if (p.groups_.size() == kMaxPatternGroups) {
      return bad(Cat("more than ", kMaxPatternGroups, " groups"));
    }
    std::sort(current.begin(), current.end());
    for (int t : current) p.group_of_[t] = static_cast<int8_t>(p.groups_.size());
    p.groups_.push_back(std::move(current));
    current.clear();
    return absl::OkStatus();
  };
  auto read_number = [&]() -> int {
    int n = 0, digits = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9' && digits < 3) {
      n = n * 10 + (text[i++] - '0');
      ++digits;
    }
    return digits == 0 ? -1 : n;
  };
  auto add = [&](int tile) -> absl::Status {
    if (tile < 1 || tile > 15) return bad(Cat("tile ", tile, " is not one of 1..15"));
    if (p.group_of_[tile] >= 0 || std::find(current.begin(), current.end(), tile) != current.end()) {
      return bad(Cat("tile ", tile, " is in two groups"));
    }
    current.push_back(tile);
    return absl::OkStatus();
  };
  while (i < text.size()) {
    const int from = read_number();
    if (from < 0) return bad(Cat("expected a tile number at character ", i + 1));
    int to = from;
    if (i < text.size() && text[i] == '-') {
      ++i;
      to = read_number();
      if (to < 0) return bad(Cat("expected a tile number at character ", i + 1));
      if (to < from) return bad(Cat("the range ", from, "-", to, " runs backwards"));
    }
    for (int t = from; t <= to; ++t) {
      if (absl::Status s = add(t); !s.ok()) return s;
    }
    if (i == text.size()) break;
    if (text[i] == ',') {
      ++i;
    } else if (text[i] == '/') {
      ++i;
      if (absl::Status s = close_group(); !s.ok()) return s;
    } else {
      return bad(Cat("unexpected ", QuoteInput(text.substr(i, 1)), " at character ", i + 1));
    }
  }
  if (absl::Status s = close_group(); !s.ok()) return s;
  for (int t = 1; t <= 15; ++t) {
    if (p.group_of_[t] < 0) return bad(Cat("tile ", t, " is in no group"));
  }
  return p;
}

absl::StatusOr<TilePartition> TilePartition::Decode(std::string_view bytes) {
  if (bytes.size() != 15) {
    return absl::InvalidArgumentError(
        Cat("a tile partition is 15 bytes (the group of each tile), got ", bytes.size()));
  }
  int groups = 0;
  for (char b : bytes) groups = std::max(groups, static_cast<int>(static_cast<uint8_t>(b)) + 1);
  if (groups > 15) return absl::InvalidArgumentError("a tile partition names a group past 15");
  std::string text;
  for (int g = 0; g < groups; ++g) {
    if (g > 0) text += '/';
    bool first = true;
    for (int t = 1; t <= 15; ++t) {
      if (static_cast<uint8_t>(bytes[t - 1]) != g) continue;
      if (!first) text += ',';
      text += std::to_string(t);
      first = false;
    }
  }
  return Parse(text);
}

std::string TilePartition::Encode() const {
  std::string bytes(15, '\0');
  for (int t = 1; t <= 15; ++t) bytes[t - 1] = static_cast<char>(group_of_[t]);
  return bytes;
}

std::string TilePartition::Describe() const {
  std::string text;
  for (size_t g = 0; g < groups_.size(); ++g) {
    if (g > 0) text += '/';
    const std::vector<int>& tiles = groups_[g];
    for (size_t i = 0; i < tiles.size();) {
      size_t j = i;
      while (j + 1 < tiles.size() && tiles[j + 1] == tiles[j] + 1) ++j;
      if (i > 0) text += ',';
      text += std::to_string(tiles[i]);
      if (j >= i + 2) {
        text += Cat("-", tiles[j]);
        i = j + 1;
      } else {
        i = i + 1;
      }
    }
  }
  return text;
}

// ------------------------------------------------------------------ PatternGroup

PatternGroup::PatternGroup(std::vector<int> tiles)
    : tiles_(std::move(tiles)),
      k_(static_cast<int>(tiles_.size())),
      orders_(kFactorials[k_]),
      cell_sets_(Binomials::Get(kTileCells, k_)) {
  for (int i = 0; i < k_; ++i) {
    weight_[i] = static_cast<uint32_t>(kFactorials[k_ - 1 - i]);
    slot_[tiles_[i]] = static_cast<uint8_t>(i + 1);
  }
  for (int j = 0; j < k_; ++j) {
    for (int p = 0; p < k_; ++p) {
      if (p == j) continue;
      passed_[j + 1][p + 1] =
          p > j ? static_cast<int32_t>(weight_[j]) : -static_cast<int32_t>(weight_[p]);
    }
  }
}

constexpr CellSetTables::CellSetTables() : low{}, high{} {
  for (int byte = 0; byte < 256; ++byte) {
    for (int before = 0; before <= kTileCells; ++before) {
      uint64_t lo = 0, hi = 0;
      int j = before;
      int i = 0;
      for (int bit = 0; bit < 8; ++bit) {
        if (byte & (1 << bit)) {
          ++j;
          ++i;
          hi += Binomials::Get(8 + bit, j);
          lo += Binomials::Get(bit, i);
        }
      }
      high[byte][before] = static_cast<uint32_t>(hi);
      if (before == 0) low[byte] = static_cast<uint32_t>(lo);
    }
  }
}

// Built by the compiler: no reader in another file's static initialisation can see it
// empty.
constinit const CellSetTables kCellSetTables;

std::array<uint8_t, kMaxGroupTiles> PatternGroup::Cells(uint64_t index) const {
  // The cell set: colexicographic rank index / orders_ among those of k_ cells.
  uint32_t mask = UnrankSubset(index / orders_, kTileCells, k_);
  // The cells of the set in ascending order, then each tile's slot.
  uint8_t sorted[kTileCells];
  int n = 0;
  for (int c = 0; c < kTileCells; ++c) {
    if ((mask >> c) & 1) sorted[n++] = static_cast<uint8_t>(c);
  }
  uint64_t rest = index % orders_;
  uint32_t used = 0;
  std::array<uint8_t, kMaxGroupTiles> cells{};
  for (int i = 0; i < k_; ++i) {
    int skip = static_cast<int>(rest / weight_[i]);
    rest %= weight_[i];
    int slot = 0;
    for (;; ++slot) {
      if ((used & (1u << slot)) == 0 && skip-- == 0) break;
    }
    used |= 1u << slot;
    cells[i] = sorted[slot];
  }
  return cells;
}

int PatternGroup::Manhattan(uint64_t index) const {
  const auto cells = Cells(index);
  int sum = 0;
  for (int i = 0; i < k_; ++i) sum += puzzledb::Manhattan(tiles_[i], cells[i]);
  return sum;
}

// ------------------------------------------------------------------ the search

absl::StatusOr<HugeBuffer> SearchPatternGroup(const PatternGroup& group, int group_number,
                                              const PatternBuildOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  const int k = group.size();
  const uint64_t orders = group.orders();
  const Orders order_table(k);
  const Regions regions(k);
  const uint64_t blocks = regions.blocks;

  // Order maps for a tile moving from slot a to slot b: every other tile's slot shifts by
  // one between them. moves_of[a][b][rank] is the order's rank after the move.
  std::vector<std::vector<uint16_t>> order_maps(kMaxGroupTiles * kMaxGroupTiles);
  for (int a = 0; a < k; ++a) {
    for (int b = 0; b < k; ++b) {
      if (std::abs(a - b) > 3) continue;  // a step moves past at most 3 cells
      std::vector<uint16_t>& map = order_maps[a * kMaxGroupTiles + b];
      map.resize(orders);
      for (uint64_t r = 0; r < orders; ++r) {
        std::array<uint8_t, kMaxGroupTiles> s = order_table.slots[r];
        for (int i = 0; i < k; ++i) {
          if (s[i] == a) {
            s[i] = static_cast<uint8_t>(b);
          } else if (a < b && s[i] > a && s[i] <= b) {
            --s[i];
          } else if (b < a && s[i] >= b && s[i] < a) {
            ++s[i];
          }
        }
        map[r] = static_cast<uint16_t>(order_table.Rank(s));
      }
    }
  }

  // The moves of every block, in one list.
  std::vector<uint32_t> block_set(blocks);
  std::vector<uint32_t> first_move(blocks + 1);
  std::vector<BlockMove> moves;
  for (uint64_t set = 0; set < regions.masks.size(); ++set) {
    const uint32_t mask = regions.masks[set];
    for (int region = 0; region < regions.count[set]; ++region) {
      const uint32_t block = regions.first_block[set] + region;
      block_set[block] = static_cast<uint32_t>(set);
      first_move[block] = static_cast<uint32_t>(moves.size());
      for (int from = 0; from < kTileCells; ++from) {
        if (((mask >> from) & 1) == 0) continue;
        const int next[4] = {from >= 4 ? from - 4 : -1, from < 12 ? from + 4 : -1,
                             from % 4 ? from - 1 : -1, from % 4 != 3 ? from + 1 : -1};
        for (int to : next) {
          if (to < 0 || (mask >> to) & 1 || regions.RegionOf(set, to) != region) continue;
          const uint32_t after = mask ^ (1u << from) ^ (1u << to);
          const int a = std::popcount(mask & ((1u << from) - 1));
          const int b = std::popcount(after & ((1u << to) - 1));
          const uint32_t after_set = PatternGroup::CellSetRank(after);
          // The empty place is left on `from`, in that cell's region of the new set.
          const uint32_t target =
              regions.first_block[after_set] + regions.RegionOf(after_set, from);
          moves.push_back({target, order_maps[a * kMaxGroupTiles + b].data()});
        }
      }
    }
  }
  first_move[blocks] = static_cast<uint32_t>(moves.size());

  // dist: one byte per (block, order); frontier bits of this depth and the next.
  const uint64_t words_per_block = (orders + 63) / 64;
  HugeBuffer dist(blocks * orders, 0xFF);
  std::vector<uint64_t> current(blocks * words_per_block, 0), next(blocks * words_per_block, 0);
  std::vector<uint8_t> active(blocks, 0);
  std::vector<std::atomic<uint8_t>> reached(blocks);
  for (auto& r : reached) r.store(0, std::memory_order_relaxed);

  uint32_t goal_mask = 0;
  for (int t : group.tiles()) goal_mask |= 1u << (t - 1);
  const uint32_t goal_set = PatternGroup::CellSetRank(goal_mask);
  const uint32_t goal_block = regions.first_block[goal_set] + regions.RegionOf(goal_set, 15);
  dist[uint64_t{goal_block} * orders] = 0;  // ascending tiles on ascending homes: rank 0
  current[uint64_t{goal_block} * words_per_block] = 1;
  active[goal_block] = 1;

  const int threads = options.threads > 0
                          ? options.threads
                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (options.on_layer) options.on_layer({group_number, 0, 1, 0.0});
  for (int depth = 0;; ++depth) {
    if (depth >= 254) return absl::InternalError("pattern search passed 254 moves");
    // Expand: every frontier entry through every move of its block; a target entry not
    // reached yet gets its bit in `next` (dist is only read here, never written).
    OnThreads(blocks, threads, [&](uint64_t block) {
      if (!active[block]) return;
      const uint64_t* bits = &current[block * words_per_block];
      for (uint32_t m = first_move[block]; m < first_move[block + 1]; ++m) {
        const BlockMove& move = moves[m];
        const uint8_t* target_dist = &dist[uint64_t{move.target} * orders];
        uint64_t* target_bits = &next[uint64_t{move.target} * words_per_block];
        bool any = false;
        for (uint64_t w = 0; w < words_per_block; ++w) {
          for (uint64_t word = bits[w]; word != 0; word &= word - 1) {
            const uint64_t r = move.orders[w * 64 + std::countr_zero(word)];
            if (target_dist[r] != 0xFF) continue;
            std::atomic_ref<uint64_t> cell(target_bits[r >> 6]);
            const uint64_t bit = uint64_t{1} << (r & 63);
            if ((cell.load(std::memory_order_relaxed) & bit) == 0) {
              cell.fetch_or(bit, std::memory_order_relaxed);
              any = true;
            }
          }
        }
        if (any) reached[move.target].store(1, std::memory_order_relaxed);
      }
    });
    // Settle: each block's new entries get depth + 1 (one thread per block); `next`
    // becomes the frontier.
    std::atomic<uint64_t> found{0};
    OnThreads(blocks, threads, [&](uint64_t block) {
      uint64_t* cur = &current[block * words_per_block];
      if (active[block]) std::fill(cur, cur + words_per_block, 0);
      active[block] = 0;
      if (!reached[block].load(std::memory_order_relaxed)) return;
      reached[block].store(0, std::memory_order_relaxed);
      uint64_t* bits = &next[block * words_per_block];
      uint8_t* d = &dist[block * orders];
      uint64_t count = 0;
      for (uint64_t w = 0; w < words_per_block; ++w) {
        for (uint64_t word = bits[w]; word != 0; word &= word - 1) {
          d[w * 64 + std::countr_zero(word)] = static_cast<uint8_t>(depth + 1);
          ++count;
        }
      }
      if (count > 0) active[block] = 1;
      found.fetch_add(count, std::memory_order_relaxed);
    });
    current.swap(next);
    const uint64_t layer = found.load();
    if (layer == 0) break;
    if (options.on_layer) {
      options.on_layer({group_number, depth + 1, layer,
                        std::chrono::duration<double>(std::chrono::steady_clock::now() - started)
                            .count()});
    }
  }

  // The table: the smallest distance over a placement's regions.
  HugeBuffer out(group.placements(), 0xFF);
  std::atomic<bool> unreached{false};
  OnThreads(regions.masks.size(), threads, [&](uint64_t set) {
    uint8_t* o = &out[set * orders];
    for (int region = 0; region < regions.count[set]; ++region) {
      const uint8_t* d = &dist[uint64_t{regions.first_block[set] + region} * orders];
      for (uint64_t r = 0; r < orders; ++r) o[r] = std::min(o[r], d[r]);
    }
    for (uint64_t r = 0; r < orders; ++r) {
      if (o[r] == 0xFF) unreached.store(true, std::memory_order_relaxed);
    }
  });
  if (unreached.load()) {
    return absl::InternalError(Cat("pattern search of group ", group_number,
                                   ": a placement was never reached"));
  }
  return out;
}

// ------------------------------------------------------------------ PatternTables

uint64_t PatternTables::EntryCount(const TilePartition& partition) {
  uint64_t n = 0;
  for (int g = 0; g < partition.group_count(); ++g) {
    n += PatternGroup(partition.group(g)).placements();
  }
  return n;
}

PatternTables::PatternTables(TilePartition partition, std::shared_ptr<const PackedTable> entries)
    : partition_(std::move(partition)), entries_(std::move(entries)), bytes_(entries_->data()) {
  uint64_t offset = 0;
  for (int g = 0; g < partition_.group_count(); ++g) {
    groups_.emplace_back(partition_.group(g));
    offsets_.push_back(offset);
    offset += groups_.back().placements();
  }
}

int PatternTables::ExcessSum(const uint8_t* cell_of) const {
  int sum = 0;
  for (size_t g = 0; g < groups_.size(); ++g) {
    sum += Excess(static_cast<int>(g), groups_[g].Index(cell_of));
  }
  return sum;
}

absl::Status EncodePatternGroup(const PatternGroup& group, const HugeBuffer& distances,
                                uint64_t offset, PackedTable* entries, uint64_t* saturated) {
  const int k = group.size();
  const uint64_t orders = group.orders();
  const Orders order_table(k);
  const uint64_t sets = group.cell_sets();
  uint32_t mask = (1u << k) - 1;
  uint64_t over = 0;
  for (uint64_t set = 0; set < sets; ++set, mask = set < sets ? NextSubset(mask) : mask) {
    // manhattan[i][slot]: tile i of the group on the slot-th cell of this set.
    uint8_t sorted[kTileCells];
    int n = 0;
    for (int c = 0; c < kTileCells; ++c) {
      if ((mask >> c) & 1) sorted[n++] = static_cast<uint8_t>(c);
    }
    uint8_t manhattan[kMaxGroupTiles][kMaxGroupTiles];
    for (int i = 0; i < k; ++i) {
      for (int s = 0; s < k; ++s) manhattan[i][s] = static_cast<uint8_t>(Manhattan(group.tiles()[i], sorted[s]));
    }
    for (uint64_t r = 0; r < orders; ++r) {
      const auto& slots = order_table.slots[r];
      int md = 0;
      for (int i = 0; i < k; ++i) md += manhattan[i][slots[i]];
      const uint64_t index = set * orders + r;
      const int d = distances[index];
      if (d < md || ((d - md) & 1) != 0) {
        return absl::InternalError(Cat("pattern entry ", index, ": distance ", d,
                                       " against a Manhattan distance of ", md));
      }
      int excess = (d - md) / 2;
      if (excess > 15) {
        excess = 15;
        ++over;
      }
      entries->Set(offset + index, static_cast<uint8_t>(excess));
    }
  }
  if (saturated != nullptr) *saturated += over;
  return absl::OkStatus();
}

}  // namespace puzzledb
