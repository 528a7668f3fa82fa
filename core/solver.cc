#include "core/solver.h"

namespace puzzledb {

void Solver::Refuse(const std::string& table_id, const absl::Status& why) {
  std::lock_guard<std::mutex> lock(mutex_);
  refused_[table_id] = std::string(Message(why));
  walkers_.erase(table_id);
  if (log_) log_(Cat("refusing table ", table_id, ": ", Message(why)));
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
  return ids;
}

}  // namespace puzzledb
