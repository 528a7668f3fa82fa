#include "service/puzzle_text.h"

#include "core/util/strings.h"
#include "service/wire.h"

namespace puzzledb {
namespace {

absl::Status UnknownPuzzle(std::string_view name) {
  if (name.empty()) {
    return absl::InvalidArgumentError(Cat("puzzle: no puzzle given; use one of ",
                                          PuzzleNames(", ")));
  }
  return absl::InvalidArgumentError(Cat("puzzle: ", UnknownPuzzleText(name), "; use one of ",
                                        PuzzleNames(", ")));
}

absl::StatusOr<const Puzzle*> Named(std::string_view name) {
  const Puzzle* puzzle = FindPuzzle(name);
  if (puzzle == nullptr) return UnknownPuzzle(name);
  return puzzle;
}

std::vector<std::string> LegalMoves(const Position& position) {
  const Puzzle& puzzle = *position.puzzle();
  std::vector<std::string> names;
  Position next;
  for (int m = 0; m < puzzle.move_count(); ++m) {
    if (puzzle.Apply(position, m, &next)) names.push_back(puzzle.MoveName(position, m));
  }
  return names;
}

// The first move named `name` that applies at `position` (its result in `next`), or -1.
int ApplyNamed(const Position& position, std::string_view name, Position* next) {
  const Puzzle& puzzle = *position.puzzle();
  for (int m = 0; m < puzzle.move_count(); ++m) {
    if (puzzle.Apply(position, m, next) && puzzle.MoveName(position, m) == name) return m;
  }
  return -1;
}

// The puzzle named `name`'s position that `read` reads from `text`, or INVALID_ARGUMENT
// naming the parameter `field`.
absl::StatusOr<Position> ReadNamed(std::string_view name, std::string_view field,
                                   absl::StatusOr<Position> (Puzzle::*read)(std::string_view) const,
                                   std::string_view text) {
  auto puzzle = Named(name);
  if (!puzzle.ok()) return puzzle.status();
  auto position = ((**puzzle).*read)(text);
  if (!position.ok()) {
    return absl::InvalidArgumentError(Cat(field, ": ", Message(position.status())));
  }
  return position;
}

}  // namespace

absl::StatusOr<Position> PositionFromCompact(std::string_view name, std::string_view compact) {
  return ReadNamed(name, "state", &Puzzle::ParseCompact, compact);
}

absl::StatusOr<Position> PositionFromScramble(std::string_view name, std::string_view moves) {
  return ReadNamed(name, "scramble", &Puzzle::ParseScramble, moves);
}

absl::StatusOr<v1::Puzzle> PuzzleFromCompact(std::string_view name, std::string_view compact) {
  auto position = PositionFromCompact(name, compact);
  if (!position.ok()) return position.status();
  v1::Puzzle puzzle;
  PositionToWire(*position, /*typed=*/true, &puzzle);
  return puzzle;
}

absl::StatusOr<v1::Puzzle> PuzzleOfKind(std::string_view name) {
  auto puzzle = Named(name);
  if (!puzzle.ok()) return puzzle.status();
  v1::Puzzle out;
  // A typed message, where the first API version has one, is named after the puzzle
  // (service/wire.h); the generic form otherwise.
  const auto* field = v1::Puzzle::descriptor()->FindFieldByName(std::string(name));
  if (field != nullptr && field->containing_oneof() != nullptr) {
    out.GetReflection()->MutableMessage(&out, field);
  } else {
    out.set_name(std::string(name));
  }
  return out;
}

absl::StatusOr<std::string> CompactFromPuzzle(const v1::Puzzle& puzzle) {
  auto position = PositionFromWire(puzzle);
  if (!position.ok()) return position.status();
  return position->puzzle()->FormatCompact(*position);
}

absl::StatusOr<v1::ParseInputResponse> ParseInput(const v1::ParseInputRequest& request,
                                                  size_t max_cases) {
  auto puzzle = Named(request.puzzle());
  if (!puzzle.ok()) return puzzle.status();
  const auto cases = (*puzzle)->ParseOriginal(request.input());
  if (cases.size() > max_cases) {
    return absl::InvalidArgumentError(Cat("input: ", cases.size(), " cases; at most ",
                                          max_cases, " are read at once"));
  }
  v1::ParseInputResponse response;
  for (const auto& parsed : cases) {
    auto* out = response.add_cases();
    out->set_number(static_cast<uint32_t>(parsed.number));
    out->set_line(static_cast<uint32_t>(parsed.line));
    if (parsed.instance.ok()) {
      out->set_state((*puzzle)->FormatCompact(*parsed.instance));
    } else {
      out->set_error(std::string(Message(parsed.instance.status())));
    }
  }
  return response;
}

absl::StatusOr<v1::PlayResponse> Play(const v1::PlayRequest& request, size_t max_moves) {
  auto named = Named(request.puzzle());
  if (!named.ok()) return named.status();
  const Puzzle& puzzle = **named;
  if (static_cast<size_t>(request.moves_size()) > max_moves) {
    return absl::InvalidArgumentError(Cat("moves: ", request.moves_size(), " moves; at most ",
                                          max_moves, " at once"));
  }
  auto position = puzzle.ParseCompact(request.state());
  if (!position.ok()) {
    return absl::InvalidArgumentError(Cat("state: ", Message(position.status())));
  }
  if (request.cells_size() > 0) {
    position = puzzle.FromCells(
        *position, std::span<const int>(request.cells().data(), request.cells().size()));
    if (!position.ok()) return position.status();
  }
  v1::PlayResponse response;
  auto record = [&] {
    auto* out = response.add_states();
    out->set_state(puzzle.FormatCompact(*position));
    out->set_goal(puzzle.IsGoal(*position));
    for (std::string& name : LegalMoves(*position)) out->add_legal_moves(std::move(name));
    const std::vector<int> cells = puzzle.Cells(*position);
    for (const int value : cells) out->add_cells(value);
    out->set_table_id(puzzle.TableId(*position));
    // What a click on each cell that plays a move would change besides the cell itself.
    const std::vector<BoardLayout::Cell>& layout_cells = puzzle.layout().cells;
    for (size_t c = 0; c < layout_cells.size() && c < cells.size(); ++c) {
      if (layout_cells[c].move.empty()) continue;
      Position after;
      if (ApplyNamed(*position, layout_cells[c].move, &after) < 0) continue;
      const std::vector<int> changed = puzzle.Cells(after);
      auto* cell_move = out->add_cell_moves();
      cell_move->set_cell(static_cast<uint32_t>(c));
      for (size_t o = 0; o < cells.size() && o < changed.size(); ++o) {
        if (o != c && changed[o] != cells[o]) cell_move->add_also_changes(static_cast<uint32_t>(o));
      }
    }
  };
  record();
  for (int i = 0; i < request.moves_size(); ++i) {
    const std::string& name = request.moves(i);
    Position next;
    if (ApplyNamed(*position, name, &next) < 0) {
      return absl::InvalidArgumentError(
          Cat("moves[", i, "]: ", QuoteInput(name), " is not a legal move there; legal: ",
              Join(LegalMoves(*position), " ")));
    }
    *position = next;
    record();
  }
  return response;
}

}  // namespace puzzledb
