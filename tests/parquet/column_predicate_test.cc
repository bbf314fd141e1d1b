#include "floe/parquet/column_predicate.h"

#include <cmath>
#include <cstring>

#include <gtest/gtest.h>

namespace floe::parquet {
namespace {

// A one-column file's metadata with chunk statistics `stats` and column orders `orders`.
struct OneColumn {
  FileMetaData md;
  ParquetSchema schema;
  const ColumnDescriptor& leaf() const { return schema.leaves()[0]; }
  ValueBounds Bounds() const {
    return ChunkBounds(leaf(), md, *md.row_groups[0].columns[0].meta_data);
  }
};

OneColumn Make(PhysicalType type, std::optional<LogicalType> logical,
               std::optional<ConvertedType> converted, Statistics stats,
               std::vector<ColumnOrder> orders, int32_t type_length = 0) {
  OneColumn c;
  SchemaElement root;
  root.name = "schema";
  root.num_children = 1;
  SchemaElement x;
  x.name = "x";
  x.repetition_type = FieldRepetitionType::kOptional;
  x.type = type;
  x.logical_type = logical;
  x.converted_type = converted;
  if (type_length) x.type_length = type_length;
  c.md.schema = {root, x};
  c.md.column_orders = std::move(orders);
  ColumnMetaData meta;
  meta.type = type;
  meta.num_values = 100;
  meta.statistics = std::move(stats);
  ColumnChunk chunk;
  chunk.meta_data = meta;
  RowGroup rg;
  rg.num_rows = 100;
  rg.columns = {chunk};
  c.md.row_groups = {rg};
  c.md.num_rows = 100;
  c.schema = *ParquetSchema::Make(c.md);
  return c;
}

template <typename T>
std::string Bytes(T v) {
  std::string s(sizeof(T), '\0');
  std::memcpy(s.data(), &v, sizeof(T));
  return s;
}

Statistics MinMax(std::string min, std::string max, bool legacy = false) {
  Statistics s;
  if (legacy) {
    s.min = std::move(min);
    s.max = std::move(max);
  } else {
    s.min_value = std::move(min);
    s.max_value = std::move(max);
  }
  s.null_count = 0;
  return s;
}

bool Skips(const OneColumn& c, ColumnPredicate p) {
  p.column = "x";
  auto bound = BindPredicate(p, c.leaf());
  EXPECT_TRUE(bound.has_value()) << bound.error().ToString();
  return CanSkip(*bound, c.Bounds());
}

const std::vector<ColumnOrder> kTyped = {ColumnOrder::kTypeDefinedOrder};

// UINT_32 compares unsigned: 0xffffffff is the largest value, not -1.
TEST(ColumnPredicateTest, UnsignedOrder) {
  auto c = Make(PhysicalType::kInt32, LogicalType::Integer(32, false), std::nullopt,
                MinMax(Bytes<uint32_t>(7), Bytes<uint32_t>(0xffffffffu)), kTyped);
  ValueBounds b = c.Bounds();
  ASSERT_TRUE(b.min && b.max);
  EXPECT_EQ(std::get<uint64_t>(*b.max), 4294967295u);
  EXPECT_FALSE(Skips(c, ColumnPredicate::Equal("", uint64_t{4000000000u})));
  EXPECT_FALSE(Skips(c, ColumnPredicate::Equal("", int64_t{8})));
  EXPECT_TRUE(Skips(c, ColumnPredicate::Equal("", int64_t{6})));
  // The deprecated signed min/max cannot order unsigned values: ignored.
  auto legacy = Make(PhysicalType::kInt32, LogicalType::Integer(32, false), std::nullopt,
                     MinMax(Bytes<int32_t>(-1), Bytes<int32_t>(7), true), {});
  EXPECT_FALSE(legacy.Bounds().min.has_value());
  EXPECT_FALSE(Skips(legacy, ColumnPredicate::Equal("", int64_t{100})));
}

TEST(ColumnPredicateTest, LegacyAndUnrecognizedOrders) {
  // Signed ints: the deprecated fields order them correctly and are used.
  auto legacy = Make(PhysicalType::kInt32, std::nullopt, std::nullopt,
                     MinMax(Bytes<int32_t>(-5), Bytes<int32_t>(5), true), {});
  EXPECT_TRUE(Skips(legacy, ColumnPredicate::Equal("", int64_t{6})));
  EXPECT_FALSE(Skips(legacy, ColumnPredicate::Equal("", int64_t{-5})));
  // Byte arrays: the deprecated fields were compared signed by old writers: ignored, and so are
  // typed bounds in a file without column orders.
  auto bytes =
      Make(PhysicalType::kByteArray, std::nullopt, std::nullopt, MinMax("a", "c", true), {});
  EXPECT_FALSE(Skips(bytes, ColumnPredicate::Equal("", std::string("z"))));
  auto typed_no_orders =
      Make(PhysicalType::kByteArray, std::nullopt, std::nullopt, MinMax("a", "c"), {});
  EXPECT_FALSE(Skips(typed_no_orders, ColumnPredicate::Equal("", std::string("z"))));
  auto typed = Make(PhysicalType::kByteArray, std::nullopt, std::nullopt, MinMax("a", "c"), kTyped);
  EXPECT_TRUE(Skips(typed, ColumnPredicate::Equal("", std::string("z"))));
  // A column order this reader does not know: min/max are ignored.
  auto unknown = Make(PhysicalType::kInt32, std::nullopt, std::nullopt,
                      MinMax(Bytes<int32_t>(-5), Bytes<int32_t>(5)), {ColumnOrder::kUnrecognized});
  EXPECT_FALSE(Skips(unknown, ColumnPredicate::Equal("", int64_t{6})));
}

// NaN is never a bound under TYPE_DEFINED_ORDER (both are dropped); under IEEE_754_TOTAL_ORDER
// a NaN bound opens only its side.
TEST(ColumnPredicateTest, NaNBounds) {
  const double nan = std::nan("");
  auto typed = Make(PhysicalType::kDouble, std::nullopt, std::nullopt,
                    MinMax(Bytes(1.0), Bytes(nan)), kTyped);
  EXPECT_FALSE(typed.Bounds().min.has_value());
  EXPECT_FALSE(Skips(typed, ColumnPredicate::Equal("", 0.5)));
  auto ieee = Make(PhysicalType::kDouble, std::nullopt, std::nullopt,
                   MinMax(Bytes(1.0), Bytes(nan)), {ColumnOrder::kIeee754TotalOrder});
  EXPECT_TRUE(Skips(ieee, ColumnPredicate::Equal("", 0.5)));
  EXPECT_FALSE(Skips(ieee, ColumnPredicate::Equal("", 1e300)));
  // FLOAT16 bounds are halves: 0x3c00 = 1.0, 0x4000 = 2.0.
  auto half =
      Make(PhysicalType::kFixedLenByteArray, LogicalType::Of(LogicalType::Kind::kFloat16),
           std::nullopt, MinMax(Bytes<uint16_t>(0x3c00), Bytes<uint16_t>(0x4000)), kTyped, 2);
  EXPECT_TRUE(Skips(half, ColumnPredicate::Equal("", 2.5)));
  EXPECT_FALSE(Skips(half, ColumnPredicate::Equal("", int64_t{2})));
}

// SQL's order puts NaN above every number, and statistics leave NaN out: a lower bound alone
// (x > 5) is pruned by max only where a NaN count of 0 shows there is no NaN; an upper bound
// never matches NaN, so it prunes whatever the count. -0.0 and 0.0 are equal.
TEST(ColumnPredicateTest, NaNSortsAboveTheBoundsAndZerosAreEqual) {
  const double nan = std::nan("");
  Statistics counted = MinMax(Bytes(-1.0), Bytes(1.0));
  counted.nan_count = 0;
  auto no_nan = Make(PhysicalType::kDouble, std::nullopt, std::nullopt, counted, kTyped);
  auto unknown = Make(PhysicalType::kDouble, std::nullopt, std::nullopt,
                      MinMax(Bytes(-1.0), Bytes(1.0)), kTyped);
  Statistics some = counted;
  some.nan_count = 3;
  auto with_nan = Make(PhysicalType::kDouble, std::nullopt, std::nullopt, some, kTyped);
  auto above = ColumnPredicate::Range("", 5.0, std::nullopt);
  EXPECT_TRUE(Skips(no_nan, above));
  EXPECT_FALSE(Skips(unknown, above));
  EXPECT_FALSE(Skips(with_nan, above));
  above.no_nan = true;  // the caller knows (Iceberg's nan_value_counts of the file)
  EXPECT_TRUE(Skips(unknown, above));
  auto below = ColumnPredicate::Range("", std::nullopt, -5.0);
  EXPECT_TRUE(Skips(with_nan, below));
  EXPECT_TRUE(Skips(with_nan, ColumnPredicate::Range("", 5.0, 10.0)));
  EXPECT_TRUE(Skips(with_nan, ColumnPredicate::Equal("", 5.0)));
  EXPECT_FALSE(Skips(with_nan, ColumnPredicate::Equal("", nan)));
  EXPECT_FALSE(Skips(with_nan, ColumnPredicate::In("", {5.0, nan})));

  // A chunk of only -0.0 has min = max = -0.0: x = 0 and x >= 0 match it, x > 0 does not.
  Statistics zeros = MinMax(Bytes(-0.0), Bytes(-0.0));
  zeros.nan_count = 0;
  auto neg_zero = Make(PhysicalType::kDouble, std::nullopt, std::nullopt, zeros, kTyped);
  EXPECT_FALSE(Skips(neg_zero, ColumnPredicate::Equal("", 0.0)));
  EXPECT_FALSE(Skips(neg_zero, ColumnPredicate::Range("", 0.0, std::nullopt)));
  auto above_zero = ColumnPredicate::Range("", 0.0, std::nullopt);
  above_zero.min_inclusive = false;
  EXPECT_TRUE(Skips(neg_zero, above_zero));
}

// Decimals on FIXED_LEN_BYTE_ARRAY compare as big-endian two's complement: -2 < 1.
TEST(ColumnPredicateTest, DecimalBounds) {
  auto c = Make(PhysicalType::kFixedLenByteArray, LogicalType::Decimal(10, 2), std::nullopt,
                MinMax(std::string("\xff\xfe", 2), std::string("\x00\x01", 2)), kTyped, 2);
  ValueBounds b = c.Bounds();
  ASSERT_TRUE(b.min && b.max);
  EXPECT_TRUE(std::get<__int128>(*b.min) == -2);
  EXPECT_TRUE(Skips(c, ColumnPredicate::Equal("", int64_t{2})));
  EXPECT_FALSE(Skips(c, ColumnPredicate::Equal("", int64_t{-1})));
  EXPECT_TRUE(Skips(c, ColumnPredicate::Equal("", static_cast<__int128>(-3))));
}

TEST(ColumnPredicateTest, NullsAndContradictions) {
  ValueBounds none_null;
  none_null.null_count = 0;
  none_null.num_values = 10;
  ValueBounds all_null;
  all_null.null_count = 10;
  all_null.num_values = 10;
  ValueBounds unknown;
  EXPECT_TRUE(CanSkip(ColumnPredicate::IsNull("x"), none_null));
  EXPECT_FALSE(CanSkip(ColumnPredicate::IsNull("x"), unknown));
  EXPECT_FALSE(CanSkip(ColumnPredicate::IsNull("x"), all_null));
  EXPECT_TRUE(CanSkip(ColumnPredicate::IsNotNull("x"), all_null));
  EXPECT_TRUE(CanSkip(ColumnPredicate::Equal("x", int64_t{1}), all_null));
  EXPECT_FALSE(CanSkip(ColumnPredicate::IsNotNull("x"), unknown));
  ColumnPredicate both = ColumnPredicate::IsNull("x");
  both.is_not_null = true;
  EXPECT_TRUE(CanSkip(both, unknown));
  EXPECT_TRUE(CanSkip(ColumnPredicate::In("x", {}), unknown));
}

// AllMatch proves a predicate for every row a bounds entry describes: no nulls (a known count),
// and bounds inside the range -- or one value, in the set.
TEST(ColumnPredicateTest, AllMatchNeedsKnownNoNullsAndBoundsInside) {
  auto bounds = [](PredicateValue min, PredicateValue max, std::optional<int64_t> nulls) {
    ValueBounds b;
    b.min = std::move(min);
    b.max = std::move(max);
    b.null_count = nulls;
    b.num_values = 10;
    return b;
  };
  const ValueBounds b10_20 = bounds(int64_t{10}, int64_t{20}, 0);
  auto range = [](std::optional<PredicateValue> lo, std::optional<PredicateValue> hi) {
    return ColumnPredicate::Range("x", std::move(lo), std::move(hi));
  };
  EXPECT_TRUE(AllMatch(range(int64_t{10}, int64_t{20}), b10_20));
  EXPECT_TRUE(AllMatch(range(int64_t{5}, std::nullopt), b10_20));
  EXPECT_FALSE(AllMatch(range(int64_t{11}, std::nullopt), b10_20));
  EXPECT_FALSE(AllMatch(range(std::nullopt, int64_t{19}), b10_20));
  ColumnPredicate open = range(int64_t{10}, std::nullopt);
  open.min_inclusive = false;  // x > 10: the row holding 10 fails
  EXPECT_FALSE(AllMatch(open, b10_20));
  open.min = int64_t{9};
  EXPECT_TRUE(AllMatch(open, b10_20));
  // Nulls fail every value predicate; an unknown null count proves nothing.
  EXPECT_FALSE(AllMatch(range(int64_t{0}, int64_t{99}), bounds(int64_t{10}, int64_t{20}, 1)));
  EXPECT_FALSE(
      AllMatch(range(int64_t{0}, int64_t{99}), bounds(int64_t{10}, int64_t{20}, std::nullopt)));
  EXPECT_TRUE(AllMatch(ColumnPredicate::IsNotNull("x"), b10_20));
  EXPECT_FALSE(AllMatch(ColumnPredicate::IsNull("x"), b10_20));
  // IN: only a single-valued entry whose value is in the set.
  EXPECT_TRUE(AllMatch(ColumnPredicate::In("x", {int64_t{3}, int64_t{7}}),
                       bounds(int64_t{7}, int64_t{7}, 0)));
  EXPECT_FALSE(AllMatch(ColumnPredicate::In("x", {int64_t{10}, int64_t{20}}), b10_20));
  // Strings: a truncated min ("ab" for "abc...") still proves >= "aa".
  EXPECT_TRUE(AllMatch(range(std::string("aa"), std::nullopt),
                       bounds(std::string("ab"), std::string("ac"), 0)));
  EXPECT_FALSE(AllMatch(range(std::string("ab0"), std::nullopt),
                        bounds(std::string("ab"), std::string("ac"), 0)));
  // Floating point never (a NaN lies outside every bound); nor a weakened predicate.
  EXPECT_FALSE(AllMatch(range(0.0, 100.0), bounds(1.0, 2.0, 0)));
  ColumnPredicate weak = range(int64_t{0}, int64_t{99});
  weak.weakened = true;
  EXPECT_FALSE(AllMatch(weak, b10_20));
}

}  // namespace
}  // namespace floe::parquet
