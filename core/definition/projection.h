// A projection of a definition (issue 51): the puzzle seen through part of its state. It
// keeps some sets, tells apart some of their pieces (the others become one identical
// piece), and counts their orientations or not. Every move of the puzzle is a move of the
// projection, and every goal a goal, so a projected state's distance is never more than
// the distance of any state it is the projection of: a complete table of the projection
// (the search of core/defined/) bounds the whole puzzle's distances from below.
//
// A guarded move's blocks become one move each in the projection (`U#1`, `U#2`, ...):
// guards that read what the projection leaves out are dropped, so that more than one block
// may apply to a projected state, and each is a way the projection can move.
//
// *Free* pieces (`T 1-6 ~16`: the blank of sliding tiles) are told apart while the
// projection is searched, so that guards that read them hold as in the puzzle, but a move
// costs nothing unless it moves a piece told apart; the table keeps, for each state with the
// free pieces merged, the least over where they may be. Such a projection counts only the
// moves of its own pieces: the tables of several add up where no move moves the pieces of
// two (MoveDisjoint), and they see the blank's detours that a merged blank hides.
#ifndef PUZZLEDB_CORE_DEFINITION_PROJECTION_H_
#define PUZZLEDB_CORE_DEFINITION_PROJECTION_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/definition/definition.h"

namespace puzzledb {

// What a projection keeps of one set.
struct ProjectedSet {
  std::string name;         // the set's name in the definition
  std::vector<int> pieces;  // the labels told apart (1-based); empty: every label
  bool orientations = true; // count the pieces' orientations (where the set has them)
  std::vector<int> free;    // labels told apart while searching, whose moves cost nothing
};

struct ProjectionSpec {
  std::vector<ProjectedSet> sets;  // each set at most once; the others are left out
  // 0: the projection's goals are those of every goal; g > 0: those of the definition's
  // Solved block g alone (1-based, as written "goal 2: ..."), whose table then bounds the
  // distance to that block's goals only (a goal table: the search takes the least over
  // the blocks).
  int goal = 0;

  bool has_free() const {
    for (const ProjectedSet& set : sets) {
      if (!set.free.empty()) return true;
    }
    return false;
  }
  // The same with its free pieces merged: what its table is laid out by.
  ProjectionSpec WithoutFree() const {
    ProjectionSpec out = *this;
    for (ProjectedSet& set : out.sets) set.free.clear();
    return out;
  }
};

// The spec read from text: sets separated by ';', each its name, then optionally the labels
// told apart ("1-6,9"), "-o" to leave its orientations out and "~" before free labels:
//   "CORNER"   "EDGE 1-6"   "CORNER -o; EDGE 1-4,7"   "T 1-6 ~16"
// and, first, "goal N:" for the table of Solved block N's goals alone: "goal 2: B 1".
// INVALID_ARGUMENT naming the set or the word that is wrong.
absl::StatusOr<ProjectionSpec> ParseProjection(std::string_view text, const Definition& definition);
// The spec as ParseProjection reads it.
std::string FormatProjection(const ProjectionSpec& spec);

// True when the projections are disjoint in the moves that change them: wherever a block of
// the definition applies, it changes the projected state of at most one of them (the
// fifteen's tile groups with the blank told apart in none: a move carries one tile). A
// projection's distance counts only moves that change its state, so the sum of their
// distances is then a lower bound too. Decided from the blocks alone, conservatively: a
// piece a guard does not name may be any piece of its set, and a projection that keeps a
// set's orientations sees any piece of it move.
bool MoveDisjoint(const Definition& definition, const std::vector<ProjectionSpec>& specs);

class Projection {
 public:
  // INVALID_ARGUMENT for a set the definition lacks or names twice, a label out of its
  // set, a spec that keeps nothing, or free pieces where the projection keeps more than one
  // set, the set's orientations, or no labels told apart (or the free ones among them).
  // The projected definition tells the free pieces apart.
  static absl::StatusOr<Projection> Make(const Definition& definition, const ProjectionSpec& spec);

  // The projection as a definition of its own: its sets (in the definition's order), goals
  // and moves, ready for an index and a search.
  const Definition& projected() const { return projected_; }
  const ProjectionSpec& spec() const { return spec_; }
  // By label of the projected definition: whether a move that moves a piece of that label
  // costs one (the labels told apart and not free). Empty without free pieces: every move
  // costs one.
  const std::vector<bool>& counted() const { return counted_; }
  // The projected state of a state of the definition (`to` is resized).
  void Project(const DefinedState& from, DefinedState* to) const;
  // What Project does, byte by byte: projected byte i (of bytes()) is ValueOf(i, v) where
  // the definition's byte SourceOf(i) holds v (0 for a label the set has not).
  int bytes() const { return static_cast<int>(bytes_.size()); }
  size_t SourceOf(int i) const { return bytes_[static_cast<size_t>(i)].from; }
  uint8_t ValueOf(int i, uint8_t v) const {
    const Byte& b = bytes_[static_cast<size_t>(i)];
    if (b.labels.empty()) return v;
    return v < b.labels.size() ? b.labels[v] : 0;
  }

 private:
  // Where each byte of a projected state comes from: the definition's byte `from`, mapped
  // through `labels` (a label's projected label; empty for an orientation).
  struct Byte {
    size_t from = 0;
    std::vector<uint8_t> labels;
  };

  ProjectionSpec spec_;
  Definition projected_;
  std::vector<bool> counted_;
  std::vector<Byte> bytes_;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_DEFINITION_PROJECTION_H_
