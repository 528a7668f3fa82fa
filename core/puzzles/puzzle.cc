#include "core/puzzles/puzzle.h"

#include <atomic>
#include <memory>
#include <thread>

namespace puzzledb {

std::function<bool(SearchLimits::Task, SearchLimits::Task)> SpareThreads(int spare) {
  auto busy = std::make_shared<std::atomic<int>>(0);
  return [busy, spare](SearchLimits::Task task, SearchLimits::Task released) {
    if (busy->fetch_add(1) >= spare) {
      busy->fetch_sub(1);
      return false;
    }
    // Detached: the search that borrowed it waits for `released` before it returns.
    std::thread([busy, task = std::move(task), released = std::move(released)] {
      task();
      busy->fetch_sub(1);
      released();
    }).detach();
    return true;
  };
}

}  // namespace puzzledb
