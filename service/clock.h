// Elapsed time in the units the API reports.
#ifndef PUZZLEDB_SERVICE_CLOCK_H_
#define PUZZLEDB_SERVICE_CLOCK_H_

#include <chrono>
#include <cstdint>

namespace puzzledb {

// A duration in whole microseconds.
inline uint64_t Micros(std::chrono::steady_clock::duration elapsed) {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(elapsed).count());
}

// Microseconds from `start` to now, on the steady clock.
inline uint64_t MicrosSince(std::chrono::steady_clock::time_point start) {
  return Micros(std::chrono::steady_clock::now() - start);
}

// Nanoseconds from `start` to `end` (a benchmark's per-call latencies).
inline uint64_t NanosBetween(std::chrono::steady_clock::time_point start,
                             std::chrono::steady_clock::time_point end) {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count());
}

inline uint64_t NanosSince(std::chrono::steady_clock::time_point start) {
  return NanosBetween(start, std::chrono::steady_clock::now());
}

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVICE_CLOCK_H_
