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

int LentHelpers::Lend(const ThreadLender& lender, int count, const ThreadLender::Task& task) {
  int started = 0;
  for (; started < count; ++started) {
    {
      std::lock_guard<std::mutex> lock(count_->mutex);
      ++count_->lent;
    }
    const bool taken = lender.lend(task, [c = count_] {
      std::lock_guard<std::mutex> lock(c->mutex);
      --c->lent;
      c->released.notify_all();
    });
    if (!taken) {
      std::lock_guard<std::mutex> lock(count_->mutex);
      --count_->lent;
      break;
    }
  }
  return started;
}

void LentHelpers::Wait() {
  std::unique_lock<std::mutex> lock(count_->mutex);
  count_->released.wait(lock, [this] { return count_->lent == 0; });
}

}  // namespace puzzledb
