// hint_service: an example of embedding puzzledb::Client in a program of your own. For each
// knight board (25 characters) read from stdin it asks puzzledb-server for the position's
// analysis and prints a hint: the best move and how far the goal then is; then it asks for
// the solution with its optimal solutions counted, and says how many there are. Built with
// HINT_SERVICE_VERIFY (CMakeLists.txt), it first checks that answer by the puzzle's rules
// with puzzledb::Verify, from the engine (the component core).
//
//   hint_service 127.0.0.1:50051 <<< "1111111111000*10000100000"
//   1111111111000*10000100000: 3 moves from the goal; play c1 (then 2); 1 optimal solution
#include <iostream>
#include <string>

#include "puzzledb/client.h"
#ifdef HINT_SERVICE_VERIFY
#include "puzzledb/verify.h"
#endif

int main(int argc, char** argv) {
  const std::string address = argc > 1 ? argv[1] : "127.0.0.1:50051";
  puzzledb::Client client({.target = address, .timeout = std::chrono::seconds(5)});
  if (absl::Status up = client.WaitUntilServing(std::chrono::seconds(3)); !up.ok()) {
    std::cerr << "hint_service: " << up.message() << "\n";
    return 1;
  }
  std::string board;
  int status = 0;
  while (std::cin >> board) {
    puzzledb::v1::AnalyzeRequest request;
    request.mutable_puzzle()->mutable_knight()->set_board(board);
    absl::StatusOr<puzzledb::v1::AnalyzeResponse> analysis = client.Analyze(request);
    if (!analysis.ok()) {
      // INVALID_ARGUMENT says which rule the board breaks.
      std::cerr << board << ": " << analysis.status().message() << "\n";
      status = 1;
      continue;
    }
    std::cout << board << ": " << analysis->distance() << " moves from the goal";
    if (analysis->moves_size() > 0 && analysis->distance() > 0) {
      std::cout << "; play " << analysis->moves(0).move() << " (then "
                << analysis->moves(0).distance() << ")";
    }
    puzzledb::v1::SolveRequest solve;
    *solve.mutable_puzzle() = request.puzzle();
    solve.set_count_solutions(true);
    absl::StatusOr<puzzledb::v1::SolveResponse> answer = client.Solve(solve);
    if (answer.ok()) {
#ifdef HINT_SERVICE_VERIFY
      // An answer that does not replay to the goal by the rules is never shown.
      if (absl::Status checked = puzzledb::Verify(solve.puzzle(), *answer); !checked.ok()) {
        std::cerr << board << ": " << checked.message() << "\n";
        return 1;
      }
#endif
      std::cout << "; " << answer->optimal_count() << " optimal solution"
                << (answer->optimal_count() == "1" ? "" : "s");
    }
    std::cout << "\n";
  }
  return status;
}
