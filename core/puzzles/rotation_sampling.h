// Drawing rotation-game boards at an exact distance, uniformly (docs/API.md, "Sample").
//
// The table knows placements (which 8 cells hold one value), but people ask for boards:
// 24 cells holding 1, 2 and 3, eight of each, 9,465,511,770 of them. A board's distance is
// the smallest of its three placements', so a uniform board at distance d is not a uniform
// placement at distance d with the rest filled in at random: boards whose other values
// are far are rarer. This sampler draws uniformly among the *boards* at distance d:
//
// A board at distance d is, once for each value whose placement is at d (its
// multiplicity m, 1 to 3), a triple (value v, placement P at distance d, an ordered split
// of the other 16 cells into the placements of the next two values, both at distance >= d).
// Counting those splits for every placement at distance d (w(P)) and drawing P in
// proportion to w(P), the split uniformly among P's, and v uniformly, draws such triples
// uniformly; keeping a draw with probability 1/m then makes every board equally likely.
// The same counts give the number of boards at distance d: 3 * sum over P and its splits
// of 1/m.
//
// Counting costs 6,435 pairs of lookups per placement, and the board's eight symmetries
// (the '#' is symmetric under the dihedral group of the square; they map lines to lines
// and keep the centre, so they keep distances) let one placement of each orbit stand for
// the others: about a second for the largest distance level on one core, once per distance
// asked for, then kept.
#ifndef PUZZLEDB_CORE_PUZZLES_ROTATION_SAMPLING_H_
#define PUZZLEDB_CORE_PUZZLES_ROTATION_SAMPLING_H_

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/status/statusor.h"
#include "core/model/model.h"
#include "core/puzzles/rotation.h"
#include "core/util/random.h"

namespace puzzledb {

// Thread-safe.
class RotationBoardSampler {
 public:
  // `distances`: every placement's exact distance by rank (255: not covered), kept alive by
  // the caller for the sampler's lifetime.
  explicit RotationBoardSampler(const uint8_t* distances);

  // Boards at board distance d.
  absl::StatusOr<uint64_t> Population(int d, const SearchLimits& limits) const;
  // `count` distinct boards drawn uniformly among those at distance d (all of them, in
  // random order, when there are no more than `count`).
  absl::StatusOr<std::vector<RotationBoard>> Draw(int d, uint64_t count, SeededRng& rng,
                                                  const SearchLimits& limits) const;

  // The board symmetries as cell permutations: image[g][cell] (g = 0 is the identity).
  static const std::array<std::array<int, 24>, 8>& Symmetries();
  static uint32_t Transform(int g, uint32_t mask);

 private:
  // What one distance needs, computed on first use.
  struct Level {
    std::vector<uint32_t> placements;  // the placements at distance d, in rank order
    std::vector<uint64_t> prefix;      // prefix[i]: splits of the placements before i
    uint64_t boards = 0;               // boards at distance d
  };
  absl::StatusOr<std::shared_ptr<const Level>> LevelFor(int d, const SearchLimits& limits) const;
  uint8_t DistanceOf(uint32_t placement) const;
  // The placements (v's, then the next two values') of the k-th split of `placement`'s
  // complement that keeps both at distance >= d, with the board's multiplicity.
  struct Split {
    uint32_t q = 0, r = 0;
    int multiplicity = 1;
  };
  Split KthSplit(uint32_t placement, int d, uint64_t k) const;

  const uint8_t* const distances_;
  std::vector<uint16_t> halves_;  // the 16-bit masks with 8 bits set and bit 0 set (6,435)
  mutable std::mutex mutex_;  // guards levels_
  mutable std::map<int, std::shared_ptr<const Level>> levels_;
  mutable std::mutex count_mutex_;  // held while a distance is counted
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_PUZZLES_ROTATION_SAMPLING_H_
