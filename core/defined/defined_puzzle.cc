#include "core/defined/defined_puzzle.h"

#include <algorithm>
#include <map>
#include <cstdio>
#include <memory>
#include <random>

#include "core/defined/defined_model.h"
#include "core/defined/defined_guide.h"
#include "core/defined/defined_symmetry.h"
#include "core/definition/read_definition.h"
#include "core/puzzles/model_puzzle.h"
#include "core/table/table_format.h"
#include "core/util/strings.h"
#include "core/util/text_input.h"

namespace puzzledb {

using DefinedMod3Model = DefinedModel<TableEncodingKind::kDistanceMod3>;
using DefinedByteModel = DefinedModel<TableEncodingKind::kDistanceByte>;
using DefinedGuidedModel = DefinedModel<TableEncodingKind::kPatternBound>;

namespace {

// Why a table whose definition was read the old way is not served, after "its " or "the
// table's "; `db` the database's folder, if known.
std::string LegacyReading(std::string_view db) {
  return Cat("definition was stored by a puzzledb that read move orientations by destination, "
             "not by piece as twsearch does (docs/PUZZLES.md, section 7), and may name another "
             "puzzle now: puzzledb-build migrate --db ", db.empty() ? "DIR" : db,
             " rewrites it in today's reading, keeping its table; or rebuild it with "
             "puzzledb-build --definition");
}

// What a definition's table's first line says after "puzzledb definition, " (the reading
// and the layout: "twists by piece, index layout 2"), for messages.
std::string_view HeaderOf(std::string_view parameters) {
  std::string_view line = parameters.substr(0, parameters.find('\n'));
  if (line.substr(0, kDefinitionHeaderStart.size()) == kDefinitionHeaderStart) {
    line.remove_prefix(kDefinitionHeaderStart.size());
  }
  return line;
}

std::string Hex32(uint32_t value) {
  char text[16];
  std::snprintf(text, sizeof text, "%08x", value);
  return text;
}

template <class S>
DefinedState BytesOf(const DefinedPuzzleData& data, const S& s) {
  return DefinedState(s.bytes.begin(), s.bytes.begin() + static_cast<std::ptrdiff_t>(data.definition.state_bytes()));
}

// A definition and its puzzle, kept together for as long as anything points to either.
template <class Model>
struct Holder {
  Holder(DefinedPuzzleData d, std::shared_ptr<DefinedFamily> f)
      : family(std::move(f)), data(std::move(d)), puzzle(&data) {}
  std::shared_ptr<DefinedFamily> family;  // with parameters: the other sets' data
  DefinedPuzzleData data;
  ModelPuzzle<Model> puzzle;
};

const DefinedPuzzleData* DataOf(const Puzzle& puzzle) {
  if (const auto* mod3 = dynamic_cast<const ModelPuzzle<DefinedMod3Model>*>(&puzzle)) return mod3->params();
  if (const auto* byte = dynamic_cast<const ModelPuzzle<DefinedByteModel>*>(&puzzle)) return byte->params();
  if (const auto* guided = dynamic_cast<const ModelPuzzle<DefinedGuidedModel>*>(&puzzle)) return guided->params();
  return nullptr;
}

}  // namespace

// ---- the model's texts

// A state of the definition `params` read, without the parameters' values.
template <class Instance>
absl::StatusOr<Instance> ParseState(const DefinedPuzzleData* params, std::string_view text) {
  auto state = params->definition.ParseCompact(text);
  if (!state.ok()) return state.status();
  return Instance{params, StateOf<decltype(Instance::state)>(*state)};
}

// A definition with parameters: the values, ';', then the state (nothing: the first goal).
template <TableEncodingKind E>
absl::StatusOr<typename DefinedModel<E>::Instance> DefinedModel<E>::ParseCompact(
    Params params, std::string_view text) {
  if (params->family == nullptr) return ParseState<Instance>(params, text);
  const size_t semicolon = text.find(';');
  if (semicolon == std::string_view::npos) {
    return absl::InvalidArgumentError(Cat("the ", params->name, " puzzle's cases carry parameters: give their values, "
                                          "then ';', then the state (", params->compact_help, ")"));
  }
  const DefinitionTemplate& t = params->family->definition_template();
  auto values = t.ParseValues(text.substr(0, semicolon));
  if (!values.ok()) return absl::InvalidArgumentError(Cat("the parameters: ", Message(values.status())));
  auto member = params->family->Member(*values);
  if (!member.ok()) return member.status();
  const std::string_view state = StripWhitespace(text.substr(semicolon + 1));
  if (state.empty()) return Instance{*member, StateOf<State>((*member)->goals[0])};
  return ParseState<Instance>(*member, state);
}

template <TableEncodingKind E>
std::vector<ParsedCase<typename DefinedModel<E>::Instance>> DefinedModel<E>::ParseOriginal(
    Params params, std::string_view text) {
  return ParseCaseLines<Instance>(
      text, [params](std::string_view line) { return ParseCompact(params, StripWhitespace(line)); },
      Cat("the input is empty; each line is a state of the ", params->name, " puzzle: ",
          params->compact_help));
}

template <TableEncodingKind E>
std::string DefinedModel<E>::FormatCompact(const Instance& instance) {
  const std::string state = instance.params->definition.FormatCompact(BytesOf(*instance.params, instance.state));
  if (instance.params->family == nullptr) return state;
  return Cat(DefinitionTemplate::FormatValues(instance.params->values), " ; ", state);
}

template <TableEncodingKind E>
std::string DefinedModel<E>::FormatOriginal(const std::vector<Instance>& instances) {
  std::string out;
  for (const Instance& instance : instances) out += FormatCompact(instance) + "\n";
  return out;
}

template <TableEncodingKind E>
std::string DefinedModel<E>::FormatOriginalAnswer(const Instance& instance,
                                                  const DefinedModel& model,
                                                  const Solution& solution) {
  if (solution.outcome != Outcome::kSolved) return "-1\n";
  std::string out = std::to_string(solution.distance);
  for (const uint8_t m : solution.moves) out += Cat(" ", model.MoveName(instance.state, m));
  return out + "\n";
}

// Each set on a line: its name, then its positions' labels (and orientations), those that
// changed since `before` in brackets.
template <TableEncodingKind E>
std::string DefinedModel<E>::Draw(const Instance& now, const Instance* before) {
  const Definition& d = now.params->definition;
  size_t width = 0;
  for (const DefinedSet& set : d.sets()) width = std::max(width, set.name.size());
  std::string out;
  auto cell = [&](int at) {
    const uint8_t value = now.state.bytes[static_cast<size_t>(at)];
    const bool changed = before != nullptr && before->state.bytes[static_cast<size_t>(at)] != value;
    std::string text = std::to_string(value);
    return changed ? Cat("[", text, "]") : Cat(" ", text, " ");
  };
  for (const DefinedSet& set : d.sets()) {
    std::string line = set.name + std::string(width - set.name.size() + 1, ' ');
    for (int j = 0; j < set.size; ++j) line += cell(set.offset + j);
    if (set.orientations > 1) {
      line += " /";
      for (int j = 0; j < set.size; ++j) line += cell(set.offset + set.size + j);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

// A row of cells a set, its name centred in the three units on their left; a cell's value is label * 256 + orientation.
template <TableEncodingKind E>
BoardLayout DefinedModel<E>::Layout() const {
  const Definition& d = params_->definition;
  BoardLayout layout;
  int widest = 0;
  std::vector<bool> symbol(256 * 256, false);
  for (size_t s = 0; s < d.sets().size(); ++s) {
    const DefinedSet& set = d.sets()[s];
    widest = std::max(widest, set.size);
    layout.labels.push_back({1.5, static_cast<double>(s) + 0.5, set.name});
    for (int j = 0; j < set.size; ++j) {
      layout.cells.push_back({3.0 + j, static_cast<double>(s), Cat(set.name, " ", j + 1), ""});
      const uint8_t label = d.goals()[0][static_cast<size_t>(set.offset + j)];
      for (int o = 0; o < set.orientations; ++o) symbol[static_cast<size_t>(label * 256 + o)] = true;
    }
  }
  for (int value = 0; value < 256 * 256; ++value) {
    if (!symbol[static_cast<size_t>(value)]) continue;
    const int label = value / 256;
    const int o = value % 256;
    char fill[32];
    std::snprintf(fill, sizeof fill, "hsl(%d, 65%%, %d%%)", label * 47 % 360, o == 0 ? 75 : 60);
    layout.symbols.push_back({value, o == 0 ? Cat(label) : Cat(label, "/", o), fill});
  }
  layout.width = 3.0 + widest;
  layout.height = static_cast<double>(d.sets().size());
  layout.hint = "Each row is a set: a cell shows the piece there (its label, then /orientation "
                "when turned). Click two cells of a row to swap their pieces.";
  return layout;
}

template <TableEncodingKind E>
std::vector<int> DefinedModel<E>::Cells(const Instance& instance) {
  const Definition& d = instance.params->definition;
  std::vector<int> cells;
  for (const DefinedSet& set : d.sets()) {
    for (int j = 0; j < set.size; ++j) {
      const int label = instance.state.bytes[static_cast<size_t>(set.offset + j)];
      const int o = set.orientations > 1 ? instance.state.bytes[static_cast<size_t>(set.offset + set.size + j)] : 0;
      cells.push_back(label * 256 + o);
    }
  }
  return cells;
}

template <TableEncodingKind E>
absl::StatusOr<typename DefinedModel<E>::Instance> DefinedModel<E>::FromCells(
    const Instance& base, std::span<const int> cells) {
  const Definition& d = base.params->definition;
  std::string compact;
  size_t at = 0;
  for (size_t s = 0; s < d.sets().size(); ++s) {
    const DefinedSet& set = d.sets()[s];
    if (s > 0) compact += " | ";
    std::string labels, orientations;
    for (int j = 0; j < set.size; ++j, ++at) {
      if (at >= cells.size()) return absl::InvalidArgumentError("too few cells");
      if (j > 0) labels += ' ';
      labels += std::to_string(cells[at] / 256);
      orientations += Cat(" ", cells[at] % 256);
    }
    compact += labels;
    if (set.orientations > 1) compact += " /" + orientations;
  }
  return ParseState<Instance>(base.params, compact);
}

namespace {
// 64-bit FNV-1a of a set of values, each as 4 bytes (a table's name).
uint64_t ValuesFingerprint(std::span<const int> values) {
  uint64_t hash = 0xcbf29ce484222325u;
  for (const int v : values) {
    for (int b = 0; b < 4; ++b) {
      hash ^= (static_cast<uint32_t>(v) >> (8 * b)) & 0xffu;
      hash *= 0x100000001b3u;
    }
  }
  return hash;
}
}  // namespace

template <TableEncodingKind E>
std::string DefinedModel<E>::TableId(Params params) {
  if (params->family == nullptr) return params->name;
  char hex[24];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(ValuesFingerprint(params->values)));
  return Cat(params->name, "-", hex);
}

template <TableEncodingKind E>
std::string DefinedModel<E>::DescribeParams(Params params) {
  std::string out = Cat("file ", params->file, ", crc32 ", Hex32(params->text_crc32));
  if (params->family != nullptr) {
    out += Cat(", parameters ", params->family->definition_template().Describe(params->values));
  }
  return out;
}

template <TableEncodingKind E>
absl::StatusOr<typename DefinedModel<E>::Params> DefinedModel<E>::DecodeParams(
    Params base, std::string_view bytes) {
  if (bytes == EncodeParams(base)) return base;
  if (bytes.substr(0, kLegacyDefinitionHeader.size()) == kLegacyDefinitionHeader) {
    return absl::InvalidArgumentError(Cat("the table's ", LegacyReading("")));
  }
  // With parameters, each set of values lays its index out as its definition allows.
  int layout = base->index.layout();
  if (base->family != nullptr) {
    for (const int known : kDefinitionLayouts) {
      if (bytes.substr(0, DefinitionHeader(known).size()) == DefinitionHeader(known)) layout = known;
    }
  }
  const std::string ours = DefinitionHeader(layout);
  if (bytes.substr(0, ours.size()) != ours) {
    return absl::InvalidArgumentError(
        Cat("the table's entries follow another layout of the index (",
            QuoteInput(HeaderOf(bytes)), "; this puzzledb's is ", QuoteInput(HeaderOf(ours)),
            "): rebuild it with puzzledb-build --definition"));
  }
  bytes.remove_prefix(ours.size());
  if (base->family != nullptr && bytes.substr(0, DefinedPuzzleData::kParametersLine.size()) ==
                                     DefinedPuzzleData::kParametersLine) {
    const size_t newline = bytes.find('\n');
    const std::string_view text = newline == std::string_view::npos ? std::string_view() : bytes.substr(newline + 1);
    if (newline != std::string_view::npos && text == base->text) {
      auto values = base->family->definition_template().ParseValues(
          bytes.substr(DefinedPuzzleData::kParametersLine.size(), newline - DefinedPuzzleData::kParametersLine.size()));
      if (!values.ok()) return absl::InvalidArgumentError(Cat("the table's parameters: ", Message(values.status())));
      auto member = base->family->Member(*values);
      if (!member.ok()) return member.status();
      if ((*member)->index.layout() != layout) {
        return absl::InvalidArgumentError(
            Cat("the table's entries follow another layout of the index (", QuoteInput(HeaderOf(ours)),
                "; this puzzledb lays these values out as ",
                QuoteInput(HeaderOf(DefinitionHeader((*member)->index.layout()))),
                "): rebuild it with puzzledb-build --definition"));
      }
      return *member;
    }
  }
  return absl::InvalidArgumentError(
      Cat("the table holds another definition of ", base->name, " (crc32 ",
          Hex32(Crc32(bytes)), "; this puzzle's is ", Hex32(base->stored_crc32), ")"));
}

PUZZLEDB_INSTANTIATE_MODEL(DefinedMod3Model)
PUZZLEDB_INSTANTIATE_MODEL(DefinedByteModel)
PUZZLEDB_INSTANTIATE_MODEL(DefinedGuidedModel)
// What a definition's pattern tables record of it (core/defined/defined_patterns.cc).
template std::string DefinedGuidedModel::DescribeParams(Params);

// ---- making and registering

absl::Status CheckDefinedName(std::string_view name) {
  bool good = !name.empty() && name.size() <= 32 && name[0] != '_';
  for (char c : name) good &= (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  if (!good) {
    return absl::InvalidArgumentError(
        Cat("the name ", QuoteInput(name), " is not 1 to 32 of a-z, 0-9 and _, not starting with _"));
  }
  return absl::OkStatus();
}

std::string DefinedNameOf(std::string_view path) {
  std::string_view base = path.substr(path.find_last_of('/') == std::string_view::npos ? 0 : path.find_last_of('/') + 1);
  if (base.size() > 4 && base.substr(base.size() - 4) == ".tws") base.remove_suffix(4);
  std::string name(base);
  for (char& c : name) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return name;
}

namespace {

// A definition read (or made from a set of parameter values), not yet a puzzle.
struct MadeData {
  DefinedPuzzleData data;
  bool guided = false;  // answered by a search guided by pattern tables
};

// "W 12 x 4 from 1 to 12, N from 2 to 5": the values a definition with parameters takes.
std::string ValuesHelp(const DefinitionTemplate& t) {
  std::vector<std::string> parts;
  for (const TemplateParameter& p : t.parameters()) {
    parts.push_back(Cat(p.name, p.dims.empty() ? std::string() : Cat(" ", Join(p.dims, " x ")), " from ", p.low, " to ",
                        p.high));
  }
  return Cat(Join(parts, ", "), ", ", t.value_count(), " numbers in all");
}

// `tmpl` and `values`: the definition with parameters `read` was made from, and the values.
absl::StatusOr<MadeData> MakeData(std::string_view name, std::string_view text, std::string_view file,
                                  Definition read, uint64_t max_states, DefinedTableKind kind,
                                  const DefinitionTemplate* tmpl, std::span<const int> values,
                                  std::vector<std::string> line_names) {
  auto line_name = [&line_names](int line) {
    return line >= 1 && static_cast<size_t>(line) <= line_names.size() ? line_names[static_cast<size_t>(line) - 1]
                                                                       : std::to_string(line);
  };
  const std::string where = Cat(file, ": ");
  // A complete table's walk holds states of up to kDefinedStateBytes, the live search
  // guided by pattern tables up to kGuidedStateBytes.
  const std::string state_size = Cat("a state takes ", read.state_bytes(),
                                     " bytes (a byte for each position, and one more for each that turns)");
  if (read.state_bytes() > static_cast<size_t>(kGuidedStateBytes)) {
    return absl::InvalidArgumentError(Cat(where, state_size, "; a puzzle here holds at most ", kGuidedStateBytes));
  }
  const bool large = read.state_bytes() > static_cast<size_t>(kDefinedStateBytes);
  if (large && kind == DefinedTableKind::kComplete) {
    return absl::InvalidArgumentError(Cat(where, state_size, ", more than the ", kDefinedStateBytes,
                                          " a complete table's walk holds; pattern tables take up to ",
                                          kGuidedStateBytes));
  }
  // A complete table's walk keeps a state's legal moves in 64 bits; pattern tables guide a
  // search of any number (the reader's limit, kMaxGuidedMoves).
  const bool many_moves = read.moves().size() > static_cast<size_t>(kMaxDefinedMoves);
  const std::string too_many =
      Cat(read.moves().size(), " moves with their powers, more than a complete table's walk takes (",
          kMaxDefinedMoves, ")");
  if (many_moves && kind == DefinedTableKind::kComplete) {
    return absl::InvalidArgumentError(Cat(where, too_many, "; pattern tables take up to ", kMaxGuidedMoves));
  }
  // twsearch's Illegal: the complete table's search does not read it; projections (which
  // do not either: their moves only gain) guide a live search that does.
  const std::string illegal =
      read.illegal().empty() ? std::string()
                              : Cat("Illegal lines (the first at line ", line_name(read.illegal()[0].line),
                                    "), which a complete table's search does not read yet");
  if (!illegal.empty() && kind == DefinedTableKind::kComplete) {
    return absl::InvalidArgumentError(Cat(where, illegal, "; pattern tables read them"));
  }
  DefinedPuzzleData data;
  data.name = std::string(name);
  data.file = std::string(file);
  data.text = std::string(text);
  data.text_crc32 = Crc32(text);
  if (tmpl != nullptr) {
    data.values.assign(values.begin(), values.end());
    data.stored_crc32 = Crc32(Cat(DefinedPuzzleData::kParametersLine, DefinitionTemplate::FormatValues(values), "\n", text));
  } else {
    data.stored_crc32 = data.text_crc32;
  }
  data.definition = std::move(read);
  data.line_names = std::move(line_names);
  data.moves = CompiledMoves(data.definition);
  bool guided = kind == DefinedTableKind::kPatterns;
  if (!guided && many_moves) {
    data.why_no_table = too_many;
    guided = true;
  } else if (!guided && !illegal.empty()) {
    data.why_no_table = illegal;
    guided = true;
  } else if (!guided && large) {
    data.why_no_table = Cat(state_size, ", more than the ", kDefinedStateBytes, " a complete table's walk holds");
    guided = true;
  } else if (!guided) {
    // Layout 3 where it applies: a complete table's index splits off an arrangement; and
    // layout 4 where the definition's symmetries keep its coordinates apart: a block per
    // class of placements.
    std::vector<DefinedSymmetry> symmetries;  // looked for once the index fits
    auto index = DefinedIndex::Make(data.definition, data.moves, max_states,
                                    {.arrangements = true,
                                     .find_symmetries =
                                         [&] {
                                           symmetries = FindSymmetries(data.definition, data.moves, kMaxSymmetries);
                                           return symmetries;
                                         },
                                     .twist_sums = true});
    if (index.ok()) {
      data.index = *std::move(index);
      const bool turns = std::any_of(data.definition.sets().begin(), data.definition.sets().end(),
                                     [](const DefinedSet& set) { return set.orientations > 1; });
      if (data.index.symmetric()) {
        data.table_entries = Cat("positions up to the definition's symmetries (a group of ", data.index.group_order(),
                                 "), one entry for each class of them");
        data.symmetry = Cat("a group of ", data.index.group_order(), ": one entry per class of positions (layout 4)");
      } else if (!symmetries.empty()) {
        data.symmetry = Cat(symmetries.size(), " found, not used: ", data.index.why_not_symmetric());
      } else {
        data.symmetry = turns ? "none looked for (pieces turn)" : "none found";
      }
    } else if (kind == DefinedTableKind::kComplete) {
      return absl::InvalidArgumentError(Cat(where, Message(index.status())));
    } else {
      data.why_no_table = std::string(Message(index.status()));
      guided = true;
    }
  } else {
    data.why_no_table = "built with pattern tables";
  }
  if (guided) data.index = DefinedIndex::Invariants(data.definition, data.moves);
  for (int m = 0; m < data.moves.move_count(); ++m) data.inverse.push_back(data.moves.InverseMove(m));
  data.goals = data.definition.goals();
  // The compact form, for people: the goal's, as an example of the layout.
  std::vector<std::string> parts;
  for (const DefinedSet& set : data.definition.sets()) {
    parts.push_back(set.orientations > 1
                        ? Cat(set.name, ": ", set.size, " labels, '/', ", set.size, " orientations 0-",
                              set.orientations - 1)
                        : Cat(set.name, ": ", set.size, " labels"));
  }
  const Definition& d = data.definition;
  std::vector<std::string> held;  // each set's pieces, where goals leave positions free
  for (const DefinedSet& set : d.sets()) {
    std::map<int, int> count;
    for (int j = 0; j < set.size; ++j) ++count[d.goals()[0][static_cast<size_t>(set.offset + j)]];
    std::vector<std::string> labels;
    for (const auto& [label, n] : count) labels.push_back(n == 1 ? Cat(label) : Cat(label, " x", n));
    held.push_back(Cat(set.name, " ", Join(labels, ", ")));
  }
  data.compact_help =
      Cat(tmpl == nullptr ? std::string() : Cat("the parameters' values (", ValuesHelp(*tmpl), "), ';', then "),
          "each set in turn, separated by '|' (", Join(parts, " | "), "); ",
          d.has_free_goals()
              ? Cat(d.patterns().size() == 1 ? "the goal" : Cat("the first of ", d.patterns().size(), " goals"),
                    " is ", d.FormatCompact(d.patterns()[0]), " ('?': any piece); the pieces: ", Join(held, "; "))
              : Cat("the goal is ", d.FormatCompact(d.goals()[0])));
  // The example: the goal after a few moves, drawn with a seed of the file's own.
  DefinedState state = data.definition.goals()[0], next;
  std::mt19937_64 rng(data.stored_crc32);
  for (int step = 0, made = 0; step < 64 && made < 6; ++step) {
    const int m = static_cast<int>(rng() % static_cast<uint64_t>(data.moves.move_count()));
    if (data.definition.Apply(state, m, &next)) {
      state.swap(next);
      ++made;
    }
  }
  data.example = data.definition.FormatCompact(state);
  if (tmpl != nullptr) data.example = Cat(DefinitionTemplate::FormatValues(values), " ; ", data.example);
  return MadeData{std::move(data), guided};
}

// The puzzle of `data`; `family`, its family if it has parameters.
absl::StatusOr<std::shared_ptr<const Puzzle>> PuzzleOf(DefinedPuzzleData data, bool guided,
                                                       std::optional<TableEncoding> stored,
                                                       std::shared_ptr<DefinedFamily> family) {
  const std::string where = Cat(data.file, ": ");
  if (guided) {
    auto holder = std::make_shared<Holder<DefinedGuidedModel>>(std::move(data), family);
    return std::shared_ptr<const Puzzle>(holder, &holder->puzzle);
  }
  const TableEncoding encoding = stored.value_or(DefinedEncoding(data.moves));
  if (encoding == storage::v1::DISTANCE_MOD3 && !data.moves.undirected()) {
    return absl::FailedPreconditionError(
        Cat(where, "its table keeps distances modulo 3, which its one-way moves cannot be walked by: "
                   "rebuild it with puzzledb-build --definition"));
  }
  if (encoding == storage::v1::DISTANCE_MOD3) {
    auto holder = std::make_shared<Holder<DefinedMod3Model>>(std::move(data), family);
    return std::shared_ptr<const Puzzle>(holder, &holder->puzzle);
  }
  auto holder = std::make_shared<Holder<DefinedByteModel>>(std::move(data), family);
  return std::shared_ptr<const Puzzle>(holder, &holder->puzzle);
}


// A definition with parameters: the example's puzzle, which makes the others' data when asked.
absl::StatusOr<std::shared_ptr<const Puzzle>> MakeDefinedFamily(std::string_view name, std::string_view text,
                                                                std::string_view file, uint64_t max_states,
                                                                DefinedTableKind kind,
                                                                std::optional<TableEncoding> stored) {
  const std::string where = Cat(file, ": ");
  if (kind == DefinedTableKind::kPatterns) {
    return absl::InvalidArgumentError(Cat(where, "a definition with parameters gets a complete table for each set of "
                                                 "values; pattern tables for one are not built yet"));
  }
  auto tmpl = DefinitionTemplate::Read(text, file);
  if (!tmpl.ok()) return tmpl.status();
  std::vector<std::string> line_names;
  auto read = tmpl->Instantiate(tmpl->example(), &line_names);
  if (!read.ok()) return read.status();
  auto made = MakeData(name, text, file, *std::move(read), max_states, DefinedTableKind::kComplete, &*tmpl,
                       tmpl->example(), std::move(line_names));
  if (!made.ok()) return made.status();
  const TableEncoding encoding = stored.value_or(DefinedEncoding(made->data.moves));
  // Every set of values makes the example's moves (the puzzle's moves are numbered and
  // named once, for all its cases).
  std::vector<std::string> move_names;
  for (const DefinedMove& move : made->data.definition.moves()) move_names.push_back(move.name);
  auto family = std::make_shared<DefinedFamily>(
      *tmpl, std::string(text),
      [name = std::string(name), text = std::string(text), file = std::string(file), max_states, encoding,
              move_names](const DefinedFamily& f,
                          const std::vector<int>& values) -> absl::StatusOr<std::unique_ptr<DefinedPuzzleData>> {
        std::vector<std::string> line_names;
        auto read = f.definition_template().Instantiate(values, &line_names);
        if (!read.ok()) return read.status();
        auto made = MakeData(name, text, file, *std::move(read), max_states, DefinedTableKind::kComplete,
                             &f.definition_template(), values, std::move(line_names));
        if (!made.ok()) return made.status();
        std::vector<std::string> names;
        for (const DefinedMove& move : made->data.definition.moves()) names.push_back(move.name);
        if (names != move_names) {
          return absl::InvalidArgumentError(
              Cat(file, ": these values make the moves ", Join(names, " "), ", and the example's are ",
                  Join(move_names, " "), ": every set of values must make the same moves, in the same order"));
        }
        if (encoding == storage::v1::DISTANCE_MOD3 && !made->data.moves.undirected()) {
          return absl::InvalidArgumentError(
              Cat(file, ": these values make a move that no move undoes, and the tables of ", name,
                  " keep distances modulo 3 (its example's moves all have a way back), which such a move cannot be "
                  "walked by"));
        }
        made->data.family = &f;
        // The file and the line names stay the family's and the example's alone.
        made->data.text = std::string();
        made->data.line_names = {};
        return std::make_unique<DefinedPuzzleData>(std::move(made->data));
      });
  made->data.family = family.get();
  auto puzzle = PuzzleOf(std::move(made->data), false, encoding, family);
  if (!puzzle.ok()) return puzzle.status();
  family->Adopt(DataOf(**puzzle));
  return puzzle;
}

}  // namespace

absl::StatusOr<const DefinedPuzzleData*> DefinedFamily::Member(const std::vector<int>& values) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = members_.find(values); it != members_.end()) return it->second;
  const std::string& name = members_.begin()->second->name;
  auto full = [&name] {
    return absl::ResourceExhaustedError(Cat("this program has made the puzzles of as many sets of parameter values of ",
                                            name, " as it keeps (", kMaxMembers, ", or ", kMaxMemberBytes >> 20,
                                            " MiB of them); another set waits for a restart"));
  };
  if (owned_.size() >= kMaxMembers) return full();
  auto made = make_(*this, values);
  if (!made.ok()) return made.status();
  const size_t cost = Cost(**made);
  if (bytes_ + cost > kMaxMemberBytes) return full();
  bytes_ += cost;
  const DefinedPuzzleData* data = made->get();
  owned_.push_back(*std::move(made));
  members_.emplace(values, data);
  return data;
}

size_t DefinedFamily::Cost(const DefinedPuzzleData& data) {
  const size_t state = data.definition.state_bytes();
  const size_t rest = size_t{16} << 10;
  const size_t blocks = static_cast<size_t>(data.moves.block_count()) * state * 16;  // programs and transforms
  const size_t goals = data.goals.size() * state * 2;                               // kept twice
  return rest + blocks + goals;
}

void DefinedFamily::Adopt(const DefinedPuzzleData* data) {
  std::lock_guard<std::mutex> lock(mutex_);
  members_.emplace(data->values, data);
}

size_t DefinedFamily::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return members_.size();
}

absl::StatusOr<std::shared_ptr<const Puzzle>> MakeDefinedPuzzle(std::string_view name,
                                                                std::string_view text,
                                                                std::string_view file,
                                                                uint64_t max_states,
                                                                DefinedTableKind kind,
                                                                std::optional<TableEncoding> stored) {
  if (absl::Status good = CheckDefinedName(name); !good.ok()) return good;
  for (const Puzzle* puzzle : Puzzles()) {
    if (puzzle->name() == name && DataOf(*puzzle) == nullptr) {
      return absl::InvalidArgumentError(
          Cat("the name ", name, " is a built-in puzzle's; give the definition another (--name)"));
    }
  }
  if (DefinitionTemplate::Declares(text)) return MakeDefinedFamily(name, text, file, max_states, kind, stored);
  auto read = ReadDefinition(text, file);
  if (!read.ok()) return read.status();
  auto made = MakeData(name, text, file, *std::move(read), max_states, kind, nullptr, {}, {});
  if (!made.ok()) return made.status();
  return PuzzleOf(std::move(made->data), made->guided, stored, nullptr);
}

absl::Status CheckDefinedBuild(const Puzzle& puzzle, const BuildOptions& options) {
  const DefinedPuzzleData* data = DataOf(puzzle);
  if (data == nullptr || data->why_no_table.empty()) return absl::OkStatus();
  auto specs = ProjectionsToBuild(data->definition, options);
  if (specs.ok()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      options.projections.empty()
          ? Cat(data->file, ": no complete table (", data->why_no_table, "), and ", Message(specs.status()))
          : Cat(data->file, ": ", Message(specs.status())));
}

absl::StatusOr<std::shared_ptr<const Puzzle>> PuzzleOfStoredDefinition(const TableMetadata& m,
                                                                        std::string_view db) {
  // A definition's table: the header and its text as parameters, the text's CRC-32 as
  // the fingerprint.
  std::string_view text = m.parameters();
  if (text.substr(0, kDefinitionHeaderStart.size()) != kDefinitionHeaderStart) return nullptr;
  if (text.substr(0, kLegacyDefinitionHeader.size()) == kLegacyDefinitionHeader) {
    return absl::FailedPreconditionError(Cat("its ", LegacyReading(db)));
  }
  // A layout this puzzledb knows (DefinitionHeader); the puzzle made below must lay its
  // index out the same.
  int layout = 0;
  std::vector<std::string> known_headers;
  for (const int known : kDefinitionLayouts) {
    if (text.substr(0, DefinitionHeader(known).size()) == DefinitionHeader(known)) layout = known;
    known_headers.push_back(QuoteInput(HeaderOf(DefinitionHeader(known))));
  }
  if (layout == 0) {
    return absl::FailedPreconditionError(
        Cat("its table follows another layout of the index (", QuoteInput(HeaderOf(text)),
            "; this puzzledb's are ", Join(known_headers, ", "), "): rebuild it with puzzledb-build --definition"));
  }
  const std::string stored_header = DefinitionHeader(layout);
  text.remove_prefix(stored_header.size());
  // A definition's pattern tables: their checksum covers the projections too.
  const bool patterns = m.projections_size() > 0;
  const uint64_t expected = patterns ? DefinedPatternsFingerprint(text, m) : Crc32(text);
  if (expected != m.parameters_fingerprint()) {
    return absl::DataLossError(
        Cat("its stored definition fails its checksum (crc32 ", Hex32(static_cast<uint32_t>(expected)),
            ", recorded ", Hex32(static_cast<uint32_t>(m.parameters_fingerprint())),
            "); rebuild it with puzzledb-build --definition"));
  }
  std::string file = Cat(m.puzzle(), ".tws");
  const std::string& described = m.parameters_text();
  if (described.rfind("file ", 0) == 0) file = described.substr(5, described.find(',') - 5);
  // A definition with parameters: the values of this table's set, then the file.
  std::string_view values;
  bool has_values = false;
  if (!patterns && text.substr(0, DefinedPuzzleData::kParametersLine.size()) == DefinedPuzzleData::kParametersLine) {
    const size_t newline = text.find('\n');
    if (newline == std::string_view::npos) {
      return absl::FailedPreconditionError("its stored definition has parameters and no file after them");
    }
    values = text.substr(DefinedPuzzleData::kParametersLine.size(), newline - DefinedPuzzleData::kParametersLine.size());
    text.remove_prefix(newline + 1);
    has_values = true;
  }
  auto puzzle = MakeDefinedPuzzle(m.puzzle(), text, file, std::max(kDefaultMaxDefinedStates, m.state_count()),
                                  patterns ? DefinedTableKind::kPatterns : DefinedTableKind::kComplete,
                                  patterns ? std::nullopt : std::optional<TableEncoding>(m.encoding()));
  if (!puzzle.ok()) return puzzle.status();
  const DefinedPuzzleData* data = DataOf(**puzzle);
  if (data != nullptr && (data->family != nullptr) != has_values) {
    return absl::FailedPreconditionError(data->family != nullptr
                                             ? "its stored definition has parameters and its table names no values of them"
                                             : "its table names values of parameters its stored definition does not have");
  }
  if (data != nullptr && data->family != nullptr) {
    auto parsed = data->family->definition_template().ParseValues(values);
    if (!parsed.ok()) return absl::FailedPreconditionError(Cat("its parameters: ", Message(parsed.status())));
    auto member = data->family->Member(*parsed);
    if (!member.ok()) return member.status();
    data = *member;
  }
  if (data != nullptr && data->index.layout() != layout) {
    const std::string ours = DefinitionHeader(data->index.layout());
    return absl::FailedPreconditionError(
        Cat("its table follows another layout of the index (", QuoteInput(HeaderOf(stored_header)),
            "; this puzzledb lays this definition out as ", QuoteInput(HeaderOf(ours)),
            "): rebuild it with puzzledb-build --definition"));
  }
  return puzzle;
}

int RegisterStoredDefinitions(const TableStore& store,
                              const std::function<void(std::string_view)>& log,
                              std::map<std::string, std::string>* refused) {
  auto tables = store.List();
  if (!tables.ok()) {
    if (log) log(Cat("stored definitions: ", Message(tables.status())));
    return 0;
  }
  int registered = 0;
  for (const TableMetadata& m : *tables) {
    auto refuse = [&](const std::string& why) {
      if (log) log(Cat("not serving ", m.puzzle(), ": ", why));
      if (refused != nullptr) (*refused)[m.table_id()] = why;
      NoteNotServed(m.puzzle(), why);
    };
    const Puzzle* known = FindPuzzle(m.puzzle());
    if (known != nullptr) continue;  // built in, or registered already
    auto puzzle = PuzzleOfStoredDefinition(m, store.dir());
    if (!puzzle.ok()) {
      refuse(std::string(Message(puzzle.status())));
      continue;
    }
    if (*puzzle == nullptr) continue;  // not a definition's table
    if (absl::Status added = RegisterPuzzle(*std::move(puzzle)); !added.ok()) {
      refuse(std::string(Message(added)));
      continue;
    }
    ++registered;
  }
  return registered;
}

absl::StatusOr<std::vector<std::string>> RemoveDefinitionTables(TableStore& store, std::string_view name) {
  if (const Puzzle* puzzle = FindPuzzle(name); puzzle != nullptr && puzzle->identity() == nullptr) {
    return absl::FailedPreconditionError(
        Cat("the ", name, " puzzle is built in: its tables are built again, not removed"));
  }
  auto held = store.List();
  if (!held.ok()) return held.status();
  std::vector<std::string> removed;
  for (const TableMetadata& m : *held) {
    if (m.puzzle() != name) continue;
    if (absl::Status gone = store.Remove(m.table_id()); !gone.ok()) return gone;
    removed.push_back(m.table_id());
  }
  return removed;
}

absl::StatusOr<bool> MigrateDefinitionRecord(TableMetadata* m) {
  const std::string_view parameters = m->parameters();
  if (parameters.substr(0, kLegacyDefinitionHeader.size()) != kLegacyDefinitionHeader) return false;
  const std::string_view old_text = parameters.substr(kLegacyDefinitionHeader.size());
  const bool patterns = m->projections_size() > 0;
  // A record that fails its checksum is rebuilt, not given a new one.
  const uint64_t expected = patterns ? DefinedPatternsFingerprint(old_text, *m) : Crc32(old_text);
  if (expected != m->parameters_fingerprint()) {
    return absl::DataLossError(Cat("table ", m->table_id(), ": its stored definition fails its checksum"));
  }
  std::string file = Cat(m->puzzle(), ".tws");
  const std::string& described = m->parameters_text();
  if (described.rfind("file ", 0) == 0) file = described.substr(5, described.find(',') - 5);
  auto text = RewriteLegacyTwists(old_text, file);
  if (!text.ok()) return text.status();
  m->set_parameters(Cat(kDefinitionHeader, *text));
  m->set_parameters_fingerprint(patterns ? DefinedPatternsFingerprint(*text, *m) : Crc32(*text));
  // "file F, crc32 XXXXXXXX[; projections ...]": the new text's checksum.
  std::string description = described;
  if (const size_t crc = description.find(", crc32 "); crc != std::string::npos) {
    description.replace(crc + 8, 8, Hex32(Crc32(*text)));
  }
  m->set_parameters_text(description);
  return true;
}

int RegisterListedDefinitions(const std::vector<std::pair<std::string, std::string>>& listed,
                              const std::function<void(std::string_view)>& log) {
  int registered = 0;
  for (const auto& [name, text] : listed) {
    if (text.empty() || FindPuzzle(name) != nullptr) continue;
    auto puzzle = MakeDefinedPuzzle(name, text, Cat(name, ".tws"), kLargestMaxDefinedStates);
    absl::Status added = puzzle.ok() ? RegisterPuzzle(*std::move(puzzle)) : puzzle.status();
    if (!added.ok()) {
      if (log) log(Cat("the server's puzzle ", name, " cannot be read here: ", Message(added)));
      continue;
    }
    ++registered;
  }
  return registered;
}

bool SummarizeDefinition(const Puzzle& puzzle, DefinitionSummary* summary) {
  const DefinedPuzzleData* data = DataOf(puzzle);
  if (data == nullptr) return false;
  summary->name = data->name;
  summary->title = data->definition.title();
  summary->file = data->file;
  summary->text_crc32 = data->text_crc32;
  std::vector<std::string> sets, moves;
  for (const DefinedSet& set : data->definition.sets()) {
    sets.push_back(set.orientations > 1 ? Cat(set.name, " ", set.size, " x ", set.orientations)
                                        : Cat(set.name, " ", set.size));
  }
  for (const DefinedMove& move : data->definition.moves()) moves.push_back(move.name);
  summary->sets = Join(sets, ", ");
  summary->moves = Join(moves, " ");
  summary->index = data->why_no_table.empty() ? data->index.Describe(data->definition)
                                              : Cat("none: ", data->why_no_table);
  summary->patterns = !data->why_no_table.empty();
  summary->symmetry = data->symmetry;
  if (data->moves.guarded() || !data->moves.undirected()) {  // (single moves too)
    const int one_way = data->moves.one_way_block();
    if (data->moves.undirected()) {
      summary->ways = "every block has a way back (a block that undoes it): a complete table keeps 2 bits a state";
    } else if (one_way < 0) {
      summary->ways = Cat(data->moves.block_count(), " blocks, too many to look for their ways "
                          "back: a complete table keeps a byte a state");
    } else {
      const CompiledMoves::Block& block = data->moves.block(one_way);
      const DefinedMove& move = data->definition.moves()[static_cast<size_t>(block.move)];
      const int line = move.blocks[static_cast<size_t>(one_way - data->moves.first_block(block.move))].line;
      summary->ways = Cat("one way: the block of ", move.name, " at line ", data->LineName(line),
                          " is undone by no block, so a complete table keeps a byte a state");
    }
  }
  return true;
}

}  // namespace puzzledb
