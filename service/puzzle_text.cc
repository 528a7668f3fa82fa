#include "service/puzzle_text.h"

#include <type_traits>
#include <variant>

#include "core/puzzles/registry.h"
#include "core/util/strings.h"
#include "service/wire.h"

namespace puzzledb {
namespace {

absl::Status UnknownPuzzle(std::string_view name) {
  if (name.empty()) {
    return absl::InvalidArgumentError(Cat("puzzle: no puzzle given; use one of ",
                                          PuzzleNames(", ")));
  }
  return absl::InvalidArgumentError(Cat("puzzle: unknown puzzle ", QuoteInput(name),
                                        "; use one of ", PuzzleNames(", ")));
}

template <PuzzleModel P>
std::vector<std::string> LegalMoves(const P& model, const typename P::State& state) {
  std::vector<std::string> names;
  typename P::State next;
  for (int m = 0; m < P::kNumMoves; ++m) {
    if (model.Apply(state, m, &next)) names.push_back(model.MoveName(state, m));
  }
  return names;
}

}  // namespace

absl::StatusOr<v1::Puzzle> PuzzleFromCompact(std::string_view name, std::string_view compact) {
  auto parsed = InstanceFromCompact(name, compact);
  if (!parsed.ok()) return parsed.status();
  v1::Puzzle puzzle;
  std::visit(
      [&puzzle](const auto& one) {
        if constexpr (!std::is_same_v<std::decay_t<decltype(one)>, std::monostate>) {
          InstanceToWire(one.instance, &puzzle);
        }
      },
      *parsed);
  return puzzle;
}

absl::StatusOr<ParsedPuzzle> InstanceFromCompact(std::string_view name,
                                                 std::string_view compact) {
  absl::StatusOr<ParsedPuzzle> result = UnknownPuzzle(name);
  VisitPuzzle(name, [&](auto type) {
    using P = typename decltype(type)::type;
    auto instance = P::ParseCompact(compact);
    if (!instance.ok()) {
      result = absl::InvalidArgumentError(Cat("state: ", Message(instance.status())));
      return;
    }
    result = ParsedPuzzle(ParsedAs<P>{std::move(*instance)});
  });
  return result;
}

absl::StatusOr<v1::Puzzle> PuzzleOfKind(std::string_view name) {
  absl::StatusOr<v1::Puzzle> result = UnknownPuzzle(name);
  VisitPuzzle(name, [&](auto) {
    // The oneof's field is named after the puzzle (service/wire.h).
    v1::Puzzle puzzle;
    const auto* field = v1::Puzzle::descriptor()->FindFieldByName(std::string(name));
    if (field == nullptr) {
      result = absl::InternalError(Cat("the wire API has no field for puzzle ", name));
      return;
    }
    puzzle.GetReflection()->MutableMessage(&puzzle, field);
    result = std::move(puzzle);
  });
  return result;
}

absl::StatusOr<std::string> CompactFromPuzzle(const v1::Puzzle& puzzle) {
  absl::StatusOr<std::string> result = UnknownPuzzle(WirePuzzleName(puzzle));
  VisitPuzzle(WirePuzzleName(puzzle), [&](auto type) {
    using P = typename decltype(type)::type;
    auto instance = InstanceFromWire<P>(puzzle);
    if (!instance.ok()) {
      result = instance.status();
      return;
    }
    result = P::FormatCompact(*instance);
  });
  return result;
}

absl::StatusOr<v1::ParseInputResponse> ParseInput(const v1::ParseInputRequest& request,
                                                  size_t max_cases) {
  absl::StatusOr<v1::ParseInputResponse> result = UnknownPuzzle(request.puzzle());
  VisitPuzzle(request.puzzle(), [&](auto type) {
    using P = typename decltype(type)::type;
    const auto cases = P::ParseOriginal(request.input());
    if (cases.size() > max_cases) {
      result = absl::InvalidArgumentError(Cat("input: ", cases.size(), " cases; at most ",
                                              max_cases, " are read at once"));
      return;
    }
    v1::ParseInputResponse response;
    for (const auto& parsed : cases) {
      auto* out = response.add_cases();
      out->set_number(static_cast<uint32_t>(parsed.number));
      out->set_line(static_cast<uint32_t>(parsed.line));
      if (parsed.instance.ok()) {
        out->set_state(P::FormatCompact(*parsed.instance));
      } else {
        out->set_error(std::string(Message(parsed.instance.status())));
      }
    }
    result = std::move(response);
  });
  return result;
}

absl::StatusOr<v1::PlayResponse> Play(const v1::PlayRequest& request, size_t max_moves) {
  absl::StatusOr<v1::PlayResponse> result = UnknownPuzzle(request.puzzle());
  VisitPuzzle(request.puzzle(), [&](auto type) {
    using P = typename decltype(type)::type;
    if (static_cast<size_t>(request.moves_size()) > max_moves) {
      result = absl::InvalidArgumentError(Cat("moves: ", request.moves_size(),
                                              " moves; at most ", max_moves, " at once"));
      return;
    }
    auto instance = P::ParseCompact(request.state());
    if (!instance.ok()) {
      result = absl::InvalidArgumentError(Cat("state: ", Message(instance.status())));
      return;
    }
    const P model(instance->params);
    v1::PlayResponse response;
    auto record = [&] {
      auto* out = response.add_states();
      out->set_state(P::FormatCompact(*instance));
      out->set_goal(model.IsGoal(instance->state));
      for (std::string& name : LegalMoves(model, instance->state)) {
        out->add_legal_moves(std::move(name));
      }
    };
    record();
    for (int i = 0; i < request.moves_size(); ++i) {
      const std::string& name = request.moves(i);
      int found = -1;
      typename P::State next;
      for (int m = 0; m < P::kNumMoves && found < 0; ++m) {
        if (model.Apply(instance->state, m, &next) &&
            model.MoveName(instance->state, m) == name) {
          found = m;
        }
      }
      if (found < 0) {
        result = absl::InvalidArgumentError(
            Cat("moves[", i, "]: ", QuoteInput(name), " is not a legal move there; legal: ",
                Join(LegalMoves(model, instance->state), " ")));
        return;
      }
      model.Apply(instance->state, found, &next);
      instance->state = next;
      record();
    }
    result = std::move(response);
  });
  return result;
}

}  // namespace puzzledb
