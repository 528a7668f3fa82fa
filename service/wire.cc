#include "service/wire.h"

#include <array>

#include "core/puzzles/eight.h"
#include "core/puzzles/fifteen.h"
#include "core/puzzles/knight.h"
#include "core/puzzles/knobs.h"
#include "core/puzzles/rotation.h"
#include "core/util/strings.h"
#include "service/json.h"

namespace puzzledb {
namespace {

absl::Status FieldError(std::string_view field, const absl::Status& status) {
  return absl::InvalidArgumentError(Cat(field, ": ", Message(status)));
}

absl::Status NoPuzzle() {
  return absl::InvalidArgumentError(
      Cat("puzzle: no puzzle given; set name (one of ", PuzzleNames(", "),
          ") and state, or a typed message"));
}

// ---- the typed messages of the first API version: the one place that names puzzles
// outside core/ (docs/API.md, "Two forms of a puzzle").

// The registered puzzle of a model.
template <PuzzleModel P>
const Puzzle& PuzzleOf() {
  static const Puzzle& puzzle = *FindPuzzle(P::kName);
  return puzzle;
}

template <PuzzleModel P>
Position PositionOf(const typename P::Instance& instance) {
  return Position(PuzzleOf<P>(), instance);
}

absl::StatusOr<Position> KnightFromWire(const v1::KnightBoard& knight) {
  auto board = KnightPuzzle::BoardFromCells(knight.board());
  if (!board.ok()) return FieldError("puzzle.knight.board", board.status());
  return PositionOf<KnightPuzzle>({{}, *board});
}

absl::StatusOr<KnobsWiring> KnobsWiringFromWire(const v1::KnobsState& knobs) {
  auto wiring = KnobsWiring::FromNumbers({knobs.wiring().begin(), knobs.wiring().end()});
  if (!wiring.ok()) return FieldError("puzzle.knobs.wiring", wiring.status());
  return *wiring;
}

absl::StatusOr<Position> KnobsFromWire(const v1::KnobsState& knobs) {
  auto state = KnobsPuzzle::StateFromNumbers({knobs.positions().begin(), knobs.positions().end()});
  if (!state.ok()) return FieldError("puzzle.knobs.positions", state.status());
  auto wiring = KnobsWiringFromWire(knobs);
  if (!wiring.ok()) return wiring.status();
  return PositionOf<KnobsPuzzle>({*wiring, *state});
}

absl::StatusOr<Position> RotationFromWire(const v1::RotationBoard& rotation) {
  const auto& cells = rotation.cells();
  auto board = RotationPuzzle::BoardFromValues({cells.begin(), cells.end()});
  if (!board.ok()) return FieldError("puzzle.rotation.cells", board.status());
  return PositionOf<RotationPuzzle>({{}, *board});
}

absl::StatusOr<Position> EightFromWire(const v1::EightBoard& eight) {
  auto board = EightPuzzle::BoardFromDigits(eight.board());
  if (!board.ok()) return FieldError("puzzle.eight.board", board.status());
  return PositionOf<EightPuzzle>({{}, *board});
}

absl::StatusOr<Position> FifteenFromWire(const v1::FifteenBoard& fifteen) {
  const auto& cells = fifteen.cells();
  if (cells.size() != FifteenPuzzle::kCells) {
    return absl::InvalidArgumentError(
        Cat("puzzle.fifteen.cells: a board has 16 cells, got ", cells.size()));
  }
  std::array<int, FifteenPuzzle::kCells> values{};
  for (int cell = 0; cell < FifteenPuzzle::kCells; ++cell) {
    if (cells[cell] > 15) {
      return absl::InvalidArgumentError(Cat("puzzle.fifteen.cells: cell ", cell + 1, " holds ",
                                            cells[cell], "; a cell holds 0..15 (0: the empty place)"));
    }
    values[cell] = static_cast<int>(cells[cell]);
  }
  auto board = FifteenPuzzle::BoardFromCells(values);
  if (!board.ok()) return FieldError("puzzle.fifteen.cells", board.status());
  return PositionOf<FifteenPuzzle>({{}, *board});
}

absl::StatusOr<Position> TypedFromWire(const v1::Puzzle& puzzle) {
  switch (puzzle.kind_case()) {
    case v1::Puzzle::kKnight:
      return KnightFromWire(puzzle.knight());
    case v1::Puzzle::kKnobs:
      return KnobsFromWire(puzzle.knobs());
    case v1::Puzzle::kRotation:
      return RotationFromWire(puzzle.rotation());
    case v1::Puzzle::kEight:
      return EightFromWire(puzzle.eight());
    case v1::Puzzle::kFifteen:
      return FifteenFromWire(puzzle.fifteen());
    case v1::Puzzle::KIND_NOT_SET:
      break;
  }
  return NoPuzzle();
}

// The typed message of a position; false for a puzzle that has none.
bool TypedToWire(const Position& position, v1::Puzzle* out) {
  const std::string_view name = position.puzzle()->name();
  if (name == KnightPuzzle::kName) {
    out->mutable_knight()->set_board(
        KnightPuzzle::FormatCompact(position.As<KnightPuzzle::Instance>()));
  } else if (name == KnobsPuzzle::kName) {
    const auto& instance = position.As<KnobsPuzzle::Instance>();
    auto* knobs = out->mutable_knobs();
    knobs->clear_positions();
    knobs->clear_wiring();
    for (int knob = 0; knob < KnobsPuzzle::kKnobs; ++knob) {
      knobs->add_positions(static_cast<uint32_t>(KnobsPuzzle::Knob(instance.state, knob)) + 1);
    }
    for (uint32_t t : instance.params.ToNumbers()) knobs->add_wiring(t);
  } else if (name == RotationPuzzle::kName) {
    const auto& instance = position.As<RotationPuzzle::Instance>();
    auto* rotation = out->mutable_rotation();
    rotation->clear_cells();
    for (int cell = 0; cell < RotationPuzzle::kCells; ++cell) {
      rotation->add_cells(static_cast<uint32_t>(instance.state.Value(cell)));
    }
  } else if (name == EightPuzzle::kName) {
    out->mutable_eight()->set_board(
        EightPuzzle::FormatCompact(position.As<EightPuzzle::Instance>()));
  } else if (name == FifteenPuzzle::kName) {
    const auto& instance = position.As<FifteenPuzzle::Instance>();
    auto* fifteen = out->mutable_fifteen();
    fifteen->clear_cells();
    for (int cell = 0; cell < FifteenPuzzle::kCells; ++cell) {
      fifteen->add_cells(static_cast<uint32_t>(instance.state.Tile(cell)));
    }
  } else {
    return false;
  }
  return true;
}

// The parameters of a typed message, its state ignored.
absl::StatusOr<Position> TypedParametersFromWire(const v1::Puzzle& puzzle) {
  if (puzzle.has_knobs()) {
    auto wiring = KnobsWiringFromWire(puzzle.knobs());
    if (!wiring.ok()) return wiring.status();
    return PositionOf<KnobsPuzzle>({*wiring, 0});
  }
  const Puzzle* found = FindPuzzle(WirePuzzleName(puzzle));
  if (found == nullptr) return NoPuzzle();
  return found->Goal(nullptr);
}

// ---- the generic form

absl::StatusOr<const Puzzle*> NamedPuzzle(const v1::Puzzle& puzzle) {
  if (puzzle.kind_case() != v1::Puzzle::KIND_NOT_SET) {
    return absl::InvalidArgumentError(
        Cat("puzzle: both a typed message (", WirePuzzleName(puzzle),
            ") and a name are given; give one form"));
  }
  const Puzzle* found = FindPuzzle(puzzle.name());
  if (found == nullptr) {
    return absl::InvalidArgumentError(Cat("puzzle.name: ", UnknownPuzzleText(puzzle.name()),
                                          "; use one of ", PuzzleNames(", ")));
  }
  return found;
}

// The position of a generic message's `scramble` (given instead of its state).
absl::StatusOr<Position> ScrambleFromWire(const Puzzle& found, const v1::Puzzle& puzzle) {
  if (!puzzle.state().empty()) {
    return absl::InvalidArgumentError(
        "puzzle: both a state and a scramble are given; give one of them");
  }
  auto position = found.ParseScramble(puzzle.scramble());
  if (!position.ok()) return FieldError("puzzle.scramble", position.status());
  return position;
}

}  // namespace

std::string_view WirePuzzleName(const v1::Puzzle& puzzle) {
  switch (puzzle.kind_case()) {
    case v1::Puzzle::kKnight:
      return KnightPuzzle::kName;
    case v1::Puzzle::kKnobs:
      return KnobsPuzzle::kName;
    case v1::Puzzle::kRotation:
      return RotationPuzzle::kName;
    case v1::Puzzle::kEight:
      return EightPuzzle::kName;
    case v1::Puzzle::kFifteen:
      return FifteenPuzzle::kName;
    case v1::Puzzle::KIND_NOT_SET:
      break;
  }
  return puzzle.name();
}

bool IsTypedWire(const v1::Puzzle& puzzle) {
  return puzzle.kind_case() != v1::Puzzle::KIND_NOT_SET;
}

absl::StatusOr<Position> PositionFromWire(const v1::Puzzle& puzzle) {
  if (puzzle.name().empty()) {
    if (!puzzle.state().empty() || puzzle.has_scramble()) {
      return absl::InvalidArgumentError(
          Cat("puzzle.name: missing; name the puzzle of the ",
              puzzle.has_scramble() ? "scramble" : "state"));
    }
    return TypedFromWire(puzzle);
  }
  auto found = NamedPuzzle(puzzle);
  if (!found.ok()) return found.status();
  if (puzzle.has_scramble()) return ScrambleFromWire(**found, puzzle);
  auto position = (*found)->ParseCompact(puzzle.state());
  if (!position.ok()) return FieldError("puzzle.state", position.status());
  return position;
}

absl::StatusOr<Position> ParametersFromWire(const v1::Puzzle& puzzle) {
  if (puzzle.name().empty()) {
    if (puzzle.has_scramble()) {
      return absl::InvalidArgumentError("puzzle.name: missing; name the puzzle of the scramble");
    }
    return TypedParametersFromWire(puzzle);
  }
  auto found = NamedPuzzle(puzzle);
  if (!found.ok()) return found.status();
  if (puzzle.has_scramble()) return ScrambleFromWire(**found, puzzle);
  if (puzzle.state().empty()) {
    if ((*found)->has_parameters()) {
      return absl::InvalidArgumentError(
          Cat("puzzle.state: missing; the ", (*found)->name(),
              " puzzle has parameters, and a state gives them (any state under them will do)"));
    }
    return (*found)->Goal(nullptr);
  }
  auto position = (*found)->ParseCompact(puzzle.state());
  if (!position.ok()) return FieldError("puzzle.state", position.status());
  return position;
}

void PositionToWire(const Position& position, bool typed, v1::Puzzle* out) {
  out->Clear();
  if (typed && TypedToWire(position, out)) return;
  out->set_name(std::string(position.puzzle()->name()));
  out->set_state(position.puzzle()->FormatCompact(position));
}

std::string TableIdFromWire(const v1::Puzzle& puzzle) {
  const Puzzle* found = FindPuzzle(WirePuzzleName(puzzle));
  if (found == nullptr) return "";
  auto params = ParametersFromWire(puzzle);
  return params.ok() ? found->TableId(*params) : std::string(found->name());
}

void TableParamsToWire(std::string_view puzzle, std::string_view params, v1::TableInfo* out) {
  const Puzzle* found = FindPuzzle(puzzle);
  if (found == nullptr || !found->has_parameters()) return;
  auto goal = found->GoalOfStoredParameters(params);
  if (!goal.ok()) return;  // the table's status says why
  PositionToWire(*goal, /*typed=*/true, out->mutable_parameters_puzzle());
  // The knobs' wiring also where clients before parameters_puzzle read it.
  if (out->parameters_puzzle().has_knobs()) {
    for (uint32_t n : out->parameters_puzzle().knobs().wiring()) out->add_wiring(n);
  }
}

void DescribePuzzle(const Puzzle& puzzle, v1::PuzzleInfo* out) {
  out->set_name(std::string(puzzle.name()));
  out->set_title(std::string(puzzle.title()));
  out->set_compact_form(std::string(puzzle.compact_help()));
  const Position example = puzzle.Example();
  out->set_example(puzzle.FormatCompact(example));
  out->set_goal(puzzle.FormatCompact(puzzle.Goal(&example)));
  for (int m = 0; m < puzzle.move_count(); ++m) out->add_move_names(puzzle.MoveName(example, m));
  out->set_has_parameters(puzzle.has_parameters());
  out->set_parameters(std::string(puzzle.parameters_help()));
  out->set_pattern_tables(puzzle.pattern_tables());
  out->set_default_max_moves(static_cast<uint32_t>(puzzle.default_max_moves()));
  out->set_single_goal(puzzle.single_goal());
  out->set_definition(std::string(puzzle.definition()));
  if (!puzzle.definition().empty()) out->set_definition_reading(kDefinitionReading);
  const BoardLayout& layout = puzzle.layout();
  v1::BoardLayout* board = out->mutable_layout();
  board->set_width(layout.width);
  board->set_height(layout.height);
  for (const BoardLayout::Cell& cell : layout.cells) {
    v1::LayoutCell* c = board->add_cells();
    c->set_x(cell.x);
    c->set_y(cell.y);
    c->set_name(cell.name);
    c->set_move(cell.move);
  }
  for (const BoardLayout::Symbol& symbol : layout.symbols) {
    v1::CellSymbol* s = board->add_symbols();
    s->set_value(symbol.value);
    s->set_text(symbol.text);
    s->set_fill(symbol.fill);
  }
  for (const BoardLayout::Label& label : layout.labels) {
    v1::LayoutLabel* l = board->add_labels();
    l->set_x(label.x);
    l->set_y(label.y);
    l->set_text(label.text);
  }
  for (const BoardLayout::Region& region : layout.regions) {
    v1::LayoutRegion* r = board->add_regions();
    r->set_x(region.x);
    r->set_y(region.y);
    r->set_width(region.width);
    r->set_height(region.height);
    r->set_text(region.text);
  }
  board->set_edit(layout.edit == BoardLayout::Edit::kCycle ? v1::CYCLE : v1::SWAP);
  board->set_hint(layout.hint);
}

v1::Outcome OutcomeToWire(Outcome outcome) {
  switch (outcome) {
    case Outcome::kSolved:
      return v1::SOLVED;
    case Outcome::kNotWithinLimit:
      return v1::NOT_WITHIN_LIMIT;
    case Outcome::kUnsolvable:
      return v1::UNSOLVABLE;
  }
  return v1::OUTCOME_UNSPECIFIED;
}

v1::Source SourceToWire(Source source) {
  return source == Source::kTable ? v1::TABLE : v1::SEARCH;
}

Position MovesToWire(const Position& start, const std::vector<uint8_t>& moves,
                     v1::MoveEncoding encoding,
                     google::protobuf::RepeatedPtrField<std::string>* names, std::string* codes) {
  const Puzzle& puzzle = *start.puzzle();
  if (encoding == v1::MOVE_CODES) {
    codes->assign(moves.begin(), moves.end());
    if (puzzle.single_goal()) return start;  // the one goal; nobody asks which
    return puzzle.Replay(start, moves, nullptr);
  }
  std::vector<std::string> named;
  const Position reached = puzzle.Replay(start, moves, &named);
  names->Reserve(names->size() + static_cast<int>(named.size()));
  for (std::string& name : named) names->Add(std::move(name));
  return reached;
}

void SolutionToWire(const Position& position, const Solution& solution, v1::SolveResponse* out,
                    v1::MoveEncoding encoding, bool typed) {
  out->set_outcome(OutcomeToWire(solution.outcome));
  if (solution.outcome == Outcome::kSolved) {
    out->set_distance(static_cast<uint32_t>(solution.distance));
  } else {
    out->clear_distance();  // no distance to tell (unset: left out of JSON)
  }
  out->set_source(SourceToWire(solution.source));
  out->set_lookups(solution.lookups);
  out->set_nodes(solution.nodes);
  out->clear_moves();
  out->clear_move_codes();
  if (solution.outcome != Outcome::kSolved) return;
  const Position reached =
      MovesToWire(position, solution.moves, encoding, out->mutable_moves(),
                  encoding == v1::MOVE_CODES ? out->mutable_move_codes() : nullptr);
  // Which goal was reached says something only where there are several.
  if (!position.puzzle()->single_goal()) PositionToWire(reached, typed, out->mutable_final_state());
}

absl::StatusOr<Solution> SolutionFromWire(const Position& position,
                                          const v1::SolveResponse& response) {
  const Puzzle& puzzle = *position.puzzle();
  Solution solution;
  switch (response.outcome()) {
    case v1::SOLVED:
      solution.outcome = Outcome::kSolved;
      break;
    case v1::NOT_WITHIN_LIMIT:
      solution.outcome = Outcome::kNotWithinLimit;
      break;
    case v1::UNSOLVABLE:
      solution.outcome = Outcome::kUnsolvable;
      break;
    default:
      return absl::DataLossError("the answer has no outcome");
  }
  solution.distance = static_cast<int>(response.distance());
  solution.source = response.source() == v1::TABLE ? Source::kTable : Source::kSearch;
  solution.lookups = response.lookups();
  solution.nodes = response.nodes();
  Position state = position;
  if (response.has_move_codes()) {
    if (response.moves_size() > 0) {
      return absl::DataLossError("the answer has both moves and move codes");
    }
    for (const char c : response.move_codes()) {
      const int m = static_cast<uint8_t>(c);
      Position next;
      if (m >= puzzle.move_count() || !puzzle.Apply(state, m, &next)) {
        return absl::DataLossError(
            Cat("the answer's move code ", m, " is not a legal move where it is made"));
      }
      state = next;
      solution.moves.push_back(static_cast<uint8_t>(m));
    }
  }
  for (const std::string& name : response.moves()) {
    int found = -1;
    Position next;
    for (int m = 0; m < puzzle.move_count() && found < 0; ++m) {
      if (puzzle.Apply(state, m, &next) && puzzle.MoveName(state, m) == name) found = m;
    }
    if (found < 0) {
      return absl::DataLossError(std::string("the answer's move '") + name +
                                 "' is not a legal move where it is made");
    }
    puzzle.Apply(state, found, &next);
    state = next;
    solution.moves.push_back(static_cast<uint8_t>(found));
  }
  if (solution.outcome == Outcome::kSolved &&
      (!puzzle.IsGoal(state) || solution.moves.size() != response.distance())) {
    return absl::DataLossError("the answer's moves do not reach the goal in its distance");
  }
  return solution;
}

std::string ToJsonLine(const google::protobuf::Message& message) {
  return ToJson(message, JsonLayout::kOneLine);
}

}  // namespace puzzledb
