// ByteArrayBuilder: where decoders put BYTE_ARRAY values -- the Arrow binary layout, int32
// offsets (one more than the values, starting at 0) plus one contiguous data buffer. A stand-in
// for the columnar module's vectors, which take these two arrays as they are. Not thread safe.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <string_view>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/base/result.h"

namespace floe::parquet {

class ByteArrayBuilder {
 public:
  ByteArrayBuilder() : offsets_{0} {}

  int64_t size() const { return static_cast<int64_t>(offsets_.size()) - 1; }
  std::span<const int32_t> offsets() const { return offsets_; }
  std::span<const uint8_t> data() const { return data_; }
  std::string_view Value(int64_t i) const {
    return {reinterpret_cast<const char*>(data_.data()) + offsets_[i],
            static_cast<size_t>(offsets_[i + 1] - offsets_[i])};
  }

  // Room for `values` more values of `bytes` in all. Grows geometrically: decoders reserve a
  // page at a time, and an exact reserve would copy everything held once per page.
  void Reserve(int64_t values, int64_t bytes) {
    GrowBy(&offsets_, static_cast<size_t>(values));
    GrowBy(&data_, static_cast<size_t>(bytes));
  }

  // Continues an Arrow binary array (offsets from 0, one more than the values; data) instead
  // of starting empty; Release hands it back.
  void Adopt(std::vector<int32_t> offsets, ByteVector data) {
    offsets_ = std::move(offsets);
    data_ = std::move(data);
    if (offsets_.empty()) offsets_.push_back(0);
  }

  // Fails (and appends nothing) if the data would pass the int32 offsets' 2 GiB.
  Status Append(ByteView value) {
    FLOE_RETURN_IF_ERROR(CheckRoom(value.size()));
    AppendBytes(value);
    offsets_.push_back(static_cast<int32_t>(data_.size()));
    return {};
  }

  // Appends prefix + suffix as one value (DELTA_BYTE_ARRAY).
  Status Append(ByteView prefix, ByteView suffix) {
    FLOE_RETURN_IF_ERROR(CheckRoom(prefix.size() + suffix.size()));
    AppendBytes(prefix);
    AppendBytes(suffix);
    offsets_.push_back(static_cast<int32_t>(data_.size()));
    return {};
  }

  void Clear() {
    offsets_.assign(1, 0);
    data_.clear();
  }

  // Hands the offsets and data over without a copy; the builder is left empty.
  void Release(std::vector<int32_t>* offsets, ByteVector* data) {
    *offsets = std::move(offsets_);
    *data = std::move(data_);
    Clear();
  }

 private:
  Status CheckRoom(size_t bytes) const {
    if (bytes > static_cast<size_t>(std::numeric_limits<int32_t>::max()) - data_.size()) {
      return Unsupported("byte array values exceed 2 GiB in one batch (int32 offsets)");
    }
    return {};
  }

  // Grows, then one memcpy. vector::insert copies byte by byte through the allocator's
  // construct, which unoptimised builds (the sanitizer suite's) call for every byte: about 50 s
  // per GiB there, against about 20 s for resize's default-initialisation.
  void AppendBytes(ByteView bytes) {
    if (bytes.empty()) return;
    const size_t at = data_.size();
    data_.resize(at + bytes.size());
    std::memcpy(data_.data() + at, bytes.data(), bytes.size());
  }

  template <typename V>
  static void GrowBy(V* v, size_t extra) {
    const size_t need = v->size() + extra;
    if (need > v->capacity()) v->reserve(std::max(need, v->capacity() * 2));
  }

  std::vector<int32_t> offsets_;
  ByteVector data_;
};

}  // namespace floe::parquet
