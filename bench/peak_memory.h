// The process's peak resident memory, as the kernel counts it (VmHWM), for the benches
// that print it.
#ifndef PUZZLEDB_BENCH_PEAK_MEMORY_H_
#define PUZZLEDB_BENCH_PEAK_MEMORY_H_

#include <cstdlib>
#include <fstream>
#include <string>

namespace puzzledb::bench {

// In kB (KiB); -1 where /proc does not say.
inline long PeakResidentKilobytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  }
  return -1;
}

}  // namespace puzzledb::bench

#endif  // PUZZLEDB_BENCH_PEAK_MEMORY_H_
