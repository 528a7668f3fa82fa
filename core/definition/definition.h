// A puzzle given as data: a definition file (docs/PUZZLES.md, "Puzzles as data": twsearch's
// `.tws` format, with guarded moves and several goals) read into one value. Sets of
// positions hold pieces, each piece with an orientation; a move sends the piece at one
// position to another, adding to its orientation; a guarded move applies only where its
// guards hold. Read by read_definition.h; the runtime puzzle, the index and the tables are
// built on it.
//
// A Definition is immutable once read: every method may be called from any thread.
#ifndef PUZZLEDB_CORE_DEFINITION_DEFINITION_H_
#define PUZZLEDB_CORE_DEFINITION_DEFINITION_H_

#include <cstddef>
#include <bitset>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace puzzledb {

// A state: for each set in file order, its N piece labels (1..N), then, if its pieces have
// orientations (K > 1), its N orientations (0..K-1).
using DefinedState = std::vector<uint8_t>;

struct DefinedSet {
  std::string name;
  int size = 0;          // positions and pieces, 1..255
  int orientations = 1;  // of each piece, 1..255 (1: none)
  int offset = 0;        // its labels in a DefinedState; its orientations (if K > 1) follow them
  // Labels whose orientation no goal reads (twsearch's `?` in a Solved block): wherever
  // such a piece is, its position's orientation is kept 0 (ForgetWildTwists).
  std::bitset<256> wild;
};

// Sets the orientation of every position holding a wild piece (DefinedSet::wild) to 0: what
// a move does after turning pieces, so that states equal but for those twists are one.
void ForgetWildTwists(const std::vector<DefinedSet>& sets, uint8_t* state);

// What a move does where it applies: position j of each set takes the piece that was at
// position source[j] of that set (0-based, within the set), and that piece's orientation
// gains twist[j] (modulo the set's orientations). Indexed by the set's positions laid end
// to end, in file order.
struct Transform {
  std::vector<uint8_t> source;
  std::vector<uint8_t> twist;
};

// A condition of a guarded move: position `position` (0-based) of set `set` holds the
// piece labelled `piece` (0: any), with orientation `orientation` (-1: any).
struct Guard {
  int set = 0;
  int position = 0;
  int piece = 0;
  int orientation = -1;
};

struct MoveBlock {
  std::vector<Guard> guards;  // all must hold; none for an unguarded move
  Transform transform;
  int line = 0;  // where the block starts in the file
};

// A move as answers count it: an unguarded move, one of its powers, or a guarded move
// (whose blocks, at most one of which applies in any reachable state, are one move).
struct DefinedMove {
  std::string name;
  std::vector<MoveBlock> blocks;
  bool guarded = false;
  bool single = false;  // "Move A single": an unguarded move without its powers
  int power = 1;  // of the move as written (unguarded moves' powers: 2, 3, ... or negative)
};

// twsearch's Illegal: no state holds at byte `at` (a position's label) any of `labels`; a
// move that would lead to such a state does not apply.
struct IllegalPlace {
  uint16_t at = 0;
  std::bitset<256> labels;
  int line = 0;  // the first Illegal line that names the position
};

class Definition {
 public:
  const std::string& title() const { return title_; }
  const std::vector<DefinedSet>& sets() const { return sets_; }
  // Every goal state: each Solved block in file order, one that leaves positions to any
  // piece ('?') standing for every way its pieces fill them. The first is *the* goal where
  // one is needed: the first block with its free positions filled in position order with
  // the pieces it leaves, ascending.
  const std::vector<DefinedState>& goals() const { return goals_; }
  // The Solved blocks as written, one each: a label 0 is a position any piece may fill.
  const std::vector<DefinedState>& patterns() const { return patterns_; }
  // Whether some Solved block leaves a position to any piece.
  bool has_free_goals() const { return free_; }
  // Whether `state` is one that Solved block `pattern` (0-based) stands for.
  bool Matches(size_t pattern, const uint8_t* state) const;
  // In canonical order (docs/PUZZLES.md): as first written, each unguarded move followed by
  // its powers.
  const std::vector<DefinedMove>& moves() const { return moves_; }
  size_t state_bytes() const { return state_bytes_; }
  // The positions Illegal lines forbid labels at (none in most definitions).
  const std::vector<IllegalPlace>& illegal() const { return illegal_; }
  // Whether `state` breaks no Illegal line.
  bool Legal(const uint8_t* state) const {
    for (const IllegalPlace& place : illegal_) {
      if (place.labels[state[place.at]]) return false;
    }
    return true;
  }

  // `to` = `from` after move `move`; false (and `to` unchanged) where it does not apply: no
  // block's guards hold, or the state it leads to breaks an Illegal line.
  bool Apply(const DefinedState& from, int move, DefinedState* to) const;
  bool IsGoal(const DefinedState& state) const { return IsGoal(state.data()); }
  bool IsGoal(const uint8_t* state) const;
  // The move of that name (or of that alias: twsearch's MoveAlias), or -1.
  int MoveByName(std::string_view name) const;

  // The compact form (docs/PUZZLES.md): "1 2 3 4 5 6 / 0 0 0 0 0 0 | 1 2 3". A state is
  // valid when each set holds the goal's labels and orientations below its count;
  // INVALID_ARGUMENT naming the set and the rule otherwise.
  absl::StatusOr<DefinedState> ParseCompact(std::string_view text) const;
  // A state, or a pattern (patterns()), whose free positions it writes as '?'.
  std::string FormatCompact(const DefinedState& state) const;
  // The state a sequence of move names ("U R2 F'") leads to from the first goal:
  // INVALID_ARGUMENT naming the move that is none of the puzzle's or does not apply.
  absl::StatusOr<DefinedState> ParseMoves(std::string_view text) const;

 private:
  friend class DefinitionReader;
  friend class Projection;

  // After goals_ and patterns_ are set: free_ and sorted_goals_.
  void SettleGoalLookup();
  // Apply, Illegal lines not read.
  bool ApplyAnywhere(const DefinedState& from, int move, DefinedState* to) const;

  std::string title_;
  std::vector<DefinedSet> sets_;
  std::vector<DefinedState> goals_;
  std::vector<DefinedState> patterns_;
  bool free_ = false;  // some pattern has a free position
  std::vector<DefinedState> sorted_goals_;  // goals_, sorted, where they are many
  std::vector<DefinedMove> moves_;
  std::vector<IllegalPlace> illegal_;
  std::vector<std::pair<std::string, int>> aliases_;  // twsearch's MoveAlias: a name, its move
  size_t state_bytes_ = 0;
};

// Whether two definitions are one puzzle: the same sets, goals (in any order) and moves
// (names, powers, guards and transforms), whatever their titles and lines. Two projections
// that are (the goal tables of goals alike but for the labels they name) have one table.
bool SamePuzzle(const Definition& a, const Definition& b);

// `first` then `second`, as one transform. REQUIRES: both over the same sets.
Transform Compose(const std::vector<DefinedSet>& sets, const Transform& first,
                  const Transform& second);

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_DEFINITION_DEFINITION_H_
