#include "floe/parquet/column_predicate.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "floe/columnar/value_format.h"

namespace floe::parquet {

namespace {

// The alternative a domain compares in, or -1 for none.
int AlternativeOf(StatsDomain d) {
  switch (d) {
    case StatsDomain::kBool:
      return 0;
    case StatsDomain::kSigned:
      return 1;
    case StatsDomain::kUnsigned:
      return 2;
    case StatsDomain::kFloat:
      return 3;
    case StatsDomain::kBytes:
      return 4;
    case StatsDomain::kDecimal:
      return 5;
    case StatsDomain::kNone:
      break;
  }
  return -1;
}

std::string DomainName(StatsDomain d) {
  switch (d) {
    case StatsDomain::kBool:
      return "boolean";
    case StatsDomain::kSigned:
      return "signed integer";
    case StatsDomain::kUnsigned:
      return "unsigned integer";
    case StatsDomain::kFloat:
      return "floating point";
    case StatsDomain::kBytes:
      return "bytes";
    case StatsDomain::kDecimal:
      return "decimal";
    case StatsDomain::kNone:
      break;
  }
  return "unordered";
}

Result<PredicateValue> Normalize(const PredicateValue& v, StatsDomain d, const std::string& col) {
  const int want = AlternativeOf(d);
  if (static_cast<int>(v.index()) == want) return v;
  if (const int64_t* i = std::get_if<int64_t>(&v)) {
    if (d == StatsDomain::kFloat) return PredicateValue{static_cast<double>(*i)};
    if (d == StatsDomain::kDecimal) return PredicateValue{static_cast<__int128>(*i)};
    if (d == StatsDomain::kUnsigned && *i >= 0) return PredicateValue{static_cast<uint64_t>(*i)};
  }
  if (const uint64_t* u = std::get_if<uint64_t>(&v)) {
    if (d == StatsDomain::kSigned && *u <= static_cast<uint64_t>(INT64_MAX)) {
      return PredicateValue{static_cast<int64_t>(*u)};
    }
  }
  return InvalidInput("predicate on column '{}' ({} values) has the literal {}", col, DomainName(d),
                      PredicateValueToString(v));
}

// <0, 0, >0; nullopt when unordered (NaN) or of different alternatives.
std::optional<int> Compare(const PredicateValue& a, const PredicateValue& b) {
  if (a.index() != b.index()) return std::nullopt;
  auto three = [](const auto& x, const auto& y) { return x < y ? -1 : (y < x ? 1 : 0); };
  switch (a.index()) {
    case 0:
      return three(std::get<0>(a), std::get<0>(b));
    case 1:
      return three(std::get<1>(a), std::get<1>(b));
    case 2:
      return three(std::get<2>(a), std::get<2>(b));
    case 3: {
      double x = std::get<3>(a), y = std::get<3>(b);
      if (std::isnan(x) || std::isnan(y)) return std::nullopt;
      return three(x, y);  // -0.0 == +0.0, as the spec asks readers to treat them
    }
    case 4: {
      int c = std::get<4>(a).compare(std::get<4>(b));  // char_traits<char>: unsigned bytes
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    case 5:
      return three(std::get<5>(a), std::get<5>(b));
  }
  return std::nullopt;
}

bool Less(const PredicateValue& a, const PredicateValue& b) {
  auto c = Compare(a, b);
  return c && *c < 0;
}

bool IsDouble(const std::optional<PredicateValue>& v) {
  return v && std::holds_alternative<double>(*v);
}

// Whether a NaN value satisfies a floating-point predicate: NaN lies above every upper bound and
// equals only a NaN in an IN set; a non-floating predicate has no NaN to satisfy it.
bool NaNSatisfies(const ColumnPredicate& p) {
  if (p.is_null || p.max) return false;
  if (p.in) {
    return std::any_of(p.in->begin(), p.in->end(), [](const PredicateValue& v) {
      return std::holds_alternative<double>(v) && std::isnan(std::get<double>(v));
    });
  }
  return IsDouble(p.min);
}

template <typename T>
T Load(std::string_view b) {
  T v;
  std::memcpy(&v, b.data(), sizeof(T));
  return v;
}

__int128 BigEndian(std::string_view b) {
  if (b.empty()) return 0;
  unsigned __int128 v =
      (static_cast<uint8_t>(b[0]) & 0x80) ? ~static_cast<unsigned __int128>(0) : 0;
  for (char c : b) v = (v << 8) | static_cast<uint8_t>(c);
  return static_cast<__int128>(v);
}

bool LegacyOrderApplies(const ColumnDescriptor& leaf) {
  switch (leaf.domain) {
    case StatsDomain::kBool:
    case StatsDomain::kSigned:
    case StatsDomain::kFloat:
      return leaf.physical != PhysicalType::kFixedLenByteArray;  // FLOAT16 had no legacy stats
    case StatsDomain::kDecimal:
      return leaf.physical == PhysicalType::kInt32 || leaf.physical == PhysicalType::kInt64;
    default:
      return false;
  }
}

ColumnOrder OrderOf(const ColumnDescriptor& leaf, const FileMetaData& metadata) {
  if (metadata.column_orders.empty()) return ColumnOrder::kUnrecognized;
  return metadata.column_orders[static_cast<size_t>(leaf.column)];
}

// Applies the NaN rules to decoded floating-point bounds.
void FixFloatBounds(ColumnOrder order, ValueBounds* b) {
  auto is_nan = [](const std::optional<PredicateValue>& v) {
    return v && std::holds_alternative<double>(*v) && std::isnan(std::get<double>(*v));
  };
  if (order == ColumnOrder::kIeee754TotalOrder) {
    if (is_nan(b->min)) b->min.reset();  // negative NaNs sort first: no lower bound
    if (is_nan(b->max)) b->max.reset();  // positive NaNs sort last: no upper bound
    return;
  }
  if (is_nan(b->min) || is_nan(b->max)) {
    b->min.reset();
    b->max.reset();
  }
}

void SetBounds(const ColumnDescriptor& leaf, ColumnOrder order, std::optional<std::string_view> min,
               std::optional<std::string_view> max, ValueBounds* out) {
  if (min) out->min = DecodeStatValue(leaf, *min);
  if (max) out->max = DecodeStatValue(leaf, *max);
  if (leaf.domain == StatsDomain::kFloat) FixFloatBounds(order, out);
}

}  // namespace

std::optional<int> ComparePredicateValues(const PredicateValue& a, const PredicateValue& b) {
  return Compare(a, b);
}

ColumnPredicate ColumnPredicate::Equal(std::string column, PredicateValue v) {
  ColumnPredicate p;
  p.column = std::move(column);
  p.in = std::vector<PredicateValue>{std::move(v)};
  return p;
}

ColumnPredicate ColumnPredicate::In(std::string column, std::vector<PredicateValue> values) {
  ColumnPredicate p;
  p.column = std::move(column);
  p.in = std::move(values);
  return p;
}

ColumnPredicate ColumnPredicate::Range(std::string column, std::optional<PredicateValue> min,
                                       std::optional<PredicateValue> max) {
  ColumnPredicate p;
  p.column = std::move(column);
  p.min = std::move(min);
  p.max = std::move(max);
  return p;
}

ColumnPredicate ColumnPredicate::IsNull(std::string column) {
  ColumnPredicate p;
  p.column = std::move(column);
  p.is_null = true;
  return p;
}

ColumnPredicate ColumnPredicate::IsNotNull(std::string column) {
  ColumnPredicate p;
  p.column = std::move(column);
  p.is_not_null = true;
  return p;
}

std::string PredicateValueToString(const PredicateValue& v) {
  switch (v.index()) {
    case 0:
      return std::get<0>(v) ? "true" : "false";
    case 1:
      return fmt::format("{}", std::get<1>(v));
    case 2:
      return fmt::format("{}", std::get<2>(v));
    case 3:
      return fmt::format("{}", std::get<3>(v));
    case 4:
      return fmt::format("'{}'", std::get<4>(v));
    case 5:
      return "decimal " + columnar::Int128ToString(std::get<5>(v));
  }
  return "?";
}

std::optional<PredicateValue> DecodeStatValue(const ColumnDescriptor& leaf, std::string_view b) {
  switch (leaf.domain) {
    case StatsDomain::kNone:
      return std::nullopt;
    case StatsDomain::kBool:
      if (b.size() != 1) return std::nullopt;
      return PredicateValue{b[0] != 0};
    case StatsDomain::kSigned:
      if (leaf.physical == PhysicalType::kInt32 && b.size() == 4) {
        return PredicateValue{int64_t{Load<int32_t>(b)} * leaf.stats_multiplier};
      }
      if (leaf.physical == PhysicalType::kInt64 && b.size() == 8) {
        return PredicateValue{Load<int64_t>(b)};
      }
      return std::nullopt;
    case StatsDomain::kUnsigned:
      if (leaf.physical == PhysicalType::kInt32 && b.size() == 4) {
        return PredicateValue{uint64_t{Load<uint32_t>(b)}};
      }
      if (leaf.physical == PhysicalType::kInt64 && b.size() == 8) {
        return PredicateValue{Load<uint64_t>(b)};
      }
      return std::nullopt;
    case StatsDomain::kFloat:
      if (leaf.physical == PhysicalType::kFloat && b.size() == 4) {
        return PredicateValue{static_cast<double>(Load<float>(b))};
      }
      if (leaf.physical == PhysicalType::kDouble && b.size() == 8) {
        return PredicateValue{Load<double>(b)};
      }
      if (leaf.physical == PhysicalType::kFixedLenByteArray && b.size() == 2) {
        return PredicateValue{static_cast<double>(columnar::HalfToFloat(Load<uint16_t>(b)))};
      }
      return std::nullopt;
    case StatsDomain::kBytes:
      if (leaf.physical == PhysicalType::kFixedLenByteArray &&
          b.size() > static_cast<size_t>(leaf.type_length)) {
        return std::nullopt;
      }
      return PredicateValue{std::string(b)};
    case StatsDomain::kDecimal:
      if (leaf.physical == PhysicalType::kInt32 && b.size() == 4) {
        return PredicateValue{static_cast<__int128>(Load<int32_t>(b))};
      }
      if (leaf.physical == PhysicalType::kInt64 && b.size() == 8) {
        return PredicateValue{static_cast<__int128>(Load<int64_t>(b))};
      }
      if ((leaf.physical == PhysicalType::kFixedLenByteArray ||
           leaf.physical == PhysicalType::kByteArray) &&
          b.size() <= 16) {
        return PredicateValue{BigEndian(b)};
      }
      return std::nullopt;
  }
  return std::nullopt;
}

Result<ColumnPredicate> BindPredicate(const ColumnPredicate& p, const ColumnDescriptor& leaf) {
  if (leaf.max_rep > 0) {
    return InvalidInput("predicate on column '{}', which is inside a list or map", leaf.field_path);
  }
  ColumnPredicate out = p;
  const bool has_values = p.min || p.max || p.in;
  if (has_values && leaf.domain == StatsDomain::kNone) {
    // No order to compare with: keep only the null constraints, which statistics still decide.
    out.min.reset();
    out.max.reset();
    out.in.reset();
    out.weakened = true;
    return out;
  }
  if (p.min) {
    FLOE_ASSIGN_OR_RETURN(out.min, Normalize(*p.min, leaf.domain, leaf.field_path));
  }
  if (p.max) {
    FLOE_ASSIGN_OR_RETURN(out.max, Normalize(*p.max, leaf.domain, leaf.field_path));
  }
  if (p.in) {
    out.in->clear();
    for (const auto& v : *p.in) {
      FLOE_ASSIGN_OR_RETURN(auto n, Normalize(v, leaf.domain, leaf.field_path));
      out.in->push_back(std::move(n));
    }
  }
  return out;
}

bool CanSkip(const ColumnPredicate& p, const ValueBounds& b) {
  const bool wants_values = p.is_not_null || p.min || p.max || p.in;
  if (p.is_null && wants_values) return true;  // null and not null at once
  const bool all_null =
      b.all_null || (b.null_count && b.num_values >= 0 && *b.null_count >= b.num_values);
  if (p.is_null) return b.null_count && *b.null_count == 0 && !b.all_null;
  if (wants_values && all_null) return true;
  if (p.in && p.in->empty()) return true;
  if (NaNSatisfies(p) && !p.no_nan && !(b.nan_count && *b.nan_count == 0)) return false;
  if (b.min) {
    // Every value is >= b.min.
    if (p.max) {
      auto c = Compare(*p.max, *b.min);
      if (c && (*c < 0 || (*c == 0 && !p.max_inclusive))) return true;
    }
  }
  if (b.max) {
    if (p.min) {
      auto c = Compare(*p.min, *b.max);
      if (c && (*c > 0 || (*c == 0 && !p.min_inclusive))) return true;
    }
  }
  if (p.in && (b.min || b.max)) {
    bool any = false;
    for (const auto& v : *p.in) {
      const bool below = b.min && Less(v, *b.min);
      const bool above = b.max && Less(*b.max, v);
      if (!below && !above) {
        any = true;
        break;
      }
    }
    if (!any) return true;
  }
  return false;
}

bool AllMatch(const ColumnPredicate& p, const ValueBounds& b) {
  if (p.weakened || p.is_null || b.all_null || !b.null_count || *b.null_count != 0) return false;
  auto floating = [](const std::optional<PredicateValue>& v) {
    return v && std::holds_alternative<double>(*v);
  };
  if (floating(p.min) || floating(p.max) || floating(b.min) || floating(b.max)) return false;
  if (p.min) {
    if (!b.min) return false;
    auto c = Compare(*b.min, *p.min);
    if (!c || *c < 0 || (*c == 0 && !p.min_inclusive)) return false;
  }
  if (p.max) {
    if (!b.max) return false;
    auto c = Compare(*b.max, *p.max);
    if (!c || *c > 0 || (*c == 0 && !p.max_inclusive)) return false;
  }
  if (p.in) {
    if (!b.min || !b.max) return false;
    auto same = Compare(*b.min, *b.max);
    if (!same || *same != 0) return false;
    bool found = false;
    for (const PredicateValue& v : *p.in) {
      if (floating(v)) return false;
      auto c = Compare(v, *b.min);
      found |= c && *c == 0;
    }
    if (!found) return false;
  }
  return true;
}

ValueBounds ChunkBounds(const ColumnDescriptor& leaf, const FileMetaData& metadata,
                        const ColumnMetaData& meta) {
  ValueBounds out;
  out.num_values = meta.num_values;
  if (!meta.statistics) return out;
  const Statistics& s = *meta.statistics;
  out.null_count = s.null_count;
  out.nan_count = s.nan_count;
  const ColumnOrder order = OrderOf(leaf, metadata);
  const bool has_orders = !metadata.column_orders.empty();
  if (has_orders && order == ColumnOrder::kUnrecognized) return out;
  if (s.min_value || s.max_value) {
    // Typed bounds; without column orders only trusted where the order is the signed one.
    if (has_orders || LegacyOrderApplies(leaf)) {
      SetBounds(leaf, order, s.min_value, s.max_value, &out);
    }
  } else if ((s.min || s.max) && LegacyOrderApplies(leaf)) {
    SetBounds(leaf, order, s.min, s.max, &out);
  }
  return out;
}

std::vector<ValueBounds> PageBounds(const ColumnDescriptor& leaf, const FileMetaData& metadata,
                                    const ColumnIndex& index) {
  std::vector<ValueBounds> out(index.num_pages());
  const ColumnOrder order = OrderOf(leaf, metadata);
  const bool has_orders = !metadata.column_orders.empty();
  const bool use_values =
      has_orders ? order != ColumnOrder::kUnrecognized : LegacyOrderApplies(leaf);
  for (size_t i = 0; i < out.size(); ++i) {
    ValueBounds& b = out[i];
    b.all_null = index.null_pages[i];
    if (index.null_counts && i < index.null_counts->size()) b.null_count = (*index.null_counts)[i];
    if (index.nan_counts && i < index.nan_counts->size()) b.nan_count = (*index.nan_counts)[i];
    if (use_values && !b.all_null && i < index.min_values.size() && i < index.max_values.size()) {
      SetBounds(leaf, order, index.min_values[i], index.max_values[i], &b);
    }
  }
  return out;
}

}  // namespace floe::parquet
