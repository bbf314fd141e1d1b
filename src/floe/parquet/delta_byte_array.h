// DELTA_BYTE_ARRAY (front coding): each value as the prefix length it shares with the previous one
// (DELTA_BINARY_PACKED) plus its suffix (DELTA_LENGTH_BYTE_ARRAY), for BYTE_ARRAY and
// FIXED_LEN_BYTE_ARRAY. A prefix longer than the previous value is `corrupt`.
#pragma once

#include <cstdint>
#include <vector>

#include "floe/parquet/decoder.h"
#include "floe/parquet/delta_binary_packed.h"
#include "floe/parquet/delta_length_byte_array.h"
#include "floe/parquet/encoder.h"

namespace floe::parquet {

class DeltaByteArrayDecoder final : public Decoder {
 public:
  DeltaByteArrayDecoder(PhysicalType type, int32_t type_length)
      : type_(type), type_length_(type_length) {}

  Encoding encoding() const override { return Encoding::kDeltaByteArray; }
  Status SetData(int64_t num_values, ByteView data) override;
  int64_t values_left() const override { return values_left_; }
  Status DecodeByteArrays(int64_t n, ByteArrayBuilder* out) override;  // BYTE_ARRAY
  Status DecodeFixedWidth(std::span<uint8_t> out) override;            // FIXED_LEN_BYTE_ARRAY
  Status Skip(int64_t n) override;

 private:
  // Rebuilds the next n values; `emit` sees each one (valid until the next).
  template <typename Emit>
  Status Next(int64_t n, Emit emit);

  PhysicalType type_;
  int32_t type_length_;
  DeltaBinaryPackedDecoder prefixes_{PhysicalType::kInt32};
  DeltaLengthByteArrayDecoder suffixes_;
  std::vector<uint8_t> last_;
  int64_t values_left_ = 0;
  std::vector<int32_t> prefix_scratch_;
  std::vector<ByteView> suffix_scratch_;
};

class DeltaByteArrayEncoder final : public Encoder {
 public:
  DeltaByteArrayEncoder(PhysicalType type, int32_t type_length)
      : type_(type), type_length_(type_length) {}

  Encoding encoding() const override { return Encoding::kDeltaByteArray; }
  Status PutByteArrays(std::span<const int32_t> offsets, ByteView data) override;
  Status PutFixedWidth(std::span<const uint8_t> values) override;
  int64_t num_values() const override { return prefixes_.num_values(); }
  size_t EstimatedSize() const override {
    return prefixes_.EstimatedSize() + suffixes_.EstimatedSize();
  }
  Status Flush(std::vector<uint8_t>* out) override;

 private:
  void Put(ByteView value);

  PhysicalType type_;
  int32_t type_length_;
  DeltaBinaryPackedEncoder prefixes_{PhysicalType::kInt32};
  DeltaLengthByteArrayEncoder suffixes_;
  std::vector<uint8_t> last_;
};

}  // namespace floe::parquet
