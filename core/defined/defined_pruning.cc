#include "core/defined/defined_pruning.h"

#include <algorithm>
#include <deque>
#include <string>
#include <unordered_map>
#include <utility>

#include "core/util/strings.h"

namespace puzzledb {
namespace {

// A sequence of blocks played on a symbolic state: byte i of the result is byte src[i] of
// the start turned by twist[i]; `asks` holds what the blocks' guards ask of the start's
// bytes (sorted by byte, one value each).
// The automaton's table, [state * blocks + block] (blocks 0: none).
struct Table {
  int blocks = 0;
  std::vector<int32_t> next;
};

struct Sequence {
  std::vector<uint16_t> src;
  std::vector<uint8_t> twist;
  std::vector<std::pair<uint16_t, uint8_t>> asks;
  std::vector<int> blocks;
};

class Finder {
 public:
  Finder(const Definition& d, const CompiledMoves& moves, uint64_t bytes)
      : d_(d), moves_(moves), n_(moves.state_bytes()), budget_(bytes) {
    modulus_.assign(static_cast<size_t>(n_), 0);
    set_of_.assign(static_cast<size_t>(n_), -1);
    for (size_t s = 0; s < d.sets().size(); ++s) {
      const DefinedSet& set = d.sets()[s];
      for (int j = 0; j < set.size; ++j) {
        set_of_[static_cast<size_t>(set.offset + j)] = static_cast<int>(s);
        if (set.orientations > 1) modulus_[static_cast<size_t>(set.offset + set.size + j)] = static_cast<uint8_t>(set.orientations);
      }
    }
    // How many pieces of each label a set holds (the most over the goals: the moves keep it).
    most_.assign(d.sets().size(), std::vector<int>(256, 0));
    for (const DefinedState& goal : d.goals()) {
      for (size_t s = 0; s < d.sets().size(); ++s) {
        const DefinedSet& set = d.sets()[s];
        std::vector<int> count(256, 0);
        for (int j = 0; j < set.size; ++j) ++count[goal[static_cast<size_t>(set.offset + j)]];
        for (int l = 0; l < 256; ++l) most_[s][static_cast<size_t>(l)] = std::max(most_[s][static_cast<size_t>(l)], count[static_cast<size_t>(l)]);
      }
    }
  }

  void Run(int max_length, std::vector<std::vector<int>>* patterns, int* searched) {
    Sequence empty;
    empty.src.resize(static_cast<size_t>(n_));
    for (int i = 0; i < n_; ++i) empty.src[static_cast<size_t>(i)] = static_cast<uint16_t>(i);
    empty.twist.assign(static_cast<size_t>(n_), 0);
    identity_ = Key(empty);
    std::vector<Sequence> level = {empty};
    std::unordered_map<std::string, int> kept_before;  // the kept sequences one block shorter
    kept_before[BlocksKey(empty.blocks)] = 0;
    *searched = 0;
    for (int length = 1; length <= max_length && !level.empty(); ++length) {
      // Every kept sequence one block longer whose last length - 1 blocks were kept too
      // (else it holds a shorter duplicate, and is not minimal).
      std::vector<Sequence> made;
      for (const Sequence& s : level) {
        for (int b = 0; b < moves_.block_count(); ++b) {
          if (length > 1) {
            std::vector<int> tail(s.blocks.begin() + 1, s.blocks.end());
            tail.push_back(b);
            if (!kept_before.contains(BlocksKey(tail))) continue;
          }
          Sequence t;
          if (!Extend(s, b, &t)) continue;
          used_ += Bytes(t);
          if (used_ > budget_) return;
          made.push_back(std::move(t));
        }
      }
      // In canonical order of their moves: a sequence is compared with the shorter ones and
      // with those of its length before it.
      std::stable_sort(made.begin(), made.end(), [&](const Sequence& a, const Sequence& b) {
        return std::lexicographical_compare(a.blocks.begin(), a.blocks.end(), b.blocks.begin(), b.blocks.end(),
                                            [&](int x, int y) { return moves_.block(x).move < moves_.block(y).move; });
      });
      std::vector<Sequence> next_level;
      std::unordered_map<std::string, int> kept_now;
      for (Sequence& a : made) {
        const std::string key = Key(a);
        bool duplicate = key == identity_;
        if (!duplicate) {
          auto it = by_key_.find(key);
          if (it != by_key_.end()) {
            for (const Sequence* b : it->second) {
              if (Covers(*b, a)) {
                duplicate = true;
                break;
              }
            }
          }
        }
        if (duplicate) {
          patterns->push_back(a.blocks);
        } else {
          kept_now[BlocksKey(a.blocks)] = 0;
          next_level.push_back(a);
        }
        stored_.push_back(std::move(a));
        by_key_[key].push_back(&stored_.back());
      }
      level = std::move(next_level);
      kept_before = std::move(kept_now);
      *searched = length;
    }
  }

