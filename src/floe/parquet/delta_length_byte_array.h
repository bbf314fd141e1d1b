// DELTA_LENGTH_BYTE_ARRAY: BYTE_ARRAY values as their lengths (a DELTA_BINARY_PACKED stream)
// followed by all the bytes back to back. The decoder finds where the lengths end by walking
// their block headers, then reads lengths lazily, checking each against the bytes left.
#pragma once

#include <cstdint>
#include <vector>

#include "floe/parquet/decoder.h"
#include "floe/parquet/delta_binary_packed.h"
#include "floe/parquet/encoder.h"

namespace floe::parquet {

class DeltaLengthByteArrayDecoder final : public Decoder {
 public:
  Encoding encoding() const override { return Encoding::kDeltaLengthByteArray; }
  Status SetData(int64_t num_values, ByteView data) override;
  int64_t values_left() const override { return values_left_; }
  Status DecodeByteArrays(int64_t n, ByteArrayBuilder* out) override;
  Status Skip(int64_t n) override;

  // For DELTA_BYTE_ARRAY: the next `n` values as views into the page (valid while it is).
  Status Next(int64_t n, std::vector<ByteView>* out);

 private:
  DeltaBinaryPackedDecoder lengths_{PhysicalType::kInt32};
  ByteView bytes_;
  size_t pos_ = 0;
  int64_t values_left_ = 0;
  std::vector<int32_t> scratch_;
};

class DeltaLengthByteArrayEncoder final : public Encoder {
 public:
  Encoding encoding() const override { return Encoding::kDeltaLengthByteArray; }
  Status PutByteArrays(std::span<const int32_t> offsets, ByteView data) override;
  // One value at a time (DELTA_BYTE_ARRAY's suffixes).
  void Put(ByteView value);
  int64_t num_values() const override { return lengths_.num_values(); }
  size_t EstimatedSize() const override { return lengths_.EstimatedSize() + bytes_.size(); }
  Status Flush(std::vector<uint8_t>* out) override;

 private:
  DeltaBinaryPackedEncoder lengths_{PhysicalType::kInt32};
  std::vector<uint8_t> bytes_;
};

}  // namespace floe::parquet
