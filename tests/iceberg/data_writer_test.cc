// TableDataWriter encodes a write's partitions at once on the runtime's decode pool: the files
// must come out the same as when they are encoded one at a time -- the same partitions, rows,
// sizes and bytes, in the same order -- and each partition's files cut at the target size. Rows
// handed over already split by partition (WriteInPartition, a copy-on-write rewrite's) must come
// out as the writer's own split makes them.
#include "floe/iceberg/data_writer.h"

#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "floe/bench/generators.h"
#include "floe/catalog/sql_catalog.h"
#include "floe/columnar/take.h"
#include "floe/iceberg/arrow_schema.h"
#include "floe/iceberg/runtime.h"
#include "floe/iceberg/transform_column.h"
#include "floe/io/local_store.h"
#include "support/temp_dir.h"

namespace floe::iceberg {
namespace {

struct Written {
  std::vector<DataFile> files;
  std::vector<std::string> bytes;  // each file's contents
};

// Rows of one partition of bucket(5, order_id), with its value: `rows` whole, or with `numbers`
// those rows of it.
struct Part {
  columnar::RecordBatch rows;
  int32_t bucket = 0;
  std::optional<std::vector<int64_t>> numbers;
};

// Writes `batches` (orders) into a new table partitioned by bucket(5, order_id) at a 64 KiB
// target, on a runtime whose decode pool has `threads` threads -- or `parts` with
// WriteInPartition -- sorted by `sort` when not empty.
Written Write(const std::vector<columnar::RecordBatch>& batches, size_t threads,
              const std::vector<Part>& parts = {}, const std::string& sort = "",
              const std::string& partition_by = "bucket(5, order_id)",
              const std::string& target = "65536") {
  testing::TempDir dir;
  auto store = io::LocalStore::Open(dir.str()).value();
  auto cat = catalog::SqlCatalog::Open(dir.str() + "/catalog.db").value();
  RuntimeOptions ro;
  ro.decode_threads = threads;
  FileIO io(store, "file://" + dir.str(), {}, Runtime::Make(ro));
  int32_t next_id = 1;
  Schema schema =
      FromColumnarSchema(*bench::WorkloadSchema(bench::Workload::kOrders), &next_id).value();
  PartitionSpec spec =
      partition_by.empty() ? PartitionSpec() : PartitionSpec::Parse(partition_by, schema).value();
  SortOrder order = sort.empty() ? SortOrder() : SortOrder::Parse(sort, schema).value();
  auto id = catalog::TableIdentifier::Parse("db.t").value();
  Table t = CreateTable(*cat, io, id,
                        {schema, spec, order, {{"write.target-file-size-bytes", target}}, ""})
                .value();
  TableDataWriter writer(t, io);
  for (const auto& b : batches) EXPECT_TRUE(writer.Write(b));
  for (const Part& p : parts) {
    std::vector<Literal> partition;
    if (!partition_by.empty()) partition.push_back(Literal::Int(p.bucket));
    EXPECT_TRUE(writer.WriteInPartition(p.rows, spec.spec_id(), partition, p.numbers));
  }
  auto files = writer.Finish();
  EXPECT_TRUE(files) << files.error().ToString();
  Written w;
  w.files = files.value_or(std::vector<DataFile>{});
  for (const DataFile& f : w.files) {
    auto bytes = io.Read(f.file_path);
    EXPECT_TRUE(bytes) << f.file_path;
    w.bytes.emplace_back(bytes ? std::string(bytes->view().begin(), bytes->view().end()) : "");
  }
  return w;
}

// `batches` split by bucket(5, order_id), batch by batch: each batch's rows of each bucket, taken
// -- or, `by_number`, the batch with their numbers.
std::vector<Part> SplitByBucket(const std::vector<columnar::RecordBatch>& batches,
                                bool by_number = false) {
  std::vector<Part> parts;
  const auto bucket = Transform::Parse("bucket[5]").value();
  for (const columnar::RecordBatch& b : batches) {
    const int id = b.schema->IndexOf("order_id").value();
    auto keys = TransformColumn(bucket, b.columns[id], *Primitive(TypeId::kLong)).value();
    for (int32_t v = 0; v < 5; ++v) {
      std::vector<int64_t> rows;
      for (int64_t r = 0; r < b.num_rows; ++r) {
        if (keys->Value<int32_t>(r) == v) rows.push_back(r);
      }
      if (by_number) {
        parts.push_back({b, v, rows});
      } else {
        parts.push_back({columnar::Take(b, rows).value(), v, std::nullopt});
      }
    }
  }
  return parts;
}

void ExpectSameFiles(const Written& a, const Written& b) {
  ASSERT_EQ(a.files.size(), b.files.size());
  for (size_t i = 0; i < a.files.size(); ++i) {
    EXPECT_EQ(a.files[i].partition, b.files[i].partition) << i;
    EXPECT_EQ(a.files[i].record_count, b.files[i].record_count) << i;
    EXPECT_TRUE(a.bytes[i] == b.bytes[i]) << "file " << i << " differs";
  }
}

// `rows` generated orders in `writes` batches.
Result<std::vector<columnar::RecordBatch>> Orders(int64_t rows, int writes) {
  bench::GenOptions o;
  o.rows = rows;
  o.writes = writes;
  return bench::Generate(bench::Workload::kOrders, o);
}

TEST(DataWriter, PartitionsEncodedAtOnceComeOutAsOneAtATime) {
  auto batches = Orders(60000, 1);
  ASSERT_TRUE(batches) << batches.error().ToString();
  const Written one = Write(*batches, 1);
  const Written four = Write(*batches, 4);
  ASSERT_EQ(one.files.size(), four.files.size());
  // Five partitions, each cut into several files at the target.
  ASSERT_GE(one.files.size(), 10u);
  int64_t rows = 0;
  int partition_changes = 0;
  for (size_t i = 0; i < one.files.size(); ++i) {
    const DataFile& a = one.files[i];
    const DataFile& b = four.files[i];
    rows += a.record_count;
    EXPECT_EQ(a.partition, b.partition) << i;
    EXPECT_EQ(a.record_count, b.record_count) << i;
    EXPECT_EQ(a.file_size_in_bytes, b.file_size_in_bytes) << i;
    EXPECT_TRUE(one.bytes[i] == four.bytes[i]) << "file " << i << " differs";
    // Files are numbered in the order they are listed, partition by partition.
    const std::string name = a.file_path.substr(a.file_path.rfind('/') + 1);
    EXPECT_EQ(name.substr(0, 6), fmt::format("{:05d}-", i)) << a.file_path;
    if (i > 0 && !(one.files[i - 1].partition == a.partition)) ++partition_changes;
  }
  EXPECT_EQ(rows, 60000);
  EXPECT_EQ(partition_changes, 4);  // each partition's files together
}

TEST(DataWriter, RowsHandedOverByPartitionComeOutAsTheWritersOwnSplit) {
  auto batches = Orders(30000, 3);
  ASSERT_TRUE(batches) << batches.error().ToString();
  ASSERT_GE(batches->size(), 3u);
  const std::vector<Part> parts = SplitByBucket(*batches);
  // Unsorted: the batches are encoded as they come, cut into files across batch boundaries.
  const Written split = Write(*batches, 2);
  ASSERT_GE(split.files.size(), 10u);
  ExpectSameFiles(split, Write({}, 2, parts));
  // Rows handed over by number (a rewrite's survivors) are taken as the partition encodes.
  const std::vector<Part> numbered = SplitByBucket(*batches, /*by_number=*/true);
  ExpectSameFiles(split, Write({}, 2, numbered));
  // Sorted: a partition's batches are gathered and sorted first; some rows by Write, the rest by
  // partition, land in the same files.
  const std::string sort = "customer_id DESC, order_id";
  const Written sorted = Write(*batches, 2, {}, sort);
  ExpectSameFiles(sorted, Write({}, 2, parts, sort));
  ExpectSameFiles(sorted, Write({}, 2, numbered, sort));
  std::vector<Part> later(parts.begin() + 5, parts.end());
  ExpectSameFiles(sorted, Write({batches->front()}, 2, later, sort));
}

// A sorted write of more than a million rows in one partition puts them in order at once (a
// two-pass permutation), then cuts files from the ordered rows: the files are those the rows
// handed over by partition make, which are gathered and sorted file by file.
TEST(DataWriter, ALargeSortedWriteComesOutAsTheRowsGatheredFileByFile) {
  auto batches = Orders((int64_t{1} << 20) + 4000, 1);
  ASSERT_TRUE(batches) << batches.error().ToString();
  const std::string sort = "customer_id DESC, order_id";
  const Written at_once = Write(*batches, 2, {}, sort, "", "4194304");
  std::vector<Part> whole;
  for (const columnar::RecordBatch& b : *batches) whole.push_back({b, 0, std::nullopt});
  ExpectSameFiles(at_once, Write({}, 2, whole, sort, "", "4194304"));
  int64_t rows = 0;
  for (const DataFile& f : at_once.files) rows += f.record_count;
  EXPECT_EQ(rows, (int64_t{1} << 20) + 4000);
  EXPECT_GE(at_once.files.size(), 3u);
}

}  // namespace
}  // namespace floe::iceberg
