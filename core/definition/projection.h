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
};

struct ProjectionSpec {
  std::vector<ProjectedSet> sets;  // each set at most once; the others are left out
};

// The spec read from text: sets separated by ';', each its name, then optionally the labels
// told apart ("1-6,9") and "-o" to leave its orientations out:
//   "CORNER"   "EDGE 1-6"   "CORNER -o; EDGE 1-4,7"
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
  // set, or a spec that keeps nothing.
  static absl::StatusOr<Projection> Make(const Definition& definition, const ProjectionSpec& spec);

  // The projection as a definition of its own: its sets (in the definition's order), goals
  // and moves, ready for an index and a search.
  const Definition& projected() const { return projected_; }
  const ProjectionSpec& spec() const { return spec_; }
  // The projected state of a state of the definition (`to` is resized).
  void Project(const DefinedState& from, DefinedState* to) const;

 private:
  // Where each byte of a projected state comes from: the definition's byte `from`, mapped
  // through `labels` (a label's projected label; empty for an orientation).
  struct Byte {
    size_t from = 0;
    std::vector<uint8_t> labels;
  };

  ProjectionSpec spec_;
  Definition projected_;
  std::vector<Byte> bytes_;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_DEFINITION_PROJECTION_H_
