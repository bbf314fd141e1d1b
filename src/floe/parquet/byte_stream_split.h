// BYTE_STREAM_SPLIT: K byte streams for K-byte values (FLOAT, DOUBLE, INT32, INT64,
// FIXED_LEN_BYTE_ARRAY) with no header, so the page length fixes the count: it must be a multiple
// of K, and length / K is the stride between streams.
#pragma once

#include <cstdint>
#include <vector>

#include "floe/parquet/decoder.h"
#include "floe/parquet/encoder.h"

namespace floe::parquet {

class ByteStreamSplitDecoder final : public Decoder {
 public:
  ByteStreamSplitDecoder(PhysicalType type, int32_t type_length);

  Encoding encoding() const override { return Encoding::kByteStreamSplit; }
  Status SetData(int64_t num_values, ByteView data) override;
  int64_t values_left() const override { return values_left_; }
  Status Decode(std::span<int32_t> out) override;
  Status Decode(std::span<int64_t> out) override;
  Status Decode(std::span<float> out) override;
  Status Decode(std::span<double> out) override;
  Status DecodeFixedWidth(std::span<uint8_t> out) override;
  Status Skip(int64_t n) override;

 private:
  Status Gather(PhysicalType expected, uint8_t* out, size_t bytes);

  PhysicalType type_;
  size_t width_;
  ByteView data_;
  size_t stride_ = 0;  // values in the page = bytes per stream
  size_t next_ = 0;    // index of the next value
  int64_t values_left_ = 0;
};

class ByteStreamSplitEncoder final : public Encoder {
 public:
  ByteStreamSplitEncoder(PhysicalType type, int32_t type_length);

  Encoding encoding() const override { return Encoding::kByteStreamSplit; }
  Status Put(std::span<const int32_t> values) override;
  Status Put(std::span<const int64_t> values) override;
  Status Put(std::span<const float> values) override;
  Status Put(std::span<const double> values) override;
  Status PutFixedWidth(std::span<const uint8_t> values) override;
  int64_t num_values() const override { return static_cast<int64_t>(buffer_.size() / width_); }
  size_t EstimatedSize() const override { return buffer_.size(); }
  Status Flush(std::vector<uint8_t>* out) override;

 private:
  Status Append(PhysicalType expected, const void* values, size_t bytes);

  PhysicalType type_;
  size_t width_;
  std::vector<uint8_t> buffer_;  // values as written, transposed on Flush
};

}  // namespace floe::parquet
