// The Guide (core/model/model.h, kGuided) of a definition searched with pattern tables of
// its projections (core/defined/defined_patterns.h): where the solver and the builder meet
// them. Only core/defined/defined_puzzle.cc includes it.
#ifndef PUZZLEDB_CORE_DEFINED_DEFINED_GUIDE_H_
#define PUZZLEDB_CORE_DEFINED_DEFINED_GUIDE_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/defined/defined_patterns.h"
#include "core/search/perimeter.h"
#include "core/table/sampler.h"
#include "core/util/strings.h"

namespace puzzledb {

// The Guide of a definition's model (core/model/model.h, kGuided). P is
// DefinedModel<TableEncodingKind::kPatternBound>.
template <class P>
struct DefinedGuide {
  using State = typename P::State;
  using Params = typename P::Params;
  using PerimeterType = Perimeter<typename P::Space>;

  static std::vector<std::string_view> Sets(const Params&) { return {kDefinedPatternsSet}; }
  static std::string TableId(const Params& params, std::string_view set) {
    return Cat(params->name, "-", set);
  }
  static absl::StatusOr<std::shared_ptr<const void>> Load(
      const Params& params, const std::shared_ptr<const LoadedTable>& table) {
    auto patterns = DefinedPatternsOf(*params, table);
    if (!patterns.ok()) return patterns.status();
    return std::shared_ptr<const void>(*std::move(patterns));
  }
  static absl::StatusOr<Solution> Search(const P& model, const void* guide,
                                         const PerimeterType*, const State& start,
                                         const SearchLimits& limits) {
    const DefinedPuzzleData& data = *model.params();
    const DefinedState bytes(start.bytes.begin(),
                             start.bytes.begin() + static_cast<std::ptrdiff_t>(data.definition.state_bytes()));
    return SearchDefined(data, *static_cast<const DefinedPatterns*>(guide), bytes, limits);
  }
  static absl::StatusOr<Sample<P>> Draw(const P& model, const void*, const PerimeterType*, int,
                                        uint64_t, uint64_t, const SearchLimits&) {
    return absl::FailedPreconditionError(
        Cat("sampling draws states at an exact distance from a complete table, and the ",
            model.name(), " puzzle has none (too large for one, it is searched with pattern "
                          "tables, which bound distances but do not list the states at each)"));
  }
  static absl::StatusOr<TableMetadata> Build(const Params& params, std::string_view set,
                                             TableStore& store, const BuildOptions& options) {
    if (set != kDefinedPatternsSet) {
      return absl::InvalidArgumentError(Cat("the ", params->name, " puzzle has no pattern set ", set,
                                            " (its one set is ", kDefinedPatternsSet, ")"));
    }
    std::string why;  // what chose the projections, when the builder did
    auto specs = ProjectionsToBuild(params->definition, options, &why);
    if (!specs.ok()) return specs.status();
    return BuildDefinedPatterns(*params, *specs, store, options, why);
  }
  static absl::Status Verify(const Params& params, const LoadedTable& table, int threads) {
    return VerifyDefinedPatterns(*params, table, threads);
  }
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_DEFINED_DEFINED_GUIDE_H_