 private:
  static std::string BlocksKey(const std::vector<int>& blocks) {
    std::string k;
    for (const int b : blocks) k.append(reinterpret_cast<const char*>(&b), sizeof b);
    return k;
  }
  static std::string Key(const Sequence& s) {
    std::string k(reinterpret_cast<const char*>(s.src.data()), s.src.size() * sizeof(uint16_t));
    k.append(reinterpret_cast<const char*>(s.twist.data()), s.twist.size());
    return k;
  }
  static uint64_t Bytes(const Sequence& s) {
    return 3 * sizeof(Sequence) + s.src.size() * 2 + s.twist.size() + s.asks.size() * 4 +
           s.blocks.size() * sizeof(int) + 2 * (s.src.size() * 3);
  }

  // The start's byte `at` after `s`, asked to hold `value`: what the start must hold.
  std::pair<uint16_t, uint8_t> AskOfStart(const Sequence& s, uint16_t at, uint8_t value) const {
    const uint8_t m = modulus_[at];
    const uint8_t v = m == 0 ? value : static_cast<uint8_t>((value + m - s.twist[at] % m) % m);
    return {s.src[at], v};
  }

  // True when `asks` (sorted) can all hold at once in a state the moves reach.
  bool Consistent(const std::vector<std::pair<uint16_t, uint8_t>>& asks) const {
    for (size_t i = 1; i < asks.size(); ++i) {
      if (asks[i].first == asks[i - 1].first && asks[i].second != asks[i - 1].second) return false;
    }
    // No label asked of more bytes of a set than the set has of it (the asks are few).
    for (size_t i = 0; i < asks.size(); ++i) {
      const int s = set_of_[asks[i].first];
      if (s < 0) continue;  // an orientation
      int placed = 0;
      for (size_t j = 0; j < asks.size(); ++j) {
        placed += set_of_[asks[j].first] == s && asks[j].second == asks[i].second;
      }
      if (placed > most_[static_cast<size_t>(s)][asks[i].second]) return false;
    }
    return true;
  }

  // `out` = `s` then block b, false where b's guards cannot hold after s.
  bool Extend(const Sequence& s, int b, Sequence* out) const {
    const CompiledMoves::Block& block = moves_.block(b);
    out->asks = s.asks;
    for (const CompiledMoves::Test& test : block.tests) out->asks.push_back(AskOfStart(s, test.at, test.value));
    std::sort(out->asks.begin(), out->asks.end());
    out->asks.erase(std::unique(out->asks.begin(), out->asks.end()), out->asks.end());
    if (!Consistent(out->asks)) return false;
    out->src.resize(static_cast<size_t>(n_));
    out->twist.resize(static_cast<size_t>(n_));
    for (int i = 0; i < n_; ++i) {
      const uint16_t from = block.source[static_cast<size_t>(i)];
      out->src[static_cast<size_t>(i)] = s.src[from];
      const uint8_t m = modulus_[static_cast<size_t>(i)];
      out->twist[static_cast<size_t>(i)] =
          m == 0 ? 0 : static_cast<uint8_t>((s.twist[from] + block.add[static_cast<size_t>(i)]) % m);
    }
    out->blocks = s.blocks;
    out->blocks.push_back(b);
    return true;
  }

