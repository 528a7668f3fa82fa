#include "client/solve_command.h"

#include <chrono>
#include <memory>

#include "core/strings.h"
#include "core/registry.h"
#include "core/solver.h"
#include "core/table_store.h"
#include "google/protobuf/wrappers.pb.h"
#include "proto/wire.h"

namespace puzzledb {
namespace {

// {"id":"<case>","error":"<message>"}: the id as protobuf's JSON mapping prints a uint64,
// the message escaped by protobuf's JSON printer (a StringValue prints as a JSON string).
std::string ErrorJson(int case_number, std::string_view message) {
  google::protobuf::StringValue text;
  text.set_value(std::string(message));
  return Cat(R"({"id":")", case_number, R"(","error":)", ToJsonLine(text), "}");
}

template <PuzzleModel P>
int SolveAll(const SolveCommandOptions& options, Solver& solver, Policy policy,
             std::string_view input, std::ostream& out, std::ostream& err) {
  const auto cases = P::ParseOriginal(input);
  SolveOptions solve;
  solve.policy = policy;
  // The knight's original output caps answers at 15 moves; the others have no cap.
  const int default_cap = std::is_same_v<P, KnightPuzzle> ? 15 : 0;
  solve.limits.max_moves = options.max_moves.value_or(default_cap);
  solve.limits.max_nodes = options.node_budget;

  int status = kExitOk;
  for (const auto& parsed : cases) {
    if (!parsed.instance.ok()) {
      const std::string_view message = Message(parsed.instance.status());
      if (!options.json) {
        out.flush();
        err << "puzzledb: " << message << "\n";
        return kExitBadInput;
      }
      out << ErrorJson(parsed.number, message) << "\n";
      status = kExitBadInput;
      continue;
    }
    const auto& instance = *parsed.instance;
    const auto started = std::chrono::steady_clock::now();
    if (options.timeout_seconds > 0) {
      solve.limits.deadline =
          started + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                        std::chrono::duration<double>(options.timeout_seconds));
    }
    auto solution = solver.Solve<P>(instance, solve);
    const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(
                            std::chrono::steady_clock::now() - started)
                            .count();
    if (!solution.ok()) {
      const std::string message = Cat("case ", parsed.number, ": ", Message(solution.status()));
      if (!options.json) {
        out.flush();
        err << "puzzledb: " << message << "\n";
        return kExitFailure;
      }
      out << ErrorJson(parsed.number, message) << "\n";
      if (status == kExitOk) status = kExitFailure;
      continue;
    }
    const P model(instance.params);
    if (options.json) {
      v1::SolveResponse response;
      SolutionToWire(model, instance, *solution, &response);
      response.set_micros(static_cast<uint64_t>(micros));
      response.set_id(static_cast<uint64_t>(parsed.number));
      out << ToJsonLine(response) << "\n";
    } else {
      out << P::FormatOriginalAnswer(instance, model, *solution);
    }
  }
  return status;
}

}  // namespace

int RunSolveCommand(const SolveCommandOptions& options, std::string_view input, std::ostream& out,
                    std::ostream& err) {
  Policy policy;
  if (options.policy == "table-then-search") {
    policy = Policy::kTableThenSearch;
  } else if (options.policy == "table-only") {
    policy = Policy::kTableOnly;
  } else if (options.policy == "search-only") {
    policy = Policy::kSearchOnly;
  } else {
    err << "puzzledb: unknown policy '" << options.policy
        << "'; choose table-then-search, table-only or search-only\n";
    return kExitBadInput;
  }
  std::shared_ptr<TableStore> store;
  if (!options.db.empty()) {
    auto opened = TableStore::Open(options.db, TableStore::Mode::kReadOnly);
    if (!opened.ok()) {
      err << "puzzledb: " << Message(opened.status()) << "\n";
      return kExitFailure;
    }
    store = std::move(*opened);
  }
  Solver solver(store, [&err](std::string_view line) { err << "puzzledb: " << line << "\n"; });
  int status = kExitBadInput;
  const bool known = VisitPuzzle(options.puzzle, [&](auto model) {
    status = SolveAll<typename decltype(model)::type>(options, solver, policy, input, out, err);
  });
  if (!known) {
    err << "puzzledb: unknown puzzle '" << options.puzzle << "'; choose one of " << PuzzleNames()
        << "\n";
    return kExitBadInput;
  }
  return status;
}

}  // namespace puzzledb
