#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "floe/parquet/statistics_builder.h"

namespace floe::parquet {
namespace {

template <typename T>
T Decode(const std::string& bytes) {
  T v{};
  EXPECT_EQ(bytes.size(), sizeof(T));
  std::memcpy(&v, bytes.data(), sizeof(T));
  return v;
}

ValueOrder OrderOf(PhysicalType type, std::optional<LogicalType> logical = std::nullopt,
                   std::optional<ConvertedType> converted = std::nullopt) {
  SchemaElement e;
  e.name = "c";
  e.type = type;
  e.logical_type = logical;
  e.converted_type = converted;
  return ValueOrder::For(e);
}

const ValueOrder kString = OrderOf(
    PhysicalType::kByteArray, LogicalType::Of(LogicalType::Kind::kString), ConvertedType::kUtf8);
const ValueOrder kBinary = OrderOf(PhysicalType::kByteArray);
const ValueOrder kDouble = OrderOf(PhysicalType::kDouble);

// ---- truncation -----------------------------------------------------------------------------

TEST(WriterStatisticsTest, ShortValuesAreNotTruncated) {
  EXPECT_EQ(TruncateLowerBound("abc", 3, false), "abc");
  EXPECT_EQ(TruncateUpperBound("abc", 3, false), "abc");
  EXPECT_EQ(TruncateUpperBound("", 3, true), "");
}

TEST(WriterStatisticsTest, BinaryUpperBoundIncrementsTheLastByteThatCan) {
  EXPECT_EQ(TruncateLowerBound("abcdef", 3, false), "abc");
  EXPECT_EQ(TruncateUpperBound("abcdef", 3, false), "abd");
  // Trailing 0xFF bytes cannot be incremented: they are dropped and the byte before carries.
  EXPECT_EQ(TruncateUpperBound(std::string("ab\xff\xff\x01", 5), 4, false), "ac");
  EXPECT_EQ(TruncateUpperBound(std::string("\x01\xff\xff\xff\xff", 5), 3, false), "\x02");
  // Nothing to increment: no upper bound at all.
  EXPECT_EQ(TruncateUpperBound(std::string(20, '\xff'), 16, false), std::nullopt);
}

TEST(WriterStatisticsTest, Utf8BoundsKeepWholeCharacters) {
  std::string e_acute = "\xc3\xa9";  // U+00E9, two bytes
  std::string v = "ab";
  for (int i = 0; i < 20; ++i) v += e_acute;
  std::string lower = "ab", upper = "ab";
  for (int i = 0; i < 7; ++i) lower += e_acute;
  for (int i = 0; i < 6; ++i) upper += e_acute;
  upper += "\xc3\xaa";  // U+00EA
  EXPECT_EQ(TruncateLowerBound(v, 16, true), lower);
  EXPECT_EQ(TruncateUpperBound(v, 16, true), upper);
  // A cut inside a three-byte character moves back to its start.
  const std::string nihongo = "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e";  // U+65E5 U+672C U+8A9E
  EXPECT_EQ(TruncateLowerBound(nihongo, 4, true), "\xe6\x97\xa5");
  EXPECT_EQ(TruncateUpperBound(nihongo, 4, true), "\xe6\x97\xa6");  // U+65E6
  // The first character alone is longer than the limit: min is empty, max keeps one character.
  EXPECT_EQ(TruncateLowerBound(nihongo, 1, true), "");
  EXPECT_EQ(TruncateUpperBound(nihongo, 1, true), "\xe6\x97\xa6");
  // Binary truncation of the same bytes would cut the character and increment a continuation.
  EXPECT_EQ(TruncateUpperBound(nihongo, 4, false), "\xe6\x97\xa5\xe7");
}

TEST(WriterStatisticsTest, Utf8UpperBoundSkipsSurrogatesAndDropsTheLastCodePoint) {
  // U+D7FF + 1 would be a surrogate: the next character is U+E000.
  EXPECT_EQ(TruncateUpperBound("\xed\x9f\xbf"
                               "xxxxxx",
                               3, true),
            "\xee\x80\x80");
  // U+10FFFF cannot be incremented: it is dropped and the character before carries.
  const std::string max_cp = "\xf4\x8f\xbf\xbf";
  EXPECT_EQ(TruncateUpperBound("a" + max_cp + max_cp + max_cp, 9, true), "b");
  EXPECT_EQ(TruncateUpperBound(max_cp + max_cp + max_cp, 8, true), std::nullopt);
  // A one-byte character incremented into a two-byte one: one byte over the limit.
  EXPECT_EQ(TruncateUpperBound("\x7f\x7f\x7f\x7f", 2, true), "\x7f\xc2\x80");
}

TEST(WriterStatisticsTest, InvalidUtf8FallsBackToBytes) {
  const std::string bad =
      "ab\xff\xfe"
      "cdef";
  EXPECT_EQ(TruncateLowerBound(bad, 3, true), "ab\xff");
  EXPECT_EQ(TruncateUpperBound(bad, 3, true), "ac");
}

// ---- orders ---------------------------------------------------------------------------------

TEST(WriterStatisticsTest, ColumnOrdersFollowTheLogicalType) {
  EXPECT_EQ(OrderOf(PhysicalType::kInt32).kind, ValueOrder::Kind::kSignedInt);
  EXPECT_EQ(OrderOf(PhysicalType::kInt32, LogicalType::Integer(32, false)).kind,
            ValueOrder::Kind::kUnsignedInt);
  EXPECT_EQ(OrderOf(PhysicalType::kInt64, std::nullopt, ConvertedType::kUint64).kind,
            ValueOrder::Kind::kUnsignedInt);
  EXPECT_EQ(OrderOf(PhysicalType::kFixedLenByteArray, LogicalType::Decimal(38, 2)).kind,
            ValueOrder::Kind::kSignedBytes);
  EXPECT_EQ(
      OrderOf(PhysicalType::kFixedLenByteArray, LogicalType::Of(LogicalType::Kind::kUuid)).kind,
      ValueOrder::Kind::kUnsignedBytes);
  EXPECT_TRUE(kString.utf8);
  EXPECT_FALSE(kBinary.utf8);
}

TEST(WriterStatisticsTest, CompareValuesPerOrder) {
  auto i32 = [](int32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); };
  auto u64 = [](uint64_t v) { return std::string(reinterpret_cast<const char*>(&v), 8); };
  EXPECT_LT(CompareValues(OrderOf(PhysicalType::kInt32), i32(-5), i32(3)), 0);
  EXPECT_GT(CompareValues(OrderOf(PhysicalType::kInt32, LogicalType::Integer(32, false)), i32(-5),
                          i32(3)),
            0);
  EXPECT_GT(CompareValues(OrderOf(PhysicalType::kInt64, LogicalType::Integer(64, false)),
                          u64(uint64_t{1} << 63), u64(7)),
            0);
  // Byte-wise unsigned: 0x80 sorts after 0x7f; a prefix sorts first.
  EXPECT_LT(CompareValues(kBinary, "\x7f", "\x80"), 0);
  EXPECT_LT(CompareValues(kBinary, "ab", "abc"), 0);
  // Decimals on bytes: two's complement, big-endian; shorter values sign-extended.
  const ValueOrder dec = OrderOf(PhysicalType::kFixedLenByteArray, LogicalType::Decimal(9, 2));
  EXPECT_LT(CompareValues(dec, std::string("\xff\xfb", 2), std::string("\x00\x03", 2)), 0);
  EXPECT_LT(CompareValues(dec, std::string("\xff\x9c", 2), std::string("\xff\xfb", 2)), 0);
  EXPECT_EQ(CompareValues(dec, std::string("\xff", 1), std::string("\xff\xff", 2)), 0);
  EXPECT_GT(CompareValues(dec, std::string("\x01", 1), std::string("\xff\x00", 2)), 0);
}

// ---- builder --------------------------------------------------------------------------------

TEST(WriterStatisticsTest, FloatsExcludeNaNAndCountIt) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  StatisticsBuilder b(kDouble);
  std::vector<double> v = {nan, 2.0, nan, -3.5};
  b.Update(std::span<const double>(v));
  b.AddNulls(2);
  EXPECT_TRUE(b.has_min_max());
  EXPECT_EQ(Decode<double>(b.EncodeMin()), -3.5);
  EXPECT_EQ(Decode<double>(b.EncodeMax()), 2.0);
  Statistics s = b.ToStatistics(16);
  EXPECT_EQ(s.nan_count, 2);
  EXPECT_EQ(s.null_count, 2);
  EXPECT_EQ(s.is_min_value_exact, true);
  EXPECT_FALSE(s.min.has_value());  // never the deprecated fields
}

