// StatisticsBuilder: min/max, null and NaN counts of a page, chunk or file in the column's
// TYPE_ORDER, encoded by the spec's rules (no NaN bounds, -0.0 min / +0.0 max, truncated binary
// bounds with an incremented max). Plain value, not thread safe; plus the order/truncation helpers.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "floe/parquet/file_metadata.h"
#include "floe/parquet/statistics.h"
#include "floe/parquet/types.h"

namespace floe::parquet {

// How a leaf's values compare under TYPE_ORDER, the only column order floe writes.
struct ValueOrder {
  enum class Kind {
    kBoolean,        // false < true
    kSignedInt,      // INT32/INT64
    kUnsignedInt,    // INT32/INT64 annotated INTEGER(unsigned)
    kFloat,          // FLOAT/DOUBLE, NaN excluded
    kUnsignedBytes,  // BYTE_ARRAY/FIXED_LEN_BYTE_ARRAY: byte-wise unsigned, shorter prefix first
    kSignedBytes,    // DECIMAL on FIXED_LEN_BYTE_ARRAY/BYTE_ARRAY: big-endian two's complement
  };
  Kind kind = Kind::kSignedInt;
  PhysicalType type = PhysicalType::kInt64;
  bool utf8 = false;  // BYTE_ARRAY holding UTF-8: truncate bounds at character boundaries

  // The order the spec defines for `leaf`'s physical and logical type.
  static ValueOrder For(const SchemaElement& leaf);
};

// Compares two PLAIN-encoded values of the order's type (byte arrays without a length prefix):
// negative, zero or positive. NaNs compare equal to everything; callers keep them out.
int CompareValues(const ValueOrder& order, std::string_view a, std::string_view b);

// A lower bound of `value` at most `max_length` bytes long: a prefix (cut at a character boundary
// when `utf8`). `value` itself when it is short enough.
std::string TruncateLowerBound(std::string_view value, size_t max_length, bool utf8);

// An upper bound of `value` about `max_length` bytes long: a prefix whose last byte (UTF-8: last
// character, skipping surrogates) is incremented, dropping trailing bytes/characters that cannot
// be. nullopt when no prefix can be incremented (all 0xFF, or all U+10FFFF). `value` itself when
// it is short enough. An incremented UTF-8 character may need one byte more than it replaced.
std::optional<std::string> TruncateUpperBound(std::string_view value, size_t max_length, bool utf8);

class StatisticsBuilder {
 public:
  explicit StatisticsBuilder(ValueOrder order) : order_(order) {}

  const ValueOrder& order() const { return order_; }

  void AddNulls(int64_t n) { null_count_ += n; }
  // Values of the builder's physical type; the overload must match it.
  void Update(std::span<const bool> values);
  void Update(std::span<const int32_t> values);
  void Update(std::span<const int64_t> values);
  void Update(std::span<const float> values);
  void Update(std::span<const double> values);
  // One BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY value.
  void Update(std::string_view value);
  void Update(std::span<const std::string_view> values) {
    for (std::string_view v : values) Update(v);
  }
  // Adds `n` more non-null values whose bounds were already given through Update (dictionary
  // pages update bounds once per distinct value, counts once per row).
  void AddCounted(int64_t n) { non_null_count_ += n; }
  void Merge(const StatisticsBuilder& other);
  void Reset();

  int64_t null_count() const { return null_count_; }
  int64_t nan_count() const { return nan_count_; }
  // Non-null values seen, NaNs included.
  int64_t non_null_count() const { return non_null_count_; }
  // False when every value was null or NaN.
  bool has_min_max() const { return has_min_max_; }

  // Exact bounds as PLAIN bytes without length prefix; -0.0 for a zero min, +0.0 for a zero
  // max. Only when has_min_max().
  std::string EncodeMin() const;
  std::string EncodeMax() const;

  // The footer's / page header's Statistics: null_count always, nan_count for FLOAT/DOUBLE,
  // min_value/max_value with is_*_exact. BYTE_ARRAY bounds longer than `truncate_length` (> 0)
  // are truncated; an upper bound that cannot be incremented is left out.
  Statistics ToStatistics(int32_t truncate_length) const;

 private:
  template <typename T>
  void UpdateSigned(std::span<const T> values);
  template <typename T>
  void UpdateUnsigned(std::span<const T> values);
  template <typename T>
  void UpdateFloat(std::span<const T> values);
  bool BytesLess(std::string_view a, std::string_view b) const;

  ValueOrder order_;
  int64_t null_count_ = 0;
  int64_t nan_count_ = 0;
  int64_t non_null_count_ = 0;
  bool has_min_max_ = false;
  int64_t imin_ = 0, imax_ = 0;   // kBoolean (0/1), kSignedInt
  uint64_t umin_ = 0, umax_ = 0;  // kUnsignedInt
  double fmin_ = 0, fmax_ = 0;    // kFloat (FLOAT held exactly)
  std::string smin_, smax_;       // byte kinds
};

// ASCENDING / DESCENDING when both the min and the max lists never decrease / never increase
// over the pages that have bounds (null pages are skipped), else UNORDERED. Values are the
// encoded bounds as written.
BoundaryOrder ComputeBoundaryOrder(const ValueOrder& order, const std::vector<bool>& null_pages,
                                   const std::vector<std::string>& mins,
                                   const std::vector<std::string>& maxes);

}  // namespace floe::parquet
