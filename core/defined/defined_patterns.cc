#include "core/defined/defined_patterns.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <set>

#include "core/table/table_format.h"

namespace puzzledb {
namespace {

// The entries of `spec`'s projection, or 0 when it is bad or takes more than `most`.
uint64_t EntriesWithin(const Definition& definition, const ProjectionSpec& spec, uint64_t most) {
  if (most == 0) return 0;
  auto entries = ProjectionTable::EntriesOf(definition, spec, most);
  return entries.ok() ? *entries : 0;
}

// A distance averaged, to two decimals.
std::string AverageText(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", value);
  return text;
}

// The labels of set `s` in the first goal, ascending.
std::vector<int> LabelsOf(const Definition& definition, size_t s) {
  const DefinedSet& set = definition.sets()[s];
  std::set<int> labels;
  for (int j = 0; j < set.size; ++j) {
    labels.insert(definition.goals()[0][static_cast<size_t>(set.offset + j)]);
  }
  return {labels.begin(), labels.end()};
}

// What a stored projection reads as: its spec and where its entries are.
struct StoredProjection {
  ProjectionSpec spec;
  uint64_t offset = 0;
  uint64_t entries = 0;
};

absl::StatusOr<std::vector<StoredProjection>> StoredProjections(const DefinedPuzzleData& data,
                                                                const TableMetadata& m) {
  const std::string& id = m.table_id();
  if (m.parameters() != DefinedModel<TableEncodingKind::kPatternBound>::EncodeParams(&data)) {
    return absl::DataLossError(
        Cat("table ", id, " holds another definition of ", data.name, " than the one served"));
  }
  if (m.parameters_fingerprint() != DefinedPatternsFingerprint(data.text, m)) {
    return absl::DataLossError(Cat("table ", id, ": its definition and projections fail their checksum"));
  }
  if (m.encoding() != storage::v1::DISTANCE_BYTE || m.projections_size() == 0) {
    return absl::DataLossError(Cat("table ", id, ": not a definition's pattern tables"));
  }
  std::vector<StoredProjection> out;
  uint64_t offset = 0;
  for (const auto& stored : m.projections()) {
    auto spec = ParseProjection(stored.spec(), data.definition);
    if (!spec.ok()) {
      return absl::DataLossError(Cat("table ", id, ": projection ", QuoteInput(stored.spec()),
                                     " does not read: ", Message(spec.status())));
    }
    if (stored.shares() > 0) {
      // Another's entries, being the same puzzle.
      if (stored.shares() > out.size() || out[stored.shares() - 1].entries != stored.entries()) {
        return absl::DataLossError(Cat("table ", id, ": projection ", QuoteInput(stored.spec()),
                                       " shares the entries of projection ", stored.shares(),
                                       ", which is not before it or not of its size"));
      }
      out.push_back({*std::move(spec), out[stored.shares() - 1].offset, stored.entries()});
      continue;
    }
    out.push_back({*std::move(spec), offset, stored.entries()});
    offset += stored.entries();
  }
  if (offset != m.state_count()) {
    return absl::DataLossError(Cat("table ", id, ": its projections hold ", offset,
                                   " entries, the table ", m.state_count()));
  }
  return out;
}

// The duplicate sequences a table holds (none in one built before they were stored).
absl::StatusOr<DefinedPruning> StoredDuplicates(const TableMetadata& m, const CompiledMoves& moves) {
  if (!m.has_duplicates()) return DefinedPruning();
  const auto& d = m.duplicates();
  std::vector<std::vector<int>> patterns;
  size_t next = 0;
  for (const uint32_t length : d.lengths()) {
    if (length > static_cast<size_t>(d.blocks_size()) - next) {
      return absl::DataLossError(Cat("table ", m.table_id(), ": its duplicate sequences hold ", d.blocks_size(),
                                     " blocks, their lengths more"));
    }
    patterns.emplace_back(d.blocks().begin() + static_cast<long>(next),
                          d.blocks().begin() + static_cast<long>(next + length));
    next += length;
  }
  if (next != static_cast<size_t>(d.blocks_size())) {
    return absl::DataLossError(Cat("table ", m.table_id(), ": its duplicate sequences hold ", d.blocks_size(),
                                   " blocks, their lengths ", next));
  }
  auto pruning = DefinedPruning::FromPatterns(moves, std::move(patterns), static_cast<int>(d.searched_length()),
                                              kDuplicateBytes);
  if (!pruning.ok()) {
    return absl::DataLossError(Cat("table ", m.table_id(), ": ", Message(pruning.status())));
  }
  return pruning;
}

}  // namespace

DefinedPatterns::DefinedPatterns(std::vector<ProjectionTable> tables, bool sum,
                                 std::shared_ptr<const DefinedPerimeter> perimeter,
                                 std::vector<DefinedSymmetry> symmetries, DefinedPruning pruning)
    : tables_(std::move(tables)),
      sum_(sum && tables_.size() > 1),
      perimeter_(std::move(perimeter)),
      symmetries_(std::move(symmetries)),
      pruning_(std::move(pruning)) {
  for (const ProjectionTable& table : tables_) bounds_.push_back(&table);
}

const DefinedIdaPlan& DefinedPatterns::Plan(const Definition& definition) const {
  std::call_once(planned_, [&] { plan_ = PlanDefinedIda(definition, bounds_, &symmetries_); });
  return *plan_;
}

namespace {

// A set's pieces in groups whose tables add up (MoveDisjoint), the labels its guards read
// free in each (a sliding puzzle's blank): each group as large as `memory` allows (its
// search, which tells the free pieces apart, within `search_memory`), its
// pieces in the order of the cells the first goal gives them, as a person groups the
// fifteen's tiles by rows. Empty unless the set's other pieces are each one of a kind, no
// orientations count, and the groups add up.
std::vector<ProjectionSpec> AdditiveGroups(const Definition& definition, size_t s, uint64_t memory,
                                           uint64_t search_memory,
                                           std::string* why) {
  const DefinedSet& set = definition.sets()[s];
  if (set.orientations > 1) return {};
  const CompiledMoves moves(definition);
  std::set<int> read;  // the labels guards read in this set
  for (int b = 0; b < moves.block_count(); ++b) {
    for (const CompiledMoves::Test& t : moves.block(b).tests) {
      if (t.at >= set.offset && t.at < set.offset + set.size) read.insert(t.value);
    }
  }
  const DefinedState& goal = definition.goals()[0];
  std::vector<int> pieces;  // the others, by the cell holding them
  std::map<int, int> count;
  for (int j = 0; j < set.size; ++j) ++count[goal[static_cast<size_t>(set.offset + j)]];
  for (int j = 0; j < set.size; ++j) {
    const int label = goal[static_cast<size_t>(set.offset + j)];
    if (read.count(label) > 0) continue;
    if (count[label] > 1) return {};
    pieces.push_back(label);
  }
  if (pieces.size() < 2) return {};
  const std::vector<int> free(read.begin(), read.end());
  std::vector<ProjectionSpec> groups;
  std::vector<std::string> limits;  // why each group ends where it does
  uint64_t left = memory;
  for (size_t first = 0; first < pieces.size();) {
    size_t end = first;
    uint64_t entries = 0;
    std::string limit;  // none: the set's last piece
    for (size_t next = first + 1; next <= pieces.size(); ++next) {
      ProjectionSpec group;
      group.sets.push_back({set.name, {pieces.begin() + static_cast<std::ptrdiff_t>(first),
                                       pieces.begin() + static_cast<std::ptrdiff_t>(next)},
                            true, free});
      auto n = ProjectionTable::EntriesOf(definition, group, left);
      auto searched = n.ok() ? ProjectionTable::SearchBytesOf(definition, group, search_memory) : n.status();
      if (!searched.ok()) {
        // What the larger group would have taken, for people.
        auto all = ProjectionTable::EntriesOf(definition, group, ~uint64_t{0});
        auto building = ProjectionTable::SearchBytesOf(definition, group, ~uint64_t{0});
        limit = !n.ok() ? Cat(all.ok() ? Megabytes(*all) : "more", " of table with ", Megabytes(left), " left")
                        : Cat(building.ok() ? Megabytes(*building) : "more", " to build with ",
                              Megabytes(search_memory), " for it");
        break;
      }
      end = next;
      entries = *n;
    }
    if (end == first) return {};  // not even one piece fits what is left
    ProjectionSpec group;
    group.sets.push_back({set.name, {pieces.begin() + static_cast<std::ptrdiff_t>(first),
                                     pieces.begin() + static_cast<std::ptrdiff_t>(end)},
                          true, free});
    groups.push_back(std::move(group));
    limits.push_back(limit);
    left -= entries;
    first = end;
  }
  if (!MoveDisjoint(definition, groups)) return {};
  if (why != nullptr) {
    std::vector<std::string> ends;
    for (size_t g = 0; g < groups.size(); ++g) {
      ends.push_back(Cat(FormatProjection(groups[g]), limits[g].empty() ? "" : Cat(" (one more piece: ", limits[g], ")")));
    }
    *why = Cat("set ", set.name, ": a move carries one piece of one group",
               free.empty() ? "" : " (the pieces guards read free in each)",
               ", so the groups' distances add up; each group as large as fits in ", Megabytes(memory),
               " (its search within ", Megabytes(search_memory), "): ",
               Join(ends, ", "));
  }
  return groups;
}

// Each Solved block's own table: the projection that keeps what it names (each set it names
// a position of, the labels it names told apart, all of them where it names every
// position), exact for its goals. Empty unless some block leaves positions to any piece and
// every block's table fits `memory`, those of one puzzle counted once (SharedProjections).
std::vector<ProjectionSpec> GoalTables(const Definition& definition, uint64_t memory, std::string* why) {
  if (!definition.has_free_goals()) return {};
  std::vector<ProjectionSpec> specs;
  for (size_t g = 0; g < definition.patterns().size(); ++g) {
    const DefinedState& pattern = definition.patterns()[g];
    ProjectionSpec spec;
    spec.goal = static_cast<int>(g) + 1;
    for (const DefinedSet& set : definition.sets()) {
      std::set<int> named;
      int free = 0;
      for (int j = 0; j < set.size; ++j) {
        const int label = pattern[static_cast<size_t>(set.offset + j)];
        if (label == 0) {
          ++free;
        } else {
          named.insert(label);
        }
      }
      if (named.empty()) continue;
      std::vector<int> pieces;
      if (free > 0) pieces.assign(named.begin(), named.end());
      spec.sets.push_back({set.name, pieces, true, {}});
    }
    if (spec.sets.empty()) return {};
    specs.push_back(std::move(spec));
  }
  const std::vector<int> shares = SharedProjections(definition, specs);
  uint64_t total = 0;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (shares[i] > 0) continue;
    const uint64_t n = EntriesWithin(definition, specs[i], memory - total);
    if (n == 0) return {};
    total += n;
  }
  if (why != nullptr) {
    const auto distinct = static_cast<size_t>(std::count(shares.begin(), shares.end(), 0));
    *why = Cat("each goal's own table (the pieces it names), exact for that goal; the least over the goals is "
               "the distance",
               distinct < specs.size() ? Cat("; ", specs.size(), " goals, ", distinct, " table",
                                             distinct == 1 ? "" : "s", " (the others the same puzzle)")
                                       : "");
  }
  return specs;
}

// Whether the tables of `specs` give every goal's exact distance: each Solved block has a
// table of its own that keeps every piece it names told apart (and their orientations where
// they turn), none with free pieces, no move is guarded (a projection's guards may read
// less than the puzzle's) and no Illegal line forbids states (projections do not read them).
// The least over the goals is then the distance.
bool ExactForEveryGoal(const Definition& definition, const std::vector<ProjectionSpec>& specs) {
  if (!definition.illegal().empty()) return false;
  for (const DefinedMove& move : definition.moves()) {
    if (move.guarded) return false;
  }
  for (size_t g = 0; g < definition.patterns().size(); ++g) {
    const DefinedState& pattern = definition.patterns()[g];
    bool exact = false;
    for (const ProjectionSpec& spec : specs) {
      if (spec.goal != static_cast<int>(g) + 1 || spec.has_free()) continue;
      bool keeps = true;
      for (const DefinedSet& set : definition.sets()) {
        const ProjectedSet* kept = nullptr;
        for (const ProjectedSet& p : spec.sets) {
          if (p.name == set.name) kept = &p;
        }
        for (int j = 0; j < set.size && keeps; ++j) {
          const int label = pattern[static_cast<size_t>(set.offset + j)];
          if (label == 0) continue;
          keeps = kept != nullptr && (set.orientations == 1 || set.wild[static_cast<size_t>(label)] || kept->orientations) &&
                  (kept->pieces.empty() || std::find(kept->pieces.begin(), kept->pieces.end(), label) != kept->pieces.end());
        }
      }
      exact |= keeps;
    }
    if (!exact) return false;
  }
  return true;
}

}  // namespace