TEST(WriterStatisticsTest, AllNaNHasNoBoundsButCountsEverything) {
  StatisticsBuilder b(OrderOf(PhysicalType::kFloat));
  std::vector<float> v(5, std::numeric_limits<float>::quiet_NaN());
  b.Update(std::span<const float>(v));
  EXPECT_FALSE(b.has_min_max());
  EXPECT_EQ(b.non_null_count(), 5);
  Statistics s = b.ToStatistics(16);
  EXPECT_EQ(s.nan_count, 5);
  EXPECT_EQ(s.null_count, 0);
  EXPECT_FALSE(s.min_value.has_value());
  EXPECT_FALSE(s.max_value.has_value());
}

TEST(WriterStatisticsTest, ZeroMinIsNegativeZeroAndZeroMaxIsPositiveZero) {
  for (auto values : {std::vector<double>{0.0, 1.0}, std::vector<double>{-0.0, 1.0},
                      std::vector<double>{1.0, -0.0, 0.0}}) {
    StatisticsBuilder b(kDouble);
    b.Update(std::span<const double>(values));
    EXPECT_TRUE(std::signbit(Decode<double>(b.EncodeMin())));
    EXPECT_EQ(Decode<double>(b.EncodeMin()), 0.0);
  }
  for (auto values : {std::vector<double>{-1.0, -0.0}, std::vector<double>{0.0, -1.0}}) {
    StatisticsBuilder b(kDouble);
    b.Update(std::span<const double>(values));
    EXPECT_FALSE(std::signbit(Decode<double>(b.EncodeMax())));
  }
  StatisticsBuilder f(OrderOf(PhysicalType::kFloat));
  std::vector<float> only_zero = {-0.0f, 0.0f};
  f.Update(std::span<const float>(only_zero));
  EXPECT_TRUE(std::signbit(Decode<float>(f.EncodeMin())));
  EXPECT_FALSE(std::signbit(Decode<float>(f.EncodeMax())));
}

