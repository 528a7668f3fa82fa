#include "server/background_builder.h"

#include <chrono>

#include "core/util/strings.h"

namespace puzzledb {

BackgroundBuilder::BackgroundBuilder(TableStore* store, Solver* solver,
                                     BackgroundBuilderOptions options,
                                     std::function<void(std::string_view)> log)
    : store_(store), solver_(solver), options_(options), log_(std::move(log)) {
  build_options_.threads = options_.threads;
  thread_ = std::thread([this] {
    SetThisThreadsPriority(options_.priority);
    Loop();
  });
}

BackgroundBuilder::~BackgroundBuilder() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    queue_.clear();
  }
  ready_.notify_all();
  thread_.join();
}

bool BackgroundBuilder::Request(const std::string& id, Build build) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (stopping_ || pending_.count(id) != 0) return false;
  if (std::chrono::steady_clock::now() < retry_at_) {
    stats_.deferred++;
    return false;
  }
  if (queue_.size() >= options_.max_queued) {
    stats_.dropped++;
    if (log_) log_(Cat("background build of ", id, " skipped: ", queue_.size(), " builds queued"));
    return false;
  }
  if (store_->ReadMetadata(id).ok()) return false;  // built meanwhile
  pending_.insert(id);
  queue_.emplace_back(id, std::move(build));
  ready_.notify_one();
  return true;
}

BackgroundBuilder::Stats BackgroundBuilder::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  Stats stats = stats_;
  stats.queued = pending_.size();
  const auto now = std::chrono::steady_clock::now();
  stats.retry_in_seconds =
      retry_at_ > now ? std::chrono::duration<double>(retry_at_ - now).count() : 0;
  return stats;
}

std::vector<std::string> BackgroundBuilder::Pending() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return {pending_.begin(), pending_.end()};
}

void BackgroundBuilder::Loop() {
  while (true) {
    std::pair<std::string, Build> job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    const std::string& id = job.first;
    const auto started = std::chrono::steady_clock::now();
    absl::Status status;
    auto tables = store_->List();
    if (tables.ok() && tables->size() >= options_.max_tables) {
      status = absl::ResourceExhaustedError(
          Cat("the database holds ", tables->size(), " tables, the cap (--max-tables)"));
    } else {
      status = job.second(*store_, build_options_);
      if (status.ok() && log_) {
        log_(Cat("built table ", id, " in the background in ",
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(),
                 " s"));
      }
    }
    solver_->Forget(id);  // the next query loads the new table
    std::chrono::milliseconds hold{0};
    {
      std::lock_guard<std::mutex> lock(mutex_);
      pending_.erase(id);
      (status.ok() ? stats_.done : stats_.failed)++;
      stats_.seconds +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      if (status.ok()) {
        stats_.failures_in_a_row = 0;
      } else {
        // No build for a while, and none of those queued: what failed this one (a full
        // disk, a database that cannot be written) would fail them too.
        hold = options_.retry_after;
        for (uint64_t i = 1; i < stats_.failures_in_a_row + 1 && hold < options_.retry_max; ++i) {
          hold *= 2;
        }
        hold = std::min(hold, options_.retry_max);
        stats_.failures_in_a_row++;
        retry_at_ = std::chrono::steady_clock::now() + hold;
        for (const auto& queued : queue_) pending_.erase(queued.first);
        stats_.deferred += queue_.size();
        queue_.clear();
      }
    }
    if (!status.ok() && log_) {
      log_(Cat("background build of ", id, " failed: ", Message(status), "; no background build for ",
               hold.count() / 1000.0, " s (failure ", stats().failures_in_a_row,
               " in a row; --build-retry-after)"));
    }
    if (status.ok() && options_.on_built) options_.on_built(id);
  }
}

}  // namespace puzzledb
