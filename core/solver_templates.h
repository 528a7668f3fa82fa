// The templates of core/solver.h: one model's half of the solver. Included only where a
// model is registered (core/puzzles/model_puzzle.h), so that each puzzle's code is compiled
// once, in its own translation unit.
#ifndef PUZZLEDB_CORE_SOLVER_TEMPLATES_H_
#define PUZZLEDB_CORE_SOLVER_TEMPLATES_H_

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>

#include "core/search/ida_star.h"
#include "core/search/live_solver.h"
#include "core/solver.h"
#include "core/table/distance_index.h"
#include "core/table/sampler.h"
#include "core/table/table_bound.h"
#include "core/table/table_builder.h"
#include "core/table/table_optimal.h"
#include "core/table/table_walker.h"
#include "core/util/strings.h"

namespace puzzledb {

// A table step that found nothing yet, knowing whose it is.
template <PuzzleModel P>
TableStep EmptyStep(const P& model) {
  TableStep step;
  step.puzzle = ModelName(model);
  step.pattern_bound = P::kTableEncoding == TableEncodingKind::kPatternBound;
  return step;
}

// The mutex is held only to read or change the maps, never while a table loads or a live
// solver is built: a search thread runs at low priority (SCHED_IDLE on a busy machine gets
// almost no CPU), and a lock it held while being starved would stall every table answer.
template <PuzzleModel P>
std::shared_ptr<const TableWalker<P>> Solver::WalkerFor(const P& model) {
  if constexpr (P::kTableEncoding == TableEncodingKind::kPatternBound) {
    return nullptr;  // no table of distances: PatternsFor
  }
  const std::string id = P::TableId(model.params());
  const std::string key = KeyOf<P>(model.params(), id);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (refused_.count(key) != 0 || store_ == nullptr) return nullptr;
    if (auto it = walkers_.find(key); it != walkers_.end()) {
      return std::static_pointer_cast<const TableWalker<P>>(it->second);
    }
  }
  // Two threads may load the same table at once; the first to finish is kept.
  auto table = store_->Load(id);
  NoteLoad(table);
  std::lock_guard<std::mutex> lock(mutex_);
  if (refused_.count(key) != 0) return nullptr;
  if (auto it = walkers_.find(key); it != walkers_.end()) {
    return std::static_pointer_cast<const TableWalker<P>>(it->second);
  }
  if (!table.ok()) {
    if (absl::IsNotFound(table.status())) {
      walkers_[key] = nullptr;
    } else {
      refused_[key] = std::string(Message(table.status()));
      if (log_) log_(Cat("refusing table ", id, ": ", Message(table.status())));
    }
    return nullptr;
  }
  const TableMetadata& m = (*table)->metadata;
  if (m.puzzle() != ModelName(model) || m.parameters() != P::EncodeParams(model.params())) {
    // A call in flight on a puzzle replaced since (a definition built again while served)
    // meets its successor's table: no table for it, and nothing is refused.
    if (!IdentityServed(PuzzleIdentityOf<P>(model.params()))) return nullptr;
    refused_[key] = "its metadata does not match the puzzle and parameters it is named after";
    if (log_) log_(Cat("refusing table ", id, ": ", refused_[key]));
    return nullptr;
  }
  if (m.state_count() != model.space().Size() || m.encoding() != EncodingOf<P>()) {
    // A table over another space or in another encoding: one written by an older puzzledb
    // (the knight's table held every board before it held one entry per mirror class, the
    // knobs' every state's distance before the solvable half's next moves; docs/FORMAT.md).
    refused_[key] =
        Cat("it holds ", m.state_count(), " entries (", storage::v1::Encoding_Name(m.encoding()),
            ") where this puzzledb's ", ModelName(model), " table holds ", model.space().Size(), " (",
            storage::v1::Encoding_Name(EncodingOf<P>()),
            "): a table written by another version; rebuild it with puzzledb-build --db ",
            store_->dir(), " --puzzle ", ModelName(model));
    if (log_) log_(Cat("refusing table ", id, ": ", refused_[key]));
    return nullptr;
  }
  auto walker = std::make_shared<const TableWalker<P>>(model, *table);
  walkers_[key] = walker;
  return walker;
}

