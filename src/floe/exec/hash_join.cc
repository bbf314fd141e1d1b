#include "floe/exec/hash_join.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <string_view>

#include "floe/exec/value.h"

namespace floe::exec {

namespace {

using columnar::TypeId;

bool IsInt64Like(const columnar::DataType& t) {
  return t.id == TypeId::kInt64 || t.id == TypeId::kTimestamp || t.id == TypeId::kTime64;
}

// A 64-bit finaliser (splitmix64's): every input bit moves every output bit.
uint64_t Mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A double as GROUP BY and joins compare it: -0.0 as 0.0, every NaN as one.
uint64_t DoubleBits(double x) {
  if (x == 0) x = 0;
  if (std::isnan(x)) x = std::numeric_limits<double>::quiet_NaN();
  uint64_t bits = 0;
  std::memcpy(&bits, &x, 8);
  return bits;
}

}  // namespace

Status JoinHashTable::CheckTypes(const std::vector<columnar::ColumnPtr>& keys, int64_t rows) const {
  if (keys.size() != types_.size()) {
    return Internal("join: {} key columns probe a table of {}", keys.size(), types_.size());
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i]->type != types_[i] && keys[i]->type.id != TypeId::kNull &&
        types_[i].id != TypeId::kNull) {
      return Internal("join key {}: a {} column probes a table of {}", i, keys[i]->type.ToString(),
                      types_[i].ToString());
    }
    if (keys[i]->length != rows) {
      return Internal("join key {} has {} rows, not {}", i, keys[i]->length, rows);
    }
  }
  return {};
}

Status JoinHashTable::HashRows(const std::vector<columnar::ColumnPtr>& keys, int64_t rows,
                               std::vector<uint64_t>* hashes, std::vector<uint8_t>* valid) const {
  hashes->assign(static_cast<size_t>(rows), 0x9e3779b97f4a7c15ULL);
  valid->assign(static_cast<size_t>(rows), 1);
  uint64_t* h = hashes->data();
  uint8_t* ok = valid->data();
  for (size_t k = 0; k < keys.size(); ++k) {
    const columnar::Column& c = *keys[k];
    if (c.type.id == TypeId::kNull) {  // NULL everywhere: nothing matches
      std::fill(valid->begin(), valid->end(), 0);
      break;
    }
    if (c.null_count > 0) {
      for (int64_t r = 0; r < rows; ++r) {
        if (c.IsNull(r)) ok[r] = 0;
      }
    }
    auto fold = [&](auto value_hash) {
      for (int64_t r = 0; r < rows; ++r) h[r] = Mix(h[r] ^ value_hash(r));
    };
    switch (kinds_[k]) {
      case KeyKind::kInt64: {
        const int64_t* v = c.Values<int64_t>();
        fold([v](int64_t r) { return static_cast<uint64_t>(v[r]); });
        break;
      }
      case KeyKind::kInt32: {
        const int32_t* v = c.Values<int32_t>();
        fold([v](int64_t r) { return static_cast<uint64_t>(static_cast<int64_t>(v[r])); });
        break;
      }
      case KeyKind::kDouble: {
        const double* v = c.Values<double>();
        fold([v](int64_t r) { return DoubleBits(v[r]); });
        break;
      }
      case KeyKind::kBool:
        fold([&c](int64_t r) { return static_cast<uint64_t>(c.BoolAt(r)); });
        break;
      case KeyKind::kDecimal: {
        const uint8_t* v = c.values.data();
        fold([v](int64_t r) {
          uint64_t lo = 0, hi = 0;
          std::memcpy(&lo, v + r * 16, 8);
          std::memcpy(&hi, v + r * 16 + 8, 8);
          return lo ^ Mix(hi);
        });
        break;
      }
      case KeyKind::kBytes:
        fold([&c](int64_t r) { return std::hash<std::string_view>{}(c.BytesAt(r)); });
        break;
      case KeyKind::kOther: {
        std::string bytes;
        for (int64_t r = 0; r < rows; ++r) {
          if (!ok[r]) continue;
          FLOE_ASSIGN_OR_RETURN(Value v, ValueAt(c, r));
          bytes.clear();
          AppendKeyBytes(v, &bytes);
          h[r] = Mix(h[r] ^ std::hash<std::string>{}(bytes));
        }
        break;
      }
    }
  }
  return {};
}

