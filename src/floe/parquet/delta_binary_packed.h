// DELTA_BINARY_PACKED: INT32/INT64 as a header and blocks of bit-packed deltas (miniblock widths
// 0..64), all arithmetic wrapping in two's complement as the spec requires. Also carries the
// lengths inside DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY, hence EncodedLength.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "floe/parquet/decoder.h"
#include "floe/parquet/encoder.h"

namespace floe::parquet {

// Reads blocks lazily, checking every header and width against the bytes there. Widths of the
// last block's unused miniblocks are ignored (the spec lets them hold anything); a last miniblock
// cut short yields the values it holds, then the stream ends.
class DeltaBinaryPackedDecoder final : public Decoder {
 public:
  explicit DeltaBinaryPackedDecoder(PhysicalType type = PhysicalType::kInt64) : type_(type) {}

  Encoding encoding() const override { return Encoding::kDeltaBinaryPacked; }
  // Parses the header; the stream may hold fewer values than `num_values`, not more than the
  // caller will ask for.
  Status SetData(int64_t num_values, ByteView data) override;
  int64_t values_left() const override { return values_left_; }
  Status Decode(std::span<int32_t> out) override;  // INT32 decoder
  Status Decode(std::span<int64_t> out) override;  // INT64 decoder
  Status Skip(int64_t n) override;

  // The value count the stream's header declares.
  int64_t total_values() const { return total_values_; }

  // Bytes the stream at the front of `data` occupies: its header and blocks up to the last
  // miniblock holding a value, found by walking the block headers without unpacking.
  static Result<size_t> EncodedLength(ByteView data);

 private:
  template <typename T>
  Status DecodeValues(std::span<T> out);
  Status NextMiniblock();

  PhysicalType type_;
  ByteView data_;
  size_t pos_ = 0;
  uint64_t values_per_block_ = 0;
  uint64_t miniblocks_per_block_ = 0;
  uint64_t values_per_miniblock_ = 0;
  int64_t total_values_ = 0;
  int64_t values_left_ = 0;
  int64_t deltas_left_ = 0;     // deltas not yet decoded in the whole stream
  bool first_pending_ = false;  // the header's first value is still to be handed out
  uint64_t last_value_ = 0;
  // Current block and miniblock.
  uint64_t min_delta_ = 0;
  const uint8_t* bit_widths_ = nullptr;
  uint64_t miniblock_ = 0;  // index within the block; == miniblocks_per_block_ when done
  int bit_width_ = 0;
  const uint8_t* packed_ = nullptr;
  size_t packed_bytes_ = 0;
  uint64_t packed_index_ = 0;
  int64_t miniblock_left_ = 0;  // values left to decode in this miniblock
  bool truncated_ = false;      // the data ended inside the current miniblock
  // A group of deltas unpacked whole for a request that ends inside it (so the packed stream
  // stays at a group's start, where the unrolled unpack applies); handed out first.
  uint64_t group_[32] = {};
  int group_size_ = 0;
  int group_next_ = 0;
};

// Encodes with blocks of 128 values in 4 miniblocks of 32, the layout other writers use.
class DeltaBinaryPackedEncoder final : public Encoder {
 public:
  explicit DeltaBinaryPackedEncoder(PhysicalType type = PhysicalType::kInt64) : type_(type) {}

  Encoding encoding() const override { return Encoding::kDeltaBinaryPacked; }
  Status Put(std::span<const int32_t> values) override;  // INT32 encoder
  Status Put(std::span<const int64_t> values) override;  // INT64 encoder
  int64_t num_values() const override { return static_cast<int64_t>(values_.size()); }
  size_t EstimatedSize() const override;
  Status Flush(std::vector<uint8_t>* out) override;

  static constexpr uint64_t kBlockSize = 128;
  static constexpr uint64_t kMiniblocks = 4;

 private:
  PhysicalType type_;
  std::vector<int64_t> values_;  // INT32 values sign-extended
};

}  // namespace floe::parquet
