#include "builder/build_command.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>
#include <type_traits>

#include "builder/handover.h"
#include "service/exit_codes.h"
#include "service/json.h"
#include "core/defined/defined_census.h"
#include "core/defined/defined_puzzle.h"
#include "core/definition/definition_template.h"
#include "core/definition/read_definition.h"
#include "core/puzzles/default_tables.h"
#include "core/puzzle.h"
#include "core/util/strings.h"
#include "core/table/table_builder.h"
#include "core/table/table_store.h"
#include "puzzledb/storage/v1/table.pb.h"

namespace puzzledb {
namespace {


absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(Cat(path, ": cannot open"));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// The parameters in the cases of one original-format text (`where` names it in errors):
// a position under each parameter set not seen yet.
absl::Status AddParams(const Puzzle& puzzle, std::string_view text, const std::string& where,
                       std::vector<Position>* all) {
  for (const auto& parsed : puzzle.ParseOriginal(text)) {
    if (!parsed.instance.ok()) {
      return absl::InvalidArgumentError(Cat(where, ": ", Message(parsed.instance.status())));
    }
    const bool seen = std::any_of(all->begin(), all->end(), [&](const Position& one) {
      return puzzle.SameParameters(one, *parsed.instance);
    });
    if (!seen) all->push_back(*parsed.instance);
  }
  return absl::OkStatus();
}

// The parameter sets to build for a puzzle: one for a puzzle without parameters; for one
// with parameters, those of every case in the --params files, else in the *.in files of
// --params-dir, else in the files compiled in (data/params/<puzzle>/).
absl::StatusOr<std::vector<Position>> ParamsToBuild(const Puzzle& puzzle,
                                                    const BuildCommandOptions& options) {
  if (!puzzle.has_parameters()) return std::vector<Position>{puzzle.Goal(nullptr)};
  std::vector<Position> all;
  std::vector<std::string> files = options.params;
  // A definition with parameters: its example's values unless the files give others.
  if (files.empty() && options.params_dir.empty() && !puzzle.definition().empty()) {
    return std::vector<Position>{puzzle.Goal(nullptr)};
  }
  if (files.empty() && options.params_dir.empty()) {
    for (const DefaultParamsFile& file : DefaultParamsFiles()) {
      if (file.puzzle != puzzle.name()) continue;
      if (absl::Status added = AddParams(puzzle, file.text, file.name, &all); !added.ok()) {
        return added;
      }
    }
    return all;
  }
  const std::string& dir_option = options.params_dir_option;
  if (files.empty()) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(options.params_dir, ec)) {
      if (entry.path().extension() == ".in") files.push_back(entry.path().string());
    }
    if (ec) {
      return absl::NotFoundError(Cat(dir_option, " ", options.params_dir, ": ", ec.message()));
    }
    if (files.empty()) {
      return absl::NotFoundError(Cat(dir_option, " ", options.params_dir, " holds no *.in files"));
    }
    std::sort(files.begin(), files.end());
  }
  for (const std::string& file : files) {
    auto text = ReadWholeFile(file);
    if (!text.ok()) return text.status();
    if (absl::Status added = AddParams(puzzle, *text, file, &all); !added.ok()) return added;
  }
  return all;
}

// The pattern sets of a puzzle that --patterns names (all of them for "all", the strongest
// when empty); INVALID_ARGUMENT naming the choices for another name.
absl::StatusOr<std::vector<std::string_view>> PatternSetsToBuild(
    const Puzzle& puzzle, const BuildCommandOptions& options) {
  const std::vector<std::string_view> all = puzzle.pattern_sets();
  std::vector<std::string_view> sets;
  for (const std::string_view set : all) {
    if (options.patterns == "all" || options.patterns == set) sets.push_back(set);
  }
  if (options.patterns.empty()) sets.push_back(all[0]);
  if (sets.empty()) {
    return absl::InvalidArgumentError(Cat("--patterns ", options.patterns, ": the ",
                                          puzzle.name(), " puzzle's pattern tables are ",
                                          Join(all, "|"), " or all"));
  }
  return sets;
}

