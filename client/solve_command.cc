#include <algorithm>
#include <chrono>
#include <future>
#include <memory>
#include <type_traits>

#include "client/commands.h"
#include "client/verify.h"
#include "core/puzzle.h"
#include "core/util/strings.h"
#include "google/protobuf/wrappers.pb.h"
#include "puzzledb/client.h"
#include "service/wire.h"

namespace puzzledb {
namespace {

// {"id":"<case>","error":"<message>"}: the id as protobuf's JSON mapping prints a uint64,
// the message escaped by protobuf's JSON printer (a StringValue prints as a JSON string).
std::string ErrorJson(int case_number, std::string_view message) {
  google::protobuf::StringValue text;
  text.set_value(std::string(message));
  return Cat(R"({"id":")", case_number, R"(","error":)", ToJsonLine(text), "}");
}

absl::StatusOr<v1::Policy> ParsePolicy(const std::string& name) {
  if (name == "table-then-search") return v1::TABLE_THEN_SEARCH;
  if (name == "table-only") return v1::TABLE_ONLY;
  if (name == "search-only") return v1::SEARCH_ONLY;
  return absl::InvalidArgumentError(
      Cat("unknown policy '", name, "'; choose table-then-search, table-only or search-only"));
}

enum class Mode { kSolve, kAnalyze };

void SolveRequestFor(const SolveCommandOptions& options, const Position& position,
                     v1::Policy policy, int max_moves, int number, v1::SolveRequest* out) {
  v1::SolveRequest& request = *out;
  // --timeout per case, also when the cases share one batch.
  const double timeout_ms = options.backend.timeout_seconds * 1000;
  if (timeout_ms > 0) {
    request.set_timeout_ms(static_cast<uint32_t>(std::clamp(timeout_ms, 1.0, 4.0e9)));
  }
  PositionToWire(position, /*typed=*/true, request.mutable_puzzle());
  request.set_max_moves(static_cast<uint32_t>(max_moves));
  request.set_policy(policy);
  request.set_id(static_cast<uint64_t>(number));
  request.set_count_solutions(options.count);
  if (options.all_optimal > 1) request.set_max_solutions(options.all_optimal);
  // The command names the moves itself where it prints them (the JSON prints the answer as
  // it came, names and all).
  if (!options.json) request.set_move_encoding(v1::MOVE_CODES);
}

// Every board of a solution, the start first, each after the move that made it; the cells
// that moved are marked (`puzzledb solve --show`).
std::string Drawing(const Position& position, const Solution& solution) {
  const Puzzle& puzzle = *position.puzzle();
  std::string text = "start:\n" + puzzle.Draw(position, nullptr);
  Position now = position;
  for (size_t i = 0; i < solution.moves.size(); ++i) {
    const Position before = now;
    puzzle.Apply(before, solution.moves[i], &now);
    text += Cat("move ", i + 1, " of ", solution.moves.size(), ": ",
                puzzle.MoveName(before, solution.moves[i]), "\n", puzzle.Draw(now, &before));
  }
  return text + "\n";
}

// A solve's answer in the chosen format, once its moves replay to the goal (even the JSON
// is printed only for such an answer).
absl::StatusOr<std::string> FormatSolve(const SolveCommandOptions& options,
                                        const Position& position,
                                        const absl::StatusOr<v1::SolveResponse>& response) {
  if (!response.ok()) return response.status();
  const Puzzle& puzzle = *position.puzzle();
  auto solution = VerifiedSolution(position, *response);
  if (!solution.ok()) return solution.status();
  if (options.json) return ToJsonLine(*response) + "\n";
  std::string text = puzzle.FormatOriginalAnswer(position, *solution);
  // The count on the line after the answer; then the optimal solutions listed, one a
  // line, their moves by name.
  if (options.count) text += (response->optimal_count().empty() ? "-" : response->optimal_count()) + "\n";
  if (options.all_optimal > 1) {
    for (const v1::Solution& listed : response->solutions()) {
      // Checked by VerifiedSolution: every code is a legal move where it is made.
      std::vector<std::string> names(listed.moves().begin(), listed.moves().end());
      Position s = position;
      for (const char c : listed.move_codes()) {
        const int m = static_cast<uint8_t>(c);
        names.push_back(puzzle.MoveName(s, m));
        Position next;
        puzzle.Apply(s, m, &next);
        s = next;
      }
      text += Join(names, " ") + "\n";
    }
  }
  if (options.show) text += Drawing(position, *solution);
  return text;
}

absl::StatusOr<std::string> AnalyzeCase(const SolveCommandOptions& options, v1::Policy policy,
                                        int max_moves, int number, const Position& position,
                                        Backend& backend) {
  v1::AnalyzeRequest request;
  PositionToWire(position, /*typed=*/true, request.mutable_puzzle());
  request.set_max_moves(static_cast<uint32_t>(max_moves));
  request.set_policy(policy);
  request.set_id(static_cast<uint64_t>(number));
  request.set_count_solutions(options.count);
  auto response = backend.Analyze(request);
  if (!response.ok()) return response.status();
  if (options.json) return ToJsonLine(*response) + "\n";
  auto describe = [](v1::Outcome outcome, uint32_t distance) -> std::string {
    if (outcome == v1::SOLVED) return std::to_string(distance);
    return outcome == v1::UNSOLVABLE ? "unsolvable" : "beyond the limit";
  };
  auto counted = [](const std::string& count) {
    return count.empty() ? std::string() : Cat(", ", count, count == "1" ? " optimal solution" : " optimal solutions");
  };
  std::string text = Cat("case ", number, ": ", describe(response->outcome(), response->distance()),
                         " (", v1::Source_Name(response->source()), counted(response->optimal_count()),
                         ")\n");
  for (const auto& move : response->moves()) {
    text += Cat("  ", move.move(), " ", describe(move.outcome(), move.distance()),
                move.optimal_count().empty() ? std::string()
                                             : Cat(" (", counted(move.optimal_count()).substr(2), ")"),
                "\n");
  }
  return text;
}

int RunCases(const Puzzle& puzzle, Mode mode, const SolveCommandOptions& options,
             v1::Policy policy, std::string_view input, Backend& backend, std::ostream& out,
             std::ostream& err) {
  // Solve keeps the original output's cap (the model's); an analysis has none unless asked.
  const int default_cap = mode == Mode::kSolve ? puzzle.default_max_moves() : 0;
  const int max_moves = options.max_moves.value_or(default_cap);
  const auto cases = options.scramble ? puzzle.ParseScrambles(input) : puzzle.ParseOriginal(input);
  // The cases from `begin` handed to the backend together (a server answers them over one
  // stream). Text mode stops at a bad case, so a chunk ends with it; an analysis is one
  // case a chunk, asked for when it is printed.
  struct Chunk {
    size_t begin = 0;
    size_t end = 0;
    // Shared with the call that sends them, which may outlive the chunk's place in the loop.
    std::shared_ptr<v1::SolveBatchRequest> requests = std::make_shared<v1::SolveBatchRequest>();
    bool stops = false;  // text mode: the chunk ends at a bad case, and so does the output
  };
  auto chunk_from = [&](size_t begin) {
    Chunk chunk;
    chunk.begin = chunk.end = begin;
    if (mode == Mode::kAnalyze) {
      chunk.end = begin + 1;
      return chunk;
    }
    while (chunk.end < cases.size() &&
           static_cast<size_t>(chunk.requests->requests_size()) < backend.BatchSize()) {
      const auto& parsed = cases[chunk.end++];
      if (parsed.instance.ok()) {
        SolveRequestFor(options, *parsed.instance, policy, max_moves, parsed.number,
                           chunk.requests->add_requests());
      } else if (!options.json) {
        chunk.stops = true;
        break;
      }
    }
    return chunk;
  };
  using Answers = std::vector<absl::StatusOr<v1::SolveResponse>>;
  // Where answers come in batches (a server), the next chunk is sent while this one is
  // checked and printed, so that the command's work overlaps the server's (100,000
  // cases: docs/PERFORMANCE.md).
  const bool overlap = mode == Mode::kSolve && backend.BatchSize() > 1;
  auto ask = [&backend](std::shared_ptr<const v1::SolveBatchRequest> requests) {
    return backend.SolveMany(*requests);
  };
  int status = kExitOk;
  Chunk chunk = chunk_from(0);
  std::future<Answers> pending;
  if (overlap) pending = std::async(std::launch::async, ask, chunk.requests);
  while (chunk.begin < cases.size()) {
    const Answers solved = overlap ? pending.get() : ask(chunk.requests);
    // Text mode stops at a bad case or a failed answer, in this chunk then: no chunk is
    // sent ahead (the command would wait for its answers before it exits).
    const auto failed = [](const absl::StatusOr<v1::SolveResponse>& a) { return !a.ok(); };
    const bool stops =
        chunk.stops || (!options.json && std::any_of(solved.begin(), solved.end(), failed));
    Chunk next;
    next.begin = next.end = cases.size();
    if (!stops && chunk.end < cases.size()) {
      next = chunk_from(chunk.end);
      if (overlap) pending = std::async(std::launch::async, ask, next.requests);
    }
    size_t next_answer = 0;
    for (size_t i = chunk.begin; i < chunk.end; ++i) {
      const auto& parsed = cases[i];
      const absl::StatusOr<std::string> answer =
          !parsed.instance.ok() ? absl::StatusOr<std::string>(parsed.instance.status())
          : mode == Mode::kSolve
              ? FormatSolve(options, *parsed.instance, solved[next_answer++])
              : AnalyzeCase(options, policy, max_moves, parsed.number, *parsed.instance,
                            backend);
      if (answer.ok()) {
        out << *answer;
        continue;
      }
      // Input errors name their case and line already; others get the case.
      const bool bad_input = !parsed.instance.ok();
      const std::string message =
          bad_input ? std::string(Message(answer.status()))
                    : Cat("case ", parsed.number, ": ", Message(answer.status()));
      const int code = bad_input ? kExitBadInput : kExitFailure;
      if (!options.json) {
        out.flush();
        err << "puzzledb: " << message << "\n";
        // (Only an answer that fails its check gets here with a chunk sent ahead: the
        // command then exits once that chunk's stream has ended.)
        return code;
      }
      out << ErrorJson(parsed.number, message) << "\n";
      status = std::max(status, code);
    }
    chunk = std::move(next);
  }
  return status;
}

int Run(Mode mode, const SolveCommandOptions& options, std::string_view input, std::ostream& out,
        std::ostream& err) {
  auto policy = ParsePolicy(options.policy);
  if (!policy.ok()) {
    err << "puzzledb: " << Message(policy.status()) << "\n";
    return kExitBadInput;
  }
  // The backend first: a database's puzzles given as definitions are registered as it opens.
  int status = kExitOk;
  std::unique_ptr<Backend> backend = MakeCommandBackend(options.backend, err, &status);
  if (backend == nullptr) return status;
  const Puzzle* puzzle = FindPuzzleOf(*backend, options.puzzle, [&err](std::string_view line) {
    err << "puzzledb: " << line << "\n";
  });
  if (puzzle == nullptr) {
    err << "puzzledb: unknown puzzle '" << options.puzzle << "'; choose one of " << PuzzleNames()
        << "\n";
    return kExitBadInput;
  }
  return RunCases(*puzzle, mode, options, *policy, input, *backend, out, err);
}

}  // namespace

int RunSolveCommand(const SolveCommandOptions& options, std::string_view input, std::ostream& out,
                    std::ostream& err) {
  return Run(Mode::kSolve, options, input, out, err);
}

int RunAnalyzeCommand(const SolveCommandOptions& options, std::string_view input,
                      std::ostream& out, std::ostream& err) {
  return Run(Mode::kAnalyze, options, input, out, err);
}

}  // namespace puzzledb
