#include "floe/exec/functions.h"

#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace floe::exec {
namespace {

ExprPtr Text(std::string v) { return Constant(Value::Str(std::move(v)), columnar::String()); }
ExprPtr Int(int64_t v) { return Constant(Value::Int(v), columnar::Int64()); }

TEST(Functions, FoundByNameAliasAndUnitAlias) {
  FunctionLookup by_name = FindFunction("substring");
  ASSERT_NE(by_name.function, nullptr);
  EXPECT_EQ(by_name.function->name, "substring");
  EXPECT_TRUE(by_name.unit.empty());
  EXPECT_EQ(FindFunction("substr").function, by_name.function);
  EXPECT_EQ(FindFunction("char_length").function, FindFunction("length").function);
  EXPECT_EQ(FindFunction("extract").function, FindFunction("date_part").function);
  FunctionLookup year = FindFunction("year");
  ASSERT_NE(year.function, nullptr);
  EXPECT_EQ(year.function->name, "date_part");
  EXPECT_EQ(year.unit, "year");
  EXPECT_EQ(FindFunction("nosuch").function, nullptr);
  // An operator's entry is found by its symbol, never by name.
  EXPECT_EQ(FindFunction("||").function, nullptr);
  ASSERT_NE(FindOperator("||"), nullptr);
  EXPECT_EQ(FindOperator("lower"), nullptr);
}

TEST(Functions, EveryEntryIsCompleteAndNamesAreUnique) {
  std::set<std::string_view> names;
  for (const auto& f : Functions()) {
    EXPECT_NE(f.check, nullptr) << f.name;
    EXPECT_NE(f.kernel, nullptr) << f.name;
    EXPECT_TRUE(names.insert(f.name).second) << f.name;
    for (auto a : f.aliases) EXPECT_TRUE(names.insert(a).second) << a;
    for (auto a : f.unit_aliases) EXPECT_TRUE(names.insert(a).second) << a;
    if (!f.without_unit.empty()) {
      EXPECT_TRUE(f.unit_argument) << f.name;
      const ScalarFunction* other = FindFunction(f.without_unit).function;
      ASSERT_NE(other, nullptr) << f.name;
      EXPECT_EQ(other->max_args, f.max_args) << f.name;
    }
  }
}

// substring as DuckDB answers it (each expected string is DuckDB 1.5's, but for the last two:
// DuckDB refuses offsets and lengths past 2^32, floe takes them as they are), over columns -- the
// string and both integers varying by row, one row NULL -- and over constants (the row rule).
TEST(Functions, SubstringFollowsDuckDB) {
  struct Case {
    std::string s;
    int64_t from;
    std::optional<int64_t> length;
    std::string want;
  };
  const std::vector<Case> cases = {{"hello", 0, 2, "h"},
                                   {"hello", -3, 2, "ll"},
                                   {"hello", -3, {}, "llo"},
                                   {"hello", -7, 3, "h"},
                                   {"hello", -7, {}, "hello"},
                                   {"hello", 2, 0, ""},
                                   {"héllo", 2, 3, "éll"},
                                   {"hello", 6, 1, ""},
                                   {"hello", -1, 5, "o"},
                                   {"hello", 0, {}, "hello"},
                                   {"hello", -6, 2, "h"},
                                   {"hello", 4, -2, "el"},
                                   {"hello", -1, -2, "ll"},
                                   {"hello", 1, -3, ""},
                                   {"hello", 8, -4, "lo"},
                                   {"hello", 3, -9, "he"},
                                   {"", 1, 2, ""},
                                   {"日本語", -2, {}, "本語"},
                                   {"hello", INT64_MAX, 2, ""},
                                   {"hello", 2, INT64_MAX, "ello"}};
  const ScalarFunction& substring = *FindFunction("substring").function;
  for (bool with_length : {true, false}) {
    ValueColumnBuilder strs(columnar::String()), froms(columnar::Int64()),
        lengths(columnar::Int64());
    std::vector<std::string> want;
    for (const Case& c : cases) {
      if (c.length.has_value() != with_length) continue;
      ASSERT_TRUE(strs.Append(Value::Str(c.s)));
      ASSERT_TRUE(froms.Append(Value::Int(c.from)));
      ASSERT_TRUE(lengths.Append(Value::Int(c.length.value_or(0))));
      want.push_back(c.want);
      auto call = MakeCall(
          substring, with_length ? std::vector<ExprPtr>{Text(c.s), Int(c.from), Int(*c.length)}
                                 : std::vector<ExprPtr>{Text(c.s), Int(c.from)});
      ASSERT_TRUE(call) << c.s << " " << c.from;
      EXPECT_EQ(EvaluateConstant(**call).value().s(), c.want) << c.s << " " << c.from;
    }
    strs.AppendNull();
    ASSERT_TRUE(froms.Append(Value::Int(1)));
    ASSERT_TRUE(lengths.Append(Value::Int(1)));
    columnar::RecordBatch b;
    b.schema = std::make_shared<columnar::Schema>(columnar::Schema{
        {{"s", columnar::String()}, {"f", columnar::Int64()}, {"n", columnar::Int64()}}});
    b.columns = {strs.Finish(), froms.Finish(), lengths.Finish()};
    b.num_rows = static_cast<int64_t>(want.size()) + 1;
    std::vector<ExprPtr> args = {ColumnRef(0, columnar::String(), "s"),
                                 ColumnRef(1, columnar::Int64(), "f")};
    if (with_length) args.push_back(ColumnRef(2, columnar::Int64(), "n"));
    auto call = MakeCall(substring, args).value();
    const ColumnPtr got = Evaluate(*call, b).value();
    for (size_t r = 0; r < want.size(); ++r) {
      EXPECT_EQ(got->BytesAt(static_cast<int64_t>(r)), want[r]) << r;
    }
    EXPECT_TRUE(got->IsNull(static_cast<int64_t>(want.size())));
  }
}

// date_part over a date column and a timestamp column (before 1970, across leap days and year
// ends, one NULL row) gives each row what it gives that row's value as a constant, for every
// part; a few answers checked by hand.
TEST(Functions, DatePartOfAColumnIsThePartOfEachValue) {
  const std::vector<int64_t> days = {-719528, -1, 0, 59, 10956, 11016, 19358, 19722, 2932896};
  const columnar::DataType ts = columnar::Timestamp(columnar::TimeUnit::kMicro);
  ValueColumnBuilder dates(columnar::Date32()), stamps(ts);
  for (int64_t d : days) {
    ASSERT_TRUE(dates.Append(Value::Int(d)));
    ASSERT_TRUE(stamps.Append(Value::Int(d * 86'400'000'000 + 45'296'789'012)));  // 12:34:56.789012
  }
  dates.AppendNull();
  stamps.AppendNull();
  columnar::RecordBatch b;
  b.schema =
      std::make_shared<columnar::Schema>(columnar::Schema{{{"d", columnar::Date32()}, {"t", ts}}});
  b.columns = {dates.Finish(), stamps.Finish()};
  b.num_rows = static_cast<int64_t>(days.size()) + 1;
  const ScalarFunction& date_part = *FindFunction("date_part").function;
  for (std::string part : {"year", "quarter", "month", "day", "hour", "minute", "second",
                           "millisecond", "microsecond", "dow", "isodow", "doy", "decade",
                           "century", "millennium", "week", "yearweek", "isoyear", "epoch"}) {
    for (int c = 0; c < 2; ++c) {
      const columnar::DataType t = c == 0 ? columnar::Date32() : ts;
      auto call = MakeCall(date_part, {ColumnRef(c, t, c == 0 ? "d" : "t")}, part).value();
      const ColumnPtr got = Evaluate(*call, b).value();
      for (size_t r = 0; r < days.size(); ++r) {
        const int64_t v = c == 0 ? days[r] : days[r] * 86'400'000'000 + 45'296'789'012;
        auto one = MakeCall(date_part, {Constant(Value::Int(v), t)}, part).value();
        const Value want = EvaluateConstant(*one).value();
        EXPECT_EQ(ValueToText(ValueAt(*got, static_cast<int64_t>(r)).value(), got->type),
                  ValueToText(want, one->type))
            << part << " of row " << r << (c == 0 ? " (date)" : " (timestamp)");
      }
      EXPECT_TRUE(got->IsNull(static_cast<int64_t>(days.size()))) << part;
    }
  }
  // 2024-01-01 (19723 - 1 = 19722 days: 2023-12-31, a Sunday in ISO week 52 of 2023).
  auto year = MakeCall(date_part, {ColumnRef(0, columnar::Date32(), "d")}, "year").value();
  auto isoyear = MakeCall(date_part, {ColumnRef(0, columnar::Date32(), "d")}, "isoyear").value();
  EXPECT_EQ(ValueAt(*Evaluate(*year, b).value(), 7).value().i(), 2023);
  EXPECT_EQ(ValueAt(*Evaluate(*isoyear, b).value(), 7).value().i(), 2023);
  EXPECT_EQ(ValueAt(*Evaluate(*year, b).value(), 0).value().i(), 0);  // 0000-01-01
}

TEST(Functions, ArityAndTypeErrorsNameTheFunction) {
  const ScalarFunction& substring = *FindFunction("substr").function;
  auto few = MakeCall(substring, {Text("abc")});
  ASSERT_FALSE(few);
  EXPECT_EQ(few.error().message, "substring takes 2 to 3 arguments, got 1");
  auto many = MakeCall(*FindFunction("lower").function, {Text("a"), Text("b")});
  ASSERT_FALSE(many);
  EXPECT_EQ(many.error().message, "lower takes 1 arguments, got 2");
  auto type = MakeCall(*FindFunction("lower").function, {Int(1)});
  ASSERT_FALSE(type);
  EXPECT_EQ(type.error().message, "type mismatch: lower expects a string, got integer");
  auto none = MakeCall(*FindFunction("coalesce").function, {});
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().message, "coalesce needs arguments");
  auto unit = MakeCall(*FindFunction("date_trunc").function, {Text("2024-01-01")}, "fortnight");
  ASSERT_FALSE(unit);
  EXPECT_EQ(unit.error().message, "date_trunc: unknown unit 'fortnight'");
}