std::vector<int> SharedProjections(const Definition& definition, const std::vector<ProjectionSpec>& specs) {
  std::vector<int> shares(specs.size(), 0);
  std::vector<std::optional<Projection>> made;
  for (size_t i = 0; i < specs.size(); ++i) {
    auto p = Projection::Make(definition, specs[i].WithoutFree());
    made.push_back(p.ok() ? std::optional<Projection>(*std::move(p)) : std::nullopt);
    if (!made[i] || specs[i].has_free()) continue;
    for (size_t j = 0; j < i && shares[i] == 0; ++j) {
      if (shares[j] == 0 && made[j] && !specs[j].has_free() &&
          SamePuzzle(made[j]->projected(), made[i]->projected())) {
        shares[i] = static_cast<int>(j) + 1;
      }
    }
  }
  return shares;
}

std::vector<ProjectionSpec> ChooseProjections(const Definition& definition, uint64_t memory,
                                              uint64_t search_memory, std::string* why) {
  if (std::vector<ProjectionSpec> goals = GoalTables(definition, memory, why); !goals.empty()) return goals;
  std::vector<ProjectionSpec> chosen;
  if (definition.sets().size() == 1) {
    // One set whose pieces a move carries one at a time: groups that add up.
    std::vector<ProjectionSpec> groups = AdditiveGroups(definition, 0, memory, search_memory, why);
    if (!groups.empty()) return groups;
  }
  if (why != nullptr) {
    *why = "each set whole where its table fits its share of --pattern-memory, else its pieces in runs, each as long as fits";
  }
  uint64_t left = memory;
  const size_t sets = definition.sets().size();
  // The sets whose whole table is smallest first, so that what they leave goes to the
  // sets that must be split.
  std::vector<std::pair<uint64_t, size_t>> order;
  for (size_t s = 0; s < sets; ++s) {
    ProjectionSpec whole;
    whole.sets.push_back({definition.sets()[s].name, {}, true, {}});
    const uint64_t n = EntriesWithin(definition, whole, memory);
    order.push_back({n == 0 ? ~uint64_t{0} : n, s});
  }
  std::stable_sort(order.begin(), order.end());
  for (size_t k = 0; k < sets; ++k) {
    const size_t s = order[k].second;
    const DefinedSet& set = definition.sets()[s];
    // What is left shared among the sets still to come; a set that needs less leaves more.
    const uint64_t share = left / (sets - k);
    ProjectionSpec whole;
    whole.sets.push_back({set.name, {}, true, {}});
    if (const uint64_t n = EntriesWithin(definition, whole, share); n > 0) {
      chosen.push_back(whole);
      left -= n;
      continue;
    }
    // Runs of labels, each as long as fits in what is left for this set.
    const std::vector<int> labels = LabelsOf(definition, s);
    uint64_t budget = k + 1 == sets ? left : share;
    for (size_t first = 0; first < labels.size();) {
      ProjectionSpec best;
      uint64_t best_entries = 0;
      size_t best_end = first;
      for (const bool orientations : {true, false}) {
        if (!orientations && set.orientations <= 1) break;
        for (size_t end = first + 1; end <= labels.size(); ++end) {
          ProjectionSpec run;
          run.sets.push_back({set.name, {labels.begin() + static_cast<std::ptrdiff_t>(first),
                                          labels.begin() + static_cast<std::ptrdiff_t>(end)},
                              orientations, {}});
          const uint64_t n = EntriesWithin(definition, run, budget);
          if (n == 0) break;
          if (end > best_end) {
            best = run;
            best_entries = n;
            best_end = end;
          }
        }
        if (best_end > first) break;  // with orientations when they fit
      }
      if (best_end == first) break;   // not even one piece fits
      // A run of one identical piece tells nothing the others do not.
      if (best_end - first > 1 || labels.size() == 1) {
        chosen.push_back(best);
        budget -= best_entries;
        left -= best_entries;
      }
      first = best_end;
    }
  }
  return chosen;
}

