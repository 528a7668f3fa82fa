// The runtime puzzle (core/puzzle.h) of a model: every operation written once, as a
// template over the PuzzleModel concept, and compiled in the model's own translation unit,
// which registers it there (PUZZLEDB_REGISTER_PUZZLE, at the end of knight.cc and the
// others; a definition's, core/defined/defined_puzzle.cc, for each definition read). Only a
// model's .cc includes this header.
#ifndef PUZZLEDB_CORE_PUZZLES_MODEL_PUZZLE_H_
#define PUZZLEDB_CORE_PUZZLES_MODEL_PUZZLE_H_

#include <array>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/model.h"
#include "core/puzzle.h"
#include "core/solver.h"
#include "core/solver_templates.h"
#include "core/table/table_builder.h"

namespace puzzledb {

template <PuzzleModel P>
class ModelPuzzle final : public Puzzle {
  // Tables that only bound a search and the search they guide come together, from the
  // model's Guide (core/model/model.h).
  static_assert((P::kLiveSearch == LiveSearchKind::kGuided) ==
                    (P::kTableEncoding == TableEncodingKind::kPatternBound),
                "kGuided and kPatternBound go together: a model with either names a Guide");

 public:
  using Instance = typename P::Instance;
  using Params = typename P::Params;
  static constexpr bool kStatic = StaticModelTexts<P>;

  // `params`: a model known at run time (a definition) is one puzzle per parameters, which
  // say what it is; a model written in C++ takes none.
  explicit ModelPuzzle(Params params = {}) : model_(params) {}

  std::string_view name() const override { return ModelName(model_); }
  std::string_view title() const override {
    if constexpr (kStatic) {
      return P::kTitle;
    } else {
      return model_.title();
    }
  }
  int move_count() const override { return MoveCount(model_); }
  int default_max_moves() const override { return P::kDefaultMaxMoves; }
  bool has_parameters() const override {
    if constexpr (kStatic) {
      return HasParams<P>;
    } else if constexpr (requires { model_.has_parameters(); }) {
      return model_.has_parameters();  // a definition with parameters
    } else {
      return false;
    }
  }
  bool single_goal() const override {
    if constexpr (kStatic) {
      return P::kSingleGoal;
    } else {
      return model_.single_goal();
    }
  }
  bool pattern_tables() const override {
    return P::kTableEncoding == TableEncodingKind::kPatternBound;
  }
  std::string_view definition() const override {
    if constexpr (requires { model_.definition(); }) {
      return model_.definition();
    } else {
      return {};
    }
  }
  const void* identity() const override {
    if constexpr (std::is_pointer_v<typename P::Params>) {
      return model_.params();  // made at run time from what its parameters point to
    } else {
      return nullptr;
    }
  }
  std::string_view table_entries() const override {
    if constexpr (P::kTableEncoding == TableEncodingKind::kPatternBound) {
      return "pattern tables of groups of pieces, bounds rather than distances";
    } else if constexpr (requires { model_.TableEntries(); }) {
      return model_.TableEntries();
    } else if constexpr (requires { P::Space::kMirrorQuotient; }) {
      return "positions up to their mirror image, one entry for each such pair";
    } else if constexpr (P::kMaxKeys > 1 || !std::is_same_v<typename P::Space::State, typename P::State>) {
      return "placements of a part of the puzzle, from which a position's distance is found";
    } else {
      return {};
    }
  }
  std::string_view parameters_flag() const override {
    if constexpr (requires { P::kParamsFlag; }) {
      return P::kParamsFlag;
    } else {
      return {};
    }
  }
  std::string_view parameters_help() const override {
    if constexpr (requires { P::kParamsHelp; }) {
      return P::kParamsHelp;
    } else if constexpr (requires { model_.parameters_help(); }) {
      return model_.has_parameters() ? model_.parameters_help() : std::string_view();
    } else {
      return {};
    }
  }

