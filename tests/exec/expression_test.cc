#include "floe/exec/expression.h"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <vector>

#include "floe/columnar/column_builder.h"
#include "floe/exec/filter.h"
#include "floe/exec/functions.h"

namespace floe::exec {
namespace {

columnar::RecordBatch Batch() {
  ValueColumnBuilder ints(columnar::Int64());
  ValueColumnBuilder names(columnar::String());
  ValueColumnBuilder days(columnar::Date32());
  for (int i = 0; i < 5; ++i) {
    if (i == 3) {
      ints.AppendNull();
    } else {
      EXPECT_TRUE(ints.Append(Value::Int(i * 10)));
    }
    EXPECT_TRUE(names.Append(Value::Str(i % 2 ? "apple" : "Banana")));
    EXPECT_TRUE(days.Append(Value::Int(19725 + i * 40)));  // 2024-01-03 + 40-day steps
  }
  columnar::RecordBatch b;
  b.schema = std::make_shared<columnar::Schema>(columnar::Schema{
      {{"x", columnar::Int64()}, {"name", columnar::String()}, {"day", columnar::Date32()}}});
  b.columns = {ints.Finish(), names.Finish(), days.Finish()};
  b.num_rows = 5;
  return b;
}

ExprPtr X() { return ColumnRef(0, columnar::Int64(), "x"); }
ExprPtr Name() { return ColumnRef(1, columnar::String(), "name"); }
ExprPtr Day() { return ColumnRef(2, columnar::Date32(), "day"); }
ExprPtr Int(int64_t v) { return Constant(Value::Int(v), columnar::Int64()); }
ExprPtr Str(std::string v) { return Constant(Value::Str(std::move(v)), columnar::String()); }

std::vector<std::string> Texts(const ColumnPtr& c) {
  std::vector<std::string> out;
  for (int64_t r = 0; r < c->length; ++r)
    out.push_back(ValueToText(ValueAt(*c, r).value(), c->type));
  return out;
}

TEST(Expression, ArithmeticKeepsIntegersAndPropagatesNull) {
  auto e = MakeCall(Fn::kAdd, {X(), Int(1)}).value();
  EXPECT_EQ(e->type.id, TypeId::kInt64);
  EXPECT_EQ(Texts(Evaluate(*e, Batch()).value()),
            (std::vector<std::string>{"1", "11", "21", "NULL", "41"}));
  auto div = MakeCall(Fn::kDiv, {X(), Int(4)}).value();
  EXPECT_EQ(div->type.id, TypeId::kFloat64);
  EXPECT_EQ(Texts(Evaluate(*div, Batch()).value())[1], "2.5");
}

TEST(Expression, DivisionByZeroIsAnError) {
  auto e = MakeCall(Fn::kDiv, {X(), Int(0)}).value();
  auto r = Evaluate(*e, Batch());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "division by zero");
}

TEST(Expression, ComparisonWithStringConstantConvertsTheConstant) {
  auto e = MakeCall(Fn::kGtEq, {Day(), Str("2024-03-01")}).value();
  EXPECT_EQ(Texts(Evaluate(*e, Batch()).value()),
            (std::vector<std::string>{"false", "false", "true", "true", "true"}));
  auto bad = MakeCall(Fn::kEq, {Day(), Str("2024-13-01")});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "malformed date literal '2024-13-01'");
}

TEST(Expression, TypeMismatchNamesBothTypes) {
  auto e = MakeCall(Fn::kEq, {X(), Name()});
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().message, "type mismatch: cannot compare integer with string");
  auto sum = MakeCall(Fn::kAdd, {Name(), Int(1)});
  ASSERT_FALSE(sum);
  EXPECT_NE(sum.error().message.find("type mismatch"), std::string::npos);
}

