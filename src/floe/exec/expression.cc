#include "floe/exec/expression.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <utility>

#include "floe/base/calendar.h"
#include "floe/columnar/take.h"
#include "floe/exec/expression_internal.h"
#include "floe/exec/functions.h"

namespace floe::exec {

std::string_view FnName(Fn fn) {
  static constexpr std::string_view kNames[] = {
      "+",    "-",     "*",    "/",    "%",        "-",   "=",       "<>",          "<",
      "<=",   ">",     ">=",   "AND",  "OR",       "NOT", "IS NULL", "IS NOT NULL", "IN",
      "LIKE", "ILIKE", "CASE", "CAST", "TRY_CAST", ".",   "function"};
  return kNames[static_cast<int>(fn)];
}

std::string_view CallName(const Expr& call) {
  if (call.fn == Fn::kFunction && call.function != nullptr) return call.function->name;
  return FnName(call.fn);
}

std::string Expr::ToString() const {
  switch (kind) {
    case Kind::kColumn:
      return fmt::format("#{}", column);
    case Kind::kLiteral:
      return fmt::format("{}:{}", ValueToText(value, type), type.ToString());
    case Kind::kCall: {
      std::string out = fmt::format("{}[{}|{}](", CallName(*this), text, type.ToString());
      for (size_t i = 0; i < args.size(); ++i) {
        if (i) out += ",";
        out += args[i]->ToString();
      }
      return out + ")";
    }
  }
  return "?";
}

ExprPtr ColumnRef(int index, DataType type, std::string name) {
  auto e = std::make_shared<Expr>();
  e->kind = Expr::Kind::kColumn;
  e->column = index;
  e->type = std::move(type);
  e->name = std::move(name);
  return e;
}

ExprPtr Constant(Value value, DataType type) {
  auto e = std::make_shared<Expr>();
  e->kind = Expr::Kind::kLiteral;
  e->value = std::move(value);
  e->type = std::move(type);
  return e;
}

namespace internal {

std::string TypeWord(const DataType& t) {
  switch (t.id) {
    case TypeId::kInt64:
      return "integer";
    case TypeId::kFloat64:
      return "double";
    case TypeId::kString:
      return "string";
    case TypeId::kDate32:
      return "date";
    case TypeId::kTimestamp:
      return "timestamp";
    case TypeId::kBool:
      return "boolean";
    case TypeId::kDecimal128:
      return "decimal";
    case TypeId::kNull:
      return "NULL";
    default:
      return t.ToString();
  }
}

bool IsNull(const DataType& t) { return t.id == TypeId::kNull; }
bool IsStringLiteral(const ExprPtr& e) {
  return e->kind == Expr::Kind::kLiteral && e->type.id == TypeId::kString;
}

// The type a cast node converts to: its own, or the narrower integer named in `text`.
DataType CastTarget(const Expr& e) {
  if (e.text == "int8") return columnar::Int8();
  if (e.text == "int16") return columnar::Int16();
  if (e.text == "int32") return columnar::Int32();
  return e.type;
}

ExprPtr MakeNode(Fn fn, DataType type, std::vector<ExprPtr> args, std::string text) {
  auto e = std::make_shared<Expr>();
  e->kind = Expr::Kind::kCall;
  e->fn = fn;
  e->type = std::move(type);
  e->args = std::move(args);
  e->text = std::move(text);
  return e;
}

Result<ExprPtr> CastTo(ExprPtr e, const DataType& to) {
  if (e->type == to || IsNull(e->type)) {
    if (IsNull(e->type) && e->kind == Expr::Kind::kLiteral) return Constant(Value{}, to);
    return e;
  }
  return MakeCast(std::move(e), to);
}

// +, - and * of decimals (an integer counting as a decimal of scale 0) stay exact, as in DuckDB:
// the sum's scale is the larger one, the product's the sum of both, precision up to 38. The type,
// or nothing when the operation is done in doubles (division, a double operand, a scale beyond 38).
std::optional<DataType> DecimalResult(Fn fn, const DataType& a, const DataType& b) {
  if (fn != Fn::kAdd && fn != Fn::kSub && fn != Fn::kMul) return std::nullopt;
  const bool da = a.id == TypeId::kDecimal128, db = b.id == TypeId::kDecimal128;
  if (!da && !db) return std::nullopt;
  auto digits = [](const DataType& t) -> std::optional<std::pair<int32_t, int32_t>> {
    if (t.id == TypeId::kDecimal128) return std::make_pair(t.precision, t.scale);
    if (t.id == TypeId::kInt64 || t.id == TypeId::kNull) return std::make_pair(19, 0);
    return std::nullopt;
  };
  auto x = digits(a), y = digits(b);
  if (!x || !y) return std::nullopt;
  int32_t p = 0, sc = 0;
  if (fn == Fn::kMul) {
    sc = x->second + y->second;
    p = x->first + y->first;
  } else {
    sc = std::max(x->second, y->second);
    p = std::max(x->first - x->second, y->first - y->second) + sc + 1;
  }
  if (sc > 38) return std::nullopt;
  return columnar::Decimal128(std::min(p, 38), sc);
}

// A decimal or integer literal's unscaled value at `to` (a decimal of that precision and scale, or
// an integer) when it is exactly that -- 0.050 is 5 at scale 2, 24 is 2400 -- else nullopt.
std::optional<Value> ExactAt(const Expr& lit, const DataType& to) {
  if (lit.kind != Expr::Kind::kLiteral || lit.value.is_null()) return std::nullopt;
  __int128 u = 0;
  int32_t scale = 0;
  if (lit.type.id == TypeId::kInt64 && lit.value.v.index() == 2) {
    u = lit.value.i();
  } else if (lit.type.id == TypeId::kDecimal128 && lit.value.v.index() == 5) {
    u = lit.value.dec();
    scale = lit.type.scale;
  } else {
    return std::nullopt;
  }
  const int32_t want = to.id == TypeId::kDecimal128 ? to.scale : 0;
  constexpr __int128 kLimit = static_cast<__int128>(1000000000000000000LL) * 100000000000000000LL;
  for (; scale < want; ++scale) {
    if (u >= kLimit || u <= -kLimit) return std::nullopt;  // beyond 38 digits
    u *= 10;
  }
  for (; scale > want; --scale) {
    if (u % 10 != 0) return std::nullopt;
    u /= 10;
  }
  if (to.id == TypeId::kInt64) {
    if (u > INT64_MAX || u < INT64_MIN) return std::nullopt;
    return Value::Int(static_cast<int64_t>(u));
  }
  __int128 bound = 1;
  for (int32_t k = 0; k < to.precision; ++k) bound *= 10;
  if (u >= bound || u <= -bound) return std::nullopt;
  return Value{u};
}

// Exact numbers (decimals, and integers as decimals of scale 0) compare exactly, as in DuckDB. A
// literal that the other side's type holds exactly becomes that type, so the other side is
// compared as it is (`price < 24`, `discount >= 0.05` on a decimal(15,2) column: no cast of the
// column, and a filter the scan can take); otherwise both sides widen to the decimal type that
// holds either. False (nothing changed) when a side is not exact or that type would pass 38
// digits.
Result<bool> UnifyExact(ExprPtr* a, ExprPtr* b) {
  auto exact_type = [](const Expr& e) -> std::optional<DataType> {
    if (e.type.id == TypeId::kDecimal128) return e.type;
    if (e.type.id != TypeId::kInt64) return std::nullopt;
    int32_t digits = 19;
    if (e.kind == Expr::Kind::kLiteral && e.value.v.index() == 2) {
      // A literal counts its own digits: 24 is a decimal(2, 0), not a decimal(19, 0).
      digits = static_cast<int32_t>(fmt::format("{}", e.value.i()).size()) - (e.value.i() < 0);
    }
    return columnar::Decimal128(digits, 0);
  };
  const std::optional<DataType> ta = exact_type(**a), tb = exact_type(**b);
  if (!ta || !tb) return false;
  for (auto [lit, other] : {std::pair{a, b}, std::pair{b, a}}) {
    if (auto v = ExactAt(**lit, (*other)->type)) {
      *lit = Constant(std::move(*v), (*other)->type);
      return true;
    }
  }
  const int32_t scale = std::max(ta->scale, tb->scale);
  const int32_t whole = std::max(ta->precision - ta->scale, tb->precision - tb->scale);
  if (whole + scale > 38) return false;
  const DataType common = columnar::Decimal128(whole + scale, scale);
  FLOE_ASSIGN_OR_RETURN(*a, CastTo(*a, common));
  FLOE_ASSIGN_OR_RETURN(*b, CastTo(*b, common));
  return true;
}

// Makes two operands comparable: string constants become the other side's type, exact numbers
// compare exactly (UnifyExact), other mixes of numbers as doubles, dates meet timestamps as
// timestamps.
Status Unify(ExprPtr* a, ExprPtr* b, std::string_view what) {
  const DataType& ta = (*a)->type;
  const DataType& tb = (*b)->type;
  if (IsNull(ta) || IsNull(tb)) return {};
  if (ta == tb && ta.id != TypeId::kDecimal128) return {};
  if (IsStringLiteral(*a) && !IsStringType(tb)) {
    FLOE_ASSIGN_OR_RETURN(*a, CastTo(*a, tb.id == TypeId::kDecimal128 ? columnar::Float64() : tb));
    return Unify(a, b, what);
  }
  if (IsStringLiteral(*b) && !IsStringType(ta)) {
    FLOE_ASSIGN_OR_RETURN(*b, CastTo(*b, ta.id == TypeId::kDecimal128 ? columnar::Float64() : ta));
    return Unify(a, b, what);
  }
  if (IsNumericType(ta) && IsNumericType(tb)) {
    if (ta.id == TypeId::kInt64 && tb.id == TypeId::kInt64) return {};
    if (ta.id == TypeId::kDecimal128 && tb == ta) return {};
    FLOE_ASSIGN_OR_RETURN(bool exact, UnifyExact(a, b));
    if (exact) return {};
    FLOE_ASSIGN_OR_RETURN(*a, CastTo(*a, columnar::Float64()));
    FLOE_ASSIGN_OR_RETURN(*b, CastTo(*b, columnar::Float64()));
    return {};
  }
  if (IsTemporalType(ta) && IsTemporalType(tb) && ta.id != TypeId::kTime64 &&
      tb.id != TypeId::kTime64) {
    DataType ts = ta.id == TypeId::kTimestamp ? ta : tb;
    FLOE_ASSIGN_OR_RETURN(*a, CastTo(*a, ts));
    FLOE_ASSIGN_OR_RETURN(*b, CastTo(*b, ts));
    return {};
  }
  if (ta.id == tb.id) return {};  // timestamps differing only in zone, binaries
  return InvalidInput("type mismatch: cannot {} {} with {}", what, TypeWord(ta), TypeWord(tb));
}

Status ExpectType(const ExprPtr& e, bool ok, std::string_view fn, std::string_view wanted) {
  if (ok || IsNull(e->type)) return {};
  return InvalidInput("type mismatch: {} expects {}, got {}", fn, wanted, TypeWord(e->type));
}

}  // namespace internal

namespace {

using internal::CastTarget;
using internal::CastTo;
using internal::IsNull;
using internal::IsStringLiteral;
using internal::MakeNode;
using internal::TypeWord;
using internal::Unify;

Status ExpectType(const ExprPtr& e, bool ok, Fn fn, std::string_view wanted) {
  return internal::ExpectType(e, ok, FnName(fn), wanted);
}

}  // namespace

Result<DataType> CommonType(const DataType& a, const DataType& b) {
  if (IsNull(a)) return b;
  if (IsNull(b)) return a;
  if (a == b) return a;
  if (IsNumericType(a) && IsNumericType(b)) return columnar::Float64();
  if (IsTemporalType(a) && IsTemporalType(b) && a.id != TypeId::kTime64 &&
      b.id != TypeId::kTime64) {
    return a.id == TypeId::kTimestamp ? a : b;
  }
  if (a.id == b.id) return a;
  return InvalidInput("type mismatch: {} and {} have no common type", TypeWord(a), TypeWord(b));
}

Result<ExprPtr> MakeCast(ExprPtr arg, const DataType& declared, bool null_on_failure) {
  // A cast to a narrower integer computes an int64 checked against the declared type's range;
  // the node keeps that type's name in `text`.
  const DataType to = IsNarrowInteger(declared) ? columnar::Int64() : declared;
  const std::string range = IsNarrowInteger(declared) ? declared.ToString() : "";
  if (arg->type == to && range.empty()) return arg;
  const DataType& from = arg->type;
  bool ok =
      IsNull(from) || to.id == TypeId::kString ||
      (IsNumericType(from) && (IsNumericType(to) || to.id == TypeId::kBool)) ||
      (from.id == TypeId::kBool && IsNumericType(to)) ||
      (IsStringType(from) && (IsNumericType(to) || IsTemporalType(to) || to.id == TypeId::kBool)) ||
      (from.id == TypeId::kDate32 && to.id == TypeId::kTimestamp) ||
      (from.id == TypeId::kTimestamp && (to.id == TypeId::kDate32 || to.id == TypeId::kTimestamp));
  if (!ok) return InvalidInput("type mismatch: cannot cast {} to {}", TypeWord(from), TypeWord(to));
  auto node = MakeNode(null_on_failure ? Fn::kTryCast : Fn::kCast, to, {arg}, range);
  if (arg->kind == Expr::Kind::kLiteral) {
    Result<Value> v = CastValue(arg->value, from, declared);
    if (!v && null_on_failure) return Constant(Value{}, to);
    if (!v) return std::unexpected(v.error());
    return Constant(std::move(*v), to);
  }
  return node;
}

Result<ExprPtr> MakeCall(Fn fn, std::vector<ExprPtr> args, std::string text) {
  auto arity = [&](size_t lo, size_t hi) -> Status {
    if (args.size() < lo || args.size() > hi) {
      return InvalidInput("{} takes {} arguments, got {}", FnName(fn),
                          lo == hi ? std::to_string(lo) : fmt::format("{} to {}", lo, hi),
                          args.size());
    }
    return {};
  };
  switch (fn) {
    case Fn::kAdd:
    case Fn::kSub:
    case Fn::kMul:
    case Fn::kDiv:
    case Fn::kMod: {
      FLOE_RETURN_IF_ERROR(arity(2, 2));
      const DataType& a = args[0]->type;
      const DataType& b = args[1]->type;
      // date +/- integer days, date - date
      if ((fn == Fn::kAdd || fn == Fn::kSub) && a.id == TypeId::kDate32 &&
          (b.id == TypeId::kInt64 || IsNull(b))) {
        return MakeNode(fn, a, std::move(args));
      }
      if (fn == Fn::kSub && a.id == TypeId::kDate32 && b.id == TypeId::kDate32) {
        return MakeNode(fn, columnar::Int64(), std::move(args));
      }
      for (auto& x : args) {
        if (IsStringLiteral(x)) {
          FLOE_ASSIGN_OR_RETURN(x, CastTo(x, columnar::Float64()));
        }
        if (!IsNumericType(x->type) && !IsNull(x->type)) {
          return InvalidInput("type mismatch: cannot apply {} to {} and {}", FnName(fn),
                              TypeWord(args[0]->type), TypeWord(args[1]->type));
        }
      }
      if (auto exact = internal::DecimalResult(fn, args[0]->type, args[1]->type)) {
        return MakeNode(fn, *exact, std::move(args));
      }
      for (auto& x : args) {
        if (x->type.id == TypeId::kDecimal128) {
          FLOE_ASSIGN_OR_RETURN(x, CastTo(x, columnar::Float64()));
        }
      }
      bool ints = (args[0]->type.id == TypeId::kInt64 || IsNull(args[0]->type)) &&
                  (args[1]->type.id == TypeId::kInt64 || IsNull(args[1]->type));
      DataType out = ints && fn != Fn::kDiv ? columnar::Int64() : columnar::Float64();
      if (!ints) {
        for (auto& x : args) {
          FLOE_ASSIGN_OR_RETURN(x, CastTo(x, columnar::Float64()));
        }
      }
      return MakeNode(fn, out, std::move(args));
    }
    case Fn::kStructField: {
      FLOE_RETURN_IF_ERROR(arity(1, 1));
      const DataType& t = args[0]->type;
      if (t.id != TypeId::kStruct) {
        return InvalidInput("cannot take field '{}' of {} (not a struct)", text, t.ToString());
      }
      for (const auto& c : t.children) {
        if (c.name == text) {
          return MakeNode(fn, NormalizedType(c.type), std::move(args), std::move(text));
        }
      }
      auto lower = [](std::string v) {
        for (char& ch : v) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        return v;
      };
      for (const auto& c : t.children) {
        if (lower(c.name) == lower(text)) {
          return MakeNode(fn, NormalizedType(c.type), std::move(args), c.name);
        }
      }
      std::string known;
      for (const auto& c : t.children) known += (known.empty() ? "" : ", ") + c.name;
      return MakeError(ErrorKind::kNotFound, fmt::format("struct {} has no field '{}' (fields: {})",
                                                         t.ToString(), text, known));
    }
    case Fn::kNeg: {
      FLOE_RETURN_IF_ERROR(arity(1, 1));
      FLOE_RETURN_IF_ERROR(ExpectType(args[0], IsNumericType(args[0]->type), fn, "a number"));
      DataType t = IsNull(args[0]->type) ? columnar::Int64() : args[0]->type;
      return MakeNode(fn, t, std::move(args));
    }
    case Fn::kEq:
    case Fn::kNotEq:
    case Fn::kLt:
    case Fn::kLtEq:
    case Fn::kGt:
    case Fn::kGtEq: {
      FLOE_RETURN_IF_ERROR(arity(2, 2));
      FLOE_RETURN_IF_ERROR(Unify(args.data(), &args[1], "compare"));
      if (args[0]->type.id == TypeId::kDecimal128 && args[0]->type != args[1]->type) {
        FLOE_ASSIGN_OR_RETURN(args[0], CastTo(args[0], columnar::Float64()));
        FLOE_ASSIGN_OR_RETURN(args[1], CastTo(args[1], columnar::Float64()));
      }
      return MakeNode(fn, columnar::Bool(), std::move(args));
    }
    case Fn::kIn: {
      if (args.size() < 2) return InvalidInput("IN needs at least one value");
      for (size_t i = 1; i < args.size(); ++i) {
        ExprPtr probe = args[0];
        FLOE_RETURN_IF_ERROR(Unify(&probe, &args[i], "compare"));
        if (probe != args[0]) {
          // The probe would need converting (int column IN (1.5)): compare as the element type.
          FLOE_ASSIGN_OR_RETURN(args[i], CastTo(args[i], probe->type));
          if (probe->type != args[0]->type) {
            // Widen the probe instead; every element then follows.
            args[0] = probe;
            for (size_t k = 1; k < i; ++k) {
              FLOE_ASSIGN_OR_RETURN(args[k], CastTo(args[k], probe->type));
            }
          }
        }
        if (args[i]->type != args[0]->type && !IsNull(args[i]->type) && !IsNull(args[0]->type)) {
          FLOE_ASSIGN_OR_RETURN(args[i], CastTo(args[i], args[0]->type));
        }
      }
      auto in = std::const_pointer_cast<Expr>(MakeNode(fn, columnar::Bool(), std::move(args)));
      in->integer_set = IntegerSet::Of(*in);  // the node is new: no one else holds it yet
      return ExprPtr(std::move(in));
    }
    case Fn::kAnd:
    case Fn::kOr:
    case Fn::kNot: {
      FLOE_RETURN_IF_ERROR(fn == Fn::kNot ? arity(1, 1) : arity(2, 2));
      for (const auto& a : args) {
        FLOE_RETURN_IF_ERROR(ExpectType(a, a->type.id == TypeId::kBool, fn, "a boolean"));
      }
      return MakeNode(fn, columnar::Bool(), std::move(args));
    }
    case Fn::kIsNull:
    case Fn::kIsNotNull:
      FLOE_RETURN_IF_ERROR(arity(1, 1));
      return MakeNode(fn, columnar::Bool(), std::move(args));
    case Fn::kLike:
    case Fn::kILike:
      FLOE_RETURN_IF_ERROR(arity(2, 2));
      for (const auto& a : args) {
        FLOE_RETURN_IF_ERROR(ExpectType(a, IsStringType(a->type), fn, "strings"));
      }
      return MakeNode(fn, columnar::Bool(), std::move(args));
    case Fn::kCase: {
      if (args.size() < 3 || args.size() % 2 == 0) return Internal("CASE arity {}", args.size());
      DataType t = columnar::DataType{};
      for (size_t i = 0; i + 1 < args.size(); i += 2) {
        FLOE_RETURN_IF_ERROR(
            ExpectType(args[i], args[i]->type.id == TypeId::kBool, fn, "boolean conditions"));
        FLOE_ASSIGN_OR_RETURN(t, CommonType(t, args[i + 1]->type));
      }
      FLOE_ASSIGN_OR_RETURN(t, CommonType(t, args.back()->type));
      for (size_t i = 1; i < args.size(); i += 2) {
        FLOE_ASSIGN_OR_RETURN(args[i], CastTo(args[i], t));
      }
      FLOE_ASSIGN_OR_RETURN(args.back(), CastTo(args.back(), t));
      return MakeNode(fn, t, std::move(args));
    }
    case Fn::kCast:
    case Fn::kTryCast:
      FLOE_RETURN_IF_ERROR(arity(1, 1));
      return Internal("use MakeCast");
    case Fn::kFunction:
      return Internal("a function is called through its registry entry");
  }
  return Internal("unknown function");
}

Result<ExprPtr> MakeCall(const ScalarFunction& function, std::vector<ExprPtr> args,
                         std::string text) {
  const size_t lo = function.min_args, hi = function.max_args;
  if (hi != ScalarFunction::kVariadic && (args.size() < lo || args.size() > hi)) {
    return InvalidInput("{} takes {} arguments, got {}", function.name,
                        lo == hi ? std::to_string(lo) : fmt::format("{} to {}", lo, hi),
                        args.size());
  }
  FLOE_ASSIGN_OR_RETURN(DataType type, function.check(function, args, text));
  auto e = std::make_shared<Expr>();
  e->kind = Expr::Kind::kCall;
  e->fn = Fn::kFunction;
  e->function = &function;
  e->type = std::move(type);
  e->args = std::move(args);
  e->text = std::move(text);
  return ExprPtr(std::move(e));
}

bool LikeMatch(std::string_view s, std::string_view p) {
  // Iterative matcher with single backtrack point for '%'.
  size_t si = 0, pi = 0, star = std::string_view::npos, mark = 0;
  while (si < s.size()) {
    if (pi < p.size() && p[pi] == '\\' && pi + 1 < p.size()) {
      if (s[si] == p[pi + 1]) {
        si++;
        pi += 2;
        continue;
      }
    } else if (pi < p.size() && (p[pi] == '_' || (p[pi] != '%' && p[pi] == s[si]))) {
      si++;
      pi++;
      continue;
    } else if (pi < p.size() && p[pi] == '%') {
      star = pi++;
      mark = si;
      continue;
    }
    if (star != std::string_view::npos) {
      pi = star + 1;
      si = ++mark;
      continue;
    }
    return false;
  }
  while (pi < p.size() && p[pi] == '%') pi++;
  return pi == p.size();
}

namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// 10^n for n <= 38.
__int128 Pow10(int32_t n) {
  __int128 p = 1;
  for (int32_t i = 0; i < n; ++i) p *= 10;
  return p;
}

// Decimal +, - and * on unscaled values (an integer argument at scale 0), the result at `type`'s
// scale; a result beyond 38 digits is an overflow error.
Result<Value> DecimalArith(Fn fn, const DataType& type, const Expr& ea, const Value& a,
                           const Expr& eb, const Value& b) {
  auto unscaled = [](const Expr& e, const Value& v) -> std::pair<__int128, int32_t> {
    if (e.type.id == TypeId::kDecimal128) return {v.dec(), e.type.scale};
    return {static_cast<__int128>(v.i()), 0};
  };
  auto [x, sx] = unscaled(ea, a);
  auto [y, sy] = unscaled(eb, b);
  __int128 r = 0;
  bool overflow = false;
  if (fn == Fn::kMul) {
    overflow = __builtin_mul_overflow(x, y, &r);
  } else {
    overflow =
        __builtin_mul_overflow(x, Pow10(type.scale - sx), &x) ||
        __builtin_mul_overflow(y, Pow10(type.scale - sy), &y) ||
        (fn == Fn::kAdd ? __builtin_add_overflow(x, y, &r) : __builtin_sub_overflow(x, y, &r));
  }
  const __int128 limit = Pow10(38);
  if (overflow || r >= limit || r <= -limit) {
    return InvalidInput("decimal overflow in {}: the result needs more than 38 digits", FnName(fn));
  }
  Value out;
  out.v = r;
  return out;
}

Result<Value> Arith(Fn fn, const DataType& type, const Value& a, const Value& b) {
  if (a.is_null() || b.is_null()) return Value{};
  if (type.id == TypeId::kFloat64) {
    double x = a.d(), y = b.d();
    switch (fn) {
      case Fn::kAdd:
        return Value::Double(x + y);
      case Fn::kSub:
        return Value::Double(x - y);
      case Fn::kMul:
        return Value::Double(x * y);
      case Fn::kDiv:
        if (y == 0) return InvalidInput("division by zero");
        return Value::Double(x / y);
      case Fn::kMod:
        if (y == 0) return InvalidInput("division by zero");
        return Value::Double(std::fmod(x, y));
      default:
        break;
    }
  } else {
    int64_t x = a.i(), y = b.i(), r = 0;
    switch (fn) {
      case Fn::kAdd:
        if (__builtin_add_overflow(x, y, &r))
          return InvalidInput("integer overflow in {} + {}", x, y);
        return Value::Int(r);
      case Fn::kSub:
        if (__builtin_sub_overflow(x, y, &r))
          return InvalidInput("integer overflow in {} - {}", x, y);
        return Value::Int(r);
      case Fn::kMul:
        if (__builtin_mul_overflow(x, y, &r))
          return InvalidInput("integer overflow in {} * {}", x, y);
        return Value::Int(r);
      case Fn::kMod:
        if (y == 0) return InvalidInput("division by zero");
        if (y == -1) return Value::Int(0);
        return Value::Int(x % y);
      default:
        break;
    }
  }
  return Internal("bad arithmetic");
}

using internal::CompareResult;

// One row of a call, from its argument values.
Result<Value> EvalScalar(const Expr& e, const std::vector<Value>& a) {
  switch (e.fn) {
    case Fn::kStructField:
      return Internal("a struct field is evaluated by column");
    case Fn::kAdd:
    case Fn::kSub:
    case Fn::kMul:
    case Fn::kDiv:
    case Fn::kMod: {
      if (a[0].is_null() || a[1].is_null()) return Value{};
      if (e.args[0]->type.id == TypeId::kDate32) {
        if (e.args[1]->type.id == TypeId::kDate32) return Value::Int(a[0].i() - a[1].i());
        return Value::Int(e.fn == Fn::kAdd ? a[0].i() + a[1].i() : a[0].i() - a[1].i());
      }
      if (e.fn == Fn::kDiv) {
        double x = a[0].v.index() == 2 ? static_cast<double>(a[0].i()) : a[0].d();
        double y = a[1].v.index() == 2 ? static_cast<double>(a[1].i()) : a[1].d();
        if (y == 0) return InvalidInput("division by zero");
        return Value::Double(x / y);
      }
      if (e.type.id == TypeId::kDecimal128) {
        return DecimalArith(e.fn, e.type, *e.args[0], a[0], *e.args[1], a[1]);
      }
      return Arith(e.fn, e.type, a[0], a[1]);
    }
    case Fn::kNeg:
      if (a[0].is_null()) return Value{};
      if (a[0].v.index() == 3) return Value::Double(-a[0].d());
      if (a[0].v.index() == 5) {
        Value out;
        out.v = -a[0].dec();
        return out;
      }
      if (a[0].i() == INT64_MIN) return InvalidInput("integer overflow in {}", FnName(e.fn));
      return Value::Int(-a[0].i());
    case Fn::kEq:
    case Fn::kNotEq:
    case Fn::kLt:
    case Fn::kLtEq:
    case Fn::kGt:
    case Fn::kGtEq:
      if (a[0].is_null() || a[1].is_null()) return Value{};
      return Value::Bool(CompareResult(e.fn, CompareValues(a[0], a[1])));
    case Fn::kIn: {
      if (a[0].is_null()) return Value{};
      bool saw_null = false;
      for (size_t i = 1; i < a.size(); ++i) {
        if (a[i].is_null()) {
          saw_null = true;
        } else if (CompareValues(a[0], a[i]) == 0) {
          return Value::Bool(true);
        }
      }
      return saw_null ? Value{} : Value::Bool(false);
    }
    case Fn::kAnd: {
      bool f0 = !a[0].is_null() && !a[0].b(), f1 = !a[1].is_null() && !a[1].b();
      if (f0 || f1) return Value::Bool(false);
      if (a[0].is_null() || a[1].is_null()) return Value{};
      return Value::Bool(true);
    }
    case Fn::kOr: {
      bool t0 = !a[0].is_null() && a[0].b(), t1 = !a[1].is_null() && a[1].b();
      if (t0 || t1) return Value::Bool(true);
      if (a[0].is_null() || a[1].is_null()) return Value{};
      return Value::Bool(false);
    }
    case Fn::kNot:
      if (a[0].is_null()) return Value{};
      return Value::Bool(!a[0].b());
    case Fn::kIsNull:
      return Value::Bool(a[0].is_null());
    case Fn::kIsNotNull:
      return Value::Bool(!a[0].is_null());
    case Fn::kLike:
      if (a[0].is_null() || a[1].is_null()) return Value{};
      return Value::Bool(LikeMatch(a[0].s(), a[1].s()));
    case Fn::kILike:
      if (a[0].is_null() || a[1].is_null()) return Value{};
      return Value::Bool(LikeMatch(Lower(a[0].s()), Lower(a[1].s())));
    case Fn::kCase:
      for (size_t i = 0; i + 1 < a.size(); i += 2) {
        if (!a[i].is_null() && a[i].b()) return a[i + 1];
      }
      return a.back();
    case Fn::kCast:
      return CastValue(a[0], e.args[0]->type, CastTarget(e));
    case Fn::kTryCast: {
      Result<Value> v = CastValue(a[0], e.args[0]->type, CastTarget(e));
      return v ? std::move(*v) : Value{};
    }
    case Fn::kFunction:
      return Internal("a function is evaluated by its kernel");
  }
  return Internal("unknown function");
}

// A binary operation's validity: a row is valid where both inputs are (no bitmap when none is
// null).
void ValidWhereBoth(const columnar::Column& a, const columnar::Column& b, columnar::Column* c) {
  if (a.null_count == 0 && b.null_count == 0) return;
  const int64_t n = c->length;
  std::vector<uint8_t> bits(columnar::BitmapBytes(n), 0);
  int64_t nulls = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (a.IsValid(i) && b.IsValid(i)) {
      columnar::SetBit(bits.data(), i);
    } else {
      ++nulls;
    }
  }
  c->null_count = nulls;
  if (nulls) c->validity = Buffer(std::move(bits));
}

