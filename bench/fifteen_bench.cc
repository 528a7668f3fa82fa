// The fifteen puzzle's live search over its pattern tables, against the textbook baseline
// (bench/baselines.h: additive 6-6-3 over the textbook partition, byte entries, no
// reflection), in one run (docs/PERFORMANCE.md, "The fifteen puzzle's baseline"):
//   fifteen_bench --db DIR [--boards korf100|eighty|FILE] [--first N] [--threads N]
//                 [--no-baseline] [--baseline-db DIR | --baseline-set NAME]
// prints one line per board (distance, nodes, seconds, nodes/s) for the solver (the
// strongest set in DIR), then the totals of the solver and of the baseline, their ratio
// and each one's time per node. The baseline's tables are built once into the baseline
// database (default /tmp/puzzledb-fifteen-textbook; a few seconds) and read from there
// after; `--baseline-set 6-6-3` runs the same program over a set of DIR's own instead.
// Exit 1 if any answer, the baseline's moves included, differs from the file's.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/baselines.h"
#include "core/puzzles/fifteen.h"
#include "core/solver.h"
#include "core/search/live_solver.h"
#include "core/table/sampler.h"
#include "core/table/table_walker.h"
#include "core/sliding/pattern_builder.h"
#include "core/util/strings.h"

namespace {

using namespace puzzledb;

struct Board {
  std::array<int, 16> cells;
  int distance = 0;
  std::string moves;
};

std::vector<Board> ReadBoards(const std::string& path) {
  std::vector<Board> boards;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    Board b;
    for (int& c : b.cells) fields >> c;
    fields >> b.distance >> b.moves;
    boards.push_back(b);
  }
  return boards;
}

double Since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// The baseline's byte tables: the textbook partition's, built into `dir` the first time,
// or (`set` not empty) the pattern set `set` of the database `dir`.
bench::TextbookFifteenIda Baseline(const std::string& dir, const std::string& set,
                                   int threads) {
  const std::string id = set.empty() ? "fifteen-textbook-6-6-3" : "fifteen-" + set;
  auto fail = [&](const absl::Status& status) {
    std::fprintf(stderr, "fifteen_bench: the baseline's tables (%s in %s): %s\n", id.c_str(),
                 dir.c_str(), std::string(status.message()).c_str());
    std::exit(2);
  };
  auto store = TableStore::Open(
      dir, set.empty() ? TableStore::Mode::kReadWrite : TableStore::Mode::kReadOnly);
  if (!store.ok()) fail(store.status());
  if (set.empty() && !(*store)->ReadMetadata(id).ok()) {
    std::printf("building the baseline's tables (%s) into %s\n",
                bench::TextbookFifteenIda::kPartition, dir.c_str());
    auto partition = TilePartition::Parse(bench::TextbookFifteenIda::kPartition);
    if (!partition.ok()) fail(partition.status());
    PatternBuildProgress progress;
    progress.threads = threads;
    auto built = BuildPatternTable({id, "fifteen", *partition}, **store, progress);
    if (!built.ok()) fail(built.status());
  }
  auto table = (*store)->Load(id);
  if (!table.ok()) fail(table.status());
  auto tables = PatternTablesOf(*table);
  if (!tables.ok()) fail(tables.status());
  for (int g = 0; g < (*tables)->partition().group_count(); ++g) {
    if ((*tables)->group(g).size() > bench::TextbookFifteenIda::kMaxGroupTiles) {
      fail(absl::InvalidArgumentError(
          Cat("group ", g + 1, " has ", (*tables)->group(g).size(), " tiles; the baseline's "
              "tables take four bits a tile, for groups of at most ",
              bench::TextbookFifteenIda::kMaxGroupTiles, " (256 MB)")));
    }
  }
  std::vector<std::vector<int>> groups;
  std::vector<HugeBuffer> distances;
  for (int g = 0; g < (*tables)->partition().group_count(); ++g) {
    const PatternGroup& group = (*tables)->group(g);
    groups.push_back(group.tiles());
    HugeBuffer bytes(bench::TextbookFifteenIda::Entries(group.tiles().size()), 0);
    for (uint64_t i = 0; i < group.placements(); ++i) {
      const auto cells = group.Cells(i);
      int cell_of[16] = {};
      for (int t = 0; t < group.size(); ++t) cell_of[group.tiles()[t]] = cells[t];
      bytes[bench::TextbookFifteenIda::Key(group.tiles(), cell_of)] =
          static_cast<uint8_t>(group.Manhattan(i) + 2 * (*tables)->Excess(g, i));
    }
    distances.push_back(std::move(bytes));
  }
  return bench::TextbookFifteenIda(std::move(groups), std::move(distances));
}

}  // namespace