// Pattern tables: every group's (projection's) search, then one atomic write per set. The
// ids written are added to `built`.
int BuildPatterns(const Puzzle& puzzle, const BuildCommandOptions& options,
                  const std::vector<std::string_view>& sets, TableStore& store,
                  std::ostream& out, std::ostream& err, std::vector<std::string>* built) {
  for (const std::string_view set : sets) {
    BuildOptions build;
    build.threads = options.threads;
    build.compression_level = options.compression_level;
    build.unpacked = options.unpacked;
    build.projections = options.projections;
    build.pattern_memory = options.pattern_memory;
    build.build_memory = options.build_memory;
    if (!options.quiet) build.on_progress = [&err](const std::string& line) { err << line << "\n"; };
    auto metadata = puzzle.BuildPatterns(set, store, build);
    if (!metadata.ok()) {
      err << "puzzledb-build: " << puzzle.name() << "-" << set << ": "
          << Message(metadata.status()) << "\n";
      // A projection the definition has not, or that does not fit: bad input.
      return absl::IsInvalidArgument(metadata.status()) ? kExitBadInput : kExitFailure;
    }
    out << metadata->table_id() << ": pattern tables of " << metadata->parameters_text() << ", "
        << Thousands(metadata->state_count()) << " entries, largest distance "
        << metadata->max_distance() << ", " << Megabytes(metadata->stored_bytes())
        << ", built in " << SecondsText(metadata->build_seconds()) << "\n";
    if (built != nullptr) built->push_back(metadata->table_id());
  }
  return kExitOk;
}

int BuildPuzzle(const Puzzle& puzzle, const BuildCommandOptions& options,
                const std::vector<Position>& all, TableStore& store, std::ostream& out,
                std::ostream& err, std::vector<std::string>* built = nullptr) {
  if (!puzzle.pattern_sets().empty()) {
    auto sets = PatternSetsToBuild(puzzle, options);
    if (!sets.ok()) {
      err << "puzzledb-build: " << Message(sets.status()) << "\n";
      return kExitBadInput;
    }
    return BuildPatterns(puzzle, options, *sets, store, out, err, built);
  }
  for (const Position& params : all) {
    const std::string id = puzzle.TableId(params);
    BuildOptions build;
    build.max_depth = options.max_depth;
    build.threads = options.threads;
    build.compression_level = options.compression_level;
    build.band_pages = options.band_pages;
    build.unpacked = options.unpacked;
    if (!options.quiet) {
      err << "building " << id << " (" << Thousands(puzzle.TableSize(params)) << " states"
          << (options.max_depth >= 0 ? Cat(", to depth ", options.max_depth) : std::string()) << ")\n";
      build.on_layer = [&err, &id](const BfsLayer& layer) {
        err << "  " << id << "  depth " << layer.depth << ": " << Thousands(layer.states)
            << " states, " << Thousands(layer.total) << " in all, " << SecondsText(layer.seconds)
            << (layer.bottom_up ? " (bottom-up)" : "") << "\n";
      };
    }
    auto metadata = puzzle.Build(params, store, build);
    if (!metadata.ok()) {
      // A definition's search finds what its file breaks (two blocks of a move at once):
      // bad input, named by the file.
      DefinitionSummary defined;
      const bool is_defined = SummarizeDefinition(puzzle, &defined);
      err << "puzzledb-build: " << (is_defined ? defined.file : id) << ": "
          << Message(metadata.status()) << "\n";
      return is_defined && absl::IsInvalidArgument(metadata.status()) ? kExitBadInput : kExitFailure;
    }
    out << id << ": " << Thousands(metadata->covered_states()) << " of "
        << Thousands(metadata->state_count()) << " states, "
        << (metadata->complete() ? "complete" : Cat("to depth ", metadata->coverage_depth()))
        << ", largest distance " << metadata->max_distance() << ", "
        << Megabytes(metadata->stored_bytes()) << ", built in " << SecondsText(metadata->build_seconds())
        << "\n";
    if (built != nullptr) built->push_back(id);
  }
  return kExitOk;
}