TEST(WriterStatisticsTest, AllNullHasNoBounds) {
  StatisticsBuilder b(kString);
  b.AddNulls(7);
  EXPECT_FALSE(b.has_min_max());
  Statistics s = b.ToStatistics(16);
  EXPECT_EQ(s.null_count, 7);
  EXPECT_FALSE(s.nan_count.has_value());  // not a float column
  EXPECT_FALSE(s.min_value.has_value());
}

TEST(WriterStatisticsTest, TruncatedByteArrayBoundsAreMarkedInexact) {
  StatisticsBuilder b(kString);
  b.Update(std::string(40, 'a'));
  b.Update("b" + std::string(30, 'z'));
  Statistics s = b.ToStatistics(16);
  EXPECT_EQ(s.min_value, std::string(16, 'a'));
  EXPECT_EQ(s.is_min_value_exact, false);
  EXPECT_EQ(s.max_value, "b" + std::string(14, 'z') + "{");
  EXPECT_EQ(s.is_max_value_exact, false);
  // Untruncated bounds stay available (Iceberg metrics).
  EXPECT_EQ(b.EncodeMax(), "b" + std::string(30, 'z'));
  // No truncation when disabled.
  Statistics full = b.ToStatistics(0);
  EXPECT_EQ(full.max_value, "b" + std::string(30, 'z'));
  EXPECT_EQ(full.is_max_value_exact, true);
}

TEST(WriterStatisticsTest, UpperBoundThatCannotBeIncrementedIsLeftOut) {
  StatisticsBuilder b(kBinary);
  b.Update(std::string(20, '\xff'));
  b.Update("\x01");
  Statistics s = b.ToStatistics(16);
  EXPECT_EQ(s.min_value, "\x01");
  EXPECT_EQ(s.is_min_value_exact, true);
  EXPECT_FALSE(s.max_value.has_value());
  EXPECT_FALSE(s.is_max_value_exact.has_value());
}

TEST(WriterStatisticsTest, FixedWidthValuesAreNeverTruncated) {
  StatisticsBuilder b(OrderOf(PhysicalType::kFixedLenByteArray));
  b.Update(std::string(20, 'q'));
  EXPECT_EQ(b.ToStatistics(4).max_value, std::string(20, 'q'));
}

