// The model of a puzzle given as a definition file (core/definition/): one more
// implementation of the PuzzleModel concept, whose facts are known at run time
// (RuntimeModelTexts in core/model/model.h). Its Params point to what was read — the
// definition, its compiled moves, its index — which lives as long as the program (the
// registry keeps it); the runtime puzzle is ModelPuzzle<DefinedModel<E>>, made for each
// definition by defined_puzzle.h, so that a definition is answered by the same solver,
// walker, sampler and builder as the puzzles written in C++.
//
// Three instantiations, by the table: a complete table of two bits a state (a definition
// without guards: every move's inverse is a move, neighbours differ by at most one) or of
// a byte; or none, pattern tables of projections guiding a live search
// (kPatternBound: core/defined/defined_patterns.h), for a definition too large for a
// complete table or built so on purpose.
#ifndef PUZZLEDB_CORE_DEFINED_DEFINED_MODEL_H_
#define PUZZLEDB_CORE_DEFINED_DEFINED_MODEL_H_

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/defined/defined_search.h"
#include "core/definition/defined_index.h"
#include "core/definition/definition.h"
#include "core/definition/definition_template.h"
#include "core/model/model.h"
#include "core/table/table_builder.h"
#include "core/util/strings.h"

namespace puzzledb {

// A state of a defined puzzle: its DefinedState bytes, the rest zero (a Position holds the
// pointer to the definition and these): at most 56 bytes for a definition with a complete
// table, whose walk copies states (and a Position holds it in place), and a kilobyte less
// the pointer for one searched with pattern tables (the 4x4x4's 64, the megaminx's 100).
inline constexpr int kDefinedStateBytes = 56;
inline constexpr int kGuidedStateBytes = 1024 - 8;
// Moves of a puzzle served from a table (a walk keeps the legal moves in 64 bits).
inline constexpr int kMaxDefinedMoves = 64;
// Moves of a puzzle searched with pattern tables: as many as a definition may have
// (DefinitionLimits::max_moves), each a byte of an answer.
inline constexpr int kMaxGuidedMoves = 250;
// A definition's table stores a line, then the file (docs/FORMAT.md, "A definition's
// table"): how the file's move orientations are read (by piece, as twsearch reads them),
// and the layout of the index, which a table's entries follow (DefinitionHeader): 2, 3 for
// an index with an arrangement, 4 for one with symmetry classes too, 5 for one that keeps
// a sum of a set's orientations across its orbits (DefinedIndex::layout).
// A definition whose index is the same in several layouts writes the lowest, so that its
// tables stored before still serve.
inline constexpr std::string_view kDefinitionHeaderLayout = "puzzledb definition, twists by piece, index layout ";
inline constexpr int kDefinitionLayouts[] = {2, 3, 4, 5};
inline std::string DefinitionHeader(int layout) { return Cat(kDefinitionHeaderLayout, layout, "\n"); }
// The layout-2 line (puzzledb-build migrate writes it: tables stored before layout 3).
inline constexpr std::string_view kDefinitionHeader =
    "puzzledb definition, twists by piece, index layout 2\n";
// The line of a table whose file was read the old way, orientations by destination
// (puzzledb-build migrate rewrites it: core/defined/defined_puzzle.h).
inline constexpr std::string_view kLegacyDefinitionHeader = "puzzledb definition, index layout 2\n";
// What every definition's table's line starts with.
inline constexpr std::string_view kDefinitionHeaderStart = "puzzledb definition, ";

template <class P>
struct DefinedGuide;

template <size_t N>
struct DefinedStateIn {
  std::array<uint8_t, N> bytes{};
  bool operator==(const DefinedStateIn&) const = default;
};
using DefinedModelState = DefinedStateIn<kDefinedStateBytes>;
using DefinedGuidedState = DefinedStateIn<kGuidedStateBytes>;

// A definition's state in the model's state of N bytes, the rest zero. REQUIRES: it fits.
template <class S>
S StateOf(const DefinedState& bytes) {
  S s;
  std::copy(bytes.begin(), bytes.end(), s.bytes.begin());
  return s;
}

struct DefinedPuzzleData;

// A definition with parameters (core/definition/definition_template.h) made a puzzle: one
// puzzle whose cases carry the parameters' values, each set of values a definition of its
// own with its own complete table (as the knobs' wirings). It makes the data of each set of
// values when first asked and keeps it for the program's life (positions point to it), at
// most kMaxMembers sets. Thread-safe.
class DefinedFamily {
 public:
  static constexpr size_t kMaxMembers = 4096;
  // ... and at most this many bytes of theirs, as Cost estimates them.
  static constexpr size_t kMaxMemberBytes = size_t{256} << 20;
  // The bytes a set's data takes, about: its blocks' programs and its goals.
  static size_t Cost(const DefinedPuzzleData& data);
  // How the data of a set of values is made (core/defined/defined_puzzle.cc).
  using Make = std::function<absl::StatusOr<std::unique_ptr<DefinedPuzzleData>>(const DefinedFamily&,
                                                                                  const std::vector<int>&)>;

