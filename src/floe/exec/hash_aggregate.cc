#include "floe/exec/hash_aggregate.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <span>

#include <fmt/format.h>

// Inlined: hashing a short key is a few instructions, not a call.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace floe::exec {

std::string_view AggFnName(AggFn fn) {
  static constexpr std::string_view kNames[] = {
      "count(*)",      "count",      "sum",
      "avg",           "min",        "max",
      "count_if",      "bool_and",   "bool_or",
      "any_value",     "first",      "arg_min",
      "arg_max",       "var_samp",   "var_pop",
      "stddev_samp",   "stddev_pop", "quantile_cont",
      "quantile_disc", "string_agg", "approx_count_distinct",
      "grouping"};
  return kNames[static_cast<int>(fn)];
}

Result<DataType> AggregateType(AggFn fn, const DataType& arg) {
  const bool null = arg.id == TypeId::kNull;
  switch (fn) {
    case AggFn::kCountStar:
    case AggFn::kCount:
    case AggFn::kCountIf:
      if (fn != AggFn::kCountIf || arg.id == TypeId::kBool || null) return columnar::Int64();
      break;
    case AggFn::kApproxCountDistinct:
      if (!arg.IsNested()) return columnar::Int64();
      break;
    case AggFn::kGrouping:
      return columnar::Int64();
    case AggFn::kSum:
      if (arg.id == TypeId::kInt64 || null) return columnar::Int64();
      if (arg.id == TypeId::kFloat64) return columnar::Float64();
      // Exact, as DuckDB: decimal(38, s); a sum past 38 digits is an overflow error.
      if (arg.id == TypeId::kDecimal128) return columnar::Decimal128(38, arg.scale);
      break;
    case AggFn::kAvg:
    case AggFn::kVarSamp:
    case AggFn::kVarPop:
    case AggFn::kStddevSamp:
    case AggFn::kStddevPop:
      if (IsNumericType(arg) || null) return columnar::Float64();
      break;
    case AggFn::kBoolAnd:
    case AggFn::kBoolOr:
      if (arg.id == TypeId::kBool || null) return columnar::Bool();
      break;
    case AggFn::kQuantileCont:
      // As DuckDB: integers and floats interpolate to a double, decimals within their type,
      // dates and timestamps to a timestamp.
      if (arg.id == TypeId::kInt64 || arg.id == TypeId::kFloat64 || null)
        return columnar::Float64();
      if (arg.id == TypeId::kDecimal128 || arg.id == TypeId::kTimestamp) return arg;
      if (arg.id == TypeId::kDate32) return columnar::Timestamp(columnar::TimeUnit::kMicro);
      break;
    case AggFn::kStringAgg:
      if (IsStringType(arg) || null) return columnar::String();
      break;
    case AggFn::kMin:
    case AggFn::kMax:
    case AggFn::kAnyValue:
    case AggFn::kFirst:
    case AggFn::kArgMin:
    case AggFn::kArgMax:
    case AggFn::kQuantileDisc:
      if (!arg.IsNested()) return arg;
      break;
  }
  return InvalidInput("type mismatch: {} of {} is not defined", AggFnName(fn), arg.ToString());
}

