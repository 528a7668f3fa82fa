#include "core/defined/projection_table.h"

#include <utility>

namespace puzzledb {

absl::StatusOr<ProjectionTable> ProjectionTable::Build(const Definition& definition,
                                                       const ProjectionSpec& spec,
                                                       uint64_t max_entries,
                                                       const DefinedSearchOptions& options) {
  auto projection = Projection::Make(definition, spec);
  if (!projection.ok()) return projection.status();
  CompiledMoves moves(projection->projected());
  auto index = DefinedIndex::Make(projection->projected(), moves, max_entries);
  if (!index.ok()) return index.status();
  ProjectionTable out(*std::move(projection), std::move(moves), *std::move(index));
  DefinedSearchOptions exact = options;
  exact.exact = true;  // a bound is read alone: the distance itself, not modulo 3
  auto searched = SearchDefinition(out.projection_.projected(), out.moves_, out.index_, exact);
  if (!searched.ok()) return searched.status();
  out.table_ = std::move(searched->entries);
  out.histogram_ = std::move(searched->histogram);
  return out;
}

int ProjectionTable::Bound(const DefinedState& state, DefinedState* scratch) const {
  projection_.Project(state, scratch);
  if (!index_.Indexable(scratch->data())) return kUnreachable;
  const uint8_t d = table_.Get(index_.Rank(scratch->data()));
  return d == PackedTable::kByteUncovered ? kUnreachable : d;
}

double ProjectionTable::average() const {
  double sum = 0, n = 0;
  for (size_t d = 0; d < histogram_.size(); ++d) {
    sum += static_cast<double>(d) * static_cast<double>(histogram_[d]);
    n += static_cast<double>(histogram_[d]);
  }
  return n > 0 ? sum / n : 0;
}

}  // namespace puzzledb
