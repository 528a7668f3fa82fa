// A definition's states as numbers: its moves compiled to byte programs (CompiledMoves),
// and a dense index of its states (DefinedIndex), onto which its table is laid out.
//
// The index is a mixed-radix number of coordinates, two for each orbit of a set (positions
// that the moves move into one another; a position no move moves is an orbit of its own):
// where its labels are (the rank of the labels as a permutation of a multiset, so that
// identical pieces count once) and how its pieces are turned (the orientations as digits).
// Invariants that every move keeps shrink it, as they hold for every reachable state:
//  - the orientations of an orbit to which every move block adds 0 in all keep their sum:
//    the last digit follows from the others (the 2x2x2: 3^7 twists, not 3^8);
//  - the parities of orbits of distinct labels span only what the blocks' parities span:
//    an orbit whose parity follows from the others' keeps half its placements (the
//    skewb's corners: 12 of 24).
// A state that breaks an invariant is no number (Indexable false) and no goal can be
// reached from it.
//
// The coordinates are split: `inner` ones, which no guard reads, small enough for a table
// of every block's effect, and `outer` ones, computed per block of inner states: index =
// outer * inner_size() + inner. Where guards read an orbit of repeated labels only through
// some of them (a projection's merged pieces, where the blank may be), the others, if
// distinct, are counted as one piece by the orbit's outer coordinate and their order on
// the positions it gives them is the inner part (a kOrder coordinate: the cells of a
// sliding-tile group, then the order of its tiles on them). docs/FORMAT.md, "A
// definition's table", gives the layout a table stores.
//
// Immutable once made: every method may be called from any thread.
#ifndef PUZZLEDB_CORE_DEFINITION_DEFINED_INDEX_H_
#define PUZZLEDB_CORE_DEFINITION_DEFINED_INDEX_H_

#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/definition/definition.h"

namespace puzzledb {

// A definition's blocks as programs over the bytes of a state (its DefinedState layout):
// byte i of the result is byte source[i] of the state, plus add[i] modulo modulus[i] for an
// orientation (modulus 0: a label, copied).
class CompiledMoves {
 public:
  struct Test {
    uint16_t at = 0;  // a byte of the state
    uint8_t value = 0;
  };
  struct Block {
    std::vector<Test> tests;  // all must hold (a guarded block's guards)
    // The same tests read on the state the block makes: where each tested byte goes, and
    // its value there.
    std::vector<Test> tests_after;
    std::vector<uint16_t> source;
    std::vector<uint8_t> add;
    std::vector<uint8_t> modulus;
    // The bytes the block may change (a byte it moves or turns), in order: all others of a
    // state it applies to stay as they were.
    std::vector<uint16_t> changed;
    int move = 0;
  };

  CompiledMoves() = default;  // no moves
  explicit CompiledMoves(const Definition& definition);

  int state_bytes() const { return state_bytes_; }
  int move_count() const { return static_cast<int>(first_block_.size()) - 1; }
  int block_count() const { return static_cast<int>(blocks_.size()); }
  const Block& block(int b) const { return blocks_[static_cast<size_t>(b)]; }
  // The blocks of move m are first_block(m) .. first_block(m + 1) - 1.
  int first_block(int m) const { return first_block_[static_cast<size_t>(m)]; }
  bool guarded() const { return guarded_; }
  // Whether every block is undone by a block wherever it applies (InverseBlock): the moves
  // join states both ways, so that neighbours are at most one move apart in distance and a
  // table keeps the distance modulo 3 (unguarded moves always; guarded ones such as a
  // blank's steps or a knight's jumps when each has its way back).
  bool undirected() const { return undirected_; }
  // The first block that no block undoes (guarded moves looked at, as for undirected()), or
  // -1: what a person is told makes a table a byte a state.
  int one_way_block() const { return one_way_block_; }

