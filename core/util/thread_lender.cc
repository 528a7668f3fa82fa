#include "core/util/thread_lender.h"

#include <atomic>
#include <memory>
#include <thread>

namespace puzzledb {

ThreadLender SpareThreads(int spare) {
  auto busy = std::make_shared<std::atomic<int>>(0);
  ThreadLender lender;
  lender.lend = [busy, spare](ThreadLender::Task task, ThreadLender::Task released) {
    if (busy->fetch_add(1) >= spare) {
      busy->fetch_sub(1);
      return false;
    }
    // Detached: the work that borrowed it waits for `released` before it returns.
    std::thread([busy, task = std::move(task), released = std::move(released)] {
      task();
      busy->fetch_sub(1);
      released();
    }).detach();
    return true;
  };
  return lender;
}

}  // namespace puzzledb
