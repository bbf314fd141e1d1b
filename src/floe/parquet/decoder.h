// Decoder: the one interface every value encoding's reader implements, plus the factory choosing
// one by (encoding, physical type). Every read is bounds checked -- bad input is `corrupt`, never
// UB. Not thread safe; decoders keep views of the page bytes, which must outlive them.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "floe/base/buffer.h"
#include "floe/base/result.h"
#include "floe/parquet/byte_array_builder.h"
#include "floe/parquet/types.h"

namespace floe::parquet {

// Given a page's values section, hands out exactly as many values as each call asks for, into
// plain arrays: fixed-width values contiguous, booleans one bool each, byte arrays as Arrow
// offsets + data (ByteArrayBuilder).
class Decoder {
 public:
  virtual ~Decoder() = default;

  virtual Encoding encoding() const = 0;

  // Starts decoding `data`, a page's values section holding `num_values` values (its non-null
  // count). Encodings that record their own count may hold fewer; asking for more than either
  // is `corrupt`.
  virtual Status SetData(int64_t num_values, ByteView data) = 0;

  // Values still to come from this page.
  virtual int64_t values_left() const = 0;

  // Each Decode fills all of `out` or fails. Only the overload of the decoder's physical type
  // works; the others are `internal` errors (the factory already matched encoding and type).
  virtual Status Decode(std::span<bool> out);     // BOOLEAN
  virtual Status Decode(std::span<int32_t> out);  // INT32
  virtual Status Decode(std::span<int64_t> out);  // INT64
  virtual Status Decode(std::span<float> out);    // FLOAT
  virtual Status Decode(std::span<double> out);   // DOUBLE
  // INT96 (12 bytes) and FIXED_LEN_BYTE_ARRAY (type_length bytes): out.size() / width values.
  virtual Status DecodeFixedWidth(std::span<uint8_t> out);
  // BYTE_ARRAY: appends `n` values.
  virtual Status DecodeByteArrays(int64_t n, ByteArrayBuilder* out);
  // PLAIN_DICTIONARY / RLE_DICTIONARY data pages: dictionary indices, each checked to be below
  // `dictionary_size`.
  virtual Status DecodeIndices(std::span<int32_t> out, int32_t dictionary_size);

  // Passes over `n` values.
  virtual Status Skip(int64_t n) = 0;

 protected:
  Status WrongOutput(std::string_view what) const;
};

// The decoder for values of `type` in `encoding` (type_length: FIXED_LEN_BYTE_ARRAY width).
// PLAIN_DICTIONARY and RLE_DICTIONARY give an index decoder (DecodeIndices) for any type.
// Combinations the spec does not define, BIT_PACKED (levels only) and unknown encodings are
// `unsupported`.
Result<std::unique_ptr<Decoder>> MakeDecoder(Encoding encoding, PhysicalType type,
                                             int32_t type_length = 0);

}  // namespace floe::parquet
