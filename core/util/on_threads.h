// Work shared over threads: the pattern of the table store's load and write and of the
// pattern tables' search, written once.
#ifndef PUZZLEDB_CORE_UTIL_ON_THREADS_H_
#define PUZZLEDB_CORE_UTIL_ON_THREADS_H_

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <system_error>
#include <thread>
#include <vector>

namespace puzzledb {

// Runs task(0) .. task(n - 1) on up to `threads` threads, this one included, each task
// once; returns when all are done. A thread that cannot be started leaves its share to
// the others.
template <typename Task>
void OnThreads(uint64_t n, int threads, const Task& task) {
  std::atomic<uint64_t> next{0};
  auto worker = [&] {
    for (uint64_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < n;) task(i);
  };
  std::vector<std::thread> pool;
  for (uint64_t t = 1; t < std::min<uint64_t>(static_cast<uint64_t>(std::max(threads, 1)), n);
       ++t) {
    try {
      pool.emplace_back(worker);
    } catch (const std::system_error&) {
      break;
    }
  }
  worker();
  for (auto& t : pool) t.join();
}

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_UTIL_ON_THREADS_H_
