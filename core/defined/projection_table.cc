#include "core/defined/projection_table.h"

#include <utility>

#include "core/util/strings.h"

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
  auto table = std::make_shared<const PackedTable>(std::move(searched->entries));
  out.bytes_ = table->data();
  out.entries_ = table->size();
  out.keep_ = std::move(table);
  out.histogram_ = std::move(searched->histogram);
  return out;
}

absl::StatusOr<ProjectionTable> ProjectionTable::Over(const Definition& definition,
                                                      const ProjectionSpec& spec,
                                                      std::vector<uint64_t> histogram,
                                                      std::shared_ptr<const void> keep,
                                                      const uint8_t* bytes, uint64_t count) {
  auto projection = Projection::Make(definition, spec);
  if (!projection.ok()) return projection.status();
  CompiledMoves moves(projection->projected());
  auto index = DefinedIndex::Make(projection->projected(), moves, count);
  if (!index.ok() || index->size() != count) {
    return absl::DataLossError(Cat("projection ", FormatProjection(spec), " has ",
                                   index.ok() ? Cat(index->size(), " entries") : std::string("more entries"),
                                   ", the table gives it ", count));
  }
  ProjectionTable out(*std::move(projection), std::move(moves), *std::move(index));
  out.keep_ = std::move(keep);
  out.bytes_ = bytes;
  out.entries_ = count;
  out.histogram_ = std::move(histogram);
  return out;
}

absl::StatusOr<uint64_t> ProjectionTable::EntriesOf(const Definition& definition,
                                                    const ProjectionSpec& spec,
                                                    uint64_t max_entries) {
  auto projection = Projection::Make(definition, spec);
  if (!projection.ok()) return projection.status();
  CompiledMoves moves(projection->projected());
  auto index = DefinedIndex::Make(projection->projected(), moves, max_entries);
  if (!index.ok()) return index.status();
  return index->size();
}

int ProjectionTable::Bound(const DefinedState& state, DefinedState* scratch) const {
  projection_.Project(state, scratch);
  if (!index_.Indexable(scratch->data())) return kUnreachable;
  const uint8_t d = bytes_[index_.Rank(scratch->data())];
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
