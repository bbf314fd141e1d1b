// The registry's date and time functions, with DuckDB's semantics (Spark's spellings beside where
// they differ): date_trunc, date_part/extract and the unit names (year(ts), dayofweek(d), ...),
// date_diff (unit boundaries crossed) and date_sub (whole units elapsed), date_add, make_date,
// make_timestamp, last_day, dayname/monthname, strftime/strptime, epoch/epoch_ms/epoch_us and
// to_timestamp. Dates are days and timestamps microseconds since 1970-01-01 (exec/value.h).
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/calendar.h"
#include "floe/exec/expression_internal.h"

namespace floe::exec::internal {
namespace {

constexpr int64_t kMicrosPerSecond = 1'000'000;
constexpr int64_t kMicrosPerDay = 86'400 * kMicrosPerSecond;

constexpr std::array<std::string_view, 7> kDayNames = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                                       "Thursday", "Friday", "Saturday"};
constexpr std::array<std::string_view, 12> kMonthNames = {
    "January", "February", "March",     "April",   "May",      "June",
    "July",    "August",   "September", "October", "November", "December"};

bool IsLeap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }
unsigned DaysInMonth(int64_t y, unsigned m) {
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

// A date or timestamp argument's value as microseconds.
int64_t Micros(const Value& v, const DataType& t) {
  return t.id == TypeId::kDate32 ? v.i() * kMicrosPerDay : v.i();
}

// The civil parts of a microsecond timestamp.
struct Civil {
  int64_t days = 0;  // since the epoch
  int64_t year = 0;
  unsigned month = 1, day = 1;
  int64_t time = 0;  // microseconds into the day
};
Civil CivilOf(int64_t micros) {
  Civil c;
  c.days = FloorDiv(micros, kMicrosPerDay);
  c.time = micros - c.days * kMicrosPerDay;
  CivilFromDays(c.days, &c.year, &c.month, &c.day);
  return c;
}

int64_t DayOfWeek(int64_t days) { return ((days % 7) + 7 + 4) % 7; }  // Sunday = 0

// ISO 8601 week: the year and week of the week's Thursday.
void IsoWeek(int64_t days, int64_t* iso_year, int64_t* week) {
  const int64_t dow_mon = ((days % 7) + 7 + 3) % 7;  // Monday = 0
  const int64_t thursday = days - dow_mon + 3;
  unsigned m, d;
  CivilFromDays(thursday, iso_year, &m, &d);
  *week = (thursday - DaysFromCivil(*iso_year, 1, 1)) / 7 + 1;
}

// The date or timestamp argument `args[i]`: a string constant is read as a timestamp.
Status DateOrTimestampArg(const ScalarFunction& f, std::vector<ExprPtr>& args, size_t i) {
  if (IsStringLiteral(args[i])) {
    FLOE_ASSIGN_OR_RETURN(args[i],
                          CastTo(args[i], columnar::Timestamp(columnar::TimeUnit::kMicro)));
  }
  const TypeId t = args[i]->type.id;
  return ExpectType(args[i], t == TypeId::kDate32 || t == TypeId::kTimestamp, f.name,
                    "a date or timestamp");
}

Status IntegerArg(const ScalarFunction& f, const std::vector<ExprPtr>& args, size_t i) {
  return ExpectType(args[i], IsIntegerType(args[i]->type), f.name, "an integer");
}

bool AnyNull(const std::vector<Value>& a) {
  return std::any_of(a.begin(), a.end(), [](const Value& v) { return v.is_null(); });
}

// --- date_trunc

constexpr std::string_view kTruncUnits[] = {"millennium", "century", "decade", "year",
                                            "quarter",    "month",   "week",   "day",
                                            "hour",       "minute",  "second", "millisecond"};

int64_t DateTrunc(std::string_view unit, int64_t micros) {
  const Civil c = CivilOf(micros);
  int64_t days = c.days;
  auto year_start = [&](int64_t y) { return DaysFromCivil(y, 1, 1); };
  // DuckDB's: 1985 -> 1000 and 1900 (date_part's century counts from 1901).
  if (unit == "millennium") {
    days = year_start(FloorDiv(c.year, 1000) * 1000);
  } else if (unit == "century") {
    days = year_start(FloorDiv(c.year, 100) * 100);
  } else if (unit == "decade") {
    days = year_start(FloorDiv(c.year, 10) * 10);
  } else if (unit == "year") {
    days = year_start(c.year);
  } else if (unit == "quarter") {
    days = DaysFromCivil(c.year, (c.month - 1) / 3 * 3 + 1, 1);
  } else if (unit == "month") {
    days = DaysFromCivil(c.year, c.month, 1);
  } else if (unit == "week") {  // ISO: Monday
    days = c.days - ((c.days % 7) + 7 + 3) % 7;
  } else if (unit != "day") {
    const int64_t step = unit == "hour"     ? 3600 * kMicrosPerSecond
                         : unit == "minute" ? 60 * kMicrosPerSecond
                         : unit == "second" ? kMicrosPerSecond
                                            : 1000;
    return FloorDiv(micros, step) * step;
  }
  return days * kMicrosPerDay;
}

Result<DataType> CheckDateTrunc(const ScalarFunction& f, std::vector<ExprPtr>& args,
                                const std::string& text) {
  if (std::find(std::begin(kTruncUnits), std::end(kTruncUnits), text) == std::end(kTruncUnits)) {
    return InvalidInput("date_trunc: unknown unit '{}'", text);
  }
  FLOE_RETURN_IF_ERROR(DateOrTimestampArg(f, args, 0));
  // As in Postgres and DuckDB, a truncated date is a timestamp.
  if (args[0]->type.id == TypeId::kDate32) {
    FLOE_ASSIGN_OR_RETURN(args[0],
                          CastTo(args[0], columnar::Timestamp(columnar::TimeUnit::kMicro)));
  }
  return args[0]->type;
}

Result<Value> DateTruncRow(const Expr& e, const std::vector<Value>& a) {
  if (a[0].is_null()) return Value{};
  return Value::Int(DateTrunc(e.text, a[0].i()));
}

// --- date_part and the unit names

constexpr std::string_view kParts[] = {
    "year",        "quarter",     "month",      "day",        "hour",      "minute",
    "second",      "dow",         "doy",        "week",       "epoch",     "isodow",
    "dayofweek",   "dayofyear",   "dayofmonth", "weekofyear", "yearweek",  "isoyear",
    "millisecond", "microsecond", "decade",     "century",    "millennium"};

// The parts date_part answers with an integer, by name once rather than per row.
enum class Part {
  kYear,
  kQuarter,
  kMonth,
  kDay,
  kHour,
  kMinute,
  kSecond,
  kMillisecond,
  kMicrosecond,
  kDow,
  kIsoDow,
  kDoy,
  kDecade,
  kCentury,
  kMillennium,
  kWeek,
  kYearWeek,
  kIsoYear
};

std::optional<Part> PartNamed(std::string_view part) {
  if (part == "year") return Part::kYear;
  if (part == "quarter") return Part::kQuarter;
  if (part == "month") return Part::kMonth;
  if (part == "day" || part == "dayofmonth") return Part::kDay;
  if (part == "hour") return Part::kHour;
  if (part == "minute") return Part::kMinute;
  if (part == "second") return Part::kSecond;
  if (part == "millisecond") return Part::kMillisecond;
  if (part == "microsecond") return Part::kMicrosecond;
  if (part == "dow" || part == "dayofweek") return Part::kDow;
  if (part == "isodow") return Part::kIsoDow;
  if (part == "doy" || part == "dayofyear") return Part::kDoy;
  if (part == "decade") return Part::kDecade;
  if (part == "century") return Part::kCentury;
  if (part == "millennium") return Part::kMillennium;
  if (part == "week" || part == "weekofyear") return Part::kWeek;
  if (part == "yearweek") return Part::kYearWeek;
  if (part == "isoyear") return Part::kIsoYear;
  return std::nullopt;  // epoch
}

int64_t DatePartOf(Part part, int64_t micros) {
  const Civil c = CivilOf(micros);
  const int64_t y = c.year;
  switch (part) {
    case Part::kYear:
      return y;
    case Part::kQuarter:
      return (c.month - 1) / 3 + 1;
    case Part::kMonth:
      return c.month;
    case Part::kDay:
      return c.day;
    case Part::kHour:
      return c.time / (3600 * kMicrosPerSecond);
    case Part::kMinute:
      return c.time / (60 * kMicrosPerSecond) % 60;
    case Part::kSecond:
      return c.time / kMicrosPerSecond % 60;
    // DuckDB's: the seconds of the minute in milli- or microseconds.
    case Part::kMillisecond:
      return c.time % (60 * kMicrosPerSecond) / 1000;
    case Part::kMicrosecond:
      return c.time % (60 * kMicrosPerSecond);
    case Part::kDow:
      return DayOfWeek(c.days);
    case Part::kIsoDow:
      return (DayOfWeek(c.days) + 6) % 7 + 1;
    case Part::kDoy:
      return c.days - DaysFromCivil(y, 1, 1) + 1;
    case Part::kDecade:
      return FloorDiv(y, 10);
    case Part::kCentury:
      return y > 0 ? (y - 1) / 100 + 1 : -((-y) / 100 + 1);
    case Part::kMillennium:
      return y > 0 ? (y - 1) / 1000 + 1 : -((-y) / 1000 + 1);
    case Part::kWeek:
    case Part::kYearWeek:
    case Part::kIsoYear: {
      int64_t iso_year, week;
      IsoWeek(c.days, &iso_year, &week);
      if (part == Part::kIsoYear) return iso_year;
      return part == Part::kYearWeek ? iso_year * 100 + week : week;
    }
  }
  return 0;
}

Value DatePart(std::string_view part, int64_t micros) {
  if (std::optional<Part> p = PartNamed(part)) return Value::Int(DatePartOf(*p, micros));
  return Value::Double(static_cast<double>(micros) / 1e6);  // epoch
}

Result<DataType> CheckDatePart(const ScalarFunction& f, std::vector<ExprPtr>& args,
                               const std::string& text) {
  if (std::find(std::begin(kParts), std::end(kParts), text) == std::end(kParts)) {
    return InvalidInput("extract: unknown field '{}'", text);
  }
  FLOE_RETURN_IF_ERROR(DateOrTimestampArg(f, args, 0));
  return text == "epoch" ? columnar::Float64() : columnar::Int64();
}

Result<Value> DatePartRow(const Expr& e, const std::vector<Value>& a) {
  if (a[0].is_null()) return Value{};
  return DatePart(e.text, Micros(a[0], e.args[0]->type));
}

// date_part's integer parts of a date or timestamp column, the part resolved once and each row
// computed in place (DatePartRow's rule otherwise: epoch, a constant argument).
Result<ColumnPtr> DatePartKernel(const Expr& e, const std::vector<ColumnPtr>& cols, int64_t rows) {
  const columnar::Column& in = *cols[0];
  const std::optional<Part> part = PartNamed(e.text);
  const bool date = in.type.id == TypeId::kDate32;
  if (!part || (!date && in.type.id != TypeId::kTimestamp) || e.type.id != TypeId::kInt64) {
    return RowKernel<DatePartRow>(e, cols, rows);
  }
  std::vector<int64_t> out(static_cast<size_t>(rows), 0);
  for (int64_t r = 0; r < rows; ++r) {
    if (in.null_count > 0 && in.IsNull(r)) continue;
    const int64_t micros =
        date ? int64_t{in.Values<int32_t>()[r]} * kMicrosPerDay : in.Values<int64_t>()[r];
    out[static_cast<size_t>(r)] = DatePartOf(*part, micros);
  }
  auto c = std::make_shared<columnar::Column>();
  c->type = e.type;
  c->length = rows;
  c->null_count = in.null_count;
  if (in.null_count > 0) c->validity = in.validity;
  c->values = Buffer::Adopt(std::move(out));
  return ColumnPtr(std::move(c));
}

// --- date_diff and date_sub

constexpr std::string_view kDiffUnits[] = {
    "millennium", "century", "decade", "year",   "quarter",     "month",      "week",
    "day",        "hour",    "minute", "second", "millisecond", "microsecond"};

// The unit boundaries crossed from `a` to `b` (DuckDB's date_diff).
int64_t DateDiff(std::string_view unit, int64_t a, int64_t b) {
  const Civil x = CivilOf(a), y = CivilOf(b);
  if (unit == "millennium") return FloorDiv(y.year, 1000) - FloorDiv(x.year, 1000);
  if (unit == "century") return FloorDiv(y.year, 100) - FloorDiv(x.year, 100);
  if (unit == "decade") return FloorDiv(y.year, 10) - FloorDiv(x.year, 10);
  if (unit == "year") return y.year - x.year;
  if (unit == "quarter") {
    return (y.year * 4 + (y.month - 1) / 3) - (x.year * 4 + (x.month - 1) / 3);
  }
  if (unit == "month") return (y.year * 12 + y.month) - (x.year * 12 + x.month);
  if (unit == "week") return (y.days - x.days) / 7;
  if (unit == "day") return y.days - x.days;
  const int64_t step = unit == "hour"          ? 3600 * kMicrosPerSecond
                       : unit == "minute"      ? 60 * kMicrosPerSecond
                       : unit == "second"      ? kMicrosPerSecond
                       : unit == "millisecond" ? 1000
                                               : 1;
  return FloorDiv(b, step) - FloorDiv(a, step);
}

// The whole months from `a` to `b` (a <= b), as an age: one fewer when b's day and time of
// month come before a's, where a day past the end of b's shorter month counts as its last day.
int64_t WholeMonths(int64_t a, int64_t b) {
  const Civil x = CivilOf(a), y = CivilOf(b);
  unsigned x_day = x.day;
  const unsigned last = DaysInMonth(y.year, y.month);
  if (y.day == last && (x_day > last || (x_day == last && x.time < y.time))) x_day = last;
  int64_t months = (y.year - x.year) * 12 + (static_cast<int64_t>(y.month) - x.month);
  if (y.day < x_day || (y.day == x_day && y.time < x.time)) --months;
  return months;
}

// The whole units elapsed from `a` to `b` (DuckDB's date_sub).
int64_t DateSub(std::string_view unit, int64_t a, int64_t b) {
  const bool calendar = unit == "millennium" || unit == "century" || unit == "decade" ||
                        unit == "year" || unit == "quarter" || unit == "month";
  if (calendar) {
    const int64_t months = a <= b ? WholeMonths(a, b) : -WholeMonths(b, a);
    const int64_t per = unit == "millennium" ? 12000
                        : unit == "century"  ? 1200
                        : unit == "decade"   ? 120
                        : unit == "year"     ? 12
                        : unit == "quarter"  ? 3
                                             : 1;
    return months / per;
  }
  const int64_t step = unit == "week"          ? 7 * kMicrosPerDay
                       : unit == "day"         ? kMicrosPerDay
                       : unit == "hour"        ? 3600 * kMicrosPerSecond
                       : unit == "minute"      ? 60 * kMicrosPerSecond
                       : unit == "second"      ? kMicrosPerSecond
                       : unit == "millisecond" ? 1000
                                               : 1;
  return (b - a) / step;
}

Result<DataType> CheckDateDiff(const ScalarFunction& f, std::vector<ExprPtr>& args,
                               const std::string& text) {
  if (std::find(std::begin(kDiffUnits), std::end(kDiffUnits), text) == std::end(kDiffUnits)) {
    return InvalidInput("{}: unknown unit '{}'", f.name, text);
  }
  FLOE_RETURN_IF_ERROR(DateOrTimestampArg(f, args, 0));
  FLOE_RETURN_IF_ERROR(DateOrTimestampArg(f, args, 1));
  return columnar::Int64();
}

template <int64_t (*Diff)(std::string_view, int64_t, int64_t)>
Result<Value> DiffRow(const Expr& e, const std::vector<Value>& a) {
  if (AnyNull(a)) return Value{};
  return Value::Int(Diff(e.text, Micros(a[0], e.args[0]->type), Micros(a[1], e.args[1]->type)));
}

// Spark's datediff(end, start): days.
Result<DataType> CheckSparkDateDiff(const ScalarFunction& f, std::vector<ExprPtr>& args,
                                    const std::string&) {
  FLOE_RETURN_IF_ERROR(DateOrTimestampArg(f, args, 0));
  FLOE_RETURN_IF_ERROR(DateOrTimestampArg(f, args, 1));
  return columnar::Int64();
}

Result<Value> SparkDateDiffRow(const Expr& e, const std::vector<Value>& a) {
  if (AnyNull(a)) return Value{};
  return Value::Int(DateDiff("day", Micros(a[1], e.args[1]->type), Micros(a[0], e.args[0]->type)));
}

// --- date arithmetic and construction

// date_add(date, days) and Spark's date_sub(date, days).
Result<DataType> CheckAddDays(const ScalarFunction& f, std::vector<ExprPtr>& args,
                              const std::string&) {
  if (IsStringLiteral(args[0])) {
    FLOE_ASSIGN_OR_RETURN(args[0], CastTo(args[0], columnar::Date32()));
  }
  FLOE_RETURN_IF_ERROR(ExpectType(args[0], args[0]->type.id == TypeId::kDate32, f.name, "a date"));
  FLOE_RETURN_IF_ERROR(IntegerArg(f, args, 1));
  return columnar::Date32();
}

Result<Value> AddDaysRow(const Expr& e, const std::vector<Value>& a) {
  if (AnyNull(a)) return Value{};
  const int64_t n = e.function->name == "date_add" ? a[1].i() : -a[1].i();
  int64_t days;
  if (__builtin_add_overflow(a[0].i(), n, &days) || days < INT32_MIN || days > INT32_MAX) {
    return InvalidInput("{}: the date is out of range", e.function->name);
  }
  return Value::Int(days);
}

// x + INTERVAL (months, days, microseconds), as the binder folds `date/timestamp +- INTERVAL
// '...'`: the date's calendar month moved (its day clamped to the month's last, as DuckDB),
// then the days, then the microseconds; a timestamp, as DuckDB gives.
Result<DataType> CheckAddInterval(const ScalarFunction& f, std::vector<ExprPtr>& args,
                                  const std::string&) {
  FLOE_RETURN_IF_ERROR(DateOrTimestampArg(f, args, 0));
  for (size_t i = 1; i < args.size(); ++i) FLOE_RETURN_IF_ERROR(IntegerArg(f, args, i));
  return args[0]->type.id == TypeId::kTimestamp ? args[0]->type
                                                : columnar::Timestamp(columnar::TimeUnit::kMicro);
}

Result<Value> AddIntervalRow(const Expr& e, const std::vector<Value>& a) {
  if (AnyNull(a)) return Value{};
  const Civil c = CivilOf(Micros(a[0], e.args[0]->type));
  const int64_t months = c.year * 12 + static_cast<int64_t>(c.month) - 1 + a[1].i();
  const int64_t year = FloorDiv(months, 12);
  if (year < -290000 || year > 290000) return InvalidInput("+ INTERVAL: the date is out of range");
  const auto month = static_cast<unsigned>(months - year * 12 + 1);
  const int64_t day = DaysFromCivil(year, month, std::min(c.day, DaysInMonth(year, month)));
  int64_t days = 0, micros = 0, out = 0;
  if (__builtin_add_overflow(day, a[2].i(), &days) ||
      __builtin_mul_overflow(days, kMicrosPerDay, &micros) ||
      __builtin_add_overflow(micros, c.time, &micros) ||
      __builtin_add_overflow(micros, a[3].i(), &out)) {
    return InvalidInput("+ INTERVAL: the timestamp is out of range");
  }
  return Value::Int(out);
}

// A civil date checked: "make_date: 2024-2-30 is not a date".
Result<int64_t> CheckedDays(std::string_view fn, int64_t y, int64_t m, int64_t d) {
  if (y < -290000 || y > 290000 || m < 1 || m > 12 || d < 1 ||
      d > DaysInMonth(y, static_cast<unsigned>(m))) {
    return InvalidInput("{}: {}-{}-{} is not a date", fn, y, m, d);
  }
  return DaysFromCivil(y, static_cast<unsigned>(m), static_cast<unsigned>(d));
}

Result<DataType> CheckMakeDate(const ScalarFunction& f, std::vector<ExprPtr>& args,
                               const std::string&) {
  for (size_t i = 0; i < args.size(); ++i) FLOE_RETURN_IF_ERROR(IntegerArg(f, args, i));
  return columnar::Date32();
}

Result<Value> MakeDateRow(const Expr&, const std::vector<Value>& a) {
  if (AnyNull(a)) return Value{};
  FLOE_ASSIGN_OR_RETURN(int64_t days, CheckedDays("make_date", a[0].i(), a[1].i(), a[2].i()));
  return Value::Int(days);
}

// make_timestamp(micros) or make_timestamp(y, m, d, h, mi, seconds).
Result<DataType> CheckMakeTimestamp(const ScalarFunction& f, std::vector<ExprPtr>& args,
                                    const std::string&) {
  if (args.size() != 1 && args.size() != 6) {
    return InvalidInput("make_timestamp takes 1 or 6 arguments, got {}", args.size());
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if (i == 5) {
      if (IsIntegerType(args[i]->type)) {
        FLOE_ASSIGN_OR_RETURN(args[i], CastTo(args[i], columnar::Float64()));
      }
      FLOE_RETURN_IF_ERROR(
          ExpectType(args[i], args[i]->type.id == TypeId::kFloat64, f.name, "a number"));
    } else {
      FLOE_RETURN_IF_ERROR(IntegerArg(f, args, i));
    }
  }
  return columnar::Timestamp(columnar::TimeUnit::kMicro);
}

Result<Value> MakeTimestampRow(const Expr&, const std::vector<Value>& a) {
  if (AnyNull(a)) return Value{};
  if (a.size() == 1) return a[0];
  FLOE_ASSIGN_OR_RETURN(int64_t days, CheckedDays("make_timestamp", a[0].i(), a[1].i(), a[2].i()));
  const double s = a[5].d();
  if (a[3].i() < 0 || a[3].i() > 23 || a[4].i() < 0 || a[4].i() > 59 || !(s >= 0 && s < 60)) {
    return InvalidInput("make_timestamp: {}:{}:{} is not a time of day", a[3].i(), a[4].i(), s);
  }
  return Value::Int(days * kMicrosPerDay + a[3].i() * 3600 * kMicrosPerSecond +
                    a[4].i() * 60 * kMicrosPerSecond + std::llround(s * 1e6));
}

Result<DataType> CheckOneDate(const ScalarFunction& f, std::vector<ExprPtr>& args,
                              const std::string&) {
  FLOE_RETURN_IF_ERROR(DateOrTimestampArg(f, args, 0));
  if (f.name == "last_day") return columnar::Date32();
  return columnar::String();  // dayname, monthname
}

Result<Value> OneDateRow(const Expr& e, const std::vector<Value>& a) {
  if (a[0].is_null()) return Value{};
  const Civil c = CivilOf(Micros(a[0], e.args[0]->type));
  const std::string_view name = e.function->name;
  if (name == "last_day")
    return Value::Int(DaysFromCivil(c.year, c.month, DaysInMonth(c.year, c.month)));
  if (name == "dayname") return Value::Str(std::string(kDayNames[DayOfWeek(c.days)]));
  return Value::Str(std::string(kMonthNames[c.month - 1]));
}

// --- epochs

// epoch(d|ts) seconds as a double; epoch_ms / epoch_us of a date or timestamp as an integer, and
// epoch_ms(integer) the timestamp that many milliseconds after the epoch.
Result<DataType> CheckEpoch(const ScalarFunction& f, std::vector<ExprPtr>& args,
                            const std::string&) {
  if (f.name == "epoch_ms" && IsIntegerType(args[0]->type)) {
    return columnar::Timestamp(columnar::TimeUnit::kMicro);
  }
  FLOE_RETURN_IF_ERROR(DateOrTimestampArg(f, args, 0));
  return f.name == "epoch" ? columnar::Float64() : columnar::Int64();
}

Result<Value> EpochRow(const Expr& e, const std::vector<Value>& a) {
  if (a[0].is_null()) return Value{};
  const std::string_view name = e.function->name;
  if (e.type.id == TypeId::kTimestamp) {  // epoch_ms(integer)
    int64_t micros;
    if (__builtin_mul_overflow(a[0].i(), int64_t{1000}, &micros)) {
      return InvalidInput("epoch_ms: {} milliseconds is out of the timestamp range", a[0].i());
    }
    return Value::Int(micros);
  }
  const int64_t micros = Micros(a[0], e.args[0]->type);
  if (name == "epoch") return Value::Double(static_cast<double>(micros) / 1e6);
  if (name == "epoch_ms") {  // to the nearest millisecond, as DuckDB
    const int64_t q = micros / 1000, r = micros % 1000;
    return Value::Int(q + (r >= 500 ? 1 : r <= -500 ? -1 : 0));
  }
  return Value::Int(micros);
}

// to_timestamp(seconds): a timestamp with time zone (UTC), as DuckDB.
Result<DataType> CheckToTimestamp(const ScalarFunction& f, std::vector<ExprPtr>& args,
                                  const std::string&) {
  if (IsNumericType(args[0]->type) && args[0]->type.id != TypeId::kFloat64) {
    FLOE_ASSIGN_OR_RETURN(args[0], CastTo(args[0], columnar::Float64()));
  }
  FLOE_RETURN_IF_ERROR(
      ExpectType(args[0], args[0]->type.id == TypeId::kFloat64, f.name, "a number of seconds"));
  return columnar::Timestamp(columnar::TimeUnit::kMicro, "UTC");
}

Result<Value> ToTimestampRow(const Expr&, const std::vector<Value>& a) {
  if (a[0].is_null()) return Value{};
  const double micros = std::round(a[0].d() * 1e6);
  if (!(micros > -9.2e18 && micros < 9.2e18)) {
    return InvalidInput("to_timestamp: {} seconds is out of the timestamp range", a[0].d());
  }
  return Value::Int(static_cast<int64_t>(micros));
}

// --- strftime and strptime

// The format's specifiers are checked once, when the format is a constant; a format column is
// checked row by row.
Status CheckFormat(std::string_view fn, std::string_view f) {
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i] != '%') continue;
    if (++i < f.size() && f[i] == '-') ++i;
    if (i >= f.size()) return InvalidInput("{}: the format '{}' ends in '%'", fn, f);
    if (std::string_view("aAwdbhBmyYHIpMSfgjcxX%").find(f[i]) == std::string_view::npos) {
      return InvalidInput("{}: unsupported format specifier '%{}' in '{}'", fn, f[i], f);
    }
  }
  return {};
}

