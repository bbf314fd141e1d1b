// Evaluate's typed loops for the calls whose row-at-a-time rule (EvalScalar over Values) would
// dominate a query: NOT; comparisons, IN and LIKE against constants (a string column
// decoded from a dictionary is tested once per distinct value), CASE over fixed-width values,
// casts between numbers, and comparisons of decimals. Each gives exactly what the row rule gives,
// and a null ColumnPtr where it does not apply (the caller then takes the row rule).
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "floe/exec/expression_internal.h"

namespace floe::exec::internal {
namespace {

using columnar::Column;
using columnar::TypeId;

// A Boolean column of `n` rows: `bit(i)` for the valid rows, NULL where `valid(i)` is false.
template <typename Valid, typename Bit>
ColumnPtr BoolColumn(int64_t n, int64_t nulls, Valid valid, Bit bit) {
  auto c = std::make_shared<Column>();
  c->type = columnar::Bool();
  c->length = n;
  std::vector<uint8_t> out(static_cast<size_t>(columnar::BitmapBytes(n)), 0);
  if (nulls > 0) {
    std::vector<uint8_t> bits(out.size(), 0);
    for (int64_t i = 0; i < n; ++i) {
      if (!valid(i)) continue;
      columnar::SetBit(bits.data(), i);
      if (bit(i)) columnar::SetBit(out.data(), i);
    }
    c->validity = Buffer(std::move(bits));
    c->null_count = nulls;
  } else {
    for (int64_t i = 0; i < n; ++i) {
      if (bit(i)) columnar::SetBit(out.data(), i);
    }
  }
  c->values = Buffer(std::move(out));
  return c;
}

// `hit(i)` for each row of `a` as a Boolean column, NULL where `a` is; with `null_otherwise`
// (IN with a NULL in its list) also NULL where the row does not hit.
template <typename Test>
ColumnPtr Bits(const Column& a, Test test);

template <typename Hit>
ColumnPtr HitColumn(const Column& a, bool null_otherwise, Hit hit) {
  const int64_t n = a.length;
  if (!null_otherwise && a.null_count == 0) return Bits(a, hit);  // 64 rows at a time
  if (!null_otherwise) {
    return BoolColumn(
        n, a.null_count, [&](int64_t i) { return a.IsValid(i); }, hit);
  }
  std::vector<uint8_t> hits(static_cast<size_t>(n), 0);
  int64_t nulls = 0;
  for (int64_t i = 0; i < n; ++i) {
    hits[i] = a.IsValid(i) && hit(i) ? 1 : 0;
    nulls += hits[i] ? 0 : 1;
  }
  return BoolColumn(
      n, nulls, [&](int64_t i) { return hits[i] != 0; }, [](int64_t) { return true; });
}

// A Boolean per row of string column `a` from `test` of its bytes: once per dictionary entry when
// the column carries its dictionary. NULL where `a` is NULL, or where the row is not true and
// `null_otherwise` (IN with a NULL in its list).
template <typename Test>
ColumnPtr StringTest(const Column& a, bool null_otherwise, Test test) {
  const int64_t n = a.length;
  std::vector<uint8_t> answer;  // by dictionary code
  const int32_t* codes = nullptr;
  if (a.dictionary && !a.codes.empty() && a.dictionary->length <= n) {
    const Column& dict = *a.dictionary;
    answer.resize(static_cast<size_t>(dict.length));
    for (int64_t k = 0; k < dict.length; ++k) answer[k] = test(dict.BytesAt(k)) ? 1 : 0;
    codes = reinterpret_cast<const int32_t*>(a.codes.data());
  }
  auto hit = [&](int64_t i) -> bool {
    if (codes != nullptr) {
      const int32_t k = codes[i];
      return k >= 0 && static_cast<size_t>(k) < answer.size() && answer[k] != 0;
    }
    return test(a.BytesAt(i));
  };
  return HitColumn(a, null_otherwise, hit);
}

// LIKE's pattern compiled: when it has no '_' and no escape, the pieces between its '%'s.
struct LikePattern {
  bool simple = false;
  bool leading = false, trailing = false;  // a '%' first / last
  std::vector<std::string> pieces;
  std::string text;

