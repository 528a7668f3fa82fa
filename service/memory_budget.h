// The server's memory budget (docs/OPERATIONS.md, "Memory"): the bytes that calls make the
// server hold beyond its tables, counted where they are taken and refused before the sum
// would pass the limit (--memory-budget), so that no client, and no crowd of them, can make
// the server hold more through its calls. (gRPC's own memory, its buffers and the calls it
// makes before they reach the service, is apart: docs/OPERATIONS.md says what bounds it.)
//
// What is charged, and when it is let go:
//   - an HTTP request's body, as it arrives, with what parsing it will make of it, until
//     its answer is written;
//   - an HTTP answer, from the moment it is made until it is written;
//   - a SolveBatch call's request and answer over gRPC, until gRPC has written the answer;
//   - a unary call's answer over gRPC of 16 KiB or more serialized, from the moment it is
//     made until gRPC has written it (or the call is gone);
//   - a SolveStream's requests read but not answered and its answers not yet written;
//   - a listing of optimal solutions, from before it is made until it is handed on;
//   - a call over gRPC from its header block until it has ended (what gRPC holds for a call
//     before and while a handler has it), within a share of the budget of its own
//     (TryChargeShare), so that answers filling the budget do not stop new calls.
// A refusal is RESOURCE_EXHAUSTED (HTTP 503) and says how much is held and the limit.
//
// Thread-safe. Charges are cheap (one atomic add), so every path takes them.
#ifndef PUZZLEDB_SERVICE_MEMORY_BUDGET_H_
#define PUZZLEDB_SERVICE_MEMORY_BUDGET_H_

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string_view>
#include <thread>

#include "absl/status/status.h"

namespace puzzledb {

// What memory is held for: a label of the metrics (puzzledb_memory_held_bytes{use=...}).
enum class MemoryUse : uint8_t {
  kHttpBody,
  kHttpAnswer,
  kGrpcBatch,
  kStream,
  kListing,
  kGrpcAnswer,
  kGrpcCall
};
inline constexpr int kMemoryUses = 7;
std::string_view MemoryUseName(MemoryUse use);

class MemoryBudget {
 public:
  // `limit_bytes` 0: no limit (everything is still counted).
  explicit MemoryBudget(size_t limit_bytes);
  // Stops the thread that gives memory back (StartReturning). Every Charge must be gone.
  ~MemoryBudget();
  MemoryBudget(const MemoryBudget&) = delete;
  MemoryBudget& operator=(const MemoryBudget&) = delete;

  // Bytes held for one thing; let go when destroyed (or Release). Move-only. An empty one
  // (default, moved from, or refused) holds nothing.
  class Charge {
   public:
    Charge() = default;
    Charge(Charge&& other) noexcept { *this = std::move(other); }
    Charge& operator=(Charge&& other) noexcept;
    ~Charge() { Release(); }

    size_t bytes() const { return bytes_; }
    // Takes `more` bytes besides; false (and nothing taken) when the budget cannot. On an
    // empty charge: false.
    bool Grow(size_t more);
    // Takes `more` bytes whatever the budget says: for what is in memory already and must
    // be kept (a stream's answer, once made, waits to be written). On an empty charge: none.
    void GrowAnyway(size_t more);
    // Lets `less` bytes go (at most what it holds).
    void Shrink(size_t less);
    void Release();

   private:
    friend class MemoryBudget;
    MemoryBudget* budget_ = nullptr;
    MemoryUse use_ = MemoryUse::kHttpBody;
    size_t bytes_ = 0;
  };

  // `bytes` for `use`, or false (the refusal counted) when held() + bytes would pass the
  // limit; `*charge` (released first) holds them. A refused charge is empty. A charge of 0
  // bytes is never refused (it can grow later).
  bool TryCharge(MemoryUse use, size_t bytes, Charge* charge);
  // `bytes` for `use` whatever the other uses hold (held() may pass the limit by it), or
  // false (the refusal counted) when held(use) + bytes would pass `share`: for what the
  // others must not starve. `*charge` (released first) holds them.
  bool TryChargeShare(MemoryUse use, size_t bytes, size_t share, Charge* charge);
  // Whether held() is under the limit: what a stream asks before it reads more.
  bool HasRoom() const { return limit_ == 0 || held() < limit_; }
  // What a refusal of `bytes` for `use` tells the client: RESOURCE_EXHAUSTED, with the
  // figures and the flag.
  absl::Status Refusal(MemoryUse use, size_t bytes) const;

  size_t limit() const { return limit_; }
  size_t held() const { return held_.load(std::memory_order_relaxed); }
  size_t held(MemoryUse use) const { return by_use_[Index(use)].load(std::memory_order_relaxed); }
  size_t peak() const { return peak_.load(std::memory_order_relaxed); }
  uint64_t refused(MemoryUse use) const {
    return refused_[Index(use)].load(std::memory_order_relaxed);
  }
  // Times freed memory was given back to the system (StartReturning).
  uint64_t returns() const { return returns_.load(std::memory_order_relaxed); }

  // Gives freed memory back to the system (malloc_trim) from a thread of its own, looking
  // every `period`: once at least `after_bytes` have been let go since the last time (or
  // the allocator's free memory has moved by as much: gRPC's own buffers, outside the
  // budget), and the last period was quiet. The C library keeps freed blocks in its heaps
  // otherwise, and a burst of large calls would leave the process that much larger for
  // good.
  void StartReturning(std::chrono::milliseconds period, size_t after_bytes);

 private:
  static size_t Index(MemoryUse use) { return static_cast<size_t>(use); }
  void Take(MemoryUse use, size_t bytes);
  void AddToTotal(size_t bytes);  // held() and its peak
  void Release(MemoryUse use, size_t bytes);
  void ReturnLoop(std::chrono::milliseconds period, size_t after_bytes);

  const size_t limit_;
  std::atomic<size_t> held_{0};
  std::atomic<size_t> peak_{0};
  std::atomic<size_t> let_go_{0};  // released since memory was last given back
  std::atomic<uint64_t> returns_{0};
  std::array<std::atomic<size_t>, kMemoryUses> by_use_{};
  std::array<std::atomic<uint64_t>, kMemoryUses> refused_{};

  std::mutex mutex_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  std::thread returner_;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_SERVICE_MEMORY_BUDGET_H_