  absl::StatusOr<Position> ParseCompact(std::string_view text) const override {
    auto instance = Parse(text);
    if (!instance.ok()) return instance.status();
    return Of(*instance);
  }
  std::string FormatCompact(const Position& position) const override {
    return P::FormatCompact(In(position));
  }
  std::vector<ParsedCase<Position>> ParseOriginal(std::string_view text) const override {
    std::vector<ParsedCase<Position>> cases;
    std::vector<ParsedCase<Instance>> read;
    if constexpr (kStatic) {
      read = P::ParseOriginal(text);
    } else {
      read = P::ParseOriginal(model_.params(), text);
    }
    for (auto& parsed : read) {
      ParsedCase<Position>& one = cases.emplace_back();
      one.number = parsed.number;
      one.line = parsed.line;
      if (parsed.instance.ok()) {
        one.instance = Of(*parsed.instance);
      } else {
        one.instance = parsed.instance.status();
      }
    }
    return cases;
  }
  std::vector<ParsedCase<Position>> ParseScrambles(std::string_view text) const override {
    std::vector<ParsedCase<Position>> cases;
    const InputLines lines(text);
    for (int at = 1; at <= lines.count(); ++at) {
      ParsedCase<Position>& one = cases.emplace_back();
      one.number = at;
      one.line = at;
      one.instance = ParseScramble(lines.line(at));
      if (!one.instance.ok()) {
        one.instance = InputError(at, at, Cat(Message(one.instance.status()), ": ",
                                              QuoteInput(lines.line(at))));
      }
    }
    if (cases.empty()) {
      cases.push_back({1, 1, InputError(0, 1, "the input is empty; each line is a sequence of "
                                              "moves from the goal (an empty line: the goal)")});
    }
    return cases;
  }
  std::string FormatOriginal(std::span<const Position> positions) const override {
    std::vector<Instance> instances;
    instances.reserve(positions.size());
    for (const Position& position : positions) instances.push_back(In(position));
    return P::FormatOriginal(instances);
  }
  std::string FormatOriginalAnswer(const Position& position,
                                   const Solution& solution) const override {
    const Instance& instance = In(position);
    return P::FormatOriginalAnswer(instance, P(instance.params), solution);
  }
  std::string Draw(const Position& now, const Position* before) const override {
    if (before == nullptr) return P::Draw(In(now), nullptr);
    const Instance& was = In(*before);
    return P::Draw(In(now), &was);
  }

  std::string_view compact_help() const override {
    if constexpr (kStatic) {
      return P::kCompactHelp;
    } else {
      return model_.compact_help();
    }
  }
  Position Example() const override {
    std::string_view text;
    if constexpr (kStatic) {
      text = P::kExample;
    } else {
      text = model_.example();
    }
    auto example = Parse(text);
    return Of(example.ok() ? *example : Instance{model_.params(), model_.Goals()[0]});
  }
  const BoardLayout& layout() const override {
    if constexpr (kStatic) {
      static const BoardLayout layout = P::Layout();
      return layout;
    } else {
      std::call_once(layout_once_, [this] { layout_ = model_.Layout(); });
      return layout_;
    }
  }
  std::vector<int> Cells(const Position& position) const override {
    return P::Cells(In(position));
  }
  absl::StatusOr<Position> FromCells(const Position& base,
                                     std::span<const int> cells) const override {
    const BoardLayout& board = layout();
    if (cells.size() != board.cells.size()) {
      return absl::InvalidArgumentError(Cat("cells: the ", name(), " puzzle has ",
                                            board.cells.size(), " cells, got ", cells.size()));
    }
    for (size_t i = 0; i < cells.size(); ++i) {
      bool known = false;
      for (const BoardLayout::Symbol& symbol : board.symbols) known |= symbol.value == cells[i];
      if (!known) {
        return absl::InvalidArgumentError(Cat("cells[", i, "] (", board.cells[i].name,
                                              "): ", cells[i], " is not a value of this puzzle"));
      }
    }
    auto instance = P::FromCells(In(base), cells);
    if (!instance.ok()) {
      return absl::InvalidArgumentError(Cat("cells: ", Message(instance.status())));
    }
    return Of(*instance);
  }

  std::string TableId(const Position& position) const override {
    return P::TableId(In(position).params);
  }
  bool SameParameters(const Position& a, const Position& b) const override {
    return In(a).params == In(b).params;
  }
  absl::StatusOr<Position> GoalOfStoredParameters(std::string_view bytes) const override {
    auto params = DecodeParamsOf<P>(model_.params(), bytes);
    if (!params.ok()) return params.status();
    const P model(*params);
    return Of(Instance{*params, model.Goals()[0]});
  }
  // A goal, a random state and a sample keep the rest of the instance they are asked from
  // (its parameters, and how it is shown: a cube's colours).
  Position Goal(const Position* parameters) const override {
    if (parameters == nullptr) return Of(Instance{model_.params(), model_.Goals()[0]});
    Instance goal = In(*parameters);
    goal.state = P(goal.params).Goals()[0];
    return Of(goal);
  }
  Position Random(const Position& parameters, std::mt19937_64& rng) const override {
    Instance random = In(parameters);
    random.state = P(random.params).RandomState(rng);
    return Of(random);
  }

