// libFuzzer target: any bytes as a definition file (core/definition/read_definition.h), or
// one with parameters, made with its example's values (definition_template.h).
// Nothing may crash, hang or read out of bounds; a refusal is INVALID_ARGUMENT naming the
// file; and a definition read keeps its rules: within the limits, move names unique, every
// goal reads back from its compact form, and every move applied to a goal gives a state
// that reads back too (labels the goal's, orientations in range). A definition whose index
// is small is then indexed and searched: every goal at distance 0, every reached state
// ranking back to its number, the census adding up. The invariants of a definition of any
// size (DefinedIndex::Invariants) hold on every goal, every state a move makes from one and
// every state the search reaches; whether projections of every set are move-disjoint is
// asked too (nothing may crash). The rank that checks its state (RankIfIndexable) agrees
// with Indexable and Rank, an index with an arrangement (layout 3) gives every state the
// distance the plain one does, and one with symmetry classes (layout 4) every class.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/defined/defined_search.h"
#include "core/defined/defined_symmetry.h"
#include "core/definition/defined_index.h"
#include "core/definition/definition_template.h"
#include "core/definition/projection.h"
#include "core/definition/read_definition.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  puzzledb::DefinitionLimits limits;
  limits.max_moves = 60;
  limits.max_blocks = 200;
  limits.max_goal_states = 4096;
  puzzledb::TemplateLimits template_limits;
  template_limits.max_steps = 1 << 16;
  const auto read = puzzledb::ReadAnyDefinition(text, "fuzz.tws", limits, template_limits);
  if (!read.ok()) {
    if (!absl::IsInvalidArgument(read.status())) std::abort();
    if (read.status().message().rfind("fuzz.tws", 0) != 0) std::abort();
    return 0;
  }
  const puzzledb::Definition& d = *read;
  if (d.sets().empty() || d.goals().empty() || d.moves().empty()) std::abort();
  if (static_cast<int>(d.moves().size()) > limits.max_moves) std::abort();
  std::set<std::string> names;
  for (const auto& m : d.moves()) {
    if (!names.insert(m.name).second) std::abort();
  }
  if (d.patterns().empty() || d.goals().size() > static_cast<size_t>(limits.max_goal_states)) std::abort();
  puzzledb::DefinedState next;
  for (const puzzledb::DefinedState& goal : d.goals()) {
    // Every goal state is one a Solved block stands for, and breaks no Illegal line.
    if (!d.IsGoal(goal) || !d.Legal(goal.data())) std::abort();
    bool named = false;
    for (size_t g = 0; g < d.patterns().size(); ++g) named |= d.Matches(g, goal.data());
    if (!named) std::abort();
    const auto back = d.ParseCompact(d.FormatCompact(goal));
    if (!back.ok() || *back != goal) std::abort();
    for (int m = 0; m < static_cast<int>(d.moves().size()); ++m) {
      if (!d.Apply(goal, m, &next)) continue;
      const auto again = d.ParseCompact(d.FormatCompact(next));
      if (!again.ok() || *again != next) std::abort();
    }
  }
  const puzzledb::CompiledMoves moves(d);
  const puzzledb::DefinedIndex invariants = puzzledb::DefinedIndex::Invariants(d, moves);
  for (const puzzledb::DefinedState& goal : d.goals()) {
    if (!invariants.Possible(goal.data())) std::abort();
    for (int m = 0; m < static_cast<int>(d.moves().size()); ++m) {
      if (d.Apply(goal, m, &next) && !invariants.Possible(next.data())) std::abort();
    }
  }
  std::vector<puzzledb::ProjectionSpec> wholes;
  for (const auto& set : d.sets()) wholes.push_back({{{set.name, {}, true, {}}}});
  (void)puzzledb::MoveDisjoint(d, wholes);
  const auto index = puzzledb::DefinedIndex::Make(d, moves, 1 << 12);
  if (!index.ok()) {
    if (!absl::IsInvalidArgument(index.status())) std::abort();
    return 0;
  }
  puzzledb::DefinedState state(d.state_bytes(), 0);
  for (const puzzledb::DefinedState& goal : d.goals()) {
    if (!index->Indexable(goal.data()) || index->Rank(goal.data()) >= index->size()) std::abort();
    index->Unrank(index->Rank(goal.data()), state.data());
    if (state != goal) std::abort();
  }
  puzzledb::DefinedSearchOptions options;
  options.threads = 1;
  options.exact = true;  // distances, to check the parity and the symmetries against
  const auto searched = puzzledb::SearchDefinition(d, moves, *index, options);
  if (!searched.ok()) {
    if (!absl::IsInvalidArgument(searched.status())) std::abort();
    return 0;
  }
  if (searched->histogram.empty() || searched->reached() > index->size()) std::abort();
  for (uint64_t i = 0; i < index->size(); ++i) {
    const uint8_t entry = searched->entries.Get(i);
    if (entry == puzzledb::PackedTable::kMod3Uncovered &&
        searched->entries.encoding() == puzzledb::storage::v1::DISTANCE_MOD3) {
      continue;
    }
    if (entry == puzzledb::PackedTable::kByteUncovered) continue;
    index->Unrank(i, state.data());
    if (!index->Indexable(state.data()) || index->Rank(state.data()) != i) std::abort();
    if (!invariants.Possible(state.data())) std::abort();  // reached: no invariant may refuse it
    // A parity every move flips is the distance's.
    const int parity = invariants.DistanceParity(state.data());
    if (parity >= 0 && parity != entry % 2) std::abort();
  }
  // The rank that checks its state agrees with Indexable and Rank, on every number's state
  // and on the same with one byte changed (most of them no state of the index).
  for (uint64_t i = 0; i < index->size(); ++i) {
    index->Unrank(i, state.data());
    uint64_t rank = 0;
    if (!index->RankIfIndexable(state.data(), &rank) || rank != i) std::abort();
    puzzledb::DefinedState damaged = state;
    damaged[i % damaged.size()] = static_cast<uint8_t>(i * 37 + 1);
    const bool indexable = index->Indexable(damaged.data());
    if (index->RankIfIndexable(damaged.data(), &rank) != indexable) std::abort();
    if (indexable && rank != index->Rank(damaged.data())) std::abort();
  }
  // Layout 3 (an arrangement split where one applies): the same distance for every state.
  const auto arranged = puzzledb::DefinedIndex::Make(d, moves, 1 << 12, {.arrangements = true});
  if (!arranged.ok() || arranged->size() != index->size()) std::abort();
  if (arranged->inner_is_arrangement()) {
    const auto again = puzzledb::SearchDefinition(d, moves, *arranged, options);
    if (!again.ok() || again->histogram != searched->histogram) std::abort();
    for (uint64_t i = 0; i < index->size(); ++i) {
      index->Unrank(i, state.data());
      if (!arranged->Indexable(state.data())) std::abort();
      if (again->entries.Get(arranged->Rank(state.data())) != searched->entries.Get(i)) std::abort();
    }
  }
  // Layout 5 (a set's orientation sum in the index where one applies): every reached state
  // has its number there, at the same distance, and the checking rank agrees with Indexable.
  const auto summed = puzzledb::DefinedIndex::Make(d, moves, 1 << 12, {.twist_sums = true});
  if (!summed.ok() || summed->size() > index->size()) std::abort();
  if (summed->layout() == 5) {
    const auto again = puzzledb::SearchDefinition(d, moves, *summed, options);
    if (!again.ok() || again->histogram != searched->histogram) std::abort();
    for (uint64_t i = 0; i < index->size(); ++i) {
      index->Unrank(i, state.data());
      uint64_t rank = 0;
      const bool indexable = summed->Indexable(state.data());
      if (summed->RankIfIndexable(state.data(), &rank) != indexable) std::abort();
      if (indexable && (rank != summed->Rank(state.data()) || rank >= summed->size())) std::abort();
      const uint8_t entry = searched->entries.Get(i);
      if (entry == puzzledb::PackedTable::kByteUncovered) continue;
      if (!indexable || again->entries.Get(rank) != entry) std::abort();
    }
    for (uint64_t i = 0; i < summed->size(); ++i) {
      summed->Unrank(i, state.data());
      if (!summed->Indexable(state.data()) || summed->Rank(state.data()) != i) std::abort();
    }
  }
  // A symmetry's image of a reached state is reached, as far (a small budget: bad input
  // must not make the search for them long).
  const auto symmetries = puzzledb::FindSymmetries(d, moves, 3, 1 << 20);
  puzzledb::DefinedState image;
  for (uint64_t i = 0; i < index->size(); ++i) {
    const uint8_t entry = searched->entries.Get(i);
    if (entry == puzzledb::PackedTable::kByteUncovered) continue;
    index->Unrank(i, state.data());
    for (const auto& symmetry : symmetries) {
      symmetry.Apply(d, state, &image);
      if (!index->Indexable(image.data()) || searched->entries.Get(index->Rank(image.data())) != entry) std::abort();
    }
  }
  // Layout 4 (symmetry classes where the group keeps the index's coordinates apart): every
  // reached state's class entry is its distance, each of its images has its number, and
  // the search finds each class once.
  const auto group = puzzledb::FindSymmetries(d, moves, puzzledb::kMaxSymmetries, 1 << 20);
  const auto classed = puzzledb::DefinedIndex::Make(d, moves, 1 << 12, {.arrangements = true, .symmetries = &group});
  if (!classed.ok()) std::abort();
  if (classed->symmetric()) {
    const auto by_class = puzzledb::SearchDefinition(d, moves, *classed, options);
    if (!by_class.ok()) std::abort();
    std::set<uint64_t> classes;
    std::vector<uint64_t> histogram;
    for (uint64_t i = 0; i < index->size(); ++i) {
      const uint8_t entry = searched->entries.Get(i);
      if (entry == puzzledb::PackedTable::kByteUncovered) continue;
      index->Unrank(i, state.data());
      const uint64_t r = classed->Rank(state.data());
      if (r >= classed->size() || by_class->entries.Get(r) != entry) std::abort();
      for (const auto& symmetry : group) {
        symmetry.Apply(d, state, &image);
        if (classed->Rank(image.data()) != r) std::abort();
      }
      if (classes.insert(r).second) {
        if (histogram.size() <= entry) histogram.resize(entry + 1u, 0);
        ++histogram[entry];
      }
    }
    if (histogram != by_class->histogram) std::abort();
  }
  return 0;
}
