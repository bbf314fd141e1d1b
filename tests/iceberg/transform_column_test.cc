#include "floe/iceberg/transform_column.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "floe/columnar/column_builder.h"
#include "floe/iceberg/arrow_schema.h"

namespace floe::iceberg {
namespace {

namespace c = floe::columnar;

// A column of Iceberg type `t` (stored as 32- or 64-bit integers) holding `values`.
c::ColumnPtr IntegerColumn(TypeId t, const std::vector<std::optional<int64_t>>& values) {
  const c::DataType type = ToColumnarType(*Primitive(t)).value();
  auto fill = [&](auto builder, auto as) {
    for (const auto& v : values) {
      if (v) {
        builder.Append(static_cast<decltype(as)>(*v));
      } else {
        builder.AppendNull();
      }
    }
    return builder.Finish();
  };
  if (type.FixedWidth() == 4) return fill(c::FixedWidthBuilder<int32_t>(type), int32_t{});
  return fill(c::FixedWidthBuilder<int64_t>(type), int64_t{});
}

std::optional<int64_t> IntAt(const c::Column& col, int64_t r) {
  if (col.IsNull(r)) return std::nullopt;
  return col.type.FixedWidth() == 4 ? col.Value<int32_t>(r) : col.Value<int64_t>(r);
}

// The spec's Appendix B values, through columns: the same as the transform of each value.
TEST(TransformColumn, BucketsAndTimeUnitsOfTheSpecExamples) {
  const Transform wide = Transform::Bucket(2147483647);  // (h & INT_MAX) % that is h for these
  auto ints = IntegerColumn(TypeId::kInt, {34, std::nullopt});
  auto b = TransformColumn(wide, ints, *Primitive(TypeId::kInt));
  ASSERT_TRUE(b) << b.error().ToString();
  EXPECT_EQ(IntAt(**b, 0), 2017239379);
  EXPECT_EQ(IntAt(**b, 1), std::nullopt);
  EXPECT_EQ((*b)->null_count, 1);

  auto ts = IntegerColumn(TypeId::kTimestamp, {1510871468000000, -3600000000});
  auto tb = TransformColumn(wide, ts, *Primitive(TypeId::kTimestamp));
  ASSERT_TRUE(tb);
  EXPECT_EQ(IntAt(**tb, 0), -2047944441 & 0x7FFFFFFF);
  auto day = TransformColumn(Transform::Day(), ts, *Primitive(TypeId::kTimestamp));
  ASSERT_TRUE(day);
  EXPECT_EQ((*day)->type.id, c::TypeId::kDate32);
  EXPECT_EQ(IntAt(**day, 0), 17486);
  EXPECT_EQ(IntAt(**day, 1), -1);
  auto hour = TransformColumn(Transform::Hour(), ts, *Primitive(TypeId::kTimestamp));
  ASSERT_TRUE(hour);
  EXPECT_EQ(IntAt(**hour, 0), 17486 * 24 + 22);
  EXPECT_EQ(IntAt(**hour, 1), -1);
  auto year = TransformColumn(Transform::Year(), ts, *Primitive(TypeId::kTimestamp));
  ASSERT_TRUE(year);
  EXPECT_EQ(IntAt(**year, 0), 47);
  EXPECT_EQ(IntAt(**year, 1), -1);

  auto dates = IntegerColumn(TypeId::kDate, {17486});
  auto month = TransformColumn(Transform::Month(), dates, *Primitive(TypeId::kDate));
  ASSERT_TRUE(month);
  EXPECT_EQ(IntAt(**month, 0), 574);

  auto longs = IntegerColumn(TypeId::kLong, {-1, 1});
  auto trunc = TransformColumn(Transform::Truncate(10), longs, *Primitive(TypeId::kLong));
  ASSERT_TRUE(trunc);
  EXPECT_EQ((*trunc)->type.FixedWidth(), 8);
  EXPECT_EQ(IntAt(**trunc, 0), -10);
  EXPECT_EQ(IntAt(**trunc, 1), 0);

  c::BinaryBuilder s;
  ASSERT_TRUE(s.Append("iceberg"));
  s.AppendNull();
  auto strings = TransformColumn(wide, s.Finish(), *Primitive(TypeId::kString));
  ASSERT_TRUE(strings);
  EXPECT_EQ(IntAt(**strings, 0), 1210000089);
  EXPECT_EQ(IntAt(**strings, 1), std::nullopt);
}

// Every transform of every integer-backed type, over values around zero and far from it, gives
// per row what the transform gives for that row's value alone.
TEST(TransformColumn, EveryRowAsTheTransformOfItsValue) {
  std::vector<std::optional<int64_t>> values;
  for (int64_t v = -40; v <= 40; v += 3) values.push_back(v * 86'399'999'977LL);
  values.push_back(std::nullopt);
  values.push_back(0);
  const std::vector<Transform> transforms = {
      Transform::Bucket(7), Transform::Bucket(1000), Transform::Truncate(4), Transform::Year(),
      Transform::Month(),   Transform::Day(),        Transform::Hour()};
  for (TypeId t : {TypeId::kInt, TypeId::kLong, TypeId::kDate, TypeId::kTimestamp,
                   TypeId::kTimestampTz, TypeId::kTimestampNs}) {
    const TypePtr type = Primitive(t);
    std::vector<std::optional<int64_t>> in = values;
    if (t == TypeId::kInt || t == TypeId::kDate) {
      for (auto& v : in) {
        if (v) v = *v / 86'400'000'000LL * 1000 + *v % 997;  // within 32 bits
      }
    }
    auto col = IntegerColumn(t, in);
    for (const Transform& tr : transforms) {
      if (!tr.CanApply(*type)) continue;
      auto out = TransformColumn(tr, col, *type);
      ASSERT_TRUE(out) << tr.ToString() << " of " << type->ToString();
      ASSERT_EQ((*out)->length, static_cast<int64_t>(in.size()));
      for (size_t r = 0; r < in.size(); ++r) {
        auto one = tr.Apply(LiteralAt(*col, static_cast<int64_t>(r), *type).value());
        ASSERT_TRUE(one);
        std::optional<int64_t> want;
        if (!one->is_null()) want = one->type() == TypeId::kLong ? one->AsLong() : one->AsInt();
        EXPECT_EQ(IntAt(**out, static_cast<int64_t>(r)), want)
            << tr.ToString() << " of " << type->ToString() << " row " << r;
      }
    }
  }
}

}  // namespace
}  // namespace floe::iceberg
