// Dictionary indices of a data page (RLE_DICTIONARY, and the deprecated PLAIN_DICTIONARY laid out
// the same): a bit-width byte (0..32), then the RLE/bit-packed hybrid. The decoder checks each
// index against the dictionary size; looking values up is the column reader's job.
#pragma once

#include <cstdint>
#include <vector>

#include "floe/parquet/decoder.h"
#include "floe/parquet/rle_bit_packed_hybrid.h"

namespace floe::parquet {

class RleDictionaryDecoder final : public Decoder {
 public:
  explicit RleDictionaryDecoder(Encoding encoding = Encoding::kRleDictionary)
      : encoding_(encoding) {}

  Encoding encoding() const override { return encoding_; }
  Status SetData(int64_t num_values, ByteView data) override;
  int64_t values_left() const override { return values_left_; }
  Status DecodeIndices(std::span<int32_t> out, int32_t dictionary_size) override;
  Status Skip(int64_t n) override;

 private:
  Encoding encoding_;
  RleBitPackedHybridDecoder rle_;
  int64_t values_left_ = 0;
};

// Writes a page of dictionary indices with the narrowest bit width that holds the largest.
class RleDictionaryEncoder {
 public:
  // Each index must be >= 0.
  void Put(std::span<const int32_t> indices);
  int64_t num_values() const { return static_cast<int64_t>(indices_.size()); }
  size_t EstimatedSize() const;
  void Flush(std::vector<uint8_t>* out);

 private:
  std::vector<int32_t> indices_;
  int32_t max_index_ = 0;
};

}  // namespace floe::parquet
