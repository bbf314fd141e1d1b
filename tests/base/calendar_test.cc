#include "floe/base/calendar.h"

#include <gtest/gtest.h>

namespace floe {
namespace {

// 2024-01-01T00:00:00Z is Unix time 1704067200 = 19723 days.
constexpr int32_t k20240101 = 19723;
constexpr int64_t kNanosPerDay = 86400LL * 1000000000LL;

TEST(CalendarTest, DaysRoundTripAcrossEras) {
  EXPECT_EQ(DaysFromCivil(1970, 1, 1), 0);
  EXPECT_EQ(DaysFromCivil(2024, 1, 1), k20240101);
  EXPECT_EQ(DaysFromCivil(1969, 12, 31), -1);
  for (int64_t days : {-719468LL, -1LL, 0LL, 59LL, 11016LL, 2932896LL}) {
    int64_t y;
    unsigned m, d;
    CivilFromDays(days, &y, &m, &d);
    EXPECT_EQ(DaysFromCivil(y, m, d), days);
  }
  EXPECT_EQ(FormatDate(k20240101 + 59), "2024-02-29");
  EXPECT_EQ(FormatDate(-1), "1969-12-31");
  EXPECT_EQ(FloorDiv(-1, 86400), -1);
  EXPECT_EQ(FloorDiv(86400, 86400), 1);
}

TEST(CalendarTest, ParsesIsoDatesAndRejectsDaysTheMonthLacks) {
  EXPECT_EQ(ParseIsoDate("2024-01-01"), k20240101);
  EXPECT_EQ(ParseIsoDate("2024-02-29"), k20240101 + 59);
  EXPECT_EQ(ParseIsoDate("2023-02-29"), std::nullopt);
  EXPECT_EQ(ParseIsoDate("2024-04-31"), std::nullopt);
  EXPECT_EQ(ParseIsoDate("2024-13-01"), std::nullopt);
  EXPECT_EQ(ParseIsoDate("2024-1-01"), std::nullopt);
  EXPECT_EQ(ParseIsoDate("2024-+1-01"), std::nullopt);
}

TEST(CalendarTest, ParsesTimesAndTimestampsWithOffsets) {
  EXPECT_EQ(ParseIsoTimeNanos("01:02:03"), 3723LL * 1000000000LL);
  EXPECT_EQ(ParseIsoTimeNanos("00:00:00.5"), 500000000LL);
  EXPECT_EQ(ParseIsoTimeNanos("23:59:60"), 86400LL * 1000000000LL);  // leap second
  EXPECT_EQ(ParseIsoTimeNanos("24:00:00"), std::nullopt);
  EXPECT_EQ(ParseIsoTimeNanos("00:00:00."), std::nullopt);
  const int64_t midnight = k20240101 * kNanosPerDay;
  EXPECT_EQ(ParseIsoTimestampNanos("2024-01-01"), midnight);
  EXPECT_EQ(ParseIsoTimestampNanos("2024-01-01T00:00:00Z"), midnight);
  EXPECT_EQ(ParseIsoTimestampNanos("2024-01-01 01:30:00+01:30"), midnight);
  EXPECT_EQ(ParseIsoTimestampNanos("2023-12-31T23:00:00-01:00"), midnight);
  EXPECT_EQ(ParseIsoTimestampNanos("2024-01-01X00:00:00"), std::nullopt);
}

TEST(CalendarTest, ParsesDecimalsExactly) {
  EXPECT_EQ(ParseDecimalText("-12.345", 3), static_cast<__int128>(-12345));
  EXPECT_EQ(ParseDecimalText("1.2300", 2), static_cast<__int128>(123));
  EXPECT_EQ(ParseDecimalText(".5", 1), static_cast<__int128>(5));
  EXPECT_EQ(ParseDecimalText("7", 2), static_cast<__int128>(700));
  EXPECT_EQ(ParseDecimalText("1.234", 2), std::nullopt);
  EXPECT_EQ(ParseDecimalText("1e3", 0), std::nullopt);
  EXPECT_EQ(ParseDecimalText("", 0), std::nullopt);
}

TEST(CalendarTest, TimestampsSpanTheUnitsRangeAndNoMore) {
  // 9999-12-31 wrapped to 1816-03-29 when every timestamp went through int64 nanoseconds.
  auto t = ParseIsoDateTime("9999-12-31T00:00:00Z");
  ASSERT_TRUE(t);
  EXPECT_EQ(EpochUnits(*t, 1000000), 253402214400LL * 1000000);
  EXPECT_EQ(EpochUnits(*t, 1000000000), std::nullopt);
  EXPECT_EQ(ParseIsoTimestampNanos("9999-12-31T00:00:00Z"), std::nullopt);
  EXPECT_EQ(ParseIsoTimestampNanos("2262-04-11T23:47:16.854775807Z"), INT64_MAX);
  EXPECT_EQ(ParseIsoTimestampNanos("2262-04-11T23:47:16.854775808Z"), std::nullopt);
  // The ends of int64 microseconds, in ISO 8601's expanded years.
  t = ParseIsoDateTime("+294247-01-10T04:00:54.775807");
  ASSERT_TRUE(t);
  EXPECT_EQ(EpochUnits(*t, 1000000), INT64_MAX);
  t = ParseIsoDateTime("-290308-12-21T19:59:05.224192");
  ASSERT_TRUE(t);
  EXPECT_EQ(EpochUnits(*t, 1000000), INT64_MIN);
  t = ParseIsoDateTime("+294247-01-10T04:00:54.775808");
  ASSERT_TRUE(t);
  EXPECT_EQ(EpochUnits(*t, 1000000), std::nullopt);

  auto r = ParseIsoTimestamp("9999-12-31", 1000000000, "timestamp_ns");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "timestamp '9999-12-31' is outside the range of timestamp_ns");
  r = ParseIsoTimestamp("2024-13-01", 1000000, "timestamp");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "'2024-13-01' is not a timestamp (2024-01-03 10:00:00[.ffffff][+hh:mm])");
}