  bool Holds(int b, const uint8_t* state) const {
    for (const Test& t : blocks_[static_cast<size_t>(b)].tests) {
      if (state[t.at] != t.value) return false;
    }
    return true;
  }
  // Whether `after`, a state block b made, came from one b applies to (its tests read
  // where their bytes went): a predecessor by b is worth making only then.
  bool HeldBefore(int b, const uint8_t* after) const {
    for (const Test& t : blocks_[static_cast<size_t>(b)].tests_after) {
      if (after[t.at] != t.value) return false;
    }
    return true;
  }
  // `out` = block b's effect on `in` (its tests not asked). REQUIRES: in != out.
  void Transform(int b, const uint8_t* in, uint8_t* out) const;
  // The state that block b takes to `in` (its tests not asked). REQUIRES: in != out.
  void Untransform(int b, const uint8_t* in, uint8_t* out) const;
  // The move that undoes move m wherever m applies, or -1 (a guarded move, or none).
  int InverseMove(int m) const;
  // A block that undoes block b on every state b leads to, or -1: the inverse of b's
  // transform, whose tests hold wherever b's held (they follow from b's tests).
  int InverseBlock(int b) const;
  // The block of move m that applies to `state`, or -1.
  int BlockAt(int m, const uint8_t* state) const {
    const int first = first_block(m), last = first_block(m + 1);
    if (one_test_[static_cast<size_t>(m)]) {
      // Each block a single test (a sliding puzzle's: where the blank is), laid flat.
      for (int b = first; b < last; ++b) {
        if (state[test_at_[static_cast<size_t>(b)]] == test_value_[static_cast<size_t>(b)]) return b;
      }
      return -1;
    }
    for (int b = first; b < last; ++b) {
      if (Holds(b, state)) return b;
    }
    return -1;
  }
  // False where no block of m holds, or the state it leads to breaks an Illegal line (then
  // `out` holds that state all the same).
  bool Apply(const uint8_t* in, int m, uint8_t* out) const {
    const int b = BlockAt(m, in);
    if (b < 0) return false;
    Transform(b, in, out);
    return illegal_.empty() || Legal(out);
  }
  // Whether `state` breaks no Illegal line of the definition (Definition::Legal): a block
  // that holds applies only where the state it leads to is legal.
  bool Legal(const uint8_t* state) const {
    for (const IllegalPlace& place : illegal_) {
      if (place.labels[state[place.at]]) return false;
    }
    return true;
  }
  bool has_illegal() const { return !illegal_.empty(); }
  // Whether a block forgets the twists of some set's pieces (DefinedSet::wild).
  bool forgets_twists() const { return !wild_sets_.empty(); }

 private:
  int state_bytes_ = 0;
  bool guarded_ = false;
  bool single_ = false;  // some move is single (no powers): unguarded moves may lack a way back
  std::vector<IllegalPlace> illegal_;
  bool undirected_ = true;
  int one_way_block_ = -1;
  std::vector<Block> blocks_;
  std::vector<int> first_block_ = {0};
  // The sets with pieces whose twists are forgotten (DefinedSet::wild): after a block.
  std::vector<DefinedSet> wild_sets_;
  // By move: every block has exactly one test; then by block, that test's byte and value.
  std::vector<bool> one_test_;
  std::vector<uint16_t> test_at_;
  std::vector<uint8_t> test_value_;
};

// A relabelling of a definition's positions and pieces that takes every move block to a
// block (its guards with it) and the goals to goals, so that a state and its image are
// equally far from the goals (core/defined/defined_symmetry.h finds them).
struct DefinedSymmetry {
  std::vector<uint16_t> position;            // by byte of a state: the byte it goes to
  std::vector<std::vector<uint8_t>> label;   // by set, by label: the label it becomes

