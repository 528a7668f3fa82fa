// puzzledb-build: builds the tables of a puzzledb database, verifies them, describes them.
// Its command line (builder/main.cc runs it; so does the crash tests' build of it,
// tests/crash_build_main.cc).
#include "builder/build_main.h"

#include <iostream>
#include <map>

#include "CLI/CLI.hpp"
#include "builder/build_command.h"
#include "builder/handover.h"
#include "core/puzzles/default_tables.h"
#include "core/puzzle.h"
#include "core/util/strings.h"

namespace puzzledb {

int BuildMain(int argc, char** argv) {
  CLI::App app{"puzzledb-build: builds (by default), verifies and describes puzzle tables"};
  app.require_subcommand(0, 1);
  BuildCommandOptions build;
  app.add_option("--db", build.db, "Database folder")->capture_default_str();
  app.add_option("--puzzle", build.puzzle, "Which tables to build: " + PuzzleNames() + "|all")
      ->capture_default_str();
  app.add_option("--max-depth", build.max_depth,
                 "Stop the search after this distance (a partial table); default: everything")
      ->check(CLI::Range(0, 254));
  // Parameter files: --params, or the name a puzzle gives them (Puzzle::parameters_flag).
  std::string params_help;
  std::vector<CLI::Option*> aliases;  // the models' own names
  std::vector<std::vector<std::string>> alias_files(Puzzles().size());
  std::vector<std::string> alias_dirs(Puzzles().size());
  CLI::Option* params = app.add_option("--params", build.params);
  CLI::Option* params_dir = app.add_option(
      "--params-dir", build.params_dir, "Build a table for every *.in file in this folder");
  for (size_t i = 0; i < Puzzles().size(); ++i) {
    const Puzzle& puzzle = *Puzzles()[i];
    if (!puzzle.has_parameters()) continue;
    params_help += Cat(params_help.empty() ? "" : "; ", puzzle.name(), ": ", puzzle.parameters_help());
    if (!puzzle.parameters_flag().empty()) {
      const std::string flag = Cat("--", puzzle.parameters_flag());
      aliases.push_back(app.add_option(flag, alias_files[i],
                                       Cat("The ", puzzle.name(), " puzzle's name for --params")));
      aliases.push_back(app.add_option(Cat(flag, "s-dir"), alias_dirs[i],
                                       Cat("The ", puzzle.name(), " puzzle's name for --params-dir")));
    }
  }
  params->description(
      Cat("Parameter file(s) for the puzzles with parameters (", params_help,
          "); every instance's parameters get a table. Default: every *.in file in "
          "--params-dir, or without it the files compiled in (data/params/<puzzle>/ of the "
          "source)"));
  std::string pattern_sets;
  for (const Puzzle* puzzle : Puzzles()) {
    if (puzzle->pattern_sets().empty()) continue;
    pattern_sets += Cat(pattern_sets.empty() ? "" : "; ", puzzle->name(), ": ",
                        Join(puzzle->pattern_sets(), "|"));
  }
  app.add_option("--patterns", build.patterns,
                 Cat("Which pattern tables to build for the puzzles that search with them (",
                     pattern_sets, ", or all); default: the strongest (the first named)"));
  app.add_option("--threads", build.threads, "Threads (default: one per core)")
      ->check(CLI::Range(0, 256));
  app.add_option("--compression-level", build.compression_level, "zstd level of the pages")
      ->check(CLI::Range(1, 19))
      ->capture_default_str();
  app.add_flag("--band-pages", build.band_pages,
               "Also store a residue table's exact distances (6.7 MB more for the largest today), so "
               "that its first sample reads them instead of searching again (about 1.3 s)");
  const std::map<std::string, UnpackedCopies> copies = {
      {"large", UnpackedCopies::kLarge}, {"all", UnpackedCopies::kAll}, {"none", UnpackedCopies::kNone}};
  app.add_option("--unpacked-copies", build.unpacked,
                 "Which tables also get an unpacked copy that loads without decoding "
                 "(docs/FORMAT.md): large (tables of 32 MiB of entries or more), "
                 "all, or none")
      ->transform(CLI::CheckedTransformer(copies, CLI::ignore_case))
      ->default_str("large");
  app.add_flag("--quiet,-q", build.quiet, "No progress on stderr");
  app.add_option("--definition", build.definitions,
                 "A puzzle given as a definition file (docs/PUZZLES.md, \"Puzzles as data\"): its "
                 "table is built and stored with the definition, so that a server started on the "
                 "database serves it; a table of that name is replaced. Repeatable. With it, "
                 "only --puzzle's tables are built besides, when --puzzle is given");
  app.add_option("--name", build.name,
                 "The puzzle's name for one --definition (default: the file's name without .tws, "
                 "in lower case): 1 to 32 of a-z, 0-9 and _, not starting with _");
  app.add_option("--max-states", build.max_states,
                 "The largest index of a definition's states that gets a complete table "
                 "(default 8589934592, 2^33; at most 2^40); a larger definition gets pattern "
                 "tables instead");
  app.add_option("--projection", build.projections,
                 "A projection of the --definition whose complete table guides its live search "
                 "(docs/PUZZLES.md, \"Pattern tables of projections\"): sets separated by ';', "
                 "each its name, then the labels told apart (the others one identical piece) and "
                 "-o to leave its orientations out, e.g. \"CORNER\" or \"EDGE 1-6 -o\". "
                 "Repeatable. With it the definition gets pattern tables, not a complete table; "
                 "without it, a definition too large for a complete table gets the projections "
                 "chosen within --pattern-memory");
  app.add_option("--pattern-memory", build.pattern_memory,
                 "Bytes a definition's pattern tables may take together (an entry a byte), e.g. "
                 "512M or 2G")
      ->transform(CLI::AsSizeValue(false))
      ->default_str("512M");
  app.add_option("--build-memory", build.build_memory,
                 "Bytes each of a definition's projections may take while it is searched, "
                 "besides the tables: a projection with free pieces (\"T 1-8 ~16\") is "
                 "searched with them told apart, in more than its table (8 tiles of a 4x4 "
                 "board and the blank: 1.6 GB for a table of 519 MB); the builder chooses "
                 "none past it")
      ->transform(CLI::AsSizeValue(false))
      ->default_str("4G");
  app.add_option("--handover-timeout", build.handover_timeout_seconds,
                 "While a puzzledb-server serves --db (and so holds it), the build writes aside "
                 "and hands its tables to the server, which serves them at once "
                 "(docs/OPERATIONS.md, \"Adding and removing puzzles while serving\"): seconds to "
                 "wait for it to take them")
      ->check(CLI::Range(1, 86400))
      ->capture_default_str();

  CLI::App* verify = app.add_subcommand(
      "verify", "Re-read every table (the checksums of its pages and of its unpacked copy) and "
                "check it against a fresh search; exit 1 naming the first bad table and state");
  verify->add_option("--db", build.db, "Database folder")->capture_default_str();
  verify->add_option("--threads", build.threads, "Threads (default: one per core)");
  bool json = false;
  CLI::App* info = app.add_subcommand("info", "List the tables with their metadata and size");
  info->add_option("--db", build.db, "Database folder")->capture_default_str();
  info->add_flag("--json", json, "Print JSON");

  CLI::App* unpack = app.add_subcommand(
      "unpack", "Write the unpacked copy of every table of 32 MiB of entries or more (--all: "
                "of every table) from its pages (docs/FORMAT.md, \"Unpacked copy\"): a "
                "database built before the copies existed, or whose copy verify found "
                "damaged, then loads its tables without decoding");
  unpack->add_option("--db", build.db, "Database folder")->capture_default_str();
  bool unpack_all = false;
  unpack->add_flag("--all", unpack_all,
                   "Every table, not only those of 32 MiB of entries or more");

  CLI::App* migrate = app.add_subcommand(
      "migrate", "Rewrite every table of an older database format under the current keys "
                 "(docs/FORMAT.md, \"Keys\"), and every stored definition read the old way "
                 "(move orientations by destination) in today's reading, with the same "
                 "meaning: each table in one step, its pages' bytes as they are; older formats "
                 "are still read, and a table is rewritten anyway when it is next built");
  migrate->add_option("--db", build.db, "Database folder")->capture_default_str();
  std::string migrate_definition;
  migrate->add_option("--definition", migrate_definition,
                      "Instead: print this definition file, written for a puzzledb that read "
                      "move orientations by destination, rewritten in today's reading (by piece, "
                      "as twsearch reads them) with the same meaning");

  std::string remove_puzzle;
  CLI::App* remove = app.add_subcommand(
      "remove", "Remove a puzzle given as a definition, and its tables, from the database; while a "
                "puzzledb-server serves it, the server does, and stops serving the puzzle at once "
                "(calls in flight finish)");
  remove->add_option("--db", build.db, "Database folder")->capture_default_str();
  remove->add_option("--puzzle", remove_puzzle, "The puzzle's name")->required();
  remove->add_option("--handover-timeout", build.handover_timeout_seconds,
                     "Seconds to wait for a server that serves --db to answer")
      ->check(CLI::Range(1, 86400))
      ->capture_default_str();

  std::string census_definition;
  int census_depth = 7;
  uint64_t census_memory = uint64_t{4} << 30;
  CLI::App* census = app.add_subcommand(
      "census", "Count the states of a definition at each distance from its goals, up to "
                "--depth, by a search that keeps every state it reaches (for a definition too "
                "large for a table; one with a table has its census in info): one line "
                "\"distance count\" each, as it is counted");
  census->add_option("--definition", census_definition, "The definition file")->required();
  census->add_option("--depth", census_depth, "The last distance counted")
      ->check(CLI::Range(0, 255))
      ->capture_default_str();
  census->add_option("--memory", census_memory,
                     "Bytes the states kept and made may take, e.g. 4G; a distance that would "
                     "take more is not started")
      ->transform(CLI::AsSizeValue(false))
      ->default_str("4G");
  census->add_option("--threads", build.threads, "Threads (default: one per core)")->check(CLI::Range(0, 256));
  census->add_flag("--quiet,-q", build.quiet, "No progress on stderr");

  CLI::App* defaults = app.add_subcommand(
      "default-tables",
      "Print the ids of the tables the default database holds, one a line: the "
      "puzzledb-table values every replica built with the defaults answers from its own "
      "tables, which a balancer may spread (docs/OPERATIONS.md, \"Replicas behind nginx\")");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  // A model's own option names fill the generic ones; the errors name what was typed.
  for (size_t i = 0; i < Puzzles().size(); ++i) {
    build.params.insert(build.params.end(), alias_files[i].begin(), alias_files[i].end());
    if (!alias_dirs[i].empty()) build.params_dir = alias_dirs[i];
  }
  if (params->count() == 0 && params_dir->count() == 0) {
    for (size_t i = 0; i + 1 < aliases.size(); i += 2) {
      if (aliases[i]->count() + aliases[i + 1]->count() > 0) {
        build.params_option = aliases[i]->get_name();
        build.params_dir_option = aliases[i + 1]->get_name();
      }
    }
  }
  build.puzzle_given = app.get_option("--puzzle")->count() > 0;
  if (defaults->parsed()) {
    for (const std::string& id : DefaultTableIds()) std::cout << id << "\n";
    return 0;
  }
  if (census->parsed()) {
    return RunDefinedCensus(census_definition, census_depth, census_memory, build.threads, build.quiet,
                            std::cout, std::cerr);
  }
  if (verify->parsed()) return RunVerify(build.db, build.threads, std::cout, std::cerr);
  if (info->parsed()) return RunInfo(build.db, json, std::cout, std::cerr);
  if (remove->parsed()) {
    return RunRemove(build.db, remove_puzzle, std::chrono::seconds(build.handover_timeout_seconds),
                     std::cout, std::cerr);
  }
  if (migrate->parsed()) {
    if (!migrate_definition.empty()) return RunMigrateDefinition(migrate_definition, std::cout, std::cerr);
    return RunMigrate(build.db, std::cout, std::cerr);
  }
  if (unpack->parsed()) {
    return RunUnpack(build.db, unpack_all ? UnpackedCopies::kAll : UnpackedCopies::kLarge,
                     std::cout, std::cerr);
  }
  return RunBuild(build, std::cout, std::cerr);
}

}  // namespace puzzledb
