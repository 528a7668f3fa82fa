#include "server/search_pool.h"

#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>

namespace puzzledb {

SearchPool::SearchPool(int threads) : capacity_(std::max(1, threads)) {
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
    if (stopping_ || accepted_ >= capacity_) {
      ++refused_;
      return false;
    }
    ++accepted_;
    queue_.push_back(std::move(work));
  }
  ready_.notify_one();
  return true;
}

int SearchPool::running() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return accepted_;
}

uint64_t SearchPool::refused() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return refused_;
}

void LowerThisThreadsPriority() {
  // Searches are background work next to table answers: under SCHED_IDLE a search only
  // gets CPU time that no other thread of the machine wants, so gRPC's threads answering
  // from tables never wait for it (a search starved for long runs into its deadline).
  sched_param param{};
  if (sched_setscheduler(static_cast<pid_t>(syscall(SYS_gettid)), SCHED_IDLE, &param) != 0) {
    setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 19);
  }
}

void SearchPool::Loop() {
  LowerThisThreadsPriority();
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
