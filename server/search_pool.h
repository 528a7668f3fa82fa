// The threads that run live searches, apart from the threads that answer from tables, so
// that a table answer never waits behind a search. At most `threads` searches run at once;
// more are refused at once (the caller answers RESOURCE_EXHAUSTED) rather than queued.
#ifndef PUZZLEDB_SERVER_SEARCH_POOL_H_
#define PUZZLEDB_SERVER_SEARCH_POOL_H_

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace puzzledb {

// Thread-safe.
class SearchPool {
 public:
  explicit SearchPool(int threads);
  // Runs what was accepted, then joins the threads.
  ~SearchPool();

  int capacity() const { return capacity_; }
  // Runs `work` on a pool thread if fewer than capacity() searches are running; false (and
  // `work` is not run) otherwise.
  bool TrySubmit(std::function<void()> work);
  int running() const;
  uint64_t refused() const;

 private:
  void Loop();

  const int capacity_;
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> queue_;
  int accepted_ = 0;  // queued or running
  uint64_t refused_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

// Gives the calling thread the lowest CPU priority (SCHED_IDLE), for searches and table
// builds.
void LowerThisThreadsPriority();

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVER_SEARCH_POOL_H_