// Fast paths: typed loops for the calls that dominate filters and aggregates' inputs.
template <typename T, typename Op>
ColumnPtr BinaryLoop(const columnar::Column& a, const columnar::Column& b, DataType out_type,
                     Op op) {
  int64_t n = a.length;
  const T* x = a.Values<T>();
  const T* y = b.Values<T>();
  auto c = std::make_shared<columnar::Column>();
  c->type = std::move(out_type);
  c->length = n;
  ValidWhereBoth(a, b, c.get());
  using R = decltype(op(T{}, T{}));
  if constexpr (std::is_same_v<R, bool>) {
    std::vector<uint8_t> out(columnar::BitmapBytes(n), 0);
    for (int64_t i = 0; i < n; ++i) {
      if (op(x[i], y[i])) columnar::SetBit(out.data(), i);
    }
    c->values = Buffer(std::move(out));
  } else {
    std::vector<uint8_t> out(n * sizeof(R));
    R* o = reinterpret_cast<R*>(out.data());
    for (int64_t i = 0; i < n; ++i) o[i] = op(x[i], y[i]);
    c->values = Buffer(std::move(out));
  }
  return c;
}

template <typename T>
ColumnPtr CompareLoop(Fn fn, const columnar::Column& a, const columnar::Column& b) {
  switch (fn) {
    case Fn::kEq:
      return BinaryLoop<T>(a, b, columnar::Bool(), [](T x, T y) { return x == y; });
    case Fn::kNotEq:
      return BinaryLoop<T>(a, b, columnar::Bool(), [](T x, T y) { return x != y; });
    case Fn::kLt:
      return BinaryLoop<T>(a, b, columnar::Bool(), [](T x, T y) { return x < y; });
    case Fn::kLtEq:
      return BinaryLoop<T>(a, b, columnar::Bool(), [](T x, T y) { return x <= y; });
    case Fn::kGt:
      return BinaryLoop<T>(a, b, columnar::Bool(), [](T x, T y) { return x > y; });
    default:
      return BinaryLoop<T>(a, b, columnar::Bool(), [](T x, T y) { return x >= y; });
  }
}

