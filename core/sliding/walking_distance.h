// The walking distance of the 4x4 board (docs/PUZZLES.md, section 5, "Walking distance";
// after Takahashi): a lower bound on the distance that the pattern tables do not see,
// kept by the search as a third maximum.
//
// Along one axis (rows, say), forget which column every tile is in and which tile is
// which among those of the same home row: what is left is, for each row, how many of its
// tiles belong home in each row, and the row of the empty place. A move up or down takes
// one tile from the empty place's neighbouring row into the empty place's row, and a move
// left or right changes nothing there. The exact distance of that smaller puzzle (a
// breadth-first search over its 24,964 states) is a lower bound on the moves up and down;
// the same along the columns bounds the moves left and right, and their sum the distance.
// It dominates the Manhattan distance: it also counts the moves one tile makes to let
// another of the same row pass.
//
// The goal (tile t's home cell t - 1, the empty place on the last cell) is the same along
// both axes after a transposition, so one table serves both: along the columns, a tile's
// "row" is its column and its home "row" its home column.
#ifndef PUZZLEDB_CORE_SLIDING_WALKING_DISTANCE_H_
#define PUZZLEDB_CORE_SLIDING_WALKING_DISTANCE_H_

#include <cstdint>
#include <utility>
#include <vector>

namespace puzzledb {

class WalkingDistance {
 public:
  // A state of one axis, packed with its distance: state number * 64 + distance.
  using Packed = int32_t;
  static constexpr int kDistanceBits = 6;

  WalkingDistance();
  // The process's table, built on first use (about 25,000 states, a few milliseconds).
  static const WalkingDistance& Default();

  // The packed state of a board (`tile_at` by cell, 0 the empty place) along the rows
  // (axis 0) or the columns (axis 1).
  template <typename TileNumber>
  Packed Of(int axis, const TileNumber* tile_at) const {
    uint8_t count[4][4] = {};  // [line][home line]
    int empty_line = 0;
    for (int cell = 0; cell < 16; ++cell) {
      const int line = axis == 0 ? cell / 4 : cell % 4;
      const int tile = static_cast<int>(tile_at[cell]);
      if (tile == 0) {
        empty_line = line;
      } else {
        ++count[line][axis == 0 ? (tile - 1) / 4 : (tile - 1) % 4];
      }
    }
    return Find(count, empty_line);
  }

  // After the empty place moves to the line before its own (`later` false: up, or left
  // along the columns) or after it (`later` true), trading places with a tile whose home
  // line is `home`. REQUIRES: such a tile is on that line (the board's own move).
  Packed Next(Packed state, bool later, int home) const {
    return next_[(state >> kDistanceBits) * 8 + (later ? 4 : 0) + home];
  }
  static int Distance(Packed state) { return state & ((1 << kDistanceBits) - 1); }

  int states() const { return static_cast<int>(next_.size() / 8); }
  int largest() const { return largest_; }

 private:
  Packed Find(const uint8_t (&count)[4][4], int empty_line) const;

  std::vector<Packed> next_;  // [state][later][home], -1 where no such tile is
  // Every state's key (the counts, 3 bits each, then the empty place's line) and packed
  // state, by key.
  std::vector<std::pair<uint64_t, Packed>> by_key_;
  int largest_ = 0;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_SLIDING_WALKING_DISTANCE_H_
