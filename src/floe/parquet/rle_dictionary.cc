#include "floe/parquet/rle_dictionary.h"

#include <algorithm>

#include "floe/parquet/bit_util_internal.h"

namespace floe::parquet {

Status RleDictionaryDecoder::SetData(int64_t num_values, ByteView data) {
  if (num_values < 0) {
    return Corrupt("{}: negative value count {}", EncodingName(encoding_), num_values);
  }
  values_left_ = num_values;
  if (data.empty()) {
    if (num_values > 0) {
      return Corrupt("{}: page holds no bit width for {} indices", EncodingName(encoding_),
                     num_values);
    }
    return rle_.Reset({}, 0);
  }
  int bit_width = data[0];
  if (bit_width > kMaxRleBitWidth) {
    return Corrupt("{}: index bit width {} exceeds {}", EncodingName(encoding_), bit_width,
                   kMaxRleBitWidth);
  }
  return rle_.Reset(data.subspan(1), bit_width);
}

Status RleDictionaryDecoder::DecodeIndices(std::span<int32_t> out, int32_t dictionary_size) {
  if (static_cast<int64_t>(out.size()) > values_left_) {
    return Corrupt("{}: {} indices requested, the page has {} left", EncodingName(encoding_),
                   out.size(), values_left_);
  }
  FLOE_RETURN_IF_ERROR(rle_.Decode(out));
  values_left_ -= static_cast<int64_t>(out.size());
  // Unsigned compare: an index with the top bit set came out negative and is caught too.
  const auto limit = static_cast<uint32_t>(std::max(dictionary_size, 0));
  for (int i : out) {
    if (static_cast<uint32_t>(i) >= limit) {
      return Corrupt("{}: index {} is not below the dictionary size {}", EncodingName(encoding_),
                     static_cast<uint32_t>(i), dictionary_size);
    }
  }
  return {};
}

Status RleDictionaryDecoder::Skip(int64_t n) {
  if (n > values_left_) {
    return Corrupt("{}: {} indices skipped, the page has {} left", EncodingName(encoding_), n,
                   values_left_);
  }
  FLOE_RETURN_IF_ERROR(rle_.Skip(n));
  values_left_ -= n;
  return {};
}

void RleDictionaryEncoder::Put(std::span<const int32_t> indices) {
  for (int32_t i : indices) max_index_ = std::max(max_index_, i);
  indices_.insert(indices_.end(), indices.begin(), indices.end());
}

size_t RleDictionaryEncoder::EstimatedSize() const {
  RleBitPackedHybridEncoder probe(internal::BitWidth(static_cast<uint32_t>(max_index_)));
  return 1 +
         static_cast<size_t>(
             internal::BytesForBits(uint64_t{indices_.size() + 8} * probe.bit_width())) +
         indices_.size() / 4 + 16;
}

void RleDictionaryEncoder::Flush(std::vector<uint8_t>* out) {
  int bit_width = internal::BitWidth(static_cast<uint32_t>(max_index_));
  out->push_back(static_cast<uint8_t>(bit_width));
  RleBitPackedHybridEncoder rle(bit_width);
  rle.Put(indices_);
  rle.Flush(out);
  indices_.clear();
  max_index_ = 0;
}

}  // namespace floe::parquet
