#include "core/solver.h"

namespace puzzledb {

void Solver::Refuse(const std::string& table_id, const absl::Status& why) {
  std::lock_guard<std::mutex> lock(mutex_);
  refused_[table_id] = std::string(Message(why));
  walkers_.erase(table_id);
  patterns_.erase(table_id);
  if (log_) log_(Cat("refusing table ", table_id, ": ", Message(why)));
}

std::shared_ptr<const PatternTables> Solver::LoadPatterns(const std::string& id,
                                                         std::string_view puzzle) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (refused_.count(id) != 0 || store_ == nullptr) return nullptr;
    if (auto it = patterns_.find(id); it != patterns_.end()) return it->second;
  }
  // Loaded outside the lock, as WalkerFor does; the first load to finish is kept.
  auto table = store_->Load(id);
  absl::StatusOr<std::shared_ptr<const PatternTables>> tables =
      table.ok() ? PatternTablesOf(*table) : table.status();
  if (tables.ok() && (*table)->metadata.puzzle() != puzzle) {
    tables = absl::DataLossError(Cat("table ", id, " is for puzzle ", (*table)->metadata.puzzle()));
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (refused_.count(id) != 0) return nullptr;
  if (auto it = patterns_.find(id); it != patterns_.end()) return it->second;
  if (!tables.ok()) {
    if (absl::IsNotFound(tables.status())) {
      patterns_[id] = nullptr;
    } else {
      refused_[id] = std::string(Message(tables.status()));
      if (log_) log_(Cat("refusing table ", id, ": ", Message(tables.status())));
    }
    return nullptr;
  }
  patterns_[id] = *tables;
  return *tables;
}

int Solver::Preload() {
  if (store_ == nullptr) return 0;
  auto tables = store_->List();
  if (!tables.ok()) {
    if (log_) log_(Cat("cannot list tables: ", Message(tables.status())));
    return 0;
  }
  int loaded = 0;
  for (const TableMetadata& m : *tables) {
    VisitPuzzle(m.puzzle(), [&](auto type) {
      using P = typename decltype(type)::type;
      if constexpr (P::kTableEncoding == TableEncodingKind::kPatternBound) {
        loaded += LoadPatterns(m.table_id(), P::kName) != nullptr;
        return;
      }
      auto params = P::DecodeParams(m.parameters());
      if (!params.ok()) {
        std::lock_guard<std::mutex> lock(mutex_);
        refused_[m.table_id()] = Cat("unreadable parameters: ", Message(params.status()));
        return;
      }
      loaded += WalkerFor(P(*params)) != nullptr;
    });
  }
  return loaded;
}

void Solver::Forget(const std::string& table_id) {
  std::lock_guard<std::mutex> lock(mutex_);
  walkers_.erase(table_id);
  patterns_.erase(table_id);
  refused_.erase(table_id);
  samplers_.erase(table_id);
}

std::map<std::string, std::string> Solver::Refused() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return refused_;
}

std::vector<std::string> Solver::Loaded() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> ids;
  for (const auto& [id, walker] : walkers_) {
    if (walker != nullptr) ids.push_back(id);
  }
  for (const auto& [id, tables] : patterns_) {
    if (tables != nullptr) ids.push_back(id);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

}  // namespace puzzledb
