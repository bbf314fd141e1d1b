#include "floe/exec/functions.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "floe/base/calendar.h"
#include "floe/exec/expression_internal.h"
#include "floe/exec/value.h"

namespace floe::exec {
namespace {

using internal::CastTo;
using internal::ExpectType;
using internal::IsNull;
using internal::IsStringLiteral;

// A kernel from a per-row rule: the rule (a function, a template argument, so it is inlined into
// the loop -- no call through a pointer per row) maps the row's argument values to its value.
template <Result<Value> (*Row)(const Expr&, const std::vector<Value>&)>
Result<ColumnPtr> RowKernel(const Expr& e, const std::vector<ColumnPtr>& cols, int64_t rows) {
  ValueColumnBuilder out(e.type);
  std::vector<Value> vals(cols.size());
  for (int64_t r = 0; r < rows; ++r) {
    for (size_t i = 0; i < cols.size(); ++i) {
      FLOE_ASSIGN_OR_RETURN(vals[i], ValueAt(*cols[i], r));
    }
    FLOE_ASSIGN_OR_RETURN(Value v, Row(e, vals));
    FLOE_RETURN_IF_ERROR(out.Append(v));
  }
  return out.Finish();
}

// --- string functions

Result<DataType> CheckOneString(const ScalarFunction& f, std::vector<ExprPtr>& args,
                                const std::string&) {
  FLOE_RETURN_IF_ERROR(ExpectType(args[0], IsStringType(args[0]->type), f.name, "a string"));
  return f.name == "length" ? columnar::Int64() : columnar::String();
}

template <int (*Map)(int)>
Result<Value> CaseRow(const Expr&, const std::vector<Value>& a) {
  if (a[0].is_null()) return Value{};
  std::string s = a[0].s();
  for (char& c : s) c = static_cast<char>(Map(static_cast<unsigned char>(c)));
  return Value::Str(std::move(s));
}

Result<Value> LengthRow(const Expr&, const std::vector<Value>& a) {
  if (a[0].is_null()) return Value{};
  int64_t n = 0;  // characters: UTF-8 lead bytes
  for (unsigned char c : a[0].s()) n += (c & 0xC0) != 0x80;
  return Value::Int(n);
}

Result<DataType> CheckSubstring(const ScalarFunction& f, std::vector<ExprPtr>& args,
                                const std::string&) {
  FLOE_RETURN_IF_ERROR(ExpectType(args[0], IsStringType(args[0]->type), f.name, "a string"));
  for (size_t i = 1; i < args.size(); ++i) {
    FLOE_RETURN_IF_ERROR(ExpectType(args[i], IsIntegerType(args[i]->type), f.name, "integers"));
  }
  return columnar::String();
}

Result<Value> SubstringRow(const Expr&, const std::vector<Value>& a) {
  for (const auto& v : a) {
    if (v.is_null()) return Value{};
  }
  const std::string& s = a[0].s();
  // Character positions (UTF-8), 1-based; Postgres semantics for start < 1.
  std::vector<size_t> starts;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) starts.push_back(i);
  }
  int64_t n = static_cast<int64_t>(starts.size());
  int64_t from = a[1].i();
  int64_t to = n + 1;
  if (a.size() > 2) {
    if (a[2].i() < 0) return InvalidInput("substring: negative length {}", a[2].i());
    to = from + a[2].i();
  }
  from = std::max<int64_t>(from, 1);
  to = std::min<int64_t>(to, n + 1);
  if (from >= to) return Value::Str("");
  size_t b = starts[from - 1];
  size_t end = to - 1 < n ? starts[to - 1] : s.size();
  return Value::Str(s.substr(b, end - b));
}

Result<DataType> CheckStartsWith(const ScalarFunction& f, std::vector<ExprPtr>& args,
                                 const std::string&) {
  for (const auto& a : args) {
    FLOE_RETURN_IF_ERROR(ExpectType(a, IsStringType(a->type), f.name, "strings"));
  }
  return columnar::Bool();
}

Result<Value> StartsWithRow(const Expr&, const std::vector<Value>& a) {
  if (a[0].is_null() || a[1].is_null()) return Value{};
  return Value::Bool(a[0].s().starts_with(a[1].s()));
}

Result<DataType> CheckConcat(const ScalarFunction&, std::vector<ExprPtr>& args,
                             const std::string&) {
  for (auto& a : args) {
    FLOE_ASSIGN_OR_RETURN(a, CastTo(a, columnar::String()));
  }
  return columnar::String();
}

Result<Value> ConcatRow(const Expr&, const std::vector<Value>& a) {
  std::string out;
  for (const auto& v : a) {
    if (v.is_null()) return Value{};
    out += v.s();
  }
  return Value::Str(std::move(out));
}

// --- numbers

