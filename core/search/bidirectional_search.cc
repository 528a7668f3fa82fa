#include "core/search/bidirectional_search.h"

namespace puzzledb {
namespace {

constexpr size_t kPoolLimit = 2;  // pairs kept for reuse; more are freed

std::mutex pool_mutex;
std::vector<std::unique_ptr<DenseScratchPool::Arrays>>& Pool() {
  static auto* pool = new std::vector<std::unique_ptr<DenseScratchPool::Arrays>>();
  return *pool;
}

}  // namespace

std::unique_ptr<DenseScratchPool::Arrays> DenseScratchPool::Acquire(uint64_t size) {
  {
    std::lock_guard<std::mutex> lock(pool_mutex);
    auto& pool = Pool();
    for (size_t i = 0; i < pool.size(); ++i) {
      if (pool[i]->forward.size() == size) {
        auto arrays = std::move(pool[i]);
        pool.erase(pool.begin() + static_cast<long>(i));
        return arrays;
      }
    }
  }
  auto arrays = std::make_unique<Arrays>();
  arrays->forward.assign(size, kUnseen);
  arrays->backward.assign(size, kUnseen);
  return arrays;
}

void DenseScratchPool::Release(std::unique_ptr<Arrays> arrays) {
  std::lock_guard<std::mutex> lock(pool_mutex);
  auto& pool = Pool();
  if (pool.size() < kPoolLimit) pool.push_back(std::move(arrays));
}

}  // namespace puzzledb