// The puzzles of the --definition files, each read and checked (INVALID_ARGUMENT naming the
// file, the line and the rule).
absl::StatusOr<std::vector<std::shared_ptr<const Puzzle>>> DefinedPuzzles(
    const BuildCommandOptions& options) {
  if (!options.definitions.empty() && options.max_depth >= 0 && !options.puzzle_given) {
    return absl::InvalidArgumentError(
        "--max-depth builds a partial table; a definition's table is always complete");
  }
  if (!options.name.empty() && options.definitions.size() != 1) {
    return absl::InvalidArgumentError(
        Cat("--name names the puzzle of one --definition, and ", options.definitions.size(),
            " are given"));
  }
  if (!options.projections.empty() && options.definitions.size() != 1) {
    return absl::InvalidArgumentError(
        Cat("--projection names projections of one --definition, and ", options.definitions.size(),
            " are given"));
  }
  const uint64_t max_states = options.max_states > 0 ? options.max_states : kDefaultMaxDefinedStates;
  if (max_states > kLargestMaxDefinedStates) {
    return absl::InvalidArgumentError(Cat("--max-states ", max_states, " is more than ",
                                          kLargestMaxDefinedStates, " (2^40)"));
  }
  std::vector<std::shared_ptr<const Puzzle>> puzzles;
  for (const std::string& path : options.definitions) {
    std::error_code ec;
    const auto bytes = std::filesystem::file_size(path, ec);
    if (ec) return absl::InvalidArgumentError(Cat("--definition ", path, ": ", ec.message()));
    if (bytes > (uint64_t{1} << 20)) {
      return absl::InvalidArgumentError(Cat("--definition ", path, ": ", bytes,
                                            " bytes, more than a definition may take (1048576)"));
    }
    auto text = ReadWholeFile(path);
    if (!text.ok()) return absl::InvalidArgumentError(Cat("--definition ", Message(text.status())));
    const std::string name = options.name.empty() ? DefinedNameOf(path) : options.name;
    const std::string file = std::filesystem::path(path).filename().string();
    auto puzzle = MakeDefinedPuzzle(
        name, *text, file, max_states,
        options.projections.empty() ? DefinedTableKind::kAuto : DefinedTableKind::kPatterns);
    if (!puzzle.ok()) {
      // A refusal of the name names the option to use.
      if (absl::Status named = CheckDefinedName(name); !named.ok()) {
        return absl::InvalidArgumentError(
            Cat(file, ": ", Message(named),
                options.name.empty() ? "; give the puzzle a name with --name" : ""));
      }
      return puzzle.status();
    }
    BuildOptions build;
    build.projections = options.projections;
    build.pattern_memory = options.pattern_memory;
    build.build_memory = options.build_memory;
    if (absl::Status buildable = CheckDefinedBuild(**puzzle, build); !buildable.ok()) return buildable;
    puzzles.push_back(*std::move(puzzle));
  }
  return puzzles;
}

// Builds one definition's table (complete, or pattern tables) and reads it back (every page
// against its checksum); then removes the definition's table of the other kind, so that
// the puzzle is served as it was built.
int BuildDefinition(const Puzzle& puzzle, const BuildCommandOptions& options, TableStore& store,
                    std::ostream& out, std::ostream& err) {
  DefinitionSummary defined;
  SummarizeDefinition(puzzle, &defined);
  if (defined.patterns && options.projections.empty() && !options.quiet) {
    err << defined.file << ": no complete table (" << defined.index.substr(defined.index.find(": ") + 2)
        << "); building pattern tables of projections chosen within --pattern-memory\n";
  }
  // A definition with parameters: a table for each set of values of the --params files
  // (its example's without them).
  std::vector<Position> all{puzzle.Goal(nullptr)};
  if (puzzle.has_parameters()) {
    auto sets = ParamsToBuild(puzzle, options);
    if (!sets.ok()) {
      err << "puzzledb-build: " << Message(sets.status()) << "\n";
      return absl::IsInvalidArgument(sets.status()) ? kExitBadInput : kExitFailure;
    }
    all = *std::move(sets);
  } else if (!options.params.empty() || !options.params_dir.empty()) {
    err << "puzzledb-build: " << options.params_option << " and " << options.params_dir_option << " give values of a "
        << "definition's parameters, and " << defined.file << " declares none\n";
    return kExitBadInput;
  }
  std::vector<std::string> built;
  if (const int status = BuildPuzzle(puzzle, options, all, store, out, err, &built); status != kExitOk) {
    return status;
  }
  for (const std::string& id : built) {
    if (absl::Status checked = store.CheckPages(id); !checked.ok()) {
      err << "puzzledb-build: " << id << ": written, but reading it back failed: "
          << Message(checked) << "\n";
      return kExitFailure;
    }
  }
  auto tables = store.List();
  if (!tables.ok()) {
    err << "puzzledb-build: " << Message(tables.status()) << "\n";
    return kExitFailure;
  }
  for (const TableMetadata& m : *tables) {
    if (m.puzzle() != puzzle.name() ||
        std::find(built.begin(), built.end(), m.table_id()) != built.end()) {
      continue;
    }
    // The tables of other sets of values of the same definition stay.
    if (puzzle.has_parameters() && m.projections_size() == 0 && puzzle.GoalOfStoredParameters(m.parameters()).ok()) {
      continue;
    }
    if (absl::Status removed = store.Remove(m.table_id()); !removed.ok()) {
      err << "puzzledb-build: " << m.table_id() << ": " << Message(removed) << "\n";
      return kExitFailure;
    }
    if (!options.quiet) err << "removed " << m.table_id() << ", the " << puzzle.name() << " puzzle's table of the other kind\n";
  }
  return kExitOk;
}

}  // namespace

