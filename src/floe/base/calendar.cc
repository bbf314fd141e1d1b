#include "floe/base/calendar.h"

#include <charconv>

#include <fmt/format.h>

namespace floe {

namespace {

bool ParseDigits(std::string_view s, int64_t* out) {
  if (s.empty() || s[0] == '-' || s[0] == '+') return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

}  // namespace

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// Howard Hinnant's days_from_civil / civil_from_days.
int32_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return static_cast<int32_t>(era * 146097 + doe - 719468);
}

void CivilFromDays(int64_t days, int64_t* y, unsigned* m, unsigned* d) {
  int64_t z = days + 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  *d = static_cast<unsigned>(doy - (153 * mp + 2) / 5 + 1);
  *m = static_cast<unsigned>(mp < 10 ? mp + 3 : mp - 9);
  *y = yoe + era * 400 + (*m <= 2);
}

std::string FormatDate(int32_t days) {
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  return fmt::format("{:04d}-{:02d}-{:02d}", y, m, d);
}

namespace {

// "[+|-]Y{4,7}-MM-DD" at the start of `s`: days since the epoch, and the length consumed. Years
// of more than four digits (or a sign) follow ISO 8601's expanded form; seven digits reach past
// int32's days either way, so the range is checked here.
std::optional<std::pair<int32_t, size_t>> ParseDatePrefix(std::string_view s, bool lenient) {
  size_t i = 0;
  bool neg = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    neg = s[0] == '-';
    i = 1;
  }
  size_t ystart = i;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  size_t ydigits = i - ystart;
  if (ydigits < 4 || ydigits > 7) return std::nullopt;
  // "-MM-DD"; lenient: one or two digits each, as SQL engines accept '2024-1-3'.
  auto field = [&](size_t at, int64_t* out) -> size_t {
    if (at >= s.size() || s[at] != '-') return 0;
    size_t n = 0;
    while (at + 1 + n < s.size() && n < 2 && s[at + 1 + n] >= '0' && s[at + 1 + n] <= '9') ++n;
    if (n == 0 || (n == 1 && !lenient)) return 0;
    if (!ParseDigits(s.substr(at + 1, n), out)) return 0;
    return n + 1;
  };
  int64_t y, m, d;
  if (!ParseDigits(s.substr(ystart, ydigits), &y)) return std::nullopt;
  size_t mlen = field(i, &m);
  if (mlen == 0) return std::nullopt;
  size_t dlen = field(i + mlen, &d);
  if (dlen == 0 || m < 1 || m > 12 || d < 1 || d > 31) return std::nullopt;
  if (neg) y = -y;
  // Days of y-m-d without narrowing, then the round trip that rejects Feb 30 and the range check.
  int64_t yy = y - (m <= 2);
  int64_t era = (yy >= 0 ? yy : yy - 399) / 400;
  int64_t yoe = yy - era * 400;
  int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  int64_t days = era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
  if (days < INT32_MIN || days > INT32_MAX) return std::nullopt;
  int64_t y2;
  unsigned m2, d2;
  CivilFromDays(days, &y2, &m2, &d2);
  if (y2 != y || m2 != m || d2 != d) return std::nullopt;
  return std::pair{static_cast<int32_t>(days), i + mlen + dlen};
}

// "Z", "+hh", "+hhmm", "+hh:mm" (or '-'): minutes east of UTC, within +-18:00 as ISO and Java's
// ZoneOffset allow.
std::optional<int32_t> ParseOffset(std::string_view s) {
  if (s == "Z" || s == "z") return 0;
  if (s.size() < 3 || (s[0] != '+' && s[0] != '-')) return std::nullopt;
  int sign = s[0] == '-' ? -1 : 1;
  std::string_view rest = s.substr(1);
  int64_t h = 0, mi = 0;
  if (rest.size() == 2) {
    if (!ParseDigits(rest, &h)) return std::nullopt;
  } else if (rest.size() == 4) {
    if (!ParseDigits(rest.substr(0, 2), &h) || !ParseDigits(rest.substr(2), &mi))
      return std::nullopt;
  } else if (rest.size() == 5 && rest[2] == ':') {
    if (!ParseDigits(rest.substr(0, 2), &h) || !ParseDigits(rest.substr(3), &mi))
      return std::nullopt;
  } else {
    return std::nullopt;
  }
  if (mi > 59 || h * 60 + mi > int64_t{18} * 60) return std::nullopt;
  return static_cast<int32_t>(sign * (h * 60 + mi));
}

}  // namespace

std::optional<int32_t> ParseIsoDate(std::string_view s, bool lenient) {
  auto d = ParseDatePrefix(s, lenient);
  if (!d || d->second != s.size()) return std::nullopt;
  return d->first;
}

std::optional<int64_t> ParseIsoTimeNanos(std::string_view s) {
  if (s.size() < 5 || s[2] != ':') return std::nullopt;
  int64_t h, mi, sec = 0;
  if (!ParseDigits(s.substr(0, 2), &h) || !ParseDigits(s.substr(3, 2), &mi) || h > 23 || mi > 59)
    return std::nullopt;
  int64_t frac = 0;
  if (s.size() > 5) {
    if (s[5] != ':' || s.size() < 8 || !ParseDigits(s.substr(6, 2), &sec) || sec > 60)
      return std::nullopt;
    if (s.size() > 8) {
      if (s[8] != '.' || s.size() == 9 || s.size() > 18) return std::nullopt;
      std::string f(s.substr(9));
      f.resize(9, '0');
      if (!ParseDigits(f, &frac)) return std::nullopt;
    }
  }
  return ((h * 60 + mi) * 60 + sec) * 1000000000LL + frac;
}