// `f` with the composite specifiers spelled out: %c is "%Y-%m-%d %H:%M:%S", %x "%Y-%m-%d", %X
// "%H:%M:%S".
std::string Expand(std::string_view f) {
  std::string out;
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i] == '%' && i + 1 < f.size()) {
      const char c = f[i + 1];
      if (c == 'c' || c == 'x' || c == 'X') {
        out += c == 'c' ? "%Y-%m-%d %H:%M:%S" : c == 'x' ? "%Y-%m-%d" : "%H:%M:%S";
        ++i;
        continue;
      }
      out.push_back('%');
      out.push_back(c);
      ++i;
      continue;
    }
    out.push_back(f[i]);
  }
  return out;
}

void Pad(std::string* out, int64_t v, int width, bool pad) {
  std::string digits = std::to_string(v < 0 ? -v : v);
  if (v < 0) out->push_back('-');
  if (pad && static_cast<int>(digits.size()) < width) out->append(width - digits.size(), '0');
  out->append(digits);
}

Result<std::string> Strftime(int64_t micros, std::string_view format) {
  FLOE_RETURN_IF_ERROR(CheckFormat("strftime", format));
  const std::string f = Expand(format);
  const Civil c = CivilOf(micros);
  const int64_t hour = c.time / (3600 * kMicrosPerSecond);
  const int64_t minute = c.time / (60 * kMicrosPerSecond) % 60;
  const int64_t second = c.time / kMicrosPerSecond % 60;
  const int64_t frac = c.time % kMicrosPerSecond;
  std::string out;
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i] != '%') {
      out.push_back(f[i]);
      continue;
    }
    bool pad = true;
    if (f[++i] == '-') {
      pad = false;
      ++i;
    }
    switch (f[i]) {
      case 'a':
        out += kDayNames[DayOfWeek(c.days)].substr(0, 3);
        break;
      case 'A':
        out += kDayNames[DayOfWeek(c.days)];
        break;
      case 'w':
        Pad(&out, DayOfWeek(c.days), 1, pad);
        break;
      case 'd':
        Pad(&out, c.day, 2, pad);
        break;
      case 'b':
      case 'h':
        out += kMonthNames[c.month - 1].substr(0, 3);
        break;
      case 'B':
        out += kMonthNames[c.month - 1];
        break;
      case 'm':
        Pad(&out, c.month, 2, pad);
        break;
      case 'y':
        Pad(&out, ((c.year % 100) + 100) % 100, 2, pad);
        break;
      case 'Y':
        Pad(&out, c.year, 4, pad);
        break;
      case 'H':
        Pad(&out, hour, 2, pad);
        break;
      case 'I':
        Pad(&out, hour % 12 == 0 ? 12 : hour % 12, 2, pad);
        break;
      case 'p':
        out += hour < 12 ? "AM" : "PM";
        break;
      case 'M':
        Pad(&out, minute, 2, pad);
        break;
      case 'S':
        Pad(&out, second, 2, pad);
        break;
      case 'f':
        Pad(&out, frac, 6, true);
        break;
      case 'g':
        Pad(&out, frac / 1000, 3, true);
        break;
      case 'j':
        Pad(&out, c.days - DaysFromCivil(c.year, 1, 1) + 1, 3, pad);
        break;
      default:  // %%
        out.push_back('%');
        break;
    }
  }
  return out;
}

