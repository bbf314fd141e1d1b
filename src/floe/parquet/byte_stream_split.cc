#include "floe/parquet/byte_stream_split.h"

#include <cstring>

namespace floe::parquet {

namespace {

size_t SplitWidth(PhysicalType type, int32_t type_length) {
  return type == PhysicalType::kFixedLenByteArray
             ? static_cast<size_t>(type_length)
             : static_cast<size_t>(PhysicalTypeByteWidth(type));
}

}  // namespace

ByteStreamSplitDecoder::ByteStreamSplitDecoder(PhysicalType type, int32_t type_length)
    : type_(type), width_(SplitWidth(type, type_length)) {}

Status ByteStreamSplitDecoder::SetData(int64_t num_values, ByteView data) {
  if (num_values < 0) return Corrupt("BYTE_STREAM_SPLIT: negative value count {}", num_values);
  if (data.size() % width_ != 0) {
    return Corrupt("BYTE_STREAM_SPLIT: {} bytes is not a whole number of {}-byte values",
                   data.size(), width_);
  }
  stride_ = data.size() / width_;
  if (static_cast<uint64_t>(num_values) > stride_) {
    return Corrupt("BYTE_STREAM_SPLIT: {} values need {} bytes, the page has {}", num_values,
                   static_cast<uint64_t>(num_values) * width_, data.size());
  }
  data_ = data;
  next_ = 0;
  values_left_ = num_values;
  return {};
}

Status ByteStreamSplitDecoder::Gather(PhysicalType expected, uint8_t* out, size_t bytes) {
  if (type_ != expected) return WrongOutput(PhysicalTypeName(expected));
  if (bytes % width_ != 0) {
    return Internal("BYTE_STREAM_SPLIT: output of {} bytes is not a whole number of values", bytes);
  }
  const size_t n = bytes / width_;
  if (n > static_cast<uint64_t>(values_left_)) {
    return Corrupt("BYTE_STREAM_SPLIT: {} values requested, the page has {} left", n, values_left_);
  }
  for (size_t b = 0; b < width_; ++b) {
    const uint8_t* stream = data_.data() + b * stride_ + next_;
    for (size_t i = 0; i < n; ++i) out[i * width_ + b] = stream[i];
  }
  next_ += n;
  values_left_ -= static_cast<int64_t>(n);
  return {};
}

Status ByteStreamSplitDecoder::Decode(std::span<int32_t> out) {
  return Gather(PhysicalType::kInt32, reinterpret_cast<uint8_t*>(out.data()), out.size_bytes());
}
Status ByteStreamSplitDecoder::Decode(std::span<int64_t> out) {
  return Gather(PhysicalType::kInt64, reinterpret_cast<uint8_t*>(out.data()), out.size_bytes());
}
Status ByteStreamSplitDecoder::Decode(std::span<float> out) {
  return Gather(PhysicalType::kFloat, reinterpret_cast<uint8_t*>(out.data()), out.size_bytes());
}
Status ByteStreamSplitDecoder::Decode(std::span<double> out) {
  return Gather(PhysicalType::kDouble, reinterpret_cast<uint8_t*>(out.data()), out.size_bytes());
}
Status ByteStreamSplitDecoder::DecodeFixedWidth(std::span<uint8_t> out) {
  return Gather(PhysicalType::kFixedLenByteArray, out.data(), out.size());
}

Status ByteStreamSplitDecoder::Skip(int64_t n) {
  if (n < 0 || n > values_left_) {
    return Corrupt("BYTE_STREAM_SPLIT: {} values skipped, the page has {} left", n, values_left_);
  }
  next_ += static_cast<size_t>(n);
  values_left_ -= n;
  return {};
}

ByteStreamSplitEncoder::ByteStreamSplitEncoder(PhysicalType type, int32_t type_length)
    : type_(type), width_(SplitWidth(type, type_length)) {}

Status ByteStreamSplitEncoder::Append(PhysicalType expected, const void* values, size_t bytes) {
  if (type_ != expected) return WrongInput(PhysicalTypeName(expected));
  if (bytes % width_ != 0) {
    return Internal("BYTE_STREAM_SPLIT: {} bytes is not a whole number of values", bytes);
  }
  const auto* p = static_cast<const uint8_t*>(values);
  buffer_.insert(buffer_.end(), p, p + bytes);
  return {};
}

Status ByteStreamSplitEncoder::Put(std::span<const int32_t> v) {
  return Append(PhysicalType::kInt32, v.data(), v.size_bytes());
}
Status ByteStreamSplitEncoder::Put(std::span<const int64_t> v) {
  return Append(PhysicalType::kInt64, v.data(), v.size_bytes());
}
Status ByteStreamSplitEncoder::Put(std::span<const float> v) {
  return Append(PhysicalType::kFloat, v.data(), v.size_bytes());
}
Status ByteStreamSplitEncoder::Put(std::span<const double> v) {
  return Append(PhysicalType::kDouble, v.data(), v.size_bytes());
}
Status ByteStreamSplitEncoder::PutFixedWidth(std::span<const uint8_t> v) {
  return Append(PhysicalType::kFixedLenByteArray, v.data(), v.size());
}

Status ByteStreamSplitEncoder::Flush(std::vector<uint8_t>* out) {
  const size_t n = buffer_.size() / width_;
  const size_t start = out->size();
  out->resize(start + buffer_.size());
  uint8_t* dst = out->data() + start;
  for (size_t i = 0; i < n; ++i) {
    for (size_t b = 0; b < width_; ++b) dst[b * n + i] = buffer_[i * width_ + b];
  }
  buffer_.clear();
  return {};
}

}  // namespace floe::parquet