// Exact numbers compare exactly, as in DuckDB: a constant the column's decimal type holds becomes
// that type (the column itself is compared, uncast), any other constant or column meets it in
// the decimal type holding both -- never in doubles, which cannot tell 2^53 from 2^53 + 1.
TEST(Expression, ExactNumbersCompareAsDecimals) {
  const columnar::DataType price = columnar::Decimal128(15, 2), big = columnar::Decimal128(38, 0);
  ValueColumnBuilder prices(price), bigs(big), ints(columnar::Int64());
  const __int128 two53 = static_cast<__int128>(1) << 53;
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(prices.Append(Value{static_cast<__int128>(i * 125)}));  // 0.00, 1.25, 2.50, 3.75
    ASSERT_TRUE(bigs.Append(Value{two53 + i}));
    ASSERT_TRUE(ints.Append(Value::Int(i)));
  }
  columnar::RecordBatch b;
  b.schema = std::make_shared<columnar::Schema>(
      columnar::Schema{{{"price", price}, {"big", big}, {"n", columnar::Int64()}}});
  b.columns = {prices.Finish(), bigs.Finish(), ints.Finish()};
  b.num_rows = 4;
  const ExprPtr col = ColumnRef(0, price, "price");
  auto dec = [](__int128 unscaled, int32_t p, int32_t s) {
    return Constant(Value{unscaled}, columnar::Decimal128(p, s));
  };
  auto answers = [&](const ExprPtr& e) { return Texts(Evaluate(*e, b).value()); };
  using Strings = std::vector<std::string>;

  // price < 2 and price >= 1.250: the constants become decimal(15, 2) 200 and 125.
  for (auto [lit, fn, want] :
       {std::tuple{Int(2), Fn::kLt, Strings{"true", "true", "false", "false"}},
        std::tuple{dec(1250, 4, 3), Fn::kGtEq, Strings{"false", "true", "true", "true"}}}) {
    auto e = MakeCall(fn, {col, lit}).value();
    EXPECT_EQ(e->args[0], col);
    ASSERT_EQ(e->args[1]->kind, Expr::Kind::kLiteral);
    EXPECT_EQ(e->args[1]->type, price);
    EXPECT_EQ(answers(e), want);
  }
  EXPECT_EQ(MakeCall(Fn::kLt, {Int(2), col}).value()->args[0]->value.dec(), 200);
  // price = 1.255 and price > 1.245: no decimal(15, 2) holds them; compared at scale 3.
  auto eq = MakeCall(Fn::kEq, {col, dec(1255, 4, 3)}).value();
  EXPECT_EQ(eq->args[0]->type, columnar::Decimal128(16, 3));
  EXPECT_EQ(answers(eq), (Strings{"false", "false", "false", "false"}));
  EXPECT_EQ(answers(MakeCall(Fn::kGt, {col, dec(1245, 4, 3)}).value()),
            (Strings{"false", "true", "true", "true"}));
  // Beyond a double's 53 bits.
  const ExprPtr bigcol = ColumnRef(1, big, "big");
  EXPECT_EQ(answers(MakeCall(Fn::kGt, {bigcol, Int(9007199254740992)}).value()),
            (Strings{"false", "true", "true", "true"}));
  EXPECT_EQ(answers(MakeCall(Fn::kEq, {bigcol, Int(9007199254740993)}).value()),
            (Strings{"false", "true", "false", "false"}));
  // An integer column against a decimal column or a whole decimal constant.
  const ExprPtr n = ColumnRef(2, columnar::Int64(), "n");
  EXPECT_EQ(answers(MakeCall(Fn::kLtEq, {n, col}).value()),
            (Strings{"true", "true", "true", "true"}));
  auto whole = MakeCall(Fn::kEq, {n, dec(20, 2, 1)}).value();  // n = 2.0
  EXPECT_EQ(whole->args[1]->type, columnar::Int64());
  EXPECT_EQ(answers(whole), (Strings{"false", "false", "true", "false"}));
  // A double still meets decimals as a double.
  auto d = MakeCall(Fn::kLt, {col, Constant(Value::Double(2), columnar::Float64())}).value();
  EXPECT_EQ(d->args[0]->type, columnar::Float64());
}

