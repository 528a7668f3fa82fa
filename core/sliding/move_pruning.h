// Pruning of duplicate move sequences on the 4x4 board (docs/PUZZLES.md, section 5; after
// Taylor and Korf 1993): a sequence of the empty place's moves whose effect on the board
// (the cells of every tile and of the empty place) is also that of a shorter sequence, or
// of a lexicographically smaller one of the same length (U < D < L < R), is never searched.
//
// The pruning keeps the exact distance and the lexicographically smallest optimal answer.
// The equivalent sequence is required to stay within the rows and columns the pruned one
// spans, so it can be played wherever the pruned one can. In an optimal path, replacing a
// pruned stretch by its equivalent would give a shorter path (impossible) or an optimal
// one that is smaller at the stretch's first move. So no stretch of the smallest optimal
// path is ever pruned.
//
// The sequences are found by playing every sequence up to kMaxLength moves from the
// middle of a board large enough for none to reach its edge. The minimal ones (all of
// whose proper stretches are kept) become the patterns of an Aho-Corasick automaton. The
// search carries its state along the path and drops a move that completes a pattern.
// Finding the automaton of kMaxLength takes about a second, so the build finds it once
// (core/sliding/move_pruning_gen.cc) and compiles it in: Default() costs nothing.
#ifndef PUZZLEDB_CORE_SLIDING_MOVE_PRUNING_H_
#define PUZZLEDB_CORE_SLIDING_MOVE_PRUNING_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace puzzledb {

class MovePruning {
 public:
  // Sequences of up to 12 moves: 2,536 patterns, 11,759 states (docs/PERFORMANCE.md, "Move
  // pruning"). The states are kept in 16 bits: 12 is the longest that fits.
  static constexpr int kMaxLength = 12;

  // Finds the automaton for sequences up to `max_length` (1..kMaxLength) moves: about a
  // second for kMaxLength (the build's generator and a test do it; tests use shorter ones).
  explicit MovePruning(int max_length);
  // The automaton of kMaxLength, compiled in.
  static const MovePruning& Default();

  // The state before any move.
  static constexpr int kStart = 0;
  // The state after `move` (0..3: U D L R) from `state`; kPruned if the path so far then
  // ends with a pruned sequence.
  static constexpr int32_t kPruned = -1;
  int32_t Next(int32_t state, int move) const { return next_[4 * state + move]; }

  // The minimal pruned sequences, as letters U D L R, shortest first.
  const std::vector<std::string>& patterns() const { return patterns_; }
  // Next() as a table: [4 * state + move].
  const std::vector<int16_t>& table() const { return next_; }

 private:
  MovePruning(std::vector<int16_t> next, std::vector<std::string> patterns)
      : next_(std::move(next)), patterns_(std::move(patterns)) {}

  std::vector<int16_t> next_;  // [state][move]
  std::vector<std::string> patterns_;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_SLIDING_MOVE_PRUNING_H_
