// Encoder: the one interface every value encoding's writer implements, plus the factory choosing
// one by (encoding, physical type). Values go in as the plain arrays decoders produce; Flush
// appends a page's encoded values section and starts the next page. Not thread safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/base/result.h"
#include "floe/parquet/types.h"

namespace floe::parquet {

class Encoder {
 public:
  virtual ~Encoder() = default;

  virtual Encoding encoding() const = 0;

  // Only the overload of the encoder's physical type works; others are `internal` errors.
  virtual Status Put(std::span<const bool> values);
  virtual Status Put(std::span<const int32_t> values);
  virtual Status Put(std::span<const int64_t> values);
  virtual Status Put(std::span<const float> values);
  virtual Status Put(std::span<const double> values);
  // INT96 / FIXED_LEN_BYTE_ARRAY: values.size() / width values.
  virtual Status PutFixedWidth(std::span<const uint8_t> values);
  // BYTE_ARRAY in Arrow layout: offsets.size() - 1 values, value i = data[offsets[i],
  // offsets[i+1]).
  virtual Status PutByteArrays(std::span<const int32_t> offsets, ByteView data);

  // Values appended since the last Flush.
  virtual int64_t num_values() const = 0;
  // Bytes Flush would append now (exact or a close upper bound), for cutting pages by size.
  virtual size_t EstimatedSize() const = 0;
  // Appends the encoded values section to *out and resets for the next page.
  virtual Status Flush(std::vector<uint8_t>* out) = 0;

 protected:
  Status WrongInput(std::string_view what) const;
};

// Writers floe has: PLAIN (all types), RLE (BOOLEAN), DELTA_BINARY_PACKED (INT32, INT64),
// DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY (BYTE_ARRAY), BYTE_STREAM_SPLIT (FLOAT, DOUBLE,
// INT32, INT64, FIXED_LEN_BYTE_ARRAY). Dictionary indices and levels have their own encoders
// (rle_dictionary.h, rle_bit_packed_hybrid.h). Anything else is `unsupported`.
Result<std::unique_ptr<Encoder>> MakeEncoder(Encoding encoding, PhysicalType type,
                                             int32_t type_length = 0);

}  // namespace floe::parquet