int main(int argc, char** argv) {
  std::string db, boards_name = "korf100", baseline_db = "/tmp/puzzledb-fifteen-textbook";
  std::string baseline_set;
  size_t first = 0;
  bool baseline = true;
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--db" && i + 1 < argc) {
      db = argv[++i];
    } else if (arg == "--boards" && i + 1 < argc) {
      boards_name = argv[++i];
    } else if (arg == "--first" && i + 1 < argc) {
      first = std::stoul(argv[++i]);
    } else if (arg == "--threads" && i + 1 < argc) {
      threads = std::max(1, std::stoi(argv[++i]));
    } else if (arg == "--no-baseline") {
      baseline = false;
    } else if (arg == "--baseline-db" && i + 1 < argc) {
      baseline_db = argv[++i];
    } else if (arg == "--baseline-set" && i + 1 < argc) {
      baseline_set = argv[++i];
    } else {
      std::fprintf(stderr, "usage: fifteen_bench --db DIR [--boards korf100|eighty|FILE] "
                           "[--first N] [--threads N] [--no-baseline] [--baseline-db DIR | "
                           "--baseline-set NAME]\n");
      return 2;
    }
  }
  const std::string golden = PUZZLEDB_GOLDEN_DIR;
  const std::string path = boards_name == "korf100" ? golden + "/fifteen_korf100.txt"
                           : boards_name == "eighty" ? golden + "/fifteen_80.txt"
                                                     : boards_name;
  std::vector<Board> boards = ReadBoards(path);
  if (first > 0 && first < boards.size()) boards.resize(first);
  if (db.empty() || boards.empty()) {
    std::fprintf(stderr, "fifteen_bench: --db DIR is required and %s must hold boards\n",
                 path.c_str());
    return 2;
  }
  auto store = TableStore::Open(db, TableStore::Mode::kReadOnly);
  if (!store.ok()) {
    std::fprintf(stderr, "fifteen_bench: %s\n", std::string(store.status().message()).c_str());
    return 2;
  }
  // The baseline's tables first: a bad --baseline-db or --baseline-set fails at once.
  std::optional<bench::TextbookFifteenIda> plain;
  if (baseline) {
    plain.emplace(baseline_set.empty() ? Baseline(baseline_db, "", threads)
                                       : Baseline(db, baseline_set, 1));
  }
  std::shared_ptr<TableStore> shared(std::move(*store));
  Solver solver(shared);
  const auto loading = std::chrono::steady_clock::now();
  const int loaded = solver.Preload();
  std::printf("loaded %d table(s) in %.2f s: ", loaded, Since(loading));
  for (const std::string& id : solver.Loaded()) std::printf("%s ", id.c_str());
  std::printf("\n");

  SolveOptions options;
  if (threads > 1) options.limits.threads = SpareThreads(threads - 1);
  std::printf("search threads per board: %d\n", threads);
  int wrong = 0;
  double total = 0;
  uint64_t total_nodes = 0;
  std::vector<double> seconds;
  std::printf("%4s %4s %12s %9s %10s\n", "#", "dist", "nodes", "seconds", "Mnodes/s");
  for (size_t i = 0; i < boards.size(); ++i) {
    FifteenPuzzle::Instance instance{{}, *FifteenPuzzle::BoardFromCells(boards[i].cells)};
    const auto started = std::chrono::steady_clock::now();
    auto answer = solver.Solve<FifteenPuzzle>(instance, options);
    const double s = Since(started);
    if (!answer.ok()) {
      std::printf("%4zu failed: %s\n", i + 1, std::string(answer.status().message()).c_str());
      ++wrong;
      continue;
    }
    std::string letters;
    for (uint8_t m : answer->moves) letters += "UDLR"[m];
    const bool right = answer->distance == boards[i].distance &&
                       (boards[i].moves.empty() || letters == boards[i].moves);
    wrong += right ? 0 : 1;
    total += s;
    total_nodes += answer->nodes;
    seconds.push_back(s);
    std::printf("%4zu %4d %12llu %9.4f %10.2f%s\n", i + 1, answer->distance,
                static_cast<unsigned long long>(answer->nodes), s, answer->nodes / s / 1e6,
                right ? "" : "  WRONG");
  }
  std::sort(seconds.begin(), seconds.end());
  const double median = seconds.empty() ? 0 : seconds[seconds.size() / 2];
  std::printf("solver:   %zu boards, %.3f s in all, median %.4f s, worst %.4f s, %llu nodes, "
              "%.2f M nodes/s\n",
              boards.size(), total, median, seconds.empty() ? 0 : seconds.back(),
              static_cast<unsigned long long>(total_nodes), total_nodes / total / 1e6);
  if (plain) {
    double plain_total = 0;
    uint64_t plain_nodes = 0;
    for (const Board& b : boards) {
      std::string moves;
      const auto started = std::chrono::steady_clock::now();
      const int d = plain->Solve(b.cells.data(), &moves);
      plain_total += Since(started);
      plain_nodes += plain->nodes();
      if (d != b.distance || (!b.moves.empty() && moves != b.moves)) {
        std::printf("baseline: board %s WRONG (%d %s)\n", b.moves.c_str(), d, moves.c_str());
        ++wrong;
      }
    }
    std::printf("baseline: %zu boards, %.3f s in all, %llu nodes, %.2f M nodes/s "
                "(%s, one thread)\n",
                boards.size(), plain_total, static_cast<unsigned long long>(plain_nodes),
                plain_nodes / plain_total / 1e6,
                baseline_set.empty() ? "textbook 6-6-3" : baseline_set.c_str());
    std::printf("ratio:    %.2f (the baseline's time over the solver's)\n", plain_total / total);
    // Per node only where both ran on one thread.
    if (threads == 1) {
      std::printf("per node: %.1f ns (solver) against %.1f ns (baseline): %.2fx its rate\n",
                  total / total_nodes * 1e9, plain_total / plain_nodes * 1e9,
                  (plain_total / plain_nodes) / (total / total_nodes));
    }
  }
  if (wrong > 0) std::printf("%d WRONG\n", wrong);
  return wrong == 0 ? 0 : 1;
}