template <PuzzleModel P>
std::shared_ptr<const void> Solver::GuideFor(const typename P::Params& params) {
  const auto load = [&params](const std::shared_ptr<const LoadedTable>& table) {
    return P::Guide::Load(params, table);
  };
  for (const std::string_view set : P::Guide::Sets(params)) {
    const std::string id = P::Guide::TableId(params, set);
    auto guide = LoadGuide(id, KeyOf<P>(params, id), PuzzleIdentityOf<P>(params), load);
    if (guide != nullptr) return guide;
  }
  return nullptr;
}

template <PuzzleModel P>
std::shared_ptr<const LiveSolver<P>> Solver::LiveFor(const P& model) {
  if constexpr (P::kLiveSearch == LiveSearchKind::kBidirectional) {
    return std::make_shared<const LiveSolver<P>>(model);  // nothing to build or keep
  } else {
    const std::string key = KeyOf<P>(model.params(), P::TableId(model.params()));
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (auto it = live_.find(key); it != live_.end()) {
        return std::static_pointer_cast<const LiveSolver<P>>(it->second);
      }
    }
    // Built outside the lock (its perimeter search takes milliseconds, far longer for a
    // starved search thread); two threads may both build it, the first one is kept.
    auto built = std::make_shared<const LiveSolver<P>>(model);
    std::lock_guard<std::mutex> lock(mutex_);
    auto& slot = live_[key];
    if (slot == nullptr) slot = built;
    return std::static_pointer_cast<const LiveSolver<P>>(slot);
  }
}

template <PuzzleModel P>
absl::StatusOr<Sample<P>> Solver::Sample(const P& model, int distance, uint64_t count,
                                         uint64_t seed, const SearchLimits& limits) {
  if constexpr (P::kTableEncoding == TableEncodingKind::kPatternBound) {
    const std::shared_ptr<const void> guide = GuideFor<P>(model.params());
    return P::Guide::Draw(model, guide.get(), LiveFor(model)->perimeter(), distance, count,
                          seed, limits);
  }
  if (distance == kAnyDistance) {
    return absl::FailedPreconditionError(
        Cat("any_distance: only a puzzle without a table of distances (the fifteen puzzle) "
            "draws among every state; the ", ModelName(model), " puzzle draws at a distance"));
  }
  const std::string id = P::TableId(model.params());
  std::shared_ptr<const TableWalker<P>> walker = WalkerFor(model);
  if (walker == nullptr) {
    std::string why;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (auto it = refused_.find(KeyOf<P>(model.params(), id)); it != refused_.end()) why = it->second;
    }
    if (store_ == nullptr) {
      return absl::FailedPreconditionError(
          Cat("sampling needs table ", id, " and no database is open"));
    }
    if (!why.empty()) {
      return absl::FailedPreconditionError(Cat("sampling needs table ", id, ", refused: ", why));
    }
    return absl::FailedPreconditionError(
        Cat("sampling needs table ", id, ", which the database does not have (build it with "
            "puzzledb-build --puzzle ", ModelName(model), ")"));
  }
  auto sampler = SamplerFor(model, *walker);
  if (!sampler.ok()) return sampler.status();
  return (*sampler)->Draw(distance, count, seed, limits);
}