TEST(WriterStatisticsTest, IntegersSignedAndUnsigned) {
  StatisticsBuilder s(OrderOf(PhysicalType::kInt32));
  StatisticsBuilder u(OrderOf(PhysicalType::kInt32, LogicalType::Integer(32, false)));
  std::vector<int32_t> v = {-5, 10, -20};
  s.Update(std::span<const int32_t>(v));
  u.Update(std::span<const int32_t>(v));
  EXPECT_EQ(Decode<int32_t>(s.EncodeMin()), -20);
  EXPECT_EQ(Decode<int32_t>(s.EncodeMax()), 10);
  EXPECT_EQ(Decode<uint32_t>(u.EncodeMin()), 10u);
  EXPECT_EQ(Decode<uint32_t>(u.EncodeMax()), static_cast<uint32_t>(-5));
}

TEST(WriterStatisticsTest, SignedDecimalBytes) {
  StatisticsBuilder b(OrderOf(PhysicalType::kFixedLenByteArray, LogicalType::Decimal(4, 2)));
  b.Update(std::string("\xff\xfb", 2));  // -5
  b.Update(std::string("\x00\x03", 2));  // 3
  b.Update(std::string("\xff\x9c", 2));  // -100
  EXPECT_EQ(b.EncodeMin(), std::string("\xff\x9c", 2));
  EXPECT_EQ(b.EncodeMax(), std::string("\x00\x03", 2));
}

TEST(WriterStatisticsTest, BooleansAndMerge) {
  StatisticsBuilder a(OrderOf(PhysicalType::kBoolean)), b(OrderOf(PhysicalType::kBoolean));
  bool t[] = {true, true};
  bool f[] = {false};
  a.Update(std::span<const bool>(t));
  b.Update(std::span<const bool>(f));
  b.AddNulls(3);
  EXPECT_EQ(a.EncodeMin(), std::string(1, '\1'));
  a.Merge(b);
  EXPECT_EQ(a.EncodeMin(), std::string(1, '\0'));
  EXPECT_EQ(a.EncodeMax(), std::string(1, '\1'));
  EXPECT_EQ(a.null_count(), 3);
  EXPECT_EQ(a.non_null_count(), 3);
  StatisticsBuilder empty(OrderOf(PhysicalType::kBoolean));
  empty.Merge(a);
  EXPECT_EQ(empty.EncodeMax(), std::string(1, '\1'));
}

TEST(WriterStatisticsTest, BoundaryOrder) {
  const ValueOrder i64 = OrderOf(PhysicalType::kInt64);
  auto v = [](int64_t x) { return std::string(reinterpret_cast<const char*>(&x), 8); };
  EXPECT_EQ(
      ComputeBoundaryOrder(i64, {false, false, false}, {v(1), v(2), v(2)}, {v(5), v(5), v(9)}),
      BoundaryOrder::kAscending);
  EXPECT_EQ(ComputeBoundaryOrder(i64, {false, false}, {v(3), v(-1)}, {v(9), v(0)}),
            BoundaryOrder::kDescending);
  // Mins rise while maxes fall.
  EXPECT_EQ(ComputeBoundaryOrder(i64, {false, false}, {v(1), v(2)}, {v(9), v(8)}),
            BoundaryOrder::kUnordered);
  // Null pages (empty bounds) are skipped; one page or none is ascending.
  EXPECT_EQ(ComputeBoundaryOrder(i64, {false, true, false}, {v(5), "", v(1)}, {v(6), "", v(2)}),
            BoundaryOrder::kDescending);
  EXPECT_EQ(ComputeBoundaryOrder(i64, {true}, {""}, {""}), BoundaryOrder::kAscending);
  // Negative numbers: signed comparison, not byte-wise.
  EXPECT_EQ(ComputeBoundaryOrder(i64, {false, false}, {v(-10), v(3)}, {v(-1), v(4)}),
            BoundaryOrder::kAscending);
  EXPECT_EQ(ComputeBoundaryOrder(kString, {false, false}, {"a", "b"}, {"az", "bz"}),
            BoundaryOrder::kAscending);
}

}  // namespace
}  // namespace floe::parquet
