// The plain IDA* solvers the issues measure against, written the way a contest solution
// is: a char board, the textbook bound, no perimeter. Not used by the project itself.
#ifndef PUZZLEDB_BENCH_BASELINES_H_
#define PUZZLEDB_BENCH_BASELINES_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

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

// Fifteen puzzle, the textbook additive 6-6-3 IDA*: three byte tables (one distance per
// placement of a group, indexed by the group's cells in tile order, 16 * 15 * ... ranks);
// a move looks up again the group of the tile it carries; no reflection, no prefetching.
class PlainFifteenIda {
 public:
  // distances[g][index]: group g's exact moves for the placement `index` (PositionIndex).
  PlainFifteenIda(std::vector<std::vector<int>> groups, std::vector<std::vector<uint8_t>> distances)
      : groups_(std::move(groups)), distances_(std::move(distances)) {
    for (size_t g = 0; g < groups_.size(); ++g) {
      for (int t : groups_[g]) group_of_[t] = static_cast<int>(g);
    }
  }

  // The cells of the tiles of `group` (in its order) as an index: each cell ranked among
  // the cells the group's earlier tiles leave free.
  static uint64_t PositionIndex(const std::vector<int>& group, const int* cell_of) {
    uint64_t index = 0;
    uint32_t used = 0;
    for (size_t i = 0; i < group.size(); ++i) {
      const int cell = cell_of[group[i]];
      const int rank = cell - __builtin_popcount(used & ((1u << cell) - 1));
      index = index * (16 - i) + static_cast<uint64_t>(rank);
      used |= 1u << cell;
    }
    return index;
  }

  // Returns the distance; `moves` gets the letters of the smallest optimal solution.
  int Solve(const int* cells, std::string* moves) {
    for (int c = 0; c < 16; ++c) {
      board_[c] = cells[c];
      cell_of_[cells[c]] = c;
    }
    nodes_ = 0;
    path_.clear();
    int h = 0;
    for (size_t g = 0; g < groups_.size(); ++g) {
      part_[g] = distances_[g][PositionIndex(groups_[g], cell_of_)];
      h += part_[g];
    }
    for (int limit = h;; limit += 2) {
      if (Dfs(0, h, limit, -1)) break;
    }
    *moves = path_;
    return static_cast<int>(path_.size());
  }
  uint64_t nodes() const { return nodes_; }

 private:
  // Counts the nodes expanded (those within the threshold), as the solver does.
  bool Dfs(int g, int h, int limit, int undo) {
    if (h == 0) return true;
    if (g + h > limit) return false;
    ++nodes_;
    static const int dr[4] = {-1, 1, 0, 0}, dc[4] = {0, 0, -1, 1};
    static const char names[4] = {'U', 'D', 'L', 'R'};
    const int blank = cell_of_[0];
    for (int m = 0; m < 4; ++m) {
      if (m == undo) continue;
      const int r = blank / 4 + dr[m], c = blank % 4 + dc[m];
      if (r < 0 || r > 3 || c < 0 || c > 3) continue;
      const int to = r * 4 + c, tile = board_[to];
      board_[blank] = tile;
      board_[to] = 0;
      cell_of_[tile] = blank;
      cell_of_[0] = to;
      const int group = group_of_[tile];
      const int before = part_[group];
      part_[group] = distances_[group][PositionIndex(groups_[group], cell_of_)];
      path_.push_back(names[m]);
      if (Dfs(g + 1, h - before + part_[group], limit, m ^ 1)) return true;
      path_.pop_back();
      part_[group] = before;
      board_[to] = tile;
      board_[blank] = 0;
      cell_of_[tile] = to;
      cell_of_[0] = blank;
    }
    return false;
  }

  std::vector<std::vector<int>> groups_;
  std::vector<std::vector<uint8_t>> distances_;
  int group_of_[16] = {};
  int part_[16] = {};
  int board_[16];
  int cell_of_[16];
  std::string path_;
  uint64_t nodes_ = 0;
};

}  // namespace puzzledb::bench

#endif  // PUZZLEDB_BENCH_BASELINES_H_