Result<DataType> CheckAbs(const ScalarFunction& f, std::vector<ExprPtr>& args, const std::string&) {
  if (args[0]->type.id == TypeId::kDecimal128) {
    FLOE_ASSIGN_OR_RETURN(args[0], CastTo(args[0], columnar::Float64()));
  }
  FLOE_RETURN_IF_ERROR(ExpectType(args[0], IsNumericType(args[0]->type), f.name, "a number"));
  return IsNull(args[0]->type) ? columnar::Int64() : args[0]->type;
}

Result<Value> AbsRow(const Expr& e, const std::vector<Value>& a) {
  if (a[0].is_null()) return Value{};
  if (a[0].v.index() == 3) return Value::Double(std::fabs(a[0].d()));
  if (a[0].i() == INT64_MIN) return InvalidInput("integer overflow in {}", CallName(e));
  return Value::Int(std::llabs(a[0].i()));
}

// --- NULL handling

Result<DataType> CheckCoalesce(const ScalarFunction&, std::vector<ExprPtr>& args,
                               const std::string&) {
  if (args.empty()) return InvalidInput("coalesce needs arguments");
  DataType t = args[0]->type;
  for (const auto& a : args) {
    FLOE_ASSIGN_OR_RETURN(t, CommonType(t, a->type));
  }
  for (auto& a : args) {
    FLOE_ASSIGN_OR_RETURN(a, CastTo(a, t));
  }
  return t;
}

Result<Value> CoalesceRow(const Expr&, const std::vector<Value>& a) {
  for (const auto& v : a) {
    if (!v.is_null()) return v;
  }
  return Value{};
}

// --- dates and timestamps

constexpr int64_t kMicrosPerDay = 86400000000LL;

int64_t DateTrunc(std::string_view unit, int64_t v, bool is_date) {
  int64_t micros = is_date ? v * kMicrosPerDay : v;
  int64_t days = FloorDiv(micros, kMicrosPerDay);
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  int64_t out_days = days;
  if (unit == "year") {
    out_days = DaysFromCivil(y, 1, 1);
  } else if (unit == "quarter") {
    out_days = DaysFromCivil(y, (m - 1) / 3 * 3 + 1, 1);
  } else if (unit == "month") {
    out_days = DaysFromCivil(y, m, 1);
  } else if (unit == "week") {               // ISO: Monday
    int64_t dow = ((days % 7) + 7 + 3) % 7;  // 1970-01-01 was a Thursday (3 after Monday)
    out_days = days - dow;
  } else if (unit == "day") {
    out_days = days;
  } else {
    int64_t step = unit == "hour" ? 3600000000LL : unit == "minute" ? 60000000LL : 1000000LL;
    int64_t t = FloorDiv(micros, step) * step;
    return is_date ? FloorDiv(t, kMicrosPerDay) : t;
  }
  return is_date ? out_days : out_days * kMicrosPerDay;
}

Value DatePart(std::string_view part, int64_t v, bool is_date) {
  int64_t micros = is_date ? v * kMicrosPerDay : v;
  int64_t days = FloorDiv(micros, kMicrosPerDay);
  int64_t tod = micros - days * kMicrosPerDay;
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  if (part == "year") return Value::Int(y);
  if (part == "quarter") return Value::Int((m - 1) / 3 + 1);
  if (part == "month") return Value::Int(m);
  if (part == "day") return Value::Int(d);
  if (part == "hour") return Value::Int(tod / 3600000000LL);
  if (part == "minute") return Value::Int(tod / 60000000LL % 60);
  if (part == "second") return Value::Int(tod / 1000000LL % 60);
  if (part == "dow") return Value::Int(((days % 7) + 7 + 4) % 7);  // Sunday = 0
  if (part == "doy") return Value::Int(days - DaysFromCivil(y, 1, 1) + 1);
  if (part == "week") {
    // ISO week number.
    int64_t dow_mon = ((days % 7) + 7 + 3) % 7;
    int64_t thursday = days - dow_mon + 3;
    int64_t ty;
    unsigned tm, td;
    CivilFromDays(thursday, &ty, &tm, &td);
    return Value::Int((thursday - DaysFromCivil(ty, 1, 1)) / 7 + 1);
  }
  return Value::Double(static_cast<double>(micros) / 1e6);  // epoch
}

Result<DataType> CheckDateTrunc(const ScalarFunction& f, std::vector<ExprPtr>& args,
                                const std::string& text) {
  static const char* kUnits[] = {"year", "quarter", "month",  "week",
                                 "day",  "hour",    "minute", "second"};
  if (std::find(std::begin(kUnits), std::end(kUnits), text) == std::end(kUnits)) {
    return InvalidInput("date_trunc: unknown unit '{}'", text);
  }
  if (IsStringLiteral(args[0])) {
    FLOE_ASSIGN_OR_RETURN(args[0],
                          CastTo(args[0], columnar::Timestamp(columnar::TimeUnit::kMicro)));
  }
  // As in Postgres and DuckDB, a truncated date is a timestamp.
  if (args[0]->type.id == TypeId::kDate32) {
    FLOE_ASSIGN_OR_RETURN(args[0],
                          CastTo(args[0], columnar::Timestamp(columnar::TimeUnit::kMicro)));
  }
  DataType t = args[0]->type;
  FLOE_RETURN_IF_ERROR(
      ExpectType(args[0], t.id == TypeId::kTimestamp, f.name, "a date or timestamp"));
  return t;
}