  // The image of `from` (`to` is resized).
  void Apply(const Definition& definition, const DefinedState& from, DefinedState* to) const;
};

// What an index may be laid out with beyond layout 2 (docs/FORMAT.md).
struct DefinedIndexOptions {
  // Layout 3: an orbit that guards read through some of its labels, the others two labels
  // each repeated, is split into placements and an arrangement (a definition's complete
  // table; projections, whose free pieces need an order as inner part, keep layout 2).
  bool arrangements = false;
  // Layout 4: one block of the table per class of outer numbers under the group these
  // symmetries make, where they keep the index's coordinates apart and its inner part is an
  // arrangement, an order or nothing (see DefinedIndex::symmetric; why_not_symmetric() says
  // why not otherwise).
  const std::vector<DefinedSymmetry>* symmetries = nullptr;
  // Without `symmetries`: finds them, called only once the index is known to fit (a
  // definition too large for a complete table pays no search for its symmetries).
  std::function<std::vector<DefinedSymmetry>()> find_symmetries;
  // Layout 5: a set's orientation sum kept modulo a divisor across its orbits shrinks the
  // index (Coordinate::reduce; a definition's complete table: pattern tables' projections
  // keep their layout, which their stored tables do not record).
  bool twist_sums = false;
};

class DefinedIndex {
 public:
  struct Coordinate {
    // kOrder: the order of an orbit's distinct pieces that no guard reads (label), on the
    // positions where its kLabels coordinate (which counts them as one piece) puts them.
    // kArrangement: the same for two labels no guard reads, each repeated (the knight's
    // white and black knights): which of them each of those positions holds (code 0 or 1;
    // counts), ranked as a kLabels coordinate of two labels over those positions alone.
    enum class Kind { kLabels, kTwists, kOrder, kArrangement };
    Kind kind = Kind::kLabels;
    int set = 0;
    int orbit = 0;  // positions the moves move into one another, numbered over all sets
    std::vector<uint16_t> bytes;  // the state's bytes it reads: its labels or orientations
    int n = 0;                    // positions
    uint64_t size = 1;
    bool inner = false;
    bool read_by_guards = false;
    // kLabels: the labels the first goal holds there, each coded by its place in label
    // (0xFF: a label not there), their counts, and whether they are all distinct.
    std::array<uint8_t, 256> code{};
    std::vector<uint8_t> label;
    std::vector<uint8_t> counts;
    bool distinct = false;
    // kLabels, distinct: a parity that follows from other coordinates' (see ParityRule).
    int rule = -1;
    // kTwists: the number of orientations; with a fixed sum, the last digit follows.
    int k = 1;
    bool sum_fixed = false;
    int sum = 0;
    // kTwists: where a sum of the set's orientations kept modulo `reduce` (a TwistSum,
    // over all its orbits) is in the index (layout 5): this coordinate's last digit keeps
    // k / reduce values, the orientation divided by `reduce`, its residue following from
    // the set's other orientations (TwistSum `sum_rule`). 0: none.
    int reduce = 0;
    int sum_rule = -1;
    // kLabels of three labels or more, repeated (a multiset), while small: the counts still
    // to place as a mixed-radix key (a label's count weighs stride[label]); arrangements[key]
    // of the positions left, and before[key * labels + code] the arrangements that put a
    // label below `code` first (all ones where no `code` is left), so that a rank adds one
    // entry a position.
    std::vector<uint32_t> stride;
    std::vector<uint64_t> arrangements;
    std::vector<uint64_t> before;
    // Two labels over at most 32 slots (a kLabels coordinate of two labels, or an
    // arrangement): ranked from the mask of the second label's slots (MaskRank),
    // `mask_rank` the part of the rank of each byte of it, by chunk of 8 slots and by the
    // first label's pieces left ([chunk][firsts][byte]). Where its positions are also
    // consecutive bytes (`consecutive`), the masks are read from the state at once, for the
    // byte values it reads (`values`).
    std::vector<uint64_t> mask_rank;
    bool consecutive = false;
    std::vector<uint8_t> values;
  };
  // The parity of the labels of orbit `orbit` is `constant` xor the parities of the
  // orbits `from` (each of distinct labels).
  struct ParityRule {
    int orbit = 0;
    std::vector<int> from;
    int constant = 0;
  };

