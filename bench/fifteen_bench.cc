// The fifteen puzzle's live search over its pattern tables, against the textbook baseline
// (bench/baselines.h: additive 6-6-3 over the textbook partition, byte entries, no
// reflection), in one run (docs/PERFORMANCE.md, "The fifteen puzzle's baseline"):
//   fifteen_bench --db DIR [--boards korf100|eighty|FILE] [--first N] [--threads N]
//                 [--no-baseline] [--baseline-db DIR | --baseline-set NAME]
//   fifteen_bench --db DIR --hunt N [--climb M] [--keep K] [--seed S] [--hunt-out FILE]
// prints one line per board (distance, nodes, seconds, nodes/s) for the solver (the
// strongest set in DIR), then the totals of the solver and of the baseline, their ratio
// and each one's time per node. The baseline's tables are built once into the baseline
// database (default /tmp/puzzledb-fifteen-textbook; a few seconds) and read from there
// after; `--baseline-set 6-6-3` runs the same program over a set of DIR's own instead.
// Exit 1 if any answer, the baseline's moves included, differs from the file's.
//
// `--hunt N` looks for boards the tables guide badly (docs/PERFORMANCE.md, "Hard boards"):
// it solves N uniform solvable boards (and those of `--boards`, when given) on one thread
// and prints the K (default 10) that took most nodes, with their estimate (the search's first threshold), distance, nodes
// and time; `--climb M` then tries M random changes of the worst (a three-cycle of
// tiles), keeping each that costs more nodes. `--hunt-out FILE` writes the boards in the
// boards' file format, for `--boards FILE`.
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
#include "core/sliding/pattern_search.h"
#include "core/util/random.h"
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


// The search's first threshold at a board (cells row-major, 0 the empty place): the
// Manhattan distance plus twice the larger excess sum, of the board and of its reflection.
int Estimate(const PatternTables& tables, const std::array<int, 16>& cells) {
  const TileBoardTables& t = BoardTables();
  uint8_t cell_of[16], mirror_of[16];
  int manhattan = 0;
  for (int cell = 0; cell < 16; ++cell) {
    const int tile = cells[cell];
    cell_of[tile] = static_cast<uint8_t>(cell);
    mirror_of[t.reflected_tile[tile]] = t.transposed[cell];
    if (tile > 0) manhattan += t.manhattan[tile][cell];
  }
  return manhattan + 2 * std::max(tables.ExcessSum(cell_of), tables.ExcessSum(mirror_of));
}

// A uniform solvable board: a uniform arrangement, two tiles swapped if it is unsolvable.
std::array<int, 16> RandomBoard(SeededRng& rng) {
  std::array<int, 16> cells;
  for (int i = 0; i < 16; ++i) cells[i] = i;
  for (int i = 15; i > 0; --i) std::swap(cells[i], cells[rng.Below(i + 1)]);
  auto board = FifteenPuzzle::BoardFromCells(cells);
  if (!board.ok() || FifteenPuzzle::ProvablyUnsolvable(*board)) {
    const int a = cells[0] == 0 ? 2 : 0, b = cells[1] == 0 ? 2 : 1;
    std::swap(cells[a], cells[b]);  // a swap of two tiles changes the parity
  }
  return cells;
}

struct Hunted {
  std::array<int, 16> cells;
  int estimate = 0;
  int distance = 0;
  uint64_t nodes = 0;
  double seconds = 0;
  std::string moves;
};

// Solves a board on one thread (no move limit); false if the search fails.
bool SolveHunted(Solver& solver, const PatternTables& tables, Hunted* h) {
  h->estimate = Estimate(tables, h->cells);
  FifteenPuzzle::Instance instance{{}, *FifteenPuzzle::BoardFromCells(h->cells)};
  const auto started = std::chrono::steady_clock::now();
  auto answer = solver.Solve<FifteenPuzzle>(instance, SolveOptions{});
  h->seconds = Since(started);
  if (!answer.ok()) {
    std::fprintf(stderr, "fifteen_bench: %s\n", std::string(answer.status().message()).c_str());
    return false;
  }
  h->distance = answer->distance;
  h->nodes = answer->nodes;
  h->moves.clear();
  for (uint8_t m : answer->moves) h->moves += "UDLR"[m];
  return true;
}

std::string CellsText(const std::array<int, 16>& cells) {
  std::string text;
  for (int c : cells) text += Cat(text.empty() ? "" : " ", c);
  return text;
}

void PrintHunted(const char* what, const Hunted& h) {
  std::printf("%-8s %-38s %4d %4d %4d %12llu %9.3f\n", what, CellsText(h.cells).c_str(),
              h.estimate, h.distance, h.distance - h.estimate,
              static_cast<unsigned long long>(h.nodes), h.seconds);
}

