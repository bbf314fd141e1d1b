#include "floe/iceberg/manifest.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "floe/avro/container.h"

namespace floe::iceberg {
namespace {

Schema TestSchema() {
  return Schema(0, {NestedField{1, "id", true, Primitive(TypeId::kLong)},
                    NestedField{2, "ts", false, Primitive(TypeId::kTimestampTz)},
                    NestedField{3, "price", false, Decimal(9, 2)},
                    NestedField{4, "name", false, Primitive(TypeId::kString)}});
}

DataFile File(int i, const Schema& s) {
  DataFile f;
  f.file_path = "s3://b/t/data/f" + std::to_string(i) + ".parquet";
  f.partition = {
      Literal::Date(19000 + i), Literal::Int(i % 4), Literal::Decimal(i * 100 - 150, 2),
      i == 2 ? Literal::Null(TypeId::kString) : Literal::String("n" + std::to_string(i))};
  f.record_count = 1000 + i;
  f.file_size_in_bytes = 50000 + i;
  f.column_sizes = {{1, 8000}, {2, 8000}, {3, 4000}, {4, 3000 + i}};
  f.value_counts = {{1, 1000}, {2, 1000}, {3, 1000}, {4, 1000}};
  f.null_value_counts = {{1, 0}, {2, 3}, {3, 0}, {4, 10}};
  f.lower_bounds = {{1, SerializeBound(Literal::Long(i * 1000))}, {4, "a"}};
  f.upper_bounds = {{1, SerializeBound(Literal::Long(i * 1000 + 999))}, {4, "z"}};
  f.split_offsets = {4, 40000};
  f.sort_order_id = 0;
  return f;
}

TEST(Manifest, RoundTripsEveryFieldAndInheritsSequenceNumbers) {
  Schema s = TestSchema();
  PartitionSpec spec = PartitionSpec::Parse("day(ts), bucket(4, id), price, name", s, 3).value();
  std::vector<ManifestEntry> entries;
  for (int i = 0; i < 5; ++i) {
    ManifestEntry e;
    e.status = i == 4 ? EntryStatus::kExisting : EntryStatus::kAdded;
    if (i == 4) {
      e.snapshot_id = 7;
      e.sequence_number = 2;
      e.file_sequence_number = 2;
    }
    e.file = File(i, s);
    entries.push_back(e);
  }
  auto bytes = WriteManifest({&s, &spec, 2, ManifestContent::kData}, entries);
  ASSERT_TRUE(bytes.has_value()) << bytes.error().ToString();

  // The header carries what the spec requires.
  auto reader = avro::ContainerReader::Open(Buffer::FromString(*bytes), "m.avro").value();
  EXPECT_EQ(reader.Meta("format-version"), "2");
  EXPECT_EQ(reader.Meta("partition-spec-id"), "3");
  EXPECT_EQ(reader.Meta("content"), "data");
  EXPECT_EQ(nlohmann::json::parse(*reader.Meta("schema")), s.ToJson());
  EXPECT_EQ(nlohmann::json::parse(*reader.Meta("partition-spec")), spec.ToJson()["fields"]);
  std::string avro_schema = *reader.Meta("avro.schema");
  EXPECT_NE(avro_schema.find(R"("name":"k117_v118")"), std::string::npos);
  EXPECT_NE(avro_schema.find(R"("element-id":133)"), std::string::npos);
  EXPECT_NE(
      avro_schema.find(
          R"("name":"price","type":["null",{"type":"fixed","name":"decimal_1002","size":4,"logicalType":"decimal","precision":9,"scale":2}])"),
      std::string::npos)
      << avro_schema;

  ManifestFile listed;
  listed.added_snapshot_id = 99;
  listed.sequence_number = 5;
  listed.partition_spec_id = 3;
  auto ptype = spec.PartitionType(s).value();
  auto back = ReadManifest(Buffer::FromString(*bytes), "m.avro", listed, *ptype);
  ASSERT_TRUE(back.has_value()) << back.error().ToString();
  ASSERT_EQ(back->size(), 5u);
  for (int i = 0; i < 5; ++i) {
    const ManifestEntry& e = (*back)[i];
    const DataFile& f = e.file;
    DataFile want = File(i, s);
    EXPECT_EQ(f.file_path, want.file_path);
    EXPECT_EQ(f.partition, want.partition) << i;
    EXPECT_EQ(f.record_count, want.record_count);
    EXPECT_EQ(f.file_size_in_bytes, want.file_size_in_bytes);
    EXPECT_EQ(f.column_sizes, want.column_sizes);
    EXPECT_EQ(f.null_value_counts, want.null_value_counts);
    EXPECT_EQ(f.lower_bounds, want.lower_bounds);
    EXPECT_EQ(f.upper_bounds, want.upper_bounds);
    EXPECT_EQ(f.split_offsets, want.split_offsets);
    EXPECT_EQ(f.sort_order_id, 0);
    EXPECT_EQ(f.spec_id, 3);
    if (i < 4) {  // added: inherit from the list
      EXPECT_EQ(e.snapshot_id, 99);
      EXPECT_EQ(e.sequence_number, 5);
      EXPECT_EQ(e.file_sequence_number, 5);
    } else {  // existing: keep their own
      EXPECT_EQ(e.snapshot_id, 7);
      EXPECT_EQ(e.sequence_number, 2);
    }
  }

  auto summary = SummarizePartitions(*ptype, *back);
  ASSERT_EQ(summary.size(), 4u);
  EXPECT_FALSE(summary[0].contains_null);
  EXPECT_EQ(summary[0].lower_bound, SerializeBound(Literal::Date(19000)));
  EXPECT_EQ(summary[0].upper_bound, SerializeBound(Literal::Date(19004)));
  EXPECT_EQ(summary[2].lower_bound, SerializeBound(Literal::Decimal(-150, 2)));
  EXPECT_TRUE(summary[3].contains_null);
  EXPECT_EQ(summary[3].upper_bound, "n4");
}

TEST(ManifestList, RoundTrips) {
  std::vector<ManifestFile> ms(2);
  ms[0].manifest_path = "s3://b/t/metadata/a-m0.avro";
  ms[0].manifest_length = 4321;
  ms[0].partition_spec_id = 1;
  ms[0].sequence_number = 3;
  ms[0].min_sequence_number = 1;
  ms[0].added_snapshot_id = 77;
  ms[0].added_files_count = 2;
  ms[0].existing_files_count = 5;
  ms[0].added_rows_count = 200;
  ms[0].existing_rows_count = 500;
  ms[0].partitions = {FieldSummary{true, std::nullopt, std::string("\x01\x00\x00\x00", 4),
                                   std::string("\x09\x00\x00\x00", 4)}};
  ms[1].manifest_path = "s3://b/t/metadata/a-m1.avro";
  ms[1].content = ManifestContent::kDeletes;
  ms[1].deleted_files_count = 1;
  ms[1].deleted_rows_count = 10;
  auto bytes = WriteManifestList({77, 76, 3}, ms);
  ASSERT_TRUE(bytes.has_value());
  auto reader = avro::ContainerReader::Open(Buffer::FromString(*bytes), "l.avro").value();
  EXPECT_EQ(reader.Meta("snapshot-id"), "77");
  EXPECT_EQ(reader.Meta("parent-snapshot-id"), "76");
  EXPECT_EQ(reader.Meta("sequence-number"), "3");
  auto back = ReadManifestList(Buffer::FromString(*bytes), "l.avro");
  ASSERT_TRUE(back.has_value()) << back.error().ToString();
  ASSERT_EQ(back->size(), 2u);
  const ManifestFile& m = (*back)[0];
  EXPECT_EQ(m.manifest_path, ms[0].manifest_path);
  EXPECT_EQ(m.manifest_length, 4321);
  EXPECT_EQ(m.partition_spec_id, 1);
  EXPECT_EQ(m.sequence_number, 3);
  EXPECT_EQ(m.min_sequence_number, 1);
  EXPECT_EQ(m.existing_files_count, 5);
  EXPECT_EQ(m.existing_rows_count, 500);
  ASSERT_EQ(m.partitions.size(), 1u);
  EXPECT_TRUE(m.partitions[0].contains_null);
  EXPECT_EQ(m.partitions[0].upper_bound, ms[0].partitions[0].upper_bound);
  EXPECT_EQ((*back)[1].content, ManifestContent::kDeletes);
  EXPECT_EQ((*back)[1].deleted_rows_count, 10);
}

// Everything ReadManifest reads of an entry, for comparing two readers.
std::string Describe(const ManifestEntry& e) {
  const DataFile& f = e.file;
  std::string out =
      fmt::format("{} {} {} {} | {} {} {} {} {} {} |", static_cast<int>(e.status),
                  e.snapshot_id.value_or(-1), e.sequence_number.value_or(-1),
                  e.file_sequence_number.value_or(-1), static_cast<int>(f.content), f.file_path,
                  f.file_format, f.spec_id, f.record_count, f.file_size_in_bytes);
  for (const Literal& l : f.partition) out += " " + l.ToString();
  for (const auto* m :
       {&f.column_sizes, &f.value_counts, &f.null_value_counts, &f.nan_value_counts}) {
    out += " |";
    for (const auto& [k, v] : *m) out += fmt::format(" {}:{}", k, v);
  }
  for (const auto* m : {&f.lower_bounds, &f.upper_bounds}) {
    out += " |";
    for (const auto& [k, v] : *m) out += fmt::format(" {}:{}", k, v);
  }
  out += fmt::format(" | {} | {} | {} | {} | {}", f.key_metadata.value_or("-"),
                     fmt::join(f.split_offsets, ","), fmt::join(f.equality_ids, ","),
                     f.sort_order_id.value_or(-1), f.referenced_data_file.value_or("-"));
  return out;
}

// The index's view of entry i, in Describe's terms for the parts a head has.
std::string DescribeHead(const ManifestIndex& index, size_t i) {
  std::string out =
      fmt::format("{} {} |", static_cast<int>(index.status(i)), static_cast<int>(index.content(i)));
  for (const Literal& l : index.partition(i)) out += " " + l.ToString();
  // In file order with any repeated id: as a map, the later pair of an id wins.
  auto as_map = [](const auto& pairs) {
    std::map<int32_t, std::string> m;
    for (const auto& [k, v] : pairs) m[k] = fmt::format("{}", v);
    return m;
  };
  const MetricsView m = index.metrics(i);
  for (const auto& map :
       {as_map(m.value_counts), as_map(m.null_value_counts), as_map(m.nan_value_counts),
        as_map(m.lower_bounds), as_map(m.upper_bounds)}) {
    out += " |";
    for (const auto& [k, v] : map) out += fmt::format(" {}:{}", k, v);
  }
  return out;
}

std::string DescribeHead(const ManifestEntry& e) {
  const DataFile& f = e.file;
  std::string out = fmt::format("{} {} |", static_cast<int>(e.status), static_cast<int>(f.content));
  for (const Literal& l : f.partition) out += " " + l.ToString();
  for (const auto* m : {&f.value_counts, &f.null_value_counts, &f.nan_value_counts}) {
    out += " |";
    for (const auto& [k, v] : *m) out += fmt::format(" {}:{}", k, v);
  }
  for (const auto* m : {&f.lower_bounds, &f.upper_bounds}) {
    out += " |";
    for (const auto& [k, v] : *m) out += fmt::format(" {}:{}", k, v);
  }
  return out;
}

// What IndexManifest reads of `bytes`, entry by entry, or its error; likewise ReadManifest.
std::string ReadByIndex(const Buffer& bytes, const ManifestFile& listed, const Type& ptype) {
  auto index = IndexManifest(bytes, "m.avro", listed, ptype);
  if (!index) return index.error().ToString();
  std::string out;
  for (size_t i = 0; i < index->size(); ++i) {
    auto e = index->Entry(i);
    if (!e) return "entry: " + e.error().ToString();
    EXPECT_EQ(DescribeHead(*index, i), DescribeHead(*e)) << i;
    out += Describe(*e) + "\n";
  }
  return out;
}

std::string ReadGenerally(const Buffer& bytes, const ManifestFile& listed, const Type& ptype) {
  auto entries = ReadManifest(bytes, "m.avro", listed, ptype);
  if (!entries) return entries.error().ToString();
  std::string out;
  for (const auto& e : *entries) out += Describe(e) + "\n";
  return out;
}

// A manifest of five entries of every kind of field, rewritten with the null codec so that its
// bytes can be damaged one at a time.
struct PlainManifest {
  Schema schema = TestSchema();
  PartitionSpec spec;
  TypePtr ptype;
  ManifestFile listed;
  std::string bytes;

