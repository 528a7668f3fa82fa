// Duplicate block sequences of a definition (issue 51): the fifteen's move pruning
// (core/sliding/move_pruning.h, after Taylor and Korf 1993) for any definition, guarded
// moves included. The live search never plays a sequence of blocks whose effect, on every
// state where it applies, is also that of a shorter sequence or of one of the same length
// whose moves come first in canonical order; none is a stretch of the smallest optimal
// answer (replacing it would give a shorter answer, or a smaller one), so the answers stay
// the same, in fewer states.
//
// The sequences are played symbolically: a sequence of blocks is where each byte of the
// result comes from (and how far it turns), and what its guards ask of the start. A
// sequence A is a duplicate of B when both move every byte alike, B asks nothing that A
// does not, and on every state A applies to B's moves play B's blocks (no earlier block of
// the same move can hold there). The minimal duplicates (every proper stretch kept) are the
// patterns of an Aho-Corasick automaton over blocks; the search carries its state along
// the path and drops a block that completes a pattern.
#ifndef PUZZLEDB_CORE_DEFINED_DEFINED_PRUNING_H_
#define PUZZLEDB_CORE_DEFINED_DEFINED_PRUNING_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "core/definition/defined_index.h"
#include "core/definition/definition.h"

namespace puzzledb {

class DefinedPruning {
 public:
  // The state before any block.
  static constexpr int32_t kStart = 0;
  // What Next says when the path then ends with a duplicate.
  static constexpr int32_t kPruned = -1;

  DefinedPruning() = default;  // prunes nothing

  // The automaton of the duplicates of up to `max_length` blocks, found within `bytes` of
  // work space (sequences kept while searching, and the automaton's table): a definition
  // of many blocks gets shorter patterns, or none, never a longer load.
  static DefinedPruning Find(const Definition& definition, const CompiledMoves& moves,
                             int max_length = 10, uint64_t bytes = uint64_t{64} << 20);

  // The automaton of patterns found before (by Find, as patterns() lists them, with its
  // searched_length()): INVALID_ARGUMENT for a block out of range or an empty pattern.
  static absl::StatusOr<DefinedPruning> FromPatterns(const CompiledMoves& moves,
                                                     std::vector<std::vector<int>> patterns,
                                                     int searched_length,
                                                     uint64_t bytes = uint64_t{64} << 20);

  // The state after block b (of CompiledMoves) from `state`, or kPruned.
  int32_t Next(int32_t state, int block) const {
    if (blocks_ == 0) return kStart;
    const size_t at = static_cast<size_t>(state) * static_cast<size_t>(blocks_) + static_cast<size_t>(block);
    return narrow_.empty() ? next_[at] : narrow_[at];
  }
  // The minimal duplicates found, as block sequences, shortest first.
  const std::vector<std::vector<int>>& patterns() const { return patterns_; }
  // Every minimal duplicate of up to this many blocks is in patterns().
  int searched_length() const { return searched_length_; }
  int states() const { return states_; }

 private:
  int blocks_ = 0;              // 0: no table, nothing pruned
  std::vector<int32_t> next_;   // [state * blocks_ + block]; empty where narrow_ holds it
  std::vector<int16_t> narrow_; // the same in half the bytes, where the states fit
  int states_ = 1;
  std::vector<std::vector<int>> patterns_;
  int searched_length_ = 0;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_DEFINED_DEFINED_PRUNING_H_
