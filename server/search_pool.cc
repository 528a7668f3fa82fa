#include "server/search_pool.h"

#include "core/model/model.h"

#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>

namespace puzzledb {

SearchPool::SearchPool(int threads, size_t queue_limit, SearchPriority priority)
    : capacity_(std::max(1, threads)), queue_limit_(queue_limit), priority_(priority) {
  delivery_thread_ = std::thread([this] { DeliveryLoop(); });
  for (int i = 0; i < capacity_; ++i) threads_.emplace_back([this] { Loop(); });
}

SearchPool::~SearchPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  ready_.notify_all();
  for (auto& t : threads_) t.join();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    deliveries_stopping_ = true;
  }
  delivery_ready_.notify_all();
  delivery_thread_.join();  // after every delivery queued
}

bool SearchPool::Enqueue(Work work, bool may_refuse) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return false;
    if (may_refuse && static_cast<size_t>(running_) + queue_.size() >=
                          static_cast<size_t>(capacity_) + queue_limit_) {
      return false;
    }
    queue_.push_back(std::move(work));
  }
  ready_.notify_one();
  return true;
}

bool SearchPool::TrySubmit(Work work) { return Enqueue(std::move(work), true); }

bool SearchPool::TryLend(std::function<void()> task, std::function<void()> released) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_ || !queue_.empty() ||
        running_ + static_cast<int>(lent_.size()) >= capacity_) {
      return false;
    }
    lent_.emplace_back(std::move(task), std::move(released));
  }
  ready_.notify_one();
  return true;
}

bool SearchPool::SearchWaits() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return !queue_.empty();
}

bool SearchPool::Submit(Work work) { return Enqueue(std::move(work), false); }

int SearchPool::running() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return running_;
}

size_t SearchPool::waiting() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return queue_.size();
}

ThreadLender SearchPool::Lender() {
  ThreadLender lender;
  lender.lend = [this](ThreadLender::Task task, ThreadLender::Task released) {
    return TryLend(std::move(task), std::move(released));
  };
  lender.should_yield = [this] { return SearchWaits(); };
  return lender;
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
    Work work;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      ready_.wait(lock, [this] { return stopping_ || !queue_.empty() || !lent_.empty(); });
      if (!lent_.empty()) {
        // A helper: its search waits for it, so it runs even while the pool stops.
        auto [task, released] = std::move(lent_.front());
        lent_.pop_front();
        ++running_;
        lock.unlock();
        task();
        lock.lock();
        --running_;
        lock.unlock();
        released();  // after the thread is free: its search may lend it again at once
        lock.lock();
        continue;
      }
      if (queue_.empty()) return;  // stopping, nothing left
      work = std::move(queue_.front());
      queue_.pop_front();
      ++running_;
    }
    std::function<void()> deliver = work();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      --running_;  // the slot is free before the answer leaves
      if (deliver) deliveries_.push_back(std::move(deliver));
    }
    delivery_ready_.notify_one();
  }
}

void SearchPool::DeliveryLoop() {
  while (true) {
    std::function<void()> deliver;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      delivery_ready_.wait(lock, [this] { return deliveries_stopping_ || !deliveries_.empty(); });
      if (deliveries_.empty()) return;  // stopping, nothing left
      deliver = std::move(deliveries_.front());
      deliveries_.pop_front();
    }
    deliver();
  }
}

}  // namespace puzzledb