TEST(Functions, ACallEvaluatesThroughItsKernelAndPrintsItsName) {
  ValueColumnBuilder names(columnar::String());
  ASSERT_TRUE(names.Append(Value::Str("Ab")));
  names.AppendNull();
  ASSERT_TRUE(names.Append(Value::Str("héllo")));
  columnar::RecordBatch b;
  b.schema = std::make_shared<columnar::Schema>(columnar::Schema{{{"s", columnar::String()}}});
  b.columns = {names.Finish()};
  b.num_rows = 3;
  ExprPtr s = ColumnRef(0, columnar::String(), "s");
  auto length = MakeCall(*FindFunction("character_length").function, {s}).value();
  EXPECT_EQ(length->type, columnar::Int64());
  EXPECT_EQ(length->ToString(), "length[|int64](#0)");
  EXPECT_TRUE(IsFunctionCall(*length, "length"));
  EXPECT_FALSE(IsFunctionCall(*length, "lower"));
  ColumnPtr out = Evaluate(*length, b).value();
  ASSERT_EQ(out->length, 3);
  EXPECT_EQ(ValueAt(*out, 0).value().i(), 2);
  EXPECT_TRUE(out->IsNull(1));
  EXPECT_EQ(ValueAt(*out, 2).value().i(), 5);  // characters, not bytes
  auto concat = MakeCall(*FindOperator("||"), {s, Int(7)}).value();
  ColumnPtr joined = Evaluate(*concat, b).value();
  EXPECT_EQ(ValueAt(*joined, 0).value().s(), "Ab7");
  EXPECT_TRUE(joined->IsNull(1));
}

}  // namespace
}  // namespace floe::exec
