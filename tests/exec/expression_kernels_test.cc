// Evaluate's typed loops (expression_kernels.cc) against the rules they replace: LIKE against
// LikeMatch row by row (plain and dictionary-coded strings), IN with NULLs in the column and in the
// list, CASE, numeric casts against CastValue, decimal comparisons against the integers they are.
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "floe/columnar/column_builder.h"
#include "floe/exec/expression.h"

namespace floe::exec {
namespace {

using columnar::ColumnPtr;

const std::vector<std::string> kStrings = {"",
                                           "a",
                                           "ab",
                                           "abc",
                                           "abcabc",
                                           "xabcx",
                                           "special requests",
                                           "mississippi",
                                           "PROMO BRUSHED",
                                           "%",
                                           "a_b",
                                           "aXa",
                                           "STANDARD BRASS",
                                           "Abc",
                                           "bca"};

// kStrings with a NULL after them, as one string column; with `dictionary`, also as codes into a
// dictionary of the distinct values (in reverse order, so codes are not row numbers).
columnar::RecordBatch Strings(bool dictionary) {
  ValueColumnBuilder b(columnar::String());
  for (const auto& s : kStrings) EXPECT_TRUE(b.Append(Value::Str(s)));
  b.AppendNull();
  auto column = std::make_shared<columnar::Column>(*b.Finish());
  if (dictionary) {
    ValueColumnBuilder d(columnar::String());
    for (auto it = kStrings.rbegin(); it != kStrings.rend(); ++it) {
      EXPECT_TRUE(d.Append(Value::Str(*it)));
    }
    std::vector<int32_t> codes;
    for (size_t i = 0; i < kStrings.size(); ++i) {
      codes.push_back(static_cast<int32_t>(kStrings.size() - 1 - i));
    }
    codes.push_back(0);  // the NULL row's code is any
    column->dictionary = d.Finish();
    std::vector<uint8_t> bytes(codes.size() * 4);
    std::memcpy(bytes.data(), codes.data(), bytes.size());
    column->codes = Buffer(std::move(bytes));
  }
  columnar::RecordBatch batch;
  batch.schema = std::make_shared<columnar::Schema>(columnar::Schema{{{"s", columnar::String()}}});
  batch.columns = {column};
  batch.num_rows = column->length;
  return batch;
}

ExprPtr S() { return ColumnRef(0, columnar::String(), "s"); }
ExprPtr Str(std::string v) { return Constant(Value::Str(std::move(v)), columnar::String()); }
ExprPtr Int(int64_t v) { return Constant(Value::Int(v), columnar::Int64()); }

std::vector<std::string> Texts(const ColumnPtr& c) {
  std::vector<std::string> out;
  for (int64_t r = 0; r < c->length; ++r) {
    out.push_back(ValueToText(ValueAt(*c, r).value(), c->type));
  }
  return out;
}

std::string Lowered(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

TEST(ExpressionKernels, LikeAgreesWithTheRowMatcherOnEveryPattern) {
  const std::vector<std::string> patterns = {"",
                                             "%",
                                             "%%",
                                             "a",
                                             "a%",
                                             "%a",
                                             "%b%",
                                             "ab%c",
                                             "a%b%c",
                                             "%abc%abc%",
                                             "%iss%ppi",
                                             "PROMO%",
                                             "%BRASS",
                                             "a%a",
                                             "_b%",
                                             "a\\%b",
                                             "%special%requests%",
                                             "abc",
                                             "%c",
                                             "abc%abc",
                                             "a%%c",
                                             "%ab%bc%"};
  for (bool dictionary : {false, true}) {
    const columnar::RecordBatch batch = Strings(dictionary);
    for (const auto& p : patterns) {
      for (bool ilike : {false, true}) {
        auto call = MakeCall(ilike ? Fn::kILike : Fn::kLike, {S(), Str(p)}).value();
        const std::vector<std::string> got = Texts(Evaluate(*call, batch).value());
        ASSERT_EQ(got.size(), kStrings.size() + 1);
        for (size_t i = 0; i < kStrings.size(); ++i) {
          const bool want =
              ilike ? LikeMatch(Lowered(kStrings[i]), Lowered(p)) : LikeMatch(kStrings[i], p);
          EXPECT_EQ(got[i], want ? "true" : "false")
              << "'" << kStrings[i] << "' " << (ilike ? "ILIKE" : "LIKE") << " '" << p
              << "' (dictionary " << dictionary << ")";
        }
        EXPECT_EQ(got.back(), "NULL");
      }
    }
  }
}

TEST(ExpressionKernels, InOfStringsAndIntegersFollowsThreeValuedLogic) {
  for (bool dictionary : {false, true}) {
    const columnar::RecordBatch batch = Strings(dictionary);
    auto in = MakeCall(Fn::kIn, {S(), Str("abc"), Str("%"), Str("zzz")}).value();
    std::vector<std::string> want(kStrings.size() + 1, "false");
    want[3] = want[9] = "true";
    want.back() = "NULL";
    EXPECT_EQ(Texts(Evaluate(*in, batch).value()), want);
    // A NULL in the list: no match is unknown.
    auto with_null =
        MakeCall(Fn::kIn, {S(), Str("abc"), Constant(Value{}, columnar::String())}).value();
    std::vector<std::string> want_null(kStrings.size() + 1, "NULL");
    want_null[3] = "true";
    EXPECT_EQ(Texts(Evaluate(*with_null, batch).value()), want_null);
  }
  ValueColumnBuilder xs(columnar::Int64());
  for (int64_t v : {5, -3, 70, 0}) EXPECT_TRUE(xs.Append(Value::Int(v)));
  xs.AppendNull();
  columnar::RecordBatch ints;
  ints.schema = std::make_shared<columnar::Schema>(columnar::Schema{{{"x", columnar::Int64()}}});
  ints.columns = {xs.Finish()};
  ints.num_rows = 5;
  const ExprPtr x = ColumnRef(0, columnar::Int64(), "x");
  std::vector<ExprPtr> args{x};
  for (int64_t v = 70; v >= -70; v -= 7) args.push_back(Int(v));  // 70, 63, ..., 0, ..., -70
  EXPECT_EQ(Texts(Evaluate(*MakeCall(Fn::kIn, args).value(), ints).value()),
            (std::vector<std::string>{"false", "false", "true", "true", "NULL"}));
  args.push_back(Constant(Value{}, columnar::Int64()));
  EXPECT_EQ(Texts(Evaluate(*MakeCall(Fn::kIn, args).value(), ints).value()),
            (std::vector<std::string>{"NULL", "NULL", "true", "true", "NULL"}));
  auto not_in = MakeCall(Fn::kNot, {MakeCall(Fn::kIn, {x, Int(5), Int(0)}).value()}).value();
  EXPECT_EQ(Texts(Evaluate(*not_in, ints).value()),
            (std::vector<std::string>{"false", "true", "true", "false", "NULL"}));
}

// Many constants (a join's keys pushed into a scan): a bitmap over their range when it is at
// most 2^23 wide, a sorted list beyond -- both as membership says, at the range's ends and past
// them (values far outside must not wrap into it), with NULLs, for longs and dates.
TEST(ExpressionKernels, InOfManyIntegersMatchesMembershipOverNarrowAndWideRanges) {
  for (const int64_t stride : {int64_t{3}, int64_t{1} << 40}) {
    SCOPED_TRACE(stride);
    for (const bool dates : {false, true}) {
      if (dates && stride > 1000) continue;
      const columnar::DataType type = dates ? columnar::Date32() : columnar::Int64();
      std::set<int64_t> members;
      const ExprPtr x = ColumnRef(0, type, "x");
      std::vector<ExprPtr> args{x};
      for (int64_t i = 40; i-- > 0;) {  // descending: the kernel sorts them
        const int64_t v = -50 + i * stride;
        members.insert(v);
        args.push_back(Constant(Value::Int(v), type));
      }
      std::vector<int64_t> rows = {*members.begin() - 1, *members.rbegin() + 1};
      for (int64_t v = -60; v < 200; ++v) rows.push_back(v);
      for (int64_t m : members) rows.push_back(m);
      if (!dates) {
        rows.insert(rows.end(), {INT64_MIN, INT64_MAX, INT64_MIN + 5, -50 + (int64_t{1} << 23)});
      }
      ValueColumnBuilder b(type);
      for (int64_t v : rows) EXPECT_TRUE(b.Append(Value::Int(v)));
      b.AppendNull();
      columnar::RecordBatch batch;
      batch.schema = std::make_shared<columnar::Schema>(columnar::Schema{{{"x", type}}});
      batch.columns = {b.Finish()};
      batch.num_rows = static_cast<int64_t>(rows.size()) + 1;
      std::vector<std::string> want;
      for (int64_t v : rows) want.emplace_back(members.count(v) ? "true" : "false");
      want.emplace_back("NULL");
      const ExprPtr in = MakeCall(Fn::kIn, args).value();
      ASSERT_NE(in->integer_set, nullptr);  // made ready once, with the call
      EXPECT_EQ(Texts(Evaluate(*in, batch).value()), want);
      // Without the NULL row (answers packed 64 at a time), and with a NULL in the list: a row
      // not in it is NULL, not false.
      ValueColumnBuilder plain(type);
      for (int64_t v : rows) EXPECT_TRUE(plain.Append(Value::Int(v)));
      columnar::RecordBatch no_nulls;
      no_nulls.schema = batch.schema;
      no_nulls.columns = {plain.Finish()};
      no_nulls.num_rows = static_cast<int64_t>(rows.size());
      want.pop_back();
      EXPECT_EQ(Texts(Evaluate(*in, no_nulls).value()), want);
      std::vector<ExprPtr> with_null = args;
      with_null.push_back(Constant(Value{}, type));
      for (std::string& w : want) w = w == "true" ? w : "NULL";
      EXPECT_EQ(Texts(Evaluate(*MakeCall(Fn::kIn, with_null).value(), no_nulls).value()), want);
    }
  }
  // Not integer constants: nothing made ready.
  const ExprPtr s = ColumnRef(0, columnar::String(), "s");
  EXPECT_EQ(
      MakeCall(Fn::kIn, {s, Constant(Value::Str("a"), columnar::String())}).value()->integer_set,
      nullptr);
  const ExprPtr x = ColumnRef(0, columnar::Int64(), "x");
  EXPECT_EQ(MakeCall(Fn::kIn, {x, x}).value()->integer_set, nullptr);
}

// Decimals of scale 2 from unscaled values, a NULL last.
ColumnPtr Decimals(const columnar::DataType& type, const std::vector<__int128>& unscaled) {
  ValueColumnBuilder b(type);
  for (__int128 v : unscaled) EXPECT_TRUE(b.Append(Value{v}));
  b.AppendNull();
  return b.Finish();
}

TEST(ExpressionKernels, NumericCastsAgreeWithCastValue) {
  const columnar::DataType d152 = columnar::Decimal128(15, 2);
  const std::vector<__int128> unscaled = {0, 1, -1, 5, 7, 105, -99999, 123456789012345};
  columnar::RecordBatch batch;
  batch.schema = std::make_shared<columnar::Schema>(columnar::Schema{{{"d", d152}}});
  batch.columns = {Decimals(d152, unscaled)};
  batch.num_rows = static_cast<int64_t>(unscaled.size()) + 1;
  const ExprPtr d = ColumnRef(0, d152, "d");
  for (const columnar::DataType& to :
       {columnar::Float64(), columnar::Decimal128(18, 4), columnar::Decimal128(38, 2)}) {
    auto cast = MakeCast(d, to).value();
    const ColumnPtr got = Evaluate(*cast, batch).value();
    ASSERT_EQ(got->type, to);
    for (int64_t r = 0; r < batch.num_rows; ++r) {
      const Value want = CastValue(ValueAt(*batch.columns[0], r).value(), d152, to).value();
      EXPECT_EQ(ValueToText(ValueAt(*got, r).value(), to), ValueToText(want, to))
          << "row " << r << " to " << to.ToString();
    }
  }
  // Out of the target's range: the row rule's error, not a wrapped value.
  auto narrow = MakeCast(d, columnar::Decimal128(5, 2)).value();
  auto err = Evaluate(*narrow, batch);
  ASSERT_FALSE(err);
  EXPECT_NE(err.error().message.find("out of range"), std::string::npos) << err.error().message;
}

TEST(ExpressionKernels, DecimalComparisonsAndCaseOverFixedWidthValues) {
  const columnar::DataType t = columnar::Decimal128(38, 4);
  columnar::RecordBatch batch;
  batch.schema = std::make_shared<columnar::Schema>(columnar::Schema{{{"a", t}, {"b", t}}});
  batch.columns = {Decimals(t, {10000, -5, 7, 123456}), Decimals(t, {10000, 5, -7, 123457})};
  batch.num_rows = 5;
  const ExprPtr a = ColumnRef(0, t, "a"), b = ColumnRef(1, t, "b");
  auto eval = [&](const ExprPtr& e) { return Texts(Evaluate(*e, batch).value()); };
  using V = std::vector<std::string>;
  EXPECT_EQ(eval(MakeCall(Fn::kEq, {a, b}).value()),
            (V{"true", "false", "false", "false", "NULL"}));
  EXPECT_EQ(eval(MakeCall(Fn::kLt, {a, b}).value()), (V{"false", "true", "false", "true", "NULL"}));
  EXPECT_EQ(eval(MakeCall(Fn::kGtEq, {a, b}).value()),
            (V{"true", "false", "true", "false", "NULL"}));
  // CASE WHEN a < b THEN a ELSE b END: the smaller, NULL where the pick is NULL.
  auto smaller = MakeCall(Fn::kCase, {MakeCall(Fn::kLt, {a, b}).value(), a, b}).value();
  EXPECT_EQ(eval(smaller), (V{"1.0000", "-0.0005", "-0.0007", "12.3456", "NULL"}));
  // A NULL condition is not true: the ELSE.
  auto else_null =
      MakeCall(Fn::kCase, {MakeCall(Fn::kLt, {a, b}).value(), a, Constant(Value{}, t)}).value();
  EXPECT_EQ(eval(else_null), (V{"NULL", "-0.0005", "NULL", "12.3456", "NULL"}));
}

// Decimal +, - and *: the 64-bit way where values and results fit it (in one pass over a column
// without nulls), the 128-bit way past it, one answer either way (the exact products and sums of
// the unscaled integers). Each set of rows is tried with a NULL row after it and without.
TEST(ExpressionKernels, DecimalArithmeticPastSixtyFourBitsStaysExact) {
  const columnar::DataType t = columnar::Decimal128(38, 0);
  const __int128 big = (__int128{1} << 62) + 12345;  // big * 3 and big * big pass 2^63
  const std::vector<std::pair<std::vector<__int128>, std::vector<__int128>>> cases = {
      {{3, -7, big, 3037000500, -big, (__int128{1} << 80)}, {5, 7, 3, 3037000500, -2, 3}},
      {{3, -7, 3037000499, -1}, {5, 7, 3037000499, INT64_MAX}},  // every result fits 64 bits
      {{3, big}, {5, 3}},                                        // values fit, big * 3 does not
      {{3, 4}, {5, (__int128{1} << 70)}}};                       // a value past 64 bits
  for (const auto& [xs, ys] : cases) {
    for (bool with_null : {true, false}) {
      const auto n = static_cast<int64_t>(xs.size());
      columnar::RecordBatch batch;
      batch.schema = std::make_shared<columnar::Schema>(columnar::Schema{{{"x", t}, {"y", t}}});
      auto column = [&](const std::vector<__int128>& values) {
        if (with_null) return Decimals(t, values);
        ValueColumnBuilder b(t);
        for (__int128 v : values) EXPECT_TRUE(b.Append(Value{v}));
        return b.Finish();
      };
      batch.columns = {column(xs), column(ys)};
      batch.num_rows = n + (with_null ? 1 : 0);
      const ExprPtr x = ColumnRef(0, t, "x"), y = ColumnRef(1, t, "y");
      for (Fn fn : {Fn::kAdd, Fn::kSub, Fn::kMul}) {
        auto call = MakeCall(fn, {x, y}).value();
        const ColumnPtr got = Evaluate(*call, batch).value();
        ASSERT_EQ(got->length, batch.num_rows);
        for (size_t i = 0; i < xs.size(); ++i) {
          const __int128 want = fn == Fn::kAdd   ? xs[i] + ys[i]
                                : fn == Fn::kSub ? xs[i] - ys[i]
                                                 : xs[i] * ys[i];
          EXPECT_TRUE(ValueAt(*got, static_cast<int64_t>(i)).value().dec() == want)
              << FnName(fn) << " row " << i << " of " << n << (with_null ? " and a NULL" : "");
        }
        if (with_null) EXPECT_TRUE(got->IsNull(n));
      }
    }
  }
}

// Past 64 rows results are packed 64 at a time, then a byte at a time, then bit by bit: every
// bit of a 203-row column lands on its row, for ints, dates and decimals.
TEST(ExpressionKernels, ComparisonsOverManyRowsPackEveryResultOnItsRow) {
  for (const columnar::DataType& type :
       {columnar::Int64(), columnar::Date32(), columnar::Decimal128(15, 2)}) {
    ValueColumnBuilder b(type);
    std::vector<int> values;
    for (int i = 0; i < 203; ++i) {
      values.push_back((i * 37) % 11);
      const Value v = type.id == columnar::TypeId::kDecimal128 ? Value{__int128{values.back()}}
                                                               : Value::Int(values.back());
      ASSERT_TRUE(b.Append(v));
    }
    columnar::RecordBatch batch;
    batch.schema = std::make_shared<columnar::Schema>(columnar::Schema{{{"x", type}}});
    batch.columns = {b.Finish()};
    batch.num_rows = 203;
    const Value five =
        type.id == columnar::TypeId::kDecimal128 ? Value{__int128{5}} : Value::Int(5);
    for (Fn fn : {Fn::kEq, Fn::kLt, Fn::kGtEq}) {
      auto call = MakeCall(fn, {ColumnRef(0, type, "x"), Constant(five, type)}).value();
      const std::vector<std::string> got = Texts(Evaluate(*call, batch).value());
      ASSERT_EQ(got.size(), 203u);
      for (size_t r = 0; r < got.size(); ++r) {
        const int x = values[r];
        const bool holds = fn == Fn::kEq ? x == 5 : fn == Fn::kLt ? x < 5 : x >= 5;
        EXPECT_EQ(got[r], holds ? "true" : "false") << type.ToString() << " row " << r;
      }
    }
  }
}

// column <op> constant against CompareValues row by row (the order the row rule uses: NaN above
// every number, -0.0 equal to 0.0, NULL rows NULL), for every comparison and every typed column.
TEST(ExpressionKernels, ComparisonsWithAConstantFollowCompareValues) {
  struct Case {
    columnar::DataType type;
    std::vector<Value> rows;  // a NULL added last
    std::vector<Value> constants;
  };
  const double nan = std::nan("");
  const std::vector<Case> cases = {
      {columnar::Int64(),
       {Value::Int(-5), Value::Int(0), Value::Int(7), Value::Int(INT64_MAX)},
       {Value::Int(0), Value::Int(7), Value::Int(INT64_MIN)}},
      {columnar::Date32(),
       {Value::Int(19725), Value::Int(19726), Value::Int(-1)},
       {Value::Int(19726)}},
      {columnar::Float64(),
       {Value::Double(-0.0), Value::Double(1.5), Value::Double(nan), Value::Double(-3)},
       {Value::Double(0.0), Value::Double(1.5), Value::Double(nan)}},
      {columnar::Decimal128(15, 2),
       {Value{__int128{5}}, Value{__int128{-700}}, Value{__int128{123456789}}},
       {Value{__int128{5}}, Value{__int128{0}}}},
      {columnar::String(),
       {Value::Str("FRANCE"), Value::Str(""), Value::Str("GERMANY"), Value::Str("FRANCE ")},
       {Value::Str("FRANCE"), Value::Str("")}},
  };
  for (const Case& c : cases) {
    ValueColumnBuilder b(c.type);
    for (const Value& v : c.rows) ASSERT_TRUE(b.Append(v));
    b.AppendNull();
    columnar::RecordBatch batch;
    batch.schema = std::make_shared<columnar::Schema>(columnar::Schema{{{"x", c.type}}});
    batch.columns = {b.Finish()};
    batch.num_rows = batch.columns[0]->length;
    const ExprPtr x = ColumnRef(0, c.type, "x");
    std::vector<Value> constants = c.constants;
    constants.push_back(Value{});  // x <op> NULL is NULL
    for (const Value& k : constants) {
      for (Fn fn : {Fn::kEq, Fn::kNotEq, Fn::kLt, Fn::kLtEq, Fn::kGt, Fn::kGtEq}) {
        auto call = MakeCall(fn, {x, Constant(k, c.type)}).value();
        const std::vector<std::string> got = Texts(Evaluate(*call, batch).value());
        ASSERT_EQ(got.size(), c.rows.size() + 1);
        for (size_t r = 0; r < c.rows.size(); ++r) {
          std::string want = "NULL";
          if (!k.is_null()) {
            const int s = CompareValues(c.rows[r], k);
            const bool holds = fn == Fn::kEq      ? s == 0
                               : fn == Fn::kNotEq ? s != 0
                               : fn == Fn::kLt    ? s < 0
                               : fn == Fn::kLtEq  ? s <= 0
                               : fn == Fn::kGt    ? s > 0
                                                  : s >= 0;
            want = holds ? "true" : "false";
          }
          EXPECT_EQ(got[r], want) << c.type.ToString() << " row " << r << " " << FnName(fn) << " "
                                  << ValueToText(k, c.type);
        }
        EXPECT_EQ(got.back(), "NULL");
      }
    }
  }
  // A dictionary-coded string column: each distinct value compared once, the same answers.
  auto call = MakeCall(Fn::kLt, {S(), Str("b")}).value();
  for (bool dictionary : {false, true}) {
    const std::vector<std::string> got = Texts(Evaluate(*call, Strings(dictionary)).value());
    for (size_t i = 0; i < kStrings.size(); ++i) {
      EXPECT_EQ(got[i], kStrings[i] < std::string("b") ? "true" : "false") << kStrings[i];
    }
  }
}

}  // namespace
}  // namespace floe::exec
