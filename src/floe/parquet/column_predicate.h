// ColumnPredicate: what the reader can prune with -- per leaf a value range, an IN set, IS [NOT]
// NULL -- and the rules that turn statistics into "no row here can match". Pruning only: callers
// still filter the surviving rows. Plain values; the functions are pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "floe/base/result.h"
#include "floe/parquet/file_metadata.h"
#include "floe/parquet/page_index.h"
#include "floe/parquet/schema.h"

namespace floe::parquet {

// A literal in the column's Arrow value domain (StatsDomain): bool; int64 for signed integers,
// dates (days), times and timestamps (in the column's Arrow unit); uint64 for unsigned integers;
// double for floating point; bytes for strings and binary; 128-bit unscaled integers for
// decimals (at the column's scale). int64 literals are accepted for uint64, double and decimal
// columns when the value fits.
using PredicateValue = std::variant<bool, int64_t, uint64_t, double, std::string, __int128>;

// A row matches when every constraint that is set holds for the column's value in that row.
struct ColumnPredicate {
  std::string column;               // dotted Arrow path of a leaf ("id", "s.x")
  std::optional<int32_t> field_id;  // or the leaf's field id; wins over `column` when set

  std::optional<PredicateValue> min;  // value >= min (> when !min_inclusive)
  bool min_inclusive = true;
  std::optional<PredicateValue> max;  // value <= max (< when !max_inclusive)
  bool max_inclusive = true;
  std::optional<std::vector<PredicateValue>> in;  // value is one of these (= is a set of one)
  bool is_null = false;                           // the value is null
  bool is_not_null = false;                       // the value is not null
  // Set by BindPredicate when it dropped value constraints the column's type cannot order: the
  // predicate then prunes less, and proves nothing about which rows match.
  bool weakened = false;
  // Floating point follows SQL's order (DuckDB's, Spark's): NaN sorts above every number, so it
  // satisfies a bare lower bound (`value >= min`) though statistics never bound it. Set when
  // the caller knows the column holds no NaN here (Iceberg's nan_value_counts of the file).
  bool no_nan = false;

  static ColumnPredicate Equal(std::string column, PredicateValue v);
  static ColumnPredicate In(std::string column, std::vector<PredicateValue> values);
  static ColumnPredicate Range(std::string column, std::optional<PredicateValue> min,
                               std::optional<PredicateValue> max);
  static ColumnPredicate IsNull(std::string column);
  static ColumnPredicate IsNotNull(std::string column);
};

// What a row group's statistics or one page's column index entry say about a column.
struct ValueBounds {
  std::optional<PredicateValue> min;  // a lower bound of the non-null values (maybe truncated)
  std::optional<PredicateValue> max;  // an upper bound
  std::optional<int64_t> null_count;
  std::optional<int64_t> nan_count;  // floating point: NaN values, which min and max leave out
  int64_t num_values = -1;           // values including nulls; -1 when unknown
  bool all_null = false;             // known to hold only nulls
};

// Checks that the predicate's literals fit `leaf` and converts them to its domain's alternative.
// Predicates on values inside lists or maps are rejected: a row holds many of them.
Result<ColumnPredicate> BindPredicate(const ColumnPredicate& predicate,
                                      const ColumnDescriptor& leaf);

// True when no row described by `bounds` can satisfy the (bound) predicate. Floating-point
// bounds compare as SQL does (-0.0 equals 0.0); a predicate NaN satisfies is not pruned by value
// bounds unless a NaN count of 0 (or `no_nan`) shows no NaN is there.
bool CanSkip(const ColumnPredicate& predicate, const ValueBounds& bounds);

// True when every row described by `bounds` satisfies the (bound) predicate: no nulls (a known
// null count of 0) and bounds inside its range or, for IN, a single value in the set. Truncated
// string bounds still prove it (a truncated min is below the true one, a max above). Never for
// floating point (NaN lies outside every bound) nor for a weakened predicate.
bool AllMatch(const ColumnPredicate& predicate, const ValueBounds& bounds);

// The statistics of a column chunk as bounds, following the column order rules: min_value /
// max_value under TYPE_DEFINED_ORDER or IEEE_754_TOTAL_ORDER; the deprecated min / max only for
// signed orders; nothing under an unrecognised order; a NaN bound is dropped (and under the
// total order only widens that side); unsigned and byte orders never read the signed legacy
// fields.
ValueBounds ChunkBounds(const ColumnDescriptor& leaf, const FileMetaData& metadata,
                        const ColumnMetaData& meta);

// The column index of a chunk as bounds per page (null pages are all_null).
std::vector<ValueBounds> PageBounds(const ColumnDescriptor& leaf, const FileMetaData& metadata,
                                    const ColumnIndex& index);

// Orders two values of one domain: negative, zero or positive; nullopt when either is NaN or
// their alternatives differ (the comparison CanSkip and AllMatch make).
std::optional<int> ComparePredicateValues(const PredicateValue& a, const PredicateValue& b);

// Decodes one PLAIN statistics value of `leaf` into its domain; nullopt when its size is wrong or
// the domain has no order.
std::optional<PredicateValue> DecodeStatValue(const ColumnDescriptor& leaf, std::string_view bytes);

// "42", "'abc'", "1.5", "decimal 1234" -- for messages and the CLI.
std::string PredicateValueToString(const PredicateValue& v);

}  // namespace floe::parquet
