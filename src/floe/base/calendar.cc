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

std::optional<int32_t> ParseIsoDate(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return std::nullopt;
  int64_t y, m, d;
  if (!ParseDigits(s.substr(0, 4), &y) || !ParseDigits(s.substr(5, 2), &m) ||
      !ParseDigits(s.substr(8, 2), &d) || m < 1 || m > 12 || d < 1 || d > 31) {
    return std::nullopt;
  }
  int32_t days = DaysFromCivil(y, static_cast<unsigned>(m), static_cast<unsigned>(d));
  int64_t y2;
  unsigned m2, d2;
  CivilFromDays(days, &y2, &m2, &d2);
  if (y2 != y || m2 != m || d2 != d) return std::nullopt;
  return days;
}

std::optional<int64_t> ParseIsoTimeNanos(std::string_view s) {
  if (s.size() < 8 || s[2] != ':' || s[5] != ':') return std::nullopt;
  int64_t h, mi, sec;
  if (!ParseDigits(s.substr(0, 2), &h) || !ParseDigits(s.substr(3, 2), &mi) ||
      !ParseDigits(s.substr(6, 2), &sec) || h > 23 || mi > 59 || sec > 60) {
    return std::nullopt;
  }
  int64_t frac = 0;
  if (s.size() > 8) {
    if (s[8] != '.' || s.size() == 9 || s.size() > 18) return std::nullopt;
    std::string f(s.substr(9));
    f.resize(9, '0');
    if (!ParseDigits(f, &frac)) return std::nullopt;
  }
  return ((h * 60 + mi) * 60 + sec) * 1000000000LL + frac;
}

std::optional<int64_t> ParseIsoTimestampNanos(std::string_view s) {
  auto date = ParseIsoDate(s.substr(0, std::min<size_t>(10, s.size())));
  if (!date) return std::nullopt;
  int64_t nanos = static_cast<int64_t>(*date) * 86400LL * 1000000000LL;
  if (s.size() == 10) return nanos;
  if (s[10] != 'T' && s[10] != ' ') return std::nullopt;
  std::string_view rest = s.substr(11);
  int64_t offset_minutes = 0;
  if (!rest.empty() && (rest.back() == 'Z' || rest.back() == 'z')) {
    rest.remove_suffix(1);
  } else if (rest.size() > 6 && (rest[rest.size() - 6] == '+' || rest[rest.size() - 6] == '-')) {
    std::string_view off = rest.substr(rest.size() - 5);
    int64_t oh, om;
    if (off[2] != ':' || !ParseDigits(off.substr(0, 2), &oh) ||
        !ParseDigits(off.substr(3, 2), &om)) {
      return std::nullopt;
    }
    offset_minutes = (oh * 60 + om) * (rest[rest.size() - 6] == '-' ? -1 : 1);
    rest.remove_suffix(6);
  }
  auto t = ParseIsoTimeNanos(rest);
  if (!t) return std::nullopt;
  return nanos + *t - offset_minutes * 60LL * 1000000000LL;
}

std::optional<__int128> ParseDecimalText(std::string_view s, int32_t scale) {
  bool neg = !s.empty() && s[0] == '-';
  if (neg || (!s.empty() && s[0] == '+')) s.remove_prefix(1);
  auto dot = s.find('.');
  std::string_view ip = s.substr(0, dot),
                   fp = dot == std::string_view::npos ? "" : s.substr(dot + 1);
  if (ip.empty() && fp.empty()) return std::nullopt;
  while (fp.size() > static_cast<size_t>(scale) && fp.back() == '0') fp.remove_suffix(1);
  if (fp.size() > static_cast<size_t>(scale)) return std::nullopt;
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