// A function of a string column read from dictionary pages (its entries and a code per row) and
// literals is computed once per entry and gathered by the codes; a NULL row gets the function of
// NULL (concat skips it, upper gives NULL); a string result keeps the codes. An entry no row holds
// that the function rejects does not fail the batch: its rows are computed one by one instead.
TEST(Expression, AFunctionOfADictionaryColumnWorksOncePerEntry) {
  ValueColumnBuilder entries(columnar::String());
  for (const char* s : {"air", "MAIL", "2024-01-05", "not a date"}) {
    ASSERT_TRUE(entries.Append(Value::Str(s)));
  }
  const ColumnPtr dict = entries.Finish();
  // Rows: air, NULL, MAIL, air, MAIL, air, air, MAIL, NULL, air (entry 2 and 3 unused).
  const std::vector<int32_t> codes = {0, 3, 1, 0, 1, 0, 0, 1, 2, 0};
  const std::vector<bool> null = {false, true,  false, false, false,
                                  false, false, false, true,  false};
  ValueColumnBuilder rows(columnar::String());
  for (size_t i = 0; i < codes.size(); ++i) {
    if (null[i]) {
      rows.AppendNull();
    } else {
      ASSERT_TRUE(rows.Append(Value::Str(std::string(dict->BytesAt(codes[i])))));
    }
  }
  auto coded = std::make_shared<columnar::Column>(*rows.Finish());
  coded->dictionary = dict;
  coded->codes = Buffer::Adopt(std::vector<int32_t>(codes));
  columnar::RecordBatch b;
  b.schema = std::make_shared<columnar::Schema>(columnar::Schema{{{"mode", columnar::String()}}});
  b.columns = {coded};
  b.num_rows = static_cast<int64_t>(codes.size());
  const ExprPtr mode = ColumnRef(0, columnar::String(), "mode");
  auto call = [&](std::string_view name, std::vector<ExprPtr> args) {
    return MakeCall(*FindFunction(name).function, std::move(args)).value();
  };
  using Strings = std::vector<std::string>;
  auto upper = Evaluate(*call("upper", {mode}), b);
  ASSERT_TRUE(upper) << upper.error().ToString();
  EXPECT_EQ(Texts(*upper),
            (Strings{"AIR", "NULL", "MAIL", "AIR", "MAIL", "AIR", "AIR", "MAIL", "NULL", "AIR"}));
  ASSERT_NE((*upper)->dictionary, nullptr);  // the codes kept, the entries upper-cased
  EXPECT_EQ(Texts((*upper)->dictionary), (Strings{"AIR", "MAIL", "2024-01-05", "NOT A DATE"}));
  auto concat = Evaluate(*call("concat", {mode, Str("!")}), b);
  ASSERT_TRUE(concat) << concat.error().ToString();
  EXPECT_EQ(Texts(*concat),
            (Strings{"air!", "!", "MAIL!", "air!", "MAIL!", "air!", "air!", "MAIL!", "!", "air!"}));
  // A NULL row's value ("!") is no entry's: the result carries no codes (row 1's code, 3, would
  // say "not a date!").
  EXPECT_EQ((*concat)->dictionary, nullptr);
  EXPECT_EQ(
      Texts(Evaluate(*call("starts_with", {mode, Str("a")}), b).value()),
      (Strings{"true", "NULL", "false", "true", "false", "true", "true", "false", "NULL", "true"}));
  // strptime rejects every entry but the date: over rows that all hold the date (or NULL) the
  // answer is theirs; over rows holding 'air' too, the error is.
  auto dates = std::make_shared<columnar::Column>(*coded);
  dates->codes = Buffer::Adopt(std::vector<int32_t>(codes.size(), 2));
  ValueColumnBuilder date_rows(columnar::String());
  for (size_t i = 0; i < codes.size(); ++i) {
    if (null[i]) {
      date_rows.AppendNull();
    } else {
      ASSERT_TRUE(date_rows.Append(Value::Str("2024-01-05")));
    }
  }
  const ColumnPtr plain = date_rows.Finish();
  dates->values = plain->values;
  dates->offsets = plain->offsets;
  columnar::RecordBatch only_dates = b;
  only_dates.columns = {dates};
  const ExprPtr parse = call("strptime", {mode, Str("%Y-%m-%d")});
  auto parsed = Evaluate(*parse, only_dates);
  ASSERT_TRUE(parsed) << parsed.error().ToString();
  EXPECT_EQ(Texts(*parsed)[0], "2024-01-05 00:00:00");
  EXPECT_EQ(Texts(*parsed)[1], "NULL");
  auto failed = Evaluate(*parse, b);
  ASSERT_FALSE(failed);
  EXPECT_NE(failed.error().message.find("air"), std::string::npos) << failed.error().message;
}