TEST(CalendarTest, OffsetsAreWithinEighteenHours) {
  const int64_t midnight = static_cast<int64_t>(k20240101) * 86400 * 1000000;
  for (const char* s : {"2024-01-01T01:30:00+01:30", "2024-01-01T01:30:00+0130",
                        "2024-01-01T01:00:00+01", "2023-12-31T06:00:00-18:00"}) {
    auto t = ParseIsoDateTime(s);
    ASSERT_TRUE(t) << s;
    EXPECT_EQ(EpochUnits(*t, 1000000), midnight) << s;
  }
  for (const char* s :
       {"2024-01-01T00:00:00+99:00", "2024-01-01T00:00:00+18:01", "2024-01-01T00:00:00+01:60",
        "2024-01-01T00:00:00+1", "2024-01-01T00:00:00+"}) {
    EXPECT_EQ(ParseIsoDateTime(s), std::nullopt) << s;
  }
}

TEST(CalendarTest, DatesTakeExpandedYearsWithinInt32Days) {
  EXPECT_EQ(ParseIsoDate("+10000-01-01"), DaysFromCivil(10000, 1, 1));
  EXPECT_EQ(ParseIsoDate("-0001-12-31"), DaysFromCivil(-1, 12, 31));
  EXPECT_EQ(ParseIsoDate("5881580-07-11"), INT32_MAX);
  EXPECT_EQ(ParseIsoDate("5881580-07-12"), std::nullopt);
  EXPECT_EQ(ParseIsoDate("2024-1-3"), std::nullopt);
  EXPECT_EQ(ParseIsoDate("2024-1-3", /*lenient=*/true), DaysFromCivil(2024, 1, 3));
  EXPECT_EQ(ParseIsoTimeNanos("10:30"), 37800LL * 1000000000LL);
}

TEST(CalendarTest, DecimalsCheckTheirPrecision) {
  EXPECT_TRUE(DecimalFits(99999, 5));
  EXPECT_FALSE(DecimalFits(100000, 5));
  EXPECT_TRUE(DecimalFits(-99999, 5));
  EXPECT_FALSE(DecimalFits(-100000, 5));
  // 39 digits overflow decimal128's 38: refused rather than wrapped.
  EXPECT_EQ(ParseDecimalText("123456789012345678901234567890123456789", 0), std::nullopt);
  EXPECT_EQ(ParseDecimalText("000000000000000000000000000000000000001.5", 1),
            static_cast<__int128>(15));
}

TEST(CalendarTest, TimesAndAgesForFlagsAndCallArguments) {
  const int64_t now = 1704067200000;  // 2024-01-01T00:00:00Z
  EXPECT_EQ(ParseTimeOrAge("3d", now, "x"), now - 3 * 86400000LL);
  EXPECT_EQ(ParseTimeOrAge("250ms", now, "x"), now - 250);
  EXPECT_EQ(ParseTimeOrAge("0s", now, "x"), now);
  EXPECT_EQ(ParseTimeOrAge("1700000000000", now, "x"), 1700000000000LL);
  EXPECT_EQ(ParseTimeOrAge("2023-12-31T23:00:00-01:00", now, "x"), now);
  EXPECT_EQ(ParseTimeOrAge("2024-01-01", now, "x"), now);
  for (const char* bad : {"", "3w", "soon", "-3d", "3 d"}) {
    auto r = ParseTimeOrAge(bad, now, "--older-than");
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().message,
              fmt::format("--older-than '{}': expected an age (30s, 15m, 12h, 3d), an ISO date or "
                          "timestamp, or Unix ms",
                          bad));
  }
  EXPECT_EQ(ParseTimeOrAge("99999999999999999999d", now, "a").error().message,
            "a '99999999999999999999d': an age past int64 milliseconds");
  EXPECT_EQ(ParseTimeOrAge("9999999999999999d", now, "a").error().message,
            "a '9999999999999999d': an age past int64 milliseconds");
}

}  // namespace
}  // namespace floe
