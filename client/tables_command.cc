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

int RunPuzzlesCommand(const BackendOptions& options, bool json, std::ostream& out,
                      std::ostream& err) {
  int exit_code = kExitOk;
  std::unique_ptr<Backend> backend = MakeCommandBackend(options, err, &exit_code);
  if (backend == nullptr) return exit_code;
  auto puzzles = backend->ListPuzzles();
  if (!puzzles.ok()) {
    err << "puzzledb: " << Message(puzzles.status()) << "\n";
    return kExitFailure;
  }
  if (json) {
    out << ToJsonLine(*puzzles) << "\n";
    return kExitOk;
  }
  for (const auto& p : puzzles->puzzles()) {
    std::vector<std::string> tables;
    for (const auto& t : p.tables()) tables.push_back(t.table_id());
    out << p.name() << "  " << p.title() << "\n"
        << "  compact form: " << p.compact_form() << "\n"
        << "  example: " << p.example() << "\n"
        << "  moves: " << Join(p.move_names(), " ") << "\n"
        << "  tables: " << (tables.empty() ? std::string("none") : Join(tables, " ")) << "\n";
  }
  return kExitOk;
}

}  // namespace puzzledb
