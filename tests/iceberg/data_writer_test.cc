// TableDataWriter encodes a write's partitions at once on the runtime's decode pool: the files
// must come out the same as when they are encoded one at a time -- the same partitions, rows,
// sizes and bytes, in the same order -- and each partition's files cut at the target size.
#include "floe/iceberg/data_writer.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "floe/bench/generators.h"
#include "floe/catalog/sql_catalog.h"
#include "floe/iceberg/arrow_schema.h"
#include "floe/iceberg/runtime.h"
#include "floe/io/local_store.h"
#include "support/temp_dir.h"

namespace floe::iceberg {
namespace {

struct Written {
  std::vector<DataFile> files;
  std::vector<std::string> bytes;  // each file's contents
};

// Writes `batches` (orders) into a new table partitioned by bucket(5, order_id) at a 64 KiB
// target, on a runtime whose decode pool has `threads` threads.
Written Write(const std::vector<columnar::RecordBatch>& batches, size_t threads) {
  testing::TempDir dir;
  auto store = io::LocalStore::Open(dir.str()).value();
  auto cat = catalog::SqlCatalog::Open(dir.str() + "/catalog.db").value();
  RuntimeOptions ro;
  ro.decode_threads = threads;
  FileIO io(store, "file://" + dir.str(), {}, Runtime::Make(ro));
  int32_t next_id = 1;
  Schema schema =
      FromColumnarSchema(*bench::WorkloadSchema(bench::Workload::kOrders), &next_id).value();
  PartitionSpec spec = PartitionSpec::Parse("bucket(5, order_id)", schema).value();
  auto id = catalog::TableIdentifier::Parse("db.t").value();
  Table t =
      CreateTable(*cat, io, id, {schema, spec, {}, {{"write.target-file-size-bytes", "65536"}}, ""})
          .value();
  TableDataWriter writer(t, io);
  for (const auto& b : batches) EXPECT_TRUE(writer.Write(b));
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

TEST(DataWriter, PartitionsEncodedAtOnceComeOutAsOneAtATime) {
  bench::GenOptions o;
  o.rows = 60000;
  o.writes = 1;
  auto batches = bench::Generate(bench::Workload::kOrders, o);
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

}  // namespace
}  // namespace floe::iceberg
