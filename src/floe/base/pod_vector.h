// PodVector<T>: a growable array of a trivially copyable T in one block. A large block (1 MiB
// and up) is mapped from the kernel and grows by remapping its pages (mremap) instead of being
// allocated anew, faulted in and copied over -- what std::vector does, and glibc's realloc too
// for blocks below its mmap threshold (up to 32 MiB) -- so an array grown to hundreds of
// megabytes (a hash aggregate's per-group states) has its pages touched once. New elements are
// value-initialised (T{}). Not thread-safe.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

#include <sys/mman.h>

namespace floe {

// Large blocks PodVectors released, kept mapped for the next that needs one (pod_vector.cc):
// on a virtual machine whose freed memory goes back to the host, a block mapped afresh may fault
// in the host too -- a query's hash tables then took twice as long now and then.
// The smallest kept block of at least `bytes` (and at most four times that), its size in
// *mapped; null when none fits.
void* TakeMappedBlock(size_t bytes, size_t* mapped);
// Keeps a block a PodVector releases, or unmaps it when the blocks kept would pass their bound.
void KeepMappedBlock(void* p, size_t bytes);

template <typename T>
class PodVector {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

 public:
  PodVector() = default;
  PodVector(const PodVector&) = delete;
  PodVector& operator=(const PodVector&) = delete;
  PodVector(PodVector&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)),
        size_(std::exchange(o.size_, 0)),
        capacity_(std::exchange(o.capacity_, 0)),
        mapped_(std::exchange(o.mapped_, 0)) {}
  PodVector& operator=(PodVector&& o) noexcept {
    if (this != &o) {
      Release();
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
      capacity_ = std::exchange(o.capacity_, 0);
      mapped_ = std::exchange(o.mapped_, 0);
    }
    return *this;
  }
  ~PodVector() { Release(); }

  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }

  // Room for `n` elements without moving again.
  void reserve(size_t n) {
    if (n <= capacity_) return;
    size_t bytes = n * sizeof(T);
    void* p = nullptr;
    if (bytes < kMapBytes) {
      p = std::realloc(data_, bytes);
      if (p == nullptr) throw std::bad_alloc();
    } else {
      bytes = PageRounded(bytes);
      size_t got = 0;
      if (void* kept = TakeMappedBlock(bytes, &got); kept != nullptr) {
        p = kept;
        if (size_ > 0) std::memcpy(p, data_, size_ * sizeof(T));
        if (mapped_ > 0) {
          KeepMappedBlock(data_, mapped_);
        } else {
          std::free(data_);
        }
        bytes = got;
      } else if (mapped_ > 0) {
        p = mremap(data_, mapped_, bytes, MREMAP_MAYMOVE);
        if (p == MAP_FAILED) throw std::bad_alloc();
      } else {
        p = Map(bytes, false, &bytes);
        if (size_ > 0) std::memcpy(p, data_, size_ * sizeof(T));
        std::free(data_);
      }
      mapped_ = bytes;
    }
    data_ = static_cast<T*>(p);
    capacity_ = bytes / sizeof(T);
  }
  // `n` elements: the ones past the old size are T{}; growth at least doubles the capacity.
  void resize(size_t n) {
    if (n > capacity_) reserve(std::max(n, capacity_ * 2));
    for (size_t i = size_; i < n; ++i) new (data_ + i) T{};
    size_ = n;
  }
  // Exactly `n` elements of all-zero bytes, in a new block (what was held is released): a large
  // block comes zeroed from the kernel rather than written over -- for a hash table whose zero
  // bytes mean an empty slot, rebuilt at twice the size.
  void assign_zero(size_t n) {
    Release();
    data_ = nullptr;
    size_ = capacity_ = mapped_ = 0;
    if (n == 0) return;
    size_t bytes = n * sizeof(T);
    void* p = nullptr;
    if (bytes < kMapBytes) {
      p = std::calloc(n, sizeof(T));
      if (p == nullptr) throw std::bad_alloc();
    } else {
      bytes = PageRounded(bytes);
      // Populated at once: a table's first probe of a page would otherwise map the shared zero
      // page, and its first write then fault a second time.
      p = Map(bytes, true, &bytes);
      mapped_ = bytes;
    }
    data_ = static_cast<T*>(p);
    size_ = capacity_ = n;
  }
  void push_back(const T& v) {
    if (size_ == capacity_) reserve(std::max<size_t>(16, capacity_ * 2));
    data_[size_++] = v;
  }
  // Appends the n elements at `from` (which must not point into this vector).
  void append(const T* from, size_t n) {
    if (size_ + n > capacity_) reserve(std::max<size_t>({16, size_ + n, capacity_ * 2}));
    if (n > 0) std::memcpy(data_ + size_, from, n * sizeof(T));
    size_ += n;
  }

 private:
  static constexpr size_t kMapBytes = size_t{1} << 20;
  static constexpr size_t kPage = 4096;
  static size_t PageRounded(size_t bytes) { return (bytes + kPage - 1) / kPage * kPage; }
  // `bytes` of fresh zeroed anonymous memory, backed by 2 MiB pages where the kernel has them
  // (transparent huge pages, which Debian enables for regions that ask): a table of hundreds of
  // megabytes then faults a page per 2 MiB rather than per 4 KiB. A hint: without them, 4 KiB
  // pages. Populated (faulted in) at once when asked.
  static void* Map(size_t bytes, bool populate, size_t* mapped) {
    // A kept block is zeroed here (populated already), as a fresh mapping comes from the kernel.
    if (void* kept = TakeMappedBlock(bytes, mapped); kept != nullptr) {
      if (populate) std::memset(kept, 0, bytes);
      return kept;
    }
    *mapped = bytes;
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    madvise(p, bytes, MADV_HUGEPAGE);
    if (populate) {
      // MADV_POPULATE_WRITE is Linux 5.14's; before it, a write to each page faults it in.
      bool populated = false;
#ifdef MADV_POPULATE_WRITE
      populated = madvise(p, bytes, MADV_POPULATE_WRITE) == 0;
#endif
      for (size_t at = 0; !populated && at < bytes; at += kPage) {
        static_cast<volatile char*>(p)[at] = 0;
      }
    }
    return p;
  }
  void Release() {
    if (mapped_ > 0) {
      KeepMappedBlock(data_, mapped_);
    } else {
      std::free(data_);
    }
  }

  T* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
  size_t mapped_ = 0;  // the bytes mapped for data_ (0: it came from malloc)
};

}  // namespace floe