absl::StatusOr<std::vector<ProjectionSpec>> ProjectionsToBuild(const Definition& definition,
                                                               const BuildOptions& options,
                                                               std::string* why) {
  const uint64_t memory = options.pattern_memory > 0 ? options.pattern_memory : kDefaultPatternMemory;
  const uint64_t search_memory = options.build_memory > 0 ? options.build_memory : kDefaultBuildMemory;
  std::vector<ProjectionSpec> specs;
  if (options.projections.empty()) {
    specs = ChooseProjections(definition, memory, search_memory, why);
    if (specs.empty()) {
      return absl::InvalidArgumentError(
          Cat("no projection of it has a table within --pattern-memory ", memory,
              " bytes; raise it or name projections with --projection"));
    }
    return specs;
  }
  uint64_t total = 0;
  for (const std::string& text : options.projections) {
    auto spec = ParseProjection(text, definition);
    if (!spec.ok()) {
      return absl::InvalidArgumentError(Cat("--projection ", QuoteInput(text), ": ", Message(spec.status())));
    }
    auto entries = ProjectionTable::EntriesOf(definition, *spec, memory);
    if (!entries.ok()) {
      return absl::InvalidArgumentError(Cat("--projection ", QuoteInput(text), ": ",
                                            Message(entries.status()), " (--pattern-memory)"));
    }
    if (spec->has_free()) {
      // Its search tells the free pieces apart: that table too, while it is built.
      auto searched = ProjectionTable::SearchBytesOf(definition, *spec, search_memory);
      if (!searched.ok()) {
        return absl::InvalidArgumentError(
            Cat("--projection ", QuoteInput(text), ": its search tells the free pieces apart: ",
                Message(searched.status()), " (--build-memory)"));
      }
    }
    specs.push_back(*std::move(spec));
    if (SharedProjections(definition, specs).back() == 0) total += *entries;  // a shared table once
  }
  if (total > memory) {
    return absl::InvalidArgumentError(Cat("the projections' tables take ", total,
                                          " bytes together, more than --pattern-memory ", memory));
  }
  return specs;
}

