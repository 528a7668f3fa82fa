// The threads that run live searches, apart from the threads that answer from tables, so
// that a table answer never waits behind a search. At most capacity() searches run at
// once; others wait in a queue. Admission rules (docs/API.md, "Searches"):
//   - TrySubmit (unary calls) accepts while fewer than capacity() + queue_limit() searches
//     are running or waiting; beyond that it refuses and the caller answers
//     RESOURCE_EXHAUSTED.
//   - Submit (streams) always accepts: a stream bounds its own searches in flight and stops
//     reading while they wait, so it never refuses its own requests.
//   - Lender() lends an idle thread to a running search that can split its work (one over
//     pattern tables) or to a batch's table step, only while no search waits; a helper
//     counts as running, and it is told to give its thread back as soon as a search waits,
//     so that it never delays one.
// A search's slot is free again before its answer is sent (a search returns its delivery,
// which runs after the slot is released), so a caller that waits for each answer before it
// asks again always finds a free slot when nothing else runs.
// Deliveries run on one thread of normal priority, never on the search threads: sending an
// answer takes gRPC's locks, and a search thread at low priority (SCHED_IDLE on a busy
// machine gets almost no CPU) holding one of them would stall every other call.
#ifndef PUZZLEDB_SERVER_SEARCH_POOL_H_
#define PUZZLEDB_SERVER_SEARCH_POOL_H_

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "core/util/thread_lender.h"

namespace puzzledb {

// How much CPU searches (and background builds) may take from table answers.
enum class SearchPriority {
  kNormal,  // like every other thread
  kLow,     // nice 10: a tenth of a table answer's share when both want a core
  kIdle,    // SCHED_IDLE: only CPU time nothing else wants; best for table latency on a
            // dedicated machine, but searches stall while the machine is busy otherwise
};

// Gives the calling thread `priority`.
void SetThisThreadsPriority(SearchPriority priority);

// Thread-safe.
class SearchPool {
 public:
  // A search: runs on a pool thread and returns its delivery (e.g. sending the answer),
  // which the delivery thread runs once the search's slot is free again. May return
  // nullptr.
  using Work = std::function<std::function<void()>()>;

  SearchPool(int threads, size_t queue_limit, SearchPriority priority = SearchPriority::kLow);
  // Runs what was accepted, then joins the threads.
  ~SearchPool();

  int capacity() const { return capacity_; }
  size_t queue_limit() const { return queue_limit_; }

  // Queues `work` if fewer than capacity() + queue_limit() searches are running or
  // waiting; false (and `work` is never run) otherwise, or when the pool is stopping.
  bool TrySubmit(Work work);
  // Queues `work` whatever the queue holds; false only when the pool is stopping.
  bool Submit(Work work);
  // The pool's idle threads, lent as helpers to a running search or a batch's table step:
  // a thread is lent while one is idle and no search waits, and a helper is told to give
  // its thread back as soon as a search waits. REQUIRES: the pool outlives what borrows.
  ThreadLender Lender();

  // For metrics and tests.
  int running() const;
  size_t waiting() const;

 private:
  bool TryLend(std::function<void()> task, std::function<void()> released);
  bool SearchWaits() const;
  bool Enqueue(Work work, bool may_refuse);
  void Loop();
  void DeliveryLoop();

  const int capacity_;
  const size_t queue_limit_;
  const SearchPriority priority_;
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Work> queue_;
  // Helpers not started yet: the task, and what to call once its thread is free again.
  std::deque<std::pair<std::function<void()>, std::function<void()>>> lent_;
  int running_ = 0;  // searches (and helpers) taken off the queues, not finished
  bool stopping_ = false;
  std::vector<std::thread> threads_;
  // The delivery thread's queue.
  std::condition_variable delivery_ready_;
  std::deque<std::function<void()>> deliveries_;
  bool deliveries_stopping_ = false;
  std::thread delivery_thread_;
};


}  // namespace puzzledb

#endif  // PUZZLEDB_SERVER_SEARCH_POOL_H_
