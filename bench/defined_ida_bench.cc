// The live search of a definition over projection tables (core/defined/defined_ida.h),
// alone, in one process:
//   defined_ida_bench FILE.tws [--projection SPEC]... [--scrambles N] [--length L]
//                     [--seed S] [--threads T] [--max-nodes N]
// Builds each projection's table (its entries, average bound and seconds), then solves N
// scrambles of L random moves from the goal (drawn with the seed; a move never follows
// itself), printing each answer's length, states generated and seconds, and the totals.
// Issue 51's targets compare this with twsearch; docs/PERFORMANCE.md quotes it.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench/peak_memory.h"
#include "core/defined/defined_ida.h"
#include "core/defined/projection_table.h"
#include "core/definition/read_definition.h"

namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}


int Usage() {
  std::fprintf(stderr,
               "usage: defined_ida_bench FILE.tws [--projection SPEC]... [--scrambles N] "
               "[--length L] [--seed S] [--threads T] [--max-nodes N]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return Usage();
  const std::string file = argv[1];
  std::vector<std::string> projections;
  int scrambles = 10, length = 10, threads = 0;
  uint64_t seed = 1, max_nodes = 0;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) return Usage();
    const char* value = argv[++i];
    if (arg == "--projection") {
      projections.push_back(value);
    } else if (arg == "--scrambles") {
      scrambles = std::atoi(value);
    } else if (arg == "--length") {
      length = std::atoi(value);
    } else if (arg == "--seed") {
      seed = std::strtoull(value, nullptr, 10);
    } else if (arg == "--threads") {
      threads = std::atoi(value);
    } else if (arg == "--max-nodes") {
      max_nodes = std::strtoull(value, nullptr, 10);
    } else {
      return Usage();
    }
  }
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  auto definition = puzzledb::ReadDefinition(text.str(), file.substr(file.find_last_of('/') + 1));
  if (!definition.ok()) {
    std::fprintf(stderr, "%s\n", std::string(definition.status().message()).c_str());
    return 1;
  }
  std::vector<puzzledb::ProjectionTable> tables;
  for (const std::string& p : projections) {
    auto spec = puzzledb::ParseProjection(p, *definition);
    if (!spec.ok()) {
      std::fprintf(stderr, "%s\n", std::string(spec.status().message()).c_str());
      return 2;
    }
    const auto started = Clock::now();
    puzzledb::DefinedSearchOptions options;
    options.threads = threads;
    auto table = puzzledb::ProjectionTable::Build(*definition, *spec, uint64_t{1} << 32, options);
    if (!table.ok()) {
      std::fprintf(stderr, "%s: %s\n", p.c_str(), std::string(table.status().message()).c_str());
      return 1;
    }
    std::printf("table %s: %llu entries, average bound %.3f, largest %zu, %.2f s\n", p.c_str(),
                static_cast<unsigned long long>(table->entries()), table->average(),
                table->histogram().size() - 1, Since(started));
    tables.push_back(*std::move(table));
  }
  std::vector<const puzzledb::ProjectionTable*> guide;
  for (const auto& t : tables) guide.push_back(&t);

  std::mt19937_64 rng(seed);
  const int moves = static_cast<int>(definition->moves().size());
  double total_seconds = 0;
  uint64_t total_nodes = 0;
  int failed = 0;
  for (int s = 0; s < scrambles; ++s) {
    puzzledb::DefinedState state = definition->goals()[0], next;
    std::string said;
    for (int made = 0, last = -1; made < length;) {
      const int m = static_cast<int>(rng() % static_cast<uint64_t>(moves));
      if (m == last || !definition->Apply(state, m, &next)) continue;
      state = next;
      last = m;
      said += (said.empty() ? "" : " ") + definition->moves()[static_cast<size_t>(m)].name;
      ++made;
    }
    puzzledb::DefinedIdaOptions options;
    options.max_nodes = max_nodes;
    options.max_depth = length;
    const auto started = Clock::now();
    auto found = puzzledb::DefinedIdaStar(*definition, guide, state, options);
    const double seconds = Since(started);
    total_seconds += seconds;
    if (!found.ok() || !found->solved) {
      std::printf("scramble %d (%s): %s\n", s + 1, said.c_str(),
                  found.ok() ? "not solved" : std::string(found.status().message()).c_str());
      ++failed;
      continue;
    }
    total_nodes += found->nodes;
    std::string answer;
    for (int m : found->moves) answer += " " + definition->moves()[static_cast<size_t>(m)].name;
    std::printf("scramble %d (%s): %zu moves%s; %llu states, %.3f s\n", s + 1, said.c_str(),
                found->moves.size(), answer.c_str(),
                static_cast<unsigned long long>(found->nodes), seconds);
  }
  std::printf("%d scrambles of %d moves: %.3f s, %llu states generated (%.2f M/s), peak %ld kB\n",
              scrambles, length, total_seconds, static_cast<unsigned long long>(total_nodes),
              total_seconds > 0 ? static_cast<double>(total_nodes) / total_seconds / 1e6 : 0.0,
              puzzledb::bench::PeakResidentKilobytes());
  return failed == 0 ? 0 : 1;
}