  bool Apply(const Position& position, int move, Position* out) const override {
    const Instance& instance = In(position);
    if (move < 0 || move >= MoveCount(model_)) return false;
    Instance next = instance;
    if (!P(instance.params).Apply(instance.state, move, &next.state)) return false;
    *out = Of(next);
    return true;
  }
  std::string MoveName(const Position& position, int move) const override {
    const Instance& instance = In(position);
    return P(instance.params).MoveName(instance.state, move);
  }
  Position Replay(const Position& start, std::span<const uint8_t> moves,
                  std::vector<std::string>* names) const override {
    Instance instance = In(start);
    const P model(instance.params);
    if (names != nullptr) names->reserve(names->size() + moves.size());
    for (const uint8_t m : moves) {
      if (names != nullptr) names->push_back(model.MoveName(instance.state, m));
      typename P::State next;
      model.Apply(instance.state, m, &next);
      instance.state = next;
    }
    return Of(instance);
  }
  bool IsGoal(const Position& position) const override {
    const Instance& instance = In(position);
    return P(instance.params).IsGoal(instance.state);
  }

  absl::Status SelfCheck(const Position& position) const override {
    const Instance& instance = In(position);
    const std::string compact = P::FormatCompact(instance);
    auto again = Parse(compact);
    if (!again.ok() || !(again->state == instance.state) || !(again->params == instance.params)) {
      return absl::InternalError(Cat("the compact form ", compact, " does not read back"));
    }
    const P model(instance.params);
    std::array<uint64_t, P::kMaxKeys> keys;
    const int n = model.Project(instance.state, &keys);
    for (int i = 0; i < n; ++i) {
      if (keys[i] >= model.space().Size()) {
        return absl::InternalError(Cat("key ", keys[i], " of ", compact, " is outside the space"));
      }
      if (model.space().Rank(model.space().Unrank(keys[i])) != keys[i]) {
        return absl::InternalError(Cat("key ", keys[i], " of ", compact, " does not rank back"));
      }
    }
    const int bound = model.LowerBound(instance.state);
    if (bound < 0 || (model.IsGoal(instance.state) && bound != 0)) {
      return absl::InternalError(Cat("the lower bound of ", compact, " is ", bound));
    }
    return absl::OkStatus();
  }

