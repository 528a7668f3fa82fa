#include "service/wire.h"

#include "core/puzzles/registry.h"
#include "core/util/strings.h"
#include "service/json.h"

namespace puzzledb {

void InstanceToWire(const KnightPuzzle::Instance& instance, v1::Puzzle* out) {
  out->mutable_knight()->set_board(KnightPuzzle::FormatCompact(instance));
}

void InstanceToWire(const KnobsPuzzle::Instance& instance, v1::Puzzle* out) {
  auto* knobs = out->mutable_knobs();
  knobs->clear_positions();
  knobs->clear_wiring();
  for (int knob = 0; knob < KnobsPuzzle::kKnobs; ++knob) {
    knobs->add_positions(static_cast<uint32_t>(KnobsPuzzle::Knob(instance.state, knob)) + 1);
  }
  for (uint32_t t : instance.params.ToNumbers()) knobs->add_wiring(t);
}

void InstanceToWire(const RotationPuzzle::Instance& instance, v1::Puzzle* out) {
  auto* rotation = out->mutable_rotation();
  rotation->clear_cells();
  for (int cell = 0; cell < RotationPuzzle::kCells; ++cell) {
    rotation->add_cells(static_cast<uint32_t>(instance.state.Value(cell)));
  }
}

void InstanceToWire(const EightPuzzle::Instance& instance, v1::Puzzle* out) {
  out->mutable_eight()->set_board(EightPuzzle::FormatCompact(instance));
}

void InstanceToWire(const FifteenPuzzle::Instance& instance, v1::Puzzle* out) {
  auto* fifteen = out->mutable_fifteen();
  fifteen->clear_cells();
  for (int cell = 0; cell < FifteenPuzzle::kCells; ++cell) {
    fifteen->add_cells(static_cast<uint32_t>(instance.state.Tile(cell)));
  }
}

namespace {

absl::Status FieldError(std::string_view field, const absl::Status& status) {
  return absl::InvalidArgumentError(Cat(field, ": ", Message(status)));
}

absl::Status WrongKind(const v1::Puzzle& puzzle, std::string_view expected) {
  const std::string_view got = WirePuzzleName(puzzle);
  return absl::InvalidArgumentError(Cat("puzzle: expected a ", expected, " puzzle, got ",
                                                 got.empty() ? "none" : got));
}

}  // namespace

template <>
absl::StatusOr<KnightPuzzle::Instance> InstanceFromWire<KnightPuzzle>(const v1::Puzzle& puzzle) {
  if (!puzzle.has_knight()) return WrongKind(puzzle, "knight");
  auto board = KnightPuzzle::BoardFromCells(puzzle.knight().board());
  if (!board.ok()) return FieldError("puzzle.knight.board", board.status());
  return KnightPuzzle::Instance{{}, *board};
}

template <>
absl::StatusOr<KnobsPuzzle::Instance> InstanceFromWire<KnobsPuzzle>(const v1::Puzzle& puzzle) {
  if (!puzzle.has_knobs()) return WrongKind(puzzle, "knobs");
  const auto& knobs = puzzle.knobs();
  auto state = KnobsPuzzle::StateFromNumbers({knobs.positions().begin(), knobs.positions().end()});
  if (!state.ok()) return FieldError("puzzle.knobs.positions", state.status());
  auto wiring = KnobsWiring::FromNumbers({knobs.wiring().begin(), knobs.wiring().end()});
  if (!wiring.ok()) return FieldError("puzzle.knobs.wiring", wiring.status());
  return KnobsPuzzle::Instance{*wiring, *state};
}

template <>
absl::StatusOr<KnobsPuzzle::Params> ParamsFromWire<KnobsPuzzle>(const v1::Puzzle& puzzle) {
  if (!puzzle.has_knobs()) return WrongKind(puzzle, "knobs");
  const auto& knobs = puzzle.knobs();
  auto wiring = KnobsWiring::FromNumbers({knobs.wiring().begin(), knobs.wiring().end()});
  if (!wiring.ok()) return FieldError("puzzle.knobs.wiring", wiring.status());
  return *wiring;
}

template <>
absl::StatusOr<RotationPuzzle::Instance> InstanceFromWire<RotationPuzzle>(
    const v1::Puzzle& puzzle) {
  if (!puzzle.has_rotation()) return WrongKind(puzzle, "rotation");
  const auto& cells = puzzle.rotation().cells();
  auto board = RotationPuzzle::BoardFromValues({cells.begin(), cells.end()});
  if (!board.ok()) return FieldError("puzzle.rotation.cells", board.status());
  return RotationPuzzle::Instance{{}, *board};
}

template <>
absl::StatusOr<EightPuzzle::Instance> InstanceFromWire<EightPuzzle>(const v1::Puzzle& puzzle) {
  if (!puzzle.has_eight()) return WrongKind(puzzle, "eight");
  auto board = EightPuzzle::BoardFromDigits(puzzle.eight().board());
  if (!board.ok()) return FieldError("puzzle.eight.board", board.status());
  return EightPuzzle::Instance{{}, *board};
}

template <>
absl::StatusOr<FifteenPuzzle::Instance> InstanceFromWire<FifteenPuzzle>(const v1::Puzzle& puzzle) {
  if (!puzzle.has_fifteen()) return WrongKind(puzzle, "fifteen");
  const auto& cells = puzzle.fifteen().cells();
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
  return FifteenPuzzle::Instance{{}, *board};
}

std::string TableIdFromWire(const v1::Puzzle& puzzle) {
  std::string id;
  VisitPuzzle(WirePuzzleName(puzzle), [&](auto model) {
    using P = typename decltype(model)::type;
    auto params = ParamsFromWire<P>(puzzle);
    id = params.ok() ? P::TableId(*params) : std::string(P::kName);
  });
  return id;
}

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
  return "";
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

std::string ToJsonLine(const google::protobuf::Message& message) {
  return ToJson(message, JsonLayout::kOneLine);
}

void TableParamsToWire(std::string_view puzzle, std::string_view params, v1::TableInfo* out) {
  VisitPuzzle(puzzle, [&](auto type) {
    using P = typename decltype(type)::type;
    if constexpr (HasParams<P>) {
      auto decoded = P::DecodeParams(params);
      if (!decoded.ok()) return;  // the table's status says why
      const P model(*decoded);
      InstanceToWire(typename P::Instance{*decoded, model.Goals()[0]},
                     out->mutable_parameters_puzzle());
    }
  });
  // The knobs' wiring also where clients before parameters_puzzle read it.
  if (out->parameters_puzzle().has_knobs()) {
    for (uint32_t n : out->parameters_puzzle().knobs().wiring()) out->add_wiring(n);
  }
}

}  // namespace puzzledb