namespace {

uint64_t MixInt(int64_t x) {
  uint64_t h = static_cast<uint64_t>(x) * 0x9E3779B97F4A7C15ULL;
  return h ^ (h >> 29);
}

// a == b for two byte strings of length n, without a library call for short keys.
inline bool SameBytes(const char* a, const char* b, size_t n) {
  if (n >= 8) {
    uint64_t x, y, u, w;
    std::memcpy(&x, a, 8);
    std::memcpy(&y, b, 8);
    std::memcpy(&u, a + n - 8, 8);
    std::memcpy(&w, b + n - 8, 8);
    if (x != y || u != w) return false;
    return n <= 16 || std::memcmp(a + 8, b + 8, n - 16) == 0;
  }
  for (size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

bool IntegerValued(TypeId t) {
  return t == TypeId::kInt64 || t == TypeId::kTimestamp || t == TypeId::kTime64 ||
         t == TypeId::kDate32;
}

}  // namespace

KeyDict::KeyDict(const DataType& type) {
  switch (type.id) {
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTime64:
      kind_ = Kind::kInt64;
      break;
    case TypeId::kDate32:
      kind_ = Kind::kInt32;
      break;
    case TypeId::kString:
    case TypeId::kBinary:
      kind_ = Kind::kBytes;
      break;
    default:
      kind_ = Kind::kGeneric;
      break;
  }
  ints_.push_back(0);   // code 0: NULL
  if (IsInt()) return;  // coded directly until ToHashed
  ends_.push_back(0);
  hashes_.push_back(0);
  if (kind_ == Kind::kGeneric) values_.emplace_back();
  slots_.assign_zero(64);
}

void KeyDict::Grow() {
  if (IsInt()) {
    // The values seen may have filled in a range that was too wide for their number when first
    // seen (the first batch of a random-order key): direct codes again when it is now dense.
    const __int128 span = static_cast<__int128>(greatest_) - least_ + 1;
    if (span <= kDirectPerValue * static_cast<__int128>(ints_.size())) {
      ToDirect(static_cast<size_t>(span));
      return;
    }
    PodVector<IntSlot> old = std::move(int_slots_);
    int_slots_.assign_zero(old.size() * 2);
    const size_t mask = int_slots_.size() - 1;
    for (const IntSlot& slot : old) {
      if (slot.code == 0) continue;
      size_t i = MixInt(slot.value) & mask;
      while (int_slots_[i].code != 0) i = (i + 1) & mask;
      int_slots_[i] = slot;
    }
    return;
  }
  PodVector<BytesSlot> old = std::move(slots_);
  slots_.assign_zero(old.size() * 2);
  const size_t mask = slots_.size() - 1;
  for (const BytesSlot& slot : old) {
    if (slot.code == 0) continue;
    size_t i = hashes_[slot.code] & mask;
    while (slots_[i].code != 0) i = (i + 1) & mask;
    slots_[i] = slot;
  }
}

uint32_t KeyDict::NewInt(int64_t x) {
  const auto code = static_cast<uint32_t>(ints_.size());
  ints_.push_back(x);
  least_ = std::min(least_, x);
  greatest_ = std::max(greatest_, x);
  return code;
}

uint32_t KeyDict::InternInt(int64_t x) {
  if (!hashed_) {
    const uint64_t i = static_cast<uint64_t>(x) - static_cast<uint64_t>(direct_base_);
    if (i < direct_.size()) {
      uint32_t& code = direct_[i];
      if (code == 0) code = NewInt(x);
      return code;
    }
    if (CoverDirect(x, x, 1)) return InternInt(x);
  }
  const size_t mask = int_slots_.size() - 1;
  for (size_t i = MixInt(x) & mask;; i = (i + 1) & mask) {
    IntSlot& slot = int_slots_[i];
    if (slot.code == 0) {
      slot = IntSlot{x, NewInt(x)};
      const uint32_t code = slot.code;
      if (ints_.size() * 2 > int_slots_.size()) Grow();
      return code;
    }
    if (slot.value == x) return slot.code;
  }
}

bool KeyDict::CoverDirect(int64_t lo, int64_t hi, int64_t rows) {
  // Judged by the values coded and the new ones, not by the room the array keeps: at most
  // kDirectPerValue entries per value and row seen, or 256 KiB.
  const bool coded = ints_.size() > 1;
  const __int128 values_span = std::max<__int128>(hi, coded ? greatest_ : hi) -
                               std::min<__int128>(lo, coded ? least_ : lo) + 1;
  constexpr __int128 kFloor = 1 << 16;
  const __int128 allowed =
      std::max<__int128>(kFloor, kDirectPerValue * (static_cast<__int128>(ints_.size()) + rows));
  if (values_span > allowed) {
    ToHashed();
    return false;
  }
  const auto held = static_cast<__int128>(direct_.size());
  const __int128 old_lo = held > 0 ? direct_base_ : lo;
  const __int128 old_hi = held > 0 ? direct_base_ + held - 1 : hi;
  __int128 new_lo = std::min<__int128>(lo, old_lo);
  __int128 new_hi = std::max<__int128>(hi, old_hi);
  const __int128 span = new_hi - new_lo + 1;
  // At least twice the old size, the room on the side that grew: keys arriving in order, up or
  // down, widen the array a logarithmic number of times (downward growth copies it).
  const __int128 room = std::max(span, 2 * held) - span;
  if (new_hi > old_hi) {
    new_hi = std::min<__int128>(new_hi + room, std::numeric_limits<int64_t>::max());
  } else if (new_lo < old_lo) {
    new_lo = std::max<__int128>(new_lo - room, std::numeric_limits<int64_t>::min());
  }
  const auto size = static_cast<size_t>(new_hi - new_lo + 1);
  if (held == 0) {
    direct_.assign_zero(size);
  } else if (new_lo == old_lo) {
    direct_.resize(size);
  } else {
    PodVector<uint32_t> wider;
    wider.assign_zero(size);
    std::memcpy(wider.data() + static_cast<size_t>(old_lo - new_lo), direct_.data(),
                direct_.size() * sizeof(uint32_t));
    direct_ = std::move(wider);
  }
  direct_base_ = static_cast<int64_t>(new_lo);
  return true;
}

void KeyDict::ToDirect(size_t span) {
  hashed_ = false;
  int_slots_ = PodVector<IntSlot>();
  direct_.assign_zero(span);
  direct_base_ = least_;
  for (size_t code = 1; code < ints_.size(); ++code) {
    direct_[static_cast<uint64_t>(ints_[code]) - static_cast<uint64_t>(least_)] =
        static_cast<uint32_t>(code);
  }
}

void KeyDict::ToHashed() {
  hashed_ = true;
  direct_ = PodVector<uint32_t>();
  size_t slots = 64;
  while (slots < ints_.size() * 2) slots *= 2;
  int_slots_.assign_zero(slots);
  const size_t mask = slots - 1;
  for (size_t code = 1; code < ints_.size(); ++code) {
    size_t i = MixInt(ints_[code]) & mask;
    while (int_slots_[i].code != 0) i = (i + 1) & mask;
    int_slots_[i] = IntSlot{ints_[code], static_cast<uint32_t>(code)};
  }
}

Result<columnar::ColumnPtr> KeyDict::Values(const DataType& type, std::span<const uint32_t> codes,
                                            size_t n, size_t stride, size_t offset) const {
  if (n * stride > codes.size()) return Internal("{} groups of {} keys past the codes", n, stride);
  if (IsInt()) {
    auto c = std::make_shared<columnar::Column>();
    c->type = type;
    c->length = static_cast<int64_t>(n);
    const size_t width = kind_ == Kind::kInt32 ? 4 : 8;
    std::vector<uint8_t> values(n * width, 0);
    std::vector<uint8_t> bits(static_cast<size_t>(columnar::BitmapBytes(c->length)), 0);
    int64_t nulls = 0;
    for (size_t g = 0; g < n; ++g) {
      const uint32_t code = codes[g * stride + offset];
      if (code == 0) {
        ++nulls;
        continue;
      }
      columnar::SetBit(bits.data(), static_cast<int64_t>(g));
      if (width == 4) {
        const auto v = static_cast<int32_t>(ints_[code]);
        std::memcpy(values.data() + g * 4, &v, 4);
      } else {
        std::memcpy(values.data() + g * 8, &ints_[code], 8);
      }
    }
    c->values = Buffer(std::move(values));
    c->null_count = nulls;
    if (nulls > 0) c->validity = Buffer(std::move(bits));
    return columnar::ColumnPtr(std::move(c));
  }
  ValueColumnBuilder b(type);
  for (size_t g = 0; g < n; ++g) FLOE_RETURN_IF_ERROR(b.Append(value(codes[g * stride + offset])));
  return b.Finish();
}

uint32_t KeyDict::InternBytes(std::string_view b, uint64_t h, const Value* v) {
  const size_t mask = slots_.size() - 1;
  const auto tag = static_cast<uint32_t>(h >> 32);
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    BytesSlot& slot = slots_[i];
    if (slot.code == 0) {
      const auto code = static_cast<uint32_t>(ends_.size());
      slot = BytesSlot{code, tag};
      arena_.insert(arena_.end(), b.begin(), b.end());
      ends_.push_back(arena_.size());
      hashes_.push_back(h);
      if (kind_ == Kind::kGeneric) values_.push_back(*v);
      if (ends_.size() * 2 > slots_.size()) Grow();
      return code;
    }
    if (slot.tag != tag) continue;
    const std::string_view have = Bytes(slot.code);
    if (have.size() == b.size() && SameBytes(have.data(), b.data(), b.size())) return slot.code;
  }
}

uint32_t KeyDict::InternBytes(std::string_view b, const Value* v) {
  return InternBytes(b, XXH3_64bits(b.data(), b.size()), v);
}

uint32_t KeyDict::InternValue(const Value& v) {
  if (v.is_null()) return 0;
  switch (kind_) {
    case Kind::kInt64:
    case Kind::kInt32:
      return InternInt(v.i());
    case Kind::kBytes:
      return InternBytes(v.s(), &v);
    case Kind::kGeneric: {
      std::string k;
      AppendKeyBytes(v, &k);
      return InternBytes(k, &v);
    }
  }
  return 0;
}

namespace {

// The least and greatest of values[r] for the rows r < n that `c` does not hold NULL; false when
// every row is NULL.
template <typename T>
bool ValueRange(const columnar::Column& c, const T* values, int64_t n, int64_t* lo, int64_t* hi) {
  T least = std::numeric_limits<T>::max(), greatest = std::numeric_limits<T>::min();
  bool any = false;
  if (c.null_count == 0) {
    for (int64_t r = 0; r < n; ++r) {
      least = std::min(least, values[r]);
      greatest = std::max(greatest, values[r]);
    }
    any = n > 0;
  } else {
    for (int64_t r = 0; r < n; ++r) {
      if (c.IsNull(r)) continue;
      least = std::min(least, values[r]);
      greatest = std::max(greatest, values[r]);
      any = true;
    }
  }
  *lo = least;
  *hi = greatest;
  return any;
}

}  // namespace

template <typename T>
bool KeyDict::InternDirect(const columnar::Column& c, const T* values, uint32_t* out) {
  const int64_t n = c.length;
  int64_t lo = 0, hi = 0;
  if (ValueRange(c, values, n, &lo, &hi)) {
    const uint64_t top = static_cast<uint64_t>(hi) - static_cast<uint64_t>(direct_base_);
    const bool held = lo >= direct_base_ && top < direct_.size();
    if (!held && !CoverDirect(lo, hi, n)) return false;
  }
  uint32_t* codes = direct_.data();
  const auto base = static_cast<uint64_t>(direct_base_);
  const bool nulls = c.null_count > 0;
  for (int64_t r = 0; r < n; ++r) {
    if (nulls && c.IsNull(r)) {
      out[r] = 0;
      continue;
    }
    uint32_t& code = codes[static_cast<uint64_t>(values[r]) - base];
    if (code == 0) code = NewInt(values[r]);
    out[r] = code;
  }
  // The batch's rows let the range be wide before its values were known: a range far wider
  // than the values coded (a batch of few keys far apart) goes to the hash table now.
  const size_t most = std::max<size_t>(size_t{1} << 16, size_t{2} * kDirectPerValue * ints_.size());
  if (direct_.size() > most) ToHashed();
  return true;
}

uint32_t KeyDict::InternCodeOf(const KeyDict& other, uint32_t code) {
  if (code == 0) return 0;
  if (IsInt() && other.IsInt()) return InternInt(other.ints_[code]);
  if (kind_ == Kind::kBytes && other.kind_ == Kind::kBytes) {
    return InternBytes(other.Bytes(code), other.hashes_[code], nullptr);
  }
  return InternValue(other.value(code));
}

Status KeyDict::Intern(const columnar::Column& c, std::vector<uint32_t>* codes) {
  const int64_t n = c.length;
  codes->resize(static_cast<size_t>(n));
  uint32_t* out = codes->data();
  const bool nulls = c.null_count > 0;
  switch (kind_) {
    case Kind::kInt64:
    case Kind::kInt32: {
      if (!hashed_ && (kind_ == Kind::kInt64 ? InternDirect(c, c.Values<int64_t>(), out)
                                             : InternDirect(c, c.Values<int32_t>(), out))) {
        return {};
      }
      // Each row's slot is fetched a few rows ahead: many groups make every lookup a cache miss.
      constexpr int64_t kAhead = 16;
      const bool wide = kind_ == Kind::kInt64;
      const int64_t* v64 = c.Values<int64_t>();
      const int32_t* v32 = c.Values<int32_t>();
      auto value = [&](int64_t r) -> int64_t { return wide ? v64[r] : v32[r]; };
      // A row with its predecessor's value takes its code without a lookup: rows sorted or
      // clustered by the key (a table laid out by it; lineitem's orders) repeat it in runs.
      int64_t last = 0;
      uint32_t last_code = 0;
      for (int64_t r = 0; r < n; ++r) {
        // (Not once the values have moved back to direct codes: InternInt's Grow may do that.)
        if (r + kAhead < n && hashed_) {
          __builtin_prefetch(&int_slots_[MixInt(value(r + kAhead)) & (int_slots_.size() - 1)]);
        }
        if (nulls && c.IsNull(r)) {
          out[r] = 0;
          continue;
        }
        const int64_t x = value(r);
        if (last_code == 0 || x != last) {
          last = x;
          last_code = InternInt(x);
        }
        out[r] = last_code;
      }
      return {};
    }
    case Kind::kBytes:
      if (c.dictionary && c.codes.size() >= static_cast<size_t>(n) * 4) {
        // Each distinct value interned once, per dictionary; the rows look their codes up.
        if (c.dictionary != last_dictionary_) {
          last_dictionary_ = c.dictionary;
          const columnar::Column& d = *c.dictionary;
          dictionary_codes_.resize(static_cast<size_t>(d.length));
          for (int64_t k = 0; k < d.length; ++k) {
            dictionary_codes_[static_cast<size_t>(k)] = InternBytes(d.BytesAt(k), nullptr);
          }
        }
        const int32_t* codes = reinterpret_cast<const int32_t*>(c.codes.data());
        const size_t size = dictionary_codes_.size();
        const uint32_t* map = dictionary_codes_.data();
        for (int64_t r = 0; r < n; ++r) {
          const auto k = static_cast<size_t>(codes[r]);
          out[r] = nulls && c.IsNull(r) ? 0
                   : k < size           ? map[k]
                                        : InternBytes(c.BytesAt(r), nullptr);
        }
        return {};
      }
      {
        // The rows' hashes first, so each row's slot is fetched a few rows ahead: many groups
        // make every lookup a cache miss.
        constexpr int64_t kAhead = 8;
        hash_scratch_.resize(static_cast<size_t>(n));
        uint64_t* h = hash_scratch_.data();
        for (int64_t r = 0; r < n; ++r) {
          const std::string_view b = c.BytesAt(r);
          h[r] = XXH3_64bits(b.data(), b.size());
        }
        for (int64_t r = 0; r < n; ++r) {
          if (r + kAhead < n) __builtin_prefetch(&slots_[h[r + kAhead] & (slots_.size() - 1)]);
          out[r] = nulls && c.IsNull(r) ? 0 : InternBytes(c.BytesAt(r), h[r], nullptr);
        }
      }
      return {};
    case Kind::kGeneric:
      for (int64_t r = 0; r < n; ++r) {
        FLOE_ASSIGN_OR_RETURN(Value v, ValueAt(c, r));
        out[r] = InternValue(v);
      }
      return {};
  }
  return {};
}

HashAggregate::HashAggregate(std::vector<ExprPtr> keys, std::vector<Aggregate> aggregates)
    : keys_(std::move(keys)), aggregates_(std::move(aggregates)) {
  for (const auto& k : keys_) dicts_.emplace_back(k->type);
  if (keys_.size() > 1) table_.assign(64, 0);
  if (keys_.empty()) {
    groups_ = 1;
    states_.resize(aggregates_.size());
  }
}

void HashAggregate::GrowTable() {
  std::vector<int32_t> old = std::move(table_);
  table_.assign(old.size() * 2, 0);
  const size_t k = keys_.size(), mask = table_.size() - 1;
  for (int32_t slot : old) {
    if (slot == 0) continue;
    const uint32_t* c = codes_.data() + static_cast<size_t>(slot - 1) * k;
    size_t i = (k == 2 ? MixInt(static_cast<int64_t>(packed_[static_cast<size_t>(slot - 1)]))
                       : XXH3_64bits(c, k * sizeof(uint32_t))) &
               mask;
    while (table_[i] != 0) i = (i + 1) & mask;
    table_[i] = slot;
  }
}

int32_t HashAggregate::GroupOfCodes(const uint32_t* codes) {
  const size_t k = keys_.size();
  if (k == 1) {
    uint32_t c = codes[0];
    if (c >= by_code_.size()) by_code_.resize(std::max<size_t>(c + 1, by_code_.size() * 2));
    if (by_code_[c] == 0) {
      by_code_[c] = static_cast<int32_t>(++groups_);
      codes_.push_back(c);
      states_.resize(states_.size() + aggregates_.size());
    }
    return by_code_[c] - 1;
  }
  if (k == 2) {
    // Two codes pack into one integer: hashed and compared as one.
    const uint64_t key = (static_cast<uint64_t>(codes[0]) << 32) | codes[1];
    const size_t mask = table_.size() - 1;
    for (size_t i = MixInt(static_cast<int64_t>(key)) & mask;; i = (i + 1) & mask) {
      int32_t slot = table_[i];
      if (slot == 0) {
        int32_t g = static_cast<int32_t>(groups_++);
        table_[i] = g + 1;
        codes_.append(codes, 2);
        packed_.push_back(key);
        states_.resize(states_.size() + aggregates_.size());
        if (static_cast<size_t>(groups_) * 2 > table_.size()) GrowTable();
        return g;
      }
      if (packed_[static_cast<size_t>(slot - 1)] == key) return slot - 1;
    }
  }
  const size_t mask = table_.size() - 1;
  for (size_t i = XXH3_64bits(codes, k * sizeof(uint32_t)) & mask;; i = (i + 1) & mask) {
    int32_t slot = table_[i];
    if (slot == 0) {
      int32_t g = static_cast<int32_t>(groups_++);
      table_[i] = g + 1;
      codes_.append(codes, k);
      states_.resize(states_.size() + aggregates_.size());
      if (static_cast<size_t>(groups_) * 2 > table_.size()) GrowTable();
      return g;
    }
    if (std::memcmp(codes_.data() + static_cast<size_t>(slot - 1) * k, codes,
                    k * sizeof(uint32_t)) == 0) {
      return slot - 1;
    }
  }
}

void HashAggregate::GroupsOf(const std::vector<std::vector<uint32_t>>& codes, int64_t rows,
                             std::vector<int32_t>* groups) {
  const size_t k = keys_.size();
  if (k == 0) {
    // One group: the vector only ever holds zeros, so it only grows (longer than `rows` is fine).
    if (groups->size() < static_cast<size_t>(rows)) groups->resize(static_cast<size_t>(rows), 0);
    return;
  }
  groups->resize(static_cast<size_t>(rows));
  if (k == 1) {
    // A code's group is by_code_'s, sized to the dictionary first: a lookup per row.
    const size_t known = dicts_[0].size();
    if (by_code_.size() < known) by_code_.resize(std::max(known, by_code_.size() * 2));
    const uint32_t* c = codes[0].data();
    int32_t* out = groups->data();
    for (int64_t r = 0; r < rows; ++r) {
      const int32_t g = by_code_[c[r]];
      out[r] = g > 0 ? g - 1 : GroupOfCodes(c + r);
    }
    return;
  }
  std::vector<uint32_t> tuple(k);
  if (k == 2) {
    constexpr size_t kDenseLimit = 1 << 16;
    const size_t n0 = dicts_[0].size(), n1 = dicts_[1].size();
    if (n0 * n1 <= kDenseLimit) {
      if (n0 > dense_rows_ || n1 > dense_stride_) {
        // Room for the dictionaries to double before the next rebuild, within the limit.
        dense_rows_ = std::max(n0, std::min(2 * n0, kDenseLimit / n1));
        dense_stride_ = std::max(n1, std::min(2 * n1, kDenseLimit / dense_rows_));
        dense_.assign(dense_rows_ * dense_stride_, -1);
        for (int64_t g = 0; g < groups_; ++g) {
          dense_[codes_[2 * g] * dense_stride_ + codes_[2 * g + 1]] = static_cast<int32_t>(g);
        }
      }
      const uint32_t* a = codes[0].data();
      const uint32_t* b = codes[1].data();
      int32_t* out = groups->data();
      for (int64_t r = 0; r < rows; ++r) {
        int32_t& slot = dense_[a[r] * dense_stride_ + b[r]];
        if (slot < 0) {
          tuple[0] = a[r];
          tuple[1] = b[r];
          slot = GroupOfCodes(tuple.data());
        }
        out[r] = slot;
      }
      return;
    }
  }
  for (int64_t r = 0; r < rows; ++r) {
    for (size_t i = 0; i < k; ++i) tuple[i] = codes[i][static_cast<size_t>(r)];
    (*groups)[static_cast<size_t>(r)] = GroupOfCodes(tuple.data());
  }
}

Status HashAggregate::Update(State& s, const Aggregate& a, const Value& v) {
  if (a.fn == AggFn::kCountStar) {
    ++s.count;
    return {};
  }
  if (v.is_null()) return {};
  if (a.distinct) {
    if (v.v.index() == 2 && IntegerValued(a.arg->type.id)) {
      if (!K(s).distinct_ints.Insert(v.i())) return {};
    } else {
      std::string k;
      AppendKeyBytes(v, &k);
      if (!K(s).distinct.insert(std::move(k)).second) return {};
    }
  }
  ++s.count;
  switch (a.fn) {
    case AggFn::kSum:
    case AggFn::kAvg:
      if (v.v.index() == 2) {
        s.isum += v.i();
        s.dsum += static_cast<double>(v.i());
      } else if (v.v.index() == 5) {
        // Unscaled decimals: |value| < 10^38, so 2^127 / 10^38 (about 1.7 million) of them fit
        // before the accumulator could wrap; Finish rejects a sum past 38 digits.
        s.isum += v.dec();
      } else {
        s.dsum += v.d();
      }
      break;
    case AggFn::kMin:
      if (s.Best().is_null() || CompareValues(v, s.Best()) < 0) K(s).best = v;
      break;
    case AggFn::kMax:
      if (s.Best().is_null() || CompareValues(v, s.Best()) > 0) K(s).best = v;
      break;
    default:
      break;
  }
  return {};
}

namespace {
// PartitionFew lists each group's rows of a batch for at most this many groups.
constexpr size_t kFewGroups = 16;
// MIN/MAX of a dictionary-coded string compares each group's entry once per batch while the
// groups times the entries stay within this many bits (128 KiB).
constexpr uint64_t kSeenBits = uint64_t{1} << 20;
}  // namespace

Status HashAggregate::UpdateColumn(size_t a, const Inputs& in, const std::vector<int32_t>& groups,
                                   int64_t rows) {
  const Aggregate& agg = aggregates_[a];
  const size_t stride = aggregates_.size();
  State* st = states_.data() + a;
  const int32_t* g = groups.data();
  const uint8_t* keep = in.keep.empty() ? nullptr : in.keep.data();
  // A row's state is fetched a few rows ahead: with many groups each is a cache miss.
  constexpr int64_t kAhead = 16;
  if (agg.fn == AggFn::kGrouping) return {};  // known from the grouping set alone
  if (agg.fn == AggFn::kCountStar) {
    if (keep != nullptr) {
      for (int64_t r = 0; r < rows; ++r) st[g[r] * stride].count += keep[r];
    } else if (keys_.empty()) {
      st[0].count += rows;
    } else {
      for (int64_t r = 0; r < rows; ++r) ++st[g[r] * stride].count;
    }
    return {};
  }
  const columnar::Column* arg = in.arg.get();
  const TypeId t = arg->type.id;
  const bool nulls = arg->null_count > 0 || t == TypeId::kNull;
  auto valid = [&](int64_t r) {
    return (keep == nullptr || keep[r] != 0) && (!nulls || (t != TypeId::kNull && arg->IsValid(r)));
  };
  if (agg.fn == AggFn::kCountIf && t == TypeId::kBool) {
    for (int64_t r = 0; r < rows; ++r) {
      if (!valid(r)) continue;
      State& s = st[g[r] * stride];
      ++s.ibest;
      s.count += arg->BoolAt(r) ? 1 : 0;
    }
    return {};
  }
  if (agg.fn > AggFn::kMax) {
    for (int64_t r = 0; r < rows; ++r) {
      if (keep != nullptr && keep[r] == 0) continue;
      FLOE_RETURN_IF_ERROR(UpdateKept(st[g[r] * stride], agg, in, r));
    }
    return {};
  }
  if (!agg.distinct) {
    if (agg.fn == AggFn::kCount) {
      for (int64_t r = 0; r < rows; ++r) st[g[r] * stride].count += valid(r);
      return {};
    }
    const bool sum = agg.fn == AggFn::kSum || agg.fn == AggFn::kAvg;
    if (sum && keys_.empty() && !nulls && keep == nullptr &&
        (t == TypeId::kInt64 || t == TypeId::kFloat64 || t == TypeId::kDecimal128)) {
      // One group and no nulls: plain running sums, folded into the state once.
      State& s = st[0];
      s.count += rows;
      if (t == TypeId::kInt64) {
        const int64_t* v = arg->Values<int64_t>();
        __int128 isum = 0;  // SUM and AVG of integers come from the exact sum alone
        for (int64_t r = 0; r < rows; ++r) isum += v[r];
        s.isum += isum;
      } else if (t == TypeId::kFloat64) {
        const double* v = arg->Values<double>();
        double dsum = 0;
        for (int64_t r = 0; r < rows; ++r) dsum += v[r];
        s.dsum += dsum;
      } else {
        // As below: Finish rejects a sum past 38 digits (not one past 2^127).
        const uint8_t* v = arg->values.data();
        __int128 isum = 0;
        for (int64_t r = 0; r < rows; ++r) {
          __int128 x;
          std::memcpy(&x, v + r * 16, 16);
          isum += x;
        }
        s.isum += isum;
      }
      return {};
    }
    if (sum && t == TypeId::kInt64) {
      const int64_t* v = arg->Values<int64_t>();
      for (int64_t r = 0; r < rows; ++r) {
        if (r + kAhead < rows) __builtin_prefetch(&st[g[r + kAhead] * stride]);
        if (!valid(r)) continue;
        State& s = st[g[r] * stride];
        ++s.count;
        s.isum += v[r];
      }
      return {};
    }
    if (sum && t == TypeId::kFloat64) {
      const double* v = arg->Values<double>();
      for (int64_t r = 0; r < rows; ++r) {
        if (r + kAhead < rows) __builtin_prefetch(&st[g[r + kAhead] * stride]);
        if (!valid(r)) continue;
        State& s = st[g[r] * stride];
        ++s.count;
        s.dsum += v[r];
      }
      return {};
    }
    if (sum && t == TypeId::kDecimal128) {
      // Unscaled decimals into an __int128: Finish rejects a sum past 38 digits. Known gap: a
      // running sum past 2^127 (two values near 10^38 can get there) is not caught.
      const uint8_t* v = arg->values.data();
      for (int64_t r = 0; r < rows; ++r) {
        if (r + kAhead < rows) __builtin_prefetch(&st[g[r + kAhead] * stride]);
        if (!valid(r)) continue;
        __int128 x;
        std::memcpy(&x, v + r * 16, 16);
        State& s = st[g[r] * stride];
        ++s.count;
        s.isum += x;
      }
      return {};
    }
    if ((agg.fn == AggFn::kMin || agg.fn == AggFn::kMax) && IntegerValued(t)) {
      const bool is_min = agg.fn == AggFn::kMin;
      auto loop = [&]<typename T>(const T* v) {
        for (int64_t r = 0; r < rows; ++r) {
          if (r + kAhead < rows) __builtin_prefetch(&st[g[r + kAhead] * stride]);
          if (!valid(r)) continue;
          State& s = st[g[r] * stride];
          int64_t x = v[r];
          if (s.count == 0 || (is_min ? x < s.ibest : x > s.ibest)) s.ibest = x;
          ++s.count;
        }
      };
      if (t == TypeId::kDate32) {
        loop(arg->Values<int32_t>());
      } else {
        loop(arg->Values<int64_t>());
      }
      return {};
    }
    if ((agg.fn == AggFn::kMin || agg.fn == AggFn::kMax) &&
        (t == TypeId::kString || t == TypeId::kBinary)) {
      // Bytes compared in place (as CompareValues compares strings); a copy only of a new best.
      const bool is_min = agg.fn == AggFn::kMin;
      // A dictionary-coded batch, while its groups by its entries are few: a row whose group
      // compared its entry already (a bit per group and entry) cannot beat that group's best.
      const uint64_t entries = arg->dictionary ? static_cast<uint64_t>(arg->dictionary->length) : 0;
      const auto* codes = entries > 0 && static_cast<uint64_t>(groups_) * entries <= kSeenBits
                              ? reinterpret_cast<const int32_t*>(arg->codes.data())
                              : nullptr;
      std::vector<uint64_t> seen(codes != nullptr ? groups_ * entries / 64 + 1 : 0);
      for (int64_t r = 0; r < rows; ++r) {
        if (!valid(r)) continue;
        State& s = st[g[r] * stride];
        const int64_t n = s.count++;
        if (codes != nullptr && static_cast<uint32_t>(codes[r]) < entries) {
          const uint64_t e =
              static_cast<uint64_t>(g[r]) * entries + static_cast<uint32_t>(codes[r]);
          if ((seen[e / 64] >> (e % 64)) & 1) continue;
          seen[e / 64] |= uint64_t{1} << (e % 64);
        }
        const std::string_view x = arg->BytesAt(r);
        if (n > 0) {
          const int c = x.compare(s.Best().s());
          if (is_min ? c >= 0 : c <= 0) continue;
        }
        K(s).best = Value::Str(std::string(x));
      }
      return {};
    }
  }
  if (agg.distinct && keep == nullptr && IntegerValued(arg->type.id) &&
      (agg.fn == AggFn::kCount || agg.fn == AggFn::kSum || agg.fn == AggFn::kAvg)) {
    // COUNT/SUM/AVG(DISTINCT) of an integer-valued column: each group's set of values seen, by
    // value (the sums are recomputed from the sets at Finish, as Update leaves them).
    auto loop = [&]<typename T>(const T* v) {
      for (int64_t r = 0; r < rows; ++r) {
        if (!valid(r)) continue;
        State& s = st[g[r] * stride];
        if (K(s).distinct_ints.Insert(static_cast<int64_t>(v[r]))) ++s.count;
      }
    };
    if (arg->type.id == TypeId::kDate32) {
      loop(arg->Values<int32_t>());
    } else {
      loop(arg->Values<int64_t>());
    }
    return {};
  }
  for (int64_t r = 0; r < rows; ++r) {
    if (!valid(r)) continue;
    FLOE_ASSIGN_OR_RETURN(Value v, ValueAt(*arg, r));
    FLOE_RETURN_IF_ERROR(Update(st[g[r] * stride], agg, v));
  }
  return {};
}

namespace {

// A numeric value as a double (decimals at their scale).
double AsDouble(const Value& v, const DataType& type) {
  switch (v.v.index()) {
    case 2:
      return static_cast<double>(v.i());
    case 5:
      return static_cast<double>(v.dec()) / std::pow(10.0, type.scale);
    default:
      return v.d();
  }
}

}  // namespace

Status HashAggregate::UpdateKept(State& s, const Aggregate& a, const Inputs& in, int64_t r) {
  const columnar::Column& arg = *in.arg;
  const bool null = arg.type.id == TypeId::kNull || !arg.IsValid(r);
  if (a.fn == AggFn::kFirst) {
    if (s.count++ == 0 && !null) {
      FLOE_ASSIGN_OR_RETURN(K(s).best, ValueAt(arg, r));
    }
    return {};
  }
  if (null) return {};
  switch (a.fn) {
    case AggFn::kCountIf:
      ++s.ibest;
      s.count += arg.BoolAt(r) ? 1 : 0;
      return {};
    case AggFn::kBoolAnd:
    case AggFn::kBoolOr: {
      const int64_t b = arg.BoolAt(r) ? 1 : 0;
      if (s.count++ == 0) {
        s.ibest = b;
      } else {
        s.ibest = a.fn == AggFn::kBoolAnd ? (s.ibest & b) : (s.ibest | b);
      }
      return {};
    }
    case AggFn::kAnyValue:
      if (s.count++ == 0) {
        FLOE_ASSIGN_OR_RETURN(K(s).best, ValueAt(arg, r));
      }
      return {};
    case AggFn::kArgMin:
    case AggFn::kArgMax: {
      const columnar::Column& by = *in.arg2;
      if (by.type.id == TypeId::kNull || !by.IsValid(r)) return {};
      FLOE_ASSIGN_OR_RETURN(Value key, ValueAt(by, r));
      const int c = s.count == 0 ? 0 : CompareValues(key, s.Best());
      if (s.count == 0 || (a.fn == AggFn::kArgMin ? c < 0 : c > 0)) {
        FLOE_ASSIGN_OR_RETURN(K(s).payload, ValueAt(arg, r));
        s.kept->best = std::move(key);
      }
      ++s.count;
      return {};
    }
    case AggFn::kVarSamp:
    case AggFn::kVarPop:
    case AggFn::kStddevSamp:
    case AggFn::kStddevPop: {
      FLOE_ASSIGN_OR_RETURN(Value v, ValueAt(arg, r));
      const double x = AsDouble(v, arg.type);
      ++s.count;
      Kept& k = K(s);
      const double delta = x - k.mean;
      k.mean += delta / static_cast<double>(s.count);
      k.m2 += delta * (x - k.mean);
      return {};
    }
    case AggFn::kApproxCountDistinct: {
      K(s);
      uint64_t h;
      if (IntegerValued(arg.type.id)) {
        const int64_t x =
            arg.type.id == TypeId::kDate32 ? arg.Value<int32_t>(r) : arg.Value<int64_t>(r);
        h = XXH3_64bits(&x, sizeof x);
      } else if (arg.type.IsBinaryLike()) {
        const std::string_view b = arg.BytesAt(r);
        h = XXH3_64bits(b.data(), b.size());
      } else {
        FLOE_ASSIGN_OR_RETURN(Value v, ValueAt(arg, r));
        std::string k;
        AppendKeyBytes(v, &k);
        h = XXH3_64bits(k.data(), k.size());
      }
      s.kept->sketch.Add(h);
      ++s.count;
      return {};
    }
    default: {  // the quantiles and string_agg keep the values
      K(s);
      FLOE_ASSIGN_OR_RETURN(Value v, ValueAt(arg, r));
      s.kept->values.push_back(std::move(v));
      if (!in.order.empty()) {
        std::vector<Value> keys;
        keys.reserve(in.order.size());
        for (const ColumnPtr& o : in.order) {
          if (o->type.id == TypeId::kNull || !o->IsValid(r)) {
            keys.emplace_back();
          } else {
            FLOE_ASSIGN_OR_RETURN(Value k, ValueAt(*o, r));
            keys.push_back(std::move(k));
          }
        }
        s.kept->orders.push_back(std::move(keys));
      }
      ++s.count;
      return {};
    }
  }
}

Status HashAggregate::Consume(const columnar::RecordBatch& batch) {
  std::vector<std::vector<uint32_t>>& codes = batch_codes_;
  codes.resize(keys_.size());
  for (size_t k = 0; k < keys_.size(); ++k) {
    FLOE_ASSIGN_OR_RETURN(ColumnPtr c, Evaluate(*keys_[k], batch));
    FLOE_RETURN_IF_ERROR(dicts_[k].Intern(*c, &codes[k]));
  }
  std::vector<int32_t>& groups = batch_groups_;
  GroupsOf(codes, batch.num_rows, &groups);
  PartitionFew(groups, batch.num_rows);
  if (shared_base_ != batch.num_columns()) ShareSubexpressions(batch.num_columns());
  columnar::RecordBatch extended;
  if (!shared_.empty()) {
    extended = batch;
    auto schema = std::make_shared<columnar::Schema>(*batch.schema);
    for (const ExprPtr& e : shared_) {
      FLOE_ASSIGN_OR_RETURN(ColumnPtr c, Evaluate(*e, extended));
      schema->fields.push_back({fmt::format("__shared{}", extended.columns.size()), e->type, true});
      extended.columns.push_back(std::move(c));
    }
    extended.schema = std::move(schema);
  }
  for (size_t a = 0; a < aggregates_.size(); ++a) {
    const Aggregate& agg = aggregates_[a];
    Inputs in;
    if (agg.arg) {
      FLOE_ASSIGN_OR_RETURN(in.arg, shared_.empty() ? Evaluate(*agg.arg, batch)
                                                    : Evaluate(*shared_args_[a], extended));
    }
    if (agg.arg2) {
      FLOE_ASSIGN_OR_RETURN(in.arg2, Evaluate(*agg.arg2, batch));
    }
    for (const ExprPtr& o : agg.order) {
      FLOE_ASSIGN_OR_RETURN(ColumnPtr c, Evaluate(*o, batch));
      in.order.push_back(std::move(c));
    }
    if (agg.filter) {
      FLOE_ASSIGN_OR_RETURN(ColumnPtr f, Evaluate(*agg.filter, batch));
      in.keep.assign(static_cast<size_t>(batch.num_rows), 0);
      if (f->type.id == TypeId::kBool) {
        for (int64_t r = 0; r < batch.num_rows; ++r) {
          in.keep[static_cast<size_t>(r)] = f->IsValid(r) && f->BoolAt(r) ? 1 : 0;
        }
      }
    }
    if (UpdateFew(a, in)) continue;
    FLOE_RETURN_IF_ERROR(UpdateColumn(a, in, groups, batch.num_rows));
  }
  return {};
}

namespace {

// Calls whose arguments are computed over every row (arithmetic): their subexpressions can be
// computed once for all the rows. Others (CASE, COALESCE, AND, functions) may compute an
// argument over some rows only -- `CASE WHEN x <> 0 THEN 1 / x END` must not divide by zero --
// and are shared whole or not at all.
bool OverEveryRow(const Expr& e) {
  return e.kind == Expr::Kind::kCall &&
         (e.fn == Fn::kAdd || e.fn == Fn::kSub || e.fn == Fn::kMul || e.fn == Fn::kNeg);
}

void CountCalls(const ExprPtr& e, std::map<std::string, int>* counts) {
  if (e->kind != Expr::Kind::kCall) return;
  ++(*counts)[e->ToString()];
  if (!OverEveryRow(*e)) return;
  for (const ExprPtr& a : e->args) CountCalls(a, counts);
}

}  // namespace

void HashAggregate::ShareSubexpressions(int batch_columns) {
  shared_base_ = batch_columns;
  shared_.clear();
  shared_args_.clear();
  std::map<std::string, int> counts;
  for (const Aggregate& a : aggregates_) {
    if (a.arg) CountCalls(a.arg, &counts);
  }
  std::map<std::string, ExprPtr> made;  // a shared call's column, by its canonical form
  // `e` with its shared calls read from their columns (each computed once, before its users).
  auto rewrite = [&](auto& self, const ExprPtr& e) -> ExprPtr {
    if (e->kind != Expr::Kind::kCall) return e;
    const std::string key = e->ToString();
    if (auto it = made.find(key); it != made.end()) return it->second;
    ExprPtr out = e;
    if (OverEveryRow(*e)) {
      auto copy = std::make_shared<Expr>(*e);
      for (ExprPtr& a : copy->args) a = self(self, a);
      out = std::move(copy);
    }
    if (counts[key] < 2) return out;
    shared_.push_back(out);
    ExprPtr column = ColumnRef(batch_columns + static_cast<int>(shared_.size()) - 1, e->type, key);
    made[key] = column;
    return column;
  };
  for (const Aggregate& a : aggregates_) {
    shared_args_.push_back(a.arg ? rewrite(rewrite, a.arg) : nullptr);
  }
}

void HashAggregate::PartitionFew(const std::vector<int32_t>& groups, int64_t rows) {
  few_offsets_.clear();
  if (keys_.empty() || aggregates_.empty()) return;
  const size_t n = states_.size() / aggregates_.size();
  // Row numbers fit int32; past a few groups each list is short and the per-row loops do as well.
  if (n > kFewGroups || rows > (int64_t{1} << 30)) return;
  few_offsets_.assign(n + 1, 0);
  for (int64_t r = 0; r < rows; ++r) ++few_offsets_[static_cast<size_t>(groups[r]) + 1];
  for (size_t g = 0; g < n; ++g) few_offsets_[g + 1] += few_offsets_[g];
  few_rows_.resize(static_cast<size_t>(rows));
  std::vector<int64_t> at(few_offsets_.begin(), few_offsets_.end() - 1);
  for (int64_t r = 0; r < rows; ++r) {
    few_rows_[static_cast<size_t>(at[static_cast<size_t>(groups[r])]++)] = static_cast<int32_t>(r);
  }
}

bool HashAggregate::UpdateFew(size_t a, const Inputs& in) {
  if (few_offsets_.empty()) return false;
  const Aggregate& agg = aggregates_[a];
  if (agg.distinct || !in.keep.empty()) return false;
  const size_t groups = few_offsets_.size() - 1;
  const size_t stride = aggregates_.size();
  State* st = states_.data() + a;
  auto rows_of = [&](size_t g) {
    return std::span<const int32_t>(few_rows_.data() + few_offsets_[g],
                                    static_cast<size_t>(few_offsets_[g + 1] - few_offsets_[g]));
  };
  if (agg.fn == AggFn::kCountStar) {
    for (size_t g = 0; g < groups; ++g)
      st[g * stride].count += static_cast<int64_t>(rows_of(g).size());
    return true;
  }
  const columnar::Column* arg = in.arg.get();
  if (arg == nullptr || arg->null_count > 0) return false;
  const TypeId t = arg->type.id;
  if (agg.fn == AggFn::kCount && t != TypeId::kNull) {
    for (size_t g = 0; g < groups; ++g)
      st[g * stride].count += static_cast<int64_t>(rows_of(g).size());
    return true;
  }
  if (agg.fn != AggFn::kSum && agg.fn != AggFn::kAvg) return false;
  if (t == TypeId::kInt64) {
    const int64_t* v = arg->Values<int64_t>();
    for (size_t g = 0; g < groups; ++g) {
      __int128 sum = 0;
      for (int32_t r : rows_of(g)) sum += v[r];
      st[g * stride].isum += sum;
      st[g * stride].count += static_cast<int64_t>(rows_of(g).size());
    }
    return true;
  }
  if (t == TypeId::kFloat64) {
    // Each group's rows in order onto its running sum, as the per-row loop adds them: the same
    // sums to the last bit.
    const double* v = arg->Values<double>();
    for (size_t g = 0; g < groups; ++g) {
      double sum = st[g * stride].dsum;
      for (int32_t r : rows_of(g)) sum += v[r];
      st[g * stride].dsum = sum;
      st[g * stride].count += static_cast<int64_t>(rows_of(g).size());
    }
    return true;
  }
  if (t != TypeId::kDecimal128) return false;
  // Decimals whose high half only extends the sign (values within 64 bits), summed from their low
  // halves: under 2^30 of them cannot pass 2^127. A batch with a wider one changes nothing here.
  const uint8_t* v = arg->values.data();
  std::vector<__int128> sums(groups, 0);
  int64_t wide = 0;
  for (size_t g = 0; g < groups; ++g) {
    __int128 sum = 0;
    for (int32_t r : rows_of(g)) {
      int64_t lo = 0, hi = 0;
      std::memcpy(&lo, v + static_cast<size_t>(r) * 16, 8);
      std::memcpy(&hi, v + static_cast<size_t>(r) * 16 + 8, 8);
      wide |= hi ^ (lo >> 63);
      sum += lo;
    }
    sums[g] = sum;
  }
  if (wide != 0) return false;
  for (size_t g = 0; g < groups; ++g) {
    st[g * stride].isum += sums[g];
    st[g * stride].count += static_cast<int64_t>(rows_of(g).size());
  }
  return true;
}

HashAggregate::Kept& HashAggregate::K(State& s) {
  if (s.kept == nullptr) {
    kept_.push_back(std::make_unique<Kept>());
    s.kept = kept_.back().get();
    s.kept->slot = kept_.size() - 1;
  }
  return *s.kept;
}

void HashAggregate::Adopt(HashAggregate& from, State& s, State& o) {
  s.kept = nullptr;
  if (o.kept == nullptr) return;
  std::unique_ptr<Kept>& owned = from.kept_[o.kept->slot];
  owned->slot = kept_.size();
  kept_.push_back(std::move(owned));
  s.kept = std::exchange(o.kept, nullptr);
}

void HashAggregate::MergeState(const Aggregate& a, State& s, State& o, HashAggregate& from) {
  if (a.fn == AggFn::kCountIf) {
    s.count += o.count;
    s.ibest += o.ibest;
    return;
  }
  if (o.count == 0) return;
  switch (a.fn) {
    case AggFn::kBoolAnd:
      s.ibest = s.count == 0 ? o.ibest : (s.ibest & o.ibest);
      break;
    case AggFn::kBoolOr:
      s.ibest = s.count == 0 ? o.ibest : (s.ibest | o.ibest);
      break;
    case AggFn::kAnyValue:
    case AggFn::kFirst:
      if (s.count == 0) Adopt(from, s, o);
      break;
    case AggFn::kArgMin:
    case AggFn::kArgMax: {
      const int c = s.count == 0 ? 0 : CompareValues(o.Best(), s.Best());
      if (s.count == 0 || (a.fn == AggFn::kArgMin ? c < 0 : c > 0)) {
        Adopt(from, s, o);
      }
      break;
    }
    case AggFn::kVarSamp:
    case AggFn::kVarPop:
    case AggFn::kStddevSamp:
    case AggFn::kStddevPop: {
      // Chan et al.'s pairwise combination of two running means and sums of squares.
      const double n1 = static_cast<double>(s.count), n2 = static_cast<double>(o.count);
      Kept& k = K(s);
      const Kept& ok = from.K(o);
      const double delta = ok.mean - k.mean;
      k.mean += delta * n2 / (n1 + n2);
      k.m2 += ok.m2 + delta * delta * n1 * n2 / (n1 + n2);
      break;
    }
    case AggFn::kApproxCountDistinct:
      if (!s.kept) {
        Adopt(from, s, o);
      } else {
        s.kept->sketch.Merge(o.kept->sketch);
      }
      break;
    case AggFn::kQuantileCont:
    case AggFn::kQuantileDisc:
    case AggFn::kStringAgg:
      if (!s.kept) {
        Adopt(from, s, o);
      } else {
        for (Value& v : o.kept->values) s.kept->values.push_back(std::move(v));
        for (auto& k : o.kept->orders) s.kept->orders.push_back(std::move(k));
      }
      break;
    default:
      break;
  }
  s.count += o.count;
}

Status HashAggregate::Merge(HashAggregate&& other) {
  std::vector<uint32_t> tuple(keys_.size());
  for (int64_t og = 0; og < other.groups_; ++og) MergeGroup(other, og, &tuple);
  return {};
}

void HashAggregate::MergeGroup(HashAggregate& other, int64_t og, std::vector<uint32_t>* tuple) {
  const size_t k = keys_.size();
  {
    for (size_t i = 0; i < k; ++i) {
      (*tuple)[i] =
          dicts_[i].InternCodeOf(other.dicts_[i], other.codes_[static_cast<size_t>(og) * k + i]);
    }
    int32_t g = k == 0 ? 0 : GroupOfCodes(tuple->data());
    for (size_t a = 0; a < aggregates_.size(); ++a) {
      State& s = state(g, a);
      State& o = other.state(static_cast<int32_t>(og), a);
      const Aggregate& agg = aggregates_[a];
      if (agg.fn > AggFn::kMax) {
        MergeState(agg, s, o, other);
        continue;
      }
      if (agg.distinct) {
        // Re-count from the union of the sets; sums of distinct values are recomputed at Finish.
        if (o.kept) {
          for (auto& key : o.kept->distinct) K(s).distinct.insert(key);
          o.kept->distinct_ints.ForEach([&](int64_t x) { K(s).distinct_ints.Insert(x); });
        }
        s.count = s.kept
                      ? static_cast<int64_t>(s.kept->distinct.size() + s.kept->distinct_ints.size())
                      : 0;
      }
      const bool int_best = !agg.distinct && (agg.fn == AggFn::kMin || agg.fn == AggFn::kMax) &&
                            IntegerValued(agg.arg->type.id);
      if (int_best && o.count > 0) {
        if (s.count == 0 || (agg.fn == AggFn::kMin ? o.ibest < s.ibest : o.ibest > s.ibest)) {
          s.ibest = o.ibest;
        }
      }
      if (!agg.distinct) {
        s.count += o.count;
        s.isum += o.isum;
        s.dsum += o.dsum;
      }
      if (!o.Best().is_null()) {
        int c = s.Best().is_null() ? 0 : CompareValues(o.Best(), s.Best());
        if (s.Best().is_null() || (agg.fn == AggFn::kMin && c < 0) ||
            (agg.fn == AggFn::kMax && c > 0)) {
          K(s).best = o.Best();
        }
      }
    }
  }
}

namespace {

// 10^38: decimal(38, s) holds unscaled values of at most 38 digits.
constexpr __int128 kDecimalLimit = static_cast<__int128>(10'000'000'000'000'000'000ULL) *
                                   static_cast<__int128>(10'000'000'000'000'000'000ULL);

// Decodes a COUNT(DISTINCT)/SUM(DISTINCT) set key back to a value (see AppendKeyBytes).
Value DecodeKey(const std::string& k) {
  switch (k[0]) {
    case 2: {
      int64_t x;
      std::memcpy(&x, k.data() + 1, 8);
      return Value::Int(x);
    }
    case 3: {
      double x;
      std::memcpy(&x, k.data() + 1, 8);
      return Value::Double(x);
    }
    case 5: {
      Value v;
      __int128 x;
      std::memcpy(&x, k.data() + 1, 16);
      v.v = x;
      return v;
    }
    default:
      return Value{};
  }
}

}  // namespace

namespace {

// v sorted by CompareValues (NULLs never kept).
void SortValues(std::vector<Value>* v) {
  std::sort(v->begin(), v->end(),
            [](const Value& a, const Value& b) { return CompareValues(a, b) < 0; });
}

// The value `d` of the way from `lo` to `hi` (sorted neighbours) in the result type of
// quantile_cont over `type`.
Value Interpolate(const Value& lo, const Value& hi, double d, const DataType& type) {
  switch (type.id) {
    case TypeId::kInt64: {
      const double a = static_cast<double>(lo.i()), b = static_cast<double>(hi.i());
      return Value::Double(a + d * (b - a));
    }
    case TypeId::kFloat64:
      return Value::Double(d == 0 ? lo.d() : lo.d() + d * (hi.d() - lo.d()));
    case TypeId::kDecimal128: {
      Value out;
      out.v = lo.dec() +
              static_cast<__int128>(std::llround(d * static_cast<double>(hi.dec() - lo.dec())));
      return out;
    }
    case TypeId::kDate32: {
      constexpr int64_t kMicrosPerDay = 86'400'000'000;
      return Value::Int(lo.i() * kMicrosPerDay +
                        std::llround(d * static_cast<double>((hi.i() - lo.i()) * kMicrosPerDay)));
    }
    default:  // timestamps
      return Value::Int(lo.i() + std::llround(d * static_cast<double>(hi.i() - lo.i())));
  }
}

}  // namespace

Result<Value> HashAggregate::FinishKept(const Aggregate& a, State& s) const {
  switch (a.fn) {
    case AggFn::kGrouping: {
      int64_t bits = 0;
      for (int k : a.grouping_keys) {
        const bool absent = k >= 0 && static_cast<size_t>(k) < absent_keys_.size() &&
                            absent_keys_[static_cast<size_t>(k)];
        bits = (bits << 1) | (absent ? 1 : 0);
      }
      return Value::Int(bits);
    }
    case AggFn::kCountIf:  // NULL without a non-null argument, as DuckDB
      return s.ibest == 0 ? Value{} : Value::Int(s.count);
    case AggFn::kBoolAnd:
    case AggFn::kBoolOr:
      return s.count == 0 ? Value{} : Value::Bool(s.ibest != 0);
    case AggFn::kAnyValue:
    case AggFn::kFirst:
      return s.Best();
    case AggFn::kArgMin:
    case AggFn::kArgMax:
      return s.count == 0 || !s.kept ? Value{} : s.kept->payload;
    case AggFn::kVarSamp:
    case AggFn::kVarPop:
    case AggFn::kStddevSamp:
    case AggFn::kStddevPop: {
      const bool sample = a.fn == AggFn::kVarSamp || a.fn == AggFn::kStddevSamp;
      if (s.count < (sample ? 2 : 1)) return Value{};
      const double var = std::max(0.0, s.kept ? s.kept->m2 : 0.0) /
                         static_cast<double>(s.count - (sample ? 1 : 0));
      const bool root = a.fn == AggFn::kStddevSamp || a.fn == AggFn::kStddevPop;
      return Value::Double(root ? std::sqrt(var) : var);
    }
    case AggFn::kApproxCountDistinct:
      return Value::Int(s.kept ? s.kept->sketch.Estimate() : 0);
    case AggFn::kQuantileCont:
    case AggFn::kQuantileDisc: {
      if (!s.kept || s.kept->values.empty()) return Value{};
      std::vector<Value>& v = s.kept->values;
      SortValues(&v);
      const size_t n = v.size();
      if (a.fn == AggFn::kQuantileDisc) {
        const double at = std::ceil(static_cast<double>(n) * a.fraction) - 1;
        const size_t i = at <= 0 ? 0 : std::min(n - 1, static_cast<size_t>(at));
        return v[i];
      }
      const double rn = static_cast<double>(n - 1) * a.fraction;
      const size_t lo = static_cast<size_t>(std::floor(rn));
      const size_t hi = std::min(n - 1, static_cast<size_t>(std::ceil(rn)));
      return Interpolate(v[lo], v[hi], rn - static_cast<double>(lo), a.arg->type);
    }
    case AggFn::kStringAgg: {
      if (!s.kept || s.kept->values.empty()) return Value{};
      const Kept& k = *s.kept;
      std::vector<size_t> order(k.values.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      if (!k.orders.empty()) {
        std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
          for (size_t c = 0; c < a.order.size(); ++c) {
            const Value& l = k.orders[x][c];
            const Value& r = k.orders[y][c];
            if (l.is_null() || r.is_null()) {
              if (l.is_null() == r.is_null()) continue;
              return r.is_null();  // NULLs last
            }
            const int cmp = CompareValues(l, r);
            if (cmp != 0) return a.order_descending[c] ? cmp > 0 : cmp < 0;
          }
          return false;
        });
      }
      std::string out;
      for (size_t i = 0; i < order.size(); ++i) {
        if (i) out += a.separator;
        out += k.values[order[i]].s();
      }
      return Value::Str(std::move(out));
    }
    default:
      return Internal("aggregate {} has no final step", AggFnName(a.fn));
  }
}