  TableStep FromTables(Solver& solver, const Position& position, int max_moves) const override {
    const Instance& instance = In(position);
    return solver.FromTables(P(instance.params), instance, max_moves);
  }
  void FromTablesMany(Solver& solver, std::span<const Position> positions,
                      std::span<const int> max_moves, std::span<TableStep> steps) const override {
    if (positions.empty()) return;
    std::vector<Instance> instances;
    instances.reserve(positions.size());
    for (const Position& position : positions) instances.push_back(In(position));
    solver.FromTablesMany(P(instances[0].params), std::span<const Instance>(instances),
                          max_moves, steps);
  }
  absl::StatusOr<Solution> Search(Solver& solver, const Position& position,
                                  const TableStep& step,
                                  const SearchLimits& limits) const override {
    const Instance& instance = In(position);
    return solver.Search(P(instance.params), instance, step, limits);
  }
  AnalysisStep AnalyzeFromTables(Solver& solver, const Position& position, int max_moves,
                                 bool use_tables) const override {
    const Instance& instance = In(position);
    return solver.AnalyzeFromTables(P(instance.params), instance, max_moves, use_tables);
  }
  absl::StatusOr<Analysis> AnalyzeSearch(Solver& solver, const Position& position,
                                         AnalysisStep step,
                                         const SearchLimits& limits) const override {
    const Instance& instance = In(position);
    return solver.AnalyzeSearch(P(instance.params), instance, std::move(step), limits);
  }
  absl::StatusOr<PositionSample> Sample(Solver& solver, const Position& parameters, int distance,
                                        uint64_t count, uint64_t seed,
                                        const SearchLimits& limits) const override {
    const typename P::Params& params = In(parameters).params;
    auto sample = solver.Sample(P(params), distance, count, seed, limits);
    if (!sample.ok()) return sample.status();
    PositionSample out;
    out.distance = sample->distance;
    out.population = sample->population;
    out.positions.reserve(sample->states.size());
    for (auto& state : sample->states) {
      Instance one = In(parameters);
      one.state = std::move(state);
      out.positions.push_back(Of(std::move(one)));
    }
    out.table_id = sample->table.table_id();
    out.table_generation = sample->table.generation();
    out.table_crc32 = sample->table.content_crc32();
    return out;
  }
  absl::StatusOr<OptimalPaths> Optimal(const Solver& solver, const Position& position,
                                       const TableStep& step, size_t list,
                                       const SearchLimits& limits) const override {
    return solver.Optimal<P>(In(position), step, list, limits);
  }
  void Prepare(Solver& solver, const Position& position) const override {
    solver.Prepare<P>(In(position).params);
  }
  bool Load(Solver& solver, const TableMetadata& table) const override {
    return solver.Load<P>(table, model_.params());
  }
  uint64_t TableSize(const Position& parameters) const override {
    return P(In(parameters).params).space().Size();
  }
  absl::StatusOr<TableMetadata> Build(const Position& parameters, TableStore& store,
                                      const BuildOptions& options) const override {
    if constexpr (P::kTableEncoding == TableEncodingKind::kPatternBound) {
      const Params& params = In(parameters).params;
      return P::Guide::Build(params, P::Guide::Sets(params)[0], store, options);
    } else {
      return BuildTable(P(In(parameters).params), store, options);
    }
  }
  std::vector<std::string_view> pattern_sets() const override {
    if constexpr (P::kTableEncoding == TableEncodingKind::kPatternBound) {
      return P::Guide::Sets(model_.params());
    } else {
      return {};
    }
  }
  absl::StatusOr<TableMetadata> BuildPatterns(std::string_view set, TableStore& store,
                                              const BuildOptions& options) const override {
    if constexpr (P::kTableEncoding == TableEncodingKind::kPatternBound) {
      return P::Guide::Build(model_.params(), set, store, options);
    } else {
      return absl::FailedPreconditionError(Cat("the ", name(), " puzzle has no pattern tables"));
    }
  }
  absl::Status Verify(TableStore& store, const TableMetadata& m, int threads) const override {
    if constexpr (P::kTableEncoding == TableEncodingKind::kPatternBound) {
      auto table = store.Load(m.table_id());
      return table.ok() ? P::Guide::Verify(model_.params(), **table, threads) : table.status();
    } else {
      auto params = DecodeParamsOf<P>(model_.params(), m.parameters());
      if (!params.ok()) {
        return absl::DataLossError(Cat("table ", m.table_id(), ": unreadable parameters: ",
                                       Message(params.status())));
      }
      if (P::TableId(*params) != m.table_id()) {
        return absl::DataLossError(Cat("table ", m.table_id(), ": its parameters name table ",
                                       P::TableId(*params)));
      }
      auto table = store.Load(m.table_id());
      if (!table.ok()) return table.status();
      // A residue table's band pages are checked against the same search.
      std::optional<HugeBuffer> exact;
      if (m.band_page_count() > 0) {
        auto loaded = store.LoadExactDistances(**table);
        if (!loaded.ok()) return loaded.status();
        exact = std::move(*loaded);
      }
      return VerifyTable(P(*params), **table, threads, exact ? &*exact : nullptr);
    }
  }

  // The parameters it was made with (a definition's: what was read).
  const Params& params() const { return model_.params(); }
  // The position of `instance` (this puzzle's).
  Position Of(const Instance& instance) const { return Position(*this, instance); }
  // The instance of a position of this puzzle.
  static const Instance& In(const Position& position) { return position.As<Instance>(); }

