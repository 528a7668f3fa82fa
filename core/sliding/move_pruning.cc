#include "core/sliding/move_pruning.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <deque>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"

namespace puzzledb {
namespace {

constexpr char kLetters[] = "UDLR";
constexpr int kRowStep[4] = {-1, 1, 0, 0};
constexpr int kColumnStep[4] = {0, 0, -1, 1};

uint64_t Mix(uint64_t x) {  // splitmix64's finaliser
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// A sequence of `length` moves, two bits a move, the first the most significant: numeric
// order is lexicographic order among sequences of one length.
struct Sequence {
  uint64_t code;
  int length;
  int move(int i) const { return static_cast<int>((code >> (2 * (length - 1 - i))) & 3); }
};

// The rows and columns a sequence's empty place visits, relative to where it starts.
struct Span {
  int top = 0, bottom = 0, left = 0, right = 0;
  bool Within(const Span& o) const {
    return top >= o.top && bottom <= o.bottom && left >= o.left && right <= o.right;
  }
};

// A board wide enough that no sequence of `max_length` moves from its middle leaves it.
class Board {
 public:
  explicit Board(int max_length) : width_(2 * max_length + 3), cells_(width_ * width_) {
    for (size_t c = 0; c < cells_.size(); ++c) cells_[c] = static_cast<uint32_t>(c);
  }

  // Plays `s` from the middle on the identity board: the hash of the result, its span.
  uint64_t Play(const Sequence& s, Span* span) {
    Reset();
    uint64_t hash = 0;
    Span seen;
    int row = width_ / 2, column = width_ / 2;
    for (int i = 0; i < s.length; ++i) {
      const int m = s.move(i);
      const int from = row * width_ + column;
      row += kRowStep[m];
      column += kColumnStep[m];
      const int to = row * width_ + column;
      // The tile on `to` goes to `from`, the empty place the other way.
      const uint32_t tile = cells_[to], empty = cells_[from];
      hash ^= Z(from, empty) ^ Z(to, tile) ^ Z(from, tile) ^ Z(to, empty);
      cells_[from] = tile;
      cells_[to] = empty;
      touched_.push_back(to);
      const int dr = row - width_ / 2, dc = column - width_ / 2;
      seen.top = std::min(seen.top, dr);
      seen.bottom = std::max(seen.bottom, dr);
      seen.left = std::min(seen.left, dc);
      seen.right = std::max(seen.right, dc);
    }
    *span = seen;
    return hash;
  }
  // The cells `s` leaves changed, as (cell, what stands there), sorted.
  std::vector<std::pair<int, uint32_t>> Changes(const Sequence& s) {
    Span unused;
    Play(s, &unused);
    std::vector<std::pair<int, uint32_t>> changes;
    for (int cell : touched_) {
      if (cells_[cell] != static_cast<uint32_t>(cell)) changes.push_back({cell, cells_[cell]});
    }
    const int middle = (width_ / 2) * width_ + width_ / 2;
    if (cells_[middle] != static_cast<uint32_t>(middle)) changes.push_back({middle, cells_[middle]});
    std::sort(changes.begin(), changes.end());
    changes.erase(std::unique(changes.begin(), changes.end()), changes.end());
    return changes;
  }

 private:
  static uint64_t Z(int cell, uint32_t tile) {
    return Mix((static_cast<uint64_t>(cell) << 32) | tile);
  }
  void Reset() {  // the identity board again: only the empty place's path changed it
    for (int cell : touched_) cells_[cell] = static_cast<uint32_t>(cell);
    const int middle = (width_ / 2) * width_ + width_ / 2;
    cells_[middle] = static_cast<uint32_t>(middle);
    touched_.clear();
  }

  int width_;
  std::vector<uint32_t> cells_;
  std::vector<int> touched_;
};

// The minimal pruned sequences up to `max_length` moves, shortest first, then in
// lexicographic order.
std::vector<Sequence> FindPatterns(int max_length) {
  // Every sequence played, and for each effect the last one with it (the others chained
  // through `previous`).
  struct Seen {
    Sequence sequence;
    Span span;
    int32_t previous;  // the one before with the same effect, or -1
  };
  Board board(max_length);
  Board other(max_length);
  std::vector<Seen> seen = {{Sequence{0, 0}, Span{}, -1}};  // no move at all
  absl::flat_hash_map<uint64_t, int32_t> last_with_effect = {{0, 0}};
  std::vector<Sequence> patterns;
  std::vector<uint64_t> kept = {0};  // the kept sequences of the last length, ascending
  for (int length = 1; length <= max_length; ++length) {
    const absl::flat_hash_set<uint64_t> kept_before(kept.begin(), kept.end());
    const uint64_t suffix_mask = length >= 2 ? (uint64_t{1} << (2 * (length - 1))) - 1 : 0;
    std::vector<uint64_t> next;
    for (uint64_t code : kept) {
      const int last = length >= 2 ? static_cast<int>(code & 3) : -1;
      for (int m = 0; m < 4; ++m) {
        if (last >= 0 && m == (last ^ 1)) continue;  // undoes the last move
        const Sequence s{(code << 2) | static_cast<uint64_t>(m), length};
        // Every proper stretch must be kept: the prefix is; the suffix must be too.
        if (length >= 2 && !kept_before.contains(s.code & suffix_mask)) continue;
        Span span;
        const uint64_t effect = board.Play(s, &span);
        auto [last_one, is_new] =
            last_with_effect.try_emplace(effect, static_cast<int32_t>(seen.size()));
        bool pruned = false;
        const int32_t first = is_new ? -1 : last_one->second;
        for (int32_t e = first; e >= 0 && !pruned; e = seen[e].previous) {
          const Seen& earlier = seen[e];
          // The same hash: the same effect, unless two boards collide; compared in full.
          if (earlier.span.Within(span) && board.Changes(s) == other.Changes(earlier.sequence)) {
            pruned = true;
          }
        }
        seen.push_back({s, span, first});
        last_one->second = static_cast<int32_t>(seen.size() - 1);
        if (pruned) {
          patterns.push_back(s);
        } else {
          next.push_back(s.code);
        }
      }
    }
    kept = std::move(next);
  }
  return patterns;
}

}  // namespace

MovePruning::MovePruning(int max_length) {
  if (max_length < 1 || max_length > kMaxLength) std::abort();  // a caller's error
  const std::vector<Sequence> patterns = FindPatterns(max_length);
  // The trie of the patterns; then, breadth first, each state's failure (the longest
  // proper suffix of its sequence that is a trie state) and its moves.
  std::vector<std::array<int32_t, 4>> child(1, {-1, -1, -1, -1});
  std::vector<bool> ends(1, false);
  for (const Sequence& p : patterns) {
    std::string letters;
    int32_t state = 0;
    for (int i = 0; i < p.length; ++i) {
      const int m = p.move(i);
      letters.push_back(kLetters[m]);
      if (child[state][m] < 0) {
        child[state][m] = static_cast<int32_t>(child.size());
        child.push_back({-1, -1, -1, -1});
        ends.push_back(false);
      }
      state = child[state][m];
    }
    ends[state] = true;
    patterns_.push_back(letters);
  }
  const size_t n = child.size();
  if (n > 32767) std::abort();  // states in 16 bits: see the header
  std::vector<int32_t> fail(n, 0);
  next_.assign(4 * n, 0);
  std::deque<int32_t> queue;
  for (int m = 0; m < 4; ++m) {
    if (child[0][m] >= 0) {
      fail[child[0][m]] = 0;
      next_[m] = static_cast<int16_t>(child[0][m]);
      queue.push_back(child[0][m]);
    } else {
      next_[m] = 0;
    }
  }
  while (!queue.empty()) {
    const int32_t s = queue.front();
    queue.pop_front();
    if (ends[fail[s]]) ends[s] = true;  // a pattern ends here as a suffix
    for (int m = 0; m < 4; ++m) {
      const int32_t c = child[s][m];
      if (c >= 0) {
        fail[c] = next_[4 * fail[s] + m];
        next_[4 * s + m] = static_cast<int16_t>(c);
        queue.push_back(c);
      } else {
        next_[4 * s + m] = next_[4 * fail[s] + m];
      }
    }
  }
  // A move into a state where a pattern ends is pruned.
  for (int16_t& to : next_) {
    if (ends[to]) to = static_cast<int16_t>(kPruned);
  }
}

}  // namespace puzzledb
