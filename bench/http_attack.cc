// Idle and slowloris connections against a running server's HTTP port, with a real client's
// table answers timed meanwhile (tests/http_attack.h); prints the figures. Any server
// binary: bench/http_attack.sh starts one (or two, before and after a change) and runs this.
//   http_attack PORT PID [IDLE SLOW REQUESTS]     (defaults 1000 500 1000)
#include <cstdlib>

#include "tests/http_attack.h"

int main(int argc, char** argv) {
  if (argc != 3 && argc != 6) {
    std::fprintf(stderr, "usage: http_attack PORT PID [IDLE SLOW REQUESTS]\n");
    return 2;
  }
  puzzledb::testing::AttackOptions options;
  options.port = std::atoi(argv[1]);
  options.pid = std::atoi(argv[2]);
  if (argc == 6) {
    options.idle = std::atoi(argv[3]);
    options.slow = std::atoi(argv[4]);
    options.requests = std::atoi(argv[5]);
  }
  const auto report = puzzledb::testing::RunAttack(options);
  puzzledb::testing::PrintAttackReport(options, report);
  return 0;
}