  explicit LikePattern(std::string p) : text(std::move(p)) {
    if (text.find('_') != std::string::npos || text.find('\\') != std::string::npos) return;
    simple = true;
    leading = !text.empty() && text.front() == '%';
    trailing = !text.empty() && text.back() == '%';
    size_t start = 0;
    while (start <= text.size()) {
      const size_t end = std::min(text.find('%', start), text.size());
      if (end > start) pieces.push_back(text.substr(start, end - start));
      start = end + 1;
    }
  }

  bool Match(std::string_view s) const {
    if (!simple) return LikeMatch(s, text);
    if (pieces.empty()) return leading || s.empty();  // '%...%' matches all; '' only ''
    size_t first = 0, last = pieces.size();
    size_t pos = 0, end = s.size();
    if (!leading) {
      if (!s.starts_with(pieces.front())) return false;
      pos = pieces.front().size();
      first = 1;
      if (pieces.size() == 1 && !trailing) return s.size() == pos;
    }
    if (!trailing && first < last) {
      const std::string& tail = pieces.back();
      if (end - pos < tail.size() || !s.substr(end - tail.size()).starts_with(tail)) return false;
      end -= tail.size();
      --last;
    }
    for (size_t k = first; k < last; ++k) {
      // glibc's memmem skips ahead by the piece's bytes; string_view::find stops at every
      // occurrence of its first byte to compare.
      const std::string& piece = pieces[k];
      const void* at = memmem(s.data() + pos, end - pos, piece.data(), piece.size());
      if (at == nullptr) return false;
      pos = static_cast<size_t>(static_cast<const char*>(at) - s.data()) + piece.size();
    }
    return true;
  }
};

std::string LowerText(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool IsStringLike(TypeId t) { return t == TypeId::kString || t == TypeId::kBinary; }
bool IsInt64Like(TypeId t) {
  return t == TypeId::kInt64 || t == TypeId::kTimestamp || t == TypeId::kTime64;
}

// x IN (constants): a set of the constants' values of x's type.
Result<ColumnPtr> InConstants(const Expr& e, const Column& a) {
  const TypeId t = a.type.id;
  // Integer constants made ready with the call (their types checked then) need no look now.
  const bool prepared = e.integer_set && e.args[0]->type == a.type;
  bool has_null = false;
  for (size_t i = 1; i < e.args.size() && !prepared; ++i) {
    const Value& v = e.args[i]->value;
    if (v.is_null()) {
      has_null = true;
      continue;
    }
    if (!(e.args[i]->type == a.type)) return ColumnPtr{};
  }
  if (IsStringLike(t)) {
    std::unordered_set<std::string_view> set;
    for (size_t i = 1; i < e.args.size(); ++i) {
      const Value& v = e.args[i]->value;
      if (v.is_null()) continue;
      if (v.v.index() != 4) return ColumnPtr{};
      set.insert(v.s());
    }
    return StringTest(a, has_null, [&](std::string_view s) { return set.count(s) > 0; });
  }
  if (IsInt64Like(t) || t == TypeId::kDate32) {
    std::shared_ptr<const IntegerSet> made = prepared ? e.integer_set : IntegerSet::Of(e);
    if (!made) return ColumnPtr{};
    const IntegerSet& set = *made;
    // The test over the column's own width (the type decided once, not per row).
    auto over = [&]<typename T>(const T* values) -> ColumnPtr {
      if (!set.bits.empty()) {
        const uint64_t* b = set.bits.data();
        auto hit = [values, lo = set.lo, span = set.span, b](int64_t i) {
          const uint64_t d = static_cast<uint64_t>(int64_t{values[i]}) - lo;
          return d <= span && ((b[d / 64] >> (d % 64)) & 1) != 0;
        };
        return HitColumn(a, set.has_null, hit);
      }
      auto hit = [&](int64_t i) {
        return std::binary_search(set.sorted.begin(), set.sorted.end(), int64_t{values[i]});
      };
      return HitColumn(a, set.has_null, hit);
    };
    if (t == TypeId::kDate32) return over(a.Values<int32_t>());
    return over(a.Values<int64_t>());
  }
  return ColumnPtr{};
}

Result<ColumnPtr> LikeConstant(const Expr& e, const Column& a) {
  if (!IsStringLike(a.type.id) || e.args.size() != 2) return ColumnPtr{};
  const Value& p = e.args[1]->value;
  const int64_t n = a.length;
  if (p.is_null()) {
    return BoolColumn(
        n, n, [](int64_t) { return false; }, [](int64_t) { return false; });
  }
  if (p.v.index() != 4) return ColumnPtr{};
  if (e.fn == Fn::kILike) {
    const LikePattern pattern(LowerText(p.s()));
    return StringTest(a, false, [&](std::string_view s) { return pattern.Match(LowerText(s)); });
  }
  const LikePattern pattern(p.s());
  return StringTest(a, false, [&](std::string_view s) { return pattern.Match(s); });
}

int FixedWidth(const columnar::DataType& t) {
  switch (t.id) {
    case TypeId::kInt64:
    case TypeId::kFloat64:
    case TypeId::kTimestamp:
    case TypeId::kTime64:
      return 8;
    case TypeId::kDate32:
      return 4;
    case TypeId::kDecimal128:
      return 16;
    default:
      return 0;
  }
}

// CASE WHEN c1 THEN v1 ... ELSE v: the value of the first true condition, copied as bytes.
Result<ColumnPtr> CaseFixed(const Expr& e, const std::vector<ColumnPtr>& cols) {
  const int width = FixedWidth(e.type);
  if (width == 0 || cols.size() % 2 == 0) return ColumnPtr{};
  for (size_t i = 0; i < cols.size(); ++i) {
    const bool is_value = i % 2 == 1 || i + 1 == cols.size();
    if (is_value ? !(cols[i]->type == e.type) : cols[i]->type.id != TypeId::kBool) {
      return ColumnPtr{};
    }
  }
  const int64_t n = cols[0]->length;
  auto c = std::make_shared<Column>();
  c->type = e.type;
  c->length = n;
  std::vector<uint8_t> out(static_cast<size_t>(n) * width, 0);
  std::vector<uint8_t> bits(static_cast<size_t>(columnar::BitmapBytes(n)), 0);
  int64_t nulls = 0;
  for (int64_t r = 0; r < n; ++r) {
    size_t pick = cols.size() - 1;
    for (size_t i = 0; i + 1 < cols.size(); i += 2) {
      if (cols[i]->IsValid(r) && cols[i]->BoolAt(r)) {
        pick = i + 1;
        break;
      }
    }
    const Column& v = *cols[pick];
    if (!v.IsValid(r)) {
      ++nulls;
      continue;
    }
    columnar::SetBit(bits.data(), r);
    std::memcpy(out.data() + r * width, v.values.data() + r * width, width);
  }
  c->values = Buffer(std::move(out));
  c->null_count = nulls;
  if (nulls) c->validity = Buffer(std::move(bits));
  return ColumnPtr(std::move(c));
}

// A column with `a`'s validity and values computed by `fn(i)` into type `to`'s fixed width.
template <typename R, typename F>
ColumnPtr MapFixed(const Column& a, const columnar::DataType& to, F fn) {
  const int64_t n = a.length;
  auto c = std::make_shared<Column>();
  c->type = to;
  c->length = n;
  c->null_count = a.null_count;
  if (a.null_count > 0) c->validity = a.validity;
  std::vector<uint8_t> out(static_cast<size_t>(n) * sizeof(R), 0);
  R* o = reinterpret_cast<R*>(out.data());
  for (int64_t i = 0; i < n; ++i) o[i] = fn(i);
  c->values = Buffer(std::move(out));
  return c;
}

__int128 Decimal(const Column& a, int64_t i) {
  __int128 v = 0;
  std::memcpy(&v, a.values.data() + i * 16, 16);
  return v;
}

__int128 TenTo(int n) {
  __int128 p = 1;
  for (int i = 0; i < n; ++i) p *= 10;
  return p;
}

// Casts between numbers that cannot fail for the input's values (checked first).
Result<ColumnPtr> CastNumber(const Expr& e, const Column& a) {
  const columnar::DataType& to = e.type;
  if (!(CastTarget(e) == to)) return ColumnPtr{};  // a narrower integer: range checks
  const TypeId from = a.type.id;
  if (to.id == TypeId::kFloat64 && from == TypeId::kDecimal128) {
    const double divisor = std::pow(10.0, a.type.scale);
    return MapFixed<double>(
        a, to, [&](int64_t i) { return static_cast<double>(Decimal(a, i)) / divisor; });
  }
  if (to.id == TypeId::kFloat64 && from == TypeId::kInt64) {
    const int64_t* x = a.Values<int64_t>();
    return MapFixed<double>(a, to, [&](int64_t i) { return static_cast<double>(x[i]); });
  }
  if (to.id == TypeId::kDecimal128 && (from == TypeId::kDecimal128 || from == TypeId::kInt64)) {
    const int from_scale = from == TypeId::kDecimal128 ? a.type.scale : 0;
    if (to.scale < from_scale) return ColumnPtr{};  // rounding: the row rule
    const __int128 factor = TenTo(to.scale - from_scale);
    const __int128 whole = TenTo(to.precision - to.scale);  // the integer part must stay below
    auto in = [&](int64_t i) -> __int128 {
      return from == TypeId::kInt64 ? static_cast<__int128>(a.Values<int64_t>()[i]) : Decimal(a, i);
    };
    const __int128 unit = TenTo(from_scale);
    for (int64_t i = 0; i < a.length; ++i) {
      if (a.null_count > 0 && !a.IsValid(i)) continue;
      const __int128 integer_part = in(i) / unit;
      if (integer_part >= whole || integer_part <= -whole) return ColumnPtr{};  // the error
    }
    return MapFixed<__int128>(a, to, [&](int64_t i) { return in(i)*factor; });
  }
  return ColumnPtr{};
}

// A comparison of two decimals of one scale (the binder has brought them to one type).
Result<ColumnPtr> CompareDecimals(const Expr& e, const Column& a, const Column& b) {
  if (a.type.id != TypeId::kDecimal128 || b.type.id != TypeId::kDecimal128 ||
      a.type.scale != b.type.scale || a.length != b.length) {
    return ColumnPtr{};
  }
  const int64_t n = a.length;
  std::vector<int8_t> sign(static_cast<size_t>(n), 0);
  int64_t nulls = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (!a.IsValid(i) || !b.IsValid(i)) {
      ++nulls;
      continue;
    }
    const __int128 x = Decimal(a, i), y = Decimal(b, i);
    sign[i] = x < y ? -1 : x > y ? 1 : 0;
  }
  const Fn fn = e.fn;
  return BoolColumn(
      n, nulls, [&](int64_t i) { return a.IsValid(i) && b.IsValid(i); },
      [&](int64_t i) { return CompareResult(fn, sign[i]); });
}

bool IsComparisonFn(Fn fn) { return fn >= Fn::kEq && fn <= Fn::kGtEq; }

// A Boolean column of n rows from `test(i)`, without branches; NULL where `a` is. 64 results at a
// time go to bytes (a loop the compiler vectorises) and are packed 8 to a byte by a multiply:
// bytes b0..b7 of 0 or 1 times 0x0102040810204080 gather b_k into bit 56 + k.
template <typename Test>
ColumnPtr Bits(const Column& a, Test test) {
  const int64_t n = a.length;
  auto c = std::make_shared<Column>();
  c->type = columnar::Bool();
  c->length = n;
  std::vector<uint8_t> out(static_cast<size_t>(columnar::BitmapBytes(n)), 0);
  constexpr int64_t kBlock = 64;
  const int64_t blocks = n / kBlock * kBlock;
  uint8_t bytes[kBlock];
  for (int64_t i = 0; i < blocks; i += kBlock) {
    for (int64_t k = 0; k < kBlock; ++k) bytes[k] = test(i + k) ? 1 : 0;
    for (int64_t j = 0; j < kBlock / 8; ++j) {
      uint64_t v = 0;
      std::memcpy(&v, bytes + j * 8, 8);
      out[static_cast<size_t>(i / 8 + j)] = static_cast<uint8_t>((v * 0x0102040810204080ULL) >> 56);
    }
  }
  const int64_t whole = n / 8 * 8;
  for (int64_t i = blocks; i < whole; i += 8) {
    uint8_t byte = 0;
    for (int k = 0; k < 8; ++k) byte |= static_cast<uint8_t>(test(i + k) ? 1u << k : 0u);
    out[static_cast<size_t>(i / 8)] = byte;
  }
  for (int64_t i = whole; i < n; ++i) {
    if (test(i)) columnar::SetBit(out.data(), i);
  }
  c->values = Buffer(std::move(out));
  c->null_count = a.null_count;
  if (a.null_count > 0) c->validity = a.validity;
  return c;
}

// column <op> constant, the operator chosen once: `at(i)` is row i's value.
template <typename T, typename At>
ColumnPtr CompareBy(Fn fn, const Column& a, T y, At at) {
  switch (fn) {
    case Fn::kEq:
      return Bits(a, [at, y](int64_t i) { return at(i) == y; });
    case Fn::kNotEq:
      return Bits(a, [at, y](int64_t i) { return at(i) != y; });
    case Fn::kLt:
      return Bits(a, [at, y](int64_t i) { return at(i) < y; });
    case Fn::kLtEq:
      return Bits(a, [at, y](int64_t i) { return at(i) <= y; });
    case Fn::kGt:
      return Bits(a, [at, y](int64_t i) { return at(i) > y; });
    default:
      return Bits(a, [at, y](int64_t i) { return at(i) >= y; });
  }
}

// column <op> constant, typed, the constant never made a column.
template <typename T>
ColumnPtr CompareWith(Fn fn, const Column& a, T y) {
  const T* x = a.Values<T>();
  return CompareBy(fn, a, y, [x](int64_t i) { return x[i]; });
}

Result<ColumnPtr> CompareConstant(const Expr& e, const Column& a) {
  const Expr& lit = *e.args[1];
  if (!(lit.type == a.type)) return ColumnPtr{};
  const Value& v = lit.value;
  const int64_t n = a.length;
  if (v.is_null()) {
    return BoolColumn(
        n, n, [](int64_t) { return false; }, [](int64_t) { return false; });
  }
  const TypeId t = a.type.id;
  if (IsInt64Like(t) && v.v.index() == 2) return CompareWith<int64_t>(e.fn, a, v.i());
  if (t == TypeId::kDate32 && v.v.index() == 2) {
    if (v.i() < INT32_MIN || v.i() > INT32_MAX) return ColumnPtr{};
    return CompareWith<int32_t>(e.fn, a, static_cast<int32_t>(v.i()));
  }
  if (t == TypeId::kFloat64 && v.v.index() == 3 && !std::isnan(v.d())) {
    // NaN sorts above every number (CompareValues): a NaN row is greater than the constant.
    const double y = v.d();
    const double* x = a.Values<double>();
    const Fn fn = e.fn;
    return Bits(a, [x, y, fn](int64_t i) {
      const int c = std::isnan(x[i]) ? 1 : x[i] < y ? -1 : x[i] > y ? 1 : 0;
      return CompareResult(fn, c);
    });
  }
  if (t == TypeId::kDecimal128 && v.v.index() == 5) {
    return CompareBy(e.fn, a, v.dec(), [&a](int64_t i) { return Decimal(a, i); });
  }
  if (IsStringLike(t) && v.v.index() == 4) {
    const std::string_view y = v.s();
    const Fn fn = e.fn;
    return StringTest(a, false, [y, fn](std::string_view x) {
      const int c = x.compare(y);
      return CompareResult(fn, c < 0 ? -1 : c > 0 ? 1 : 0);
    });
  }
  return ColumnPtr{};
}

}  // namespace

bool CompareResult(Fn fn, int sign) {
  switch (fn) {
    case Fn::kEq:
      return sign == 0;
    case Fn::kNotEq:
      return sign != 0;
    case Fn::kLt:
      return sign < 0;
    case Fn::kLtEq:
      return sign <= 0;
    case Fn::kGt:
      return sign > 0;
    default:
      return sign >= 0;
  }
}

bool TakesConstantArgs(const Expr& e) {
  if (e.integer_set) return true;  // an IN of integer constants, checked when it was made
  if (IsComparisonFn(e.fn)) {
    return e.args.size() == 2 && e.args[0]->kind != Expr::Kind::kLiteral &&
           e.args[1]->kind == Expr::Kind::kLiteral;
  }
  if (e.fn != Fn::kIn && e.fn != Fn::kLike && e.fn != Fn::kILike) return false;
  if (e.args.size() < 2) return false;
  for (size_t i = 1; i < e.args.size(); ++i) {
    if (e.args[i]->kind != Expr::Kind::kLiteral) return false;
  }
  return true;
}

Result<ColumnPtr> ConstantArgsKernel(const Expr& e, const Column& first) {
  if (IsComparisonFn(e.fn)) return CompareConstant(e, first);
  if (e.fn == Fn::kIn) return InConstants(e, first);
  return LikeConstant(e, first);
}

Result<ColumnPtr> TypedKernel(const Expr& e, const std::vector<ColumnPtr>& cols) {
  switch (e.fn) {
    case Fn::kNot: {
      if (cols.size() != 1 || cols[0]->type.id != TypeId::kBool) return ColumnPtr{};
      const Column& a = *cols[0];
      return BoolColumn(
          a.length, a.null_count, [&](int64_t i) { return a.IsValid(i); },
          [&](int64_t i) { return !a.BoolAt(i); });
    }
    case Fn::kCase:
      return CaseFixed(e, cols);
    case Fn::kCast:
    case Fn::kTryCast:
      if (cols.size() != 1) return ColumnPtr{};
      return CastNumber(e, *cols[0]);
    case Fn::kEq:
    case Fn::kNotEq:
    case Fn::kLt:
    case Fn::kLtEq:
    case Fn::kGt:
    case Fn::kGtEq:
      if (cols.size() != 2) return ColumnPtr{};
      return CompareDecimals(e, *cols[0], *cols[1]);
    default:
      return ColumnPtr{};
  }
}

}  // namespace floe::exec::internal