void RegisterDefinitions(const TableStore& store, std::string_view command, std::ostream& err,
                         std::map<std::string, std::string>* refused) {
  RegisterStoredDefinitions(
      store,
      [&err, command](std::string_view line) {
        err << "puzzledb-build" << (command.empty() ? "" : " ") << command << ": " << line << "\n";
      },
      refused);
}

int RunBuild(const BuildCommandOptions& options, std::ostream& out, std::ostream& err) {
  // Definitions: every file read and checked before the database is opened.
  auto defined = DefinedPuzzles(options);
  if (!defined.ok()) {
    err << "puzzledb-build: " << Message(defined.status()) << "\n";
    return kExitBadInput;
  }
  const std::chrono::seconds handover_timeout(options.handover_timeout_seconds);
  if (!defined->empty() && !options.puzzle_given) {
    auto target = OpenBuildTarget(options.db, options.quiet, err);
    if (!target.ok()) {
      err << "puzzledb-build: " << Message(target.status()) << "\n";
      return kExitFailure;
    }
    int status = kExitOk;
    for (const auto& puzzle : *defined) {
      status = BuildDefinition(*puzzle, options, *target->store, out, err);
      if (status != kExitOk) break;
    }
    return FinishBuildTarget(*target, status, handover_timeout, out, err);
  }
  std::vector<const Puzzle*> chosen;
  std::string with_params;  // the puzzles that have parameters, for the error below
  for (const Puzzle* puzzle : Puzzles()) {
    if (puzzle->has_parameters()) with_params += Cat(with_params.empty() ? "" : ", ", puzzle->name());
    if (options.puzzle == "all" || options.puzzle == puzzle->name()) chosen.push_back(puzzle);
  }
  if (chosen.empty()) {
    err << "puzzledb-build: unknown puzzle '" << options.puzzle << "'; choose one of "
        << PuzzleNames() << "|all\n";
    return kExitBadInput;
  }
  const bool has_params = options.puzzle == "all" || chosen[0]->has_parameters();
  if (!has_params && (!options.params.empty() || !options.params_dir.empty())) {
    err << "puzzledb-build: " << options.params_option << " and " << options.params_dir_option
        << " name parameters, which only these puzzles have: " << with_params << "; the "
        << options.puzzle << " puzzle has none\n";
    return kExitBadInput;
  }
  // Everything is read and checked before the first table is built (or the database is
  // even opened), so that a bad parameter file leaves no half-built database.
  std::vector<std::function<int(TableStore&)>> builds;
  for (const Puzzle* puzzle : chosen) {
    if (!puzzle->pattern_sets().empty()) {
      if (auto sets = PatternSetsToBuild(*puzzle, options); !sets.ok()) {
        err << "puzzledb-build: " << Message(sets.status()) << "\n";
        return kExitBadInput;
      }
    }
    auto all = ParamsToBuild(*puzzle, options);
    if (!all.ok()) {
      err << "puzzledb-build: " << Message(all.status()) << "\n";
      return absl::IsNotFound(all.status()) || absl::IsInvalidArgument(all.status())
                 ? kExitBadInput
                 : kExitFailure;
    }
    builds.push_back([puzzle, &options, &out, &err, all = *all](TableStore& store) {
      return BuildPuzzle(*puzzle, options, all, store, out, err);
    });
  }
  auto target = OpenBuildTarget(options.db, options.quiet, err);
  if (!target.ok()) {
    err << "puzzledb-build: " << Message(target.status()) << "\n";
    return kExitFailure;
  }
  int status = kExitOk;
  for (const auto& build : builds) {
    status = build(*target->store);
    if (status != kExitOk) break;
  }
  for (size_t i = 0; status == kExitOk && i < defined->size(); ++i) {
    status = BuildDefinition(*(*defined)[i], options, *target->store, out, err);
  }
  return FinishBuildTarget(*target, status, handover_timeout, out, err);
}