bool IsComparison(Fn fn) { return fn >= Fn::kEq && fn <= Fn::kGtEq; }

// A comparison of two columns row by row through `cmp(i)` (CompareValues' sign for row i): a
// Boolean column, NULL where either side is. The loop for types without a typed one.
template <typename Cmp>
ColumnPtr CompareRows(Fn fn, const columnar::Column& a, const columnar::Column& b, Cmp cmp) {
  const int64_t n = a.length;
  auto c = std::make_shared<columnar::Column>();
  c->type = columnar::Bool();
  c->length = n;
  std::vector<uint8_t> out(static_cast<size_t>(columnar::BitmapBytes(n)), 0);
  if (a.null_count > 0 || b.null_count > 0) {
    std::vector<uint8_t> bits(static_cast<size_t>(columnar::BitmapBytes(n)), 0);
    int64_t nulls = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (!a.IsValid(i) || !b.IsValid(i)) {
        ++nulls;
        continue;
      }
      columnar::SetBit(bits.data(), i);
      if (CompareResult(fn, cmp(i))) columnar::SetBit(out.data(), i);
    }
    c->null_count = nulls;
    if (nulls) c->validity = Buffer(std::move(bits));
  } else {
    for (int64_t i = 0; i < n; ++i) {
      if (CompareResult(fn, cmp(i))) columnar::SetBit(out.data(), i);
    }
  }
  c->values = Buffer(std::move(out));
  return c;
}

