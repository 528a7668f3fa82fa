#include "service/table_builds.h"

#include "core/table/table_builder.h"
#include "core/table/table_store.h"

namespace puzzledb {

bool TableBuilds::Request(const Position& parameters) {
  return Request(parameters.puzzle()->TableId(parameters),
                 [parameters](TableStore& store, const BuildOptions& options) {
                   return parameters.puzzle()->Build(parameters, store, options).status();
                 });
}

}  // namespace puzzledb
