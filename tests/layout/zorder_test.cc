#include "floe/layout/zorder.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <optional>

#include <gtest/gtest.h>

#include "floe/columnar/column_builder.h"
#include "floe/layout/clustering.h"

namespace floe::layout {
namespace {

namespace c = floe::columnar;
using Bytes = std::vector<uint8_t>;

template <typename T>
c::ColumnPtr Fixed(c::DataType type, const std::vector<std::optional<T>>& v) {
  c::FixedWidthBuilder<T> b(std::move(type));
  for (const auto& x : v) {
    if (x) {
      b.Append(*x);
    } else {
      b.AppendNull();
    }
  }
  return b.Finish();
}

c::ColumnPtr Strings(const std::vector<std::optional<std::string>>& v,
                     c::DataType type = c::String()) {
  c::BinaryBuilder b(std::move(type));
  for (const auto& x : v) {
    if (x) {
      EXPECT_TRUE(b.Append(*x));
    } else {
      b.AppendNull();
    }
  }
  return b.Finish();
}

std::vector<int64_t> All(int64_t n) {
  std::vector<int64_t> r(static_cast<size_t>(n));
  std::iota(r.begin(), r.end(), 0);
  return r;
}

// Each row's key as a byte vector.
std::vector<Bytes> Keys(const c::Column& col, int var_length = 8) {
  auto k = OrderedBytes(col, All(col.length), var_length);
  EXPECT_TRUE(k) << k.error().ToString();
  std::vector<Bytes> out;
  for (int64_t i = 0; i < col.length; ++i) {
    out.emplace_back(k->At(static_cast<size_t>(i)), k->At(static_cast<size_t>(i)) + k->width);
  }
  return out;
}

// The bytes of ZOrderByteUtils' rules, written out by hand from the rule for each value.
TEST(ZOrder, IntegersAreBigEndianWithTheSignBitFlipped) {
  auto col = Fixed<int32_t>(c::Int32(), {1, -1, 0, std::nullopt, INT32_MIN});
  auto k = Keys(*col);
  EXPECT_EQ(k[0], (Bytes{0x80, 0, 0, 0, 0, 0, 0, 1}));
  EXPECT_EQ(k[1], (Bytes{0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}));
  EXPECT_EQ(k[2], (Bytes{0x80, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(k[3], (Bytes{0, 0, 0, 0, 0, 0, 0, 0}));  // NULL: 8 zero bytes
  EXPECT_EQ(k[4], (Bytes{0x7f, 0xff, 0xff, 0xff, 0x80, 0, 0, 0}));
}

TEST(ZOrder, FloatsUseTheSignTrickOnTheirDoubleBits) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto col = Fixed<double>(c::Float64(), {1.0, -1.0, 0.0, -0.0, nan, -nan});
  auto k = Keys(*col);
  EXPECT_EQ(k[0], (Bytes{0xbf, 0xf0, 0, 0, 0, 0, 0, 0}));  // 0x3ff0.. with the sign bit set
  EXPECT_EQ(k[1], (Bytes{0x40, 0x0f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}));  // ~0xbff0..
  EXPECT_EQ(k[2], (Bytes{0x80, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(k[3], (Bytes{0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}));
  EXPECT_EQ(k[4], (Bytes{0xff, 0xf8, 0, 0, 0, 0, 0, 0}));  // Java's canonical NaN
  EXPECT_EQ(k[5], k[4]);                                   // every NaN is that one
  // A float is widened to double first: 1.5f is 0x3ff8.. as a double.
  auto f = Fixed<float>(c::Float32(), {1.5f});
  EXPECT_EQ(Keys(*f)[0], (Bytes{0xbf, 0xf8, 0, 0, 0, 0, 0, 0}));
}

TEST(ZOrder, StringsAreCutAtAWholeCharacterOrZeroFilled) {
  auto col = Strings({"abc", "abcdefghij", "abcdefg\xc3\xa9", std::nullopt, ""});
  auto k = Keys(*col);
  EXPECT_EQ(k[0], (Bytes{'a', 'b', 'c', 0, 0, 0, 0, 0}));
  EXPECT_EQ(k[1], (Bytes{'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'}));
  EXPECT_EQ(k[2], (Bytes{'a', 'b', 'c', 'd', 'e', 'f', 'g', 0}));  // é (2 bytes) does not fit
  EXPECT_EQ(k[3], (Bytes{0, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(k[4], k[3]);
  EXPECT_EQ(Keys(*col, 3)[1], (Bytes{'a', 'b', 'c'}));  // var-length-contribution 3
  // Binary is cut anywhere.
  auto bin = Strings({"abcdefg\xc3\xa9"}, c::Binary());
  EXPECT_EQ(Keys(*bin)[0], (Bytes{'a', 'b', 'c', 'd', 'e', 'f', 'g', 0xc3}));
}

TEST(ZOrder, BooleansDatesAndTimestamps) {
  c::BoolBuilder b;
  b.Append(true);
  b.Append(false);
  b.AppendNull();
  auto bools = Keys(*b.Finish());
  EXPECT_EQ(bools[0], (Bytes{0x81, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(bools[1], (Bytes{0, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(bools[2], bools[1]);
  auto dates = Keys(*Fixed<int32_t>(c::Date32(), {1}));
  EXPECT_EQ(dates[0], (Bytes{0x80, 0, 0, 0, 0, 0, 0, 1}));  // days
  // Timestamps as whole seconds, rounded down (Spark's cast to long): -1 us is second -1.
  auto ts = Keys(*Fixed<int64_t>(c::Timestamp(c::TimeUnit::kMicro, "UTC"), {1500000, -1}));
  EXPECT_EQ(ts[0], (Bytes{0x80, 0, 0, 0, 0, 0, 0, 1}));
  EXPECT_EQ(ts[1], (Bytes{0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}));
}

TEST(ZOrder, NestedColumnsAreRefused) {
  auto list = c::NullColumn(c::List(c::Field{"item", c::Int32(), true}), 2);
  auto k = OrderedBytes(*list, All(2), 8);
  ASSERT_FALSE(k);
  EXPECT_NE(k.error().message.find("list"), std::string::npos) << k.error().message;
}

KeyBytes Column1(std::initializer_list<uint8_t> bytes) {
  KeyBytes k;
  k.width = static_cast<int>(bytes.size());
  k.bytes = bytes;
  return k;
}

// Bits go most significant first, round-robin over the columns.
TEST(ZOrder, InterleavesMostSignificantBitsFirst) {
  // a = 0x80 00.., b = 0x40 00.., c = 00.. 01: a's top bit is output bit 0; b's second bit is
  // output bit 1 * 3 + 1 = 4; c's last bit is (7 * 8 + 7) * 3 + 2 = 191, the last of 24 bytes.
  KeyBytes k = Interleave({Column1({0x80, 0, 0, 0, 0, 0, 0, 0}),
                           Column1({0x40, 0, 0, 0, 0, 0, 0, 0}), Column1({0, 0, 0, 0, 0, 0, 0, 1})},
                          1, 1 << 30);
  ASSERT_EQ(k.width, 24);
  Bytes want(24, 0);
  want[0] = 0x88;
  want[23] = 0x01;
  EXPECT_EQ(Bytes(k.bytes.begin(), k.bytes.end()), want);
  // max-output-size cuts the key.
  EXPECT_EQ(Interleave({Column1({0xff, 0xff}), Column1({0, 0})}, 1, 3).width, 3);
}

TEST(ZOrder, AColumnWithNoBytesLeftIsSkipped) {
  // a is one byte (0xff), b two (0x00, 0xff): 16 bits alternate a, b; then b's second byte alone.
  KeyBytes k = Interleave({Column1({0xff}), Column1({0x00, 0xff})}, 1, 1 << 30);
  EXPECT_EQ(Bytes(k.bytes.begin(), k.bytes.end()), (Bytes{0xaa, 0xaa, 0xff}));
}

TEST(ZOrder, SortsByTheWholeKeyAndKeepsTiesInOrder) {
  KeyBytes k;
  k.width = 10;
  // Rows 0..3: equal first 8 bytes, then 0x02, 0x01, 0x02, 0x00; row 4 smaller in byte 0.
  for (uint8_t last : {2, 1, 2, 0}) {
    for (int i = 0; i < 8; ++i) k.bytes.push_back(5);
    k.bytes.push_back(0);
    k.bytes.push_back(last);
  }
  for (int i = 0; i < 10; ++i) k.bytes.push_back(i == 0 ? 4 : 9);
  std::vector<int64_t> rows = {10, 11, 12, 13, 14};
  SortByKeys(k, &rows);
  EXPECT_EQ(rows, (std::vector<int64_t>{14, 13, 11, 10, 12}));
}

// Two int columns over a 4 x 4 grid: the Z curve visits the 2 x 2 quadrants one after another.
TEST(ZOrder, RowsOfAGridFollowTheZCurve) {
  std::vector<std::optional<int32_t>> xs, ys;
  for (int y = 3; y >= 0; --y) {
    for (int x = 3; x >= 0; --x) {
      xs.push_back(x);
      ys.push_back(y);
    }
  }
  auto x = Fixed<int32_t>(c::Int32(), xs), y = Fixed<int32_t>(c::Int32(), ys);
  auto spec = ParseClusterSpec("zorder(x, y)");
  ASSERT_TRUE(spec);
  std::vector<int64_t> rows = All(16);
  ASSERT_TRUE(ClusterRows(*spec, {x.get(), y.get()}, &rows));
  std::vector<std::pair<int, int>> got;
  for (int64_t r : rows) got.emplace_back(x->Value<int32_t>(r), y->Value<int32_t>(r));
  // x's bit comes first: (0,0) (0,1) (1,0) (1,1), then (0,2) ...
  const std::vector<std::pair<int, int>> want = {{0, 0}, {0, 1}, {1, 0}, {1, 1}, {0, 2}, {0, 3},
                                                 {1, 2}, {1, 3}, {2, 0}, {2, 1}, {3, 0}, {3, 1},
                                                 {2, 2}, {2, 3}, {3, 2}, {3, 3}};
  EXPECT_EQ(got, want);
}

// Large inputs take the radix path: the same order as a stable sort of the whole keys, constant
// bytes anywhere in the key, ties kept in input order.
TEST(ZOrder, ARadixSortOfManyKeysEqualsAStableSort) {
  for (int width : {3, 8, 13}) {
    KeyBytes k;
    k.width = width;
    const size_t n = 20000;
    uint64_t x = 12345;
    for (size_t i = 0; i < n; ++i) {
      for (int b = 0; b < width; ++b) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        // Byte 1 constant; byte 0 of few values (many ties); the rest random.
        k.bytes.push_back(b == 1   ? 7
                          : b == 0 ? static_cast<uint8_t>((x >> 60) & 3)
                                   : static_cast<uint8_t>(x >> 56));
      }
      if (i % 10 == 0 && i > 0) {  // exact duplicates of the previous key
        std::copy_n(k.bytes.end() - 2 * width, width, k.bytes.end() - width);
      }
    }
    std::vector<int64_t> rows(n), want(n);
    std::iota(rows.begin(), rows.end(), 100);
    std::iota(want.begin(), want.end(), 100);
    std::stable_sort(want.begin(), want.end(), [&](int64_t a, int64_t b) {
      return std::memcmp(k.At(static_cast<size_t>(a - 100)), k.At(static_cast<size_t>(b - 100)),
                         static_cast<size_t>(width)) < 0;
    });
    SortByKeys(k, &rows);
    EXPECT_EQ(rows, want) << "width " << width;
  }
}

}  // namespace
}  // namespace floe::layout