Result<Value> DateTruncRow(const Expr& e, const std::vector<Value>& a) {
  if (a[0].is_null()) return Value{};
  return Value::Int(DateTrunc(e.text, a[0].i(), e.args[0]->type.id == TypeId::kDate32));
}

Result<DataType> CheckDatePart(const ScalarFunction& f, std::vector<ExprPtr>& args,
                               const std::string& text) {
  static const char* kParts[] = {"year",   "quarter", "month", "day",  "hour", "minute",
                                 "second", "dow",     "doy",   "week", "epoch"};
  if (std::find(std::begin(kParts), std::end(kParts), text) == std::end(kParts)) {
    return InvalidInput("extract: unknown field '{}'", text);
  }
  if (IsStringLiteral(args[0])) {
    FLOE_ASSIGN_OR_RETURN(args[0],
                          CastTo(args[0], columnar::Timestamp(columnar::TimeUnit::kMicro)));
  }
  const DataType& t = args[0]->type;
  FLOE_RETURN_IF_ERROR(ExpectType(args[0], t.id == TypeId::kDate32 || t.id == TypeId::kTimestamp,
                                  f.name, "a date or timestamp"));
  return text == "epoch" ? columnar::Float64() : columnar::Int64();
}

Result<Value> DatePartRow(const Expr& e, const std::vector<Value>& a) {
  if (a[0].is_null()) return Value{};
  return DatePart(e.text, a[0].i(), e.args[0]->type.id == TypeId::kDate32);
}

int ToLower(int c) { return std::tolower(c); }
int ToUpper(int c) { return std::toupper(c); }

// The registry. A new function is one entry here: names, arity, type rule, kernel.
std::vector<ScalarFunction> MakeRegistry() {
  std::vector<ScalarFunction> r;
  auto add = [&](ScalarFunction f) { r.push_back(std::move(f)); };
  add({.name = "lower",
       .min_args = 1,
       .max_args = 1,
       .check = CheckOneString,
       .kernel = RowKernel<CaseRow<ToLower>>});
  add({.name = "upper",
       .min_args = 1,
       .max_args = 1,
       .check = CheckOneString,
       .kernel = RowKernel<CaseRow<ToUpper>>});
  add({.name = "length",
       .aliases = {"char_length", "character_length"},
       .min_args = 1,
       .max_args = 1,
       .check = CheckOneString,
       .kernel = RowKernel<LengthRow>});
  add({.name = "substring",
       .aliases = {"substr"},
       .min_args = 2,
       .max_args = 3,
       .check = CheckSubstring,
       .kernel = RowKernel<SubstringRow>});
  add({.name = "starts_with",
       .min_args = 2,
       .max_args = 2,
       .check = CheckStartsWith,
       .kernel = RowKernel<StartsWithRow>});
  add({.name = "||", .is_operator = true, .check = CheckConcat, .kernel = RowKernel<ConcatRow>});
  add({.name = "abs",
       .min_args = 1,
       .max_args = 1,
       .check = CheckAbs,
       .kernel = RowKernel<AbsRow>});
  add({.name = "coalesce", .check = CheckCoalesce, .kernel = RowKernel<CoalesceRow>});
  add({.name = "date_trunc",
       .unit_argument = true,
       .min_args = 1,
       .max_args = 1,
       .check = CheckDateTrunc,
       .kernel = RowKernel<DateTruncRow>});
  add({.name = "date_part",
       .aliases = {"extract"},
       .unit_aliases = {"year", "quarter", "month", "day", "hour", "minute", "second"},
       .unit_argument = true,
       .min_args = 1,
       .max_args = 1,
       .check = CheckDatePart,
       .kernel = RowKernel<DatePartRow>});
  return r;
}

}  // namespace

const std::vector<ScalarFunction>& Functions() {
  static const std::vector<ScalarFunction> kRegistry = MakeRegistry();
  return kRegistry;
}

FunctionLookup FindFunction(std::string_view name) {
  for (const auto& f : Functions()) {
    if (f.is_operator) continue;
    if (f.name == name || std::find(f.aliases.begin(), f.aliases.end(), name) != f.aliases.end()) {
      return {&f, {}};
    }
    auto unit = std::find(f.unit_aliases.begin(), f.unit_aliases.end(), name);
    if (unit != f.unit_aliases.end()) return {&f, *unit};
  }
  return {};
}

const ScalarFunction* FindOperator(std::string_view symbol) {
  for (const auto& f : Functions()) {
    if (f.is_operator && f.name == symbol) return &f;
  }
  return nullptr;
}

bool IsFunctionCall(const Expr& e, std::string_view name) {
  return e.kind == Expr::Kind::kCall && e.fn == Fn::kFunction && e.function != nullptr &&
         e.function->name == name;
}

}  // namespace floe::exec
