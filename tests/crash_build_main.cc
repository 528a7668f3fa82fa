// puzzledb-build as the crash tests run it: the same command line (builder/build_main.h),
// with the table store's write points (SetWritePointHook) ending the process abruptly, exit
// status 86 and no cleanup, at the point PUZZLEDB_CRASH_AT names ("before-ingest",
// "after-ingest", "migrate-before-ingest", ...). The programs themselves have no such hook.
#include <cstdlib>
#include <string_view>

#include "builder/build_main.h"
#include "core/table/table_store.h"

int main(int argc, char** argv) {
  puzzledb::SetWritePointHook([](std::string_view point) {
    const char* at = std::getenv("PUZZLEDB_CRASH_AT");
    if (at != nullptr && point == at) std::_Exit(86);
  });
  return puzzledb::BuildMain(argc, argv);
}
