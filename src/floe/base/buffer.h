// Buffer: an immutable, reference-counted byte sequence with zero-copy slicing.
// Object-store reads return Buffers so that one coalesced GET can be handed out as many column
// chunks without copying. Safe to share between threads (the bytes never change after creation).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace floe {

using ByteView = std::span<const uint8_t>;

inline ByteView AsBytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}
inline std::string_view AsStringView(ByteView b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

// An allocator whose resize() leaves new elements uninitialised (default-initialised): for output
// buffers that are written right after they grow, where std::vector's zero-fill would be a second
// pass over the memory for nothing.
template <typename T>
struct DefaultInitAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  using std::allocator<T>::allocator;
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

// Bytes that grow without being zeroed first.
using ByteVector = std::vector<uint8_t, DefaultInitAllocator<uint8_t>>;

class Buffer {
 public:
  Buffer() = default;
  explicit Buffer(std::vector<uint8_t> bytes);
  explicit Buffer(ByteVector bytes);
  static Buffer FromString(std::string_view s);
  static Buffer Copy(ByteView bytes);
  // Takes over a vector of trivially copyable values, without copying: the buffer is their bytes.
  template <typename T, typename A>
  static Buffer Adopt(std::vector<T, A> values) {
    static_assert(std::is_trivially_copyable_v<T>);
    auto owner = std::make_shared<const std::vector<T, A>>(std::move(values));
    Buffer b;
    b.data_ = reinterpret_cast<const uint8_t*>(owner->data());
    b.size_ = owner->size() * sizeof(T);
    b.owner_ = std::move(owner);
    return b;
  }

  // `size` bytes at `data`, kept alive by `owner` (a mapping that unmaps itself, say) until the
  // last buffer sharing them goes.
  static Buffer Wrap(const uint8_t* data, size_t size, std::shared_ptr<const void> owner) {
    Buffer b;
    b.data_ = data;
    b.size_ = size;
    b.owner_ = std::move(owner);
    return b;
  }

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  ByteView view() const { return {data_, size_}; }
  std::string_view string_view() const { return AsStringView(view()); }
  std::string ToString() const { return std::string(string_view()); }
  uint8_t operator[](size_t i) const { return data_[i]; }

  // A view of [offset, offset + length) sharing this buffer's storage; clamps to the end.
  Buffer Slice(size_t offset, size_t length) const;

  friend bool operator==(const Buffer& a, const Buffer& b) {
    return a.string_view() == b.string_view();
  }

 private:
  std::shared_ptr<const void> owner_;  // what keeps data_ alive
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace floe