  PlainManifest() {
    spec = PartitionSpec::Parse("day(ts), bucket(4, id), price, name", schema, 3).value();
    ptype = spec.PartitionType(schema).value();
    listed.added_snapshot_id = 99;
    listed.sequence_number = 5;
    listed.partition_spec_id = 3;
    std::vector<ManifestEntry> entries;
    for (int i = 0; i < 5; ++i) {
      ManifestEntry e;
      e.status = static_cast<EntryStatus>(i % 3);
      e.file = File(i, schema);
      if (i == 3) {
        e.file.content = FileContent::kEqualityDeletes;
        e.file.equality_ids = {1, 4};
        e.file.key_metadata = "key";
        e.snapshot_id = 7;
        e.sequence_number = 2;
      }
      e.file.nan_value_counts = {{2, i}};
      entries.push_back(e);
    }
    auto deflated = WriteManifest({&schema, &spec, 2, ManifestContent::kData}, entries).value();
    auto reader = avro::ContainerReader::Open(Buffer::FromString(deflated), "m.avro").value();
    std::vector<std::pair<std::string, std::string>> meta;
    for (const auto& [k, v] : reader.metadata()) {
      if (!k.starts_with("avro.")) meta.emplace_back(k, v);
    }
    avro::ContainerWriter w(reader.schema(), meta, avro::Codec::kNull, 400);
    const std::vector<avro::Value> values = reader.ReadAll().value();
    for (const auto& v : values) {
      auto st = w.Append(v);
      EXPECT_TRUE(st.has_value()) << st.error().ToString();
    }
    bytes = w.Finish().value();
  }
};

// Planning reads manifests in place; what it reads -- entries, heads, errors -- is what
// ReadManifest reads, for a sound manifest and for every single damaged byte of one.
TEST(Manifest, IndexReadsWhatReadManifestReads) {
  PlainManifest m;
  const std::string want = ReadGenerally(Buffer::FromString(m.bytes), m.listed, *m.ptype);
  ASSERT_EQ(std::count(want.begin(), want.end(), '\n'), 5) << want;
  EXPECT_EQ(ReadByIndex(Buffer::FromString(m.bytes), m.listed, *m.ptype), want);
  int errors = 0;
  for (size_t at = 0; at < m.bytes.size(); ++at) {
    for (uint8_t flip : {0x01, 0x80, 0xff}) {
      std::string damaged = m.bytes;
      damaged[at] = static_cast<char>(damaged[at] ^ flip);
      const Buffer b = Buffer::FromString(damaged);
      const std::string general = ReadGenerally(b, m.listed, *m.ptype);
      if (general.starts_with("corrupt")) ++errors;
      ASSERT_EQ(ReadByIndex(b, m.listed, *m.ptype), general) << "byte " << at << " ^ " << +flip;
    }
  }
  EXPECT_GT(errors, 100);
}

// Shapes the in-place reader leaves to the general one (metrics in Avro's string-keyed map) read
// the same through the index.
TEST(Manifest, IndexReadsStringKeyedMetricsMaps) {
  auto long_map = avro::MapOf(avro::Primitive(avro::Type::kLong));
  auto bytes_map = avro::MapOf(avro::Primitive(avro::Type::kBytes));
  auto field = [](std::string name, avro::SchemaPtr s, int32_t id) {
    avro::FieldSchema f;
    f.name = std::move(name);
    f.schema = std::move(s);
    f.field_id = id;
    return f;
  };
  auto df = avro::Record(
      "r2", {field("file_path", avro::Primitive(avro::Type::kString), 100),
             field("partition", avro::Record("r102", {}), 102),
             field("record_count", avro::Primitive(avro::Type::kLong), 103),
             field("file_size_in_bytes", avro::Primitive(avro::Type::kLong), 104),
             field("value_counts", long_map, 109), field("lower_bounds", bytes_map, 125)});
  auto schema = avro::Record(
      "manifest_entry",
      {field("status", avro::Primitive(avro::Type::kInt), 0), field("data_file", df, 2)});
  avro::ContainerWriter w(schema, {}, avro::Codec::kNull);
  using avro::Value;
  for (int i = 0; i < 3; ++i) {
    avro::MapValue counts, lower;
    counts.entries.emplace_back("1", Value(int64_t{10 + i}));
    lower.entries.emplace_back("1", Value::Bytes(SerializeBound(Literal::Long(i))));
    ASSERT_TRUE(
        w
            .Append(Value(avro::RecordValue{
                {Value(int32_t{1}),
                 Value(avro::RecordValue{
                     {Value("f" + std::to_string(i)), Value(avro::RecordValue{}), Value(int64_t{5}),
                      Value(int64_t{6}), Value(std::move(counts)), Value(std::move(lower))}})}}))
            .has_value());
  }
  const Buffer bytes = Buffer::FromString(w.Finish().value());
  auto ptype = PartitionSpec().PartitionType(TestSchema()).value();
  const std::string want = ReadGenerally(bytes, ManifestFile{}, *ptype);
  EXPECT_NE(want.find("| 1:11 |"), std::string::npos) << want;
  EXPECT_EQ(ReadByIndex(bytes, ManifestFile{}, *ptype), want);
}

// Avro's nesting limit counts from the entry in both readers: a field nested at the limit reads,
// one level deeper is the same error.
TEST(Manifest, IndexCountsNestingFromTheEntry) {
  auto field = [](std::string name, avro::SchemaPtr s, int32_t id) {
    avro::FieldSchema f;
    f.name = std::move(name);
    f.schema = std::move(s);
    f.field_id = id;
    return f;
  };
  for (int levels : {60, 61, 62, 63, 64}) {
    avro::SchemaPtr deep = avro::Primitive(avro::Type::kInt);
    avro::Value deep_value(int32_t{7});
    for (int i = 0; i < levels; ++i) {
      deep = avro::Record("n" + std::to_string(i), {field("x", deep, 1000 + i)});
      deep_value = avro::Value(avro::RecordValue{{std::move(deep_value)}});
    }
    auto df =
        avro::Record("r2", {field("file_path", avro::Primitive(avro::Type::kString), 100),
                            field("partition", avro::Record("r102", {}), 102),
                            field("record_count", avro::Primitive(avro::Type::kLong), 103),
                            field("file_size_in_bytes", avro::Primitive(avro::Type::kLong), 104),
                            field("deep", deep, 900)});
    auto schema = avro::Record(
        "manifest_entry",
        {field("status", avro::Primitive(avro::Type::kInt), 0), field("data_file", df, 2)});
    avro::ContainerWriter w(schema, {}, avro::Codec::kNull);
    ASSERT_TRUE(
        w.Append(avro::Value(avro::RecordValue{
                     {avro::Value(int32_t{1}),
                      avro::Value(avro::RecordValue{
                          {avro::Value("f"), avro::Value(avro::RecordValue{}),
                           avro::Value(int64_t{5}), avro::Value(int64_t{6}), deep_value}})}}))
            .has_value());
    const Buffer bytes = Buffer::FromString(w.Finish().value());
    auto ptype = PartitionSpec().PartitionType(TestSchema()).value();
    const std::string want = ReadGenerally(bytes, ManifestFile{}, *ptype);
    EXPECT_EQ(want.starts_with("corrupt"), levels >= 63) << levels << ": " << want;
    EXPECT_EQ(ReadByIndex(bytes, ManifestFile{}, *ptype), want) << levels;
  }
}

TEST(Manifest, CorruptManifestsNameTheFile) {
  Schema s = TestSchema();
  PartitionSpec spec;
  auto ptype = spec.PartitionType(s).value();
  auto r = ReadManifest(Buffer::FromString("garbage"), "s3://b/m.avro", ManifestFile{}, *ptype);
  EXPECT_EQ(r.error().ToString(), "corrupt: 's3://b/m.avro' is not an avro file (bad magic)");
  auto l = ReadManifestList(Buffer::FromString(""), "snap-1.avro");
  EXPECT_EQ(l.error().ToString(), "corrupt: 'snap-1.avro' is not an avro file (bad magic)");
}

}  // namespace
}  // namespace floe::iceberg