bool JoinHashTable::KeysEqual(const std::vector<columnar::ColumnPtr>& keys, int64_t r,
                              int64_t b) const {
  for (size_t k = 0; k < keys.size(); ++k) {
    const columnar::Column& x = *keys[k];
    const columnar::Column& y = *keys_[k];
    switch (kinds_[k]) {
      case KeyKind::kInt64:
        if (x.Values<int64_t>()[r] != y.Values<int64_t>()[b]) return false;
        break;
      case KeyKind::kInt32:
        if (x.Values<int32_t>()[r] != y.Values<int32_t>()[b]) return false;
        break;
      case KeyKind::kDouble:
        if (DoubleBits(x.Values<double>()[r]) != DoubleBits(y.Values<double>()[b])) return false;
        break;
      case KeyKind::kBool:
        if (x.BoolAt(r) != y.BoolAt(b)) return false;
        break;
      case KeyKind::kDecimal:
        if (std::memcmp(x.values.data() + r * 16, y.values.data() + b * 16, 16) != 0) return false;
        break;
      case KeyKind::kBytes:
        if (x.BytesAt(r) != y.BytesAt(b)) return false;
        break;
      case KeyKind::kOther: {
        auto vx = ValueAt(x, r);
        auto vy = ValueAt(y, b);
        if (!vx || !vy) return false;
        std::string bx, by;
        AppendKeyBytes(*vx, &bx);
        AppendKeyBytes(*vy, &by);
        if (bx != by) return false;
        break;
      }
    }
  }
  return true;
}

Result<JoinHashTable> JoinHashTable::Build(std::vector<columnar::ColumnPtr> keys, int64_t rows) {
  JoinHashTable t;
  if (keys.empty()) return InvalidInput("a join needs at least one key");
  if (rows >= std::numeric_limits<int32_t>::max()) {
    return InvalidInput("a join's build side of {} rows: at most 2^31 - 1 are supported", rows);
  }
  for (const auto& k : keys) {
    t.types_.push_back(k->type);
    const columnar::DataType& type = k->type;
    KeyKind kind = KeyKind::kOther;
    if (IsInt64Like(type)) {
      kind = KeyKind::kInt64;
    } else if (type.id == TypeId::kDate32) {
      kind = KeyKind::kInt32;
    } else if (type.id == TypeId::kFloat64) {
      kind = KeyKind::kDouble;
    } else if (type.id == TypeId::kBool) {
      kind = KeyKind::kBool;
    } else if (type.id == TypeId::kDecimal128) {
      kind = KeyKind::kDecimal;
    } else if (type.id == TypeId::kString || type.id == TypeId::kBinary ||
               type.id == TypeId::kFixedSizeBinary) {
      kind = KeyKind::kBytes;
    }
    t.kinds_.push_back(kind);
  }
  FLOE_RETURN_IF_ERROR(t.CheckTypes(keys, rows));
  t.keys_ = std::move(keys);
  // At most half full: twice the rows, a power of two (at least 16 slots).
  const uint64_t capacity = std::bit_ceil(static_cast<uint64_t>(std::max<int64_t>(rows * 2, 16)));
  t.next_.assign(static_cast<size_t>(rows), -1);
  // A direct array of 4-byte heads takes no more than the 8-byte slots when it has at most
  // twice as many entries.
  if (t.BuildDirect(rows, 2 * capacity)) return t;
  std::vector<uint64_t> hashes;
  std::vector<uint8_t> valid;
  FLOE_RETURN_IF_ERROR(t.HashRows(t.keys_, rows, &hashes, &valid));
  t.shift_ = 64 - std::countr_zero(capacity);
  t.slots_.assign(capacity, Slot{});
  const uint64_t mask = capacity - 1;
  // Rows go in from the last, so each key's chain runs in build order from its head.
  constexpr int64_t kAhead = 16;  // as Probe's
  for (int64_t r = rows - 1; r >= 0; --r) {
    if (r >= kAhead) __builtin_prefetch(&t.slots_[hashes[r - kAhead] >> t.shift_]);
    if (!valid[r]) continue;
    const uint64_t h = hashes[r];
    const auto tag = static_cast<uint32_t>(h);
    for (uint64_t i = h >> t.shift_;; i = (i + 1) & mask) {
      Slot& s = t.slots_[i];
      if (s.head < 0) {
        s.tag = tag;
        s.head = static_cast<int32_t>(r);
        break;
      }
      if (s.tag == tag && t.KeysEqual(t.keys_, r, s.head)) {
        t.next_[r] = s.head;
        s.head = static_cast<int32_t>(r);
        break;
      }
    }
  }
  return t;
}

bool JoinHashTable::BuildDirect(int64_t rows, uint64_t slots) {
  if (keys_.size() != 1 || keys_[0]->type.id == TypeId::kNull) return false;
  if (kinds_[0] == KeyKind::kInt64) return BuildDirectOf(keys_[0]->Values<int64_t>(), rows, slots);
  if (kinds_[0] == KeyKind::kInt32) return BuildDirectOf(keys_[0]->Values<int32_t>(), rows, slots);
  return false;
}

