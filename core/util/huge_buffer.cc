#include "core/util/huge_buffer.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
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
    // without transparent huge pages ignores the advice. The whole huge pages only: a huge
    // page for the tail would make up to 2 MB resident past the buffer's end (a 22 MB
    // table held 25.2 MB).
    if (data_ != nullptr && size / kHugePage > 0) {
      madvise(data_, size / kHugePage * kHugePage, MADV_HUGEPAGE);
    }
  } else {
    data_ = static_cast<uint8_t*>(std::malloc(size));
  }
  if (data_ == nullptr) throw std::bad_alloc();
}

HugeBuffer HugeBuffer::MapFile(int fd, size_t length, size_t skip, int* error) {
  HugeBuffer buffer;
  if (length == 0 || skip > length) {
    *error = EINVAL;
    return buffer;
  }
  // Reserve a range one huge page longer, map the file at its first 2 MB boundary, and
  // give back the rest.
  const size_t reserved = length + kHugePage;
  void* range = mmap(nullptr, reserved, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (range == MAP_FAILED) {
    *error = errno;
    return buffer;
  }
  const auto start = reinterpret_cast<uintptr_t>(range);
  const uintptr_t aligned = (start + kHugePage - 1) & ~(uintptr_t{kHugePage} - 1);
  void* at = mmap(reinterpret_cast<void*>(aligned), length, PROT_READ,
                  MAP_PRIVATE | MAP_FIXED | MAP_POPULATE, fd, 0);
  if (at == MAP_FAILED) {
    *error = errno;
    munmap(range, reserved);
    return buffer;
  }
  if (aligned > start) munmap(range, aligned - start);
  const uintptr_t end = aligned + length, reserved_end = start + reserved;
  // The file's last page is whole in the mapping; only what lies past it goes back.
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t mapped_end = (end + page - 1) & ~(page - 1);
  if (reserved_end > mapped_end) munmap(reinterpret_cast<void*>(mapped_end), reserved_end - mapped_end);
  buffer.mapped_ = at;
  buffer.mapped_size_ = length;
  buffer.data_ = static_cast<uint8_t*>(at) + skip;
  buffer.size_ = length - skip;
  return buffer;
}

void HugeBuffer::Release() {
  if (mapped_ != nullptr) {
    munmap(mapped_, mapped_size_);
  } else {
    std::free(data_);
  }
  mapped_ = nullptr;
  mapped_size_ = 0;
  data_ = nullptr;
  size_ = 0;
}

HugeBuffer::~HugeBuffer() { Release(); }

HugeBuffer& HugeBuffer::operator=(HugeBuffer&& other) noexcept {
  if (this != &other) {
    Release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    mapped_ = std::exchange(other.mapped_, nullptr);
    mapped_size_ = std::exchange(other.mapped_size_, 0);
  }
  return *this;
}

}  // namespace puzzledb
