#include "server/search_pool.h"

#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>

namespace puzzledb {

SearchPool::SearchPool(int threads, SearchPriority priority)
    : capacity_(std::max(1, threads)), priority_(priority) {
  for (int i = 0; i < capacity_; ++i) threads_.emplace_back([this] { Loop(); });
}

SearchPool::~SearchPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  ready_.notify_all();
  for (auto& t : threads_) t.join();
}

bool SearchPool::TrySubmit(std::function<void()> work) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_ || accepted_ >= capacity_) return false;
    ++accepted_;
    queue_.push_back(std::move(work));
  }
  ready_.notify_one();
  return true;
}

void SetThisThreadsPriority(SearchPriority priority) {
  const auto tid = static_cast<pid_t>(syscall(SYS_gettid));
  switch (priority) {
    case SearchPriority::kNormal:
      break;
    case SearchPriority::kLow:
      setpriority(PRIO_PROCESS, static_cast<id_t>(tid), 10);
      break;
    case SearchPriority::kIdle: {
      sched_param param{};
      if (sched_setscheduler(tid, SCHED_IDLE, &param) != 0) {
        setpriority(PRIO_PROCESS, static_cast<id_t>(tid), 19);
      }
      break;
    }
  }
}

void SearchPool::Loop() {
  SetThisThreadsPriority(priority_);
  while (true) {
    std::function<void()> work;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, nothing left
      work = std::move(queue_.front());
      queue_.pop_front();
    }
    work();
    std::lock_guard<std::mutex> lock(mutex_);
    --accepted_;
  }
}

}  // namespace puzzledb