template <PuzzleModel P>
absl::StatusOr<std::shared_ptr<const Sampler<P>>> Solver::SamplerFor(
    const P& model, const TableWalker<P>& walker) const {
  const std::string id = KeyOf<P>(model.params(), P::TableId(model.params()));
  // A sampler made from another build of the table (rebuilt since) does not count.
  auto current = [&walker](const std::shared_ptr<const void>& slot) {
    auto sampler = std::static_pointer_cast<const Sampler<P>>(slot);
    if (sampler != nullptr &&
        sampler->metadata().generation() != walker.metadata().generation()) {
      sampler = nullptr;
    }
    return sampler;
  };
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = samplers_.find(id); it != samplers_.end() && current(it->second) != nullptr) {
      return current(it->second);
    }
  }
  // One build at a time: callers that race to the same first sample wait for it instead
  // of each building a copy (35.2 MB for the knight). It is never held with mutex_.
  std::lock_guard<std::mutex> building(sampler_build_mutex_);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = samplers_.find(id); it != samplers_.end() && current(it->second) != nullptr) {
      return current(it->second);
    }
  }
  // Built outside mutex_: a modulo-3 table reads its band pages (~0.1 s for the knight)
  // or, without them, searches again for its exact distances (~1.3 s on 2 threads; a
  // next-move table always does, ~0.3 s a knobs wiring).
  const std::shared_ptr<const LoadedTable> table = walker.table();
  auto index = DistanceIndex::Build(*store_, table, [&model, &table, this] {
    if (log_) log_(Cat("table ", table->metadata.table_id(), ": searching for its exact "
                       "distances (they are not stored)"));
    return ExactDistances(model, *table, 0);
  });
  if (!index.ok()) return index.status();
  auto built = std::make_shared<const Sampler<P>>(model, std::move(*index));
  std::lock_guard<std::mutex> lock(mutex_);
  auto& slot = samplers_[id];
  if (current(slot) == nullptr) slot = built;
  return built;
}

template <PuzzleModel P>
absl::StatusOr<OptimalPaths> Solver::Optimal(
    const typename P::Instance& instance, const TableStep& step, size_t list,
    const SearchLimits& limits) const {
  if constexpr (P::kTableEncoding == TableEncodingKind::kPatternBound) {
    return absl::FailedPreconditionError(
        Cat("counting or listing optimal solutions needs a table of exact distances, and the ",
            ModelName(P(instance.params)), " puzzle's tables are pattern tables (bounds): with them the count is "
            "a search of every optimal path, which no bound keeps small"));
  }
  if (!step.answer.has_value() || step.answer->source != Source::kTable || step.table == nullptr) {
    return absl::FailedPreconditionError(
        Cat("counting or listing optimal solutions needs a table that covers the state; ",
            step.had_table ? "the table does not cover it"
                           : Cat("there is no usable ", ModelName(P(instance.params)), " table for these parameters")));
  }
  if (step.answer->outcome != Outcome::kSolved) {
    return OptimalPaths{};
  }
  const auto& table = static_cast<const TableWalker<P>&>(*step.table);
  if constexpr (TableWalker<P>::kNextMove) {
    // Counting needs every neighbour's exact distance, which next moves do not hold: the
    // sampler's (searched for once per table, then kept).
    auto sampler = SamplerFor(P(instance.params), table);
    if (!sampler.ok()) return sampler.status();
    return table.Optimal(instance.state, step.answer->distance, list, limits,
                         (*sampler)->distances());
  } else {
    return table.Optimal(instance.state, step.answer->distance, list, limits);
  }
}

template <PuzzleModel P>
TableStep Solver::FromTables(const P& model, const typename P::Instance& instance,
                             int max_moves) {
  TableStep step = EmptyStep(model);
  if constexpr (P::kTableEncoding == TableEncodingKind::kPatternBound) {
    step.guide = GuideFor<P>(model.params());
    step.had_table = step.guide != nullptr;
    if (step.had_table && model.ProvablyUnsolvable(instance.state)) {
      // As for the 8-puzzle: proven by parity, answered with the tables' step.
      Solution unsolvable;
      unsolvable.outcome = Outcome::kUnsolvable;
      unsolvable.source = Source::kTable;
      step.answer = unsolvable;
    }
    return step;
  }
  std::shared_ptr<const TableWalker<P>> walker = WalkerFor(model);
  if (walker == nullptr) return step;
  // One pass: a covered state's answer is the walk that read its distance.
  auto answer = walker->Solve(instance.state, max_moves);
  if (!answer.ok()) {
    Refuse(KeyOf<P>(model.params(), P::TableId(model.params())), answer.status());
    return step;
  }
  return StepOf(model, instance, max_moves, walker, std::move(*answer));
}