  // The parity of an orbit of distinct labels xor the colour of the position holding one of
  // them (a checkerboard of its positions: the blank of sliding tiles), where every block
  // that may move that piece changes both or neither. It shrinks no index (its states
  // are numbers still) but proves the others unsolvable (Possible).
  struct ColouredParity {
    Coordinate orbit;            // its labels coordinate
    uint8_t piece = 0;           // the label followed
    std::vector<uint8_t> colour; // by position of the orbit
    int value = 0;               // of every goal
  };

  // The sum of a set's orientations modulo `modulus`, where every block adds a multiple of
  // it to that sum (the knobs: each turn advances two knobs by one, so the sum's parity
  // stays): `value`, every goal's. It proves the others unsolvable (Possible), and where
  // its orbits' orientation coordinates are all outer or all inner and none keeps its own
  // sum, it shrinks the index (`in_index`: Coordinate::reduce, layout 5).
  struct TwistSum {
    std::vector<uint16_t> bytes;  // the set's orientations
    int modulus = 0;
    int value = 0;
    bool in_index = false;
  };

  using Options = DefinedIndexOptions;

  // INVALID_ARGUMENT when the index would have more than max_states numbers (the message
  // gives its size and each set's part of it).
  static absl::StatusOr<DefinedIndex> Make(const Definition& definition,
                                           const CompiledMoves& moves, uint64_t max_states,
                                           Options options = {});

  // The invariants of the moves without the numbers (any definition, however large):
  // only Indexable may be asked of it (size() is 0). What a definition searched without a
  // table of its own reads, to refuse a state that reaches no goal before searching it.
  static DefinedIndex Invariants(const Definition& definition, const CompiledMoves& moves);

  uint64_t size() const { return size_; }
  uint64_t inner_size() const { return inner_size_; }
  // True when the inner part is the order of one orbit's pieces (a kOrder coordinate): a
  // block's effect on it then depends on the outer coordinates too (where those pieces
  // stand), as a permutation of its slots; false when it is a function of the inner number
  // and the block alone.
  bool inner_is_order() const { return order_pieces_ > 0; }
  int order_pieces() const { return order_pieces_; }
  // True when the inner part is an arrangement (a kArrangement coordinate, layout 3): a
  // block's effect on it is a permutation of its slots too, read from the block's bytes
  // (its pieces are not told apart), of inner_slots() slots.
  bool inner_is_arrangement() const { return arrangement_slots_ > 0; }
  int inner_slots() const { return order_pieces_ > 0 ? order_pieces_ : arrangement_slots_; }
  // The layout the numbers follow (docs/FORMAT.md): 4 with symmetry classes, 3 with an
  // arrangement, else 2.
  int layout() const { return reduced_ ? 5 : symmetric() ? 4 : arrangement_slots_ > 0 ? 3 : 2; }
  // The inner number of the arrangement whose slot s holds what slot slots[s] of
  // arrangement `inner` holds (its two labels exchanged where `swap`). REQUIRES:
  // inner_is_arrangement().
  uint64_t PermuteArrangement(uint64_t inner, const uint8_t* slots, bool swap = false) const;
  // The slots of the order read from `state`: for each of the order's positions in turn,
  // the slot that its piece has in the first order (inner number 0). After a block moves a
  // state of inner number 0, slot s of the result holds what slot slots[s] held before.
  void OrderSlots(const uint8_t* state, uint8_t* slots) const;
  // The inner number of the order whose slot s holds what slot slots[s] of order `inner`
  // holds, each piece's code c then relabel[c] where relabel is given (a symmetry's, layout
  // 4). REQUIRES: inner_is_order().
  uint64_t PermuteOrder(uint64_t inner, const uint8_t* slots, const uint8_t* relabel = nullptr) const;
  // The table's blocks of inner_size() numbers: one per outer number, or with symmetry
  // classes one per class of them.
  uint64_t outer_size() const { return size_ / inner_size_; }

