#include "floe/iceberg/transform.h"

#include <gtest/gtest.h>

#include "floe/iceberg/murmur3.h"

namespace floe::iceberg {
namespace {

std::string Unhex(std::string_view h) {
  std::string out;
  for (size_t i = 0; i + 1 < h.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(std::string(h.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

// The hash test vectors of the table spec, Appendix B. Inputs computed independently (Python
// datetime/uuid): 2017-11-16 is day 17486; 2017-11-16T22:31:08 is 1510871468000000 us.
TEST(Bucket, HashesMatchTheSpecAppendixB) {
  EXPECT_EQ(BucketHash(Literal::Int(34)).value(), 2017239379);
  EXPECT_EQ(BucketHash(Literal::Long(34)).value(), 2017239379);
  EXPECT_EQ(BucketHash(Literal::Decimal(1420, 2)).value(), -500754589);  // 14.20
  EXPECT_EQ(BucketHash(Literal::Date(17486)).value(), -653330422);
  EXPECT_EQ(BucketHash(Literal::Time(81068000000)).value(), -662762989);
  EXPECT_EQ(BucketHash(Literal::Timestamp(1510871468000000)).value(), -2047944441);
  EXPECT_EQ(BucketHash(Literal::TimestampTz(1510871468000000)).value(), -2047944441);
  EXPECT_EQ(BucketHash(Literal::Timestamp(1510871468000001)).value(), -1207196810);
  EXPECT_EQ(BucketHash(Literal::TimestampNs(1510871468000001001)).value(), -1207196810);
  EXPECT_EQ(BucketHash(Literal::String("iceberg")).value(), 1210000089);
  EXPECT_EQ(BucketHash(Literal::Uuid(Unhex("f79c3e09677c4bbda4793f349cb785e7"))).value(),
            1488055340);
  EXPECT_EQ(BucketHash(Literal::Fixed(Unhex("00010203"))).value(), -188683207);
  EXPECT_EQ(BucketHash(Literal::Binary(Unhex("00010203"))).value(), -188683207);
  EXPECT_FALSE(BucketHash(Literal::Double(1.0)).has_value());
}

TEST(Bucket, DropsTheSignBitBeforeTheModulo) {
  // hash(34) = 2017239379 -> 2017239379 % 100 = 79; a negative hash keeps its low 31 bits.
  EXPECT_EQ(Transform::Bucket(100).Apply(Literal::Int(34))->AsInt(), 79);
  int32_t h = BucketHash(Literal::String("iceberg")).value();
  EXPECT_EQ(Transform::Bucket(16).Apply(Literal::String("iceberg"))->AsInt(),
            (h & 0x7FFFFFFF) % 16);
  EXPECT_EQ(Transform::Bucket(8).Apply(Literal::Decimal(1420, 2))->AsInt(),
            (-500754589 & 0x7FFFFFFF) % 8);
}

TEST(Truncate, FollowsTheSpecExamples) {
  EXPECT_EQ(Transform::Truncate(10).Apply(Literal::Int(1))->AsInt(), 0);
  EXPECT_EQ(Transform::Truncate(10).Apply(Literal::Int(-1))->AsInt(), -10);
  EXPECT_EQ(Transform::Truncate(10).Apply(Literal::Long(1))->AsLong(), 0);
  EXPECT_EQ(Transform::Truncate(10).Apply(Literal::Long(-1))->AsLong(), -10);
  EXPECT_EQ(Transform::Truncate(50).Apply(Literal::Decimal(1065, 2))->AsDecimal().unscaled, 1050);
  EXPECT_EQ(Transform::Truncate(3).Apply(Literal::String("iceberg"))->AsString(), "ice");
  // Code points, not bytes: "é" is two bytes of UTF-8.
  EXPECT_EQ(Transform::Truncate(2).Apply(Literal::String("\xc3\xa9t\xc3\xa9"))->AsString(),
            "\xc3\xa9t");
  EXPECT_EQ(Transform::Truncate(2).Apply(Literal::Binary("\x01\x02\x03"))->AsBytes(), "\x01\x02");
}

TEST(TimeTransforms, CountFromTheEpochWithFloorSemantics) {
  Literal ts = Literal::Timestamp(1510871468000000);  // 2017-11-16T22:31:08
  EXPECT_EQ(Transform::Year().Apply(ts)->AsInt(), 47);
  EXPECT_EQ(Transform::Month().Apply(ts)->AsInt(), 47 * 12 + 10);
  EXPECT_EQ(Transform::Day().Apply(ts)->AsInt(), 17486);
  EXPECT_EQ(Transform::Day().Apply(ts)->type(), TypeId::kDate);
  EXPECT_EQ(Transform::Hour().Apply(ts)->AsInt(), 17486 * 24 + 22);
  EXPECT_EQ(Transform::Month().Apply(Literal::Date(17486))->AsInt(), 574);
  // One hour before the epoch is hour -1 and day -1, month -1 (1969-12), year -1.
  Literal before = Literal::TimestampTz(-3600000000);
  EXPECT_EQ(Transform::Hour().Apply(before)->AsInt(), -1);
  EXPECT_EQ(Transform::Day().Apply(before)->AsInt(), -1);
  EXPECT_EQ(Transform::Month().Apply(before)->AsInt(), -1);
  EXPECT_EQ(Transform::Year().Apply(before)->AsInt(), -1);
  EXPECT_EQ(Transform::Day().Apply(Literal::TimestampNs(1510871468000000001))->AsInt(), 17486);
}

TEST(Transform, NullsAndVoid) {
  EXPECT_TRUE(Transform::Bucket(4).Apply(Literal::Null(TypeId::kLong))->is_null());
  EXPECT_TRUE(Transform::Day().Apply(Literal::Null(TypeId::kTimestamp))->is_null());
  EXPECT_TRUE(Transform::Void().Apply(Literal::Long(5))->is_null());
}

TEST(Transform, ParsesAndRejects) {
  EXPECT_EQ(Transform::Parse("bucket[16]").value(), Transform::Bucket(16));
  EXPECT_EQ(Transform::Parse("truncate[4]").value(), Transform::Truncate(4));
  EXPECT_EQ(Transform::Parse("day").value(), Transform::Day());
  EXPECT_EQ(Transform::Bucket(16).ToString(), "bucket[16]");
  EXPECT_EQ(Transform::Parse("bucket[0]").error().ToString(),
            "invalid input: bad transform 'bucket[0]': the parameter must be a positive integer");
  EXPECT_EQ(Transform::Parse("zorder").error().ToString(),
            "unsupported: partition transform 'zorder'");
  EXPECT_FALSE(Transform::Hour().CanApply(*Primitive(TypeId::kDate)));
  EXPECT_FALSE(Transform::Bucket(2).CanApply(*Primitive(TypeId::kDouble)));
  EXPECT_EQ(Transform::Day().ResultType(*Primitive(TypeId::kTimestampTz)).value()->id,
            TypeId::kDate);
  EXPECT_EQ(Transform::Truncate(2).ResultType(*Primitive(TypeId::kDouble)).error().ToString(),
            "invalid input: transform truncate[2] cannot apply to type double");
}

TEST(Literal, BoundsSerialiseAsTheSpecSays) {
  EXPECT_EQ(SerializeBound(Literal::Int(1)), std::string("\x01\x00\x00\x00", 4));
  EXPECT_EQ(SerializeBound(Literal::Long(-2)), std::string(8, '\xff').replace(0, 1, "\xfe"));
  EXPECT_EQ(SerializeBound(Literal::String("abc")), "abc");
  // Decimals: minimal two's complement, big-endian.
  EXPECT_EQ(SerializeBound(Literal::Decimal(1420, 2)), "\x05\x8c");
  EXPECT_EQ(SerializeBound(Literal::Decimal(-1, 2)), "\xff");
  EXPECT_EQ(SerializeBound(Literal::Decimal(128, 0)), std::string("\x00\x80", 2));
  EXPECT_EQ(SerializeBound(Literal::Decimal(-129, 0)), "\xff\x7f");
  auto dec = DeserializeBound(*Decimal(9, 2), "\xff\x7f");
  EXPECT_EQ(dec->AsDecimal().unscaled, -129);
  EXPECT_EQ(dec->ToString(), "-1.29");
  EXPECT_EQ(
      DeserializeBound(*Primitive(TypeId::kLong), std::string("\x05\x00\x00\x00", 4))->AsLong(), 5);
  EXPECT_EQ(DeserializeBound(*Primitive(TypeId::kInt), "ab").error().ToString(),
            "corrupt: bound of 2 bytes for type int (expected 4)");
  EXPECT_EQ(Literal::Date(17486).ToString(), "2017-11-16");
  EXPECT_EQ(Literal::TimestampTz(1510871468000001).ToString(), "2017-11-16T22:31:08.000001+00:00");
  EXPECT_EQ(Literal::Uuid(Unhex("f79c3e09677c4bbda4793f349cb785e7")).ToString(),
            "f79c3e09-677c-4bbd-a479-3f349cb785e7");
  EXPECT_EQ(Literal::Decimal(5, 3).ToString(), "0.005");
}

TEST(Literal, OrdersLikeIceberg) {
  EXPECT_EQ(Compare(Literal::Long(1), Literal::Long(2)), std::partial_ordering::less);
  EXPECT_EQ(Compare(Literal::String("a"), Literal::String("\xc3\xa9")),
            std::partial_ordering::less);
  EXPECT_EQ(Compare(Literal::Double(-0.0), Literal::Double(0.0)), std::partial_ordering::less);
  EXPECT_EQ(Compare(Literal::Double(NAN), Literal::Double(0.0)), std::partial_ordering::unordered);
  EXPECT_EQ(Compare(Literal::Int(1), Literal::Long(1)), std::partial_ordering::unordered);
}

}  // namespace
}  // namespace floe::iceberg
