// The RLE / bit-packing hybrid (RLE = 3) for a bit width known in advance (0..32): levels,
// dictionary indices and RLE booleans. The decoder checks every run against the bytes there; the
// 4-byte length prefix some contexts add is split off by SplitLengthPrefixed.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/base/result.h"
#include "floe/parquet/decoder.h"
#include "floe/parquet/encoder.h"

namespace floe::parquet {

inline constexpr int kMaxRleBitWidth = 32;

// Splits `data` that starts with a 4-byte little-endian length into (the section, what follows).
// `what` names the section in the error ("definition levels").
Result<std::pair<ByteView, ByteView>> SplitLengthPrefixed(ByteView data, std::string_view what);

// Reads runs lazily. A final bit-packed run cut short (some writers trim the padding) still
// yields the values it holds; asking for more is `corrupt`.
class RleBitPackedHybridDecoder {
 public:
  RleBitPackedHybridDecoder() = default;

  // Starts decoding `data` (no length prefix) with values of `bit_width` bits.
  Status Reset(ByteView data, int bit_width);

  // Fills all of `out` or fails. T is bool, uint8_t, int16_t, int32_t or uint32_t; values are
  // converted as static_cast would (callers pick a T wide enough for the bit width).
  template <typename T>
  Status Decode(std::span<T> out);

  Status Skip(int64_t n);

  // Bytes of `data` read so far (run headers and values of the runs started).
  size_t bytes_read() const { return pos_; }

 private:
  Status NextRun(int64_t decoded, int64_t wanted);

  ByteView data_;
  size_t pos_ = 0;
  int bit_width_ = 0;
  int64_t run_left_ = 0;  // values left in the current run
  bool rle_ = false;
  uint64_t rle_value_ = 0;
  const uint8_t* packed_ = nullptr;  // bit-packed run: its values' bytes
  size_t packed_bytes_ = 0;
  uint64_t packed_index_ = 0;  // next value within the bit-packed run
};

// Collects values and writes them as RLE runs (8 or more repeats) and bit-packed groups.
class RleBitPackedHybridEncoder {
 public:
  explicit RleBitPackedHybridEncoder(int bit_width) : bit_width_(bit_width) {}

  int bit_width() const { return bit_width_; }
  // Each value must be below 2^bit_width.
  void Put(uint32_t value) { values_.push_back(value); }
  void Put(std::span<const int16_t> values);
  void Put(std::span<const int32_t> values);
  int64_t num_values() const { return static_cast<int64_t>(values_.size()); }
  // An upper bound of what Flush appends.
  size_t MaxEncodedSize() const;
  // Appends the encoded runs (no length prefix) and starts over.
  void Flush(std::vector<uint8_t>* out);

 private:
  int bit_width_;
  std::vector<uint32_t> values_;
};

// The RLE encoding of BOOLEAN values in data pages: a 4-byte length, then the hybrid with bit
// width 1.
class RleBooleanDecoder final : public Decoder {
 public:
  Encoding encoding() const override { return Encoding::kRle; }
  Status SetData(int64_t num_values, ByteView data) override;
  int64_t values_left() const override { return values_left_; }
  Status Decode(std::span<bool> out) override;
  Status Skip(int64_t n) override;

 private:
  RleBitPackedHybridDecoder rle_;
  int64_t values_left_ = 0;
};

class RleBooleanEncoder final : public Encoder {
 public:
  Encoding encoding() const override { return Encoding::kRle; }
  Status Put(std::span<const bool> values) override;
  int64_t num_values() const override { return rle_.num_values(); }
  size_t EstimatedSize() const override { return 4 + rle_.MaxEncodedSize(); }
  Status Flush(std::vector<uint8_t>* out) override;

 private:
  RleBitPackedHybridEncoder rle_{1};
};

}  // namespace floe::parquet
