// The plain IDA* solvers the issues measure against, written the way a contest solution
// is: a char board, the textbook bound, no perimeter. Not used by the project itself.
#ifndef PUZZLEDB_BENCH_BASELINES_H_
#define PUZZLEDB_BENCH_BASELINES_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/util/huge_buffer.h"

namespace puzzledb::bench {

// Knight puzzle, bound: the number of knights not on their goal cell.
class PlainKnightIda {
 public:
  // Returns the distance if at most `cap`, else -1. `board` is the 25-character form.
  int Solve(const std::string& board, int cap) {
    for (int i = 0; i < 25; ++i) {
      cell_[i] = board[i];
      if (board[i] == '*') blank_ = i;
    }
    nodes_ = 0;
    for (int limit = Misplaced(); limit <= cap; ++limit) {
      if (Dfs(0, limit, -1)) return limit;
    }
    return -1;
  }
  uint64_t nodes() const { return nodes_; }

 private:
  int Misplaced() const {
    static const char* kGoal = "111110111100*110000100000";
    int count = 0;
    for (int i = 0; i < 25; ++i) count += (cell_[i] != kGoal[i] && cell_[i] != '*');
    return count;
  }
  bool Dfs(int g, int limit, int came_from) {
    ++nodes_;
    const int h = Misplaced();
    if (h == 0) return true;
    if (g + h > limit) return false;
    static const int dr[8] = {-2, -2, -1, -1, 1, 1, 2, 2};
    static const int dc[8] = {-1, 1, -2, 2, -2, 2, -1, 1};
    const int r = blank_ / 5, c = blank_ % 5;
    for (int m = 0; m < 8; ++m) {
      const int nr = r + dr[m], nc = c + dc[m];
      if (nr < 0 || nr > 4 || nc < 0 || nc > 4) continue;
      const int to = nr * 5 + nc;
      if (to == came_from) continue;
      const int from = blank_;
      std::swap(cell_[from], cell_[to]);
      blank_ = to;
      if (Dfs(g + 1, limit, from)) return true;
      blank_ = from;
      std::swap(cell_[from], cell_[to]);
    }
    return false;
  }
  char cell_[25];
  int blank_ = 0;
  uint64_t nodes_ = 0;
};

// Rotation game (POJ 2286), bound: 8 minus the largest count of one value in the centre.
class PlainRotationIda {
 public:
  // Returns the move letters of the shortest, lexicographically smallest solution.
  std::string Solve(const std::vector<int>& cells) {
    std::copy(cells.begin(), cells.end(), board_);
    path_.clear();
    for (int limit = Bound();; ++limit) {
      if (Dfs(0, limit, -1)) return path_;
    }
  }

 private:
  static constexpr int kLines[8][7] = {{0, 2, 6, 11, 15, 20, 22},   {1, 3, 8, 12, 17, 21, 23},
                                       {10, 9, 8, 7, 6, 5, 4},      {19, 18, 17, 16, 15, 14, 13},
                                       {23, 21, 17, 12, 8, 3, 1},   {22, 20, 15, 11, 6, 2, 0},
                                       {13, 14, 15, 16, 17, 18, 19}, {4, 5, 6, 7, 8, 9, 10}};
  static constexpr int kReverse[8] = {5, 4, 7, 6, 1, 0, 3, 2};
  static constexpr int kCentre[8] = {6, 7, 8, 11, 12, 15, 16, 17};

  int Bound() const {
    int count[4] = {0, 0, 0, 0};
    for (int c : kCentre) ++count[board_[c]];
    return 8 - std::max({count[1], count[2], count[3]});
  }
  void Shift(int m) {
    const int first = board_[kLines[m][0]];
    for (int i = 0; i < 6; ++i) board_[kLines[m][i]] = board_[kLines[m][i + 1]];
    board_[kLines[m][6]] = first;
  }
  bool Dfs(int g, int limit, int last) {
    const int h = Bound();
    if (h == 0) return true;
    if (g + h > limit) return false;
    for (int m = 0; m < 8; ++m) {
      if (last >= 0 && m == kReverse[last]) continue;
      Shift(m);
      path_.push_back(static_cast<char>('A' + m));
      if (Dfs(g + 1, limit, m)) return true;
      path_.pop_back();
      Shift(kReverse[m]);
    }
    return false;
  }
  int board_[24];
  std::string path_;
};

// Fifteen puzzle, the textbook IDA* over additive 6-6-3 pattern databases (Korf and Felner
// 2002), written as a plain program would be: the partition {1,5,6,9,10,13}
// {7,8,11,12,14,15} {2,3,4}; one byte per entry, indexed by the group's cells in tile
// order, four bits each (16^6 entries for a group of six: 16 MB, no ranking), so that a move
// changes the index of the group of the tile it carries by one addition and looks up only
// that group; the sum updated by the difference; a node reads all its children's entries
// before it enters the first (their cache misses overlap); moves tried U D L R (the empty
// place's direction), none undoing the last. No reflection, no prefetch instruction, no
// other pruning. Its tables sit in 2 MB pages where the kernel allows, as the solver's do
// (core/util/huge_buffer.h), so that the two pay the same for memory. It counts the nodes
// expanded (those within the threshold), as the solver does.
class TextbookFifteenIda {
 public:
  static constexpr const char* kPartition = "1,5,6,9,10,13/7,8,11,12,14,15/2,3,4";
  static constexpr int kMaxGroups = 8;
  static constexpr int kMaxGroupTiles = 7;  // 16^7 bytes: 256 MB

