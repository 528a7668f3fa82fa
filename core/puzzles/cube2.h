// The 2x2x2 cube (the pocket cube): eight corner pieces, turned a face at a time. Only the
// U, R and F faces turn (a quarter turn clockwise, a half turn, a quarter turn
// counter-clockwise: U U2 U' R R2 R' F F2 F', in that canonical order), so the corner at
// DBL never moves and every position is reached without turning the whole cube.
//
// A state is the corners' permutation and twists in Kociemba's cubie conventions: corner
// places URF UFL ULB UBR DFR DLF DBL DRB; the piece at place i and its twist, the number of
// clockwise steps from the place's U or D sticker to the sticker that shows the piece's U or
// D colour. The space is the 7! placements of the seven pieces that move and the 3^6
// twists of the first six (the seventh's follows): 3,674,160 positions (docs/PUZZLES.md,
// section 6).
#ifndef PUZZLEDB_CORE_PUZZLES_CUBE2_H_
#define PUZZLEDB_CORE_PUZZLES_CUBE2_H_

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/model/model.h"

namespace puzzledb {

struct Cube2State {
  std::array<uint8_t, 8> piece{0, 1, 2, 3, 4, 5, 6, 7};  // the piece at each place
  std::array<uint8_t, 8> twist{};                         // 0..2
  bool operator==(const Cube2State&) const = default;
};

class Cube2Puzzle : public NoParams<Cube2Puzzle> {
 public:
  using State = Cube2State;
  // The colour of each face (U R F D L B), as the cube was given: answers, moves played and
  // samples show it in those colours. The state alone is the position.
  using Colours = std::array<char, 6>;
  struct Instance {
    Params params;
    State state;
    Colours colours{'U', 'R', 'F', 'D', 'L', 'B'};
  };
  using Space = Cube2Puzzle;

  static constexpr std::string_view kName = "cube2";
  static constexpr std::string_view kTitle = "The 2x2x2 cube";
  static constexpr std::string_view kCompactHelp =
      "the 24 stickers face by face (U R F D L B), each face's four in reading order on the "
      "net; any six colour characters, four of each";
  static constexpr std::string_view kExample = "DDDBRBFRLULRUULFBFUFRLDB";
  static constexpr int kStickers = 24;
  static constexpr int kNumMoves = 9;  // U U2 U' R R2 R' F F2 F'
  static constexpr int kDefaultMaxMoves = 0;
  static constexpr bool kSingleGoal = true;
  static constexpr int kMaxKeys = 1;
  // 3.7 M positions: a live search (no table) meets in the middle, then searches the whole
  // space.
  static constexpr LiveSearchKind kLiveSearch = LiveSearchKind::kBidirectional;
  // One table; distances modulo 3 (every move is undone by a move).
  static constexpr TableEncodingKind kTableEncoding = TableEncodingKind::kDistanceMod3;

  Cube2Puzzle() = default;
  explicit Cube2Puzzle(const Params&) {}
  const Space& space() const { return *this; }

  // 7! * 3^6.
  uint64_t Size() const { return 5040 * 729; }
  uint64_t Rank(const State& s) const;
  State Unrank(uint64_t index) const;

  bool Apply(const State& s, int move, State* out) const;
  // A face's quarter turn undoes its counter-turn; a half turn undoes itself.
  bool Undo(const State& s, int move, State* out) const { return Apply(s, InverseMove(move), out); }
  static int InverseMove(int move) { return move - move % 3 + (2 - move % 3); }

  std::vector<State> Goals() const { return {State{}}; }
  bool IsGoal(const State& s) const { return s == State{}; }
  int LowerBound(const State&) const { return 0; }
  bool ProvablyUnsolvable(const State&) const { return false; }
  template <class Rng>
  State RandomState(Rng& rng) const {
    return Unrank(static_cast<uint64_t>(rng()) % Size());
  }
  int Project(const State& s, std::array<uint64_t, kMaxKeys>* keys) const {
    (*keys)[0] = Rank(s);
    return 1;
  }
  std::string MoveName(const State&, int move) const { return std::string(kMoveNames[move]); }

  // Original format: one cube per line in the compact form.
  static std::vector<ParsedCase<Instance>> ParseOriginal(std::string_view text);
  // Compact form: 24 sticker characters (whitespace ignored); refused naming the rule.
  static absl::StatusOr<Instance> ParseCompact(std::string_view text);
  // In the instance's colours; in face letters, UUUURRRRFFFFDDDDLLLLBBBB solved.
  static std::string FormatCompact(const Instance& instance);
  static std::string FormatOriginal(const std::vector<Instance>& instances);
  // The net (docs/PUZZLES.md, section 6), stickers that changed since `before` in brackets.
  static std::string Draw(const Instance& now, const Instance* before);
  // Original output: the distance, then the moves ("9 U2 R' U' ..."); "0" solved.
  static std::string FormatOriginalAnswer(const Instance& instance, const Cube2Puzzle& model,
                                          const Solution& solution);

  // The page's drawing: the net of 24 stickers, each holding its colour (0..5: U R F D L B
  // where the cube was given in face letters, else the colours of faces U R F D L B).
  static BoardLayout Layout();
  static std::vector<int> Cells(const Instance& instance);
  static absl::StatusOr<Instance> FromCells(const Instance& base, std::span<const int> cells);

 private:
  static constexpr std::string_view kMoveNames[kNumMoves] = {"U", "U2", "U'", "R", "R2",
                                                            "R'", "F", "F2", "F'"};
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_PUZZLES_CUBE2_H_
