// Reading a loaded table for one puzzle: the exact distance of a state and its
// lexicographically smallest optimal path, every step checked against the table.
#ifndef PUZZLEDB_CORE_TABLE_TABLE_WALKER_H_
#define PUZZLEDB_CORE_TABLE_TABLE_WALKER_H_

#include <algorithm>
#include <array>
#include <bit>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "core/search/ida_star.h"
#include "core/search/oracle_bound.h"
#include "core/search/walk_down.h"
#include "core/model/model.h"
#include "core/util/strings.h"
#include "core/table/state_classes.h"
#include "core/table/table_store.h"
#include "core/table/table_view.h"

namespace puzzledb {

// What a table says about a state.
struct TableLookup {
  enum class Kind {
    kNoKeys,     // the state has no place in the table (e.g. a rotation board that is not 8/8/8)
    kUncovered,  // beyond the table's coverage depth, or unsolvable if the table is complete
    kCovered,    // `distance` is exact
  };
  Kind kind = Kind::kNoKeys;
  int distance = 0;
};

// Thread-safe (read-only); keeps the table alive.
template <PuzzleModel P>
class TableWalker final : public TableView {
 public:
  using State = typename P::State;
  static constexpr bool kMod3 = P::kTableEncoding == TableEncodingKind::kDistanceMod3;
  static constexpr bool kNextMove = P::kTableEncoding == TableEncodingKind::kNextMove;
  static_assert(!kMod3 || P::kMaxKeys == 1, "modulo-3 tables need one key per state");
  static_assert(!kNextMove || P::kMaxKeys == 1, "next-move tables need one key per state");
  // A model whose tables only bound a search (kPatternBound) is never walked: the solver
  // hands its guide the search instead (Solver::FromTables), and it may have more moves.
  static_assert(P::kTableEncoding == TableEncodingKind::kPatternBound || P::kNumMoves <= 64,
                "a walk keeps the legal moves of a state in 64 bits");
  // Tables that learn a distance by walking to the goal.
  static constexpr bool kWalks = kMod3 || kNextMove;

  // REQUIRES: `table` was built for `model`'s parameters.
  TableWalker(const P& model, std::shared_ptr<const LoadedTable> table)
      : TableView(std::move(table)),
        model_(model),
        entries_(table_->entries),
        name_(Cat("table ", table_->metadata.table_id())) {}

  // The exact distance where covered. A modulo-3 or next-move table learns it by walking to
  // the goal (Solve keeps that walk; this is for callers that want the distance alone).
  absl::StatusOr<TableLookup> Lookup(const State& s, uint64_t* lookups) const {
    if constexpr (kWalks) {
      int steps = 0;
      auto kind = WalkFrom(s, 0, nullptr, lookups, &steps);
      if (!kind.ok()) return kind.status();
      return TableLookup{*kind, *kind == TableLookup::Kind::kCovered ? steps : 0};
    } else {
      std::array<uint64_t, P::kMaxKeys> keys;
      const int n = model_.Project(s, &keys);
      if (n == 0) return TableLookup{};
      const int d = Minimum(keys, n, lookups);
      if (d < 0) return TableLookup{TableLookup::Kind::kUncovered, 0};
      return TableLookup{TableLookup::Kind::kCovered, d};
    }
  }

  // What the table says about `s` in one pass: its kind and, when covered, the
  // lexicographically smallest optimal path (the walk that learns a modulo-3 or next-move
  // distance is the answer's walk). With max_moves > 0 a longer answer is NOT_WITHIN_LIMIT.
  // `answer.lookups` counts every entry read. DATA_LOSS if the table contradicts itself.
  struct Answer {
    TableLookup::Kind kind = TableLookup::Kind::kNoKeys;
    Solution solution;  // meaningful when kCovered
  };
  absl::StatusOr<Answer> Solve(const State& s, int max_moves) const {
    Answer answer;
    Solution& solution = answer.solution;
    solution.source = Source::kTable;
    if constexpr (kWalks) {
      int steps = 0;
      auto kind = WalkFrom(s, max_moves, &solution.moves, &solution.lookups, &steps);
      if (!kind.ok()) return kind.status();
      answer.kind = *kind;
      Finish(steps, &answer);
    } else {
      std::array<uint64_t, P::kMaxKeys> keys;
      const int n = model_.Project(s, &keys);
      if (n == 0) return answer;
      const int d = Minimum(keys, n, &solution.lookups);
      if (d < 0) {
        answer.kind = TableLookup::Kind::kUncovered;
        return answer;
      }
      answer.kind = TableLookup::Kind::kCovered;
      if (max_moves > 0 && d > max_moves) {
        solution.outcome = Outcome::kNotWithinLimit;
        return answer;
      }
      auto distance_of = [&](const State& t) {
        const int m = ProjectReached(t, &keys);
        return m == 0 ? -1 : Minimum(keys, m, &solution.lookups);
      };
      auto walked = WalkDown(model_, s, d, distance_of, name_, &solution.moves);
      if (!walked.ok()) return walked;
      solution.distance = d;
    }
    return answer;
  }