  // ---- Layout 4: symmetry classes. The group the symmetries make acts on the outer
  // numbers (each symmetry maps the outer coordinates onto outer coordinates and the inner
  // part onto itself: an arrangement's or order's slots permuted, an arrangement's two
  // labels maybe exchanged, an order's pieces relabelled); the
  // table keeps a block for the smallest outer number of each class, a state's number is
  // that of its image whose outer number is that one, and in a block whose outer number
  // some symmetries fix, the smallest inner number of the state's images by them (the
  // others are holes: no state's number, never reached by the search).
  bool symmetric() const { return !elements_.empty(); }
  // The group's order (1 without symmetry).
  int group_order() const { return static_cast<int>(elements_.size()) + 1; }
  const std::string& why_not_symmetric() const { return why_not_symmetric_; }
  // Outer numbers (of RankOuter), blocks or not.
  uint64_t raw_outer_size() const { return symmetric() ? to_block_.size() : outer_size(); }
  // The outer number of a block (itself without symmetry).
  uint64_t BlockOuter(uint64_t block) const { return symmetric() ? block_outer_[block] : block; }
  // The block of an outer number, and the element (0: none), slots and swap that take a
  // state of that outer number to its image in the block (null slots: none needed).
  struct ToBlock {
    uint64_t block = 0;
    int element = 0;
    const uint8_t* slots = nullptr;
    bool swap = false;
  };
  ToBlock BlockOf(uint64_t outer) const {
    if (!symmetric()) return {outer, 0, nullptr, false};
    const uint8_t e = to_block_[outer];
    const auto n = static_cast<uint64_t>(inner_slots());
    return {ClassOf(outer), e, e == 0 || n == 0 ? nullptr : &outer_slots_[outer * n], e != 0 && elements_[e - 1u].swap};
  }
  // The symmetries that fix a block's outer number: their slots and swaps there.
  struct Fixing {
    std::array<uint8_t, 32> slots{};
    bool swap = false;
    int element = 0;
  };
  // An order's pieces as element e relabels them (by code), or null: none, or no order.
  const uint8_t* Relabel(int e) const {
    return e == 0 || elements_[static_cast<size_t>(e - 1)].relabel.empty() ? nullptr
                                                                           : elements_[static_cast<size_t>(e - 1)].relabel.data();
  }
  std::span<const Fixing> Stabilizer(uint64_t block) const {
    if (!symmetric()) return {};
    return {fixing_.data() + fixing_begin_[block], fixing_.data() + fixing_begin_[block + 1]};
  }
  // Element e (1 .. group_order() - 1) of the group applied to a state's bytes.
  void ApplyElement(int e, const uint8_t* from, uint8_t* to) const;
  // The states of number `number`'s class, as the group's elements make them from
  // Unrank(number) in turn, the first time each: how many, which one `state` is (for a
  // state of that number), and the j-th. Without symmetry: 1, 0 and the state itself.
  int ClassSize(uint64_t number) const;
  int ImageOf(const uint8_t* state) const;
  void ClassMember(uint64_t number, int j, uint8_t* state) const;
  // The numbers of the classes of fewer than group_order() states, ascending, with their
  // sizes (only blocks with a stabilizer hold them).
  std::vector<std::pair<uint64_t, int>> SmallClasses() const;
  const std::vector<Coordinate>& coordinates() const { return coordinates_; }
  const std::vector<TwistSum>& twist_sums() const { return twist_sums_; }
  // The coordinates RankOuter reads, merged (see outer_plan_): an outer number is their
  // mixed-radix number.
  const std::vector<Coordinate>& outer_plan() const { return outer_plan_; }
  int state_bytes() const { return state_bytes_; }

