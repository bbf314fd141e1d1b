#include "floe/base/buffer.h"

#include <gtest/gtest.h>

namespace floe {
namespace {

TEST(Buffer, SliceSharesStorageAndClampsToTheEnd) {
  Buffer b = Buffer::FromString("hello world");
  Buffer s = b.Slice(6, 100);
  EXPECT_EQ(s.string_view(), "world");
  EXPECT_EQ(s.data(), b.data() + 6);  // no copy
  EXPECT_TRUE(b.Slice(20, 3).empty());
  EXPECT_EQ(b.Slice(0, 5).Slice(1, 2).string_view(), "el");
}

TEST(Buffer, SliceOutlivesTheOriginal) {
  Buffer s;
  {
    Buffer b(std::vector<uint8_t>{1, 2, 3, 4});
    s = b.Slice(2, 2);
  }
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0], 3);
  EXPECT_EQ(s[1], 4);
}

TEST(Buffer, EqualityComparesBytes) {
  EXPECT_EQ(Buffer::FromString("abc"), Buffer::Copy(AsBytes("xabc")).Slice(1, 3));
  EXPECT_NE(Buffer::FromString("abc"), Buffer::FromString("abd"));
  EXPECT_EQ(Buffer(), Buffer::FromString(""));
}

}  // namespace
}  // namespace floe
