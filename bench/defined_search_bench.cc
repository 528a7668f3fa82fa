// The breadth-first search of a definition's table (core/defined/defined_search.h), alone:
//   defined_search_bench [--threads N] FILE.tws...
// For each file: its index, the states at each distance ("d count", as twsearch's -g
// prints them), the search's seconds and the process's peak resident memory.
// docs/PERFORMANCE.md, "Definitions", compares it with twsearch side by side.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "core/defined/defined_search.h"
#include "core/definition/defined_index.h"
#include "bench/peak_memory.h"
#include "core/definition/read_definition.h"

int main(int argc, char** argv) {
  int threads = 0;
  int failed = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--threads" && i + 1 < argc) {
      threads = std::atoi(argv[++i]);
      continue;
    }
    std::ifstream in(arg, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    const std::string name = arg.substr(arg.find_last_of('/') + 1);
    auto definition = puzzledb::ReadDefinition(text.str(), name);
    if (!definition.ok()) {
      std::fprintf(stderr, "%s\n", std::string(definition.status().message()).c_str());
      ++failed;
      continue;
    }
    const puzzledb::CompiledMoves moves(*definition);
    auto index = puzzledb::DefinedIndex::Make(*definition, moves, uint64_t{1} << 36);
    if (!index.ok()) {
      std::fprintf(stderr, "%s: %s\n", name.c_str(), std::string(index.status().message()).c_str());
      ++failed;
      continue;
    }
    std::printf("%s: index %s (inner %llu)\n", name.c_str(), index->Describe(*definition).c_str(),
                static_cast<unsigned long long>(index->inner_size()));
    puzzledb::DefinedSearchOptions options;
    options.threads = threads;
    auto result = puzzledb::SearchDefinition(*definition, moves, *index, options);
    if (!result.ok()) {
      std::fprintf(stderr, "%s: %s\n", name.c_str(), std::string(result.status().message()).c_str());
      ++failed;
      continue;
    }
    for (size_t d = 0; d < result->histogram.size(); ++d) {
      std::printf("%zu %llu\n", d, static_cast<unsigned long long>(result->histogram[d]));
    }
    std::printf("%s: %llu positions, search %.2f s, peak %ld kB\n", name.c_str(),
                static_cast<unsigned long long>(result->reached()), result->seconds, puzzledb::bench::PeakResidentKilobytes());
  }
  return failed == 0 ? 0 : 1;
}
