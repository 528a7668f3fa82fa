// puzzledb sample: states at an exact distance, drawn uniformly (docs/API.md, "Sample").
#include <charconv>
#include <random>

#include "client/commands.h"
#include "core/puzzle.h"
#include "service/files.h"
#include "core/util/strings.h"
#include "service/wire.h"

namespace puzzledb {
namespace {

// The request's puzzle: which one and, for a puzzle with parameters, those of the first
// case of the --params file.
absl::StatusOr<v1::Puzzle> PuzzleFor(const Puzzle& puzzle, const SampleCommandOptions& options) {
  v1::Puzzle out;
  if (!puzzle.has_parameters()) {
    if (!options.params_file.empty()) {
      return absl::InvalidArgumentError(
          Cat("the ", puzzle.name(), " puzzle has no parameters; leave out --params"));
    }
    PositionToWire(puzzle.Goal(nullptr), /*typed=*/true, &out);
    return out;
  }
  if (options.params_file.empty()) {
    const std::string flag =
        puzzle.parameters_flag().empty() ? "--params" : Cat("--", puzzle.parameters_flag());
    return absl::InvalidArgumentError(
        Cat("the ", puzzle.name(), " puzzle has parameters: give them with ", flag,
            " FILE (its original input; the first case's are used)"));
  }
  auto text = ReadSmallFile(options.params_file, "parameter file");
  if (!text.ok()) return text.status();
  const auto cases = puzzle.ParseOriginal(*text);
  if (cases.empty()) {
    return absl::InvalidArgumentError(Cat(options.params_file, ": no case in it"));
  }
  if (!cases[0].instance.ok()) {
    return absl::InvalidArgumentError(
        Cat(options.params_file, ": ", Message(cases[0].instance.status())));
  }
  PositionToWire(*cases[0].instance, /*typed=*/true, &out);
  return out;
}

int Run(const Puzzle& puzzle, const SampleCommandOptions& options, v1::SampleRequest request,
        std::unique_ptr<Backend> backend, std::ostream& out, std::ostream& err) {
  auto wire = PuzzleFor(puzzle, options);
  if (!wire.ok()) {
    err << "puzzledb: " << Message(wire.status()) << "\n";
    return kExitBadInput;
  }
  *request.mutable_puzzle() = std::move(*wire);
  auto response = backend->Sample(request);
  if (!response.ok()) {
    err << "puzzledb: " << Message(response.status()) << "\n";
    return absl::IsInvalidArgument(response.status()) ? kExitBadInput : kExitFailure;
  }
  // Every state is read back by the model before it is printed.
  std::vector<Position> positions;
  for (const v1::Puzzle& state : response->states()) {
    auto position = PositionFromWire(state);
    if (!position.ok() || position->puzzle() != &puzzle) {
      err << "puzzledb: the answer holds a bad state: "
          << (position.ok() ? Cat("a ", position->puzzle()->name(), " puzzle")
                            : std::string(Message(position.status())))
          << "\n";
      return kExitFailure;
    }
    positions.push_back(*position);
  }
  if (options.json) {
    out << ToJsonLine(*response) << "\n";
  } else {
    out << puzzle.FormatOriginal(positions);
  }
  err << "puzzledb: " << response->states_size() << " of " << response->population()
      << (options.distance == "any" ? std::string(" states at any distance")
                                     : Cat(" states at distance ", response->distance()))
      << (response->table_id().empty() ? std::string()
                                       : Cat(" (table ", response->table_id(), ","))
      << (response->table_id().empty() ? " (" : " ") << "seed " << response->seed() << ")\n";
  return kExitOk;
}

}  // namespace

int RunSampleCommand(const SampleCommandOptions& options, std::ostream& out, std::ostream& err) {
  v1::SampleRequest request;
  if (options.distance == "max") {
    request.set_largest(true);
  } else if (options.distance == "any") {
    request.set_any_distance(true);
  } else {
    uint32_t distance = 0;
    const char* begin = options.distance.data();
    const char* end = begin + options.distance.size();
    const auto parsed = std::from_chars(begin, end, distance);
    if (options.distance.empty() || parsed.ec != std::errc() || parsed.ptr != end ||
        distance > 255) {
      err << "puzzledb: --distance " << QuoteInput(options.distance)
          << " is not a distance from 0 to 255, max or any\n";
      return kExitBadInput;
    }
    request.set_distance(distance);
  }
  request.set_count(options.count);
  request.set_seed(options.seed.has_value() ? *options.seed : std::random_device{}() * 4294967296ull + std::random_device{}());
  // The backend first: a database's puzzles given as definitions are registered as it opens.
  int exit_code = kExitOk;
  std::unique_ptr<Backend> backend = MakeCommandBackend(options.backend, err, &exit_code);
  if (backend == nullptr) return exit_code;
  const Puzzle* puzzle = FindPuzzleOf(*backend, options.puzzle, [&err](std::string_view line) {
    err << "puzzledb: " << line << "\n";
  });
  if (puzzle == nullptr) {
    err << "puzzledb: unknown puzzle '" << options.puzzle << "'; choose one of " << PuzzleNames()
        << "\n";
    return kExitBadInput;
  }
  return Run(*puzzle, options, request, std::move(backend), out, err);
}

}  // namespace puzzledb