Result<columnar::RecordBatch> HashAggregate::Finish() {
  auto schema = std::make_shared<columnar::Schema>();
  columnar::RecordBatch out;
  const int64_t n = groups_;
  const size_t nkeys = keys_.size();
  for (size_t k = 0; k < nkeys; ++k) {
    FLOE_ASSIGN_OR_RETURN(columnar::ColumnPtr keys,
                          dicts_[k].Values(keys_[k]->type, {codes_.data(), codes_.size()},
                                           static_cast<size_t>(n), nkeys, k));
    out.columns.push_back(std::move(keys));
    schema->fields.push_back({fmt::format("k{}", k), keys_[k]->type});
  }
  for (size_t a = 0; a < aggregates_.size(); ++a) {
    const Aggregate& agg = aggregates_[a];
    ValueColumnBuilder b(agg.type);
    for (int64_t g = 0; g < n; ++g) {
      State& s = state(static_cast<int32_t>(g), a);
      if (agg.distinct && (agg.fn == AggFn::kSum || agg.fn == AggFn::kAvg)) {
        s.isum = 0;
        s.dsum = 0;
        K(s).distinct_ints.ForEach([&](int64_t x) {
          s.isum += x;
          s.dsum += static_cast<double>(x);
        });
        for (const auto& key : K(s).distinct) {
          Value v = DecodeKey(key);
          if (v.v.index() == 2) {
            s.isum += v.i();
            s.dsum += static_cast<double>(v.i());
          } else if (v.v.index() == 5) {
            s.isum += v.dec();
          } else if (v.v.index() == 3) {
            s.dsum += v.d();
          }
        }
      }
      Value v;
      if (agg.fn > AggFn::kMax) {
        FLOE_ASSIGN_OR_RETURN(v, FinishKept(agg, s));
        FLOE_RETURN_IF_ERROR(b.Append(v));
        continue;
      }
      switch (agg.fn) {
        case AggFn::kCountStar:
        case AggFn::kCount:
          v = Value::Int(s.count);
          break;
        case AggFn::kSum:
          if (s.count == 0) break;
          if (agg.type.id == TypeId::kInt64) {
            if (s.isum > INT64_MAX || s.isum < INT64_MIN) {
              return InvalidInput("integer overflow in sum");
            }
            v = Value::Int(static_cast<int64_t>(s.isum));
          } else if (agg.type.id == TypeId::kDecimal128) {
            if (s.isum >= kDecimalLimit || s.isum <= -kDecimalLimit) {
              return InvalidInput("decimal overflow in sum: the result has more than 38 digits");
            }
            v.v = s.isum;
          } else {
            v = Value::Double(s.dsum);
          }
          break;
        case AggFn::kAvg:
          if (s.count == 0) break;
          if (agg.arg->type.id == TypeId::kDecimal128) {
            // From the exact sum: one rounding, not one per row.
            v = Value::Double(static_cast<double>(s.isum) / std::pow(10.0, agg.arg->type.scale) /
                              static_cast<double>(s.count));
          } else {
            v = Value::Double(agg.arg->type.id == TypeId::kInt64
                                  ? static_cast<double>(s.isum) / static_cast<double>(s.count)
                                  : s.dsum / static_cast<double>(s.count));
          }
          break;
        case AggFn::kMin:
        case AggFn::kMax:
          if (!agg.distinct && IntegerValued(agg.arg->type.id)) {
            if (s.count > 0) v = Value::Int(s.ibest);
          } else {
            v = s.Best();
          }
          break;
        default:  // FinishKept's
          break;
      }
      FLOE_RETURN_IF_ERROR(b.Append(v));
    }
    out.columns.push_back(b.Finish());
    schema->fields.push_back({fmt::format("a{}", a), agg.type});
  }
  out.num_rows = n;
  out.schema = schema;
  return out;
}

