#include "floe/columnar/csv_reader.h"

#include <gtest/gtest.h>

namespace floe::columnar {
namespace {

Schema Fields(std::vector<Field> fields) {
  Schema s;
  s.fields = std::move(fields);
  return s;
}

// 2024-01-03T00:00:00Z in microseconds.
constexpr int64_t k20240103Micros = 1704240000LL * 1000000;

TEST(CsvReader, TimestampsCoverTheWholeMicrosecondRange) {
  Schema s = Fields({{"ts", Timestamp(TimeUnit::kMicro, "UTC")}});
  auto b = ReadCsv(
      "ts\n9999-12-31T00:00:00Z\n2024-01-03T01:00:00+01:00\n0001-01-01 00:00:00\n"
      "+294247-01-10T04:00:54.775807Z\n",
      s, "t.csv");
  ASSERT_TRUE(b) << b.error().ToString();
  const int64_t* v = b->columns[0]->Values<int64_t>();
  EXPECT_EQ(v[0], 253402214400LL * 1000000);  // not 1816-03-29: no nanosecond wrap
  EXPECT_EQ(v[1], k20240103Micros);
  EXPECT_EQ(v[2], -62135596800LL * 1000000);
  EXPECT_EQ(v[3], INT64_MAX);
}

TEST(CsvReader, ValuesOutsideTheColumnTypeAreErrorsNamingLineAndColumn) {
  Schema ns = Fields({{"ts", Timestamp(TimeUnit::kNano)}});
  auto b = ReadCsv("ts\n2024-01-03T00:00:00\n9999-12-31T00:00:00\n", ns, "n.csv");
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().message,
            "n.csv: line 3: timestamp '9999-12-31T00:00:00' is outside the range of "
            "timestamp[ns] for column 'ts'");

  Schema us = Fields({{"ts", Timestamp(TimeUnit::kMicro, "UTC")}});
  b = ReadCsv("ts\n2024-01-03T00:00:00+99:00\n", us, "o.csv");
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().message,
            "o.csv: line 2: '2024-01-03T00:00:00+99:00' is not a timestamp (2024-01-03 "
            "10:00:00[.ffffff][+hh:mm]) for column 'ts'");

  Schema dec = Fields({{"d", Decimal128(5, 2)}});
  b = ReadCsv("d\n123.45\n-999.99\n1234.5\n", dec, "d.csv");
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().message,
            "d.csv: line 4: '1234.5' has more digits than decimal(5, 2) holds for column 'd'");
  b = ReadCsv("d\n123.45\n-999.99\n", dec, "d.csv");
  ASSERT_TRUE(b) << b.error().ToString();
  EXPECT_EQ(b->columns[0]->Values<__int128>()[1], static_cast<__int128>(-99999));
}

TEST(CsvReader, ADuplicateHeaderColumnIsAnError) {
  Schema s = Fields({{"id", Int64()}, {"v", Int64()}});
  auto b = ReadCsv("id,v,v\n1,2,3\n", s, "dup.csv");
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().message, "dup.csv: header column 'v' appears twice (columns 2 and 3)");
}

TEST(CsvReader, UuidColumnsTakeTheirTextForm) {
  Schema s = Fields({{"u", FixedSizeBinary(16)}});
  auto b = ReadCsv("u\nf79c3e09-677c-4bbd-a479-3f349cb785e7\n\n", s, "u.csv");
  ASSERT_TRUE(b) << b.error().ToString();
  EXPECT_EQ(b->num_rows, 1);
  EXPECT_EQ(b->columns[0]->BytesAt(0),
            std::string("\xf7\x9c\x3e\x09\x67\x7c\x4b\xbd\xa4\x79\x3f\x34\x9c\xb7\x85\xe7", 16));
  b = ReadCsv("u\nf79c3e09-677c-4bbd-a479-3f349cb785eZ\n", s, "u.csv");
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().message,
            "u.csv: line 2: 'f79c3e09-677c-4bbd-a479-3f349cb785eZ' is not a fixed_size_binary[16] "
            "value for column 'u'");
}

}  // namespace
}  // namespace floe::columnar