  // groups[g]: its tiles, at most kMaxGroupTiles; distances[g][Key(groups[g], cell_of)]:
  // its moves.
  TextbookFifteenIda(std::vector<std::vector<int>> groups, std::vector<HugeBuffer> distances)
      : groups_(std::move(groups)), distances_(std::move(distances)) {
    group_count_ = static_cast<int>(groups_.size());
    for (int g = 0; g < group_count_; ++g) {
      for (size_t i = 0; i < groups_[g].size(); ++i) {
        group_of_[groups_[g][i]] = g;
        shift_[groups_[g][i]] = static_cast<int>(4 * i);
      }
      table_[g] = distances_[g].data();
    }
    for (int cell = 0; cell < 16; ++cell) {
      const int r = cell / 4, c = cell % 4;
      const int to[4] = {r > 0 ? cell - 4 : -1, r < 3 ? cell + 4 : -1,
                         c > 0 ? cell - 1 : -1, c < 3 ? cell + 1 : -1};
      for (int m = 0; m < 4; ++m) next_[cell][m] = static_cast<int8_t>(to[m]);
    }
  }

  // The entry of the group's placement: the cells of its tiles, in its order, four bits
  // each, the first tile's lowest.
  static uint32_t Key(const std::vector<int>& group, const int* cell_of) {
    uint32_t key = 0;
    for (size_t i = 0; i < group.size(); ++i) {
      key |= static_cast<uint32_t>(cell_of[group[i]]) << (4 * i);
    }
    return key;
  }
  static uint64_t Entries(size_t tiles) { return uint64_t{1} << (4 * tiles); }

  // Returns the distance; `moves` gets the letters of the smallest optimal solution
  // (U < D < L < R).
  int Solve(const int* cells, std::string* moves) {
    int cell_of[16];
    for (int c = 0; c < 16; ++c) {
      board_[c] = cells[c];
      cell_of[cells[c]] = c;
    }
    nodes_ = 0;
    int h = 0;
    for (int g = 0; g < group_count_; ++g) {
      key_[g] = Key(groups_[g], cell_of);
      part_[g] = table_[g][key_[g]];
      h += part_[g];
    }
    for (int limit = h; !Dfs(0, h, limit, cell_of[0], -1); limit += 2) {
    }
    moves->clear();
    for (int i = 0; i < length_; ++i) moves->push_back("UDLR"[path_[i]]);
    return length_;
  }
  uint64_t nodes() const { return nodes_; }

 private:
  // Expands a node within the threshold (g + h <= limit); a child past it is not entered.
  // The children's entries are all read before the first is entered, so that their cache
  // misses overlap.
  bool Dfs(int g, int h, int limit, int blank, int undo) {
    if (h == 0) {
      length_ = g;
      return true;
    }
    ++nodes_;
    int child_h[4];
    uint32_t child_key[4];
    for (int m = 0; m < 4; ++m) {
      const int to = next_[blank][m];
      if (to < 0 || m == undo) {
        child_h[m] = 1 << 20;
        continue;
      }
      const int tile = board_[to];
      const int group = group_of_[tile];
      child_key[m] = key_[group] + (static_cast<uint32_t>(blank - to) << shift_[tile]);
      child_h[m] = h - part_[group] + table_[group][child_key[m]];
    }
    for (int m = 0; m < 4; ++m) {
      if (g + 1 + child_h[m] > limit) continue;
      const int to = next_[blank][m];
      const int tile = board_[to];
      const int group = group_of_[tile];
      const uint32_t key_before = key_[group];
      const int part_before = part_[group];
      board_[blank] = tile;  // the empty place's cell of board_ is never read: not cleared
      key_[group] = child_key[m];
      part_[group] = part_before + child_h[m] - h;
      path_[g] = m;  // ints: a char store could alias every member, reloaded after it
      if (Dfs(g + 1, child_h[m], limit, to, m ^ 1)) return true;
      key_[group] = key_before;
      part_[group] = part_before;
      board_[to] = tile;
    }
    return false;
  }

  std::vector<std::vector<int>> groups_;
  std::vector<HugeBuffer> distances_;
  int group_count_ = 0;
  const uint8_t* table_[kMaxGroups] = {};
  int group_of_[16] = {};
  int shift_[16] = {};
  uint32_t key_[kMaxGroups] = {};
  int part_[kMaxGroups] = {};
  int8_t next_[16][4] = {};
  int board_[16] = {};
  int path_[256] = {};
  int length_ = 0;
  uint64_t nodes_ = 0;
};

}  // namespace puzzledb::bench

#endif  // PUZZLEDB_BENCH_BASELINES_H_