uint64_t DefinedPatternsFingerprint(std::string_view text, const TableMetadata& m) {
  std::string all(text);
  for (const auto& projection : m.projections()) {
    all += Cat("\n", projection.spec(), " ", projection.entries());
    if (projection.shares() > 0) all += Cat(" shares ", projection.shares());
  }
  if (m.has_duplicates()) {
    const auto& d = m.duplicates();
    all += Cat("\nduplicates ", d.searched_length(), " ", Join(d.lengths(), ","), " ", Join(d.blocks(), ","));
  }
  return Crc32(all);
}

absl::StatusOr<TableMetadata> BuildDefinedPatterns(const DefinedPuzzleData& data,
                                                   const std::vector<ProjectionSpec>& specs,
                                                   TableStore& store, const BuildOptions& options,
                                                   std::string_view chosen_why) {
  const auto started = std::chrono::steady_clock::now();
  const std::string id = Cat(data.name, "-", kDefinedPatternsSet);
  const auto& say = options.on_progress;
  if (say && !chosen_why.empty()) say(Cat("projections of ", data.name, " chosen: ", chosen_why));
  // The entries of every projection first, so that each table is copied in as soon as it
  // is built and freed: at most one table beside the whole.
  uint64_t total = 0;
  const std::vector<int> shares = SharedProjections(data.definition, specs);
  for (size_t i = 0; i < specs.size(); ++i) {
    auto entries = ProjectionTable::EntriesOf(data.definition, specs[i], ~uint64_t{0});
    if (!entries.ok()) return entries.status();
    if (shares[i] == 0) total += *entries;
  }
  PackedTable entries(storage::v1::DISTANCE_BYTE, total);
  TableMetadata m;
  std::vector<uint64_t> histogram;
  std::vector<std::string> described;
  uint64_t offset = 0;
  for (size_t i = 0; i < specs.size(); ++i) {
    const std::string text = FormatProjection(specs[i]);
    if (shares[i] > 0) {
      // The same puzzle as one built before: its entries, read again.
      const auto& before = m.projections(shares[i] - 1);
      auto* info = m.add_projections();
      *info = before;
      info->set_spec(text);
      info->set_shares(static_cast<uint32_t>(shares[i]));
      if (say) say(Cat("projection ", i + 1, " of ", specs.size(), ": ", text, " is projection ", shares[i], "'s puzzle: its entries"));
      described.push_back(text);
      continue;
    }
    DefinedSearchOptions search;
    search.threads = options.threads;
    if (say) {
      say(Cat("building ", id, ", projection ", i + 1, " of ", specs.size(), ": ", text));
      search.on_layer = [&say, &id, i](const BfsLayer& layer) {
        say(Cat("  ", id, "  projection ", i + 1, "  depth ", layer.depth, ": ",
                Thousands(layer.states), " states, ", SecondsText(layer.seconds)));
      };
    }
    auto table = ProjectionTable::Build(data.definition, specs[i], ~uint64_t{0}, search);
    if (!table.ok()) return table.status();
    if (say) {
      say(Cat("  ", id, "  projection ", i + 1, " done: ", Thousands(table->entries()),
              " entries, largest distance ", table->histogram().size() - 1, ", average ",
              AverageText(table->average()), ", ", SecondsText(SecondsSince(started)), " since the start"));
    }
    std::memcpy(entries.MutableBytes(offset), table->data(), table->entries());
    offset += table->entries();
    auto* info = m.add_projections();
    info->set_spec(text);
    info->set_entries(table->entries());
    for (const uint64_t h : table->histogram()) info->add_histogram(h);
    if (histogram.size() < table->histogram().size()) histogram.resize(table->histogram().size());
    for (size_t d = 0; d < table->histogram().size(); ++d) histogram[d] += table->histogram()[d];
    described.push_back(text);
  }
  // The duplicate block sequences, for the search to skip; none where the tables are
  // exact for every goal (the search walks straight down them).
  if (ExactForEveryGoal(data.definition, specs)) {
    m.mutable_duplicates()->set_searched_length(0);  // none looked for
    if (say) say(Cat("  ", id, "  exact for every goal: no duplicate sequences looked for"));
  } else {
    if (say) say(Cat("finding the duplicate block sequences of ", id, " (up to ", kDuplicateLength, " blocks)"));
    const auto searching = std::chrono::steady_clock::now();
    const DefinedPruning pruning = DefinedPruning::Find(data.definition, CompiledMoves(data.definition),
                                                        kDuplicateLength, kDuplicateBytes);
    auto* duplicates = m.mutable_duplicates();
    duplicates->set_searched_length(static_cast<uint32_t>(pruning.searched_length()));
    for (const std::vector<int>& p : pruning.patterns()) {
      duplicates->add_lengths(static_cast<uint32_t>(p.size()));
      for (const int b : p) duplicates->add_blocks(static_cast<uint32_t>(b));
    }
    if (say) {
      say(Cat("  ", id, "  ", Thousands(pruning.patterns().size()), " duplicate sequences, every one of up to ",
              pruning.searched_length(), " blocks, ", SecondsText(SecondsSince(searching))));
    }
  }
  m.set_table_id(id);
  m.set_puzzle(data.name);
  m.set_parameters(DefinedModel<TableEncodingKind::kPatternBound>::EncodeParams(&data));
  m.set_parameters_text(Cat(DefinedModel<TableEncodingKind::kPatternBound>::DescribeParams(&data),
                            "; projections ", Join(described, " | "), chosen_why.empty() ? "" : "; chosen: ",
                            chosen_why));
  m.set_parameters_fingerprint(DefinedPatternsFingerprint(data.text, m));
  TableWriteOptions write;
  write.compression_level = options.compression_level;
  write.threads = options.threads;
  write.unpacked = options.unpacked;
  return WriteBoundTable(store, std::move(m), entries, histogram,
                         histogram.empty() ? 0 : static_cast<uint32_t>(histogram.size() - 1),
                         SecondsSince(started), write);
}