namespace floe::exec {

std::shared_ptr<const IntegerSet> IntegerSet::Of(const Expr& in) {
  if (in.kind != Expr::Kind::kCall || in.fn != Fn::kIn || in.args.size() < 2) return nullptr;
  const DataType& type = in.args[0]->type;
  if (!internal::IsInt64Like(type.id) && type.id != TypeId::kDate32) return nullptr;
  auto set = std::make_shared<IntegerSet>();
  set->sorted.reserve(in.args.size() - 1);
  for (size_t i = 1; i < in.args.size(); ++i) {
    const Expr& v = *in.args[i];
    if (v.kind != Expr::Kind::kLiteral) return nullptr;
    if (v.value.is_null()) {
      set->has_null = true;
      continue;
    }
    if (!(v.type == type) || v.value.v.index() != 2) return nullptr;
    set->sorted.push_back(v.value.i());
  }
  std::sort(set->sorted.begin(), set->sorted.end());
  if (set->sorted.size() >= 32) {
    // Many values over a range of at most 2^23 (a join's keys pushed into a scan): a bit per
    // value of the range (at most 1 MiB), one test a row instead of a search.
    const uint64_t lo = static_cast<uint64_t>(set->sorted.front());
    const uint64_t span = static_cast<uint64_t>(set->sorted.back()) - lo;
    if (span < (uint64_t{1} << 23)) {
      set->lo = lo;
      set->span = span;
      set->bits.assign(span / 64 + 1, 0);
      for (int64_t v : set->sorted) {
        const uint64_t d = static_cast<uint64_t>(v) - lo;
        set->bits[d / 64] |= uint64_t{1} << (d % 64);
      }
    }
  }
  return set;
}

}  // namespace floe::exec
