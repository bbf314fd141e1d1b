#include "floe/parquet/bit_packed.h"

#include "floe/parquet/bit_util_internal.h"

namespace floe::parquet {

uint64_t BitPackedLevelDecoder::EncodedLength(int64_t num_values, int bit_width) {
  return internal::BytesForBits(static_cast<uint64_t>(num_values) *
                                static_cast<uint64_t>(bit_width));
}

Status BitPackedLevelDecoder::Reset(ByteView data, int bit_width, int64_t num_values) {
  if (bit_width < 0 || bit_width > 16) {
    return Corrupt("BIT_PACKED: level bit width {} is outside 0..16", bit_width);
  }
  if (num_values < 0 || EncodedLength(num_values, bit_width) > data.size()) {
    return Corrupt("BIT_PACKED: {} levels of {} bits need {} bytes, {} are there", num_values,
                   bit_width, EncodedLength(num_values, bit_width), data.size());
  }
  data_ = data;
  bit_width_ = bit_width;
  bit_pos_ = 0;
  values_left_ = num_values;
  return {};
}

Status BitPackedLevelDecoder::Decode(std::span<int16_t> out) {
  if (static_cast<int64_t>(out.size()) > values_left_) {
    return Corrupt("BIT_PACKED: {} levels requested, {} left", out.size(), values_left_);
  }
  for (auto& level : out) {
    uint32_t v = 0;
    for (int b = 0; b < bit_width_; ++b, ++bit_pos_) {
      v = (v << 1) | ((data_[bit_pos_ >> 3] >> (7 - (bit_pos_ & 7))) & 1);
    }
    level = static_cast<int16_t>(v);
  }
  values_left_ -= static_cast<int64_t>(out.size());
  return {};
}

}  // namespace floe::parquet