// Decimal +, - and * with a literal on either side (`1 - l_discount`) take the literal as one
// value for every row; a literal or a result past 64 bits, or a NULL in the column, still answers
// exactly (the literal is then repeated down a column).
TEST(Expression, DecimalArithmeticWithALiteralOnEitherSide) {
  const columnar::DataType price = columnar::Decimal128(15, 2);
  ValueColumnBuilder prices(price), with_null(price);
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(prices.Append(Value{static_cast<__int128>(i * 125)}));  // 0.00, 1.25, 2.50, 3.75
    if (i == 2) {
      with_null.AppendNull();
    } else {
      ASSERT_TRUE(with_null.Append(Value{static_cast<__int128>(i * 125)}));
    }
  }
  columnar::RecordBatch b;
  b.schema =
      std::make_shared<columnar::Schema>(columnar::Schema{{{"price", price}, {"maybe", price}}});
  b.columns = {prices.Finish(), with_null.Finish()};
  b.num_rows = 4;
  const ExprPtr col = ColumnRef(0, price, "price");
  const ExprPtr maybe = ColumnRef(1, price, "maybe");
  auto dec = [](__int128 unscaled, int32_t p, int32_t s) {
    return Constant(Value{unscaled}, columnar::Decimal128(p, s));
  };
  auto answers = [&](Fn fn, const ExprPtr& l, const ExprPtr& r) {
    return Texts(Evaluate(*MakeCall(fn, {l, r}).value(), b).value());
  };
  using Strings = std::vector<std::string>;
  EXPECT_EQ(answers(Fn::kSub, Int(1), col), (Strings{"1.00", "-0.25", "-1.50", "-2.75"}));
  EXPECT_EQ(answers(Fn::kSub, col, Int(1)), (Strings{"-1.00", "0.25", "1.50", "2.75"}));
  EXPECT_EQ(answers(Fn::kMul, col, Int(2)), (Strings{"0.00", "2.50", "5.00", "7.50"}));
  EXPECT_EQ(answers(Fn::kAdd, dec(5, 2, 1), col), (Strings{"0.50", "1.75", "3.00", "4.25"}));
  EXPECT_EQ(answers(Fn::kMul, dec(15, 3, 1), col), (Strings{"0.000", "1.875", "3.750", "5.625"}));
  // 10^20 does not fit 64 bits; 375 * 10^17 does not either.
  const __int128 e20 = static_cast<__int128>(100000000000) * 1000000000;
  EXPECT_EQ(answers(Fn::kMul, dec(e20, 21, 0), col),
            (Strings{"0.00", "125000000000000000000.00", "250000000000000000000.00",
                     "375000000000000000000.00"}));
  EXPECT_EQ(
      answers(Fn::kMul, col, Int(100000000000000000)),
      (Strings{"0.00", "125000000000000000.00", "250000000000000000.00", "375000000000000000.00"}));
  EXPECT_EQ(answers(Fn::kSub, Int(1), maybe), (Strings{"1.00", "-0.25", "NULL", "-2.75"}));
}

TEST(Expression, LikeMatchesPrefixesAndAnyPattern) {
  EXPECT_TRUE(LikeMatch("apple", "app%"));
  EXPECT_TRUE(LikeMatch("apple", "%pl%"));
  EXPECT_TRUE(LikeMatch("apple", "a___e"));
  EXPECT_FALSE(LikeMatch("apple", "a__e"));
  EXPECT_TRUE(LikeMatch("a%b", "a\\%b"));
  EXPECT_FALSE(LikeMatch("axb", "a\\%b"));
  EXPECT_TRUE(LikeMatch("", "%"));
  EXPECT_TRUE(LikeMatch("mississippi", "%iss%ppi"));
}

