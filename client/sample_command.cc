// puzzledb sample: states at an exact distance, drawn uniformly (docs/API.md, "Sample").
#include <charconv>
#include <random>

#include "client/commands.h"
#include "core/puzzles/registry.h"
#include "service/files.h"
#include "core/util/strings.h"
#include "service/wire.h"

namespace puzzledb {
namespace {

// The request's puzzle: which one and, for a puzzle with parameters, those of the first
// case of the --params file.
template <PuzzleModel P>
absl::StatusOr<v1::Puzzle> PuzzleFor(const SampleCommandOptions& options) {
  if constexpr (HasParams<P>) {
    if (options.params_file.empty()) {
      std::string flag = "--params";
      if constexpr (requires { P::kParamsFlag; }) flag = Cat("--", P::kParamsFlag);
      return absl::InvalidArgumentError(
          Cat("the ", P::kName, " puzzle has parameters: give them with ", flag,
              " FILE (its original input; the first case's are used)"));
    }
    auto text = ReadSmallFile(options.params_file, "parameter file");
    if (!text.ok()) return text.status();
    const auto cases = P::ParseOriginal(*text);
    if (cases.empty()) {
      return absl::InvalidArgumentError(Cat(options.params_file, ": no case in it"));
    }
    if (!cases[0].instance.ok()) {
      return absl::InvalidArgumentError(
          Cat(options.params_file, ": ", Message(cases[0].instance.status())));
    }
    v1::Puzzle puzzle;
    InstanceToWire(*cases[0].instance, &puzzle);
    return puzzle;
  } else {
    if (!options.params_file.empty()) {
      return absl::InvalidArgumentError(
          Cat("the ", P::kName, " puzzle has no parameters; leave out --params"));
    }
    v1::Puzzle puzzle;
    InstanceToWire(typename P::Instance{}, &puzzle);
    return puzzle;
  }
}

template <PuzzleModel P>
int Run(const SampleCommandOptions& options, v1::SampleRequest request, std::ostream& out,
        std::ostream& err) {
  auto puzzle = PuzzleFor<P>(options);
  if (!puzzle.ok()) {
    err << "puzzledb: " << Message(puzzle.status()) << "\n";
    return kExitBadInput;
  }
  *request.mutable_puzzle() = std::move(*puzzle);
  int exit_code = kExitOk;
  std::unique_ptr<Backend> backend = MakeCommandBackend(options.backend, err, &exit_code);
  if (backend == nullptr) return exit_code;
  auto response = backend->Sample(request);
  if (!response.ok()) {
    err << "puzzledb: " << Message(response.status()) << "\n";
    return absl::IsInvalidArgument(response.status()) ? kExitBadInput : kExitFailure;
  }
  // Every state is read back by the model before it is printed.
  std::vector<typename P::Instance> instances;
  for (const v1::Puzzle& state : response->states()) {
    auto instance = InstanceFromWire<P>(state);
    if (!instance.ok()) {
      err << "puzzledb: the answer holds a bad state: " << Message(instance.status()) << "\n";
      return kExitFailure;
    }
    instances.push_back(std::move(*instance));
  }
  if (options.json) {
    out << ToJsonLine(*response) << "\n";
  } else {
    out << P::FormatOriginal(instances);
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
  int status = kExitBadInput;
  const bool known = VisitPuzzle(options.puzzle, [&](auto type) {
    status = Run<typename decltype(type)::type>(options, request, out, err);
  });
  if (!known) {
    err << "puzzledb: unknown puzzle '" << options.puzzle << "'; choose one of " << PuzzleNames()
        << "\n";
  }
  return status;
}

}  // namespace puzzledb
