#include "floe/base/buffer.h"

#include <algorithm>

namespace floe {

Buffer::Buffer(std::vector<uint8_t> bytes) {
  auto owner = std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
  data_ = owner->data();
  size_ = owner->size();
  owner_ = std::move(owner);
}

Buffer::Buffer(ByteVector bytes) {
  auto owner = std::make_shared<const ByteVector>(std::move(bytes));
  data_ = owner->data();
  size_ = owner->size();
  owner_ = std::move(owner);
}

Buffer Buffer::FromString(std::string_view s) { return Copy(AsBytes(s)); }

Buffer Buffer::Copy(ByteView bytes) {
  return Buffer(std::vector<uint8_t>(bytes.begin(), bytes.end()));
}

Buffer Buffer::Slice(size_t offset, size_t length) const {
  Buffer out;
  out.owner_ = owner_;
  offset = std::min(offset, size_);
  out.data_ = data_ + offset;
  out.size_ = std::min(length, size_ - offset);
  return out;
}

}  // namespace floe
