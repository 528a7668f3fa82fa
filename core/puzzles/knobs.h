// The twelve wired knobs (Luogu P5507). Knob i shows 1..4; turning it advances it and the
// knob w[i][s] it is wired to for its current state s. The wiring is a parameter: every
// wiring is its own puzzle with its own space and table.
//
// A state packs knob i (0-based) as (state - 1) in bits 2i..2i+1: 4^12 = 16,777,216 states,
// the goal (all knobs at 1) is 0. The model's own dense index (live search) is the packed
// word; its table's space is the solvable half (KnobsSolvableSpace, docs/FORMAT.md).
#ifndef PUZZLEDB_CORE_PUZZLES_KNOBS_H_
#define PUZZLEDB_CORE_PUZZLES_KNOBS_H_

#include <array>
#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/model/model.h"

namespace puzzledb {

// A knobs wiring: target[4 * i + s] is the 0-based knob that turning knob i (0-based)
// from state s + 1 also advances. Never i itself.
struct KnobsWiring {
  std::array<uint8_t, 48> target{};
  bool operator==(const KnobsWiring&) const = default;

  // Validates 48 knob numbers 1..12 (knob 1's targets for states 1..4, then knob 2's, ...).
  static absl::StatusOr<KnobsWiring> FromNumbers(const std::vector<uint32_t>& numbers);
  // The wiring as 48 knob numbers 1..12, the inverse of FromNumbers.
  std::vector<uint32_t> ToNumbers() const;
  // A stable 64-bit fingerprint (FNV-1a of the 48 bytes) that names the wiring's table.
  uint64_t Fingerprint() const;
};

// The states on the goal's side of the parity, the knobs' table space (docs/FORMAT.md,
// "The knobs' space"). A turn advances two knobs by one step each, so the parity of the sum
// of the knob states never changes: the goal's side is the half with an even sum, and there
// knob 1's low bit (bit 0) is the parity of the other knobs' low bits. The index drops it:
// 2^23 = 8,388,608 indices, the state shifted right by one.
class KnobsSolvableSpace {
 public:
  using State = uint32_t;
  static constexpr int kNumMoves = 12;

  KnobsSolvableSpace() = default;
  explicit KnobsSolvableSpace(const KnobsWiring& wiring) : wiring_(wiring) {}
  const KnobsWiring& wiring() const { return wiring_; }

  uint64_t Size() const { return uint64_t{1} << 23; }
  // REQUIRES: `s` has an even sum (!KnobsPuzzle::ProvablyUnsolvable(s)).
  uint64_t Rank(State s) const { return s >> 1; }
  State Unrank(uint64_t index) const {
    const auto high = static_cast<State>(index << 1);
    return high | (std::popcount(high & kLowBits) & 1);
  }
  // The parity of the sum of the knob states: the parity of their low bits.
  static bool OddSum(State s) { return (std::popcount(s & kLowBits) & 1) != 0; }

  static int Knob(State s, int knob) { return (s >> (2 * knob)) & 3; }
  bool Apply(State s, int knob, State* out) const {
    const int other = wiring_.target[4 * knob + Knob(s, knob)];
    *out = Advance(Advance(s, knob, 1), other, 1);
    return true;
  }
  // Turning knob i is a permutation of the states: the predecessor is unique. Knob i showed
  // one step less, and that earlier state chose the wired knob.
  bool Undo(State s, int knob, State* out) const {
    const int before = (Knob(s, knob) + 3) & 3;
    const int other = wiring_.target[4 * knob + before];
    *out = Advance(Advance(s, knob, 3), other, 3);
    return true;
  }
  std::vector<State> Goals() const { return {0}; }

 private:
  static constexpr State kLowBits = 0x555555;
  static State Advance(State s, int knob, int steps) {
    const int shift = 2 * knob;
    const uint32_t value = ((s >> shift) + static_cast<uint32_t>(steps)) & 3;
    return (s & ~(3u << shift)) | (value << shift);
  }

  KnobsWiring wiring_;
};

class KnobsPuzzle {
 public:
  using Params = KnobsWiring;
  using State = uint32_t;
  struct Instance {
    Params params;
    State state = 0;
  };
  using Space = KnobsSolvableSpace;

