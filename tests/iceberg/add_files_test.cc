// AddFiles: Parquet files registered where they are, their DataFiles built from the footer alone
// (one GET per file, lengths from the listing, no HEAD), checked against the table's schema and
// partition spec, with duplicates refused, in one append. Files come from floe's writer (whose own
// account of what it wrote, and ApplyMetrics over it, are the oracles) and from footers built by
// hand (whose statistics say exactly what may and may not become a bound).
#include "floe/iceberg/add_files.h"

#include <gtest/gtest.h>

#include <cstring>

#include "floe/catalog/sql_catalog.h"
#include "floe/columnar/column_builder.h"
#include "floe/iceberg/metrics.h"
#include "floe/iceberg/rewrite_data_files.h"
#include "floe/iceberg/scan.h"
#include "floe/iceberg/table_reader.h"
#include "floe/io/counting_store.h"
#include "floe/io/local_store.h"
#include "floe/parquet/output_sink.h"
#include "floe/parquet/writer.h"
#include "support/temp_dir.h"

namespace floe::iceberg {
namespace {

namespace c = floe::columnar;

std::string LE8(int64_t v) {
  std::string s(8, '\0');
  std::memcpy(s.data(), &v, 8);
  return s;
}
std::string LE4(int32_t v) {
  std::string s(4, '\0');
  std::memcpy(s.data(), &v, 4);
  return s;
}
std::string DoubleBytes(double v) {
  std::string s(8, '\0');
  std::memcpy(s.data(), &v, 8);
  return s;
}

// id long (required), name string, score double.
Schema TableSchema() {
  return Schema(0, {{1, "id", true, Primitive(TypeId::kLong)},
                    {2, "name", false, Primitive(TypeId::kString)},
                    {3, "score", false, Primitive(TypeId::kDouble)}});
}

struct Rows {
  std::vector<int64_t> id;
  std::vector<std::optional<std::string>> name;
  std::vector<double> score;
};

class AddFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    counting_ = std::make_shared<io::CountingStore>(io::LocalStore::Open(dir_.str()).value(),
                                                    /*per_object=*/true);
    cat_ = catalog::SqlCatalog::Open(dir_.str() + "/catalog.db").value();
    io_ = std::make_unique<FileIO>(counting_, "file://" + dir_.str());
  }

  Table Create(const std::string& partition_by = "",
               std::map<std::string, std::string> props = {}) {
    CreateTableOptions o;
    o.schema = TableSchema();
    if (!partition_by.empty()) o.spec = PartitionSpec::Parse(partition_by, o.schema).value();
    o.properties = std::move(props);
    return CreateTable(*cat_, *io_, id_, o).value();
  }

  // Writes `rows` with floe's writer at `key` (outside the table's location); with ids or
  // without, columns in the order given by `order` (names).
  parquet::WrittenFile Put(const std::string& key, const Rows& rows, bool ids,
                           std::vector<std::string> order = {"id", "name", "score"},
                           int64_t row_group_rows = 0) {
    auto schema = std::make_shared<c::Schema>();
    c::RecordBatch b;
    b.num_rows = static_cast<int64_t>(rows.id.size());
    for (const std::string& n : order) {
      if (n == "id") {
        schema->fields.push_back({"id", c::Int64(), false, ids ? 1 : -1});
        c::FixedWidthBuilder<int64_t> col(c::Int64());
        for (int64_t v : rows.id) col.Append(v);
        b.columns.push_back(col.Finish());
      } else if (n == "name") {
        schema->fields.push_back({"name", c::String(), true, ids ? 2 : -1});
        c::BinaryBuilder col(c::String());
        for (const auto& v : rows.name) {
          if (v) {
            EXPECT_TRUE(col.Append(*v).has_value());
          } else {
            col.AppendNull();
          }
        }
        b.columns.push_back(col.Finish());
      } else {
        schema->fields.push_back({"score", c::Float64(), true, ids ? 3 : -1});
        c::FixedWidthBuilder<double> col(c::Float64());
        for (double v : rows.score) col.Append(v);
        b.columns.push_back(col.Finish());
      }
    }
    b.schema = schema;
    parquet::MemorySink sink;
    parquet::WriterOptions o;
    if (row_group_rows > 0) o.row_group_row_limit = row_group_rows;
    auto w = parquet::ParquetWriter::Open(schema, &sink, o).value();
    EXPECT_TRUE(w->Write(b).has_value());
    parquet::WrittenFile written = w->Close().value();
    Buffer bytes = sink.ToBuffer();
    EXPECT_TRUE(counting_->Put(key, bytes.view()).has_value());
    return written;
  }