template <PuzzleModel P>
TableStep Solver::StepOf(const P& model, const typename P::Instance& instance, int max_moves,
                         const std::shared_ptr<const TableWalker<P>>& walker,
                         typename TableWalker<P>::Answer answer) {
  TableStep step = EmptyStep(model);
  step.had_table = true;
  if (answer.kind == TableLookup::Kind::kCovered) {
    step.answer = std::move(answer.solution);
  } else if (answer.kind == TableLookup::Kind::kUncovered) {
    Solution& uncovered = answer.solution;
    if (walker->complete()) {
      uncovered.outcome = Outcome::kUnsolvable;
      step.answer = std::move(uncovered);
    } else if (max_moves > 0 && max_moves < walker->UncoveredBound()) {
      uncovered.outcome = Outcome::kNotWithinLimit;
      step.answer = std::move(uncovered);
    } else {
      step.partial = walker;
    }
  } else if (model.ProvablyUnsolvable(instance.state)) {
    // No place in the table because the model proves the state unsolvable (an 8-puzzle
    // board of the other parity, outside the table's space): answered by the table step,
    // as a complete table answers the unsolvable states inside its space, so a TABLE_ONLY
    // caller gets it too.
    Solution unsolvable;
    unsolvable.outcome = Outcome::kUnsolvable;
    unsolvable.source = Source::kTable;
    step.answer = unsolvable;
  }
  if (step.had_table) step.table = walker;
  return step;
}

template <PuzzleModel P>
void Solver::FromTablesMany(const P& model, std::span<const typename P::Instance> instances,
                            std::span<const int> max_moves, std::span<TableStep> steps) {
  if constexpr (!TableWalker<P>::kWalks) {
    for (size_t i = 0; i < instances.size(); ++i) {
      steps[i] = FromTables(model, instances[i], max_moves[i]);
    }
  } else {
    std::shared_ptr<const TableWalker<P>> walker = WalkerFor(model);
    if (walker == nullptr) {
      for (TableStep& step : steps) step = EmptyStep(model);
      return;
    }
    std::vector<typename P::State> states;
    states.reserve(instances.size());
    for (const auto& instance : instances) states.push_back(instance.state);
    std::vector<absl::StatusOr<typename TableWalker<P>::Answer>> answers(instances.size());
    walker->SolveMany(states, max_moves, std::span(answers));
    // A walk that found the table inconsistent refuses it (once); its state goes on to
    // search, as a later call's would. The walks that passed every check stand.
    bool refused = false;
    for (size_t i = 0; i < instances.size(); ++i) {
      if (answers[i].ok()) {
        steps[i] = StepOf(model, instances[i], max_moves[i], walker, std::move(*answers[i]));
        continue;
      }
      steps[i] = EmptyStep(model);
      if (!refused) Refuse(KeyOf<P>(model.params(), P::TableId(model.params())), answers[i].status());
      refused = true;
    }
  }
}

template <PuzzleModel P>
absl::StatusOr<Solution> Solver::Search(const P& model, const typename P::Instance& instance,
                                        const TableStep& step, const SearchLimits& limits) {
  if constexpr (P::kLiveSearch == LiveSearchKind::kGuided) {
    // SEARCH_ONLY skips the table step, but a guide only guides a search: read it.
    std::shared_ptr<const void> guide = step.guide;
    if (guide == nullptr) guide = GuideFor<P>(model.params());
    if (guide != nullptr) {
      auto live = LiveFor(model);
      return P::Guide::Search(model, guide.get(), live->perimeter(), instance.state, limits);
    }
  }
  if constexpr (P::kLiveSearch == LiveSearchKind::kIdaStar) {
    if (step.partial != nullptr) {
      const TableBound<P> bound(model, static_cast<const TableWalker<P>&>(*step.partial));
      return IdaStar<P, TableBound<P>>(model, bound, limits).Run(instance.state);
    }
  }
  return LiveFor(model)->Solve(instance.state, limits);
}

