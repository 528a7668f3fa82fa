#include "service/memory_budget.h"

#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "core/util/strings.h"
#include "service/retry_hint.h"

namespace puzzledb {

std::string_view MemoryUseName(MemoryUse use) {
  switch (use) {
    case MemoryUse::kHttpBody:
      return "http_body";
    case MemoryUse::kHttpAnswer:
      return "http_answer";
    case MemoryUse::kGrpcBatch:
      return "grpc_batch";
    case MemoryUse::kStream:
      return "stream";
    case MemoryUse::kListing:
      return "listing";
    case MemoryUse::kGrpcAnswer:
      return "grpc_answer";
    case MemoryUse::kGrpcCall:
      return "grpc_call";
  }
  return "unknown";
}

MemoryBudget::Charge& MemoryBudget::Charge::operator=(Charge&& other) noexcept {
  if (this != &other) {
    Release();
    budget_ = other.budget_;
    use_ = other.use_;
    bytes_ = other.bytes_;
    other.budget_ = nullptr;
    other.bytes_ = 0;
  }
  return *this;
}

bool MemoryBudget::Charge::Grow(size_t more) {
  if (budget_ == nullptr) return false;
  Charge extra;
  if (!budget_->TryCharge(use_, more, &extra)) return false;
  extra.budget_ = nullptr;  // merged into this one
  bytes_ += more;
  return true;
}

void MemoryBudget::Charge::GrowAnyway(size_t more) {
  if (budget_ == nullptr) return;
  budget_->Take(use_, more);
  bytes_ += more;
}

void MemoryBudget::Charge::Shrink(size_t less) {
  if (budget_ == nullptr) return;
  less = std::min(less, bytes_);
  budget_->Release(use_, less);
  bytes_ -= less;
}

void MemoryBudget::Charge::Release() {
  if (budget_ != nullptr && bytes_ > 0) budget_->Release(use_, bytes_);
  budget_ = nullptr;
  bytes_ = 0;
}

MemoryBudget::MemoryBudget(size_t limit_bytes) : limit_(limit_bytes) {}

MemoryBudget::~MemoryBudget() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  if (returner_.joinable()) returner_.join();
}

bool MemoryBudget::TryCharge(MemoryUse use, size_t bytes, Charge* charge) {
  charge->Release();
  size_t held = held_.load(std::memory_order_relaxed);
  do {
    // Nothing asked is never refused: a request without a body is answered even while
    // streams hold more than the limit (what they must keep is taken anyway).
    if (bytes > 0 && limit_ > 0 && (bytes > limit_ || held > limit_ - bytes)) {
      refused_[Index(use)].fetch_add(1, std::memory_order_relaxed);
      return false;
    }
  } while (!held_.compare_exchange_weak(held, held + bytes, std::memory_order_relaxed));
  by_use_[Index(use)].fetch_add(bytes, std::memory_order_relaxed);
  size_t peak = peak_.load(std::memory_order_relaxed);
  while (held + bytes > peak &&
         !peak_.compare_exchange_weak(peak, held + bytes, std::memory_order_relaxed)) {
  }
  charge->budget_ = this;
  charge->use_ = use;
  charge->bytes_ = bytes;
  return true;
}

bool MemoryBudget::TryChargeShare(MemoryUse use, size_t bytes, size_t share, Charge* charge) {
  charge->Release();
  std::atomic<size_t>& mine = by_use_[Index(use)];
  size_t held = mine.load(std::memory_order_relaxed);
  do {
    if (bytes > 0 && (bytes > share || held > share - bytes)) {
      refused_[Index(use)].fetch_add(1, std::memory_order_relaxed);
      return false;
    }
  } while (!mine.compare_exchange_weak(held, held + bytes, std::memory_order_relaxed));
  AddToTotal(bytes);
  charge->budget_ = this;
  charge->use_ = use;
  charge->bytes_ = bytes;
  return true;
}

void MemoryBudget::Take(MemoryUse use, size_t bytes) {
  by_use_[Index(use)].fetch_add(bytes, std::memory_order_relaxed);
  AddToTotal(bytes);
}

void MemoryBudget::AddToTotal(size_t bytes) {
  const size_t held = held_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  size_t peak = peak_.load(std::memory_order_relaxed);
  while (held > peak && !peak_.compare_exchange_weak(peak, held, std::memory_order_relaxed)) {
  }
}

void MemoryBudget::Release(MemoryUse use, size_t bytes) {
  by_use_[Index(use)].fetch_sub(bytes, std::memory_order_relaxed);
  held_.fetch_sub(bytes, std::memory_order_relaxed);
  let_go_.fetch_add(bytes, std::memory_order_relaxed);
}

absl::Status MemoryBudget::Refusal(MemoryUse use, size_t bytes) const {
  const char* what = use == MemoryUse::kHttpBody     ? "request's body"
                     : use == MemoryUse::kHttpAnswer ? "answer"
                     : use == MemoryUse::kGrpcBatch  ? "batch"
                     : use == MemoryUse::kStream     ? "stream"
                     : use == MemoryUse::kGrpcAnswer ? "answer"
                     : use == MemoryUse::kGrpcCall   ? "call"
                                                     : "listing";
  return WithRetryHint(absl::ResourceExhaustedError(
      Cat("the server's memory budget is spent: this ", what, " needs ",
          Megabytes(bytes), ", and calls hold ", Megabytes(held()), " of the ",
          Megabytes(limit_), " they may (--memory-budget); retry later, or send less at once")));
}

void MemoryBudget::StartReturning(std::chrono::milliseconds period, size_t after_bytes) {
  if (returner_.joinable()) return;
  returner_ = std::thread([this, period, after_bytes] { ReturnLoop(period, after_bytes); });
}

void MemoryBudget::ReturnLoop(std::chrono::milliseconds period, size_t after_bytes) {
  // What the allocator held free after the last return: memory freed outside the budget
  // (gRPC's buffers, a table's build) shows as a change of it. A return waits for a quiet
  // period (less than a quarter of `after_bytes` let go or moved since the last look):
  // malloc_trim holds each heap's lock while it walks it, up to a quarter of a second for a
  // heap of gigabytes, so it is done once after a burst, not during it, when the calls that
  // share the heap would wait for it.
  auto moved = [](size_t a, size_t b) { return a > b ? a - b : b - a; };
  size_t free_then = mallinfo2().fordblks;
  size_t free_before = free_then;
  size_t let_go_before = 0;
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_cv_.wait_for(lock, period, [this] { return stopping_; })) {
    const size_t free_now = mallinfo2().fordblks;
    const size_t let_go = let_go_.load(std::memory_order_relaxed);
    const bool quiet = moved(free_now, free_before) < after_bytes / 4 &&
                       let_go - std::min(let_go, let_go_before) < after_bytes / 4;
    free_before = free_now;
    let_go_before = let_go;
    const bool due =
        let_go >= after_bytes || (moved(free_now, free_then) >= after_bytes && free_now >= after_bytes);
    if (!due || !quiet) continue;
    let_go_.store(0, std::memory_order_relaxed);
    let_go_before = 0;
    lock.unlock();
    malloc_trim(0);  // every arena: freed pages back to the system
    returns_.fetch_add(1, std::memory_order_relaxed);
    free_then = free_before = mallinfo2().fordblks;
    lock.lock();
  }
}

}  // namespace puzzledb
