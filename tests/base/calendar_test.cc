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

}  // namespace
}  // namespace floe
