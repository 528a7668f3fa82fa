#include "core/definition/projection.h"

#include <algorithm>
#include <bitset>
#include <cctype>
#include <charconv>
#include <set>

#include "core/definition/defined_index.h"
#include "core/util/strings.h"
#include "core/util/text_input.h"

namespace puzzledb {
namespace {

const DefinedSet* SetNamed(const Definition& d, std::string_view name, int* index) {
  for (size_t s = 0; s < d.sets().size(); ++s) {
    if (d.sets()[s].name == name) {
      *index = static_cast<int>(s);
      return &d.sets()[s];
    }
  }
  return nullptr;
}

// "1-6,9" into labels of a set of `size` pieces.
absl::StatusOr<std::vector<int>> ParseLabels(std::string_view text, const DefinedSet& set) {
  std::vector<int> labels;
  for (std::string_view rest = text; !rest.empty();) {
    const size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    const size_t dash = item.find('-');
    int range[2] = {0, 0};
    for (int k = 0; k < 2; ++k) {
      const std::string_view digits =
          k == 0 ? item.substr(0, dash) : dash == std::string_view::npos ? item.substr(0, dash) : item.substr(dash + 1);
      int value = 0;
      bool ok = !digits.empty() && digits.size() <= 3;
      for (char c : digits) {
        if (c < '0' || c > '9') ok = false;
        value = value * 10 + (c - '0');
      }
      if (!ok || value < 1 || value > set.size) {
        return absl::InvalidArgumentError(Cat("set ", set.name, ": ", QuoteInput(item),
                                              " is not a label from 1 to ", set.size,
                                              " or a range of them (1-6)"));
      }
      range[k] = value;
    }
    if (range[0] > range[1]) {
      return absl::InvalidArgumentError(
          Cat("set ", set.name, ": the range ", QuoteInput(item), " runs backwards"));
    }
    for (int l = range[0]; l <= range[1]; ++l) labels.push_back(l);
  }
  std::sort(labels.begin(), labels.end());
  labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
  return labels;
}

}  // namespace

absl::StatusOr<ProjectionSpec> ParseProjection(std::string_view text, const Definition& definition) {
  ProjectionSpec spec;
  // "goal N:" first: the table of one Solved block's goals.
  if (const std::vector<std::string_view> words = SplitWhitespace(text);
      !words.empty() && (words[0] == "goal" || words[0].substr(0, 5) == "goal:")) {
    const size_t colon = text.find(':');
    if (colon == std::string_view::npos) {
      return absl::InvalidArgumentError("projection: want \"goal N:\" before the sets (goal 2: CORNER)");
    }
    const std::vector<std::string_view> number = SplitWhitespace(text.substr(0, colon));
    const int goals = static_cast<int>(definition.patterns().size());
    int g = 0;
    if (number.size() == 2) {
      const char* end = number[1].data() + number[1].size();
      if (std::from_chars(number[1].data(), end, g).ptr != end) g = 0;
    }
    if (number.size() != 2 || g < 1 || g > goals) {
      return absl::InvalidArgumentError(Cat("projection: ", QuoteInput(text.substr(0, colon)),
                                            ": want goal N with N from 1 to ", goals,
                                            " (the Solved blocks, in file order)"));
    }
    spec.goal = g;
    text = text.substr(colon + 1);
  }
  for (std::string_view rest = text; !rest.empty();) {
    const size_t semicolon = rest.find(';');
    const std::string_view clause = rest.substr(0, semicolon);
    rest = semicolon == std::string_view::npos ? std::string_view() : rest.substr(semicolon + 1);
    const std::vector<std::string_view> words = SplitWhitespace(clause);
    if (words.empty()) continue;
    int index = 0;
    const DefinedSet* set = SetNamed(definition, words[0], &index);
    if (set == nullptr) {
      std::vector<std::string> names;
      for (const DefinedSet& s : definition.sets()) names.push_back(s.name);
      return absl::InvalidArgumentError(Cat("projection: no set ", QuoteInput(words[0]),
                                            " (the sets: ", Join(names, " "), ")"));
    }
    ProjectedSet& kept = spec.sets.emplace_back();
    kept.name = set->name;
    for (size_t w = 1; w < words.size(); ++w) {
      if (words[w] == "-o") {
        kept.orientations = false;
      } else if (words[w].size() > 1 && words[w][0] == '~' && kept.free.empty()) {
        auto labels = ParseLabels(words[w].substr(1), *set);
        if (!labels.ok()) return absl::InvalidArgumentError(Cat("projection: ", Message(labels.status())));
        kept.free = *std::move(labels);
      } else if (kept.pieces.empty() && std::isdigit(static_cast<unsigned char>(words[w][0]))) {
        auto labels = ParseLabels(words[w], *set);
        if (!labels.ok()) return absl::InvalidArgumentError(Cat("projection: ", Message(labels.status())));
        kept.pieces = *std::move(labels);
      } else {
        return absl::InvalidArgumentError(
            Cat("projection: set ", set->name, ": ", QuoteInput(words[w]),
                " is neither the labels to tell apart (1-6,9), -o (no orientations) nor ~ and "
                "the free labels (~16)"));
      }
    }
  }
  return spec;
}

namespace {

// "1-6,9".
std::string Runs(const std::vector<int>& labels) {
  std::vector<std::string> runs;
  for (size_t i = 0; i < labels.size();) {
    size_t j = i;
    while (j + 1 < labels.size() && labels[j + 1] == labels[j] + 1) ++j;
    runs.push_back(j == i ? Cat(labels[i]) : Cat(labels[i], "-", labels[j]));
    i = j + 1;
  }
  return Join(runs, ",");
}

}  // namespace

std::string FormatProjection(const ProjectionSpec& spec) {
  std::vector<std::string> clauses;
  for (const ProjectedSet& set : spec.sets) {
    std::string clause = set.name;
    if (!set.pieces.empty()) clause = Cat(clause, " ", Runs(set.pieces));
    if (!set.orientations) clause += " -o";
    if (!set.free.empty()) clause = Cat(clause, " ~", Runs(set.free));
    clauses.push_back(clause);
  }
  return Cat(spec.goal > 0 ? Cat("goal ", spec.goal, ": ") : "", Join(clauses, "; "));
}

bool MoveDisjoint(const Definition& d, const std::vector<ProjectionSpec>& specs) {
  const CompiledMoves moves(d);
  const auto& sets = d.sets();
  // visible[s][label]: the projections that see a piece of that label of set s move.
  std::vector<std::vector<std::vector<int>>> visible(sets.size(), std::vector<std::vector<int>>(256));
  for (size_t p = 0; p < specs.size(); ++p) {
    for (const ProjectedSet& kept : specs[p].sets) {
      int index = 0;
      const DefinedSet* set = SetNamed(d, kept.name, &index);
      if (set == nullptr) return false;
      // With free pieces only the moves of the pieces told apart cost (and the set has
      // no orientations kept).
      const bool free_mode = specs[p].has_free();
      for (int label = 1; label <= set->size; ++label) {
        const bool told = kept.pieces.empty() ||
                          std::find(kept.pieces.begin(), kept.pieces.end(), label) != kept.pieces.end();
        if (told || (!free_mode && kept.orientations && set->orientations > 1)) {
          visible[static_cast<size_t>(index)][static_cast<size_t>(label)].push_back(static_cast<int>(p));
        }
      }
    }
  }
  for (int b = 0; b < moves.block_count(); ++b) {
    const CompiledMoves::Block& block = moves.block(b);
    std::set<int> seen;      // every projection that may see a change
    int seeing_places = 0;   // moved positions some projection may see
    bool one_each = true;    // every piece that may be at them is seen by one at most
    for (size_t s = 0; s < sets.size(); ++s) {
      const DefinedSet& set = sets[s];
      for (int j = 0; j < set.size; ++j) {
        const size_t at = static_cast<size_t>(set.offset + j);
        bool moved = block.source[at] != at;
        if (set.orientations > 1) {
          const size_t turn = at + static_cast<size_t>(set.size);
          moved |= block.source[turn] != turn || block.add[turn] != 0;
        }
        if (!moved) continue;
        // The labels that may be there: the one a guard names, else any.
        int named = -1;
        for (const CompiledMoves::Test& t : block.tests) {
          if (t.at == at) named = t.value;
        }
        std::set<int> here;
        for (int label = 1; label <= set.size; ++label) {
          if (named >= 0 && label != named) continue;
          const auto& who = visible[s][static_cast<size_t>(label)];
          here.insert(who.begin(), who.end());
          one_each &= who.size() <= 1;
        }
        if (here.empty()) continue;
        ++seeing_places;
        seen.insert(here.begin(), here.end());
      }
    }
    if (seen.size() <= 1) continue;
    if (seeing_places == 1 && one_each) continue;  // one piece, seen by one projection
    return false;
  }
  return true;
}

absl::StatusOr<Projection> Projection::Make(const Definition& d, const ProjectionSpec& spec) {
  if (spec.sets.empty()) return absl::InvalidArgumentError("projection: it keeps no set");
  if (spec.goal < 0 || spec.goal > static_cast<int>(d.patterns().size())) {
    return absl::InvalidArgumentError(Cat("projection: no goal ", spec.goal, " (the definition has ",
                                          d.patterns().size(), " Solved blocks)"));
  }
  // Which sets are kept, in the definition's order, and how.
  std::vector<const ProjectedSet*> kept(d.sets().size(), nullptr);
  for (const ProjectedSet& p : spec.sets) {
    int index = 0;
    const DefinedSet* set = SetNamed(d, p.name, &index);
    if (set == nullptr) return absl::InvalidArgumentError(Cat("projection: no set ", QuoteInput(p.name)));
    if (kept[static_cast<size_t>(index)] != nullptr) {
      return absl::InvalidArgumentError(Cat("projection: set ", p.name, " is named twice"));
    }
    for (const std::vector<int>* labels : {&p.pieces, &p.free}) {
      for (int label : *labels) {
        if (label < 1 || label > set->size) {
          return absl::InvalidArgumentError(
              Cat("projection: set ", p.name, ": no label ", label, " (1 to ", set->size, ")"));
        }
      }
    }
    if (!p.free.empty()) {
      if (spec.sets.size() != 1 || (set->orientations > 1 && p.orientations) || p.pieces.empty()) {
        return absl::InvalidArgumentError(
            Cat("projection: set ", p.name, ": free pieces (~", Runs(p.free),
                ") need a projection of that set alone, its orientations left out (-o), with "
                "the labels whose moves count told apart"));
      }
      for (int label : p.free) {
        if (std::find(p.pieces.begin(), p.pieces.end(), label) != p.pieces.end()) {
          return absl::InvalidArgumentError(Cat("projection: set ", p.name, ": label ", label,
                                                " is told apart and free at once"));
        }
      }
    }
    kept[static_cast<size_t>(index)] = &p;
  }

  Projection out;
  out.spec_ = spec;
  Definition& pd = out.projected_;
  pd.title_ = Cat(d.title(), " seen as ", FormatProjection(spec));
  // Each kept set's label map: a label told apart keeps its rank among those told apart,
  // the others share the next label.
  std::vector<std::vector<uint8_t>> label_maps(d.sets().size());
  std::vector<int> slot_of_set(d.sets().size(), -1);  // its first position, end to end
  int slots = 0;
  for (size_t s = 0; s < d.sets().size(); ++s) {
    const DefinedSet& set = d.sets()[s];
    const ProjectedSet* p = kept[s];
    std::vector<uint8_t>& map = label_maps[s];
    map.assign(static_cast<size_t>(set.size) + 1, 0);
    for (int l = 1; l <= set.size; ++l) map[static_cast<size_t>(l)] = static_cast<uint8_t>(l);
    if (p != nullptr && !p->pieces.empty()) {
      // Told apart: the counted labels first, then the free ones; the rest one label.
      std::vector<int> told = p->pieces;
      told.insert(told.end(), p->free.begin(), p->free.end());
      const int merged = static_cast<int>(told.size()) + 1;
      // Where the rest mixes pieces whose twists are forgotten (DefinedSet::wild) with
      // others and their orientations are kept, the wild ones are merged apart, into the
      // label after: one merged label of both would forget them all (below).
      bool wild_rest = false, tame_rest = false;
      for (int l = 1; l <= set.size; ++l) {
        if (std::find(told.begin(), told.end(), l) != told.end()) continue;
        (set.wild[static_cast<size_t>(l)] ? wild_rest : tame_rest) = true;
      }
      const bool apart = wild_rest && tame_rest && p->orientations && p->free.empty() && set.orientations > 1;
      for (int l = 1; l <= set.size; ++l) {
        const auto at = std::find(told.begin(), told.end(), l);
        const int rest = apart && set.wild[static_cast<size_t>(l)] ? merged + 1 : merged;
        map[static_cast<size_t>(l)] = static_cast<uint8_t>(at == told.end() ? rest : 1 + (at - told.begin()));
      }
      if (!p->free.empty()) {
        out.counted_.assign(static_cast<size_t>(merged) + 1, false);
        for (size_t i = 1; i <= p->pieces.size(); ++i) out.counted_[i] = true;
      }
    }
    if (p == nullptr) {
      slots += set.size;
      continue;
    }
    DefinedSet projected = set;
    projected.orientations = p->orientations ? set.orientations : 1;
    // Pieces whose twists are forgotten (DefinedSet::wild) stay so under their new labels;
    // a label that merges such pieces with others (a free piece's, above) would be read with
    // twists its table never holds: then the set's orientations are forgotten (a weaker
    // bound, still a bound).
    projected.wild.reset();
    std::bitset<256> tame;
    for (int l = 1; l <= set.size; ++l) {
      (set.wild[static_cast<size_t>(l)] ? projected.wild : tame).set(map[static_cast<size_t>(l)]);
    }
    if ((projected.wild & tame).any()) projected.orientations = 1;
    if (projected.orientations == 1) projected.wild.reset();
    projected.offset = static_cast<int>(pd.state_bytes_);
    pd.state_bytes_ += static_cast<size_t>(set.size) * (projected.orientations > 1 ? 2 : 1);
    slot_of_set[s] = slots;
    slots += set.size;
    for (int j = 0; j < set.size; ++j) {
      out.bytes_.push_back({static_cast<size_t>(set.offset + j), map});
    }
    if (projected.orientations > 1) {
      for (int j = 0; j < set.size; ++j) {
        out.bytes_.push_back({static_cast<size_t>(set.offset + set.size + j), {}});
      }
    }
    pd.sets_.push_back(std::move(projected));
  }

  // The goals: the projections of every goal state, or of those Solved block spec.goal
  // stands for.
  std::set<DefinedState> seen;
  for (const DefinedState& goal : d.goals()) {
    if (spec.goal > 0 && !d.Matches(static_cast<size_t>(spec.goal - 1), goal.data())) continue;
    DefinedState g;
    out.Project(goal, &g);
    if (seen.insert(g).second) pd.goals_.push_back(g);
  }
  pd.patterns_ = pd.goals_;
  pd.SettleGoalLookup();

  // A block seen through the projection: its transform on the kept sets' positions, the
  // guards on what the projection still sees.
  auto project_block = [&](const MoveBlock& block) {
    MoveBlock b;
    b.line = block.line;
    for (size_t s = 0; s < d.sets().size(); ++s) {
      if (kept[s] == nullptr) continue;
      const DefinedSet& set = d.sets()[s];
      for (int j = 0; j < set.size; ++j) {
        const size_t slot = static_cast<size_t>(slot_of_set[s] + j);
        b.transform.source.push_back(block.transform.source[slot]);
        b.transform.twist.push_back(block.transform.twist[slot]);
      }
    }
    for (const Guard& g : block.guards) {
      const auto s = static_cast<size_t>(g.set);
      if (kept[s] == nullptr) continue;
      Guard mapped = g;
      mapped.set = static_cast<int>(std::count_if(kept.begin(), kept.begin() + static_cast<long>(s),
                                                  [](const ProjectedSet* p) { return p != nullptr; }));
      if (g.piece != 0) mapped.piece = label_maps[s][static_cast<size_t>(g.piece)];
      if (!kept[s]->orientations) mapped.orientation = -1;
      if (mapped.piece == 0 && mapped.orientation < 0) continue;  // reads nothing
      b.guards.push_back(mapped);
    }
    return b;
  };
  for (const DefinedMove& move : d.moves()) {
    if (!move.guarded) {
      DefinedMove m = move;
      m.blocks = {project_block(move.blocks[0])};
      pd.moves_.push_back(std::move(m));
      continue;
    }
    for (size_t b = 0; b < move.blocks.size(); ++b) {
      DefinedMove m;
      m.name = move.blocks.size() == 1 ? move.name : Cat(move.name, "#", b + 1);
      m.guarded = true;
      m.power = move.power;
      m.blocks = {project_block(move.blocks[b])};
      pd.moves_.push_back(std::move(m));
    }
  }
  return out;
}

void Projection::Project(const DefinedState& from, DefinedState* to) const {
  to->resize(bytes_.size());
  for (size_t i = 0; i < bytes_.size(); ++i) {
    const Byte& b = bytes_[i];
    const uint8_t value = from[b.from];
    (*to)[i] = b.labels.empty() ? value : b.labels[value];
  }
}

}  // namespace puzzledb
