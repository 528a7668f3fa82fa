// Reading a loaded table for one puzzle: the exact distance of a state and its
// lexicographically smallest optimal path, every step checked against the table.
#ifndef PUZZLEDB_CORE_TABLE_TABLE_WALKER_H_
#define PUZZLEDB_CORE_TABLE_TABLE_WALKER_H_

#include <array>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "core/search/ida_star.h"
#include "core/search/oracle_bound.h"
#include "core/search/walk_down.h"
#include "core/puzzles/puzzle.h"
#include "core/util/strings.h"
#include "core/table/table_store.h"

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
class TableWalker {
 public:
  using State = typename P::State;
  static constexpr bool kMod3 = P::kTableEncoding == TableEncodingKind::kDistanceMod3;
  static_assert(!kMod3 || P::kMaxKeys == 1, "modulo-3 tables need one key per state");

  // REQUIRES: `table` was built for `model`'s parameters.
  TableWalker(const P& model, std::shared_ptr<const LoadedTable> table)
      : model_(model),
        table_(std::move(table)),
        entries_(table_->entries),
        name_(Cat("table ", table_->metadata.table_id())) {}

  const TableMetadata& metadata() const { return table_->metadata; }
  bool complete() const { return table_->metadata.complete(); }
  // Every uncovered state of a partial table is at least this far.
  int UncoveredBound() const { return static_cast<int>(table_->metadata.coverage_depth()) + 1; }

  // The exact distance where covered. A modulo-3 table learns it by walking to the goal
  // (Solve keeps that walk; this is for callers that want the distance alone).
  absl::StatusOr<TableLookup> Lookup(const State& s, uint64_t* lookups) const {
    if constexpr (kMod3) {
      std::array<uint64_t, 1> key;
      if (model_.Project(s, &key) == 0) return TableLookup{};
      ++*lookups;
      if (entries_.Get(key[0]) == PackedTable::kMod3Uncovered) {
        return TableLookup{TableLookup::Kind::kUncovered, 0};
      }
      auto steps = Descend(s, 0, nullptr, lookups);
      if (!steps.ok()) return steps.status();
      return TableLookup{TableLookup::Kind::kCovered, *steps};
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
  // lexicographically smallest optimal path (the walk that learns a modulo-3 distance is
  // the answer's walk). With max_moves > 0 a longer answer is NOT_WITHIN_LIMIT.
  // `answer.lookups` counts every entry read. DATA_LOSS if the table contradicts itself.
  struct Answer {
    TableLookup::Kind kind = TableLookup::Kind::kNoKeys;
    Solution solution;  // meaningful when kCovered
  };
  absl::StatusOr<Answer> Solve(const State& s, int max_moves) const {
    Answer answer;
    Solution& solution = answer.solution;
    solution.source = Source::kTable;
    if constexpr (kMod3) {
      std::array<uint64_t, 1> key;
      if (model_.Project(s, &key) == 0) return answer;
      ++solution.lookups;
      if (entries_.Get(key[0]) == PackedTable::kMod3Uncovered) {
        answer.kind = TableLookup::Kind::kUncovered;
        return answer;
      }
      answer.kind = TableLookup::Kind::kCovered;
      auto steps = Descend(s, max_moves, &solution.moves, &solution.lookups);
      if (!steps.ok()) return steps.status();
      if (*steps < 0) {
        solution.outcome = Outcome::kNotWithinLimit;
        solution.moves.clear();
        return answer;
      }
      solution.distance = *steps;
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
        const int m = model_.Project(t, &keys);
        return m == 0 ? -1 : Minimum(keys, m, &solution.lookups);
      };
      auto walked = WalkDown(model_, s, d, distance_of, name_, &solution.moves);
      if (!walked.ok()) return walked;
      solution.distance = d;
    }
    return answer;
  }

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

  // Residues: from residue r take the smallest move to residue r - 1 (mod 3), which in a
  // table whose neighbours differ by at most one is exactly one step closer, until the
  // goal. Returns the number of steps, or -1 when `limit` (> 0) steps did not reach it.
  // Without a limit the walk may not be longer than the table's largest distance.
  // (WalkDown needs the distance first; a residue table learns it only at the goal.)
  absl::StatusOr<int> Descend(State s, int limit, std::vector<uint8_t>* moves,
                              uint64_t* lookups) const {
    std::array<uint64_t, 1> key;
    model_.Project(s, &key);
    ++*lookups;
    uint8_t residue = entries_.Get(key[0]);
    const int longest = static_cast<int>(table_->metadata.max_distance());
    for (int steps = 0;; ++steps) {
      if (model_.IsGoal(s)) {
        if (residue != 0) return Broken("the goal's entry is not 0");
        return steps;
      }
      if (limit > 0 && steps == limit) return -1;
      if (steps >= longest) return Broken(Cat("a walk passed the table's largest distance ", longest));
      const uint8_t want = static_cast<uint8_t>((residue + 2) % 3);
      int chosen = -1;
      State next{};
      for (int m = 0; m < P::kNumMoves && chosen < 0; ++m) {
        if (!model_.Apply(s, m, &next)) continue;
        model_.Project(next, &key);
        ++*lookups;
        if (entries_.Get(key[0]) == want) chosen = m;
      }
      if (chosen < 0) return Broken("a covered state has no move one step closer");
      if (moves != nullptr) moves->push_back(static_cast<uint8_t>(chosen));
      s = next;
      residue = want;
    }
  }

  absl::Status Broken(std::string_view what) const {
    return absl::DataLossError(Cat(name_, " is inconsistent: ", what));
  }

  const P model_;
  const std::shared_ptr<const LoadedTable> table_;
  const PackedTable& entries_;
  const std::string name_;  // "table knight", for errors
};

// A partial table as the bound of IDA*: exact inside the table (and the rest of the path is
// the table's walk), at least coverage depth + 1 outside it.
template <PuzzleModel P>
class TableBound {
 public:
  explicit TableBound(const P& model, const TableWalker<P>& walker) : model_(model), walker_(walker) {}

  Estimate Evaluate(const typename P::State& s) const {
    uint64_t lookups = 0;
    auto lookup = walker_.Lookup(s, &lookups);
    const int bound = model_.LowerBound(s);
    if (lookup.ok() && lookup->kind == TableLookup::Kind::kCovered) return {lookup->distance, true};
    int lower = bound;
    if (lookup.ok() && lookup->kind == TableLookup::Kind::kUncovered) {
      lower = std::max(lower, walker_.UncoveredBound());
    }
    lower = RaiseToParity<P>(s, lower);
    return {lower, false};
  }

  absl::Status Complete(const typename P::State& s, int distance, std::vector<uint8_t>* moves,
                        uint64_t* lookups) const {
    auto walk = walker_.Walk(s, 0);
    if (!walk.ok()) return walk.status();
    if (walk->distance != distance) return absl::DataLossError("table walk length changed");
    moves->insert(moves->end(), walk->moves.begin(), walk->moves.end());
    *lookups += walk->lookups;
    return absl::OkStatus();
  }

 private:
  const P& model_;
  const TableWalker<P>& walker_;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_TABLE_TABLE_WALKER_H_
