#include "floe/columnar/text_types.h"

#include <charconv>

#include "floe/base/calendar.h"

namespace floe::columnar {
namespace {

bool IEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if ((a[i] | 0x20) != b[i]) return false;
  }
  return true;
}

}  // namespace

std::string_view TrimBlanks(std::string_view s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

uint32_t TextTypesOf(std::string_view s) {
  s = TrimBlanks(s);
  if (s.empty()) return 0;
  const char c = s[0];
  for (std::string_view b : {"true", "false", "t", "f", "yes", "no"}) {
    if (IEquals(s, b)) return kTextBool;
  }
  {
    std::string_view m = s.front() == '-' ? s.substr(1) : s;
    for (std::string_view special : {"nan", "inf", "infinity"}) {
      if (IEquals(m, special)) return kTextFloat64;
    }
  }
  uint32_t mask = 0;
  // Numbers start with a digit, a minus or a dot; one with a leading zero is an identifier.
  const bool leading_zero = c == '0' && s.size() > 1 && s[1] >= '0' && s[1] <= '9';
  if (((c >= '0' && c <= '9') || c == '-' || c == '.') && !leading_zero) {
    int64_t i = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), i);
    if (ec == std::errc() && p == s.data() + s.size()) return kTextInt64 | kTextFloat64;
    double d = 0;
    auto [q, ec2] = std::from_chars(s.data(), s.data() + s.size(), d);
    if (ec2 == std::errc() && q == s.data() + s.size()) mask |= kTextFloat64;
    if (ec2 == std::errc::result_out_of_range) mask |= kTextFloat64;
  }
  if (s.size() >= 5 && s.size() <= 18 && s[2] == ':' && ParseIsoTimeNanos(s)) mask |= kTextTime;
  if (s.size() >= 10 && s.find('-', 1) != std::string_view::npos) {
    if (s.size() <= 11 && ParseIsoDate(s)) {
      mask |= kTextDate;
    } else if (auto t = ParseIsoDateTime(s); t && EpochUnits(*t, 1000000)) {
      // A timestamp has its time of day written: a bare date is a DATE, and a column mixing the
      // two is VARCHAR, as DuckDB's sniffer reads it.
      const size_t sep = s.find_first_of("T ", 1);
      if (sep != std::string_view::npos) mask |= t->has_offset ? kTextTimestampTz : kTextTimestamp;
    }
  }
  return mask;
}

DataType NarrowestTextType(uint32_t mask) {
  if (mask == kTextAny || mask == 0) return String();
  if (mask & kTextBool) return Bool();
  if (mask & kTextInt64) return Int64();
  if (mask & kTextFloat64) return Float64();
  if (mask & kTextTime) return Time64(TimeUnit::kMicro);
  if (mask & kTextDate) return Date32();
  if (mask & kTextTimestamp) return Timestamp(TimeUnit::kMicro);
  if (mask & kTextTimestampTz) return Timestamp(TimeUnit::kMicro, "UTC");
  return String();
}

}  // namespace floe::columnar