  // Solve for many states: out[i] is Solve(states[i], max_moves[i]), the same answer and the
  // same checks at every step. A table that learns distances by walking walks up to
  // kLanes states at once, taking turns a step each, so that their memory reads overlap
  // (docs/PERFORMANCE.md, "Batches (issue 26)"); the others answer one state after
  // another. Residue walks taking turns locate one move a turn (Lane::one_move_a_turn):
  // 1.98 against 2.27 µs a knight answer. 4, 16 and 64 lanes measured alike.
  // REQUIRES: the three spans have the same size.
  static constexpr int kLanes = 16;
  static constexpr bool kOneMoveATurn = true;
  void SolveMany(std::span<const State> states, std::span<const int> max_moves,
                 std::span<absl::StatusOr<Answer>> out) const {
    if constexpr (!kWalks) {
      for (size_t i = 0; i < states.size(); ++i) out[i] = Solve(states[i], max_moves[i]);
    } else {
      std::array<Lane, kLanes> lanes;
      std::array<size_t, kLanes> item;  // which state each lane walks
      size_t next = 0;
      // Starts the next state that has a place in the table on lane `l`; false when none is
      // left. A state without keys is answered at once.
      auto start = [&](int l) {
        for (; next < states.size(); ++next) {
          std::array<uint64_t, 1> key;
          out[next] = Answer{};
          Answer& answer = *out[next];
          answer.solution.source = Source::kTable;
          if (model_.Project(states[next], &key) == 0) continue;
          Begin(&lanes[l], states[next], key[0], max_moves[next], &answer.solution.moves,
                &answer.solution.lookups);
          lanes[l].one_move_a_turn = kOneMoveATurn;
          item[l] = next++;
          return true;
        }
        return false;
      };
      int active = 0;
      std::array<bool, kLanes> busy{};
      for (int l = 0; l < kLanes && start(l); ++l) {
        busy[l] = true;
        ++active;
      }
      while (active > 0) {
        for (int l = 0; l < kLanes; ++l) {
          if (!busy[l]) continue;
          std::optional<absl::StatusOr<TableLookup::Kind>> end = Step(&lanes[l]);
          if (!end.has_value()) continue;
          absl::StatusOr<Answer>& answer = out[item[l]];
          if (!end->ok()) {
            answer = end->status();
          } else {
            answer->kind = **end;
            Finish(lanes[l].steps, &*answer);
          }
          if (!start(l)) {
            busy[l] = false;
            --active;
          }
        }
      }
    }
  }

  // The optimal solutions of a covered state `s` at exact distance `distance` (as Solve
  // found it): how many distinct move sequences of that length reach the goal, counted by
  // dynamic programming over the states one step closer, layer by layer down to the goal
  // (never by enumerating them), and the first `list` of them in lexicographic order.
  // Every state on an optimal path counts towards the node budget `limits.max_nodes`
  // (RESOURCE_EXHAUSTED beyond it); DEADLINE_EXCEEDED or CANCELLED per `limits`.
  using OptimalPaths = puzzledb::OptimalPaths;
  // A next-move table cannot tell a neighbour's distance without walking from it, so its
  // caller passes the table's exact distances (`exact`, by rank: Sampler::distances()).
  absl::StatusOr<OptimalPaths> Optimal(const State& s, int distance, size_t list,
                                       const SearchLimits& limits,
                                       const uint8_t* exact = nullptr) const;  // table_optimal.h

  // The path of a state known to be covered (Solve without the kinds).
  absl::StatusOr<Solution> Walk(const State& s, int max_moves) const {
    auto answer = Solve(s, max_moves);
    if (!answer.ok()) return answer.status();
    if (answer->kind != TableLookup::Kind::kCovered) {
      return absl::InternalError("TableWalker::Walk: the state is not covered");
    }
    return answer->solution;
  }