// LIKE over a column with a pattern of '%'-separated pieces (searched for in order) answers as
// the general matcher does, pieces overlapping, repeated, anchored at either end or both.
TEST(Expression, LikeOfPiecesAgreesWithTheGeneralMatcher) {
  const std::vector<std::string> texts = {"",
                                          "a",
                                          "ab",
                                          "aab",
                                          "abab",
                                          "special requests",
                                          "specialrequests",
                                          "requests special",
                                          "spe cial requests",
                                          "xx special yy requests zz",
                                          "sspecial requestss",
                                          "aaa",
                                          "abcabc"};
  const std::vector<std::string> patterns = {"%special%requests%",
                                             "special%requests",
                                             "%special%requests",
                                             "special%requests%",
                                             "%a%a%",
                                             "a%a",
                                             "%ab%ab%",
                                             "a%b%c",
                                             "%%",
                                             "%",
                                             "ab",
                                             "%aa%a%a%"};
  ValueColumnBuilder b(columnar::String());
  for (const std::string& t : texts) ASSERT_TRUE(b.Append(Value::Str(t)));
  columnar::RecordBatch batch;
  batch.schema = std::make_shared<columnar::Schema>(columnar::Schema{{{"t", columnar::String()}}});
  batch.columns = {b.Finish()};
  batch.num_rows = static_cast<int64_t>(texts.size());
  for (const std::string& p : patterns) {
    auto e = MakeCall(Fn::kLike, {ColumnRef(0, columnar::String(), "t"), Str(p)}).value();
    const std::vector<std::string> got = Texts(Evaluate(*e, batch).value());
    for (size_t i = 0; i < texts.size(); ++i) {
      EXPECT_EQ(got[i], LikeMatch(texts[i], p) ? "true" : "false") << texts[i] << " LIKE " << p;
    }
  }
}

TEST(Expression, StringAndDateFunctions) {
  auto upper = MakeCall(*FindFunction("upper").function, {Name()}).value();
  EXPECT_EQ(Texts(Evaluate(*upper, Batch()).value())[0], "BANANA");
  auto sub = MakeCall(*FindFunction("substring").function, {Name(), Int(2), Int(3)}).value();
  EXPECT_EQ(Texts(Evaluate(*sub, Batch()).value())[1], "ppl");
  auto month = MakeCall(*FindFunction("date_trunc").function, {Day()}, "month").value();
  EXPECT_EQ(Texts(Evaluate(*month, Batch()).value())[1], "2024-02-01 00:00:00");
  auto year = MakeCall(*FindFunction("date_part").function, {Day()}, "month").value();
  EXPECT_EQ(Texts(Evaluate(*year, Batch()).value()),
            (std::vector<std::string>{"1", "2", "3", "5", "6"}));
}

TEST(Expression, ThreeValuedLogicAndFilter) {
  // x > 5 OR x IS NULL keeps rows 1, 2, 3, 4.
  auto gt = MakeCall(Fn::kGt, {X(), Int(5)}).value();
  auto isnull = MakeCall(Fn::kIsNull, {X()}).value();
  auto either = MakeCall(Fn::kOr, {gt, isnull}).value();
  auto kept = Filter(Batch(), *either).value();
  EXPECT_EQ(kept.num_rows, 4);
  // NOT (x > 5) drops the NULL row too.
  auto notgt = MakeCall(Fn::kNot, {gt}).value();
  EXPECT_EQ(Filter(Batch(), *notgt).value().num_rows, 1);
}