absl::StatusOr<std::shared_ptr<const DefinedPatterns>> DefinedPatternsOf(
    const DefinedPuzzleData& data, std::shared_ptr<const LoadedTable> table) {
  const TableMetadata& m = table->metadata;
  auto stored = StoredProjections(data, m);
  if (!stored.ok()) return stored.status();
  if (table->entries.size() != m.state_count()) {
    return absl::DataLossError(Cat("table ", m.table_id(), ": ", table->entries.size(),
                                   " entries where its metadata says ", m.state_count()));
  }
  std::vector<ProjectionTable> tables;
  for (size_t i = 0; i < stored->size(); ++i) {
    const StoredProjection& one = (*stored)[i];
    const auto& info = m.projections(static_cast<int>(i));
    auto bound = ProjectionTable::Over(data.definition, one.spec,
                                       {info.histogram().begin(), info.histogram().end()}, table,
                                       table->entries.data() + one.offset, one.entries);
    if (!bound.ok()) {
      return absl::DataLossError(Cat("table ", m.table_id(), ": ", Message(bound.status())));
    }
    tables.push_back(*std::move(bound));
  }
  std::vector<ProjectionSpec> specs;
  bool goal_tables = false;  // a goal's table bounds that goal alone: no sums, no images
  for (const StoredProjection& one : *stored) {
    specs.push_back(one.spec);
    goal_tables |= one.spec.goal > 0;
  }
  const bool sum = !goal_tables && MoveDisjoint(data.definition, specs);
  const CompiledMoves moves(data.definition);
  auto pruning = StoredDuplicates(m, moves);
  if (!pruning.ok()) return pruning.status();
  auto perimeter = std::make_shared<const DefinedPerimeter>(data.definition, moves, PerimeterStates(moves));
  return std::make_shared<const DefinedPatterns>(
      std::move(tables), sum, std::move(perimeter),
      goal_tables ? std::vector<DefinedSymmetry>() : FindSymmetries(data.definition, moves), *std::move(pruning));
}