 private:
  // The smallest covered distance among `keys`, or -1.
  int Minimum(const std::array<uint64_t, P::kMaxKeys>& keys, int n, uint64_t* lookups) const {
    int best = -1;
    for (int i = 0; i < n; ++i) {
      const int d = entries_.Get(keys[i]);
      if (d != PackedTable::kByteUncovered && (best < 0 || d < best)) best = d;
    }
    *lookups += static_cast<uint64_t>(n);
    return best;
  }

  // A table that learns distances by walking (residues, next moves): whether it covers `s`
  // and, if so, the walk to the goal in `*steps` (-1 when `limit` > 0 steps did not reach
  // it), its moves appended to `moves` if not null.
  absl::StatusOr<TableLookup::Kind> WalkFrom(const State& s, int limit,
                                             std::vector<uint8_t>* moves, uint64_t* lookups,
                                             int* steps) const {
    std::array<uint64_t, 1> key;
    if (model_.Project(s, &key) == 0) return TableLookup::Kind::kNoKeys;
    Lane lane;
    Begin(&lane, s, key[0], limit, moves, lookups);
    for (;;) {
      if (std::optional<absl::StatusOr<TableLookup::Kind>> end = Step(&lane)) {
        *steps = lane.steps;
        return *end;
      }
    }
  }

  // One walk of a table that learns distances by walking, as a machine of steps, so that
  // the walks of many states can take turns (SolveMany): each step reads the entries whose
  // cache lines the walk's previous step prefetched, so that while one walk waits for
  // memory the others work. One walk alone is the same steps in a row.
  struct Lane {
    State s;
    int limit = 0;
    int steps = 0;        // moves made so far; at the end, the distance (-1: beyond `limit`)
    bool started = false;  // the state's own entry has been read
    uint8_t residue = 0;   // modulo 3: the residue of `s`
    uint64_t key = 0;      // the key of `s` (next moves: the entry to read next)
    // Modulo 3: the states after every legal move of `s` and their keys, located (and
    // their entries prefetched) by the last step.
    std::array<State, P::kNumMoves> next;
    std::array<uint64_t, P::kNumMoves> keys;
    uint64_t legal = 0;
    // Modulo 3, taking turns with other walks: one move is located and read a turn (the
    // candidate), in canonical order, instead of every move at once; the other walks' turns
    // hide its read, and the moves after the one taken are never located.
    bool one_move_a_turn = false;
    int candidate = 0;
    std::vector<uint8_t>* moves = nullptr;  // may be null
    uint64_t* lookups = nullptr;
  };

  // Starts a walk from `s`, whose key is `key`: its entry is prefetched.
  void Begin(Lane* lane, const State& s, uint64_t key, int limit, std::vector<uint8_t>* moves,
             uint64_t* lookups) const {
    lane->s = s;
    lane->key = key;
    lane->limit = limit;
    lane->steps = 0;
    lane->started = false;
    lane->moves = moves;
    lane->lookups = lookups;
    __builtin_prefetch(entries_.Address(key));
  }

  // One step of a walk. Nothing while it goes on; else how it ended: kUncovered (the state's
  // own entry says so), kCovered (lane->steps the distance, or -1 when `limit` steps did
  // not reach the goal), or DATA_LOSS when the table contradicts itself.
  std::optional<absl::StatusOr<TableLookup::Kind>> Step(Lane* lane) const {
    if constexpr (kNextMove) {
      return FollowStep(lane);
    } else {
      return DescendStep(lane);
    }
  }

