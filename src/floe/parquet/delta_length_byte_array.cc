#include "floe/parquet/delta_length_byte_array.h"

#include <algorithm>

namespace floe::parquet {

Status DeltaLengthByteArrayDecoder::SetData(int64_t num_values, ByteView data) {
  if (num_values < 0) {
    return Corrupt("DELTA_LENGTH_BYTE_ARRAY: negative value count {}", num_values);
  }
  auto length = DeltaBinaryPackedDecoder::EncodedLength(data);
  if (!length) return Corrupt("DELTA_LENGTH_BYTE_ARRAY lengths: {}", length.error().message);
  FLOE_RETURN_IF_ERROR(lengths_.SetData(num_values, data.first(*length)));
  bytes_ = data.subspan(*length);
  pos_ = 0;
  values_left_ = std::min(num_values, lengths_.total_values());
  return {};
}

Status DeltaLengthByteArrayDecoder::Next(int64_t n, std::vector<ByteView>* out) {
  if (n > values_left_) {
    return Corrupt("DELTA_LENGTH_BYTE_ARRAY: {} values requested, the page has {} left", n,
                   values_left_);
  }
  out->clear();
  while (n > 0) {
    int64_t k = std::min<int64_t>(n, 1024);
    scratch_.resize(static_cast<size_t>(k));
    FLOE_RETURN_IF_ERROR(lengths_.Decode(std::span<int32_t>(scratch_)));
    for (int32_t length : scratch_) {
      if (length < 0 || static_cast<size_t>(length) > bytes_.size() - pos_) {
        return Corrupt("DELTA_LENGTH_BYTE_ARRAY: a value of {} bytes does not fit the {} left",
                       length, bytes_.size() - pos_);
      }
      out->push_back(bytes_.subspan(pos_, static_cast<size_t>(length)));
      pos_ += static_cast<size_t>(length);
    }
    n -= k;
    values_left_ -= k;
  }
  return {};
}

Status DeltaLengthByteArrayDecoder::DecodeByteArrays(int64_t n, ByteArrayBuilder* out) {
  std::vector<ByteView> values;
  FLOE_RETURN_IF_ERROR(Next(n, &values));
  for (ByteView v : values) FLOE_RETURN_IF_ERROR(out->Append(v));
  return {};
}

Status DeltaLengthByteArrayDecoder::Skip(int64_t n) {
  std::vector<ByteView> values;
  return Next(n, &values);
}

Status DeltaLengthByteArrayEncoder::PutByteArrays(std::span<const int32_t> offsets, ByteView data) {
  for (size_t i = 0; i + 1 < offsets.size(); ++i) {
    int32_t begin = offsets[i], end = offsets[i + 1];
    if (begin < 0 || end < begin || static_cast<size_t>(end) > data.size()) {
      return InvalidInput("DELTA_LENGTH_BYTE_ARRAY: offsets [{}, {}) are not inside {} bytes",
                          begin, end, data.size());
    }
    Put(data.subspan(static_cast<size_t>(begin), static_cast<size_t>(end - begin)));
  }
  return {};
}

void DeltaLengthByteArrayEncoder::Put(ByteView value) {
  int32_t length = static_cast<int32_t>(value.size());
  (void)lengths_.Put(std::span<const int32_t>(&length, 1));
  bytes_.insert(bytes_.end(), value.begin(), value.end());
}

Status DeltaLengthByteArrayEncoder::Flush(std::vector<uint8_t>* out) {
  FLOE_RETURN_IF_ERROR(lengths_.Flush(out));
  out->insert(out->end(), bytes_.begin(), bytes_.end());
  bytes_.clear();
  return {};
}

}  // namespace floe::parquet
