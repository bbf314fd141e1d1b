#include "floe/iceberg/partition_spec.h"

#include <gtest/gtest.h>

#include "floe/iceberg/sort_order.h"

namespace floe::iceberg {
namespace {

Schema OrdersSchema() {
  return Schema(0, {NestedField{1, "order_id", true, Primitive(TypeId::kLong)},
                    NestedField{2, "ts", false, Primitive(TypeId::kTimestampTz)},
                    NestedField{3, "name", false, Primitive(TypeId::kString)},
                    NestedField{4, "region", false, Primitive(TypeId::kString)},
                    NestedField{5, "amount", false, Primitive(TypeId::kDouble)}});
}

TEST(PartitionSpec, ParsesTheCliSyntax) {
  Schema s = OrdersSchema();
  auto spec = PartitionSpec::Parse("day(ts), bucket(8, order_id), truncate(4, name), region", s);
  ASSERT_TRUE(spec.has_value()) << spec.error().ToString();
  ASSERT_EQ(spec->fields().size(), 4u);
  EXPECT_EQ(spec->fields()[0], (PartitionField{2, 1000, "ts_day", Transform::Day()}));
  EXPECT_EQ(spec->fields()[1], (PartitionField{1, 1001, "order_id_bucket", Transform::Bucket(8)}));
  EXPECT_EQ(spec->fields()[2], (PartitionField{3, 1002, "name_trunc", Transform::Truncate(4)}));
  EXPECT_EQ(spec->fields()[3], (PartitionField{4, 1003, "region", Transform::Identity()}));
  EXPECT_EQ(spec->LastFieldId(), 1003);
  auto type = spec->PartitionType(s).value();
  EXPECT_EQ(type->ToString(),
            "struct<ts_day: date, order_id_bucket: int, name_trunc: string, region: string>");
  EXPECT_EQ(
      spec->ToJson().dump(),
      R"({"fields":[{"field-id":1000,"name":"ts_day","source-id":2,"transform":"day"},)"
      R"({"field-id":1001,"name":"order_id_bucket","source-id":1,"transform":"bucket[8]"},)"
      R"({"field-id":1002,"name":"name_trunc","source-id":3,"transform":"truncate[4]"},)"
      R"({"field-id":1003,"name":"region","source-id":4,"transform":"identity"}],"spec-id":0})");
  EXPECT_EQ(PartitionSpec::FromJson(spec->ToJson()).value(), *spec);
}

TEST(PartitionSpec, BadSpecsNameTheProblem) {
  Schema s = OrdersSchema();
  EXPECT_EQ(PartitionSpec::Parse("day(nope)", s).error().ToString(),
            "invalid input: partition column 'nope' is not in the table schema");
  EXPECT_EQ(PartitionSpec::Parse("hour(name)", s).error().ToString(),
            "invalid input: partition field 'hour(name)': hour cannot apply to column 'name' of "
            "type string");
  EXPECT_EQ(PartitionSpec::Parse("bucket(x, order_id)", s).error().ToString(),
            "invalid input: partition field 'bucket(x, order_id)': bucket needs a positive width");
  EXPECT_EQ(PartitionSpec::Parse("zorder(ts)", s).error().message.substr(0, 40),
            "partition field 'zorder(ts)': unknown tr");
  EXPECT_EQ(PartitionSpec::Parse("region, region", s).error().ToString(),
            "invalid input: partition field name 'region' is used twice");
}

TEST(PartitionSpec, PathsUseHumanValues) {
  Schema s = OrdersSchema();
  auto spec = PartitionSpec::Parse("day(ts), hour(ts), month(ts), year(ts), region", s).value();
  std::vector<Literal> v = {Literal::Date(17486), Literal::Int(17486 * 24 + 22), Literal::Int(574),
                            Literal::Int(47), Literal::String("eu west/1")};
  EXPECT_EQ(
      spec.PartitionPath(v),
      "ts_day=2017-11-16/ts_hour=2017-11-16-22/ts_month=2017-11/ts_year=2017/region=eu+west%2F1");
}

TEST(SortOrder, ParsesDefaultsAndJson) {
  Schema s = OrdersSchema();
  auto o = SortOrder::Parse("region, ts DESC, order_id ASC NULLS LAST", s);
  ASSERT_TRUE(o.has_value()) << o.error().ToString();
  EXPECT_EQ(o->ToString(s), "region ASC NULLS FIRST, ts DESC NULLS LAST, order_id ASC NULLS LAST");
  EXPECT_EQ(SortOrder::FromJson(o->ToJson()).value(), *o);
  EXPECT_EQ(
      SortOrder::Parse("ts sideways", s).error().ToString(),
      "invalid input: sort field 'ts sideways': expected 'col [ASC|DESC] [NULLS FIRST|LAST]'");
  EXPECT_EQ(SortOrder::Parse("x", s).error().ToString(),
            "invalid input: sort column 'x' is not in the table schema");
}

}  // namespace
}  // namespace floe::iceberg