template <typename T>
bool JoinHashTable::BuildDirectOf(const T* values, int64_t rows, uint64_t slots) {
  const columnar::Column& c = *keys_[0];
  T least = std::numeric_limits<T>::max(), greatest = std::numeric_limits<T>::min();
  bool any = false;
  for (int64_t r = 0; r < rows; ++r) {
    if (c.null_count > 0 && c.IsNull(r)) continue;
    least = std::min(least, values[r]);
    greatest = std::max(greatest, values[r]);
    any = true;
  }
  if (!any) return false;
  const uint64_t span = static_cast<uint64_t>(static_cast<int64_t>(greatest)) -
                        static_cast<uint64_t>(static_cast<int64_t>(least)) + 1;
  if (span == 0 || span > slots) return false;  // 0: the whole 64-bit range
  direct_base_ = least;
  direct_.assign(span, -1);
  // Rows go in from the last, so each key's chain runs in build order from its head.
  for (int64_t r = rows - 1; r >= 0; --r) {
    if (c.null_count > 0 && c.IsNull(r)) continue;
    int32_t& head = direct_[static_cast<uint64_t>(static_cast<int64_t>(values[r])) -
                            static_cast<uint64_t>(direct_base_)];
    next_[static_cast<size_t>(r)] = head;
    head = static_cast<int32_t>(r);
  }
  return true;
}

template <typename T>
void JoinHashTable::ProbeDirect(const columnar::Column& keys, std::vector<int64_t>* probe_rows,
                                std::vector<int64_t>* build_rows) const {
  const T* values = keys.Values<T>();
  const int32_t* heads = direct_.data();
  const uint64_t size = direct_.size(), base = static_cast<uint64_t>(direct_base_);
  const bool nulls = keys.null_count > 0;
  for (int64_t r = 0; r < keys.length; ++r) {
    const uint64_t i = static_cast<uint64_t>(static_cast<int64_t>(values[r])) - base;
    if (i >= size || (nulls && keys.IsNull(r))) continue;
    for (int32_t b = heads[i]; b >= 0; b = next_[static_cast<size_t>(b)]) {
      probe_rows->push_back(r);
      build_rows->push_back(b);
    }
  }
}

Status JoinHashTable::Probe(const std::vector<columnar::ColumnPtr>& keys, int64_t rows,
                            std::vector<int64_t>* probe_rows,
                            std::vector<int64_t>* build_rows) const {
  FLOE_RETURN_IF_ERROR(CheckTypes(keys, rows));
  if (!direct_.empty()) {
    if (keys[0]->type.id == TypeId::kNull) return {};  // NULL everywhere: nothing matches
    if (kinds_[0] == KeyKind::kInt64) {
      ProbeDirect<int64_t>(*keys[0], probe_rows, build_rows);
    } else {
      ProbeDirect<int32_t>(*keys[0], probe_rows, build_rows);
    }
    return {};
  }
  std::vector<uint64_t> hashes;
  std::vector<uint8_t> valid;
  FLOE_RETURN_IF_ERROR(HashRows(keys, rows, &hashes, &valid));
  const uint64_t mask = slots_.size() - 1;
  // A row's slot is fetched a few rows ahead: a large table's slots are cache misses, and
  // several can be in flight at once.
  constexpr int64_t kAhead = 16;
  auto probe = [&](auto equal) {
    for (int64_t r = 0; r < rows; ++r) {
      if (r + kAhead < rows) __builtin_prefetch(&slots_[hashes[r + kAhead] >> shift_]);
      if (!valid[r]) continue;
      const uint64_t h = hashes[r];
      const auto tag = static_cast<uint32_t>(h);
      for (uint64_t i = h >> shift_;; i = (i + 1) & mask) {
        const Slot& s = slots_[i];
        if (s.head < 0) break;
        if (s.tag == tag && equal(r, s.head)) {
          for (int32_t b = s.head; b >= 0; b = next_[b]) {
            probe_rows->push_back(r);
            build_rows->push_back(b);
          }
          break;
        }
      }
    }
  };
  if (keys.size() == 1 && kinds_[0] == KeyKind::kInt64) {
    // One integer key (most joins): compared inline.
    const int64_t* x = keys[0]->Values<int64_t>();
    const int64_t* y = keys_[0]->Values<int64_t>();
    probe([x, y](int64_t r, int64_t b) { return x[r] == y[b]; });
  } else {
    probe([&](int64_t r, int64_t b) { return KeysEqual(keys, r, b); });
  }
  return {};
}

}  // namespace floe::exec