  static constexpr std::string_view kName = "knobs";
  static constexpr std::string_view kTitle = "The twelve wired knobs (Luogu P5507)";
  static constexpr std::string_view kCompactHelp =
      "60 numbers: for knob 1..12 its position 1..4, then the knobs it turns from positions "
      "1..4 (the original input's 12 lines on one line)";
  static constexpr std::string_view kExample =
      "1 10 8 12 7 3 4 4 8 3 3 5 4 7 11 1 7 9 9 5 3 3 8 2 7 1 11 9 1 12 3 4 11 1 8 3 10 12 9 5 "
      "3 1 7 6 2 1 12 11 4 6 4 9 12 12 5 2 5 6 1 9";
  static constexpr int kKnobs = 12;
  static constexpr int kNumMoves = 12;
  static constexpr int kDefaultMaxMoves = 0;
  // Whether the goal is one state (else which goal a solution reaches is worth telling).
  static constexpr bool kSingleGoal = true;
  static constexpr int kMaxKeys = 1;
  static constexpr LiveSearchKind kLiveSearch = LiveSearchKind::kBidirectional;

  KnobsPuzzle() = default;
  explicit KnobsPuzzle(const Params& wiring) : space_(wiring) {}
  const Params& params() const { return space_.wiring(); }
  const Space& space() const { return space_; }

  // Every state, by the packed word (the dense index of the bidirectional live search).
  uint64_t Size() const { return uint64_t{1} << (2 * kKnobs); }
  uint64_t Rank(State s) const { return s; }
  State Unrank(uint64_t index) const { return static_cast<State>(index); }

  static int Knob(State s, int knob) { return KnobsSolvableSpace::Knob(s, knob); }
  bool Apply(State s, int knob, State* out) const { return space_.Apply(s, knob, out); }
  bool Undo(State s, int knob, State* out) const { return space_.Undo(s, knob, out); }
  static int InverseMove(int) { return -1; }

  std::vector<State> Goals() const { return {0}; }
  bool IsGoal(State s) const { return s == 0; }

  // Half the remaining steps, rounded up. Admissible: a turn advances exactly two knobs by
  // one step, and knob i still needs (1 - state) mod 4 steps.
  int LowerBound(State s) const;
  // A uniformly random state of even parity (the half that may be solvable).
  template <class Rng>
  State RandomState(Rng& rng) const {
    State s;
    do s = static_cast<State>(rng()) & 0xFFFFFF;
    while (ProvablyUnsolvable(s));
    return s;
  }

  // Every turn adds 2 to the sum of (state - 1), so an odd sum can never reach 0.
  static bool ProvablyUnsolvable(State s);

  // The table holds the solvable half only: a state of odd sum has no key.
  int Project(State s, std::array<uint64_t, kMaxKeys>* keys) const {
    if (KnobsSolvableSpace::OddSum(s)) return 0;
    (*keys)[0] = space_.Rank(s);
    return 1;
  }
  std::string MoveName(State, int knob) const { return std::to_string(knob + 1); }

  // Original format: 12 lines "state w1 w2 w3 w4"; several instances may follow each other.
  static std::vector<ParsedCase<Instance>> ParseOriginal(std::string_view text);
  // Compact form: the original's 60 numbers on one line.
  static absl::StatusOr<Instance> ParseCompact(std::string_view text);
  static std::string FormatCompact(const Instance& instance);
  static std::string FormatOriginal(const std::vector<Instance>& instances);
  // The board for people, as drawn in docs/PUZZLES.md; cells that differ from `before` (if
  // not null) in brackets.
  static std::string Draw(const Instance& now, const Instance* before);
  // A table per wiring, named by the wiring's fingerprint, holding each state's first
  // optimal move (a turn cannot always be undone by a turn, so residues cannot work: a
  // successor may be many moves farther). docs/PERFORMANCE.md compares it with exact bytes.
  static constexpr TableEncodingKind kTableEncoding = TableEncodingKind::kNextMove;
  static std::string TableId(const Params& wiring);
  // 48 bytes, the knob numbers 1..12.
  static std::string EncodeParams(const Params& wiring);
  static absl::StatusOr<Params> DecodeParams(std::string_view bytes);
  static std::string DescribeParams(const Params& wiring);

  // How the builder is given parameters (docs/OPERATIONS.md): its --params files, or the
  // same under this model's names, --wiring FILE and --wirings-dir DIR.
  static constexpr std::string_view kParamsFlag = "wiring";
  static constexpr std::string_view kParamsHelp =
      "wirings, in the original input format (the state column is ignored)";

  // Original output: the number of turns, then the knobs turned; -1 when there is no answer.
  // The page's drawing (BoardLayout, core/model/model.h).
  static BoardLayout Layout();
  static std::vector<int> Cells(const Instance& instance);
  static absl::StatusOr<Instance> FromCells(const Instance& base, std::span<const int> cells);
  static std::string FormatOriginalAnswer(const Instance& instance, const KnobsPuzzle& model,
                                          const Solution& solution);

  // Validates 12 states 1..4 and packs them.
  static absl::StatusOr<State> StateFromNumbers(const std::vector<uint32_t>& positions);

 private:
  KnobsSolvableSpace space_;  // holds the wiring
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_PUZZLES_KNOBS_H_
