#include "floe/parquet/delta_byte_array.h"

#include <algorithm>
#include <cstring>

namespace floe::parquet {

Status DeltaByteArrayDecoder::SetData(int64_t num_values, ByteView data) {
  if (num_values < 0) return Corrupt("DELTA_BYTE_ARRAY: negative value count {}", num_values);
  auto length = DeltaBinaryPackedDecoder::EncodedLength(data);
  if (!length) return Corrupt("DELTA_BYTE_ARRAY prefix lengths: {}", length.error().message);
  FLOE_RETURN_IF_ERROR(prefixes_.SetData(num_values, data.first(*length)));
  auto st = suffixes_.SetData(num_values, data.subspan(*length));
  if (!st) return Corrupt("DELTA_BYTE_ARRAY suffixes: {}", st.error().message);
  values_left_ = std::min(prefixes_.values_left(), suffixes_.values_left());
  last_.clear();
  return {};
}

template <typename Emit>
Status DeltaByteArrayDecoder::Next(int64_t n, Emit emit) {
  if (n > values_left_) {
    return Corrupt("DELTA_BYTE_ARRAY: {} values requested, the page has {} left", n, values_left_);
  }
  while (n > 0) {
    int64_t k = std::min<int64_t>(n, 1024);
    prefix_scratch_.resize(static_cast<size_t>(k));
    FLOE_RETURN_IF_ERROR(prefixes_.Decode(std::span<int32_t>(prefix_scratch_)));
    FLOE_RETURN_IF_ERROR(suffixes_.Next(k, &suffix_scratch_));
    for (int64_t i = 0; i < k; ++i) {
      int32_t prefix = prefix_scratch_[i];
      if (prefix < 0 || static_cast<size_t>(prefix) > last_.size()) {
        return Corrupt("DELTA_BYTE_ARRAY: prefix length {} exceeds the previous value's {} bytes",
                       prefix, last_.size());
      }
      ByteView suffix = suffix_scratch_[i];
      last_.resize(static_cast<size_t>(prefix));
      last_.insert(last_.end(), suffix.begin(), suffix.end());
      FLOE_RETURN_IF_ERROR(emit(ByteView(last_)));
    }
    n -= k;
    values_left_ -= k;
  }
  return {};
}

Status DeltaByteArrayDecoder::DecodeByteArrays(int64_t n, ByteArrayBuilder* out) {
  if (type_ != PhysicalType::kByteArray) return WrongOutput("BYTE_ARRAY");
  return Next(n, [out](ByteView v) { return out->Append(v); });
}

Status DeltaByteArrayDecoder::DecodeFixedWidth(std::span<uint8_t> out) {
  if (type_ != PhysicalType::kFixedLenByteArray) return WrongOutput("fixed-width");
  const size_t width = static_cast<size_t>(type_length_);
  if (out.size() % width != 0) {
    return Internal("DELTA_BYTE_ARRAY: output of {} bytes is not a whole number of {}-byte values",
                    out.size(), width);
  }
  size_t at = 0;
  return Next(static_cast<int64_t>(out.size() / width), [&](ByteView v) -> Status {
    if (v.size() != width) {
      return Corrupt("DELTA_BYTE_ARRAY: a FIXED_LEN_BYTE_ARRAY({}) value has {} bytes", width,
                     v.size());
    }
    std::memcpy(out.data() + at, v.data(), width);
    at += width;
    return {};
  });
}

Status DeltaByteArrayDecoder::Skip(int64_t n) {
  return Next(n, [](ByteView) -> Status { return {}; });
}

// ---- encoder --------------------------------------------------------------------------------

void DeltaByteArrayEncoder::Put(ByteView value) {
  size_t limit = std::min(value.size(), last_.size());
  int32_t prefix = 0;
  while (static_cast<size_t>(prefix) < limit && value[prefix] == last_[prefix]) ++prefix;
  (void)prefixes_.Put(std::span<const int32_t>(&prefix, 1));
  suffixes_.Put(value.subspan(static_cast<size_t>(prefix)));
  last_.assign(value.begin(), value.end());
}

Status DeltaByteArrayEncoder::PutByteArrays(std::span<const int32_t> offsets, ByteView data) {
  if (type_ != PhysicalType::kByteArray) return WrongInput("BYTE_ARRAY");
  for (size_t i = 0; i + 1 < offsets.size(); ++i) {
    int32_t begin = offsets[i], end = offsets[i + 1];
    if (begin < 0 || end < begin || static_cast<size_t>(end) > data.size()) {
      return InvalidInput("DELTA_BYTE_ARRAY: offsets [{}, {}) are not inside {} bytes", begin, end,
                          data.size());
    }
    Put(data.subspan(static_cast<size_t>(begin), static_cast<size_t>(end - begin)));
  }
  return {};
}

Status DeltaByteArrayEncoder::PutFixedWidth(std::span<const uint8_t> values) {
  if (type_ != PhysicalType::kFixedLenByteArray) return WrongInput("fixed-width");
  const size_t width = static_cast<size_t>(type_length_);
  if (values.size() % width != 0) {
    return Internal("DELTA_BYTE_ARRAY: {} bytes is not a whole number of {}-byte values",
                    values.size(), width);
  }
  for (size_t at = 0; at < values.size(); at += width) Put(values.subspan(at, width));
  return {};
}

Status DeltaByteArrayEncoder::Flush(std::vector<uint8_t>* out) {
  FLOE_RETURN_IF_ERROR(prefixes_.Flush(out));
  FLOE_RETURN_IF_ERROR(suffixes_.Flush(out));
  last_.clear();
  return {};
}

}  // namespace floe::parquet
