// A byte array for the big tables (a knight table is 17 to 68 MB), backed by 2 MB pages
// where the kernel allows (transparent huge pages in "madvise" mode): table walks and the
// BFS make random accesses all over such arrays, and with 4 KB pages most of them would
// also miss the TLB.
#ifndef PUZZLEDB_CORE_UTIL_HUGE_BUFFER_H_
#define PUZZLEDB_CORE_UTIL_HUGE_BUFFER_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>

namespace puzzledb {

class HugeBuffer {
 public:
  HugeBuffer() = default;
  // `size` bytes, every one `fill`.
  HugeBuffer(size_t size, uint8_t fill);
  // `size` bytes of no particular value, for a caller that writes every one (a table's
  // load): the pages are then first touched, and zeroed by the kernel, on the writers'
  // threads rather than by one fill.
  static HugeBuffer Unfilled(size_t size);
  // The bytes [skip, length) of the open file `fd`, mapped read-only and populated (a
  // write to them is a fault): no copy, the page cache's own memory. The whole file from
  // offset 0 is mapped at an address a multiple of 2 MB, so that a kernel keeping the file
  // in 2 MB folios maps them as huge pages. Empty, with `*error` set (an errno), on failure.
  // The file must not be changed while mapped (replace it by a rename instead).
  static HugeBuffer MapFile(int fd, size_t length, size_t skip, int* error);
  ~HugeBuffer();
  HugeBuffer(HugeBuffer&& other) noexcept { *this = std::move(other); }
  HugeBuffer& operator=(HugeBuffer&& other) noexcept;
  HugeBuffer(const HugeBuffer& other) : HugeBuffer(other.size_, 0) {
    if (size_ > 0) std::memcpy(data_, other.data_, size_);
  }
  HugeBuffer& operator=(const HugeBuffer& other) {
    if (this != &other) *this = HugeBuffer(other);
    return *this;
  }

  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  uint8_t& operator[](size_t i) { return data_[i]; }
  const uint8_t& operator[](size_t i) const { return data_[i]; }
  uint8_t* begin() { return data_; }
  uint8_t* end() { return data_ + size_; }
  const uint8_t* begin() const { return data_; }
  const uint8_t* end() const { return data_ + size_; }

 private:
  struct NoFill {};
  HugeBuffer(size_t size, NoFill);
  void Release();
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  void* mapped_ = nullptr;  // a file's mapping (MapFile), else data_ came from the heap
  size_t mapped_size_ = 0;
};

}  // namespace puzzledb

#endif  // PUZZLEDB_CORE_UTIL_HUGE_BUFFER_H_
