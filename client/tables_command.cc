#include <cstdio>

#include "client/commands.h"
#include "core/util/strings.h"
#include "service/wire.h"

namespace puzzledb {

int RunTablesCommand(const BackendOptions& options, bool json, std::ostream& out,
                     std::ostream& err) {
  if (options.server.empty() && options.db.empty()) {
    err << "puzzledb tables: say whose tables: --db DIR (a database) or --server ADDR\n";
    return kExitBadInput;
  }
  int exit_code = kExitOk;
  std::unique_ptr<Backend> backend = MakeCommandBackend(options, err, &exit_code);
  if (backend == nullptr) return exit_code;
  auto tables = backend->ListTables();
  if (!tables.ok()) {
    err << "puzzledb: " << Message(tables.status()) << "\n";
    return kExitFailure;
  }
  if (json) {
    out << ToJsonLine(*tables) << "\n";
    return kExitOk;
  }
  if (tables->tables_size() == 0) out << "no tables\n";
  for (const auto& t : tables->tables()) {
    char size[32];
    std::snprintf(size, sizeof size, "%.1f MB", static_cast<double>(t.size_bytes()) / 1e6);
    out << t.table_id() << "  " << t.status() << "  " << t.covered_states() << "/" << t.states()
        << " states, " << (t.complete() ? "complete" : Cat("to depth ", t.coverage_depth()))
        << ", largest distance " << t.max_distance() << ", " << size << "\n";
  }
  for (const auto& id : tables->building()) out << id << "  BUILDING\n";
  return kExitOk;
}

}  // namespace puzzledb