// The database opened read-only and its tables, or nothing after saying why on `err`.
struct OpenedDb {
  std::unique_ptr<TableStore> store;
  std::vector<TableMetadata> tables;
  std::map<std::string, std::string> refused;  // stored definitions not served, and why
};
std::optional<OpenedDb> OpenAndList(const std::string& db, std::string_view command,
                                    std::ostream& err,
                                    TableStore::Mode mode = TableStore::Mode::kReadOnly) {
  auto store = TableStore::Open(db, mode);
  if (!store.ok()) {
    err << "puzzledb-build " << command << ": " << Message(store.status()) << "\n";
    return std::nullopt;
  }
  auto tables = (*store)->List();
  if (!tables.ok()) {
    err << "puzzledb-build " << command << ": " << Message(tables.status()) << "\n";
    return std::nullopt;
  }
  std::map<std::string, std::string> refused;
  RegisterDefinitions(**store, command, err, &refused);
  return OpenedDb{std::move(*store), std::move(*tables), std::move(refused)};
}

int RunVerify(const std::string& db, int threads, std::ostream& out, std::ostream& err) {
  std::optional<OpenedDb> opened = OpenAndList(db, "verify", err);
  if (!opened.has_value()) return kExitFailure;
  auto& store = opened->store;
  const std::vector<TableMetadata>* tables = &opened->tables;
  if (tables->empty() && store->Damaged().empty()) {
    err << "puzzledb-build verify: " << db << " holds no tables\n";
    return kExitFailure;
  }
  int failures = 0;
  // Tables whose files are damaged so that even their records cannot be read.
  for (const auto& [id, why] : store->Damaged()) {
    const std::string message =
        Cat("table ", id, ": ", why, "; rebuild it: puzzledb-build --db ", db,
            " --puzzle ", id.substr(0, id.find('-')), " (with the table's parameters)");
    out << id << ": FAILED: " << message << "\n";
    err << "puzzledb-build verify: " << message << "\n";
    ++failures;
  }
  for (const TableMetadata& m : *tables) {
    const auto started = std::chrono::steady_clock::now();
    const Puzzle* puzzle = FindPuzzle(m.puzzle());
    // The stored bytes first (a load that reads the unpacked copy never sees the pages),
    // then the entries against a fresh search.
    absl::Status status = store->Check(m.table_id());
    if (status.ok()) {
      const auto refused = opened->refused.find(m.table_id());
      status = puzzle != nullptr ? puzzle->Verify(*store, m, threads)
               : refused != opened->refused.end()
                   ? absl::DataLossError(Cat("table ", m.table_id(), ": ", refused->second))
                   : absl::DataLossError(Cat("table ", m.table_id(), ": unknown puzzle '",
                                             m.puzzle(), "'"));
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (status.ok()) {
      out << m.table_id() << ": ok (" << Thousands(m.state_count()) << " entries, "
          << SecondsText(seconds) << ")\n";
    } else {
      ++failures;
      out << m.table_id() << ": FAILED: " << Message(status) << "\n";
      err << "puzzledb-build verify: " << Message(status) << "\n";
    }
  }
  return failures == 0 ? kExitOk : kExitFailure;
}

int RunUnpack(const std::string& db, UnpackedCopies which, std::ostream& out, std::ostream& err) {
  auto store = TableStore::Open(db, TableStore::Mode::kReadWriteExisting);
  if (!store.ok()) {
    err << "puzzledb-build unpack: " << Message(store.status()) << "\n";
    return kExitFailure;
  }
  auto tables = (*store)->List();
  if (!tables.ok()) {
    err << "puzzledb-build unpack: " << Message(tables.status()) << "\n";
    return kExitFailure;
  }
  int failures = 0;
  for (const TableMetadata& m : *tables) {
    const uint64_t bytes = PackedTable::BytesFor(m.encoding(), m.state_count());
    if (!GetsUnpackedCopy(which, bytes)) {
      out << m.table_id() << ": no copy (" << Megabytes(bytes)
          << " of entries decode in milliseconds; --all writes one)\n";
      continue;
    }
    const auto started = std::chrono::steady_clock::now();
    const absl::Status status = (*store)->Unpack(m.table_id());
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const std::string path = (*store)->UnpackedPath(m);
    if (!status.ok()) {
      ++failures;
      out << m.table_id() << ": FAILED: " << Message(status) << "\n";
      err << "puzzledb-build unpack: " << Message(status) << "\n";
    } else if (path.empty()) {
      out << m.table_id() << ": no copy (its id cannot name a file); its pages serve it\n";
    } else {
      out << m.table_id() << ": " << path << " (" << SecondsText(seconds) << ")\n";
    }
  }
  return failures == 0 ? kExitOk : kExitFailure;
}

int RunMigrate(const std::string& db, std::ostream& out, std::ostream& err) {
  std::optional<OpenedDb> opened =
      OpenAndList(db, "migrate", err, TableStore::Mode::kReadWriteExisting);
  if (!opened.has_value()) return kExitFailure;
  const std::unique_ptr<TableStore>& store = opened->store;
  const std::vector<TableMetadata>* tables = &opened->tables;
  int failures = 0, moved = 0, definitions = 0;
  for (const TableMetadata& m : *tables) {
    const auto started = std::chrono::steady_clock::now();
    uint64_t pages = 0;
    std::string rewritten;  // what a stored definition became
    const auto migrated = store->Migrate(m.table_id(), &pages, [&](TableMetadata* record) {
      auto changed = MigrateDefinitionRecord(record);
      if (changed.ok() && *changed) rewritten = record->parameters_text();
      return changed;
    });
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (!migrated.ok()) {
      ++failures;
      out << m.table_id() << ": FAILED: " << Message(migrated.status()) << "\n";
      err << "puzzledb-build migrate: " << Message(migrated.status())
          << " (rebuild it: puzzledb-build --db " << db << " --puzzle " << m.puzzle() << ")\n";
    } else if (*migrated) {
      moved += m.format_version() != kTableFormatVersion;
      definitions += !rewritten.empty();
      std::vector<std::string> did;
      if (m.format_version() != kTableFormatVersion) {
        did.push_back(Cat("format ", m.format_version(), " -> ", kTableFormatVersion, ", ", pages, " pages"));
      }
      if (!rewritten.empty()) {
        did.push_back(Cat("its definition in today's reading of move orientations (", rewritten, ")"));
      }
      out << m.table_id() << ": " << Join(did, "; ");
      out << " (" << SecondsText(seconds) << ")\n";
    } else {
      out << m.table_id() << ": format " << kTableFormatVersion << " already\n";
    }
  }
  for (const auto& [id, why] : store->Damaged()) {
    ++failures;
    out << id << ": FAILED: " << why << "\n";
    err << "puzzledb-build migrate: table " << id << " cannot be read: " << why << "\n";
  }
  out << moved << " of " << tables->size() << " tables moved to format " << kTableFormatVersion;
  if (definitions > 0) out << ", " << definitions << " definitions rewritten in today's reading";
  out << "\n";
  return failures == 0 ? kExitOk : kExitFailure;
}

int RunInfo(const std::string& db, bool json, std::ostream& out, std::ostream& err) {
  std::optional<OpenedDb> opened = OpenAndList(db, "info", err);
  if (!opened.has_value()) return kExitFailure;
  auto& store = opened->store;
  const std::vector<TableMetadata>* tables = &opened->tables;
  storage::v1::DatabaseInfo info;
  info.set_db(db);
  std::error_code ec;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(db, ec)) {
    if (entry.is_regular_file(ec)) info.set_size_on_disk(info.size_on_disk() + entry.file_size(ec));
  }
  int bad = 0;
  for (const TableMetadata& m : *tables) {
    auto* table = info.add_tables();
    *table->mutable_metadata() = m;
    table->set_size_on_disk(store->SizeOnDisk(m.table_id()));
    // The cheap checks (every checksum, of the pages and of the unpacked copy), not
    // verify's fresh search.
    absl::Status problem = store->Check(m.table_id());
    if (problem.ok() && m.band_page_count() > 0) {
      auto loaded = store->Load(m.table_id());
      problem = loaded.ok() ? store->LoadExactDistances(**loaded).status() : loaded.status();
    }
    if (!problem.ok()) {
      table->set_problem(std::string(Message(problem)));
      err << "puzzledb-build info: table " << m.table_id() << " is bad: "
          << Message(problem) << " (puzzledb-build verify checks it in full)\n";
      ++bad;
    }
  }
  const int exit_code = bad == 0 ? kExitOk : kExitFailure;
  if (json) {
    out << ToJson(info, JsonLayout::kIndented);
    return exit_code;
  }
  out << db << ": " << info.tables_size() << " tables, " << Megabytes(info.size_on_disk())
      << " on disk\n";
  for (const auto& t : info.tables()) {
    const TableMetadata& m = t.metadata();
    out << "\n" << m.table_id() << "\n";
    out << "  puzzle        " << m.puzzle()
        << (m.parameters_text().empty() ? "" : Cat(", ", m.parameters_text())) << "\n";
    DefinitionSummary defined;
    if (const Puzzle* puzzle = FindPuzzle(m.puzzle());
        puzzle != nullptr && SummarizeDefinition(*puzzle, &defined)) {
      out << "  definition    " << (defined.title.empty() ? "(no Name line)" : defined.title) << "\n";
      out << "  sets          " << defined.sets << "\n";
      out << "  moves         " << defined.moves << "\n";
      out << "  index         " << defined.index << "\n";
      if (!defined.ways.empty()) out << "  ways back     " << defined.ways << "\n";
      if (!defined.symmetry.empty()) out << "  symmetry      " << defined.symmetry << "\n";
    }
    // A definition's pattern tables: each projection, its size and its average bound.
    for (const auto& projection : m.projections()) {
      double sum = 0, n = 0;
      for (int d = 0; d < projection.histogram_size(); ++d) {
        sum += static_cast<double>(d) * static_cast<double>(projection.histogram(d));
        n += static_cast<double>(projection.histogram(d));
      }
      char average[32];
      std::snprintf(average, sizeof average, "%.2f", n > 0 ? sum / n : 0.0);
      out << "  projection    " << projection.spec() << ": " << Thousands(projection.entries())
          << (projection.shares() > 0 ? Cat(" entries, those of projection ", projection.shares(), " (the same puzzle)")
                                      : Cat(" entries (", Megabytes(projection.entries()), ")"))
          << ", largest "
          << std::max(0, projection.histogram_size() - 1) << ", average " << average << "\n";
    }
    if (m.projections_size() > 0) {
      out << "  duplicates    "
          << (!m.has_duplicates()
                  ? std::string("none stored (built before they were): rebuild to search faster")
              : m.duplicates().searched_length() == 0
                  ? std::string("none looked for: the tables are exact for every goal, or Illegal lines make "
                                "sequences of one transform differ")
                  : Cat(Thousands(m.duplicates().lengths_size()), " block sequences the search skips, every one of up to ",
                        m.duplicates().searched_length(), " blocks"))
          << "\n";
    }
    out << "  states        " << Thousands(m.covered_states()) << " of "
        << Thousands(m.state_count()) << " covered, "
        << (m.complete() ? "complete" : Cat("to depth ", m.coverage_depth())) << "\n";
    out << "  distances     largest " << m.max_distance() << "; per distance";
    for (int d = 0; d < m.histogram_size(); ++d) out << " " << m.histogram(d);
    out << "\n";
    const char* encoding =
        m.encoding() == storage::v1::DISTANCE_MOD3    ? "distance mod 3, 2 bits"
        : m.encoding() == storage::v1::NEXT_MOVE      ? "next move, 4 bits"
        : m.encoding() == storage::v1::PATTERN_EXCESS ? "pattern bound (excess over Manhattan / 2), 4 bits"
                                                      : "distance, 1 byte";
    out << "  encoding      " << encoding << ", " << m.page_count() << " pages of "
        << Thousands(m.entries_per_page()) << " entries\n";
    if (m.encoding() == storage::v1::DISTANCE_MOD3) {
      out << "  band pages    "
          << (m.band_page_count() > 0
                  ? Cat(m.band_page_count(), " (distance / 3, 4 bits), ",
                        Megabytes(m.band_stored_bytes()), " stored, crc32 ", m.band_crc32())
                  : std::string("none (the first sample searches for the distances; "
                                "--band-pages writes them)"))
          << "\n";
    }
    out << "  size          " << Megabytes(m.stored_bytes() + m.band_stored_bytes()) << " stored, "
        << Megabytes(t.size_on_disk()) << " on disk\n";
    out << "  built         " << SecondsText(m.build_seconds()) << ", generation " << m.generation()
        << ", format " << m.format_version() << ", crc32 " << m.content_crc32() << "\n";
    out << "  checksums     " << (t.problem().empty() ? "ok" : "BAD: " + t.problem()) << "\n";
  }
  return exit_code;
}