template <PuzzleModel P>
absl::StatusOr<Solution> Solver::Solve(const typename P::Instance& instance,
                                       const SolveOptions& options) {
  const P model(instance.params);
  TableStep step = EmptyStep(model);
  if (options.policy != Policy::kSearchOnly) {
    step = FromTables(model, instance, options.limits.max_moves);
    if (step.answer.has_value()) return *step.answer;
    if (options.policy == Policy::kTableOnly) return step.NoSearchAllowed();
  }
  return Search(model, instance, step, options.limits);
}

template <PuzzleModel P>
AnalysisStep Solver::AnalyzeFromTables(const P& model, const typename P::Instance& instance,
                                       int max_moves, bool use_tables) {
  AnalysisStep step;
  step.position = EmptyStep(model);
  if (use_tables) step.position = FromTables(model, instance, max_moves);
  for (int m = 0; m < MoveCount(model); ++m) {
    typename P::Instance child = instance;
    if (!model.Apply(instance.state, m, &child.state)) continue;
    step.moves.push_back(m);
    step.after.push_back(use_tables ? FromTables(model, child, max_moves) : EmptyStep(model));
  }
  return step;
}

template <PuzzleModel P>
absl::StatusOr<Analysis> Solver::AnalyzeSearch(const P& model, const typename P::Instance& instance,
                                               AnalysisStep step, const SearchLimits& limits) {
  // Searches what the table step left open; an answer it gave is kept.
  auto answer = [&](const typename P::Instance& one,
                    TableStep& table) -> absl::StatusOr<Solution> {
    if (table.answer.has_value()) return std::move(*table.answer);
    return Search(model, one, table, limits);
  };
  Analysis analysis;
  auto position = answer(instance, step.position);
  if (!position.ok()) return position.status();
  analysis.position = std::move(*position);
  for (size_t i = 0; i < step.moves.size(); ++i) {
    const int m = step.moves[i];
    typename P::Instance child = instance;
    model.Apply(instance.state, m, &child.state);
    auto after = answer(child, step.after[i]);
    if (!after.ok()) return after.status();
    analysis.moves.push_back({m, model.MoveName(instance.state, m), after->outcome, after->distance});
  }
  // Best first: solved by distance, then beyond the cap, then unsolvable; ties keep the
  // canonical order.
  auto rank = [](const MoveAnalysis& a) {
    return a.outcome == Outcome::kSolved ? 0 : a.outcome == Outcome::kNotWithinLimit ? 1 : 2;
  };
  std::stable_sort(analysis.moves.begin(), analysis.moves.end(),
                   [&](const MoveAnalysis& a, const MoveAnalysis& b) {
                     if (rank(a) != rank(b)) return rank(a) < rank(b);
                     return rank(a) == 0 && a.distance < b.distance;
                   });
  return analysis;
}

template <PuzzleModel P>
absl::StatusOr<Analysis> Solver::Analyze(const typename P::Instance& instance,
                                         const SolveOptions& options) {
  const P model(instance.params);
  AnalysisStep step = AnalyzeFromTables(model, instance, options.limits.max_moves,
                                           options.policy != Policy::kSearchOnly);
  if (options.policy == Policy::kTableOnly && !step.Answered()) return step.NoSearchAllowed();
  return AnalyzeSearch(model, instance, std::move(step), options.limits);
}




template <PuzzleModel P>
void Solver::Prepare(const typename P::Params& params) {
  (void)WalkerFor(P(params));
}

template <PuzzleModel P>
bool Solver::Load(const TableMetadata& m, const typename P::Params& base) {
  if constexpr (P::kTableEncoding == TableEncodingKind::kPatternBound) {
    return LoadGuide(m.table_id(), KeyOf<P>(base, m.table_id()), PuzzleIdentityOf<P>(base),
                     [&base](const std::shared_ptr<const LoadedTable>& table) {
                       return P::Guide::Load(base, table);
                     }) != nullptr;
  } else {
    auto params = DecodeParamsOf<P>(base, m.parameters());
    if (!params.ok()) {
      std::lock_guard<std::mutex> lock(mutex_);
      refused_[KeyOf<P>(base, m.table_id())] = Cat("unreadable parameters: ", Message(params.status()));
      return false;
    }
    return WalkerFor(P(*params)) != nullptr;
  }
}

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_SOLVER_TEMPLATES_H_
