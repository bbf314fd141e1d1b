// Z-order: a row's clustering key made by interleaving the bits of its columns' ordered bytes,
// byte for byte the key Iceberg's Spark action computes for `rewrite_data_files(strategy =>
// 'sort', sort_order => 'zorder(a, b)')` (ZOrderByteUtils and SparkZOrderUDF), so that rows sorted
// by it come out in Spark's order:
//   - every non-string value is 8 bytes: integers (and dates as days, timestamps as whole seconds
//     rounded down, as Spark's cast to long) big-endian with the sign bit flipped; floats widened
//     to double, then `bits ^ ((bits >> 63) | sign bit)` (so -0.0 < 0.0, NaN last); booleans
//     0x81 or 0 in the first byte; NULL 8 zero bytes;
//   - strings and binary contribute `var_length_contribution` bytes: truncated (strings at a
//     whole UTF-8 character, as Java's encoder stops) or right-padded with zeros; NULL all zeros;
//   - the bits are interleaved from the most significant, round-robin over the columns, a column
//     whose bytes have run out skipped; the result is cut at `max_output_size` bytes.
// floe also takes types Spark's action refuses (said in Contribute): decimals (the unscaled value,
// its top 64 bits when wider), times (micros), timestamps without zone and in nanoseconds (whole
// seconds), fixed and UUID (as binary). Keys compare as unsigned bytes. Pure functions, thread
// safe.
#pragma once

#include <cstdint>
#include <vector>

#include "floe/base/result.h"
#include "floe/columnar/column.h"

namespace floe::layout {

struct ZOrderOptions {
  int var_length_contribution = 8;   // bytes a string or binary value contributes (> 0)
  int max_output_size = 2147483647;  // bytes of the interleaved key (> 0)
};

// Fixed-width keys for a list of rows: row i's key is bytes[i * width, (i + 1) * width).
struct KeyBytes {
  int width = 0;
  std::vector<uint8_t> bytes;
  const uint8_t* At(size_t i) const { return bytes.data() + i * static_cast<size_t>(width); }
};

// One column's ordered bytes for `rows` (indices into the column). Nested types are an error
// naming the type.
Result<KeyBytes> OrderedBytes(const columnar::Column& column, const std::vector<int64_t>& rows,
                              int var_length_contribution);

// The Z-order keys of `rows` over `columns` (at least one).
Result<KeyBytes> ZOrderKeys(const std::vector<const columnar::Column*>& columns,
                            const std::vector<int64_t>& rows, const ZOrderOptions& options);

// Interleaves per-column ordered bytes (each as long as `rows`) into keys of
// min(sum of widths, max_output_size) bytes.
KeyBytes Interleave(const std::vector<KeyBytes>& columns, size_t rows, int max_output_size);

// Sorts `rows` by `keys` (keys.At(i) is the key of rows[i]) as unsigned bytes; equal keys keep
// their order.
void SortByKeys(const KeyBytes& keys, std::vector<int64_t>* rows);

}  // namespace floe::layout