// What a memory budget counts (spilling_aggregate.h): the tables' and states' storage, each key
// value's bytes, and the values COUNT(DISTINCT) and the value-keeping functions hold, counted by
// number (a string past the small-string buffer is under-counted there).
size_t KeyDict::EstimatedBytes() const {
  size_t n = direct_.capacity() * sizeof(uint32_t) + int_slots_.capacity() * sizeof(IntSlot) +
             slots_.capacity() * sizeof(BytesSlot) + ints_.capacity() * sizeof(int64_t) +
             arena_.capacity() + ends_.capacity() * 8 + hashes_.capacity() * 8 +
             hash_scratch_.capacity() * 8 + values_.capacity() * sizeof(Value) +
             dictionary_codes_.capacity() * sizeof(uint32_t);
  // A generic key's Value holds its bytes again (a string's past the small-string buffer).
  return kind_ == Kind::kGeneric ? n + arena_.size() : n;
}

int64_t HashAggregate::EstimatedBytes() const {
  size_t n = states_.capacity() * sizeof(State) + codes_.capacity() * sizeof(uint32_t) +
             by_code_.capacity() * sizeof(int32_t) + table_.capacity() * sizeof(int32_t) +
             packed_.capacity() * sizeof(uint64_t) + dense_.capacity() * sizeof(int32_t);
  for (const auto& d : dicts_) n += d.EstimatedBytes();
  // Which aggregates allocate a group's Kept: DISTINCT, the functions after kMax, and MIN/MAX
  // of anything but integers.
  bool keeps = false;
  for (const auto& a : aggregates_) {
    const bool integer_best =
        (a.fn == AggFn::kMin || a.fn == AggFn::kMax) && a.arg && IntegerValued(a.arg->type.id);
    keeps = keeps || a.distinct || a.fn > AggFn::kMax ||
            ((a.fn == AggFn::kMin || a.fn == AggFn::kMax) && !integer_best);
  }
  if (keeps) {
    for (const State& s : states_) {
      if (!s.kept) continue;
      const Kept& k = *s.kept;
      n += sizeof(Kept) + k.distinct.size() * 64 + k.distinct.bucket_count() * sizeof(void*) +
           k.distinct_ints.capacity() * sizeof(int64_t) + k.values.capacity() * sizeof(Value) +
           k.orders.capacity() * sizeof(std::vector<Value>);
      if (k.best.v.index() == 4) n += k.best.s().capacity();
      for (const auto& o : k.orders) n += o.capacity() * sizeof(Value);
    }
  }
  return static_cast<int64_t>(n);
}

void HashAggregate::SplitInto(const std::function<uint32_t(const std::vector<Value>&)>& part_of,
                              std::vector<std::unique_ptr<HashAggregate>>* parts) {
  const size_t k = keys_.size();
  std::vector<Value> key(k);
  std::vector<uint32_t> tuple(k);
  for (int64_t g = 0; g < groups_; ++g) {
    for (size_t i = 0; i < k; ++i) key[i] = dicts_[i].value(codes_[static_cast<size_t>(g) * k + i]);
    (*parts)[part_of(key)]->MergeGroup(*this, g, &tuple);
  }
}

}  // namespace floe::exec