Result<DataType> CheckStrftime(const ScalarFunction& f, std::vector<ExprPtr>& args,
                               const std::string&) {
  FLOE_RETURN_IF_ERROR(DateOrTimestampArg(f, args, 0));
  FLOE_RETURN_IF_ERROR(ExpectType(args[1], IsStringType(args[1]->type), f.name, "a format string"));
  if (IsStringLiteral(args[1])) FLOE_RETURN_IF_ERROR(CheckFormat(f.name, args[1]->value.s()));
  return columnar::String();
}

Result<Value> StrftimeRow(const Expr& e, const std::vector<Value>& a) {
  if (AnyNull(a)) return Value{};
  FLOE_ASSIGN_OR_RETURN(std::string s, Strftime(Micros(a[0], e.args[0]->type), a[1].s()));
  return Value::Str(std::move(s));
}

// Reads 1..`max` digits at `*at` of `s`.
bool ReadNumber(std::string_view s, size_t* at, int max, int64_t* out, int* digits = nullptr) {
  int64_t v = 0;
  int n = 0;
  while (*at < s.size() && n < max && s[*at] >= '0' && s[*at] <= '9') {
    v = v * 10 + (s[(*at)++] - '0');
    ++n;
  }
  if (digits) *digits = n;
  *out = v;
  return n > 0;
}

