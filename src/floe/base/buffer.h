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
#include <vector>

namespace floe {

using ByteView = std::span<const uint8_t>;

inline ByteView AsBytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}
inline std::string_view AsStringView(ByteView b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

class Buffer {
 public:
  Buffer() = default;
  explicit Buffer(std::vector<uint8_t> bytes);
  static Buffer FromString(std::string_view s);
  static Buffer Copy(ByteView bytes);

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
  std::shared_ptr<const std::vector<uint8_t>> owner_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace floe
