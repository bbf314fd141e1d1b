#include "floe/exec/functions.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "floe/base/calendar.h"
#include "floe/exec/expression_internal.h"
#include "floe/exec/value.h"

namespace floe::exec {
namespace {

using internal::CastTo;
using internal::ExpectType;
using internal::IsNull;
using internal::RowKernel;

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

// substring(s, from[, length]) as DuckDB computes it: characters (UTF-8), the first at 1; a
// negative `from` counts from the end (-1 is the last character); a negative length takes the
// characters before `from`; what falls outside the string is left out. The bytes of `s` selected.
std::string_view SubstringOf(std::string_view s, int64_t from, std::optional<int64_t> length) {
  auto begins_char = [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; };
  if (from < 0) {
    const auto n = static_cast<int64_t>(std::count_if(s.begin(), s.end(), begins_char));
    from += n + 1;
  }
  // The characters [first, last), counted from 1; last unbounded without a length.
  int64_t first = from, last = INT64_MAX;
  if (length && *length >= 0) {
    if (__builtin_add_overflow(from, *length, &last)) last = INT64_MAX;
  } else if (length) {
    last = from;
    if (__builtin_add_overflow(from, *length, &first)) first = INT64_MIN;
  }
  first = std::max<int64_t>(first, 1);
  if (first >= last) return {};
  size_t begin = s.size(), end = s.size();
  int64_t ch = 0;  // characters begun so far
  for (size_t i = 0; i < s.size(); ++i) {
    if (!begins_char(s[i])) continue;
    ++ch;
    if (ch == first) begin = i;
    if (ch == last) {
      end = i;
      break;
    }
  }
  if (begin >= end) return {};
  return s.substr(begin, end - begin);
}

Result<Value> SubstringRow(const Expr&, const std::vector<Value>& a) {
  for (const auto& v : a) {
    if (v.is_null()) return Value{};
  }
  std::optional<int64_t> length;
  if (a.size() > 2) length = a[2].i();
  return Value::Str(std::string(SubstringOf(a[0].s(), a[1].i(), length)));
}

// substring over a string column and integer columns: the rows' bytes cut in place, never made
// Values (SubstringRow's rule for any other shape).
Result<ColumnPtr> SubstringKernel(const Expr& e, const std::vector<ColumnPtr>& cols, int64_t rows) {
  const columnar::Column& str = *cols[0];
  bool columnar_shape = str.type.id == TypeId::kString || str.type.id == TypeId::kBinary;
  for (size_t i = 1; i < cols.size(); ++i) columnar_shape &= cols[i]->type.id == TypeId::kInt64;
  if (!columnar_shape) return RowKernel<SubstringRow>(e, cols, rows);
  columnar::BinaryBuilder out(e.type);
  out.Reserve(rows, static_cast<int64_t>(str.values.size()));
  const int64_t* from = cols[1]->Values<int64_t>();
  const int64_t* length = cols.size() > 2 ? cols[2]->Values<int64_t>() : nullptr;
  for (int64_t r = 0; r < rows; ++r) {
    bool null = false;
    for (const ColumnPtr& c : cols) null |= c->IsNull(r);
    if (null) {
      out.AppendNull();
      continue;
    }
    std::optional<int64_t> len;
    if (length != nullptr) len = length[r];
    FLOE_RETURN_IF_ERROR(out.Append(SubstringOf(str.BytesAt(r), from[r], len)));
  }
  return out.Finish();
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

// Where each character (UTF-8 lead byte) of `s` starts, and s.size() last.
std::vector<size_t> CharStarts(const std::string& s) {
  std::vector<size_t> starts;
  starts.reserve(s.size() + 1);
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) starts.push_back(i);
  }
  starts.push_back(s.size());
  return starts;
}

// concat(...), as DuckDB: NULL arguments are passed over (`||` makes NULL of them).
Result<Value> ConcatSkippingNullsRow(const Expr&, const std::vector<Value>& a) {
  std::string out;
  for (const auto& v : a) {
    if (!v.is_null()) out += v.s();
  }
  return Value::Str(std::move(out));
}

// concat_ws(separator, ...): the non-NULL arguments joined by the separator; NULL separator: NULL.
Result<Value> ConcatWsRow(const Expr&, const std::vector<Value>& a) {
  if (a[0].is_null()) return Value{};
  std::string out;
  bool first = true;
  for (size_t i = 1; i < a.size(); ++i) {
    if (a[i].is_null()) continue;
    if (!first) out += a[0].s();
    out += a[i].s();
    first = false;
  }
  return Value::Str(std::move(out));
}

// Functions of strings and integers: each argument a string or an integer as `kinds` says ('s',
// 'i'), the result a string ('s'), an integer ('i') or a boolean ('b') as the function's entry.
template <char Result_>
Result<DataType> CheckStringArgs(const ScalarFunction& f, std::vector<ExprPtr>& args,
                                 const std::string&) {
  // The arguments after the first string: strings, except the counts of the functions that take
  // one (lpad, rpad, left, right, repeat, split_part's index).
  const std::string_view n = f.name;
  for (size_t i = 0; i < args.size(); ++i) {
    const bool count =
        (i == 1 && (n == "lpad" || n == "rpad" || n == "left" || n == "right" || n == "repeat")) ||
        (i == 2 && n == "split_part");
    if (count) {
      FLOE_RETURN_IF_ERROR(ExpectType(args[i], IsIntegerType(args[i]->type), f.name, "an integer"));
    } else {
      FLOE_RETURN_IF_ERROR(ExpectType(args[i], IsStringType(args[i]->type), f.name, "a string"));
    }
  }
  if constexpr (Result_ == 'i') return columnar::Int64();
  if constexpr (Result_ == 'b') return columnar::Bool();
  return columnar::String();
}

// Whether `c` (one byte) is among `chars`.
bool Among(char c, const std::string& chars) { return chars.find(c) != std::string::npos; }

Result<Value> TrimRow(const Expr& e, const std::vector<Value>& a) {
  for (const auto& v : a) {
    if (v.is_null()) return Value{};
  }
  const std::string& s = a[0].s();
  const std::string chars = a.size() > 1 ? a[1].s() : std::string(" ");
  const std::string_view name = e.function->name;
  size_t b = 0, end = s.size();
  if (name != "rtrim") {
    while (b < end && Among(s[b], chars)) ++b;
  }
  if (name != "ltrim") {
    while (end > b && Among(s[end - 1], chars)) --end;
  }
  return Value::Str(s.substr(b, end - b));
}

Result<Value> ReplaceRow(const Expr&, const std::vector<Value>& a) {
  for (const auto& v : a) {
    if (v.is_null()) return Value{};
  }
  const std::string& s = a[0].s();
  const std::string& from = a[1].s();
  if (from.empty()) return a[0];
  std::string out;
  size_t at = 0;
  for (size_t hit = s.find(from); hit != std::string::npos; hit = s.find(from, at)) {
    out.append(s, at, hit - at);
    out += a[2].s();
    at = hit + from.size();
  }
  out.append(s, at, std::string::npos);
  return Value::Str(std::move(out));
}

// split_part(s, delimiter, index): the index-th part (1-based; negative counts from the end); ''
// when there is no such part.
Result<Value> SplitPartRow(const Expr&, const std::vector<Value>& a) {
  for (const auto& v : a) {
    if (v.is_null()) return Value{};
  }
  const std::string& s = a[0].s();
  const std::string& d = a[1].s();
  std::vector<std::string> parts;
  if (d.empty()) {
    parts.push_back(s);
  } else {
    size_t at = 0;
    for (size_t hit = s.find(d); hit != std::string::npos; hit = s.find(d, at)) {
      parts.push_back(s.substr(at, hit - at));
      at = hit + d.size();
    }
    parts.push_back(s.substr(at));
  }
  int64_t i = a[2].i();
  const auto n = static_cast<int64_t>(parts.size());
  if (i < 0) i = n + 1 + i;
  if (i < 1 || i > n) return Value::Str("");
  return Value::Str(parts[static_cast<size_t>(i - 1)]);
}

// lpad / rpad(s, n, fill): s cut or filled to n characters.
Result<Value> PadRow(const Expr& e, const std::vector<Value>& a) {
  for (const auto& v : a) {
    if (v.is_null()) return Value{};
  }
  const std::string& s = a[0].s();
  const int64_t n = std::max<int64_t>(0, a[1].i());
  const std::vector<size_t> starts = CharStarts(s);
  const auto chars = static_cast<int64_t>(starts.size() - 1);
  if (chars >= n) return Value::Str(s.substr(0, starts[static_cast<size_t>(n)]));
  const std::string& fill = a[2].s();
  const std::vector<size_t> fill_starts = CharStarts(fill);
  const auto fill_chars = static_cast<int64_t>(fill_starts.size() - 1);
  if (fill_chars == 0) {
    return InvalidInput("{}: the fill string is empty and '{}' is shorter than {}",
                        e.function->name, s, n);
  }
  std::string pad;
  for (int64_t k = 0; k < n - chars; ++k) {
    const size_t c = static_cast<size_t>(k % fill_chars);
    pad.append(fill, fill_starts[c], fill_starts[c + 1] - fill_starts[c]);
  }
  return Value::Str(e.function->name == "lpad" ? pad + s : s + pad);
}

// left / right(s, n): the first / last n characters; a negative n: all but the last / first -n.
Result<Value> SideRow(const Expr& e, const std::vector<Value>& a) {
  for (const auto& v : a) {
    if (v.is_null()) return Value{};
  }
  const std::string& s = a[0].s();
  const std::vector<size_t> starts = CharStarts(s);
  const auto chars = static_cast<int64_t>(starts.size() - 1);
  int64_t n = a[1].i();
  if (n < 0) n = std::max<int64_t>(0, chars + n);
  n = std::min(n, chars);
  if (e.function->name == "left") return Value::Str(s.substr(0, starts[static_cast<size_t>(n)]));
  return Value::Str(s.substr(starts[static_cast<size_t>(chars - n)]));
}

// strpos(s, sub): the character position (1-based) of sub's first occurrence, 0 when none.
Result<Value> StrposRow(const Expr&, const std::vector<Value>& a) {
  if (a[0].is_null() || a[1].is_null()) return Value{};
  const size_t at = a[0].s().find(a[1].s());
  if (at == std::string::npos) return Value::Int(0);
  int64_t chars = 0;
  for (size_t i = 0; i < at; ++i) chars += (static_cast<unsigned char>(a[0].s()[i]) & 0xC0) != 0x80;
  return Value::Int(chars + 1);
}

Result<Value> EndsWithRow(const Expr&, const std::vector<Value>& a) {
  if (a[0].is_null() || a[1].is_null()) return Value{};
  return Value::Bool(a[0].s().ends_with(a[1].s()));
}

Result<Value> ReverseRow(const Expr&, const std::vector<Value>& a) {
  if (a[0].is_null()) return Value{};
  const std::string& s = a[0].s();
  const std::vector<size_t> starts = CharStarts(s);
  std::string out;
  out.reserve(s.size());
  for (size_t c = starts.size() - 1; c > 0; --c) {
    out.append(s, starts[c - 1], starts[c] - starts[c - 1]);
  }
  return Value::Str(std::move(out));
}

Result<Value> RepeatRow(const Expr&, const std::vector<Value>& a) {
  if (a[0].is_null() || a[1].is_null()) return Value{};
  const int64_t n = std::max<int64_t>(0, a[1].i());
  if (static_cast<double>(a[0].s().size()) * static_cast<double>(n) > double{1 << 30}) {
    return InvalidInput("repeat: a string of more than 1 GiB");
  }
  std::string out;
  for (int64_t i = 0; i < n; ++i) out += a[0].s();
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

// The number of a call's argument that must be a constant integer (round's digits), or nullopt.
std::optional<int64_t> ConstantInt(const ExprPtr& e) {
  if (e->kind != Expr::Kind::kLiteral || e->value.is_null() || e->value.v.index() != 2) {
    return std::nullopt;
  }
  return e->value.i();
}

__int128 Pow10(int64_t n) {
  __int128 p = 1;
  for (int64_t i = 0; i < n; ++i) p *= 10;
  return p;
}

// x / d rounded half away from zero (d > 0).
__int128 DivRoundHalfAway(__int128 x, __int128 d) {
  const __int128 q = x / d;
  const __int128 r = x % d;
  if (2 * (r < 0 ? -r : r) >= d) return x < 0 ? q - 1 : q + 1;
  return q;
}

// round(x [, digits]), floor(x), ceil(x), as DuckDB types them: an integer stays an integer, a
// double a double, and a decimal a decimal of the scale the rounding leaves (round's digits when
// fewer than the scale and a constant, 0 for floor and ceil).
Result<DataType> CheckRounding(const ScalarFunction& f, std::vector<ExprPtr>& args,
                               const std::string&) {
  FLOE_RETURN_IF_ERROR(ExpectType(args[0], IsNumericType(args[0]->type), f.name, "a number"));
  if (args.size() > 1) {
    FLOE_RETURN_IF_ERROR(
        ExpectType(args[1], IsIntegerType(args[1]->type), f.name, "an integer number of digits"));
  }
  const DataType t = args[0]->type;
  if (IsNull(t)) return columnar::Float64();
  if (t.id != TypeId::kDecimal128) return t;
  if (f.name != "round") return columnar::Decimal128(t.precision, 0);
  if (args.size() == 1) return columnar::Decimal128(t.precision, 0);
  const std::optional<int64_t> digits = ConstantInt(args[1]);
  if (!digits) {
    // Digits that vary by row give varying scales: computed in double, as the value allows.
    FLOE_ASSIGN_OR_RETURN(args[0], CastTo(args[0], columnar::Float64()));
    return columnar::Float64();
  }
  return columnar::Decimal128(t.precision,
                              std::clamp<int32_t>(static_cast<int32_t>(*digits), 0, t.scale));
}

Result<Value> RoundingRow(const Expr& e, const std::vector<Value>& a) {
  for (const auto& v : a) {
    if (v.is_null()) return Value{};
  }
  const std::string_view name = e.function->name;
  const int64_t digits = a.size() > 1 ? a[1].i() : 0;
  switch (a[0].v.index()) {
    case 3: {  // double
      const double x = a[0].d();
      if (name == "floor") return Value::Double(std::floor(x));
      if (name == "ceil") return Value::Double(std::ceil(x));
      if (digits == 0) return Value::Double(std::round(x));
      const double p = std::pow(10.0, static_cast<double>(digits));
      const double r = std::round(x * p) / p;
      return Value::Double(std::isfinite(r) ? r : x);
    }
    case 2: {  // integer
      const int64_t x = a[0].i();
      if (name != "round" || digits >= 0) return Value::Int(x);
      if (digits < -18) return Value::Int(0);
      const auto p = static_cast<int64_t>(Pow10(-digits));
      const __int128 r = DivRoundHalfAway(x, p) * p;
      if (r > INT64_MAX || r < INT64_MIN) return InvalidInput("integer overflow in round");
      return Value::Int(static_cast<int64_t>(r));
    }
    default: {  // decimal, at the argument's scale; the result at the call's
      const int32_t from = e.args[0]->type.scale;
      const int32_t to = e.type.scale;
      const __int128 x = a[0].dec();
      Value out;
      if (name == "floor" || name == "ceil") {
        const __int128 p = Pow10(from);
        __int128 q = x / p;
        const __int128 r = x % p;
        if (name == "floor" && r < 0) --q;
        if (name == "ceil" && r > 0) ++q;
        out.v = q;
        return out;
      }
      if (digits >= from) {
        out.v = x;
        return out;
      }
      // To `digits` places (a negative count rounds left of the point), then at scale `to`.
      const int64_t drop = from - digits;
      if (drop > 38) {
        out.v = __int128{0};
        return out;
      }
      const __int128 rounded = DivRoundHalfAway(x, Pow10(drop));
      out.v = digits >= 0 ? rounded * Pow10(to - digits) : rounded * Pow10(-digits);
      return out;
    }
  }
}

Result<DataType> CheckSign(const ScalarFunction& f, std::vector<ExprPtr>& args,
                           const std::string&) {
  FLOE_RETURN_IF_ERROR(ExpectType(args[0], IsNumericType(args[0]->type), f.name, "a number"));
  return columnar::Int64();
}

Result<Value> SignRow(const Expr&, const std::vector<Value>& a) {
  if (a[0].is_null()) return Value{};
  switch (a[0].v.index()) {
    case 3:
      return Value::Int(a[0].d() > 0 ? 1 : a[0].d() < 0 ? -1 : 0);
    case 2:
      return Value::Int(a[0].i() > 0 ? 1 : a[0].i() < 0 ? -1 : 0);
    default:
      return Value::Int(a[0].dec() > 0 ? 1 : a[0].dec() < 0 ? -1 : 0);
  }
}

// Functions of doubles (sqrt, ln, exp, power, ...): every argument converted to double.
Result<DataType> CheckDoubles(const ScalarFunction& f, std::vector<ExprPtr>& args,
                              const std::string&) {
  for (auto& a : args) {
    FLOE_RETURN_IF_ERROR(ExpectType(a, IsNumericType(a->type), f.name, "a number"));
    FLOE_ASSIGN_OR_RETURN(a, CastTo(a, columnar::Float64()));
  }
  return columnar::Float64();
}

Result<Value> MathRow(const Expr& e, const std::vector<Value>& a) {
  for (const auto& v : a) {
    if (v.is_null()) return Value{};
  }
  const std::string_view name = e.function->name;
  const double x = a[0].d();
  if (name == "power") return Value::Double(std::pow(x, a[1].d()));
  if (name == "exp") return Value::Double(std::exp(x));
  if (name == "sqrt") {
    if (x < 0)
      return InvalidInput("sqrt: cannot take the square root of a negative number ({})", x);
    return Value::Double(std::sqrt(x));
  }
  if (name == "cbrt") return Value::Double(std::cbrt(x));
  // ln, log10, log2
  if (x == 0) return InvalidInput("{}: cannot take the logarithm of zero", name);
  if (x < 0)
    return InvalidInput("{}: cannot take the logarithm of a negative number ({})", name, x);
  if (name == "ln") return Value::Double(std::log(x));
  if (name == "log10") return Value::Double(std::log10(x));
  return Value::Double(std::log2(x));
}

// greatest / least: the arguments' common type; NULLs are passed over (NULL only when all are).
Result<DataType> CheckCommon(const ScalarFunction& f, std::vector<ExprPtr>& args,
                             const std::string&) {
  if (args.empty()) return InvalidInput("{} needs arguments", f.name);
  DataType t = args[0]->type;
  for (const auto& a : args) {
    FLOE_ASSIGN_OR_RETURN(t, CommonType(t, a->type));
  }
  for (auto& a : args) {
    FLOE_ASSIGN_OR_RETURN(a, CastTo(a, t));
  }
  return t;
}

Result<Value> ExtremeRow(const Expr& e, const std::vector<Value>& a) {
  const bool greatest = e.function->name == "greatest";
  const Value* best = nullptr;
  for (const auto& v : a) {
    if (v.is_null()) continue;
    if (best == nullptr) {
      best = &v;
      continue;
    }
    const int c = CompareValues(v, *best);
    if (greatest ? c > 0 : c < 0) best = &v;
  }
  return best == nullptr ? Value{} : *best;
}

Result<Value> NullIfRow(const Expr&, const std::vector<Value>& a) {
  if (a[0].is_null()) return Value{};
  if (!a[1].is_null() && CompareValues(a[0], a[1]) == 0) return Value{};
  return a[0];
}

// if(condition, then, else): a boolean, then the branches' common type.
Result<DataType> CheckIf(const ScalarFunction& f, std::vector<ExprPtr>& args, const std::string&) {
  FLOE_RETURN_IF_ERROR(
      ExpectType(args[0], args[0]->type.id == TypeId::kBool, f.name, "a boolean condition"));
  FLOE_ASSIGN_OR_RETURN(DataType t, CommonType(args[1]->type, args[2]->type));
  for (size_t i = 1; i < 3; ++i) {
    FLOE_ASSIGN_OR_RETURN(args[i], CastTo(args[i], t));
  }
  return t;
}

Result<Value> IfRow(const Expr&, const std::vector<Value>& a) {
  return !a[0].is_null() && a[0].b() ? a[1] : a[2];
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
       .kernel = SubstringKernel});
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
  // Numbers, as DuckDB computes them (Spark's names as aliases).
  for (std::string_view name : {"round", "floor", "ceil"}) {
    add({.name = name,
         .aliases = name == "ceil" ? std::vector<std::string_view>{"ceiling"}
                                   : std::vector<std::string_view>{},
         .min_args = 1,
         .max_args = name == "round" ? 2u : 1u,
         .check = CheckRounding,
         .kernel = RowKernel<RoundingRow>});
  }
  add({.name = "sign",
       .aliases = {"signum"},
       .min_args = 1,
       .max_args = 1,
       .check = CheckSign,
       .kernel = RowKernel<SignRow>});
  add({.name = "power",
       .aliases = {"pow"},
       .min_args = 2,
       .max_args = 2,
       .check = CheckDoubles,
       .kernel = RowKernel<MathRow>});
  for (std::string_view name : {"sqrt", "cbrt", "exp", "ln", "log10", "log2"}) {
    add({.name = name,
         .min_args = 1,
         .max_args = 1,
         .check = CheckDoubles,
         .kernel = RowKernel<MathRow>});
  }
  add({.name = "greatest", .min_args = 1, .check = CheckCommon, .kernel = RowKernel<ExtremeRow>});
  add({.name = "least", .min_args = 1, .check = CheckCommon, .kernel = RowKernel<ExtremeRow>});
  add({.name = "nullif",
       .min_args = 2,
       .max_args = 2,
       .check = CheckCommon,
       .kernel = RowKernel<NullIfRow>});
  add({.name = "if",
       .aliases = {"iff"},
       .min_args = 3,
       .max_args = 3,
       .check = CheckIf,
       .kernel = RowKernel<IfRow>});
  // Strings, as DuckDB computes them (characters are UTF-8 code points).
  add({.name = "concat",
       .min_args = 1,
       .check = CheckConcat,
       .kernel = RowKernel<ConcatSkippingNullsRow>});
  add({.name = "concat_ws", .min_args = 2, .check = CheckConcat, .kernel = RowKernel<ConcatWsRow>});
  for (std::string_view name : {"trim", "ltrim", "rtrim"}) {
    add({.name = name,
         .aliases = name == "trim" ? std::vector<std::string_view>{"btrim"}
                                   : std::vector<std::string_view>{},
         .min_args = 1,
         .max_args = 2,
         .check = CheckStringArgs<'s'>,
         .kernel = RowKernel<TrimRow>});
  }
  add({.name = "replace",
       .min_args = 3,
       .max_args = 3,
       .check = CheckStringArgs<'s'>,
       .kernel = RowKernel<ReplaceRow>});
  add({.name = "split_part",
       .min_args = 3,
       .max_args = 3,
       .check = CheckStringArgs<'s'>,
       .kernel = RowKernel<SplitPartRow>});
  for (std::string_view name : {"lpad", "rpad"}) {
    add({.name = name,
         .min_args = 3,
         .max_args = 3,
         .check = CheckStringArgs<'s'>,
         .kernel = RowKernel<PadRow>});
  }
  for (std::string_view name : {"left", "right"}) {
    add({.name = name,
         .min_args = 2,
         .max_args = 2,
         .check = CheckStringArgs<'s'>,
         .kernel = RowKernel<SideRow>});
  }
  add({.name = "strpos",
       .aliases = {"instr"},
       .min_args = 2,
       .max_args = 2,
       .check = CheckStringArgs<'i'>,
       .kernel = RowKernel<StrposRow>});
  add({.name = "ends_with",
       .aliases = {"suffix", "endswith"},
       .min_args = 2,
       .max_args = 2,
       .check = CheckStringArgs<'b'>,
       .kernel = RowKernel<EndsWithRow>});
  add({.name = "reverse",
       .min_args = 1,
       .max_args = 1,
       .check = CheckStringArgs<'s'>,
       .kernel = RowKernel<ReverseRow>});
  add({.name = "repeat",
       .min_args = 2,
       .max_args = 2,
       .check = CheckStringArgs<'s'>,
       .kernel = RowKernel<RepeatRow>});
  internal::AddDateFunctions(&r);
  internal::AddRegexpFunctions(&r);
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