std::optional<IsoDateTime> ParseIsoDateTime(std::string_view s, bool lenient) {
  auto date = ParseDatePrefix(s, lenient);
  if (!date) return std::nullopt;
  IsoDateTime t;
  t.days = date->first;
  std::string_view rest = s.substr(date->second);
  if (rest.empty()) return t;
  if (rest[0] != 'T' && rest[0] != 't' && rest[0] != ' ') return std::nullopt;
  rest.remove_prefix(1);
  // The offset starts at a 'Z' or at the first sign after the time's "HH:MM".
  size_t off = rest.find_first_of("Zz+-", 5);
  if (off != std::string_view::npos) {
    auto o = ParseOffset(rest.substr(off));
    if (!o) return std::nullopt;
    t.offset_minutes = *o;
    t.has_offset = true;
    rest = rest.substr(0, off);
  }
  auto tod = ParseIsoTimeNanos(rest);
  if (!tod) return std::nullopt;
  t.nanos_of_day = *tod;
  return t;
}

std::optional<int64_t> EpochUnits(const IsoDateTime& t, int64_t units_per_second) {
  const __int128 per_day = static_cast<__int128>(units_per_second) * 86400;
  __int128 v = static_cast<__int128>(t.days) * per_day;
  // Floor the fraction to the unit: nanos_of_day is never negative.
  v += static_cast<__int128>(t.nanos_of_day) * units_per_second / 1000000000;
  v -= static_cast<__int128>(t.offset_minutes) * 60 * units_per_second;
  if (v < INT64_MIN || v > INT64_MAX) return std::nullopt;
  return static_cast<int64_t>(v);
}

Result<int64_t> ParseIsoTimestamp(std::string_view s, int64_t units_per_second,
                                  std::string_view what) {
  auto t = ParseIsoDateTime(s);
  if (!t) return InvalidInput("'{}' is not a timestamp (2024-01-03 10:00:00[.ffffff][+hh:mm])", s);
  auto v = EpochUnits(*t, units_per_second);
  if (!v) return InvalidInput("timestamp '{}' is outside the range of {}", s, what);
  return *v;
}

std::optional<int64_t> ParseIsoTimestampNanos(std::string_view s) {
  auto t = ParseIsoDateTime(s);
  if (!t) return std::nullopt;
  return EpochUnits(*t, 1000000000);
}

Result<int64_t> ParseTimeOrAge(std::string_view text, int64_t now_ms, std::string_view what) {
  auto bad = [&] {
    return InvalidInput(
        "{} '{}': expected an age (30s, 15m, 12h, 3d), an ISO date or timestamp, or Unix ms", what,
        text);
  };
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0) return bad();
  int64_t n = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + digits, n);
  if (digits == text.size()) {
    if (ec != std::errc()) {
      return InvalidInput("{} '{}': Unix milliseconds past the year 292 million", what, text);
    }
    return n;
  }
  std::string_view unit = text.substr(digits);
  const int64_t ms = unit == "ms"  ? 1
                     : unit == "s" ? 1000
                     : unit == "m" ? 60000
                     : unit == "h" ? 3600000
                     : unit == "d" ? 86400000
                                   : 0;
  if (ms != 0) {
    int64_t age = 0, at = 0;
    if (ec != std::errc() || __builtin_mul_overflow(n, ms, &age) ||
        __builtin_sub_overflow(now_ms, age, &at)) {
      return InvalidInput("{} '{}': an age past int64 milliseconds", what, text);
    }
    return at;
  }
  auto t = ParseIsoDateTime(text);
  if (!t) return bad();
  auto ms_since = EpochUnits(*t, 1000);
  if (!ms_since) return bad();
  return *ms_since;
}

bool DecimalFits(__int128 unscaled, int32_t precision) {
  unsigned __int128 u = unscaled < 0 ? -static_cast<unsigned __int128>(unscaled)
                                     : static_cast<unsigned __int128>(unscaled);
  unsigned __int128 limit = 1;
  for (int32_t i = 0; i < precision && i < 39; ++i) limit *= 10;
  return precision >= 39 || u < limit;
}

std::optional<__int128> ParseDecimalText(std::string_view s, int32_t scale) {
  if (scale < 0 || scale > 38) return std::nullopt;
  bool neg = !s.empty() && s[0] == '-';
  if (neg || (!s.empty() && s[0] == '+')) s.remove_prefix(1);
  auto dot = s.find('.');
  std::string_view ip = s.substr(0, dot),
                   fp = dot == std::string_view::npos ? "" : s.substr(dot + 1);
  if (ip.empty() && fp.empty()) return std::nullopt;
  while (fp.size() > static_cast<size_t>(scale) && fp.back() == '0') fp.remove_suffix(1);
  if (fp.size() > static_cast<size_t>(scale)) return std::nullopt;
  while (ip.size() > 1 && ip.front() == '0') ip.remove_prefix(1);
  if (ip.size() + static_cast<size_t>(scale) > 38) return std::nullopt;  // past decimal128
  __int128 v = 0;
  for (char c : ip) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  for (int32_t i = 0; i < scale; ++i) {
    char c = i < static_cast<int32_t>(fp.size()) ? fp[i] : '0';
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return neg ? -v : v;
}

}  // namespace floe