  std::string Loc(const std::string& key) const { return "file://" + dir_.str() + "/" + key; }

  Result<AddFilesResult> Add(const std::vector<std::string>& keys, AddFilesOptions o = {}) {
    std::vector<std::string> locs;
    for (const auto& k : keys) locs.push_back(Loc(k));
    return AddFiles(*cat_, *io_, id_, locs, o);
  }

  Table Load() const { return LoadTable(*cat_, *io_, id_).value(); }

  // Every row of the table's current snapshot, as "id|name|score", sorted.
  std::vector<std::string> ReadBack() {
    Table t = Load();
    std::vector<std::string> out;
    ScanPlan plan = PlanFiles(t, *io_, {}).value();
    for (const FileScanTask& task : plan.tasks) {
      // Held by name: a range-for over ReadTask(...).value() would outlive the Result.
      std::vector<c::RecordBatch> batches =
          ReadTask(task, t.metadata.CurrentSchema(), *io_).value();
      for (const c::RecordBatch& b : batches) {
        auto at = [&](const std::string& name) -> const c::ColumnPtr& {
          for (size_t i = 0; i < b.schema->fields.size(); ++i) {
            if (b.schema->fields[i].name == name) return b.columns[i];
          }
          ADD_FAILURE() << "no column " << name;
          return b.columns.at(99);
        };
        EXPECT_EQ(b.num_columns(), 3);
        const c::ColumnPtr& id = at("id");
        const c::ColumnPtr& name = at("name");
        const c::ColumnPtr& score = at("score");
        for (int64_t r = 0; r < b.num_rows; ++r) {
          std::string n = name->IsNull(r) ? "NULL" : std::string(name->BytesAt(r));
          out.push_back(fmt::format("{}|{}|{}", id->Value<int64_t>(r), n, score->Value<double>(r)));
        }
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  floe::testing::TempDir dir_;
  std::shared_ptr<io::CountingStore> counting_;
  std::shared_ptr<catalog::SqlCatalog> cat_;
  std::unique_ptr<FileIO> io_;
  catalog::TableIdentifier id_ = catalog::TableIdentifier::Parse("db.t").value();
};

TEST_F(AddFilesTest, FloeWrittenFileBecomesItsExactDataFileInOneCommit) {
  Table before = Create();
  Rows rows{{3, 1, 2, 7}, {"b", "a", std::nullopt, "c"}, {1.5, std::nan(""), -2.0, 0.25}};
  parquet::WrittenFile written = Put("in/a.parquet", rows, /*ids=*/true, {"id", "name", "score"},
                                     /*row_group_rows=*/2);
  ASSERT_EQ(written.split_offsets.size(), 2u);
  counting_->Reset();
  auto r = Add({"in/a.parquet"});
  ASSERT_TRUE(r.has_value()) << r.error().ToString();

  // The footer is one GET, its length from the LIST; no HEAD anywhere, the commit's included.
  const auto per_object = counting_->PerObject();
  ASSERT_TRUE(per_object.contains("in/a.parquet"));
  EXPECT_EQ(per_object.at("in/a.parquet").gets, 1u);
  EXPECT_EQ(per_object.at("in/a.parquet").heads, 0u);
  EXPECT_EQ(counting_->Snapshot().head, 0u);
  EXPECT_EQ(r->footer_requests, 1);

  ASSERT_EQ(r->files.size(), 1u);
  const DataFile& f = r->files[0];
  EXPECT_EQ(f.file_path, Loc("in/a.parquet"));
  EXPECT_EQ(f.record_count, 4);
  EXPECT_EQ(f.file_size_in_bytes, written.file_size);
  EXPECT_EQ(f.split_offsets, written.split_offsets);
  EXPECT_EQ(f.value_counts, (std::map<int32_t, int64_t>{{1, 4}, {2, 4}, {3, 4}}));
  EXPECT_EQ(f.null_value_counts, (std::map<int32_t, int64_t>{{1, 0}, {2, 1}, {3, 0}}));
  EXPECT_EQ(f.nan_value_counts, (std::map<int32_t, int64_t>{{3, 1}}));
  EXPECT_EQ(f.lower_bounds,
            (std::map<int32_t, std::string>{{1, LE8(1)}, {2, "a"}, {3, DoubleBytes(-2.0)}}));
  EXPECT_EQ(f.upper_bounds,
            (std::map<int32_t, std::string>{{1, LE8(7)}, {2, "c"}, {3, DoubleBytes(1.5)}}));
  std::map<int32_t, int64_t> sizes;
  for (const auto& col : written.columns) sizes[col.field_id] = col.compressed_size;
  EXPECT_EQ(f.column_sizes, sizes);
  // The same metrics a floe write of these rows records.
  DataFile oracle;
  ASSERT_TRUE(ApplyMetrics(before.metadata, TableSchema(), written, &oracle).has_value());
  EXPECT_EQ(f.column_sizes, oracle.column_sizes);
  EXPECT_EQ(f.value_counts, oracle.value_counts);
  EXPECT_EQ(f.null_value_counts, oracle.null_value_counts);
  EXPECT_EQ(f.nan_value_counts, oracle.nan_value_counts);
  EXPECT_EQ(f.lower_bounds, oracle.lower_bounds);
  EXPECT_EQ(f.upper_bounds, oracle.upper_bounds);

  Table after = Load();
  ASSERT_EQ(after.metadata.snapshots.size(), 1u);
  const Snapshot& snap = after.metadata.snapshots[0];
  EXPECT_EQ(snap.snapshot_id, r->snapshot_id.value());
  EXPECT_EQ(snap.summary.at("operation"), "append");
  EXPECT_EQ(snap.summary.at("added-data-files"), "1");
  EXPECT_EQ(snap.summary.at("added-records"), "4");
  EXPECT_EQ(snap.summary.at("added-files-size"), std::to_string(written.file_size));
  // The file carries ids: no name mapping.
  EXPECT_FALSE(after.metadata.properties.contains("schema.name-mapping.default"));
  EXPECT_FALSE(r->name_mapping_set);
  // The file stays where it was, and reads back.
  EXPECT_EQ(ReadBack(), (std::vector<std::string>{"1|a|nan", "2|NULL|-2", "3|b|1.5", "7|c|0.25"}));
}

TEST_F(AddFilesTest, FilesWithoutFieldIdsMatchByNameAndSetTheNameMapping) {
  Create();
  Rows a{{10, 11}, {"x", "y"}, {1.0, 2.0}};
  Rows b{{20}, {"z"}, {3.0}};
  Put("in/dir/a.parquet", a, /*ids=*/false, {"score", "name", "id"});
  Put("in/dir/sub/b.parquet", b, /*ids=*/false);
  Put("in/dir/_SUCCESS.parquet", b, /*ids=*/false);  // hidden: left out
  ASSERT_TRUE(counting_->Put("in/dir/notes.txt", AsBytes("not parquet")).has_value());
  counting_->Reset();
  auto r = Add({"in/dir"});
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(counting_->Snapshot().head, 0u);
  ASSERT_EQ(r->files.size(), 2u);
  EXPECT_EQ(r->files[0].file_path, Loc("in/dir/a.parquet"));
  EXPECT_EQ(r->files[1].file_path, Loc("in/dir/sub/b.parquet"));
  EXPECT_EQ(r->footer_requests, 2);
  EXPECT_EQ(r->rows, 3);
  EXPECT_EQ(r->files[0].lower_bounds.at(1), LE8(10));
  EXPECT_EQ(r->files[0].upper_bounds.at(2), "y");
  EXPECT_TRUE(r->name_mapping_set);
  EXPECT_EQ(Load().metadata.properties.at("schema.name-mapping.default"),
            R"([{"field-id":1,"names":["id"]},{"field-id":2,"names":["name"]},)"
            R"({"field-id":3,"names":["score"]}])");
  EXPECT_EQ(ReadBack(), (std::vector<std::string>{"10|x|1", "11|y|2", "20|z|3"}));
}

TEST_F(AddFilesTest, SchemaErrorsNameFileAndColumnAndChangeNothing) {
  Table before = Create();
  auto expect_error = [&](const std::string& key, const std::string& message) {
    auto r = Add({key});
    ASSERT_FALSE(r.has_value()) << key;
    EXPECT_EQ(r.error().kind, ErrorKind::kInvalidInput);
    EXPECT_EQ(r.error().message, message);
    Table now = Load();
    EXPECT_EQ(now.metadata_location, before.metadata_location);
    EXPECT_TRUE(now.metadata.snapshots.empty());
  };
  // A column the table lacks.
  {
    auto schema = std::make_shared<c::Schema>();
    schema->fields = {{"id", c::Int64(), false, -1}, {"extra", c::Int64(), true, -1}};
    c::RecordBatch b{schema, {}, 1};
    c::FixedWidthBuilder<int64_t> x(c::Int64()), y(c::Int64());
    x.Append(1);
    y.Append(2);
    b.columns = {x.Finish(), y.Finish()};
    parquet::MemorySink sink;
    auto w = parquet::ParquetWriter::Open(schema, &sink).value();
    ASSERT_TRUE(w->Write(b).has_value());
    ASSERT_TRUE(w->Close().has_value());
    ASSERT_TRUE(counting_->Put("in/extra.parquet", sink.ToBuffer().view()).has_value());
  }
  expect_error("in/extra.parquet", fmt::format("{}: column 'extra' is not in table db.t's schema",
                                               Loc("in/extra.parquet")));
  // A required table column the file lacks.
  Put("in/noid.parquet", Rows{{1}, {"a"}, {1.0}}, false, {"name", "score"});
  expect_error("in/noid.parquet",
               fmt::format("{}: required column 'id' of table db.t is not in the file",
                           Loc("in/noid.parquet")));
  // A type the table's is no promotion of: string into long.
  {
    auto schema = std::make_shared<c::Schema>();
    schema->fields = {{"id", c::String(), false, -1}};
    c::BinaryBuilder s(c::String());
    ASSERT_TRUE(s.Append("1").has_value());
    c::RecordBatch b{schema, {s.Finish()}, 1};
    parquet::MemorySink sink;
    auto w = parquet::ParquetWriter::Open(schema, &sink).value();
    ASSERT_TRUE(w->Write(b).has_value());
    ASSERT_TRUE(w->Close().has_value());
    ASSERT_TRUE(counting_->Put("in/str.parquet", sink.ToBuffer().view()).has_value());
  }
  expect_error("in/str.parquet",
               fmt::format("{}: column 'id' is string in the file but long in table db.t",
                           Loc("in/str.parquet")));
  // One bad file among good ones: nothing is added.
  Put("in/good.parquet", Rows{{1}, {"a"}, {1.0}}, true);
  auto r = AddFiles(*cat_, *io_, id_, {Loc("in/good.parquet"), Loc("in/str.parquet")});
  ASSERT_FALSE(r.has_value());
  EXPECT_TRUE(Load().metadata.snapshots.empty());
  // Missing inputs.
  auto missing = Add({"in/nothing-here"});
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().kind, ErrorKind::kNotFound);
  EXPECT_EQ(missing.error().message,
            fmt::format("'{}' names no file and no folder of files", Loc("in/nothing-here")));
}

TEST_F(AddFilesTest, DuplicatesAreRefusedUnlessAllowed) {
  Create();
  Put("in/a.parquet", Rows{{1, 2}, {"a", "b"}, {1.0, 2.0}}, true);
  ASSERT_TRUE(Add({"in/a.parquet"}).has_value());
  const std::string meta = Load().metadata_location;
  auto again = Add({"in/a.parquet"});
  ASSERT_FALSE(again.has_value());
  EXPECT_EQ(again.error().message,
            fmt::format("{} is already a data file of table db.t (--allow-duplicates, or "
                        "check_duplicate_files => false in CALL, adds it again)",
                        Loc("in/a.parquet")));
  auto twice = Add({"in/a.parquet", "in/a.parquet"});
  ASSERT_FALSE(twice.has_value());
  EXPECT_EQ(twice.error().message, fmt::format("{} is given twice", Loc("in/a.parquet")));
  EXPECT_EQ(Load().metadata_location, meta);
  AddFilesOptions allow;
  allow.check_duplicate_files = false;
  auto r = Add({"in/a.parquet"}, allow);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(Load().LiveEntries(*io_).value().size(), 2u);
  EXPECT_EQ(ReadBack().size(), 4u);
}

TEST_F(AddFilesTest, HivePartitionDirectoriesGiveIdentityValuesAndTheFilterKeepsOne) {
  Create("name");
  Put("in/name=a/f1.parquet", Rows{{1, 2}, {"a", "a"}, {1.0, 2.0}}, true);
  Put("in/name=b/f2.parquet", Rows{{3}, {"b"}, {3.0}}, true);
  AddFilesOptions only_b;
  only_b.partition_filter = {{"name", "b"}};
  auto r = Add({"in"}, only_b);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  ASSERT_EQ(r->files.size(), 1u);
  EXPECT_EQ(r->files[0].file_path, Loc("in/name=b/f2.parquet"));
  EXPECT_EQ(r->files[0].partition, (std::vector<Literal>{Literal::String("b")}));
  EXPECT_EQ(r->changed_partitions, 1);
  auto rest = Add({"in/name=a"});
  ASSERT_TRUE(rest.has_value()) << rest.error().ToString();
  EXPECT_EQ(rest->files[0].partition, (std::vector<Literal>{Literal::String("a")}));
  // The scan prunes by the partition.
  ExprPtr filter = Predicate(Op::kEq, "name", {Literal::String("b")});
  ScanOptions so;
  so.filter = filter;
  EXPECT_EQ(PlanFiles(Load(), *io_, so).value().tasks.size(), 1u);

  // A directory that contradicts the file's values is refused.
  Put("in2/name=c/f3.parquet", Rows{{4}, {"d"}, {4.0}}, true);
  auto bad = Add({"in2"});
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().message,
            fmt::format("{}: its directory says name=c but its name values are d",
                        Loc("in2/name=c/f3.parquet")));
  // A filter on what is no partition field.
  AddFilesOptions wrong;
  wrong.partition_filter = {{"score", "1"}};
  auto w = Add({"in"}, wrong);
  ASSERT_FALSE(w.has_value());
  EXPECT_EQ(w.error().message,
            "partition filter 'score': table db.t has no such partition field (name)");
}

TEST_F(AddFilesTest, AColumnOnlyInItsHiveDirectoryReadsAsItsPartitionValue) {
  // Hive layouts keep an identity partition column only in the directory names (Spark's
  // partitionBy writes no `name` into the files). By the spec's column projection the column reads
  // as the file's partition value, in every scan: a projection, a filter, a rewrite.
  Create("name");
  Put("hive/name=a/f1.parquet", Rows{{1, 2}, {}, {1.5, 2.5}}, false, {"id", "score"});
  Put("hive/name=b/f2.parquet", Rows{{3}, {}, {3.5}}, false, {"id", "score"});
  Put("hive/name=__HIVE_DEFAULT_PARTITION__/f3.parquet", Rows{{4}, {}, {4.5}}, false,
      {"id", "score"});
  auto r = Add({"hive"});
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  ASSERT_EQ(r->files.size(), 3u);
  EXPECT_EQ(ReadBack(), (std::vector<std::string>{"1|a|1.5", "2|a|2.5", "3|b|3.5", "4|NULL|4.5"}));
  ScanOptions so;
  so.filter = Predicate(Op::kEq, "name", {Literal::String("a")});
  ScanPlan plan = PlanFiles(Load(), *io_, so).value();
  ASSERT_EQ(plan.tasks.size(), 1u);
  EXPECT_EQ(plan.tasks[0].identity_values.at(2), Literal::String("a"));
  // A rewrite writes the value into the new file, so it no longer depends on the partition.
  RewriteOptions ro;
  ro.rewrite_all = true;
  ASSERT_TRUE(RewriteDataFiles(*cat_, *io_, id_, ro).has_value());
  EXPECT_EQ(ReadBack(), (std::vector<std::string>{"1|a|1.5", "2|a|2.5", "3|b|3.5", "4|NULL|4.5"}));
}

TEST_F(AddFilesTest, PartitionValuesFromBoundsAndAFileSpanningPartitionsRefused) {
  Create("truncate(10, id)");
  Put("in/a.parquet", Rows{{10, 19, 12}, {"a", "b", "c"}, {1, 2, 3}}, true);
  Put("in/b.parquet", Rows{{5, 14}, {"a", "b"}, {1, 2}}, true);
  auto ok = Add({"in/a.parquet"});
  ASSERT_TRUE(ok.has_value()) << ok.error().ToString();
  EXPECT_EQ(ok->files[0].partition, (std::vector<Literal>{Literal::Long(10)}));
  const std::string meta = Load().metadata_location;
  auto bad = Add({"in/b.parquet"});
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().message,
            fmt::format("{}: cannot tell its value of partition field 'id_trunc': no id=VALUE "
                        "directory in its path, and for column 'id' its values span 5 to 14",
                        Loc("in/b.parquet")));
  EXPECT_EQ(Load().metadata_location, meta);
}

