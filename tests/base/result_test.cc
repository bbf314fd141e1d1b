#include "floe/base/result.h"

#include <gtest/gtest.h>

namespace floe {
namespace {

Result<int> Half(int v) {
  if (v % 2 != 0) return InvalidInput("{} is odd", v);
  return v / 2;
}

Result<int> Quarter(int v) {
  FLOE_ASSIGN_OR_RETURN(int h, Half(v));
  FLOE_ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

Status CheckPositive(int v) {
  if (v <= 0) return NotFound("value {} is not positive", v);
  return {};
}

Status Both(int a, int b) {
  FLOE_RETURN_IF_ERROR(CheckPositive(a));
  FLOE_RETURN_IF_ERROR(CheckPositive(b));
  return {};
}

TEST(Result, AssignOrReturnPropagatesTheFirstError) {
  EXPECT_EQ(Quarter(8).value(), 2);
  auto r = Quarter(6);  // 6 -> 3 -> odd
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().kind, ErrorKind::kInvalidInput);
  EXPECT_EQ(r.error().message, "3 is odd");
}

TEST(Result, ReturnIfErrorStopsAtTheFailingCheck) {
  EXPECT_TRUE(Both(1, 2).has_value());
  auto s = Both(1, -4);
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().ToString(), "not found: value -4 is not positive");
}

TEST(Result, EveryKindHasItsOwnName) {
  EXPECT_EQ(Corrupt("page 3 of column 'a'").error().ToString(), "corrupt: page 3 of column 'a'");
  EXPECT_EQ(Unsupported("nested column a.b").error().ToString(), "unsupported: nested column a.b");
  EXPECT_EQ(Conflict("x").error().ToString(), "conflict: x");
  EXPECT_EQ(IOError("x").error().ToString(), "io error: x");
  EXPECT_EQ(Internal("x").error().ToString(), "internal error: x");
  EXPECT_FALSE(IOError("x").error().transient);
  EXPECT_TRUE(TransientIOError("x").error().transient);
}

}  // namespace
}  // namespace floe
