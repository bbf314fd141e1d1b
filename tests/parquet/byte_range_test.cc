#include "floe/parquet/byte_range.h"

#include <gtest/gtest.h>

namespace floe::parquet {
namespace {

TEST(ByteRangeTest, Coalesce) {
  std::vector<ByteRange> ranges = {{100, 1}, {20, 5}, {0, 10}, {10, 5}, {7, 0}, {3, 4}};
  EXPECT_EQ(CoalesceRanges(ranges, 0), (std::vector<ByteRange>{{0, 15}, {20, 5}, {100, 1}}));
  EXPECT_EQ(CoalesceRanges(ranges, 5), (std::vector<ByteRange>{{0, 25}, {100, 1}}));
  EXPECT_EQ(CoalesceRanges(ranges, 75), (std::vector<ByteRange>{{0, 101}}));
  EXPECT_TRUE(CoalesceRanges({}, 10).empty());
}

TEST(ByteRangeTest, FetchedBytesHandsOutSlicesOfAnyCoveringBuffer) {
  std::string file(200, '\0');
  for (size_t i = 0; i < file.size(); ++i) file[i] = static_cast<char>(i);
  Buffer all = Buffer::FromString(file);
  FetchedBytes fetched;
  fetched.Add(0, all.Slice(0, 100));
  fetched.Add(40, all.Slice(40, 5));  // nested in the first: the nearest start, yet too short
  fetched.Add(150, all.Slice(150, 50));
  auto a = fetched.Find({42, 20});
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->string_view(), file.substr(42, 20));
  auto b = fetched.Find({40, 5});
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->string_view(), file.substr(40, 5));
  EXPECT_TRUE(fetched.Covers({150, 50}));
  EXPECT_FALSE(fetched.Covers({95, 10}));   // spans two buffers' gap
  EXPECT_FALSE(fetched.Covers({190, 11}));  // past the end
  EXPECT_FALSE(fetched.Covers({-1, 1}));
  EXPECT_EQ(fetched.total_bytes(), 155);
  auto missing = fetched.Get({120, 10}, "a data page");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().ToString(),
            "invalid input: the bytes [120, +10) of a data page were not supplied");
}

}  // namespace
}  // namespace floe::parquet
