#include "floe/sql/interval.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

#include "floe/sql/bind_internal.h"

namespace floe::sql {

namespace {

// Adds `amount` of `unit` to `out`; false for a unit that is none.
bool AddUnit(std::string unit, double amount, Interval* out) {
  if (unit.size() > 1 && unit.back() == 's' && unit != "ms" && unit != "us") unit.pop_back();
  constexpr int64_t kSecond = 1'000'000;
  auto whole = [&](int64_t per, int64_t* field) {
    *field += static_cast<int64_t>(std::llround(amount * static_cast<double>(per)));
  };
  if (unit == "year" || unit == "yr" || unit == "y") {
    whole(12, &out->months);
  } else if (unit == "quarter") {
    whole(3, &out->months);
  } else if (unit == "month" || unit == "mon") {
    whole(1, &out->months);
  } else if (unit == "week" || unit == "w") {
    whole(7, &out->days);
  } else if (unit == "day" || unit == "d") {
    whole(1, &out->days);
  } else if (unit == "hour" || unit == "hr" || unit == "h") {
    whole(3600 * kSecond, &out->micros);
  } else if (unit == "minute" || unit == "min" || unit == "m") {
    whole(60 * kSecond, &out->micros);
  } else if (unit == "second" || unit == "sec" || unit == "s") {
    whole(kSecond, &out->micros);
  } else if (unit == "millisecond" || unit == "ms" || unit == "msec") {
    whole(1000, &out->micros);
  } else if (unit == "microsecond" || unit == "us" || unit == "usec") {
    whole(1, &out->micros);
  } else {
    return false;
  }
  return true;
}

}  // namespace

Result<Interval> ParseInterval(std::string_view text, std::optional<std::string_view> unit) {
  Interval out;
  const std::string s = internal::Lower(std::string(text));
  size_t i = 0;
  bool any = false;
  auto skip_blanks = [&] {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  };
  for (;;) {
    skip_blanks();
    if (i >= s.size()) break;
    // A number: [+-]digits[.digits].
    const size_t start = i;
    if (s[i] == '+' || s[i] == '-') ++i;
    while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
    double amount = 0;
    const char* first = s.data() + start + (s[start] == '+' ? 1 : 0);
    auto [end, ec] = std::from_chars(first, s.data() + i, amount);
    if (ec != std::errc() || end != s.data() + i) {
      size_t stop = i;
      while (stop < s.size() && !std::isspace(static_cast<unsigned char>(s[stop]))) ++stop;
      return InvalidInput("interval '{}': '{}' is not a number", text,
                          s.substr(start, stop - start));
    }
    skip_blanks();
    const size_t word = i;
    while (i < s.size() && std::isalpha(static_cast<unsigned char>(s[i]))) ++i;
    std::string name = s.substr(word, i - word);
    if (name.empty()) {
      if (!unit || any) {
        return InvalidInput("interval '{}' needs a unit after {} (as in '3 days')", text,
                            s.substr(start, word - start));
      }
      name = internal::Lower(std::string(*unit));
    }
    if (!AddUnit(name, amount, &out)) {
      return InvalidInput(
          "interval '{}': '{}' is not a unit (year, month, week, day, hour, minute, "
          "second, millisecond, microsecond)",
          text, name);
    }
    any = true;
  }
  if (!any) return InvalidInput("interval '{}' is empty", text);
  return out;
}

}  // namespace floe::sql