// Column against column: Kleene's AND and OR over every pair of true, false and NULL; doubles
// with NaN equal to NaN and above every number, -0.0 equal to 0.0; strings by their bytes.
TEST(Expression, ColumnComparisonsAndLogicFollowTheRowRules) {
  ValueColumnBuilder a(columnar::Bool()), b(columnar::Bool());
  const std::vector<std::optional<bool>> vals = {true, false, std::nullopt};
  for (auto x : vals) {
    for (auto y : vals) {
      if (x)
        EXPECT_TRUE(a.Append(Value::Bool(*x)));
      else
        a.AppendNull();
      if (y)
        EXPECT_TRUE(b.Append(Value::Bool(*y)));
      else
        b.AppendNull();
    }
  }
  columnar::RecordBatch logic;
  logic.schema = std::make_shared<columnar::Schema>(
      columnar::Schema{{{"a", columnar::Bool()}, {"b", columnar::Bool()}}});
  logic.columns = {a.Finish(), b.Finish()};
  logic.num_rows = 9;
  auto ca = ColumnRef(0, columnar::Bool(), "a");
  auto cb = ColumnRef(1, columnar::Bool(), "b");
  auto both = Evaluate(*MakeCall(Fn::kAnd, {ca, cb}).value(), logic).value();
  EXPECT_EQ(Texts(both), (std::vector<std::string>{"true", "false", "NULL", "false", "false",
                                                   "false", "NULL", "false", "NULL"}));
  auto either = Evaluate(*MakeCall(Fn::kOr, {ca, cb}).value(), logic).value();
  EXPECT_EQ(Texts(either), (std::vector<std::string>{"true", "true", "true", "true", "false",
                                                     "NULL", "true", "NULL", "NULL"}));

  ValueColumnBuilder x(columnar::Float64()), y(columnar::Float64());
  ValueColumnBuilder s(columnar::String()), t(columnar::String());
  const double nan = std::nan("");
  const std::vector<double> xs = {1.0, nan, -0.0, nan, 0};
  const std::vector<double> ys = {2.0, nan, 0.0, 1.0, 1.0};
  const std::vector<std::string> ss = {"a", "b", "", "\xc3\xa9", ""};
  const std::vector<std::string> ts = {"b", "b", "a", "e", "x"};
  for (size_t i = 0; i < xs.size(); ++i) {
    if (i == 4) {
      x.AppendNull();
      s.AppendNull();
    } else {
      EXPECT_TRUE(x.Append(Value::Double(xs[i])));
      EXPECT_TRUE(s.Append(Value::Str(ss[i])));
    }
    EXPECT_TRUE(y.Append(Value::Double(ys[i])));
    EXPECT_TRUE(t.Append(Value::Str(ts[i])));
  }
  columnar::RecordBatch cmp;
  cmp.schema = std::make_shared<columnar::Schema>(columnar::Schema{{{"x", columnar::Float64()},
                                                                    {"y", columnar::Float64()},
                                                                    {"s", columnar::String()},
                                                                    {"t", columnar::String()}}});
  cmp.columns = {x.Finish(), y.Finish(), s.Finish(), t.Finish()};
  cmp.num_rows = 5;
  auto cx = ColumnRef(0, columnar::Float64(), "x");
  auto cy = ColumnRef(1, columnar::Float64(), "y");
  auto cs = ColumnRef(2, columnar::String(), "s");
  auto ct = ColumnRef(3, columnar::String(), "t");
  auto eval = [&](Fn fn, ExprPtr l, ExprPtr r) {
    return Texts(Evaluate(*MakeCall(fn, {std::move(l), std::move(r)}).value(), cmp).value());
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(eval(Fn::kEq, cx, cy), (V{"false", "true", "true", "false", "NULL"}));
  EXPECT_EQ(eval(Fn::kLt, cx, cy), (V{"true", "false", "false", "false", "NULL"}));
  EXPECT_EQ(eval(Fn::kGtEq, cx, cy), (V{"false", "true", "true", "true", "NULL"}));
  EXPECT_EQ(eval(Fn::kNotEq, cx, cy), (V{"true", "false", "false", "true", "NULL"}));
  EXPECT_EQ(eval(Fn::kLt, cs, ct), (V{"true", "false", "true", "false", "NULL"}));
  EXPECT_EQ(eval(Fn::kEq, cs, ct), (V{"false", "true", "false", "false", "NULL"}));
  EXPECT_EQ(eval(Fn::kGt, cs, ct), (V{"false", "false", "false", "true", "NULL"}));
}

TEST(Expression, InWithNullsAndCase) {
  auto in = MakeCall(Fn::kIn, {X(), Int(10), Int(40)}).value();
  EXPECT_EQ(Texts(Evaluate(*in, Batch()).value()),
            (std::vector<std::string>{"false", "true", "false", "NULL", "true"}));
  auto c =
      MakeCall(Fn::kCase, {MakeCall(Fn::kGt, {X(), Int(15)}).value(), Str("big"), Str("small")})
          .value();
  EXPECT_EQ(Texts(Evaluate(*c, Batch()).value()),
            (std::vector<std::string>{"small", "small", "big", "small", "big"}));
}

TEST(Expression, CastsAndMalformedLiterals) {
  auto c = MakeCast(Str("42"), columnar::Int64()).value();
  EXPECT_EQ(c->kind, Expr::Kind::kLiteral);
  EXPECT_EQ(c->value.i(), 42);
  auto bad = MakeCast(Str("4x2"), columnar::Int64());
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "malformed integer literal '4x2'");
  EXPECT_EQ(ParseTimestampMicros("2024-01-03 10:00:00.5"), 1704276000500000);
  EXPECT_FALSE(ParseDate("2023-02-29"));
}

