#include "floe/columnar/column.h"

#include <cinttypes>
#include <cmath>
#include <ctime>

#include <fmt/format.h>

namespace floe::columnar {

Status Column::Validate() const {
  auto bad = [&](std::string_view what) {
    return Corrupt("{} column of {} rows: {}", type.ToString(), length, what);
  };
  if (length < 0 || null_count < 0 || null_count > length) return bad("bad length or null count");
  if (!validity.empty() && static_cast<int64_t>(validity.size()) < BitmapBytes(length)) {
    return bad("validity bitmap too short");
  }
  if (null_count > 0 && validity.empty()) return bad("nulls without a validity bitmap");
  int width = type.FixedWidth();
  if (type.id == TypeId::kBool) {
    if (static_cast<int64_t>(values.size()) < BitmapBytes(length)) return bad("values too short");
  } else if (width > 0) {
    if (static_cast<int64_t>(values.size()) < length * width) return bad("values too short");
  } else if (type.IsBinaryLike() || type.id == TypeId::kList || type.id == TypeId::kMap) {
    if (static_cast<int64_t>(offsets.size()) < (length + 1) * 4) return bad("offsets too short");
    const int32_t* o = Offsets();
    int32_t prev = 0;
    for (int64_t i = 0; i <= length; ++i) {
      int32_t v;
      std::memcpy(&v, o + i, 4);
      if (v < prev || (i == 0 && v < 0)) return bad("offsets not monotone");
      prev = v;
    }
    int64_t end = length == 0 ? 0 : prev;
    if (type.IsBinaryLike() && end > static_cast<int64_t>(values.size())) {
      return bad("offsets past the data");
    }
    if (!type.IsBinaryLike()) {
      if (children.size() != 1) return bad("needs one child");
      if (end > children[0]->length) return bad("offsets past the child");
      FLOE_RETURN_IF_ERROR(children[0]->Validate());
    }
  } else if (type.id == TypeId::kStruct) {
    if (children.size() != type.children.size()) return bad("child count differs from type");
    for (const auto& ch : children) {
      if (ch->length < length) return bad("child shorter than struct");
      FLOE_RETURN_IF_ERROR(ch->Validate());
    }
  }
  return {};
}

Status RecordBatch::Validate() const {
  if (!schema) return Corrupt("record batch without a schema");
  if (static_cast<int>(columns.size()) != schema->num_fields()) {
    return Corrupt("record batch has {} columns for {} fields", columns.size(),
                   schema->num_fields());
  }
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i]->length != num_rows) {
      return Corrupt("column '{}' has {} rows, batch has {}", schema->fields[i].name,
                     columns[i]->length, num_rows);
    }
    FLOE_RETURN_IF_ERROR(columns[i]->Validate());
  }
  return {};
}

namespace {

std::string FormatDate(int64_t days) {
  // Civil-from-days (proleptic Gregorian), valid for the whole int32 range.
  int64_t z = days + 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t y = yoe + era * 400;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  int64_t d = doy - (153 * mp + 2) / 5 + 1;
  int64_t m = mp < 10 ? mp + 3 : mp - 9;
  return fmt::format("{:04d}-{:02d}-{:02d}", y + (m <= 2), m, d);
}

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

std::string FormatTimeOfDay(int64_t v, int64_t per_second) {
  int64_t secs = FloorDiv(v, per_second);
  int64_t frac = v - secs * per_second;
  int digits = per_second == 1000 ? 3 : per_second == 1000000 ? 6 : 9;
  return fmt::format("{:02d}:{:02d}:{:02d}.{:0{}d}", secs / 3600, (secs / 60) % 60, secs % 60, frac,
                     digits);
}

int64_t PerSecond(TimeUnit u) {
  return u == TimeUnit::kMilli ? 1000 : u == TimeUnit::kMicro ? 1000000 : 1000000000;
}

}  // namespace

std::string ValueToString(const Column& c, int64_t row) {
  if (c.IsNull(row)) return "NULL";
  switch (c.type.id) {
    case TypeId::kBool:
      return c.BoolAt(row) ? "true" : "false";
    case TypeId::kInt8:
      return fmt::format("{}", c.Value<int8_t>(row));
    case TypeId::kInt16:
      return fmt::format("{}", c.Value<int16_t>(row));
    case TypeId::kInt32:
      return fmt::format("{}", c.Value<int32_t>(row));
    case TypeId::kInt64:
      return fmt::format("{}", c.Value<int64_t>(row));
    case TypeId::kUInt8:
      return fmt::format("{}", c.Value<uint8_t>(row));
    case TypeId::kUInt16:
      return fmt::format("{}", c.Value<uint16_t>(row));
    case TypeId::kUInt32:
      return fmt::format("{}", c.Value<uint32_t>(row));
    case TypeId::kUInt64:
      return fmt::format("{}", c.Value<uint64_t>(row));
    case TypeId::kFloat32:
      return fmt::format("{}", c.Value<float>(row));
    case TypeId::kFloat64:
      return fmt::format("{}", c.Value<double>(row));
    case TypeId::kDate32:
      return FormatDate(c.Value<int32_t>(row));
    case TypeId::kTime64:
      return FormatTimeOfDay(c.Value<int64_t>(row), PerSecond(c.type.unit));
    case TypeId::kTimestamp: {
      int64_t ps = PerSecond(c.type.unit);
      int64_t v = c.Value<int64_t>(row);
      int64_t day = FloorDiv(v, ps * 86400);
      return FormatDate(day) + "T" + FormatTimeOfDay(v - day * ps * 86400, ps) +
             (c.type.timezone.empty() ? "" : "Z");
    }
    case TypeId::kString:
      return fmt::format("'{}'", c.BytesAt(row));
    case TypeId::kBinary:
    case TypeId::kFixedSizeBinary: {
      std::string hex;
      for (unsigned char ch : c.BytesAt(row)) hex += fmt::format("{:02x}", ch);
      return "0x" + hex;
    }
    default:
      return "<" + c.type.ToString() + ">";
  }
}

}  // namespace floe::columnar