namespace {

// The definition file at `path` (--definition of `command`), or nullopt, said on `err`.
std::optional<std::string> ReadDefinitionFile(const std::string& path, std::string_view command,
                                              std::ostream& err) {
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(path, ec);
  if (ec) {
    err << "puzzledb-build " << command << ": --definition " << path << ": " << ec.message() << "\n";
    return std::nullopt;
  }
  if (bytes > (uint64_t{1} << 20)) {
    err << "puzzledb-build " << command << ": --definition " << path << ": " << bytes
        << " bytes, more than a definition may take (1048576)\n";
    return std::nullopt;
  }
  auto text = ReadWholeFile(path);
  if (!text.ok()) {
    err << "puzzledb-build " << command << ": --definition " << Message(text.status()) << "\n";
    return std::nullopt;
  }
  return *std::move(text);
}

}  // namespace

int RunMigrateDefinition(const std::string& path, std::ostream& out, std::ostream& err) {
  const std::optional<std::string> text = ReadDefinitionFile(path, "migrate", err);
  if (!text.has_value()) return kExitBadInput;
  auto rewritten = RewriteLegacyTwists(*text, std::filesystem::path(path).filename().string());
  if (!rewritten.ok()) {
    err << "puzzledb-build migrate: " << Message(rewritten.status()) << "\n";
    return kExitBadInput;
  }
  out << *rewritten;
  return kExitOk;
}