  // The goal after the moves named in `line`, each the first move of that name there that
  // applies.
  absl::StatusOr<Position> ParseScramble(std::string_view line) const override {
    if (has_parameters()) {
      return absl::InvalidArgumentError(
          Cat("the ", name(), " puzzle's cases carry parameters: give them in its original "
                              "input, not as moves"));
    }
    Instance instance{model_.params(), model_.Goals()[0]};
    int number = 0;
    constexpr std::string_view kSpace = " \t\r\n";
    for (size_t at = line.find_first_not_of(kSpace); at != std::string_view::npos;
         at = line.find_first_not_of(kSpace, at)) {
      const std::string_view token = line.substr(at, line.find_first_of(kSpace, at) - at);
      at += token.size();
      if (++number > kMaxScrambleMoves) {
        return absl::InvalidArgumentError(
            Cat("more than ", kMaxScrambleMoves, " moves; give at most ", kMaxScrambleMoves));
      }
      bool named = false, made = false;
      for (int m = 0; m < MoveCount(model_) && !made; ++m) {
        if (model_.MoveName(instance.state, m) != token) continue;
        named = true;
        typename P::State next;
        if (model_.Apply(instance.state, m, &next)) {
          instance.state = next;
          made = true;
        }
      }
      if (!made) {
        std::vector<std::string> names;
        bool any = false;  // whether some move applies there
        for (int m = 0; m < MoveCount(model_); ++m) {
          names.push_back(model_.MoveName(instance.state, m));
          typename P::State next;
          any = any || model_.Apply(instance.state, m, &next);
        }
        // At the goal of a puzzle whose moves only lead towards it, no sequence starts.
        const std::string one_way =
            number == 1 && !any ? Cat(" (no move applies at the goal, where a sequence starts: the ", name(),
                                      " puzzle's moves lead only towards it; give the position in "
                                      "its compact form)")
                                : "";
        return absl::InvalidArgumentError(
            named ? Cat("move ", number, ": ", QuoteInput(token), " does not apply there", one_way)
                  : Cat("move ", number, ": ", QuoteInput(token), " is no move of the ", name(),
                        " puzzle there (its moves: ", Join(names, " "), ")"));
      }
    }
    return Of(instance);
  }

 private:
  absl::StatusOr<Instance> Parse(std::string_view text) const {
    if constexpr (kStatic) {
      return P::ParseCompact(text);
    } else {
      return P::ParseCompact(model_.params(), text);
    }
  }

  const P model_;  // of its parameters: what a model known at run time says of itself
  mutable std::once_flag layout_once_;
  mutable BoardLayout layout_;
};

// Compiles every template of the model here (PUZZLEDB_INSTANTIATE_MODEL), and gives the
// registry (core/puzzles/registry.cc) the model's puzzle: `PUZZLEDB_REGISTER_PUZZLE(
// KnightPuzzle)` in knight.cc defines `const Puzzle& RegisteredKnightPuzzle()`.
#define PUZZLEDB_INSTANTIATE_MODEL(P)                                                        \
  template class ModelPuzzle<P>;                                                             \
  template absl::StatusOr<Solution> Solver::Solve<P>(const P::Instance&, const SolveOptions&); \
  template TableStep Solver::FromTables<P>(const P&, const P::Instance&, int);                 \
  template void Solver::FromTablesMany<P>(const P&, std::span<const P::Instance>,              \
                                          std::span<const int>, std::span<TableStep>);         \
  template absl::StatusOr<Solution> Solver::Search<P>(const P&, const P::Instance&,            \
                                                      const TableStep&, const SearchLimits&);  \
  template absl::StatusOr<Analysis> Solver::Analyze<P>(const P::Instance&, const SolveOptions&); \
  template AnalysisStep Solver::AnalyzeFromTables<P>(const P&, const P::Instance&, int, bool); \
  template absl::StatusOr<Analysis> Solver::AnalyzeSearch<P>(const P&, const P::Instance&,     \
                                                             AnalysisStep, const SearchLimits&); \
  template absl::StatusOr<Sample<P>> Solver::Sample<P>(const P&, int, uint64_t, uint64_t,      \
                                                       const SearchLimits&);                   \
  template absl::StatusOr<OptimalPaths> Solver::Optimal<P>(                                    \
      const P::Instance&, const TableStep&, size_t, const SearchLimits&) const;                \
  template void Solver::Prepare<P>(const P::Params&);                                          \
  template bool Solver::Load<P>(const TableMetadata&, const P::Params&);

#define PUZZLEDB_REGISTER_PUZZLE(P)                                                          \
  PUZZLEDB_INSTANTIATE_MODEL(P)                                                              \
  const Puzzle& Registered##P() {                                                              \
    static const ModelPuzzle<P> puzzle;                                                        \
    return puzzle;                                                                             \
  }

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_PUZZLES_MODEL_PUZZLE_H_
