// BIT_PACKED (deprecated; levels of old data pages only): values of a fixed bit width packed MSB
// first, back to back, no header and no length -- a page's section is exactly
// ceil(num_values * bit_width / 8) bytes. Read-only: floe writes levels as RLE.
#pragma once

#include <cstdint>
#include <span>

#include "floe/base/buffer.h"
#include "floe/base/result.h"

namespace floe::parquet {

class BitPackedLevelDecoder {
 public:
  // Bytes the section of `num_values` values at `bit_width` bits occupies.
  static uint64_t EncodedLength(int64_t num_values, int bit_width);

  // `data` must hold at least EncodedLength(num_values, bit_width) bytes; bit_width 0..16.
  Status Reset(ByteView data, int bit_width, int64_t num_values);
  Status Decode(std::span<int16_t> out);

 private:
  ByteView data_;
  int bit_width_ = 0;
  uint64_t bit_pos_ = 0;
  int64_t values_left_ = 0;
};

}  // namespace floe::parquet