  // Residues: from residue r take the smallest move to residue r - 1 (mod 3), which in a
  // table whose neighbours differ by at most one is exactly one step closer, until the
  // goal. Without a limit the walk may not be longer than the table's largest distance.
  // (WalkDown needs the distance first; a residue table learns it only at the goal.)
  std::optional<absl::StatusOr<TableLookup::Kind>> DescendStep(Lane* lane) const {
    if (!lane->started) {
      ++*lane->lookups;
      lane->residue = entries_.Get(lane->key);
      if (lane->residue == PackedTable::kMod3Uncovered) return TableLookup::Kind::kUncovered;
      lane->started = true;
      if (lane->moves != nullptr) lane->moves->reserve(static_cast<size_t>(Longest(lane->limit)));
      return Locate(lane);
    }
    const uint8_t want = static_cast<uint8_t>((lane->residue + 2) % 3);
    if (lane->one_move_a_turn) {
      // The candidate's entry was prefetched by the turn before.
      const int m = lane->candidate;
      ++*lane->lookups;
      if (entries_.Get(lane->keys[m]) == want) return Take(lane, m, want);
      if (!NextCandidate(lane, m + 1)) return Broken("a covered state has no move one step closer");
      return std::nullopt;
    }
    // The moves' entries were prefetched by Locate; read in canonical order.
    int chosen = -1;
    for (uint64_t legal = lane->legal; legal != 0; legal &= legal - 1) {
      const int m = std::countr_zero(legal);
      ++*lane->lookups;
      if (entries_.Get(lane->keys[m]) == want) {
        chosen = m;
        break;
      }
    }
    if (chosen < 0) return Broken("a covered state has no move one step closer");
    return Take(lane, chosen, want);
  }

  // The keys of a state a move made from one in the table's space: a model that can rank
  // it without the checks a state given must pass has ProjectReached (a move keeps every
  // invariant its index reads).
  template <size_t N>
  int ProjectReached(const State& t, std::array<uint64_t, N>* keys) const {
    if constexpr (requires { model_.ProjectReached(t, keys); }) {
      return model_.ProjectReached(t, keys);
    } else {
      return model_.Project(t, keys);
    }
  }

  // Makes move `m` (to residue `residue`) and locates the next state's moves.
  std::optional<absl::StatusOr<TableLookup::Kind>> Take(Lane* lane, int m, uint8_t residue) const {
    if (lane->moves != nullptr) lane->moves->push_back(static_cast<uint8_t>(m));
    lane->s = lane->next[m];
    lane->residue = residue;
    ++lane->steps;
    return Locate(lane);
  }

  // One move a turn: the first legal move from `from` on becomes the candidate, its entry
  // prefetched; false when there is none.
  bool NextCandidate(Lane* lane, int from) const {
    std::array<uint64_t, 1> key;
    for (int m = from; m < MoveCount(model_); ++m) {
      if (!model_.Apply(lane->s, m, &lane->next[m])) continue;
      ProjectReached(lane->next[m], &key);
      lane->keys[m] = key[0];
      __builtin_prefetch(entries_.Address(key[0]));
      lane->candidate = m;
      return true;
    }
    return false;
  }

  // A residue walk at a state: ended (the goal, or the limit), or every move's entry located
  // and prefetched for the next step. The reads are independent, so their cache misses
  // overlap instead of following one another (docs/PERFORMANCE.md, "The knight table in
  // half").
  std::optional<absl::StatusOr<TableLookup::Kind>> Locate(Lane* lane) const {
    if (model_.IsGoal(lane->s)) {
      if (lane->residue != 0) return Broken("the goal's entry is not 0");
      return TableLookup::Kind::kCovered;
    }
    if (lane->limit > 0 && lane->steps == lane->limit) {
      lane->steps = -1;
      return TableLookup::Kind::kCovered;
    }
    if (lane->steps >= Longest(0)) {
      return Broken(Cat("a walk passed the table's largest distance ", Longest(0)));
    }
    if (lane->one_move_a_turn) {
      if (!NextCandidate(lane, 0)) return Broken("a covered state has no move one step closer");
      return std::nullopt;
    }
    std::array<uint64_t, 1> key;
    uint64_t legal = 0;
    for (int m = 0; m < MoveCount(model_); ++m) {
      if (!model_.Apply(lane->s, m, &lane->next[m])) continue;
      ProjectReached(lane->next[m], &key);
      lane->keys[m] = key[0];
      __builtin_prefetch(entries_.Address(key[0]));
      legal |= uint64_t{1} << m;
    }
    lane->legal = legal;
    return std::nullopt;
  }