  DefinedFamily(DefinitionTemplate tmpl, std::string text, Make make)
      : template_(std::move(tmpl)), text_(std::move(text)), make_(std::move(make)) {}

  const DefinitionTemplate& definition_template() const { return template_; }
  // The file (each set's data keeps none of its own).
  const std::string& text() const { return text_; }
  // The data of the puzzle these values make: INVALID_ARGUMENT naming the value or the
  // template's line and rule; RESOURCE_EXHAUSTED past kMaxMembers sets.
  absl::StatusOr<const DefinedPuzzleData*> Member(const std::vector<int>& values) const;
  // Makes `data` (the example's, owned by its puzzle) the member of its values.
  void Adopt(const DefinedPuzzleData* data);
  // The sets of values made so far.
  size_t size() const;

 private:
  DefinitionTemplate template_;
  std::string text_;
  Make make_;
  mutable std::mutex mutex_;
  mutable size_t bytes_ = 0;  // Cost of the sets made
  mutable std::map<std::vector<int>, const DefinedPuzzleData*> members_;
  mutable std::vector<std::unique_ptr<DefinedPuzzleData>> owned_;
};

// What a registered definition holds; immutable.
struct DefinedPuzzleData {
  std::string name;      // as requests give it
  std::string file;      // the file's name when it was read ("slide32.tws")
  std::string text;      // the file as given: stored with the table (EncodeParams); with
                         // parameters, the example's only (the family's text())
  uint32_t text_crc32 = 0;
  Definition definition;
  CompiledMoves moves;
  // A complete table's index; searched with pattern tables, only its invariants
  // (DefinedIndex::Invariants: Indexable and Possible alone, size() 0).
  DefinedIndex index;
  std::string why_no_table;  // searched with pattern tables: why (for people)
  std::string table_entries;  // what a complete table's entries are, where not states
  std::string symmetry;  // a complete table's: its symmetry classes, or why it has none (for people)
  std::vector<int> inverse;  // each move's, or -1
  std::vector<DefinedState> goals;  // the definition's
  std::string compact_help;
  std::string example;  // the compact form of a state a few moves from the goal
  // A definition with parameters: its family (which owns every set's data but the
  // example's) and this set's values; null and empty for a definition without.
  const DefinedFamily* family = nullptr;
  std::vector<int> values;
  // What names each line of the definition the values made, which its line numbers
  // count (the template's line and the loop variables there: "27 (k=1, s=1)"); the
  // example's only.
  std::vector<std::string> line_names;
  std::string LineName(int line) const {
    if (line >= 1 && static_cast<size_t>(line) <= line_names.size()) return line_names[static_cast<size_t>(line) - 1];
    return std::to_string(line);
  }
  uint32_t stored_crc32 = 0;  // of StoredText()

  // What its table stores after the header: the text, after a line "parameters VALUES"
  // for a definition with parameters.
  std::string StoredText() const {
    return family == nullptr ? text
                             : Cat(kParametersLine, DefinitionTemplate::FormatValues(values), "\n", family->text());
  }
  static constexpr std::string_view kParametersLine = "parameters ";
  // Stored with the table (TableMetadata's parameters_fingerprint): StoredText()'s CRC-32.
  uint64_t Fingerprint() const { return stored_crc32; }
};

// `kMoves`: the bound on its moves, its model's (kMaxDefinedMoves, or kMaxGuidedMoves for a
// definition searched with pattern tables); S its state (DefinedStateIn).
template <int kMoves, class S>
class DefinedSpace {
 public:
  using State = S;
  static constexpr int kNumMoves = kMoves;