int RunDefinedCensus(const std::string& path, int depth, uint64_t memory, int threads, bool quiet,
                     std::ostream& out, std::ostream& err) {
  const std::optional<std::string> text = ReadDefinitionFile(path, "census", err);
  if (!text.has_value()) return kExitBadInput;
  // A definition with parameters: the one its example's values make.
  auto definition = ReadAnyDefinition(*text, std::filesystem::path(path).filename().string());
  if (!definition.ok()) {
    err << "puzzledb-build census: " << Message(definition.status()) << "\n";
    return kExitBadInput;
  }
  DefinedCensusOptions options;
  options.depth = depth;
  options.memory = memory;
  options.threads = threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // Each distance as it is counted: a long census shows its progress in its output.
  options.on_layer = [&](int d, uint64_t states, double seconds) {
    out << d << " " << states << std::endl;
    if (!quiet) err << "  distance " << d << ": " << Thousands(states) << " states, " << SecondsText(seconds) << "\n";
  };
  auto counts = DefinedCensus(*definition, options);
  if (!counts.ok()) {
    err << "puzzledb-build census: " << Message(counts.status()) << "\n";
    return absl::IsInvalidArgument(counts.status()) ? kExitBadInput : kExitFailure;
  }
  return kExitOk;
}

}  // namespace puzzledb