  // False when the state breaks an invariant of the moves (then it is no number, and no
  // goal can be reached from it).
  bool Indexable(const uint8_t* state) const;
  // Indexable, and no coloured parity (ColouredParity) broken: false proves that no goal
  // can be reached.
  bool Possible(const uint8_t* state) const;
  const std::vector<ColouredParity>& coloured() const { return coloured_; }
  // Where every block flips a sum of orbits' parities that every goal shares: the parity of
  // the distance from `state` to a goal (0 or 1), for a state that reaches one; -1 where
  // the moves keep no such parity. REQUIRES: Indexable(state).
  int DistanceParity(const uint8_t* state) const;
  // REQUIRES: Indexable(state).
  uint64_t Rank(const uint8_t* state) const {
    const uint64_t outer = RankOuter(state);
    return symmetric() ? ClassRank(state, outer) : outer * inner_size_ + RankInner(state);
  }
  // Indexable and Rank in one pass: false when the state breaks an invariant (then `rank`
  // is left as it was). REQUIRES: an index with numbers (Make).
  bool RankIfIndexable(const uint8_t* state, uint64_t* rank) const;
  // The rank of a two-label coordinate (or an arrangement) whose second label holds the
  // slots `seconds` (bit s: slot s). REQUIRES: c.mask_rank made (not empty).
  static uint64_t MaskRank(const Coordinate& c, uint32_t seconds);
  // Every byte of `state` the coordinates cover.
  void Unrank(uint64_t index, uint8_t* state) const {
    UnrankOuter(BlockOuter(index / inner_size_), state);
    UnrankInner(index % inner_size_, state);
  }
  // A state of another definition read as one of this index's, without making it: byte p
  // of this index's state is values[p * 256 + v] where the other's byte source[p] holds v
  // (a projection's state, seen at an image of the state: core/defined/defined_ida.cc).
  class Reading {
   private:
    friend class DefinedIndex;
    std::vector<uint16_t> from;    // by coordinate position, the coordinates end to end
    std::vector<uint32_t> table;   // by coordinate position: its 256 codes' offset in codes
    std::vector<uint8_t> codes;    // what the coordinate reads for each value there
    std::vector<uint32_t> first;   // by coordinate: its first position
    std::vector<int64_t> shared;   // by coordinate: the one table of all its positions, or -1
    // By coordinate: the kOrder coordinate ranked in one pass with it, -2 for that one,
    // -1 for the others.
    std::vector<int> order_of;
  };
  Reading ReadingOf(std::span<const uint16_t> source, std::span<const uint8_t> values) const;
  // Rank of the state `other` reads as. REQUIRES: that state Indexable.
  uint64_t RankRead(const uint8_t* other, const Reading& reading) const;
  uint64_t RankOuter(const uint8_t* state) const;
  uint64_t RankInner(const uint8_t* state) const;
  // The bytes of the outer (inner) coordinates only; the others are left as they were.
  void UnrankOuter(uint64_t outer, uint8_t* state) const;
  void UnrankInner(uint64_t inner, uint8_t* state) const;

  // For people: "CORNER 40320 x 3^7 = 88179840" and so on.
  std::string Describe(const Definition& definition) const;

 private:
  static absl::StatusOr<DefinedIndex> MakeIndex(const Definition& definition,
                                                const CompiledMoves& moves, uint64_t max_states,
                                                bool numbers, Options options);
  uint64_t RankOf(const Coordinate& c, const uint8_t* state) const;
  // The codes of a kOrder coordinate's pieces, slot by slot, of its number `value`.
  static void UnrankOrder(const Coordinate& c, uint64_t value, uint8_t* codes);
  void UnrankOf(const Coordinate& c, uint64_t value, uint8_t* state) const;
  static int Parity(const Coordinate& c, const uint8_t* state);
  // Coordinates [first, last) from their mixed-radix number.
  void UnrankRange(uint64_t number, size_t first, size_t last, uint8_t* state) const;
  int RequiredParity(const ParityRule& rule, const uint8_t* state) const;
  // The coloured parity of orbit coordinate `c` following label index `li`, if every block
  // keeps one (see ColouredParity).
  static bool FindColouredParity(const Coordinate& c, int li, const CompiledMoves& moves,
                                 const std::vector<DefinedState>& goals, ColouredParity* out);

