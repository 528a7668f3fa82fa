#include "core/puzzles/puzzle.h"

#include <atomic>
#include <memory>
#include <thread>

namespace puzzledb {

std::function<bool(std::function<void()>)> SpareThreads(int spare) {
  auto busy = std::make_shared<std::atomic<int>>(0);
  return [busy, spare](std::function<void()> task) {
    if (busy->fetch_add(1) >= spare) {
      busy->fetch_sub(1);
      return false;
    }
    // Detached: the search that borrowed it waits for the task's end before it returns.
    std::thread([busy, task = std::move(task)] {
      task();
      busy->fetch_sub(1);
    }).detach();
    return true;
  };
}

}  // namespace puzzledb