  explicit DefinedSpace(const DefinedPuzzleData* data) : data_(data) {}

  int move_count() const { return data_->moves.move_count(); }
  uint64_t Size() const { return data_->index.size(); }
  // REQUIRES: the state is indexable (DefinedModel::Project says so).
  uint64_t Rank(const State& s) const { return data_->index.Rank(s.bytes.data()); }
  State Unrank(uint64_t index) const {
    State s;
    data_->index.Unrank(index, s.bytes.data());
    return s;
  }
  bool Apply(const State& s, int move, State* out) const {
    return data_->moves.Apply(s.bytes.data(), move, out->bytes.data());
  }
  bool Undo(const State& s, int move, State* out) const {
    const CompiledMoves& moves = data_->moves;
    for (int b = moves.first_block(move); b < moves.first_block(move + 1); ++b) {
      State before;
      moves.Untransform(b, s.bytes.data(), before.bytes.data());
      if (moves.BlockAt(move, before.bytes.data()) == b && moves.Legal(before.bytes.data())) {
        *out = before;
        return true;
      }
    }
    return false;
  }
  std::vector<State> Goals() const {
    std::vector<State> goals;
    for (const DefinedState& goal : data_->goals) goals.push_back(StateOf<State>(goal));
    return goals;
  }

 private:
  const DefinedPuzzleData* data_;
};

template <TableEncodingKind E>
class DefinedModel {
 public:
  static constexpr int kNumMoves =
      E == TableEncodingKind::kPatternBound ? kMaxGuidedMoves : kMaxDefinedMoves;
  using Params = const DefinedPuzzleData*;
  using State = std::conditional_t<E == TableEncodingKind::kPatternBound, DefinedGuidedState, DefinedModelState>;
  using Space = DefinedSpace<kNumMoves, State>;
  struct Instance {
    Params params = nullptr;
    State state;
  };

  static constexpr int kMaxKeys = 1;
  static constexpr int kDefaultMaxMoves = 0;
  static constexpr TableEncodingKind kTableEncoding = E;
  // Without a table (refused, or not built yet), a definition is searched by IDA* with no
  // bound but the distance so far, within the caller's limits; with pattern tables, by
  // their live search.
  static constexpr LiveSearchKind kLiveSearch =
      E == TableEncodingKind::kPatternBound ? LiveSearchKind::kGuided : LiveSearchKind::kIdaStar;
  using Guide = DefinedGuide<DefinedModel>;
  static constexpr int kPerimeterRadius = 0;

  explicit DefinedModel(Params params) : params_(params), space_(params) {}

  const Params& params() const { return params_; }
  const Space& space() const { return space_; }

  // ---- what it is (RuntimeModelTexts)
  std::string_view name() const { return params_->name; }
  std::string_view title() const {
    return params_->definition.title().empty() ? std::string_view(params_->name)
                                               : std::string_view(params_->definition.title());
  }
  std::string_view compact_help() const { return params_->compact_help; }
  std::string_view example() const { return params_->example; }
  bool single_goal() const { return params_->goals.size() == 1; }
  // A definition with parameters: its cases carry their values, a table per set.
  bool has_parameters() const { return params_->family != nullptr; }
  std::string_view parameters_help() const {
    return "cases of the puzzle, one a line: the parameters' values, ';', and a state or nothing (the goal); the "
           "states are ignored";
  }
  int move_count() const { return params_->moves.move_count(); }
  int InverseMove(int move) const { return params_->inverse[static_cast<size_t>(move)]; }
  std::string_view definition() const { return params_->text; }
  BoardLayout Layout() const;

