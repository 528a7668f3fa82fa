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
// How much CPU searches (and background builds) may take from table answers.
enum class SearchPriority {
  kNormal,  // like every other thread
  kLow,     // nice 10: a tenth of a table answer's share when both want a core
  kIdle,    // SCHED_IDLE: only CPU time nothing else wants; best for table latency on a
            // dedicated machine, but searches stall while the machine is busy otherwise
};

// Gives the calling thread `priority`.
void SetThisThreadsPriority(SearchPriority priority);

class SearchPool {
 public:
  explicit SearchPool(int threads, SearchPriority priority = SearchPriority::kLow);
  // Runs what was accepted, then joins the threads.
  ~SearchPool();

  int capacity() const { return capacity_; }
  // Runs `work` on a pool thread if fewer than capacity() searches are running; false (and
  // `work` is not run) otherwise.
  bool TrySubmit(std::function<void()> work);

 private:
  void Loop();

  const int capacity_;
  const SearchPriority priority_;
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> queue_;
  int accepted_ = 0;  // queued or running
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVER_SEARCH_POOL_H_