// SQL's three-valued AND / OR of two Boolean columns: AND is false where either side is false and
// NULL where neither is false but one is NULL; OR the same with true.
ColumnPtr LogicalLoop(bool is_and, const columnar::Column& a, const columnar::Column& b) {
  const int64_t n = a.length;
  auto c = std::make_shared<columnar::Column>();
  c->type = columnar::Bool();
  c->length = n;
  std::vector<uint8_t> out(static_cast<size_t>(columnar::BitmapBytes(n)), 0);
  if (a.null_count == 0 && b.null_count == 0) {  // two-valued: the bitmaps combined bytewise
    const uint8_t* x = a.values.data();
    const uint8_t* y = b.values.data();
    for (size_t i = 0; i < out.size(); ++i) out[i] = is_and ? x[i] & y[i] : x[i] | y[i];
    c->values = Buffer(std::move(out));
    return c;
  }
  std::vector<uint8_t> bits(static_cast<size_t>(columnar::BitmapBytes(n)), 0);
  int64_t nulls = 0;
  for (int64_t i = 0; i < n; ++i) {
    const bool va = a.IsValid(i), vb = b.IsValid(i);
    const bool xa = va && a.BoolAt(i), xb = vb && b.BoolAt(i);
    // The value that decides alone: false for AND, true for OR.
    const bool decides_a = va && xa != is_and, decides_b = vb && xb != is_and;
    if (decides_a || decides_b) {
      columnar::SetBit(bits.data(), i);
      if (!is_and) columnar::SetBit(out.data(), i);
    } else if (va && vb) {
      columnar::SetBit(bits.data(), i);
      if (is_and) columnar::SetBit(out.data(), i);
    } else {
      ++nulls;
    }
  }
  c->values = Buffer(std::move(out));
  c->null_count = nulls;
  if (nulls) c->validity = Buffer(std::move(bits));
  return c;
}