// Reads one of `names` (or its first three letters), case-insensitively; its index in `*out`.
template <size_t N>
bool ReadName(std::string_view s, size_t* at, const std::array<std::string_view, N>& names,
              int64_t* out) {
  auto matches = [&](std::string_view name) {
    if (s.size() - *at < name.size()) return false;
    for (size_t i = 0; i < name.size(); ++i) {
      if (std::tolower(static_cast<unsigned char>(s[*at + i])) !=
          std::tolower(static_cast<unsigned char>(name[i]))) {
        return false;
      }
    }
    return true;
  };
  for (size_t k = 0; k < N; ++k) {
    for (std::string_view name : {names[k], names[k].substr(0, 3)}) {
      if (matches(name)) {
        *at += name.size();
        *out = static_cast<int64_t>(k);
        return true;
      }
    }
  }
  return false;
}

// The timestamp `s` spells in format `f`, or nullopt.
std::optional<int64_t> Strptime(std::string_view s, std::string_view format) {
  const std::string f = Expand(format);
  int64_t year = 1900, month = 1, day = 1, hour = 0, minute = 0, second = 0, micros = 0;
  int64_t day_of_year = -1;
  int pm = -1;  // %p: 0 AM, 1 PM
  bool twelve = false;
  size_t at = 0;
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i] != '%') {
      if (std::isspace(static_cast<unsigned char>(f[i]))) {
        while (at < s.size() && std::isspace(static_cast<unsigned char>(s[at]))) ++at;
        continue;
      }
      if (at >= s.size() || s[at] != f[i]) return std::nullopt;
      ++at;
      continue;
    }
    if (f[++i] == '-') ++i;
    int64_t ignored = 0;
    int digits = 0;
    bool ok = true;
    switch (f[i]) {
      case 'a':
      case 'A':
        ok = ReadName(s, &at, kDayNames, &ignored);
        break;
      case 'w':
        ok = ReadNumber(s, &at, 1, &ignored);
        break;
      case 'd':
        ok = ReadNumber(s, &at, 2, &day);
        break;
      case 'b':
      case 'h':
      case 'B':
        ok = ReadName(s, &at, kMonthNames, &month);
        ++month;
        break;
      case 'm':
        ok = ReadNumber(s, &at, 2, &month);
        break;
      case 'y':
        ok = ReadNumber(s, &at, 2, &year);
        year += year < 69 ? 2000 : 1900;
        break;
      case 'Y':
        ok = ReadNumber(s, &at, 6, &year);
        break;
      case 'H':
        ok = ReadNumber(s, &at, 2, &hour);
        break;
      case 'I':
        ok = ReadNumber(s, &at, 2, &hour);
        twelve = true;
        break;
      case 'p':
        if (s.size() - at >= 2 && (s[at + 1] == 'M' || s[at + 1] == 'm')) {
          const char c = static_cast<char>(std::toupper(static_cast<unsigned char>(s[at])));
          ok = c == 'A' || c == 'P';
          pm = c == 'P' ? 1 : 0;
          at += 2;
        } else {
          ok = false;
        }
        break;
      case 'M':
        ok = ReadNumber(s, &at, 2, &minute);
        break;
      case 'S':
        ok = ReadNumber(s, &at, 2, &second);
        break;
      case 'f':  // up to six digits of a second
        ok = ReadNumber(s, &at, 6, &micros, &digits);
        for (int k = digits; k < 6; ++k) micros *= 10;
        break;
      case 'g':  // milliseconds
        ok = ReadNumber(s, &at, 3, &micros);
        micros *= 1000;
        break;
      case 'j':
        ok = ReadNumber(s, &at, 3, &day_of_year);
        break;
      default:  // %%
        ok = at < s.size() && s[at] == '%';
        ++at;
        break;
    }
    if (!ok) return std::nullopt;
  }
  if (at != s.size()) return std::nullopt;
  if (twelve || pm >= 0) {
    if (hour < 1 || hour > 12) return std::nullopt;
    hour = hour % 12 + (pm == 1 ? 12 : 0);
  }
  if (hour > 23 || minute > 59 || second > 59) return std::nullopt;
  int64_t days;
  if (day_of_year >= 0) {
    if (day_of_year < 1 || day_of_year > (IsLeap(year) ? 366 : 365)) return std::nullopt;
    days = DaysFromCivil(year, 1, 1) + day_of_year - 1;
  } else {
    if (month < 1 || month > 12 || day < 1 ||
        day > DaysInMonth(year, static_cast<unsigned>(month))) {
      return std::nullopt;
    }
    days = DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  }
  return days * kMicrosPerDay + (hour * 3600 + minute * 60 + second) * kMicrosPerSecond + micros;
}

