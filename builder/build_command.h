// puzzledb-build: builds, verifies and describes the tables of a database.
#ifndef PUZZLEDB_BUILDER_BUILD_COMMAND_H_
#define PUZZLEDB_BUILDER_BUILD_COMMAND_H_

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "core/table/table_store.h"

namespace puzzledb {

struct BuildCommandOptions {
  std::string db = "var/db";
  std::string puzzle = "all";         // a registered name or "all"
  int max_depth = -1;                 // -1: the whole space
  // Parameter files of the puzzles with parameters, in their original input
  // format; empty: every *.in file of params_dir, or without it the files compiled in
  // (data/params/<puzzle>/).
  std::vector<std::string> params;
  std::string params_dir;
  std::string params_option = "--params";  // how the user named them, for errors
  std::string params_dir_option = "--params-dir";
  // The pattern tables to build for the puzzles that read them (Puzzle::pattern_sets): a
  // set's name or "all"; empty: the strongest set.
  std::string patterns;
  int threads = 0;
  int compression_level = 9;
  bool band_pages = false;            // write a residue table's band pages (docs/FORMAT.md)
  UnpackedCopies unpacked = UnpackedCopies::kLarge;  // which tables get an unpacked copy
  bool quiet = false;                 // no per-layer progress
  // Definition files (docs/PUZZLES.md, "Puzzles as data") to build, each into a table of
  // its own; with them, --puzzle builds only what it names explicitly.
  std::vector<std::string> definitions;
  std::string name;                   // the puzzle's name for one definition; default: the file's
  uint64_t max_states = 0;            // a definition's index may hold; 0: the default (2^33)
  bool puzzle_given = false;          // --puzzle was on the command line
  // A definition's pattern tables: the projections named (BuildOptions::projections; with
  // them, pattern tables even where a complete table fits), the budget (0: 512 MiB).
  std::vector<std::string> projections;
  uint64_t pattern_memory = 0;
  uint64_t build_memory = 0;  // what each one's search may take besides (0: 4 GiB)
  // While a puzzledb-server serves the database: how long to wait for it to take what was
  // built aside (builder/handover.h).
  int handover_timeout_seconds = 600;
};

// Each returns the process exit status: 0 ok, 1 a failure, 2 bad input.
int RunBuild(const BuildCommandOptions& options, std::ostream& out, std::ostream& err);
// The definitions stored in the database (puzzledb-build --definition) registered as
// puzzles, so that the commands below find them by name; what cannot be is said on `err`.
// `refused` (if not null) gets the ones not registered and why, by table id.
void RegisterDefinitions(const TableStore& store, std::string_view command, std::ostream& err,
                         std::map<std::string, std::string>* refused = nullptr);
int RunVerify(const std::string& db, int threads, std::ostream& out, std::ostream& err);
int RunInfo(const std::string& db, bool json, std::ostream& out, std::ostream& err);
// Writes the unpacked copy of every table that `which` selects (kLarge or kAll) from its
// pages; exit 1 if any cannot be written.
int RunUnpack(const std::string& db, UnpackedCopies which, std::ostream& out, std::ostream& err);
// Rewrites every table of an older format version under the current keys (docs/FORMAT.md,
// "Keys"), a line per table; exit 1 if any could not be (a damaged table: rebuild it), and
// also if the database has damaged files.
int RunMigrate(const std::string& db, std::ostream& out, std::ostream& err);
// The definition file at `path`, written for a puzzledb that read move orientations by
// destination, rewritten in today's reading with the same meaning (RewriteLegacyTwists), on
// `out`; exit 2 if it does not read.
int RunMigrateDefinition(const std::string& path, std::ostream& out, std::ostream& err);
// The states of the definition file at `path` at each distance up to `depth`, counted by a
// search that keeps them (core/defined/defined_census.h): "distance count" lines on `out`,
// each as it is counted.
int RunDefinedCensus(const std::string& path, int depth, uint64_t memory, int threads, bool quiet,
                     std::ostream& out, std::ostream& err);

}  // namespace puzzledb

#endif  // PUZZLEDB_BUILDER_BUILD_COMMAND_H_
