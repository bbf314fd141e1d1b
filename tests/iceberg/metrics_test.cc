#include "floe/iceberg/metrics.h"

#include <gtest/gtest.h>

namespace floe::iceberg {
namespace {

TEST(Metrics, ModesParse) {
  EXPECT_EQ(ParseMetricsMode("truncate(16)")->length, 16);
  EXPECT_EQ(ParseMetricsMode("full")->kind, MetricsMode::Kind::kFull);
  EXPECT_EQ(ParseMetricsMode("counts")->kind, MetricsMode::Kind::kCounts);
  EXPECT_EQ(ParseMetricsMode("truncate(0)").error().ToString(),
            "invalid input: bad metrics mode 'truncate(0)' (none, counts, truncate(N), full)");
  TableMetadata m;
  m.properties = {{"write.metadata.metrics.default", "counts"},
                  {"write.metadata.metrics.column.id", "full"}};
  EXPECT_EQ(ColumnMetricsMode(m, "id")->kind, MetricsMode::Kind::kFull);
  EXPECT_EQ(ColumnMetricsMode(m, "other")->kind, MetricsMode::Kind::kCounts);
}

TEST(Metrics, TruncatedBoundsStayBounds) {
  EXPECT_EQ(TruncateLower("abcdef", TypeId::kString, 3), "abc");
  EXPECT_EQ(TruncateUpper("abcdef", TypeId::kString, 3), "abd");
  EXPECT_EQ(TruncateUpper("abc", TypeId::kString, 3), "abc");  // short values are exact
  // Code points, not bytes: "é" (U+00E9) increments to "ê" (U+00EA).
  EXPECT_EQ(TruncateLower("\xc3\xa9\xc3\xa9\xc3\xa9", TypeId::kString, 2), "\xc3\xa9\xc3\xa9");
  EXPECT_EQ(TruncateUpper("\xc3\xa9\xc3\xa9\xc3\xa9", TypeId::kString, 2), "\xc3\xa9\xc3\xaa");
  // U+10FFFF cannot be incremented: the bound moves to the previous code point.
  EXPECT_EQ(TruncateUpper("a\xf4\x8f\xbf\xbfz", TypeId::kString, 2), "b");
  EXPECT_EQ(TruncateUpper("\xf4\x8f\xbf\xbf\xf4\x8f\xbf\xbfz", TypeId::kString, 2), std::nullopt);
  // U+D7FF + 1 skips the surrogates.
  EXPECT_EQ(TruncateUpper("\xed\x9f\xbfz", TypeId::kString, 1), "\xee\x80\x80");
  EXPECT_EQ(TruncateUpper(std::string("\x01\xff\xff\x05", 4), TypeId::kBinary, 3), "\x02");
  EXPECT_EQ(TruncateUpper(std::string("\xff\xff\xff", 3), TypeId::kBinary, 2), std::nullopt);
}

}  // namespace
}  // namespace floe::iceberg
