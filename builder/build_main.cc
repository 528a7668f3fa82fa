// puzzledb-build: builds the tables of a puzzledb database, verifies them, describes them.
#include <iostream>

#include "CLI/CLI.hpp"
#include "builder/build_command.h"
#include "core/puzzles/registry.h"

int main(int argc, char** argv) {
  using namespace puzzledb;
  CLI::App app{"puzzledb-build: builds (by default), verifies and describes puzzle tables"};
  app.require_subcommand(0, 1);
  BuildCommandOptions build;
  app.add_option("--db", build.db, "Database folder")->capture_default_str();
  app.add_option("--puzzle", build.puzzle, "Which tables to build: " + PuzzleNames() + "|all")
      ->capture_default_str();
  app.add_option("--max-depth", build.max_depth,
                 "Stop the search after this distance (a partial table); default: everything")
      ->check(CLI::Range(0, 254));
  app.add_option("--wiring", build.wirings,
                 "Knobs wiring file(s) in the original input format (the state column is "
                 "ignored); default: every *.in file in --wirings-dir, or without it the wirings "
                 "compiled in (data/wirings/ of the source)");
  app.add_option("--wirings-dir", build.wirings_dir,
                 "Build a knobs table for every *.in file in this folder");
  app.add_option("--threads", build.threads, "Threads (default: one per core)")
      ->check(CLI::Range(0, 256));
  app.add_option("--compression-level", build.compression_level, "zstd level of the pages")
      ->check(CLI::Range(1, 19))
      ->capture_default_str();
  app.add_flag("--quiet,-q", build.quiet, "No progress on stderr");

  CLI::App* verify = app.add_subcommand(
      "verify", "Re-read every table (checksums) and check it against a fresh search; exit 1 "
                "naming the first bad table and state");
  verify->add_option("--db", build.db, "Database folder")->capture_default_str();
  verify->add_option("--threads", build.threads, "Threads (default: one per core)");
  bool json = false;
  CLI::App* info = app.add_subcommand("info", "List the tables with their metadata and size");
  info->add_option("--db", build.db, "Database folder")->capture_default_str();
  info->add_flag("--json", json, "Print JSON");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  if (verify->parsed()) return RunVerify(build.db, build.threads, std::cout, std::cerr);
  if (info->parsed()) return RunInfo(build.db, json, std::cout, std::cerr);
  return RunBuild(build, std::cout, std::cerr);
}