// How one side of DecimalLoop64 holds its values: 16-byte decimals, int64s, or one value for
// every row (a literal, never materialised).
enum class Layout { kWide, kNarrow, kConstant };

template <Layout L>
struct Operand {
  const int64_t* x = nullptr;
  int64_t c = 0;  // kConstant's value
  int64_t Value(int64_t i) const {
    if constexpr (L == Layout::kWide) return x[2 * i];
    if constexpr (L == Layout::kNarrow) return x[i];
    return c;
  }
  // Nonzero when row i's value (`v`, its low half) does not fit 64 bits: its high half is more
  // than the sign. A constant was checked once.
  int64_t Bad(int64_t i, int64_t v) const {
    if constexpr (L == Layout::kWide) return x[2 * i + 1] ^ (v >> 63);
    return 0;
  }
};

// DecimalLoop64's pass for one pair of layouts: each result and whether any value or result did
// not fit 64 bits.
template <Layout LA, Layout LB, typename Op>
bool Loop64(Operand<LA> a, Operand<LB> b, int64_t n, Op op, uint8_t* out) {
  int64_t bad = 0;
  bool overflow = false;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t p = a.Value(i);
    const int64_t q = b.Value(i);
    bad |= a.Bad(i, p) | b.Bad(i, q);
    int64_t r = 0;
    overflow |= op(p, q, &r);
    const int64_t halves[2] = {r, r >> 63};  // |r| < 2^63 < 10^38
    std::memcpy(out + i * 16, halves, 16);
  }
  return bad == 0 && !overflow;
}