// Solves `draws` uniform boards, then climbs from the one of most nodes for `climbs`
// steps: a random three-cycle of tiles (which keeps the board solvable), kept when the
// search needs more nodes.
int Hunt(const std::shared_ptr<TableStore>& store, Solver& solver, const std::vector<Board>& given,
         uint64_t draws, uint64_t climbs, size_t keep, uint64_t seed, const std::string& out_path) {
  const std::string id = solver.Loaded().empty() ? "" : solver.Loaded().front();
  auto table = store->Load(id);
  if (!table.ok()) {
    std::fprintf(stderr, "fifteen_bench: %s\n", std::string(table.status().message()).c_str());
    return 2;
  }
  auto tables = PatternTablesOf(*table);
  if (!tables.ok()) {
    std::fprintf(stderr, "fifteen_bench: %s\n", std::string(tables.status().message()).c_str());
    return 2;
  }
  SeededRng rng(seed);
  std::vector<Hunted> solved;
  double total = 0;
  for (uint64_t i = 0; i < given.size() + draws; ++i) {
    Hunted h;
    h.cells = i < given.size() ? given[i].cells : RandomBoard(rng);
    if (!SolveHunted(solver, **tables, &h)) return 1;
    total += h.seconds;
    solved.push_back(h);
  }
  std::sort(solved.begin(), solved.end(),
            [](const Hunted& a, const Hunted& b) { return a.nodes > b.nodes; });
  std::printf("%zu given and %llu uniform boards (seed %llu, %s): %.3f s in all\n",
              given.size(), static_cast<unsigned long long>(draws),
              static_cast<unsigned long long>(seed), id.c_str(), total);
  std::printf("%-8s %-38s %4s %4s %4s %12s %9s\n", "", "board", "est", "dist", "gap", "nodes",
              "seconds");
  std::vector<Hunted> kept(solved.begin(), solved.begin() + std::min(keep, solved.size()));
  for (const Hunted& h : kept) PrintHunted("drawn", h);
  if (!solved.empty() && climbs > 0) {
    Hunted best = solved.front();
    for (uint64_t step = 0; step < climbs; ++step) {
      Hunted next = best;
      int picked[3], n = 0;
      while (n < 3) {
        const int cell = static_cast<int>(rng.Below(16));
        if (next.cells[cell] == 0 || std::find(picked, picked + n, cell) != picked + n) continue;
        picked[n++] = cell;
      }
      const int first = next.cells[picked[0]];
      next.cells[picked[0]] = next.cells[picked[1]];
      next.cells[picked[1]] = next.cells[picked[2]];
      next.cells[picked[2]] = first;
      if (!SolveHunted(solver, **tables, &next)) return 1;
      if (next.nodes > best.nodes) {
        best = next;
        PrintHunted(Cat("step ", step + 1).c_str(), best);
      }
    }
    kept.insert(kept.begin(), best);
  }
  if (!out_path.empty()) {
    std::ofstream out(out_path);
    out << "# boards found by fifteen_bench --hunt: 16 cells, distance, moves\n";
    for (const Hunted& h : kept) out << CellsText(h.cells) << " " << h.distance << " " << h.moves << "\n";
    if (!out) {
      std::fprintf(stderr, "fifteen_bench: cannot write %s\n", out_path.c_str());
      return 2;
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string db, boards_name = "korf100", baseline_db = "/tmp/puzzledb-fifteen-textbook";
  std::string baseline_set;
  size_t first = 0;
  bool baseline = true;
  uint64_t hunt = 0, climbs = 0, seed = 1;
  bool hunting = false, boards_given = false;
  size_t keep = 10;
  std::string hunt_out;
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--db" && i + 1 < argc) {
      db = argv[++i];
    } else if (arg == "--boards" && i + 1 < argc) {
      boards_name = argv[++i];
      boards_given = true;
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
    } else if (arg == "--hunt" && i + 1 < argc) {
      hunt = std::stoull(argv[++i]);
      hunting = true;
    } else if (arg == "--climb" && i + 1 < argc) {
      climbs = std::stoull(argv[++i]);
    } else if (arg == "--keep" && i + 1 < argc) {
      keep = std::stoul(argv[++i]);
    } else if (arg == "--seed" && i + 1 < argc) {
      seed = std::stoull(argv[++i]);
    } else if (arg == "--hunt-out" && i + 1 < argc) {
      hunt_out = argv[++i];
    } else {
      std::fprintf(stderr, "usage: fifteen_bench --db DIR [--boards korf100|eighty|FILE] "
                           "[--first N] [--threads N] [--no-baseline] [--baseline-db DIR | "
                           "--baseline-set NAME]\n"
                           "       fifteen_bench --db DIR --hunt N [--climb M] [--keep K] [--seed S] "
                           "[--hunt-out FILE]\n");
      return 2;
    }
  }
  const std::string golden = PUZZLEDB_GOLDEN_DIR;
  const std::string path = boards_name == "korf100" ? golden + "/fifteen_korf100.txt"
                           : boards_name == "eighty" ? golden + "/fifteen_80.txt"
                                                     : boards_name;
  std::vector<Board> boards = ReadBoards(path);
  if (first > 0 && first < boards.size()) boards.resize(first);
  if (hunting && !boards_given) boards.clear();
  if (db.empty() || (boards.empty() && !hunting)) {
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
  if (baseline && !hunting) {
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

  if (hunting) return Hunt(shared, solver, boards, hunt, climbs, keep, seed, hunt_out);

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
