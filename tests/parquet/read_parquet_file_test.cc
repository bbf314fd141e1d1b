#include "floe/parquet/read_parquet_file.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include "floe/io/local_store.h"
#include "parquet/read_fixture_util.h"
#include "support/temp_dir.h"

namespace floe::parquet {
namespace {

// Issue 16, point 13: an input truncated while `table append` reads it. Between the footer read
// and the data read the file shrinks; the data read comes back short, which is one line naming
// the file -- never a read of bytes that are gone (the input store copies, never maps).
TEST(ReadParquetFileTest, AFileTruncatedAfterItsFooterWasReadIsAnError) {
  floe::testing::TempDir dir;
  auto store = io::LocalStore::Open(dir.str(), io::LocalStoreOptions{.map_reads = false});
  ASSERT_TRUE(store.has_value());
  auto f = testing::WriteInt64File(4, 100'000);
  ASSERT_TRUE(f.has_value());
  ASSERT_TRUE((*store)->Put("in.parquet", f->bytes.view()).has_value());

  FetchedBytes bytes;
  StoreReadStats stats;
  auto reader = OpenParquetFile(**store, "in.parquet", 0, 64 * 1024, &bytes, &stats);
  ASSERT_TRUE(reader.has_value()) << reader.error().ToString();
  auto plan = reader->Plan();
  ASSERT_TRUE(plan.has_value());
  const std::string path = (dir.path() / "in.parquet").string();
  const int64_t half = f->size() / 2;
  ASSERT_EQ(::truncate(path.c_str(), half), 0);

  auto fetched = FetchRanges(**store, "in.parquet", plan->DataRanges(), 1 << 20, &bytes, &stats);
  ASSERT_FALSE(fetched.has_value());
  // One coalesced range from the first chunk to the last: the part left is what comes back.
  const auto ranges = CoalesceRanges(
      [&] {
        std::vector<ByteRange> r;
        for (const PlannedRange& p : plan->DataRanges()) r.push_back(p.range);
        return r;
      }(),
      1 << 20);
  ASSERT_EQ(ranges.size(), 1u);
  EXPECT_EQ(fetched.error().ToString(),
            fmt::format("corrupt: parquet file 'file://{}': read {} of the {} bytes at offset {}",
                        path, half - ranges[0].offset, ranges[0].length, ranges[0].offset));
}

}  // namespace
}  // namespace floe::parquet
