#include "core/defined/defined_ida.h"

#include <algorithm>

#include "core/definition/defined_index.h"
#include "core/util/strings.h"

namespace puzzledb {
namespace {

class Ida {
 public:
  Ida(const Definition& d, std::span<const ProjectionTable* const> tables,
      const DefinedIdaOptions& options)
      : d_(d), moves_of_(d), tables_(tables), options_(options) {}

  absl::StatusOr<DefinedIdaResult> Run(const DefinedState& start) {
    path_.assign(static_cast<size_t>(options_.max_depth) + 2, start);
    int threshold = Bound(start, ProjectionTable::kUnreachable);
    while (threshold <= options_.max_depth) {
      ++result_.iterations;
      next_threshold_ = ProjectionTable::kUnreachable;
      moves_.clear();
      auto found = Dfs(0, threshold);
      if (!found.ok()) return found.status();
      if (*found) {
        result_.solved = true;
        result_.moves = moves_;
        return result_;
      }
      threshold = next_threshold_;
    }
    result_.unreachable = threshold >= ProjectionTable::kUnreachable;
    return result_;
  }

 private:
  // The largest bound, stopping as soon as one passes `enough`.
  int Bound(const DefinedState& state, int enough) {
    int h = 0;
    for (const ProjectionTable* t : tables_) {
      h = std::max(h, t->Bound(state, &scratch_));
      if (h > enough) break;
    }
    return h;
  }

  absl::StatusOr<bool> Dfs(int g, int threshold) {
    const DefinedState& here = path_[static_cast<size_t>(g)];
    if (d_.IsGoal(here)) return true;
    DefinedState& next = path_[static_cast<size_t>(g) + 1];
    for (int m = 0; m < moves_of_.move_count(); ++m) {
      // The compiled blocks: what Definition::Apply does, without its bookkeeping.
      if (!moves_of_.Apply(here.data(), m, next.data()) || next == here ||
          (g > 0 && next == path_[static_cast<size_t>(g) - 1])) {
        continue;
      }
      ++result_.nodes;
      if (options_.max_nodes > 0 && result_.nodes > options_.max_nodes) {
        return absl::ResourceExhaustedError(
            Cat("the search passed its budget of ", options_.max_nodes, " states"));
      }
      if ((result_.nodes & 4095) == 0 && options_.limits != nullptr) {
        if (absl::Status reached = LimitsReached(*options_.limits, "the search"); !reached.ok()) {
          return absl::Status(reached.code(), Cat(std::string(reached.message()), " after ", result_.nodes, " states"));
        }
      }
      const int f = g + 1 + Bound(next, threshold - g - 1);
      if (f > threshold) {
        next_threshold_ = std::min(next_threshold_, f);
        continue;
      }
      moves_.push_back(m);
      auto found = Dfs(g + 1, threshold);
      if (!found.ok() || *found) return found;
      moves_.pop_back();
    }
    return false;
  }

  const Definition& d_;
  const CompiledMoves moves_of_;
  const std::span<const ProjectionTable* const> tables_;
  const DefinedIdaOptions& options_;
  std::vector<DefinedState> path_;  // path_[g]: the state after g moves
  std::vector<int> moves_;
  DefinedState scratch_;
  int next_threshold_ = 0;
  DefinedIdaResult result_;
};

}  // namespace

absl::StatusOr<DefinedIdaResult> DefinedIdaStar(const Definition& definition,
                                                std::span<const ProjectionTable* const> tables,
                                                const DefinedState& start,
                                                const DefinedIdaOptions& options) {
  if (options.max_depth < 0 || options.max_depth > 1000) {
    return absl::InvalidArgumentError(Cat("max_depth ", options.max_depth, " is not from 0 to 1000"));
  }
  return Ida(definition, tables, options).Run(start);
}

}  // namespace puzzledb