  // ---- moves and goals
  bool Apply(const State& s, int move, State* out) const { return space_.Apply(s, move, out); }
  bool IsGoal(const State& s) const { return params_->definition.IsGoal(s.bytes.data()); }
  std::vector<State> Goals() const { return space_.Goals(); }
  int LowerBound(const State& s) const { return IsGoal(s) ? 0 : 1; }
  bool ProvablyUnsolvable(const State& s) const { return !params_->index.Possible(s.bytes.data()); }
  // Uniform over the index (with symmetry classes, a class's member drawn in it too);
  // searched with pattern tables (no index), the goal after a random walk of kRandomWalk
  // moves, which is not uniform.
  static constexpr int kRandomWalk = 1000;
  State RandomState(std::mt19937_64& rng) const {
    if constexpr (E == TableEncodingKind::kPatternBound) {
      State s = StateOf<State>(params_->goals[0]), next;
      for (int made = 0, tried = 0; made < kRandomWalk && tried < 100 * kRandomWalk; ++tried) {
        if (Apply(s, static_cast<int>(rng() % static_cast<uint64_t>(move_count())), &next)) {
          s = next;
          ++made;
        }
      }
      return s;
    } else {
      const uint64_t rank = std::uniform_int_distribution<uint64_t>(0, space_.Size() - 1)(rng);
      const DefinedIndex& index = params_->index;
      if (!index.symmetric()) return space_.Unrank(rank);
      return ClassMember(rank, static_cast<int>(rng() % static_cast<uint64_t>(index.ClassSize(rank))));
    }
  }

  // ---- symmetry classes (core/table/state_classes.h): a complete table's index of layout 4
  int ClassOrder() const { return params_->index.group_order(); }
  std::vector<std::pair<uint64_t, int>> SmallClasses() const { return params_->index.SmallClasses(); }
  State ClassMember(uint64_t rank, int j) const {
    State s;
    params_->index.ClassMember(rank, j, s.bytes.data());
    return s;
  }
  int ClassImage(const State& s) const { return params_->index.ImageOf(s.bytes.data()); }
  // What a table's entries stand for, where they are not states (empty otherwise).
  std::string_view TableEntries() const { return params_->table_entries; }
  int Project(const State& s, std::array<uint64_t, kMaxKeys>* keys) const {
    if constexpr (E == TableEncodingKind::kPatternBound) return 0;  // no complete table
    // The invariants checked in the rank's own pass (a state reached by moves keeps them; a
    // position given may not).
    return params_->index.RankIfIndexable(s.bytes.data(), &(*keys)[0]) ? 1 : 0;
  }
  // A state a move made from one of the table's: its number without the checks (every
  // invariant the index reads is one the moves keep).
  int ProjectReached(const State& s, std::array<uint64_t, kMaxKeys>* keys) const {
    if constexpr (E == TableEncodingKind::kPatternBound) return 0;  // no complete table
    (*keys)[0] = params_->index.Rank(s.bytes.data());
    return 1;
  }
  std::string MoveName(const State&, int move) const {
    return params_->definition.moves()[static_cast<size_t>(move)].name;
  }

  // ---- its own search (core/table/table_builder.h, HasOwnSearch)
  absl::StatusOr<OwnSearch> SearchTable(const BfsOptions& options, bool exact) const {
    DefinedSearchOptions search;
    search.threads = options.threads;
    search.on_layer = options.on_layer;
    // A byte a state when the model reads bytes, whatever its moves allow (a table stored
    // so before guarded moves with their ways back took 2 bits, built again).
    search.exact = exact || E == TableEncodingKind::kDistanceByte;
    auto result = SearchDefinition(params_->definition, params_->moves, params_->index, search);
    if (!result.ok()) return result.status();
    return OwnSearch{std::move(result->entries), std::move(result->histogram), result->seconds};
  }

  // ---- texts
  static absl::StatusOr<Instance> ParseCompact(Params params, std::string_view text);
  static std::vector<ParsedCase<Instance>> ParseOriginal(Params params, std::string_view text);
  static std::string FormatCompact(const Instance& instance);
  static std::string FormatOriginal(const std::vector<Instance>& instances);
  static std::string FormatOriginalAnswer(const Instance& instance, const DefinedModel& model,
                                          const Solution& solution);
  static std::string Draw(const Instance& now, const Instance* before);
  static std::vector<int> Cells(const Instance& instance);
  static absl::StatusOr<Instance> FromCells(const Instance& base, std::span<const int> cells);

  // ---- tables: one per definition, named after it (and, with parameters, one per set of
  // values: the name, '-' and 16 hex digits of the values' fingerprint); the definition's
  // text is its parameters, so that a table built from another file of the same name is
  // refused.
  static std::string TableId(Params params);
  static std::string EncodeParams(Params params) {
    return Cat(DefinitionHeader(params->index.layout()), params->StoredText());
  }
  static std::string DescribeParams(Params params);
  static absl::StatusOr<Params> DecodeParams(Params base, std::string_view bytes);

 private:
  Params params_;
  Space space_;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_DEFINED_DEFINED_MODEL_H_