// Calls `fn` with side `c` of DecimalLoop64 as an Operand of its layout (a column of one row
// stands for every row when `constant`); false when a constant does not fit 64 bits.
template <typename Fn>
bool WithOperand(const columnar::Column& c, bool constant, Fn fn) {
  const auto* x = reinterpret_cast<const int64_t*>(c.values.data());
  const bool wide = c.type.id == TypeId::kDecimal128;
  if (constant) {
    if (wide && x[1] != (x[0] >> 63)) return false;
    fn(Operand<Layout::kConstant>{nullptr, x[0]});
    return true;
  }
  if (wide) {
    fn(Operand<Layout::kWide>{x, 0});
  } else {
    fn(Operand<Layout::kNarrow>{x, 0});
  }
  return true;
}

// DecimalLoop's common case in one pass without branches: no nulls, every value of both sides and
// both scale factors within 64 bits, and no result past them. `n` rows: a side of one row when
// `n` is more stands for every row. Null when that does not hold.
ColumnPtr DecimalLoop64(const Expr& e, const columnar::Column& a, const columnar::Column& b,
                        int64_t n, int64_t ma, int64_t mb) {
  ByteVector out(static_cast<size_t>(n) * 16);
  bool fits = false;
  auto run = [&](auto op) {
    return WithOperand(a, a.length != n, [&](auto x) {
      const bool b_fits = WithOperand(b, b.length != n, [&](auto y) {
        if constexpr (std::is_same_v<decltype(x), Operand<Layout::kConstant>> &&
                      std::is_same_v<decltype(y), Operand<Layout::kConstant>>) {
          fits = false;  // two literals are folded before they get here
        } else {
          fits = Loop64(x, y, n, op, out.data());
        }
      });
      fits = fits && b_fits;
    });
  };
  bool ran = false;
  switch (e.fn) {
    case Fn::kMul:
      ran = run([](int64_t p, int64_t q, int64_t* r) { return __builtin_mul_overflow(p, q, r); });
      break;
    case Fn::kAdd:
      ran = run([ma, mb](int64_t p, int64_t q, int64_t* r) {
        int64_t sp = 0, sq = 0;
        return __builtin_mul_overflow(p, ma, &sp) | __builtin_mul_overflow(q, mb, &sq) |
               __builtin_add_overflow(sp, sq, r);
      });
      break;
    default:
      ran = run([ma, mb](int64_t p, int64_t q, int64_t* r) {
        int64_t sp = 0, sq = 0;
        return __builtin_mul_overflow(p, ma, &sp) | __builtin_mul_overflow(q, mb, &sq) |
               __builtin_sub_overflow(sp, sq, r);
      });
      break;
  }
  if (!ran || !fits) return nullptr;
  auto c = std::make_shared<columnar::Column>();
  c->type = e.type;
  c->length = n;
  c->values = Buffer(std::move(out));
  return c;
}

// Decimal +, - and * a column at a time (DecimalArith's rules): each side a decimal or an integer
// (scale 0). `n` rows; a side of one row when `n` is more is a literal standing for every row,
// served by the 64-bit pass only. Null: not both of those, or a literal past that pass.
Result<ColumnPtr> DecimalLoop(const Expr& e, const columnar::Column& a, const columnar::Column& b,
                              int64_t n) {
  auto usable = [n](const columnar::Column& c) {
    return (c.type.id == TypeId::kDecimal128 || c.type.id == TypeId::kInt64) &&
           (c.length == n || c.length == 1);
  };
  if (!usable(a) || !usable(b)) return ColumnPtr{};
  auto read = [](const columnar::Column& c, int64_t i) -> __int128 {
    if (c.type.id == TypeId::kInt64) return c.Values<int64_t>()[i];
    __int128 v = 0;
    std::memcpy(&v, c.Values<uint8_t>() + i * 16, 16);
    return v;
  };
  auto scale = [](const columnar::Column& c) {
    return c.type.id == TypeId::kDecimal128 ? c.type.scale : 0;
  };
  const bool mul = e.fn == Fn::kMul;
  const __int128 ma = mul ? 1 : Pow10(e.type.scale - scale(a));
  const __int128 mb = mul ? 1 : Pow10(e.type.scale - scale(b));
  const __int128 limit = Pow10(38);
  if (ma <= INT64_MAX && mb <= INT64_MAX && a.null_count == 0 && b.null_count == 0) {
    if (ColumnPtr fast =
            DecimalLoop64(e, a, b, n, static_cast<int64_t>(ma), static_cast<int64_t>(mb))) {
      return fast;
    }
  }
  if (a.length != n || b.length != n) return ColumnPtr{};
  auto c = std::make_shared<columnar::Column>();
  c->type = e.type;
  c->length = n;
  ValidWhereBoth(a, b, c.get());
  std::vector<uint8_t> out(static_cast<size_t>(n) * 16, 0);
  // Most values and results fit 64 bits: those go through 64-bit arithmetic (its overflow checks
  // send the rest the 128-bit way). A decimal fits when its high half only extends the sign.
  auto small = [](const columnar::Column& c, int64_t i, int64_t* v) {
    if (c.type.id == TypeId::kInt64) {
      *v = c.Values<int64_t>()[i];
      return true;
    }
    int64_t lo = 0, hi = 0;
    std::memcpy(&lo, c.Values<uint8_t>() + i * 16, 8);
    std::memcpy(&hi, c.Values<uint8_t>() + i * 16 + 8, 8);
    *v = lo;
    return hi == (lo >> 63);
  };
  const bool factors_small = ma <= INT64_MAX && mb <= INT64_MAX;
  const auto ma64 = static_cast<int64_t>(factors_small ? ma : 1);
  const auto mb64 = static_cast<int64_t>(factors_small ? mb : 1);
  for (int64_t i = 0; i < n; ++i) {
    if (c->null_count > 0 && !c->IsValid(i)) continue;
    int64_t x64 = 0, y64 = 0, r64 = 0;
    if (factors_small && small(a, i, &x64) && small(b, i, &y64)) {
      bool overflow64 = false;
      if (mul) {
        overflow64 = __builtin_mul_overflow(x64, y64, &r64);
      } else {
        overflow64 = __builtin_mul_overflow(x64, ma64, &x64) ||
                     __builtin_mul_overflow(y64, mb64, &y64) ||
                     (e.fn == Fn::kAdd ? __builtin_add_overflow(x64, y64, &r64)
                                       : __builtin_sub_overflow(x64, y64, &r64));
      }
      if (!overflow64) {  // |r| < 2^63 < 10^38
        const auto wide = static_cast<__int128>(r64);
        std::memcpy(out.data() + i * 16, &wide, 16);
        continue;
      }
    }
    __int128 x = read(a, i), y = read(b, i), r = 0;
    bool overflow = false;
    if (mul) {
      overflow = __builtin_mul_overflow(x, y, &r);
    } else {
      overflow =
          __builtin_mul_overflow(x, ma, &x) || __builtin_mul_overflow(y, mb, &y) ||
          (e.fn == Fn::kAdd ? __builtin_add_overflow(x, y, &r) : __builtin_sub_overflow(x, y, &r));
    }
    if (overflow || r >= limit || r <= -limit) {
      return InvalidInput("decimal overflow in {}: the result needs more than 38 digits",
                          FnName(e.fn));
    }
    std::memcpy(out.data() + i * 16, &r, 16);
  }
  c->values = Buffer(std::move(out));
  return ColumnPtr(std::move(c));
}

