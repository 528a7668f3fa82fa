#include "core/util/huge_buffer.h"

#include <sys/mman.h>

#include <cstdlib>
#include <new>

namespace puzzledb {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;

}  // namespace

HugeBuffer::HugeBuffer(size_t size, uint8_t fill) : HugeBuffer(size, NoFill{}) {
  if (size > 0) std::memset(data_, fill, size);
}

HugeBuffer HugeBuffer::Unfilled(size_t size) { return HugeBuffer(size, NoFill{}); }

HugeBuffer::HugeBuffer(size_t size, NoFill) : size_(size) {
  if (size == 0) return;
  if (size >= kHugePage) {
    const size_t rounded = (size + kHugePage - 1) / kHugePage * kHugePage;
    data_ = static_cast<uint8_t*>(std::aligned_alloc(kHugePage, rounded));
    // Before the first touch, so that the pages are faulted in as huge pages. A kernel
    // without transparent huge pages ignores the advice.
    if (data_ != nullptr) madvise(data_, rounded, MADV_HUGEPAGE);
  } else {
    data_ = static_cast<uint8_t*>(std::malloc(size));
  }
  if (data_ == nullptr) throw std::bad_alloc();
}

HugeBuffer::~HugeBuffer() { std::free(data_); }

HugeBuffer& HugeBuffer::operator=(HugeBuffer&& other) noexcept {
  if (this != &other) {
    std::free(data_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

}  // namespace puzzledb
