#include "floe/iceberg/row_order.h"

#include <cmath>

#include <gtest/gtest.h>

#include "floe/columnar/column_builder.h"

namespace floe::iceberg {
namespace {

namespace c = floe::columnar;

// Columns: k (long, nullable), x (double), s (string), d (date).
struct Rows {
  std::vector<std::optional<int64_t>> k;
  std::vector<double> x;
  std::vector<std::string> s;
  std::vector<int32_t> d;

  c::RecordBatch Batch() const {
    c::FixedWidthBuilder<int64_t> kb(c::Int64());
    for (auto v : k) v ? kb.Append(*v) : kb.AppendNull();
    c::FixedWidthBuilder<double> xb(c::Float64());
    for (double v : x) xb.Append(v);
    c::BinaryBuilder sb;
    for (const auto& v : s) (void)sb.Append(v);
    c::FixedWidthBuilder<int32_t> db(c::Date32());
    for (int32_t v : d) db.Append(v);
    c::RecordBatch b;
    b.schema = std::make_shared<c::Schema>(c::Schema{{{"k", c::Int64(), true, 1},
                                                      {"x", c::Float64(), true, 2},
                                                      {"s", c::String(), true, 3},
                                                      {"d", c::Date32(), true, 4}}});
    b.columns = {kb.Finish(), xb.Finish(), sb.Finish(), db.Finish()};
    b.num_rows = static_cast<int64_t>(k.size());
    return b;
  }
};

Schema TestSchema() {
  return Schema(0, {NestedField{1, "k", false, Primitive(TypeId::kLong)},
                    NestedField{2, "x", false, Primitive(TypeId::kDouble)},
                    NestedField{3, "s", false, Primitive(TypeId::kString)},
                    NestedField{4, "d", false, Primitive(TypeId::kDate)}});
}

std::vector<int64_t> Order(const Rows& r, const SortOrder& o) {
  auto idx = SortIndices(r.Batch(), TestSchema(), o);
  EXPECT_TRUE(idx.has_value()) << idx.error().ToString();
  return idx.value_or(std::vector<int64_t>{});
}

std::vector<int64_t> Order(const Rows& r, const std::string& order) {
  auto o = SortOrder::Parse(order, TestSchema());
  EXPECT_TRUE(o.has_value()) << o.error().ToString();
  return o ? Order(r, *o) : std::vector<int64_t>{};
}

TEST(RowOrder, NullOrderAndDirectionAreIcebergs) {
  Rows r;
  r.k = {5, std::nullopt, -3, 5, 0};
  r.x = {0, 0, 0, 0, 0};
  r.s = {"", "", "", "", ""};
  r.d = {0, 0, 0, 0, 0};
  EXPECT_EQ(Order(r, "k"), (std::vector<int64_t>{1, 2, 4, 0, 3}));  // ASC: nulls first, stable
  EXPECT_EQ(Order(r, "k ASC NULLS LAST"), (std::vector<int64_t>{2, 4, 0, 3, 1}));
  EXPECT_EQ(Order(r, "k DESC"), (std::vector<int64_t>{0, 3, 4, 2, 1}));  // DESC: nulls last
  EXPECT_EQ(Order(r, "k DESC NULLS FIRST"), (std::vector<int64_t>{1, 0, 3, 4, 2}));
}

TEST(RowOrder, DoublesWithNaNAndSignedZero) {
  Rows r;
  r.x = {NAN, 1.5, -0.0, 0.0, -2.0};
  r.k = {0, 0, 0, 0, 0};
  r.s = {"", "", "", "", ""};
  r.d = {0, 0, 0, 0, 0};
  EXPECT_EQ(Order(r, "x"), (std::vector<int64_t>{4, 2, 3, 1, 0}));
}

TEST(RowOrder, StringsAsUnsignedBytesThenASecondColumn) {
  Rows r;
  r.s = {"b", "\xc3\xa9", "a", "b", "ab"};
  r.k = {2, 0, 0, 1, 0};
  r.x = {0, 0, 0, 0, 0};
  r.d = {0, 0, 0, 0, 0};
  EXPECT_EQ(Order(r, "s, k"), (std::vector<int64_t>{2, 4, 3, 0, 1}));
  EXPECT_EQ(Order(r, "s DESC, k DESC"), (std::vector<int64_t>{1, 0, 3, 4, 2}));
}

TEST(RowOrder, TransformsOrderByTheTransformedValue) {
  Rows r;
  // Days 0 (1970-01-01), 40 (Feb), 31 (Feb 1), 10 (Jan): month(d) ties Jan and Feb rows.
  r.d = {40, 0, 31, 10};
  r.k = {1, 2, 3, 4};
  r.x = {0, 0, 0, 0};
  r.s = {"", "", "", ""};
  SortOrder o(1, {SortField{4, Transform::Parse("month").value(), SortDirection::kAsc,
                            NullOrder::kNullsFirst},
                  SortField{1, Transform{}, SortDirection::kDesc, NullOrder::kNullsLast}});
  EXPECT_EQ(Order(r, o), (std::vector<int64_t>{3, 1, 2, 0}));
}

TEST(RowOrder, UnknownColumnIsAnError) {
  Rows r;
  r.k = {1};
  r.x = {0};
  r.s = {""};
  r.d = {0};
  Schema s = TestSchema();
  SortOrder o(1, {SortField{99, Transform{}, SortDirection::kAsc, NullOrder::kNullsFirst}});
  auto idx = SortIndices(r.Batch(), s, o);
  ASSERT_FALSE(idx.has_value());
  EXPECT_EQ(idx.error().ToString(), "invalid input: sort field id 99 is not in the schema");
}

}  // namespace
}  // namespace floe::iceberg