Result<DataType> CheckStrptime(const ScalarFunction& f, std::vector<ExprPtr>& args,
                               const std::string&) {
  FLOE_RETURN_IF_ERROR(ExpectType(args[0], IsStringType(args[0]->type), f.name, "a string"));
  FLOE_RETURN_IF_ERROR(ExpectType(args[1], IsStringType(args[1]->type), f.name, "a format string"));
  if (IsStringLiteral(args[1])) FLOE_RETURN_IF_ERROR(CheckFormat(f.name, args[1]->value.s()));
  return columnar::Timestamp(columnar::TimeUnit::kMicro);
}

Result<Value> StrptimeRow(const Expr& e, const std::vector<Value>& a) {
  if (AnyNull(a)) return Value{};
  const bool try_ = e.function->name == "try_strptime";
  FLOE_RETURN_IF_ERROR(CheckFormat(e.function->name, a[1].s()));
  std::optional<int64_t> t = Strptime(a[0].s(), a[1].s());
  if (!t) {
    if (try_) return Value{};
    return InvalidInput("strptime: '{}' does not match the format '{}'", a[0].s(), a[1].s());
  }
  return Value::Int(*t);
}

}  // namespace

void AddDateFunctions(std::vector<ScalarFunction>* r) {
  auto add = [&](ScalarFunction f) { r->push_back(std::move(f)); };
  add({.name = "date_trunc",
       .aliases = {"datetrunc"},
       .unit_argument = true,
       .min_args = 1,
       .max_args = 1,
       .check = CheckDateTrunc,
       .kernel = RowKernel<DateTruncRow>});
  add({.name = "date_part",
       .aliases = {"extract", "datepart"},
       .unit_aliases = {"year",        "quarter",    "month",     "day",        "hour",
                        "minute",      "second",     "dayofweek", "isodow",     "dayofyear",
                        "dayofmonth",  "weekofyear", "yearweek",  "isoyear",    "millisecond",
                        "microsecond", "decade",     "century",   "millennium", "week"},
       .unit_argument = true,
       .min_args = 1,
       .max_args = 1,
       .check = CheckDatePart,
       .kernel = DatePartKernel});
  add({.name = "date_diff",
       .aliases = {"datediff"},
       .unit_argument = true,
       .without_unit = "datediff(end, start)",
       .min_args = 2,
       .max_args = 2,
       .check = CheckDateDiff,
       .kernel = RowKernel<DiffRow<DateDiff>>});
  add({.name = "date_sub",
       .aliases = {"datesub"},
       .unit_argument = true,
       .without_unit = "date_sub(date, days)",
       .min_args = 2,
       .max_args = 2,
       .check = CheckDateDiff,
       .kernel = RowKernel<DiffRow<DateSub>>});
  // Spark's spellings, reached only through date_diff's and date_sub's without_unit.
  add({.name = "datediff(end, start)",
       .min_args = 2,
       .max_args = 2,
       .check = CheckSparkDateDiff,
       .kernel = RowKernel<SparkDateDiffRow>});
  add({.name = "date_sub(date, days)",
       .min_args = 2,
       .max_args = 2,
       .check = CheckAddDays,
       .kernel = RowKernel<AddDaysRow>});
  add({.name = "date_add",
       .min_args = 2,
       .max_args = 2,
       .check = CheckAddDays,
       .kernel = RowKernel<AddDaysRow>});
  // Bound from `x + INTERVAL ...` (a name no call can spell): x, months, days, microseconds.
  add({.name = "+ interval",
       .min_args = 4,
       .max_args = 4,
       .check = CheckAddInterval,
       .kernel = RowKernel<AddIntervalRow>});
  add({.name = "make_date",
       .min_args = 3,
       .max_args = 3,
       .check = CheckMakeDate,
       .kernel = RowKernel<MakeDateRow>});
  add({.name = "make_timestamp",
       .min_args = 1,
       .max_args = 6,
       .check = CheckMakeTimestamp,
       .kernel = RowKernel<MakeTimestampRow>});
  for (std::string_view name : {"last_day", "dayname", "monthname"}) {
    add({.name = name,
         .min_args = 1,
         .max_args = 1,
         .check = CheckOneDate,
         .kernel = RowKernel<OneDateRow>});
  }
  for (std::string_view name : {"epoch", "epoch_ms", "epoch_us"}) {
    add({.name = name,
         .min_args = 1,
         .max_args = 1,
         .check = CheckEpoch,
         .kernel = RowKernel<EpochRow>});
  }
  add({.name = "to_timestamp",
       .min_args = 1,
       .max_args = 1,
       .check = CheckToTimestamp,
       .kernel = RowKernel<ToTimestampRow>});
  add({.name = "strftime",
       .min_args = 2,
       .max_args = 2,
       .check = CheckStrftime,
       .kernel = RowKernel<StrftimeRow>});
  for (std::string_view name : {"strptime", "try_strptime"}) {
    add({.name = name,
         .min_args = 2,
         .max_args = 2,
         .check = CheckStrptime,
         .kernel = RowKernel<StrptimeRow>});
  }
}

}  // namespace floe::exec::internal