// A footer written by hand: what each statistic may become.
TEST_F(AddFilesTest, HandBuiltFooterStatisticsAreTakenOnlyWhenTrustworthy) {
  Create();
  using namespace parquet;
  FileMetaData m;
  m.num_rows = 6;
  SchemaElement root;
  root.name = "schema";
  root.num_children = 3;
  SchemaElement id;  // INT32 into the table's long: a promotion
  id.name = "id";
  id.type = PhysicalType::kInt32;
  id.repetition_type = FieldRepetitionType::kRequired;
  SchemaElement name;  // only the deprecated min/max: signed byte order, not a bound
  name.name = "name";
  name.type = PhysicalType::kByteArray;
  name.repetition_type = FieldRepetitionType::kOptional;
  name.converted_type = ConvertedType::kUtf8;
  SchemaElement score;  // a truncated max is still an upper bound; a chunk without a null count
  score.name = "score";
  score.type = PhysicalType::kDouble;
  score.repetition_type = FieldRepetitionType::kOptional;
  m.schema = {root, id, name, score};
  m.column_orders = {ColumnOrder::kTypeDefinedOrder, ColumnOrder::kTypeDefinedOrder,
                     ColumnOrder::kTypeDefinedOrder};
  int64_t offset = 4;
  for (int g = 0; g < 2; ++g) {
    RowGroup rg;
    rg.num_rows = 3;
    for (int c = 0; c < 3; ++c) {
      ColumnChunk chunk;
      ColumnMetaData md;
      md.type = m.schema[c + 1].type.value();
      md.path_in_schema = {m.schema[c + 1].name};
      md.encodings = {Encoding::kPlain};
      md.num_values = 3;
      md.total_compressed_size = 10 + c;
      md.total_uncompressed_size = 10 + c;
      md.data_page_offset = offset;
      offset += md.total_compressed_size;
      Statistics s;
      if (c == 0) {
        s.min_value = LE4(g == 0 ? 5 : -3);
        s.max_value = LE4(g == 0 ? 9 : 4);
        s.null_count = 0;
      } else if (c == 1) {
        s.min = "a";
        s.max = "z";
        s.null_count = 1;
      } else {
        s.min_value = DoubleBytes(g == 0 ? 0.5 : -1.0);
        s.max_value = DoubleBytes(g == 0 ? 8.0 : 2.0);
        if (g == 0) s.null_count = 0;  // the second chunk does not say
      }
      md.statistics = s;
      chunk.meta_data = md;
      chunk.file_offset = md.data_page_offset;
      rg.columns.push_back(chunk);
    }
    m.row_groups.push_back(rg);
  }
  std::vector<uint8_t> footer = SerializeFileMetaData(m).value();
  std::string bytes = "PAR1" + std::string(static_cast<size_t>(offset - 4), 'x');
  bytes.append(reinterpret_cast<const char*>(footer.data()), footer.size());
  bytes += LE4(static_cast<int32_t>(footer.size()));
  bytes += "PAR1";
  ASSERT_TRUE(counting_->Put("in/hand.parquet", AsBytes(bytes)).has_value());
  counting_->Reset();
  auto r = Add({"in/hand.parquet"});
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(counting_->PerObject().at("in/hand.parquet").gets, 1u);
  const DataFile& f = r->files[0];
  EXPECT_EQ(f.record_count, 6);
  EXPECT_EQ(f.file_size_in_bytes, static_cast<int64_t>(bytes.size()));
  EXPECT_EQ(f.split_offsets, (std::vector<int64_t>{4, 4 + 33}));
  EXPECT_EQ(f.column_sizes, (std::map<int32_t, int64_t>{{1, 20}, {2, 22}, {3, 24}}));
  EXPECT_EQ(f.value_counts, (std::map<int32_t, int64_t>{{1, 6}, {2, 6}, {3, 6}}));
  EXPECT_EQ(f.null_value_counts, (std::map<int32_t, int64_t>{{1, 0}, {2, 2}}));
  EXPECT_TRUE(f.nan_value_counts.empty());  // no chunk counted its NaNs
  // id: an int file column of a long table column is recorded as a long bound.
  EXPECT_EQ(f.lower_bounds, (std::map<int32_t, std::string>{{1, LE8(-3)}, {3, DoubleBytes(-1.0)}}));
  EXPECT_EQ(f.upper_bounds, (std::map<int32_t, std::string>{{1, LE8(9)}, {3, DoubleBytes(8.0)}}));
  EXPECT_TRUE(r->name_mapping_set);
}

TEST(NameMappingJson, NestedFieldsAreMappedWithTheirIds) {
  Schema s(0, {{1, "a", true, Primitive(TypeId::kLong)},
               {2, "s", false, StructOf({{3, "x", false, Primitive(TypeId::kInt)}})},
               {4, "l", false, ListOf(5, Primitive(TypeId::kString), false)},
               {6, "m", false,
                MapOf(7, Primitive(TypeId::kString), 8, Primitive(TypeId::kLong), false)}});
  EXPECT_EQ(NameMappingJson(s),
            R"([{"field-id":1,"names":["a"]},)"
            R"({"field-id":2,"fields":[{"field-id":3,"names":["x"]}],"names":["s"]},)"
            R"({"field-id":4,"fields":[{"field-id":5,"names":["element"]}],"names":["l"]},)"
            R"({"field-id":6,"fields":[{"field-id":7,"names":["key"]},)"
            R"({"field-id":8,"names":["value"]}],"names":["m"]}])");
}

}  // namespace
}  // namespace floe::iceberg