  std::vector<Coordinate> coordinates_;  // outer ones first, each part in index order
  // The outer and the inner coordinates as RankOuter and RankInner read them: those of one
  // number (size 1) left out, and each run of orientation digits of the same count (no
  // fixed sum) merged into one coordinate of the same number, its digits read from the
  // run's last coordinate to its first (the knobs: 12 coordinates of 4 for 24 of 4 and 1).
  std::vector<Coordinate> outer_plan_;
  std::vector<Coordinate> inner_plan_;
  // Where no parity rule ties orbits (rules_ empty) and every coordinate of one number is
  // of placements or one orientation whose sum is kept: RankIfIndexable checks those
  // (`single_`) and ranks the plans, checking as it goes (without symmetry:
  // RankPlansIfIndexable).
  bool plan_checks_ = false;
  std::vector<Coordinate> single_;
  bool RankPlansIfIndexable(const uint8_t* state, uint64_t* rank) const;
  void MakeRankPlans();
  std::vector<ParityRule> rules_;
  std::vector<ColouredParity> coloured_;
  std::vector<TwistSum> twist_sums_;
  bool reduced_ = false;  // some TwistSum is in the index (layout 5)
  // Whether the sums in the index hold (a state that breaks one has no number).
  bool SumsHold(const uint8_t* state) const;
  std::vector<int> flip_;  // orbits whose parities' sum every block flips (DistanceParity)
  int flip_goal_ = 0;      // that sum at the goals
  std::vector<int> labels_of_orbit_;  // each orbit's label coordinate
  uint64_t size_ = 1;
  uint64_t inner_size_ = 1;
  size_t inner_begin_ = 0;  // the first inner coordinate
  int order_pieces_ = 0;    // of the kOrder coordinate, the inner one, if there is one
  int arrangement_slots_ = 0;  // of the kArrangement coordinate, the inner one, if any
  int state_bytes_ = 0;

  // Layout 4 (core/definition/index_classes.cc).
  struct Element {
    std::vector<uint16_t> to;    // by byte: where it goes
    std::vector<uint8_t> label;  // [byte * 256 + value]: what it becomes
    bool swap = false;           // the arrangement's two labels exchanged
    std::vector<uint8_t> relabel;  // by code, the order's pieces' codes (an order's)
  };
  // Sets up the classes; leaves the index as it was (why_not_symmetric_ says why) where the
  // symmetries do not keep its coordinates apart.
  void MakeClasses(const Definition& definition, const std::vector<DefinedSymmetry>& symmetries);
  // Element e's slots on a state of the arrangement or order (whether it exchanges the
  // arrangement's labels).
  bool ElementSlots(int e, const uint8_t* state, uint8_t* slots) const;
  // The number of a state of outer number `outer` (its image's in its block, read from the
  // image's bytes: the fast ranks of RankInner). REQUIRES: symmetric().
  uint64_t ClassRank(const uint8_t* state, uint64_t outer) const;
  // The number of the state `image` (of the block of outer number `outer`, inner number
  // `inner`): the least inner number of its images by the block's stabilizer.
  uint64_t LeastInBlock(const uint8_t* image, uint64_t outer, uint64_t inner) const;
  // States whose classes are kept (a complete table's take at most 56 bytes).
  static constexpr size_t kMaxClassStateBytes = 64;
  std::vector<Element> elements_;        // the group but the identity
  // By outer number: its block, in 2 bytes where the blocks are few (a rank of the
  // 8-puzzle looks its class up in 0.7 MB, not 1.4), else in 4.
  std::vector<uint16_t> class_of16_;
  std::vector<uint32_t> class_of_;
  uint64_t ClassOf(uint64_t outer) const { return class_of16_.empty() ? class_of_[outer] : class_of16_[outer]; }
  std::vector<uint8_t> to_block_;        // by outer number: the element taking it there (0: none)
  std::vector<uint8_t> outer_slots_;     // by outer number: that element's slots
  std::vector<uint64_t> block_outer_;    // by block: its outer number
  std::vector<uint32_t> fixing_begin_;   // by block: its stabilizer in fixing_
  std::vector<Fixing> fixing_;
  std::string why_not_symmetric_;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_DEFINITION_DEFINED_INDEX_H_
