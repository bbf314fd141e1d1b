#include "floe/parquet/metadata_checksum.h"

#include <algorithm>
#include <regex>

#include <gtest/gtest.h>

#include "floe/parquet/column_predicate.h"
#include "floe/parquet/file_reader.h"
#include "floe/parquet/footer.h"
#include "parquet/read_fixture_util.h"
#include "parquet/reader_test_util.h"

namespace floe::parquet {
namespace {

std::vector<uint8_t> Bytes(const testing::FixtureFile& f) {
  return std::vector<uint8_t>(f.bytes.data(), f.bytes.data() + f.bytes.size());
}

// Two INT64 columns, 3,000 rows in row groups of 1,000 and pages of 100: c0 = row.
testing::FixtureFile File(std::string created_by = DefaultCreatedBy()) {
  WriterOptions o;
  o.row_group_row_limit = 1000;
  o.page_row_limit = 100;
  o.created_by = std::move(created_by);
  auto f = testing::WriteInt64File(2, 3000, 0, o);
  EXPECT_TRUE(f.has_value());
  return std::move(*f);
}

TEST(MetadataChecksumTest, WriterRecordsTheCrcOfEveryIndexAndOfTheFooter) {
  const testing::FixtureFile f = File();
  const FileMetaData& md = f.written.metadata;
  ASSERT_TRUE(HasFloeChecksums(md));
  const ByteView file = f.bytes.view();
  for (size_t r = 0; r < md.row_groups.size(); ++r) {
    for (size_t c = 0; c < 2; ++c) {
      const ColumnChunk& chunk = md.row_groups[r].columns[c];
      EXPECT_EQ(RecordedIndexCrc(md, r, c, true),
                Crc32(file.subspan(*chunk.column_index_offset, *chunk.column_index_length)));
      EXPECT_EQ(RecordedIndexCrc(md, r, c, false),
                Crc32(file.subspan(*chunk.offset_index_offset, *chunk.offset_index_length)));
    }
  }
  auto footer = ParseFooter("f.parquet", file.size(), file);
  ASSERT_TRUE(footer.has_value()) << footer.error().ToString();
  EXPECT_EQ(footer->metadata->key_value_metadata.back().key, kFooterCrcKey);
  EXPECT_EQ(footer->metadata->key_value_metadata.back().value,
            f.written.metadata.key_value_metadata.back().value);
}

// A flipped byte of the chunk statistics (the max of c0 in row group 0, 999 -> 1007 still above
// the min) would prune row group 0 for c0 = 1000..1007 answers -- no rule of the footer can tell
// it from a written one. Its CRC can.
TEST(MetadataChecksumTest, AFlippedStatisticIsAnError) {
  const testing::FixtureFile f = File();
  std::vector<uint8_t> bytes = Bytes(f);
  auto footer = ParseFooter("f.parquet", bytes.size(), bytes);
  ASSERT_TRUE(footer.has_value());
  // 999 little-endian is e7 03 00 00 00 00 00 00; the footer's first one is row group 0's max.
  const std::vector<uint8_t> max999 = {0xe7, 0x03, 0, 0, 0, 0, 0, 0};
  auto at = std::search(bytes.begin() + static_cast<int64_t>(footer->metadata_offset), bytes.end(),
                        max999.begin(), max999.end());
  ASSERT_NE(at, bytes.end());
  *at ^= 0x08;
  auto flipped = ParseFooter("f.parquet", bytes.size(), bytes);
  ASSERT_FALSE(flipped.has_value());
  const std::string recorded = *f.written.metadata.key_value_metadata.back().value;
  EXPECT_TRUE(std::regex_match(
      flipped.error().ToString(),
      std::regex("corrupt: parquet file 'f.parquet': the footer's CRC-32 is [0-9a-f]{8}, its "
                 "floe.footer.crc32 entry says " +
                 recorded)))
      << flipped.error().ToString();
}

// A flipped byte of a column index value: the index is not used (counted), the answer stays.
TEST(MetadataChecksumTest, AFlippedColumnIndexIsNotUsed) {
  const testing::FixtureFile f = File();
  std::vector<uint8_t> bytes = Bytes(f);
  const ColumnChunk& chunk = f.written.metadata.row_groups[1].columns[0];
  // The last byte before the ColumnIndex's boundary_order: inside its max_values.
  bytes[static_cast<size_t>(*chunk.column_index_offset + *chunk.column_index_length - 8)] ^= 0x01;
  auto opened = FileReader::Open("f.parquet", bytes.size(), bytes);
  ASSERT_TRUE(opened && opened->reader);
  ReadOptions o;
  o.use_page_index = true;
  o.columns = {"c0"};
  o.predicates.push_back(ColumnPredicate::Range("c0", int64_t{1250}, int64_t{1349}));
  auto plan = opened->reader->Plan(o);
  ASSERT_TRUE(plan.has_value());
  FetchedBytes all;
  all.Add(0, Buffer::Copy(bytes));
  ASSERT_TRUE(opened->reader->ApplyPageIndex(all, &*plan).has_value());
  EXPECT_EQ(plan->counts.metadata_rejected, 1);
  EXPECT_TRUE(plan->first_rejection.starts_with(
      "parquet file 'f.parquet': column 'c0' of row group 1: its column index not used: the "
      "CRC-32 of its column index is "))
      << plan->first_rejection;
  EXPECT_EQ(plan->counts.rows, 1000);  // row group 1 whole: the offset index alone prunes nothing
  auto batches = opened->reader->ReadAll(std::move(*plan), all);
  ASSERT_TRUE(batches.has_value());
  EXPECT_EQ(testing::CountRows(*batches), 1000);
}

// Files floe did not write are not checked: pyarrow copies key-value metadata when it rewrites a
// file, and its footer then differs from the one the copied CRC was taken of.
TEST(MetadataChecksumTest, OtherWritersFilesAreNotChecked) {
  const testing::FixtureFile f = File("parquet-cpp-arrow version 17.0.0");
  EXPECT_FALSE(HasFloeChecksums(f.written.metadata));
  EXPECT_EQ(RecordedIndexCrc(f.written.metadata, 0, 0, true), std::nullopt);
  std::vector<uint8_t> bytes = Bytes(f);
  auto footer = ParseFooter("f.parquet", bytes.size(), bytes);
  ASSERT_TRUE(footer.has_value());
  bytes[footer->metadata_offset + 40] ^= 0x01;  // wherever it lands, no CRC is checked
  auto flipped = ParseFooter("f.parquet", bytes.size(), bytes);
  if (!flipped) EXPECT_EQ(flipped.error().message.find("CRC-32"), std::string::npos);
}

}  // namespace
}  // namespace floe::parquet
