// The memory budget (service/memory_budget.h): charges that fit are taken, the one that
// would pass the limit is refused and counted, everything let go comes back, and from many
// threads at once the limit is never passed.
#include "service/memory_budget.h"

#include <atomic>
#include <thread>
#include <vector>

#include "core/util/strings.h"
#include "gtest/gtest.h"

namespace puzzledb {
namespace {

TEST(MemoryBudgetTest, ChargesFitOrAreRefusedAndComeBack) {
  MemoryBudget budget(1000);
  MemoryBudget::Charge a, b, c;
  ASSERT_TRUE(budget.TryCharge(MemoryUse::kHttpBody, 600, &a));
  EXPECT_FALSE(budget.TryCharge(MemoryUse::kStream, 401, &b));
  EXPECT_EQ(b.bytes(), 0u);
  EXPECT_EQ(budget.refused(MemoryUse::kStream), 1u);
  ASSERT_TRUE(budget.TryCharge(MemoryUse::kStream, 400, &b));
  EXPECT_EQ(budget.held(), 1000u);
  EXPECT_FALSE(a.Grow(1));
  EXPECT_EQ(a.bytes(), 600u);
  b.Shrink(150);
  EXPECT_TRUE(a.Grow(150));
  EXPECT_EQ(budget.held(MemoryUse::kHttpBody), 750u);
  EXPECT_EQ(budget.held(MemoryUse::kStream), 250u);
  // What must be kept is counted even past the limit, and reading more then waits.
  b.GrowAnyway(500);
  EXPECT_EQ(budget.held(), 1500u);
  EXPECT_FALSE(budget.HasRoom());
  EXPECT_EQ(budget.peak(), 1500u);
  // Nothing asked is not refused, even past the limit (a request without a body).
  MemoryBudget::Charge nothing;
  EXPECT_TRUE(budget.TryCharge(MemoryUse::kHttpBody, 0, &nothing));
  EXPECT_FALSE(nothing.Grow(1));
  // Moved, a charge is let go once.
  c = std::move(a);
  EXPECT_EQ(a.bytes(), 0u);
  a.Release();
  EXPECT_EQ(budget.held(), 1500u);
  c.Release();
  b.Release();
  EXPECT_EQ(budget.held(), 0u);
  EXPECT_TRUE(budget.HasRoom());
  // A charge larger than the whole budget is refused, saying so.
  EXPECT_FALSE(budget.TryCharge(MemoryUse::kHttpBody, 1001, &a));
  const absl::Status refusal = budget.Refusal(MemoryUse::kHttpBody, 1001);
  EXPECT_EQ(refusal.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(std::string(Message(refusal)).find("--memory-budget"), std::string::npos);
}

// A share of its own: a use charged whatever the others hold, refused past its share alone
// (the gRPC port's calls, which answers filling the budget must not stop), from many threads.
TEST(MemoryBudgetTest, AShareIsChargedWhateverTheOthersHoldAndBoundedAlone) {
  MemoryBudget budget(1000);
  MemoryBudget::Charge answers, call, more;
  ASSERT_TRUE(budget.TryCharge(MemoryUse::kGrpcAnswer, 1000, &answers));
  ASSERT_TRUE(budget.TryChargeShare(MemoryUse::kGrpcCall, 200, 250, &call));
  EXPECT_EQ(budget.held(), 1200u);
  EXPECT_EQ(budget.held(MemoryUse::kGrpcCall), 200u);
  EXPECT_FALSE(budget.TryChargeShare(MemoryUse::kGrpcCall, 51, 250, &more));
  EXPECT_EQ(budget.refused(MemoryUse::kGrpcCall), 1u);
  EXPECT_FALSE(budget.TryCharge(MemoryUse::kGrpcAnswer, 1, &more)) << "the share counts in the total";
  call.Release();
  EXPECT_EQ(budget.held(), 1000u);
  answers.Release();

  std::atomic<size_t> most{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 20000; ++i) {
        MemoryBudget::Charge c;
        if (budget.TryChargeShare(MemoryUse::kGrpcCall, 30, 100, &c)) {
          const size_t held = budget.held(MemoryUse::kGrpcCall);
          size_t seen = most.load();
          while (held > seen && !most.compare_exchange_weak(seen, held)) {
          }
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_LE(most.load(), 90u);
  EXPECT_EQ(budget.held(), 0u);
}

TEST(MemoryBudgetTest, NoLimitCountsEverything) {
  MemoryBudget budget(0);
  MemoryBudget::Charge a;
  ASSERT_TRUE(budget.TryCharge(MemoryUse::kListing, size_t{1} << 40, &a));
  EXPECT_EQ(budget.held(MemoryUse::kListing), size_t{1} << 40);
  EXPECT_TRUE(budget.HasRoom());
}

// Eight threads take and let go charges of random sizes as fast as they can, each holding
// its last four (so that even one thread alone asks for more than the limit now and then):
// the sum held never passes the limit, and nothing is left held once they are done.
TEST(MemoryBudgetTest, ManyThreadsNeverPassTheLimit) {
  constexpr size_t kLimit = 10000;
  MemoryBudget budget(kLimit);
  std::atomic<uint64_t> taken{0}, refused{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      uint64_t x = 88172645463325252ull + static_cast<uint64_t>(t);
      MemoryBudget::Charge held[4];
      for (int i = 0; i < 20000; ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        MemoryBudget::Charge& charge = held[i % 4];  // the oldest goes first
        if (budget.TryCharge(MemoryUse::kHttpBody, x % 3000, &charge)) {
          ++taken;
          if (!charge.Grow(x % 700)) {
            ++refused;  // a growth refused is a refusal too
            charge.Shrink(x % 100);
          }
          EXPECT_LE(budget.held(), kLimit);
        } else {
          ++refused;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(budget.held(), 0u);
  EXPECT_LE(budget.peak(), kLimit);
  EXPECT_GT(taken.load(), 0u);
  EXPECT_GT(refused.load(), 0u);
  EXPECT_EQ(budget.refused(MemoryUse::kHttpBody), refused.load());
}

}  // namespace
}  // namespace puzzledb