// s.a: the struct's child widened like any column, NULL where the struct is NULL.
// A batch of one column s: struct<a: int32>, row i valid per `valid[i]`, its a = `a[i]`.
columnar::RecordBatch StructBatch(const std::vector<bool>& valid,
                                  const std::vector<std::optional<int32_t>>& a) {
  columnar::FixedWidthBuilder<int32_t> field(columnar::Int32());
  for (const auto& v : a) {
    if (v) {
      field.Append(*v);
    } else {
      field.AppendNull();
    }
  }
  columnar::ValidityBuilder validity;
  int64_t nulls = 0;
  for (bool v : valid) {
    if (v) {
      validity.AppendValid();
    } else {
      validity.AppendNull();
      ++nulls;
    }
  }
  auto s = std::make_shared<columnar::Column>();
  s->type = columnar::Struct({{"a", columnar::Int32(), true, 2}});
  s->length = static_cast<int64_t>(valid.size());
  s->null_count = nulls;
  s->validity = validity.Finish();
  s->children = {field.Finish()};
  columnar::RecordBatch b;
  b.schema = std::make_shared<columnar::Schema>(columnar::Schema{{{"s", s->type}}});
  b.columns = {s};
  b.num_rows = s->length;
  return b;
}

TEST(Expression, StructFieldIsNullWhereTheStructIs) {
  // Row 1's a (2) lies under the NULL struct: hidden.
  const columnar::RecordBatch b = StructBatch({true, false, true}, {1, 2, std::nullopt});
  auto ref = ColumnRef(0, b.columns[0]->type, "s");
  auto e = MakeCall(Fn::kStructField, {ref}, "A");
  ASSERT_TRUE(e.has_value()) << e.error().ToString();
  EXPECT_EQ((*e)->type, columnar::Int64());
  EXPECT_EQ(Texts(Evaluate(**e, b).value()), (std::vector<std::string>{"1", "NULL", "NULL"}));
  auto missing = MakeCall(Fn::kStructField, {ref}, "zz");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().ToString(),
            "not found: struct struct<a: int32> has no field 'zz' (fields: a)");
  auto not_struct = MakeCall(Fn::kStructField, {X()}, "a");
  ASSERT_FALSE(not_struct.has_value());
  EXPECT_EQ(not_struct.error().ToString(),
            "invalid input: cannot take field 'a' of int64 (not a struct)");
}

TEST(Expression, IsNullOfAStructReadsOnlyItsValidity) {
  // Row 1: a valid struct whose field is NULL is not NULL.
  const columnar::RecordBatch b = StructBatch({false, true}, {1, std::nullopt});
  auto ref = ColumnRef(0, b.columns[0]->type, "s");
  auto is_null = MakeCall(Fn::kIsNull, {ref});
  auto not_null = MakeCall(Fn::kIsNotNull, {ref});
  ASSERT_TRUE(is_null.has_value() && not_null.has_value());
  EXPECT_EQ(Texts(Evaluate(**is_null, b).value()), (std::vector<std::string>{"true", "false"}));
  EXPECT_EQ(Texts(Evaluate(**not_null, b).value()), (std::vector<std::string>{"false", "true"}));
}

}  // namespace
}  // namespace floe::exec