  // True when `b` (as long as `a`, or shorter; the same effect) stands for `a`: `a` asks all
  // that `b` asks, and wherever `a` applies, `b`'s moves play `b`'s blocks (every earlier
  // block of the same move is refused there).
  bool Covers(const Sequence& b, const Sequence& a) const {
    if (b.blocks.size() > a.blocks.size()) return false;
    if (b.blocks.size() == a.blocks.size()) {
      bool smaller = false;
      for (size_t i = 0; i < a.blocks.size(); ++i) {
        const int mb = moves_.block(b.blocks[i]).move, ma = moves_.block(a.blocks[i]).move;
        if (mb != ma) {
          smaller = mb < ma;
          break;
        }
      }
      if (!smaller) return false;
    }
    if (!std::includes(a.asks.begin(), a.asks.end(), b.asks.begin(), b.asks.end())) return false;
    // Replay b over a's asks: no earlier block of each move may hold.
    Sequence s;
    s.src.resize(static_cast<size_t>(n_));
    for (int i = 0; i < n_; ++i) s.src[static_cast<size_t>(i)] = static_cast<uint16_t>(i);
    s.twist.assign(static_cast<size_t>(n_), 0);
    for (const int block : b.blocks) {
      const int move = moves_.block(block).move;
      for (int earlier = moves_.first_block(move); earlier < block; ++earlier) {
        std::vector<std::pair<uint16_t, uint8_t>> asks = a.asks;
        for (const CompiledMoves::Test& test : moves_.block(earlier).tests) asks.push_back(AskOfStart(s, test.at, test.value));
        std::sort(asks.begin(), asks.end());
        asks.erase(std::unique(asks.begin(), asks.end()), asks.end());
        if (Consistent(asks)) return false;  // it may hold where a applies
      }
      Sequence t;
      const CompiledMoves::Block& bl = moves_.block(block);
      t.src.resize(static_cast<size_t>(n_));
      t.twist.resize(static_cast<size_t>(n_));
      for (int i = 0; i < n_; ++i) {
        const uint16_t from = bl.source[static_cast<size_t>(i)];
        t.src[static_cast<size_t>(i)] = s.src[from];
        const uint8_t m = modulus_[static_cast<size_t>(i)];
        t.twist[static_cast<size_t>(i)] = m == 0 ? 0 : static_cast<uint8_t>((s.twist[from] + bl.add[static_cast<size_t>(i)]) % m);
      }
      s.src = std::move(t.src);
      s.twist = std::move(t.twist);
    }
    return true;
  }

