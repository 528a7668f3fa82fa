// Lending idle threads to work that can split (docs/API.md, "Searches"): the one facility
// through which a search that divides its work and a batch's table step borrow helpers. Whoever has threads to spare makes one: the server's search
// pool (SearchPool::Lender) or a process of its own (SpareThreads). An empty lender lends
// nothing. Copies share what they lend from; every callback is thread-safe.
#ifndef PUZZLEDB_CORE_UTIL_THREAD_LENDER_H_
#define PUZZLEDB_CORE_UTIL_THREAD_LENDER_H_

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>

namespace puzzledb {

struct ThreadLender {
  using Task = std::function<void()>;

  // Runs `task` on another thread, then frees that thread, then calls `released` (so that
  // work that waits for `released` finds the thread spare again), and returns true; or
  // returns false when no thread is spare, and calls neither. Empty: nothing is lent.
  std::function<bool(Task task, Task released)> lend;
  // True when a helper should give its thread back now (other work waits for it). Empty:
  // never.
  std::function<bool()> should_yield;

  explicit operator bool() const { return static_cast<bool>(lend); }
  bool ShouldYield() const { return should_yield && should_yield(); }
};

// Up to `spare` helper threads at a time, each started afresh: for a process of its own
// (the command line, the benches).
ThreadLender SpareThreads(int spare);

// The helpers one piece of work borrows, and the wait for them: Lend starts up to `count`
// of them (fewer where no thread is spare), each running `task`; Wait returns once every
// one started has finished and its thread is given back. Call Wait before whatever the
// tasks use goes.
class LentHelpers {
 public:
  // How many started.
  int Lend(const ThreadLender& lender, int count, const ThreadLender::Task& task);
  void Wait();

 private:
  struct Count {
    std::mutex mutex;
    std::condition_variable released;
    int lent = 0;  // helpers whose thread is not given back yet
  };
  std::shared_ptr<Count> count_ = std::make_shared<Count>();
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_UTIL_THREAD_LENDER_H_