absl::Status VerifyDefinedPatterns(const DefinedPuzzleData& data, const LoadedTable& table,
                                   int threads) {
  const TableMetadata& m = table.metadata;
  auto stored = StoredProjections(data, m);
  if (!stored.ok()) return stored.status();
  if (table.entries.size() != m.state_count()) {
    return absl::DataLossError(Cat("table ", m.table_id(), ": ", table.entries.size(),
                                   " entries where its metadata says ", m.state_count()));
  }
  std::vector<uint64_t> histogram;
  for (size_t i = 0; i < stored->size(); ++i) {
    const StoredProjection& one = (*stored)[i];
    const std::string text = FormatProjection(one.spec);
    const bool shared = m.projections(static_cast<int>(i)).shares() > 0;
    DefinedSearchOptions search;
    search.threads = threads;
    auto fresh = ProjectionTable::Build(data.definition, one.spec, ~uint64_t{0}, search);
    if (!fresh.ok()) return fresh.status();
    if (fresh->entries() != one.entries) {
      return absl::DataLossError(Cat("table ", m.table_id(), ": projection ", text, " has ",
                                     fresh->entries(), " entries, the table gives it ", one.entries));
    }
    const uint8_t* kept = table.entries.data() + one.offset;
    if (std::memcmp(kept, fresh->data(), one.entries) != 0) {
      uint64_t at = 0;
      while (kept[at] == fresh->data()[at]) ++at;
      return absl::DataLossError(Cat("table ", m.table_id(), ": projection ", text, ", entry ", at,
                                     " holds ", static_cast<int>(kept[at]), ", the search gives ",
                                     static_cast<int>(fresh->data()[at])));
    }
    const auto& info = m.projections(static_cast<int>(i));
    if (!std::equal(fresh->histogram().begin(), fresh->histogram().end(),
                    info.histogram().begin(), info.histogram().end())) {
      return absl::DataLossError(Cat("table ", m.table_id(), ": projection ", text,
                                     ": the metadata's histogram is wrong"));
    }
    if (shared) continue;  // its entries are counted once, where they are
    if (histogram.size() < fresh->histogram().size()) histogram.resize(fresh->histogram().size());
    for (size_t d = 0; d < fresh->histogram().size(); ++d) histogram[d] += fresh->histogram()[d];
  }
  if (!std::equal(histogram.begin(), histogram.end(), m.histogram().begin(), m.histogram().end())) {
    return absl::DataLossError(Cat("table ", m.table_id(), ": the metadata's histogram is wrong"));
  }
  if (m.has_duplicates() && m.duplicates().searched_length() == 0) {
    std::vector<ProjectionSpec> specs;
    for (const StoredProjection& one : *stored) specs.push_back(one.spec);
    // None are looked for where the tables are exact, nor where Illegal lines are (Find).
    if ((!ExactForEveryGoal(data.definition, specs) && data.definition.illegal().empty()) ||
        m.duplicates().lengths_size() > 0) {
      return absl::DataLossError(Cat("table ", m.table_id(), ": no duplicate sequences were looked for, "
                                     "but its tables are not exact for every goal and it has no Illegal line"));
    }
  } else if (m.has_duplicates()) {
    const CompiledMoves moves(data.definition);
    auto stored_duplicates = StoredDuplicates(m, moves);
    if (!stored_duplicates.ok()) return stored_duplicates.status();
    const DefinedPruning fresh = DefinedPruning::Find(data.definition, moves, kDuplicateLength, kDuplicateBytes);
    const auto& kept = stored_duplicates->patterns();
    if (kept != fresh.patterns() || stored_duplicates->searched_length() != fresh.searched_length()) {
      size_t at = 0;
      while (at < kept.size() && at < fresh.patterns().size() && kept[at] == fresh.patterns()[at]) ++at;
      return absl::DataLossError(Cat("table ", m.table_id(), ": its duplicate sequences differ from a fresh search's, from sequence ",
                                     at + 1, " (", kept.size(), " stored, ", fresh.patterns().size(), " found)"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Solution> SearchDefined(const DefinedPuzzleData& data,
                                       const DefinedPatterns& patterns, const DefinedState& start,
                                       const SearchLimits& limits) {
  Solution solution;
  solution.source = Source::kSearch;
  if (!data.index.Possible(start.data())) {
    solution.outcome = Outcome::kUnsolvable;
    return solution;
  }
  DefinedIdaOptions options;
  options.max_nodes = limits.max_nodes;
  options.max_depth = limits.max_moves > 0 ? std::min(limits.max_moves, kMaxDefinedSearchDepth)
                                           : kMaxDefinedSearchDepth;
  options.limits = &limits;
  options.sum = patterns.sum();
  options.perimeter = patterns.perimeter();
  options.symmetries = &patterns.symmetries();
  options.pruning = &patterns.pruning();
  options.threads = limits.threads ? &limits.threads : nullptr;
  auto found = DefinedIdaStar(patterns.Plan(data.definition), start, options);
  if (!found.ok()) return found.status();
  solution.nodes = found->nodes;
  solution.lookups = found->lookups;
  if (found->solved) {
    solution.outcome = Outcome::kSolved;
    solution.distance = static_cast<int>(found->moves.size());
    for (const int m : found->moves) solution.moves.push_back(static_cast<uint8_t>(m));
  } else {
    solution.outcome = found->unreachable ? Outcome::kUnsolvable : Outcome::kNotWithinLimit;
  }
  return solution;
}

}  // namespace puzzledb
