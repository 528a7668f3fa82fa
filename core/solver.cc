#include "core/solver.h"

#include <algorithm>

#include "core/table/table_store.h"
#include "core/util/strings.h"

namespace puzzledb {

// The runtime half of the solver (core/solver.h); each model's half is
// core/solver_templates.h, compiled in the model's translation unit.

absl::Status TableStep::NoSearchAllowed() const {
  if (pattern_bound) {
    return absl::FailedPreconditionError(
        Cat("the ", puzzle, " puzzle's tables are pattern tables, which bound a search but "
            "answer no board by themselves, and the policy forbids search"));
  }
  return absl::FailedPreconditionError(
      had_table ? "the table does not cover this state and the policy forbids search"
                : Cat("no usable ", puzzle,
                      " table for these parameters and the policy forbids search"));
}

absl::StatusOr<Solution> Solver::Solve(const Position& position, const SolveOptions& options) {
  const Puzzle& puzzle = *position.puzzle();
  TableStep step;
  if (options.policy != Policy::kSearchOnly) {
    step = puzzle.FromTables(*this, position, options.limits.max_moves);
    if (step.answer.has_value()) return *step.answer;
    if (options.policy == Policy::kTableOnly) return step.NoSearchAllowed();
  }
  return puzzle.Search(*this, position, step, options.limits);
}

absl::StatusOr<Analysis> Solver::Analyze(const Position& position, const SolveOptions& options) {
  const Puzzle& puzzle = *position.puzzle();
  AnalysisStep step = puzzle.AnalyzeFromTables(*this, position, options.limits.max_moves,
                                               options.policy != Policy::kSearchOnly);
  if (options.policy == Policy::kTableOnly && !step.Answered()) return step.NoSearchAllowed();
  return puzzle.AnalyzeSearch(*this, position, std::move(step), options.limits);
}

void Solver::EraseLocked(const std::string& key, bool samplers) {
  walkers_.erase(key);
  if (samplers) samplers_.erase(key);
  guides_.erase(key);
}

bool Solver::KeyServed(const std::string& key) {
  const size_t at = key.find('@');
  if (at == std::string::npos) return true;
  return IdentityServed(reinterpret_cast<const void*>(
      static_cast<uintptr_t>(std::stoull(key.substr(at + 1)))));
}

void Solver::NoteLoad(const absl::StatusOr<std::shared_ptr<const LoadedTable>>& table) const {
  if (!table.ok() || (*table)->unpacked_problem.empty() || !log_) return;
  log_(Cat("table ", (*table)->metadata.table_id(), ": ", (*table)->unpacked_problem,
           "; read from its pages instead (puzzledb-build unpack --db ", store_->dir(),
           " writes the copy again)"));
}

void Solver::Refuse(const std::string& key, const absl::Status& why) {
  std::lock_guard<std::mutex> lock(mutex_);
  refused_[key] = std::string(Message(why));
  EraseLocked(key, /*samplers=*/false);
  if (log_) log_(Cat("refusing table ", IdOfKey(key), ": ", Message(why)));
}

std::shared_ptr<const void> Solver::LoadGuide(const std::string& id, const std::string& key,
                                              const void* identity, const GuideLoader& load) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (refused_.count(key) != 0 || store_ == nullptr) return nullptr;
    if (auto it = guides_.find(key); it != guides_.end()) return it->second;
  }
  // Loaded outside the lock, as WalkerFor does; the first load to finish is kept.
  auto table = store_->Load(id);
  NoteLoad(table);
  absl::StatusOr<std::shared_ptr<const void>> tables = table.ok() ? load(*table) : table.status();
  std::lock_guard<std::mutex> lock(mutex_);
  if (refused_.count(key) != 0) return nullptr;
  if (auto it = guides_.find(key); it != guides_.end()) return it->second;
  if (!tables.ok()) {
    if (absl::IsNotFound(tables.status())) {
      guides_[key] = nullptr;
    } else if (IdentityServed(identity)) {  // else a puzzle replaced since: nothing refused
      refused_[key] = std::string(Message(tables.status()));
      if (log_) log_(Cat("refusing table ", id, ": ", Message(tables.status())));
    }
    return nullptr;
  }
  guides_[key] = *tables;
  return *tables;
}

int Solver::Preload() {
  if (store_ == nullptr) return 0;
  auto tables = store_->List();
  if (!tables.ok()) {
    if (log_) log_(Cat("cannot list tables: ", Message(tables.status())));
    return 0;
  }
  for (const auto& [id, why] : store_->Damaged()) {
    const std::string reason =
        Cat("table ", id, ": ", why, "; rebuild it with puzzledb-build (docs/OPERATIONS.md)");
    if (log_) log_(Cat("refusing table ", id, ": ", reason));
    std::lock_guard<std::mutex> lock(mutex_);
    refused_[id] = reason;
  }
  int loaded = 0;
  for (const TableMetadata& m : *tables) {
    const Puzzle* puzzle = FindPuzzle(m.puzzle());
    if (puzzle != nullptr) loaded += puzzle->Load(*this, m);
  }
  return loaded;
}

void Solver::Forget(const std::string& table_id) {
  std::lock_guard<std::mutex> lock(mutex_);
  // The table's every key: its id, and "id@..." of each puzzle made at run time that used it.
  const auto of_table = [&table_id](const std::string& key) { return IdOfKey(key) == table_id; };
  std::vector<std::string> keys;
  const auto collect = [&](const auto& map) {
    for (const auto& [key, value] : map) {
      if (of_table(key)) keys.push_back(key);
    }
  };
  collect(walkers_);
  collect(live_);
  collect(samplers_);
  collect(guides_);
  collect(refused_);
  for (const std::string& key : keys) {
    EraseLocked(key, /*samplers=*/true);
    // A live solver needs no table: a built-in puzzle's stays; one of a puzzle made at run
    // time goes with its table (a replaced puzzle's would be kept for nothing).
    if (key.find('@') != std::string::npos) live_.erase(key);
    refused_.erase(key);
  }
}

void Solver::NoteRefused(const std::string& table_id, const std::string& why) {
  std::lock_guard<std::mutex> lock(mutex_);
  refused_[table_id] = why;
  EraseLocked(table_id, /*samplers=*/false);
}

std::map<std::string, std::string> Solver::Refused() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::map<std::string, std::string> refused;
  for (const auto& [key, why] : refused_) {
    if (KeyServed(key)) refused[IdOfKey(key)] = why;
  }
  return refused;
}

std::vector<std::string> Solver::Loaded() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> ids;
  for (const auto& [key, walker] : walkers_) {
    if (walker != nullptr && KeyServed(key)) ids.push_back(IdOfKey(key));
  }
  for (const auto& [key, tables] : guides_) {
    if (tables != nullptr && KeyServed(key)) ids.push_back(IdOfKey(key));
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

}  // namespace puzzledb
