// PLAIN: values back to back (little-endian numbers, 12-byte INT96, type_length-byte FLBA,
// length-prefixed BYTE_ARRAY, BOOLEAN one bit each LSB first); also every dictionary page's
// encoding. The decoder reads straight from the page bytes, every length checked.
#pragma once

#include <cstdint>
#include <vector>

#include "floe/parquet/decoder.h"
#include "floe/parquet/encoder.h"

namespace floe::parquet {

class PlainDecoder final : public Decoder {
 public:
  PlainDecoder(PhysicalType type, int32_t type_length);

  Encoding encoding() const override { return Encoding::kPlain; }
  Status SetData(int64_t num_values, ByteView data) override;
  int64_t values_left() const override { return values_left_; }

  Status Decode(std::span<bool> out) override;
  Status Decode(std::span<int32_t> out) override;
  Status Decode(std::span<int64_t> out) override;
  Status Decode(std::span<float> out) override;
  Status Decode(std::span<double> out) override;
  Status DecodeFixedWidth(std::span<uint8_t> out) override;
  Status DecodeByteArrays(int64_t n, ByteArrayBuilder* out) override;
  Status Skip(int64_t n) override;

 private:
  template <typename T>
  Status DecodeNumbers(PhysicalType expected, std::span<T> out);
  Status Take(int64_t n);
  Status ConsumeFixed(int64_t n, int64_t width, const uint8_t** start);

  PhysicalType type_;
  int32_t width_;  // bytes per value; 0 for BOOLEAN and BYTE_ARRAY
  ByteView data_;
  size_t pos_ = 0;        // next byte
  uint64_t bit_pos_ = 0;  // next bit, BOOLEAN only
  int64_t values_left_ = 0;
};

class PlainEncoder final : public Encoder {
 public:
  PlainEncoder(PhysicalType type, int32_t type_length);

  Encoding encoding() const override { return Encoding::kPlain; }
  Status Put(std::span<const bool> values) override;
  Status Put(std::span<const int32_t> values) override;
  Status Put(std::span<const int64_t> values) override;
  Status Put(std::span<const float> values) override;
  Status Put(std::span<const double> values) override;
  Status PutFixedWidth(std::span<const uint8_t> values) override;
  Status PutByteArrays(std::span<const int32_t> offsets, ByteView data) override;
  int64_t num_values() const override { return num_values_; }
  size_t EstimatedSize() const override;
  Status Flush(std::vector<uint8_t>* out) override;

 private:
  template <typename T>
  Status PutNumbers(PhysicalType expected, std::span<const T> values);

  PhysicalType type_;
  int32_t width_;
  std::vector<uint8_t> buffer_;
  std::vector<uint64_t> bits_;  // BOOLEAN: values as 0/1, packed on Flush
  int64_t num_values_ = 0;
};

}  // namespace floe::parquet