// A registry function of a dictionary-coded column (strings read from dictionary pages) and
// literals, over more rows than the dictionary has entries: computed once per entry -- and once
// for NULL, when a row is NULL -- then gathered by the rows' codes, so lower(s) or
// starts_with(s, 'x') works once per distinct value. Null (nothing done) when that does not apply,
// or when the function fails on the entries: an entry no row of the batch holds may be one it
// rejects, so the rows decide then.
Result<ColumnPtr> OverDictionary(const Expr& e, const std::vector<ColumnPtr>& cols, int64_t rows) {
  if (cols.empty() || !cols[0]->dictionary || cols[0]->codes.empty()) return ColumnPtr{};
  const ColumnPtr& dict = cols[0]->dictionary;
  if (dict->length * 2 >= rows) return ColumnPtr{};
  for (size_t i = 1; i < e.args.size(); ++i) {
    if (e.args[i]->kind != Expr::Kind::kLiteral) return ColumnPtr{};
  }
  // Entries [0, n) of the dictionary, or one NULL of its type (n = 1), as the first argument.
  auto over = [&](ColumnPtr first, int64_t n) -> Result<ColumnPtr> {
    std::vector<ColumnPtr> args{std::move(first)};
    for (size_t i = 1; i < e.args.size(); ++i) {
      FLOE_ASSIGN_OR_RETURN(ColumnPtr c, MakeConstantColumn(e.args[i]->value, e.args[i]->type, n));
      args.push_back(std::move(c));
    }
    return e.function->kernel(e, args, n);
  };
  Result<ColumnPtr> entries = over(dict, dict->length);
  if (!entries) return ColumnPtr{};
  const columnar::Column& a = *cols[0];
  const auto* codes = reinterpret_cast<const int32_t*>(a.codes.data());
  std::vector<int64_t> idx(static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) {
    idx[static_cast<size_t>(r)] = a.IsValid(r) ? codes[r] : dict->length;  // past: the NULL's
  }
  ColumnPtr values = *entries;
  bool null_stays_null = true;  // the function of NULL is NULL: a NULL row's code says nothing
  if (a.null_count > 0) {
    ValueColumnBuilder null(a.type);
    null.AppendNull();
    Result<ColumnPtr> of_null = over(null.Finish(), 1);
    if (!of_null) return ColumnPtr{};
    null_stays_null = (*of_null)->IsNull(0);
    auto schema = std::make_shared<columnar::Schema>();
    schema->fields.push_back({"v", e.type, true});
    columnar::RecordBatch x{schema, {values}, dict->length}, y{schema, {*of_null}, 1};
    FLOE_ASSIGN_OR_RETURN(columnar::RecordBatch both, columnar::Concatenate({x, y}));
    values = both.columns[0];
  }
  FLOE_ASSIGN_OR_RETURN(ColumnPtr out, columnar::Take(*values, idx));
  const ColumnPtr& results = *entries;
  if ((results->type.id == TypeId::kString || results->type.id == TypeId::kBinary) &&
      results->null_count == 0 && null_stays_null) {
    // A string result keeps the codes, its entries the dictionary: what reads it next (a
    // comparison, another function, a group key) works once per entry too. Not when a NULL row
    // gets a value (concat skips NULL): its code, any entry's, would name another value.
    auto coded = std::make_shared<columnar::Column>(*out);
    coded->dictionary = results;
    coded->codes = a.codes;
    out = std::move(coded);
  }
  return out;
}

// Which argument of decimal +, - or * is its one non-NULL literal: 0 or 1; -1 when none is (or
// both are).
int DecimalLiteralSide(const Expr& e) {
  if (e.type.id != TypeId::kDecimal128 || e.args.size() != 2 ||
      (e.fn != Fn::kAdd && e.fn != Fn::kSub && e.fn != Fn::kMul)) {
    return -1;
  }
  auto literal = [](const Expr& x) {
    return x.kind == Expr::Kind::kLiteral && !x.value.is_null() &&
           (x.type.id == TypeId::kDecimal128 || x.type.id == TypeId::kInt64);
  };
  const bool l0 = literal(*e.args[0]), l1 = literal(*e.args[1]);
  if (l0 == l1) return -1;
  return l0 ? 0 : 1;
}

Result<ColumnPtr> FastPath(const Expr& e, const std::vector<ColumnPtr>& cols) {
  if (cols.size() != 2) return ColumnPtr{};
  const auto& a = *cols[0];
  const auto& b = *cols[1];
  if (e.type.id == TypeId::kDecimal128 &&
      (e.fn == Fn::kAdd || e.fn == Fn::kSub || e.fn == Fn::kMul)) {
    return DecimalLoop(e, a, b, a.length);
  }
  if (a.type.id != b.type.id) return ColumnPtr{};
  TypeId t = a.type.id;
  if (IsComparison(e.fn)) {
    if (t == TypeId::kInt64 || t == TypeId::kTimestamp || t == TypeId::kTime64) {
      return CompareLoop<int64_t>(e.fn, a, b);
    }
    if (t == TypeId::kDate32) return CompareLoop<int32_t>(e.fn, a, b);
    if (t == TypeId::kFloat64) {
      // CompareValues' order: NaN equal to NaN and above every number, -0.0 equal to 0.0.
      const double* x = a.Values<double>();
      const double* y = b.Values<double>();
      return CompareRows(e.fn, a, b, [x, y](int64_t i) {
        const bool xn = std::isnan(x[i]), yn = std::isnan(y[i]);
        if (xn || yn) return xn == yn ? 0 : xn ? 1 : -1;
        return x[i] < y[i] ? -1 : x[i] > y[i] ? 1 : 0;
      });
    }
    if (t == TypeId::kString || t == TypeId::kBinary) {
      return CompareRows(e.fn, a, b, [&a, &b](int64_t i) {
        const int c = a.BytesAt(i).compare(b.BytesAt(i));
        return c < 0 ? -1 : c > 0 ? 1 : 0;
      });
    }
    return ColumnPtr{};
  }
  if ((e.fn == Fn::kAnd || e.fn == Fn::kOr) && t == TypeId::kBool) {
    return LogicalLoop(e.fn == Fn::kAnd, a, b);
  }
  if (e.fn == Fn::kAdd || e.fn == Fn::kSub || e.fn == Fn::kMul) {
    if (t == TypeId::kFloat64 && e.type.id == TypeId::kFloat64) {
      switch (e.fn) {
        case Fn::kAdd:
          return BinaryLoop<double>(a, b, e.type, [](double x, double y) { return x + y; });
        case Fn::kSub:
          return BinaryLoop<double>(a, b, e.type, [](double x, double y) { return x - y; });
        default:
          return BinaryLoop<double>(a, b, e.type, [](double x, double y) { return x * y; });
      }
    }
  }
  return ColumnPtr{};
}