  // Next moves: read the entry of `s` (prefetched by the step before), follow its move and
  // prefetch the entry after it. Without a limit the walk may not be longer than the
  // table's largest distance.
  std::optional<absl::StatusOr<TableLookup::Kind>> FollowStep(Lane* lane) const {
    ++*lane->lookups;
    const uint8_t code = entries_.Get(lane->key);
    if (!lane->started) {
      if (code == PackedTable::kNextMoveUncovered) return TableLookup::Kind::kUncovered;
      lane->started = true;
      // One allocation for the path instead of one per doubling.
      if (lane->moves != nullptr) lane->moves->reserve(static_cast<size_t>(Longest(lane->limit)));
    }
    if (code == PackedTable::kNextMoveGoal) {
      if (!model_.IsGoal(lane->s)) return Broken("a state that is not the goal has the goal's mark");
      return TableLookup::Kind::kCovered;
    }
    if (lane->limit > 0 && lane->steps == lane->limit) {
      lane->steps = -1;
      return TableLookup::Kind::kCovered;
    }
    if (code == PackedTable::kNextMoveUncovered) {
      return Broken("a walk led to a state the table does not cover");
    }
    if (lane->steps >= Longest(0)) {
      return Broken(Cat("a walk passed the table's largest distance ", Longest(0)));
    }
    if (code >= MoveCount(model_) || !model_.Apply(lane->s, code, &lane->s)) {
      return Broken(Cat("an entry names move ", static_cast<int>(code), ", not legal there"));
    }
    if (lane->moves != nullptr) lane->moves->push_back(code);
    std::array<uint64_t, 1> key;
    if (model_.Project(lane->s, &key) == 0) return Broken("a move left the table's space");
    lane->key = key[0];
    __builtin_prefetch(entries_.Address(key[0]));
    ++lane->steps;
    return std::nullopt;
  }

  // A walk's answer once it ended covered after `steps` (-1: beyond its limit).
  static void Finish(int steps, Answer* answer) {
    if (answer->kind != TableLookup::Kind::kCovered) return;
    if (steps < 0) {
      answer->solution.outcome = Outcome::kNotWithinLimit;
      answer->solution.moves.clear();
      return;
    }
    answer->solution.distance = steps;
  }

  // The most moves a walk may make: `limit` if set, else the table's largest distance.
  int Longest(int limit) const {
    return limit > 0 ? limit : static_cast<int>(table_->metadata.max_distance());
  }

  // Whether a neighbour of keys `keys` of a state at exact distance `d` is at d - 1.
  // Residues decide it (neighbours differ by at most one); exact entries compare, and for a
  // next-move table the exact distances beside it.
  bool CloserByKeys(const std::array<uint64_t, P::kMaxKeys>& keys, int n, int d,
                    const uint8_t* exact, uint64_t* lookups) const {
    if constexpr (kNextMove) {
      ++*lookups;
      return exact[keys[0]] == d - 1;
    } else if constexpr (kMod3) {
      ++*lookups;
      return entries_.Get(keys[0]) == static_cast<uint8_t>((d + 2) % 3);
    } else {
      return Minimum(keys, n, lookups) == d - 1;
    }
  }

  // One number per state for the counter's layers: its keys side by side, and for a space
  // that keeps one entry per class of states (core/table/state_classes.h), which member of
  // its class it is (the count is the same for all, but `states` counts positions).
  int KeyBits() const { return std::bit_width(table_->metadata.state_count()); }
  int MemberBits() const { return std::bit_width(static_cast<unsigned>(ClassOrder(model_) - 1)); }
  bool KeyFits() const { return KeyBits() * P::kMaxKeys + MemberBits() <= 64; }
  uint64_t IdentityOf(const State& s, const std::array<uint64_t, P::kMaxKeys>& keys,
                      int n) const {
    const uint64_t key = PackKeys(keys, n);
    const int bits = MemberBits();
    return bits == 0 ? key : key << bits | static_cast<uint64_t>(ClassImage(model_, s));
  }
  uint64_t PackKeys(const std::array<uint64_t, P::kMaxKeys>& keys, int n) const {
    if (n == 1) return keys[0];
    uint64_t key = 0;
    for (int i = 0; i < n; ++i) key = (key << KeyBits()) | keys[i];
    return key;
  }
  uint64_t KeyOf(const State& s) const {
    std::array<uint64_t, P::kMaxKeys> keys;
    const int n = model_.Project(s, &keys);
    return IdentityOf(s, keys, n);
  }

  absl::Status Broken(std::string_view what) const {
    return absl::DataLossError(Cat(name_, " is inconsistent: ", what));
  }

  const P model_;
  const PackedTable& entries_;
  const std::string name_;  // "table knight", for errors
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_TABLE_TABLE_WALKER_H_
