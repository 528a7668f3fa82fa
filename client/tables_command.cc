#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "client/commands.h"
#include "core/puzzle.h"
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
  // Which puzzles' tables are pattern tables (bounds for a search, not answers).
  std::set<std::string> guided;
  if (auto puzzles = backend->ListPuzzles(); puzzles.ok()) {
    for (const auto& p : puzzles->puzzles()) {
      if (p.pattern_tables()) guided.insert(p.name());
    }
  }
  for (const auto& t : tables->tables()) {
    std::string what;
    if (guided.count(t.puzzle()) > 0 && !t.complete()) {
      what = Cat("pattern tables, ", Thousands(t.states()), " entries, largest bound ",
                 t.max_distance());
    } else {
      what = Thousands(t.covered_states());
      if (!t.complete()) {
        what += Cat(" of ", Thousands(t.states()), " states, every state within ",
                    t.coverage_depth(), " moves");
      } else if (t.covered_states() == t.states()) {
        what += " states, complete";
      } else {
        // A dense index may hold slots no state reaches (one per position and its mirror
        // image, where a model folds them).
        what += Cat(" states in an index of ", Thousands(t.states()), ", complete");
      }
      what += Cat(", largest distance ", t.max_distance());
    }
    out << t.table_id() << "  " << t.status() << "  " << what << ", "
        << Megabytes(t.size_bytes()) << "\n";
  }
  for (const auto& id : tables->building()) out << id << "  BUILDING\n";
  return kExitOk;
}

int RunCensusCommand(const BackendOptions& options, const std::string& name, std::ostream& out,
                     std::ostream& err) {
  if (options.server.empty() && options.db.empty()) {
    err << "puzzledb census: say whose tables: --db DIR (a database) or --server ADDR\n";
    return kExitBadInput;
  }
  int exit_code = kExitOk;
  std::unique_ptr<Backend> backend = MakeCommandBackend(options, err, &exit_code);
  if (backend == nullptr) return exit_code;
  // A puzzle this program knows says what its tables count (a server's definitions are
  // known to it alone: their tables count positions). Pattern tables count nothing; tables
  // of other entries (mirror pairs, placements of a part) give each distance's positions
  // through the sampler's population, one call a distance.
  const Puzzle* known = FindPuzzle(name);
  if (known != nullptr && known->pattern_tables()) {
    err << "puzzledb census: the " << name << " puzzle's tables hold " << known->table_entries()
        << " (docs/PUZZLES.md): they give no census\n";
    return kExitBadInput;
  }
  const bool by_population = known != nullptr && !known->table_entries().empty();
  auto tables = backend->ListTables();
  if (!tables.ok()) {
    err << "puzzledb: " << Message(tables.status()) << "\n";
    return kExitFailure;
  }
  std::vector<const v1::TableInfo*> chosen;
  for (const auto& t : tables->tables()) {
    if (t.puzzle() == name) chosen.push_back(&t);
  }
  if (chosen.empty()) {
    std::vector<std::string> known;
    for (const auto& t : tables->tables()) {
      if (std::find(known.begin(), known.end(), t.puzzle()) == known.end()) known.push_back(t.puzzle());
    }
    err << "puzzledb census: no table of a puzzle named '" << name << "'"
        << (known.empty() ? std::string(" (there are no tables)")
                          : Cat("; tables are of ", Join(known, ", ")))
        << "\n";
    return kExitBadInput;
  }
  for (const v1::TableInfo* t : chosen) {
    if (chosen.size() > 1) out << "# " << t->table_id() << (t->parameters().empty() ? "" : Cat(": ", t->parameters())) << "\n";
    if (!t->complete()) {
      out << "# covers distances 0 to " << t->coverage_depth() << " only\n";
    }
    if (!by_population) {
      for (int d = 0; d < t->histogram_size(); ++d) out << d << " " << t->histogram(d) << "\n";
      continue;
    }
    // A position is as far as its nearest entry, so no farther than the table's largest
    // distance; the layers are contiguous, so the first empty one ends them.
    err << "puzzledb census: the " << name << " puzzle's tables hold " << known->table_entries()
        << "; counting its positions at each distance\n";
    for (int d = 0; d < t->histogram_size(); ++d) {
      v1::SampleRequest request;
      request.mutable_puzzle()->set_name(name);
      request.set_distance(static_cast<uint32_t>(d));
      request.set_count(0);
      auto counted = backend->Sample(request);
      if (!counted.ok()) {
        err << "puzzledb census: distance " << d << ": " << Message(counted.status()) << "\n";
        return kExitFailure;
      }
      if (counted->population() == 0) break;
      out << d << " " << counted->population() << std::endl;  // each line as it is counted
    }
  }
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
        << "  moves: " << Join(p.move_names(), " ");
    // A move named by where it goes has no name where it cannot be made.
    if (std::find(p.move_names().begin(), p.move_names().end(), "?") != p.move_names().end()) {
      out << "  (named at the example; ? cannot be made there, and a move's name depends on "
             "the position)";
    }
    out << "\n";
    if (p.default_max_moves() > 0) {
      out << "  max moves: " << p.default_max_moves()
          << " unless --max-moves says otherwise (the original problem's limit; 0 lifts it)\n";
    }
    out << "  tables: " << (tables.empty() ? std::string("none") : Join(tables, " ")) << "\n";
  }
  return kExitOk;
}

}  // namespace puzzledb