// The struct's child, null also where the struct is.
Result<ColumnPtr> StructField(const Expr& e, const columnar::Column& s) {
  size_t k = 0;
  while (k < s.type.children.size() && s.type.children[k].name != e.text) ++k;
  if (k >= s.children.size() || !s.children[k]) {
    return Internal("struct {} has no field '{}'", s.type.ToString(), e.text);
  }
  const ColumnPtr& child = s.children[k];
  if (s.null_count == 0 || s.validity.empty()) return NormalizeColumn(child);
  auto out = std::make_shared<columnar::Column>(*child);
  std::vector<uint8_t> bits(static_cast<size_t>(columnar::BitmapBytes(s.length)), 0);
  int64_t nulls = 0;
  for (int64_t i = 0; i < s.length; ++i) {
    if (s.IsValid(i) && child->IsValid(i)) {
      columnar::SetBit(bits.data(), i);
    } else {
      ++nulls;
    }
  }
  out->validity = Buffer(std::move(bits));
  out->null_count = nulls;
  // Codes of a dictionary-decoded column stay valid: only nulls were added.
  return NormalizeColumn(ColumnPtr(std::move(out)));
}

// CASE over rows where a branch fails on rows that do not take it (`CASE WHEN x = 0 THEN NULL
// ELSE 1 / x END`): each condition evaluated on the rows no earlier one took, each branch on
// the rows that take it, as SQL requires.
Result<ColumnPtr> CaseBranchByBranch(const Expr& e, const columnar::RecordBatch& batch) {
  std::vector<Value> out(static_cast<size_t>(batch.num_rows));
  std::vector<int64_t> rest(static_cast<size_t>(batch.num_rows));
  for (int64_t r = 0; r < batch.num_rows; ++r) rest[static_cast<size_t>(r)] = r;
  auto rows_of = [&](const std::vector<int64_t>& idx) -> Result<columnar::RecordBatch> {
    columnar::RecordBatch sub;
    sub.schema = batch.schema;
    sub.num_rows = static_cast<int64_t>(idx.size());
    FLOE_ASSIGN_OR_RETURN(sub.columns, columnar::TakeColumns(batch.columns, idx));
    return sub;
  };
  // Row idx[i] of the batch gets row i of `branch` evaluated over those rows.
  auto fill = [&](const Expr& branch, const std::vector<int64_t>& idx) -> Status {
    if (idx.empty()) return {};
    FLOE_ASSIGN_OR_RETURN(columnar::RecordBatch sub, rows_of(idx));
    FLOE_ASSIGN_OR_RETURN(ColumnPtr values, Evaluate(branch, sub));
    for (size_t i = 0; i < idx.size(); ++i) {
      FLOE_ASSIGN_OR_RETURN(out[static_cast<size_t>(idx[i])],
                            ValueAt(*values, static_cast<int64_t>(i)));
    }
    return {};
  };
  for (size_t w = 0; w + 1 < e.args.size() && !rest.empty(); w += 2) {
    FLOE_ASSIGN_OR_RETURN(columnar::RecordBatch sub, rows_of(rest));
    FLOE_ASSIGN_OR_RETURN(ColumnPtr when, Evaluate(*e.args[w], sub));
    std::vector<int64_t> taken, left;
    for (size_t i = 0; i < rest.size(); ++i) {
      const auto r = static_cast<int64_t>(i);
      const bool take = when->type.id == TypeId::kBool && when->IsValid(r) && when->BoolAt(r);
      (take ? taken : left).push_back(rest[i]);
    }
    FLOE_RETURN_IF_ERROR(fill(*e.args[w + 1], taken));
    rest = std::move(left);
  }
  FLOE_RETURN_IF_ERROR(fill(*e.args.back(), rest));
  ValueColumnBuilder built(e.type);
  for (const Value& v : out) FLOE_RETURN_IF_ERROR(built.Append(v));
  return built.Finish();
}

}  // namespace

Result<ColumnPtr> Evaluate(const Expr& e, const columnar::RecordBatch& batch) {
  switch (e.kind) {
    case Expr::Kind::kColumn:
      if (e.column < 0 || e.column >= batch.num_columns()) {
        return Internal("column #{} out of range", e.column);
      }
      return batch.columns[e.column];
    case Expr::Kind::kLiteral:
      return MakeConstantColumn(e.value, e.type, batch.num_rows);
    case Expr::Kind::kCall:
      break;
  }
  if (internal::TakesConstantArgs(e)) {
    FLOE_ASSIGN_OR_RETURN(ColumnPtr first, Evaluate(*e.args[0], batch));
    FLOE_ASSIGN_OR_RETURN(ColumnPtr typed, internal::ConstantArgsKernel(e, *first));
    if (typed) return typed;
  }
  std::vector<ColumnPtr> cols;
  cols.reserve(e.args.size());
  // Decimal arithmetic with a literal (`1 - l_discount`): the literal is one row, not a column of
  // copies, unless the 64-bit pass cannot take it.
  if (const int lit = DecimalLiteralSide(e); lit >= 0) {
    FLOE_ASSIGN_OR_RETURN(ColumnPtr one,
                          MakeConstantColumn(e.args[lit]->value, e.args[lit]->type, 1));
    FLOE_ASSIGN_OR_RETURN(ColumnPtr other, Evaluate(*e.args[1 - lit], batch));
    const columnar::Column& a = lit == 0 ? *one : *other;
    const columnar::Column& b = lit == 0 ? *other : *one;
    FLOE_ASSIGN_OR_RETURN(ColumnPtr fast, DecimalLoop(e, a, b, batch.num_rows));
    if (fast) return fast;
    FLOE_ASSIGN_OR_RETURN(
        one, MakeConstantColumn(e.args[lit]->value, e.args[lit]->type, batch.num_rows));
    cols = lit == 0 ? std::vector<ColumnPtr>{one, other} : std::vector<ColumnPtr>{other, one};
  }
  for (size_t i = cols.size(); i < e.args.size(); ++i) {  // none left when evaluated above
    const ExprPtr& a = e.args[i];
    Result<ColumnPtr> c = Evaluate(*a, batch);
    if (!c && e.fn == Fn::kCase) return CaseBranchByBranch(e, batch);
    if (!c) return std::unexpected(std::move(c).error());
    cols.push_back(std::move(*c));
  }
  if (e.fn == Fn::kFunction) {
    FLOE_ASSIGN_OR_RETURN(ColumnPtr by_entry, OverDictionary(e, cols, batch.num_rows));
    if (by_entry) return by_entry;
    return e.function->kernel(e, cols, batch.num_rows);
  }
  if (e.fn == Fn::kStructField) return StructField(e, *cols[0]);
  if (e.fn == Fn::kIsNull || e.fn == Fn::kIsNotNull) {
    // Of any type, nested ones included: only the validity is read.
    columnar::BoolBuilder out;
    const bool want_null = e.fn == Fn::kIsNull;
    for (int64_t r = 0; r < batch.num_rows; ++r) out.Append(cols[0]->IsNull(r) == want_null);
    return out.Finish();
  }
  FLOE_ASSIGN_OR_RETURN(ColumnPtr fast, FastPath(e, cols));
  if (fast) return fast;
  FLOE_ASSIGN_OR_RETURN(ColumnPtr typed, internal::TypedKernel(e, cols));
  if (typed) return typed;
  ValueColumnBuilder out(e.type);
  std::vector<Value> vals(cols.size());
  for (int64_t r = 0; r < batch.num_rows; ++r) {
    for (size_t i = 0; i < cols.size(); ++i) {
      FLOE_ASSIGN_OR_RETURN(vals[i], ValueAt(*cols[i], r));
    }
    FLOE_ASSIGN_OR_RETURN(Value v, EvalScalar(e, vals));
    FLOE_RETURN_IF_ERROR(out.Append(v));
  }
  return out.Finish();
}

Result<Value> EvaluateConstant(const Expr& e) {
  columnar::RecordBatch one;
  one.num_rows = 1;
  one.schema = std::make_shared<columnar::Schema>();
  FLOE_ASSIGN_OR_RETURN(ColumnPtr c, Evaluate(e, one));
  return ValueAt(*c, 0);
}

}  // namespace floe::exec