  const Definition& d_;
  const CompiledMoves& moves_;
  const int n_;
  const uint64_t budget_;
  uint64_t used_ = 0;
  std::vector<uint8_t> modulus_;   // by byte: an orientation's modulus, 0 for a label
  std::vector<int> set_of_;        // by byte: the set of a label byte, -1 for an orientation
  std::vector<std::vector<int>> most_;  // by set, by label
  std::string identity_;
  std::deque<Sequence> stored_;  // every sequence made, kept or not
  std::unordered_map<std::string, std::vector<const Sequence*>> by_key_;
};

// The Aho-Corasick automaton of the patterns (sorted shortest first here), over `blocks`
// blocks, within `budget` bytes (the longest patterns dropped until it fits).
Table Automaton(std::vector<std::vector<int>>* patterns, size_t blocks, uint64_t budget) {
  std::stable_sort(patterns->begin(), patterns->end(),
                   [](const std::vector<int>& a, const std::vector<int>& b) { return a.size() < b.size(); });
  Table out;
  while (!patterns->empty()) {
    // The trie.
    std::vector<std::vector<int32_t>> child(1, std::vector<int32_t>(blocks, -1));
    std::vector<bool> ends(1, false);
    uint64_t nodes = 1;
    for (const std::vector<int>& p : *patterns) nodes += p.size();
    if (nodes * blocks * sizeof(int32_t) * 2 > budget) {
      const size_t longest = patterns->back().size();
      while (!patterns->empty() && patterns->back().size() == longest) patterns->pop_back();
      continue;
    }
    for (const std::vector<int>& p : *patterns) {
      int32_t at = 0;
      for (const int b : p) {
        int32_t& c = child[static_cast<size_t>(at)][static_cast<size_t>(b)];
        if (c < 0) {
          c = static_cast<int32_t>(child.size());
          child.emplace_back(blocks, -1);
          ends.push_back(false);
        }
        at = child[static_cast<size_t>(at)][static_cast<size_t>(b)];
      }
      ends[static_cast<size_t>(at)] = true;
    }
    // Breadth first: each node's failure, its ending inherited, its moves completed.
    std::vector<int32_t> fail(child.size(), 0);
    std::vector<int32_t> next(child.size() * blocks, 0);
    std::deque<int32_t> queue;
    for (size_t b = 0; b < blocks; ++b) {
      const int32_t c = child[0][b];
      next[b] = c < 0 ? 0 : c;
      if (c >= 0) queue.push_back(c);
    }
    while (!queue.empty()) {
      const int32_t u = queue.front();
      queue.pop_front();
      if (ends[static_cast<size_t>(fail[static_cast<size_t>(u)])]) ends[static_cast<size_t>(u)] = true;
      for (size_t b = 0; b < blocks; ++b) {
        const int32_t c = child[static_cast<size_t>(u)][b];
        const int32_t via = next[static_cast<size_t>(fail[static_cast<size_t>(u)]) * blocks + b];
        if (c < 0) {
          next[static_cast<size_t>(u) * blocks + b] = via;
        } else {
          next[static_cast<size_t>(u) * blocks + b] = c;
          fail[static_cast<size_t>(c)] = via;
          queue.push_back(c);
        }
      }
    }
    for (int32_t& v : next) {
      if (ends[static_cast<size_t>(v)]) v = DefinedPruning::kPruned;
    }
    out.blocks = static_cast<int>(blocks);
    out.next = std::move(next);
    return out;
  }
  return out;
}


}  // namespace

DefinedPruning DefinedPruning::Find(const Definition& definition, const CompiledMoves& moves,
                                    int max_length, uint64_t bytes) {
  std::vector<std::vector<int>> patterns;
  int searched = 0;
  // A sequence that passes through a state an Illegal line forbids is played nowhere: two
  // sequences of one transform are no longer alike. None are looked for.
  if (!definition.illegal().empty()) return DefinedPruning();
  Finder(definition, moves, bytes).Run(max_length, &patterns, &searched);
  auto out = FromPatterns(moves, std::move(patterns), searched, bytes);
  return out.ok() ? *std::move(out) : DefinedPruning();
}

absl::StatusOr<DefinedPruning> DefinedPruning::FromPatterns(const CompiledMoves& moves,
                                                            std::vector<std::vector<int>> patterns,
                                                            int searched_length, uint64_t bytes) {
  for (const std::vector<int>& p : patterns) {
    if (p.empty()) return absl::InvalidArgumentError("a duplicate sequence of no blocks");
    for (const int b : p) {
      if (b < 0 || b >= moves.block_count()) {
        return absl::InvalidArgumentError(Cat("a duplicate sequence names block ", b, " of ",
                                              moves.block_count()));
      }
    }
  }
  const size_t found = patterns.size();
  Table table = Automaton(&patterns, static_cast<size_t>(moves.block_count()), bytes);
  DefinedPruning out;
  out.blocks_ = table.blocks;
  out.states_ = table.blocks == 0 ? 1 : static_cast<int>(table.next.size() / static_cast<size_t>(table.blocks));
  if (out.states_ <= INT16_MAX) {
    out.narrow_.assign(table.next.begin(), table.next.end());
  } else {
    out.next_ = std::move(table.next);
  }
  // Where the longest were dropped to fit, those kept are complete to a shorter length.
  out.searched_length_ = patterns.size() == found ? searched_length
                         : patterns.empty()       ? 0
                                                  : static_cast<int>(patterns.back().size());
  out.patterns_ = std::move(patterns);
  return out;
}

}  // namespace puzzledb
