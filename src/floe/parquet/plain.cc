#include "floe/parquet/plain.h"

#include <cstring>

#include "floe/parquet/bit_util_internal.h"

namespace floe::parquet {

namespace {

int32_t PlainWidth(PhysicalType type, int32_t type_length) {
  return type == PhysicalType::kFixedLenByteArray ? type_length : PhysicalTypeByteWidth(type);
}

}  // namespace

PlainDecoder::PlainDecoder(PhysicalType type, int32_t type_length)
    : type_(type), width_(PlainWidth(type, type_length)) {}

Status PlainDecoder::SetData(int64_t num_values, ByteView data) {
  if (num_values < 0) return Corrupt("PLAIN: negative value count {}", num_values);
  data_ = data;
  pos_ = 0;
  bit_pos_ = 0;
  values_left_ = num_values;
  return {};
}

Status PlainDecoder::Take(int64_t n) {
  if (n > values_left_) {
    return Corrupt("PLAIN {}: {} values requested, the page has {} left", PhysicalTypeName(type_),
                   n, values_left_);
  }
  values_left_ -= n;
  return {};
}

Status PlainDecoder::ConsumeFixed(int64_t n, int64_t width, const uint8_t** start) {
  uint64_t bytes = static_cast<uint64_t>(n) * static_cast<uint64_t>(width);
  if (bytes > data_.size() - pos_) {
    return Corrupt("PLAIN {}: page ends after {} of {} values", PhysicalTypeName(type_),
                   (data_.size() - pos_) / static_cast<uint64_t>(width), n);
  }
  FLOE_RETURN_IF_ERROR(Take(n));
  *start = data_.data() + pos_;
  pos_ += static_cast<size_t>(bytes);
  return {};
}

template <typename T>
Status PlainDecoder::DecodeNumbers(PhysicalType expected, std::span<T> out) {
  if (type_ != expected) return WrongOutput(PhysicalTypeName(expected));
  const uint8_t* src = nullptr;
  FLOE_RETURN_IF_ERROR(ConsumeFixed(static_cast<int64_t>(out.size()), sizeof(T), &src));
  if (!out.empty()) std::memcpy(out.data(), src, out.size() * sizeof(T));
  return {};
}

Status PlainDecoder::Decode(std::span<int32_t> out) {
  return DecodeNumbers(PhysicalType::kInt32, out);
}
Status PlainDecoder::Decode(std::span<int64_t> out) {
  return DecodeNumbers(PhysicalType::kInt64, out);
}
Status PlainDecoder::Decode(std::span<float> out) {
  return DecodeNumbers(PhysicalType::kFloat, out);
}
Status PlainDecoder::Decode(std::span<double> out) {
  return DecodeNumbers(PhysicalType::kDouble, out);
}

Status PlainDecoder::Decode(std::span<bool> out) {
  if (type_ != PhysicalType::kBoolean) return WrongOutput("BOOLEAN");
  const uint64_t n = out.size();
  const uint64_t bits_left = uint64_t{data_.size()} * 8 - bit_pos_;
  if (n > bits_left) {
    return Corrupt("PLAIN BOOLEAN: page ends after {} of {} values", bits_left, n);
  }
  FLOE_RETURN_IF_ERROR(Take(static_cast<int64_t>(n)));
  for (uint64_t i = 0; i < n; ++i, ++bit_pos_) {
    out[i] = (data_[bit_pos_ >> 3] >> (bit_pos_ & 7)) & 1;
  }
  return {};
}

Status PlainDecoder::DecodeFixedWidth(std::span<uint8_t> out) {
  if (type_ != PhysicalType::kInt96 && type_ != PhysicalType::kFixedLenByteArray) {
    return WrongOutput("fixed-width");
  }
  if (out.size() % width_ != 0) {
    return Internal("PLAIN {}: output of {} bytes is not a whole number of {}-byte values",
                    PhysicalTypeName(type_), out.size(), width_);
  }
  const uint8_t* src = nullptr;
  FLOE_RETURN_IF_ERROR(ConsumeFixed(static_cast<int64_t>(out.size() / width_), width_, &src));
  if (!out.empty()) std::memcpy(out.data(), src, out.size());
  return {};
}

Status PlainDecoder::DecodeByteArrays(int64_t n, ByteArrayBuilder* out) {
  if (type_ != PhysicalType::kByteArray) return WrongOutput("BYTE_ARRAY");
  FLOE_RETURN_IF_ERROR(Take(n));
  // The values' bytes are at most what is left of the page less their 4-byte lengths.
  const size_t left = data_.size() - pos_;
  const size_t lengths = static_cast<size_t>(n) * 4;
  out->Reserve(n, static_cast<int64_t>(left > lengths ? left - lengths : 0));
  for (int64_t i = 0; i < n; ++i) {
    if (data_.size() - pos_ < 4) {
      return Corrupt("PLAIN BYTE_ARRAY: page ends inside the length of value {} of {}", i, n);
    }
    uint32_t length = internal::LoadLittleEndian<uint32_t>(data_.data() + pos_);
    pos_ += 4;
    if (length > data_.size() - pos_) {
      return Corrupt("PLAIN BYTE_ARRAY: value {} of {} claims {} bytes, {} remain", i, n, length,
                     data_.size() - pos_);
    }
    FLOE_RETURN_IF_ERROR(out->Append(data_.subspan(pos_, length)));
    pos_ += length;
  }
  return {};
}

Status PlainDecoder::Skip(int64_t n) {
  if (n < 0) return Internal("PLAIN: negative skip");
  switch (type_) {
    case PhysicalType::kBoolean: {
      const uint64_t bits_left = uint64_t{data_.size()} * 8 - bit_pos_;
      if (static_cast<uint64_t>(n) > bits_left) {
        return Corrupt("PLAIN BOOLEAN: page ends after {} of {} values", bits_left, n);
      }
      FLOE_RETURN_IF_ERROR(Take(n));
      bit_pos_ += static_cast<uint64_t>(n);
      return {};
    }
    case PhysicalType::kByteArray:
      FLOE_RETURN_IF_ERROR(Take(n));
      for (int64_t i = 0; i < n; ++i) {
        if (data_.size() - pos_ < 4) {
          return Corrupt("PLAIN BYTE_ARRAY: page ends inside the length of value {} of {}", i, n);
        }
        uint32_t length = internal::LoadLittleEndian<uint32_t>(data_.data() + pos_);
        pos_ += 4;
        if (length > data_.size() - pos_) {
          return Corrupt("PLAIN BYTE_ARRAY: value {} of {} claims {} bytes, {} remain", i, n,
                         length, data_.size() - pos_);
        }
        pos_ += length;
      }
      return {};
    default: {
      const uint8_t* src = nullptr;
      return ConsumeFixed(n, width_, &src);
    }
  }
}

// ---- encoder --------------------------------------------------------------------------------

PlainEncoder::PlainEncoder(PhysicalType type, int32_t type_length)
    : type_(type), width_(PlainWidth(type, type_length)) {}

template <typename T>
Status PlainEncoder::PutNumbers(PhysicalType expected, std::span<const T> values) {
  if (type_ != expected) return WrongInput(PhysicalTypeName(expected));
  const auto* bytes = reinterpret_cast<const uint8_t*>(values.data());
  buffer_.insert(buffer_.end(), bytes, bytes + values.size_bytes());
  num_values_ += static_cast<int64_t>(values.size());
  return {};
}

Status PlainEncoder::Put(std::span<const int32_t> v) { return PutNumbers(PhysicalType::kInt32, v); }
Status PlainEncoder::Put(std::span<const int64_t> v) { return PutNumbers(PhysicalType::kInt64, v); }
Status PlainEncoder::Put(std::span<const float> v) { return PutNumbers(PhysicalType::kFloat, v); }
Status PlainEncoder::Put(std::span<const double> v) { return PutNumbers(PhysicalType::kDouble, v); }

Status PlainEncoder::Put(std::span<const bool> values) {
  if (type_ != PhysicalType::kBoolean) return WrongInput("BOOLEAN");
  for (bool b : values) bits_.push_back(b ? 1 : 0);
  num_values_ += static_cast<int64_t>(values.size());
  return {};
}

Status PlainEncoder::PutFixedWidth(std::span<const uint8_t> values) {
  if (type_ != PhysicalType::kInt96 && type_ != PhysicalType::kFixedLenByteArray) {
    return WrongInput("fixed-width");
  }
  if (values.size() % width_ != 0) {
    return Internal("PLAIN {}: {} bytes is not a whole number of {}-byte values",
                    PhysicalTypeName(type_), values.size(), width_);
  }
  buffer_.insert(buffer_.end(), values.begin(), values.end());
  num_values_ += static_cast<int64_t>(values.size() / width_);
  return {};
}

Status PlainEncoder::PutByteArrays(std::span<const int32_t> offsets, ByteView data) {
  if (type_ != PhysicalType::kByteArray) return WrongInput("BYTE_ARRAY");
  for (size_t i = 0; i + 1 < offsets.size(); ++i) {
    int32_t begin = offsets[i], end = offsets[i + 1];
    if (begin < 0 || end < begin || static_cast<size_t>(end) > data.size()) {
      return InvalidInput("PLAIN BYTE_ARRAY: offsets [{}, {}) are not inside {} bytes of data",
                          begin, end, data.size());
    }
    uint32_t length = static_cast<uint32_t>(end - begin);
    const auto* l = reinterpret_cast<const uint8_t*>(&length);
    buffer_.insert(buffer_.end(), l, l + 4);
    buffer_.insert(buffer_.end(), data.begin() + begin, data.begin() + end);
    ++num_values_;
  }
  return {};
}

size_t PlainEncoder::EstimatedSize() const {
  return buffer_.size() + static_cast<size_t>(internal::BytesForBits(bits_.size()));
}

Status PlainEncoder::Flush(std::vector<uint8_t>* out) {
  if (type_ == PhysicalType::kBoolean) {
    internal::PackBits(bits_.data(), bits_.size(), 1, out);
  } else {
    out->insert(out->end(), buffer_.begin(), buffer_.end());
  }
  buffer_.clear();
  bits_.clear();
  num_values_ = 0;
  return {};
}

}  // namespace floe::parquet
