#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include <gtest/gtest.h>

#include "floe/avro/binary.h"
#include "floe/avro/container.h"
#include "floe/avro/schema.h"

namespace floe::avro {
namespace {

std::string Encode(int64_t v) {
  Encoder e;
  e.WriteLong(v);
  return e.bytes();
}

// The zig-zag examples of the Avro specification ("Binary Encoding", int and long).
TEST(AvroBinary, ZigZagVarintsMatchTheSpecification) {
  EXPECT_EQ(Encode(0), std::string("\x00", 1));
  EXPECT_EQ(Encode(-1), "\x01");
  EXPECT_EQ(Encode(1), "\x02");
  EXPECT_EQ(Encode(-2), "\x03");
  EXPECT_EQ(Encode(2), "\x04");
  EXPECT_EQ(Encode(-64), "\x7f");
  EXPECT_EQ(Encode(64), "\x80\x01");
  for (int64_t v : {INT64_MIN, INT64_MAX, int64_t{-1234567890123}, int64_t{300}}) {
    std::string b = Encode(v);
    Decoder d(AsBytes(b));
    EXPECT_EQ(d.ReadLong().value(), v);
    EXPECT_EQ(d.remaining(), 0u);
  }
}

TEST(AvroBinary, CorruptVarintsAndLengthsAreErrors) {
  std::string eleven(11, '\x80');
  Decoder d1(AsBytes(eleven));
  EXPECT_EQ(d1.ReadLong().error().kind, ErrorKind::kCorrupt);
  std::string truncated = "\x80";
  Decoder d2(AsBytes(truncated));
  EXPECT_EQ(d2.ReadLong().error().kind, ErrorKind::kCorrupt);
  std::string long_bytes = Encode(100) + "abc";
  Decoder d3(AsBytes(long_bytes));
  auto r = d3.ReadBytes();
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().ToString(), "corrupt: avro bytes length 100 exceeds the 3 bytes left");
}

// SkipValue ends where DecodeValue ends, and fails where it fails: on every prefix of values of
// a schema with every kind of type.
TEST(AvroBinary, SkipValueMovesPastWhatDecodeValueReads) {
  auto schema = ParseSchema(R"({"type": "record", "name": "r", "fields": [
    {"name": "b", "type": "boolean"}, {"name": "i", "type": "int"}, {"name": "f", "type": "float"},
    {"name": "d", "type": "double"}, {"name": "s", "type": ["null", "string"]},
    {"name": "x", "type": {"type": "fixed", "name": "x4", "size": 4}},
    {"name": "e", "type": {"type": "enum", "name": "e", "symbols": ["A", "B"]}},
    {"name": "a", "type": {"type": "array", "items": "long"}},
    {"name": "m", "type": {"type": "map", "values": "bytes"}}]})")
                    .value();
  std::string encoded;
  for (int n = 0; n < 3; ++n) {
    ArrayValue a;
    for (int i = 0; i < n; ++i) a.items.emplace_back(int64_t{i * 1000});
    MapValue m;
    for (int i = 0; i < n; ++i) m.entries.emplace_back(std::to_string(i), Value::Bytes("v"));
    Value v(RecordValue{{Value(n == 1), Value(int32_t{-n}), Value(1.5f), Value(2.5),
                         n == 0 ? Value::Null() : Value("str"), Value::Bytes("abcd"),
                         Value(EnumValue{n % 2}), Value(std::move(a)), Value(std::move(m))}});
    Encoder e;
    ASSERT_TRUE(EncodeValue(*schema, v, e).has_value());
    encoded += e.bytes();
  }
  for (size_t cut = 0; cut <= encoded.size(); ++cut) {
    const std::string prefix = encoded.substr(0, cut);
    Decoder decode(AsBytes(prefix)), skip(AsBytes(prefix));
    for (;;) {
      auto v = DecodeValue(*schema, decode);
      auto s = SkipValue(*schema, skip);
      ASSERT_EQ(v.has_value(), s.has_value()) << cut;
      if (!v) break;
      ASSERT_EQ(decode.position(), skip.position()) << cut;
      if (decode.remaining() == 0) break;
    }
  }
}

constexpr const char* kManifestLikeSchema = R"({
  "type": "record", "name": "manifest_entry", "fields": [
    {"name": "status", "type": "int", "field-id": 0},
    {"name": "snapshot_id", "type": ["null", "long"], "default": null, "field-id": 1},
    {"name": "data_file", "type": {"type": "record", "name": "r2", "fields": [
      {"name": "file_path", "type": "string", "doc": "Location URI with FS scheme", "field-id": 100},
      {"name": "column_sizes", "type": ["null", {"type": "array", "items": {
          "type": "record", "name": "k117_v118", "fields": [
            {"name": "key", "type": "int", "field-id": 117},
            {"name": "value", "type": "long", "field-id": 118}]},
        "logicalType": "map"}], "default": null, "field-id": 108},
      {"name": "lower_bounds", "type": ["null", {"type": "map", "values": "bytes", "key-id": 126,
          "value-id": 127}], "default": null, "field-id": 125},
      {"name": "uuid", "type": ["null", {"type": "fixed", "name": "uuid_fixed", "size": 16,
          "logicalType": "uuid"}], "default": null, "field-id": 150},
      {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-micros",
          "adjust-to-utc": true}, "field-id": 151},
      {"name": "content", "type": {"type": "enum", "name": "c", "symbols": ["DATA", "DELETES"]},
          "field-id": 152},
      {"name": "ratio", "type": ["null", "double"], "field-id": 153},
      {"name": "flag", "type": "boolean", "field-id": 154},
      {"name": "f", "type": "float", "field-id": 155}
    ]}, "field-id": 2}
  ]})";

TEST(AvroSchema, KeepsIcebergAttributes) {
  auto s = ParseSchema(kManifestLikeSchema);
  ASSERT_TRUE(s.has_value()) << s.error().ToString();
  const Schema& root = **s;
  ASSERT_EQ(root.type, Type::kRecord);
  EXPECT_EQ(root.fields[0].field_id, 0);
  EXPECT_EQ(root.FieldIndexById(2), 2u);
  const Schema& df = *root.fields[2].schema;
  EXPECT_EQ(df.name, "r2");
  const Schema& sizes = *df.fields[1].schema;
  ASSERT_EQ(sizes.NonNullBranch(), 1u);
  EXPECT_EQ(sizes.branches[1]->logical_type, "map");
  EXPECT_EQ(sizes.branches[1]->items->fields[0].field_id, 117);
  const Schema& bounds = *df.fields[2].schema->branches[1];
  EXPECT_EQ(bounds.extra["key-id"], 126);
  EXPECT_EQ(bounds.extra["value-id"], 127);
  EXPECT_EQ(df.fields[0].doc, "Location URI with FS scheme");

  // Written back, the schema parses to the same JSON and keeps every id.
  std::string again = root.ToJson().dump();
  auto s2 = ParseSchema(again);
  ASSERT_TRUE(s2.has_value());
  EXPECT_EQ((*s2)->ToJson().dump(), again);
  EXPECT_NE(again.find(R"("key-id":126)"), std::string::npos) << again;
  EXPECT_NE(again.find(R"("field-id":117)"), std::string::npos);
  EXPECT_NE(again.find(R"({"type":"long","logicalType":"timestamp-micros","adjust-to-utc":true})"),
            std::string::npos)
      << again;
  EXPECT_NE(again.find(R"("default":null,"field-id":1})"), std::string::npos) << again;
}

TEST(AvroSchema, BadSchemasAreCorruptErrors) {
  EXPECT_EQ(ParseSchema("{").error().ToString(), "corrupt: avro schema is not valid JSON");
  EXPECT_EQ(
      ParseSchema(R"({"type": "record", "name": "x", "fields": [{"name": "a", "type": "nope"}]})")
          .error()
          .ToString(),
      "corrupt: avro schema at $.a: unknown type name 'nope'");
}

// A manifest's schema header with any value of any field replaced by each JSON type: a schema or
// a corrupt error, never an exception (manifests come from other engines' writers too).
TEST(AvroSchema, SchemasOfAnyShapeGiveASchemaOrAnError) {
  using J = nlohmann::ordered_json;
  const J base = J::parse(kManifestLikeSchema);
  std::vector<J::json_pointer> pointers;
  auto walk = [&](auto&& self, const J& j, const J::json_pointer& p) -> void {
    if (!p.empty()) pointers.push_back(p);
    if (j.is_object()) {
      for (auto it = j.begin(); it != j.end(); ++it) self(self, it.value(), p / it.key());
    } else if (j.is_array()) {
      for (size_t i = 0; i < j.size(); ++i) self(self, j[i], p / i);
    }
  };
  walk(walk, base, J::json_pointer());
  const std::vector<J> values = {nullptr, true, -1, 1.5, "x", J::array(), J::object()};
  int errors = 0;
  for (const auto& p : pointers) {
    for (const auto& v : values) {
      J j = base;
      j[p] = v;
      Result<SchemaPtr> s = Result<SchemaPtr>(std::unexpected(Error{}));
      ASSERT_NO_THROW(s = ParseSchema(j.dump())) << p.to_string() << " = " << v.dump();
      if (!s) {
        ++errors;
        EXPECT_EQ(s.error().kind, ErrorKind::kCorrupt) << s.error().ToString();
      }
    }
  }
  EXPECT_GT(errors, 10);
}

Value SampleEntry(int i) {
  RecordValue sizes_kv{{Value(int32_t{1}), Value(int64_t{100 + i})}};
  ArrayValue sizes{{Value(sizes_kv)}};
  MapValue bounds{{{"1", Value::Bytes(std::string("\x01\x00\x00\x00", 4))}}};
  RecordValue df{{Value("s3://b/data/f" + std::to_string(i) + ".parquet"), Value(sizes),
                  Value(bounds), i % 2 ? Value::Bytes(std::string(16, 'u')) : Value::Null(),
                  Value(int64_t{1700000000000000 + i}), Value(EnumValue{i % 2}),
                  i % 3 ? Value(0.5 * i) : Value::Null(), Value(i % 2 == 0), Value(1.25f)}};
  return Value(RecordValue{{Value(int32_t{1}), Value(int64_t{42}), Value(df)}});
}

TEST(AvroContainer, RoundTripsWithHeaderKeysInOrder) {
  auto schema = ParseSchema(kManifestLikeSchema).value();
  for (Codec codec : {Codec::kNull, Codec::kDeflate}) {
    ContainerWriter w(schema, {{"schema-id", "0"}, {"format-version", "2"}, {"content", "data"}},
                      codec, /*block_bytes=*/200);
    for (int i = 0; i < 50; ++i) ASSERT_TRUE(w.Append(SampleEntry(i)).has_value());
    std::string file = w.Finish().value();
    auto r = ContainerReader::Open(Buffer::FromString(file), "m.avro");
    ASSERT_TRUE(r.has_value()) << r.error().ToString();
    EXPECT_EQ(r->codec(), codec);
    ASSERT_EQ(r->metadata().size(), 5u);
    EXPECT_EQ(r->metadata()[0].first, "avro.schema");
    EXPECT_EQ(r->metadata()[1].second, CodecName(codec));
    EXPECT_EQ(r->metadata()[2].first, "schema-id");
    EXPECT_EQ(r->Meta("content"), "data");
    auto values = r->ReadAll();
    ASSERT_TRUE(values.has_value()) << values.error().ToString();
    ASSERT_EQ(values->size(), 50u);
    for (int i = 0; i < 50; ++i) EXPECT_EQ((*values)[i], SampleEntry(i)) << i;
    // The same values block by block, still encoded.
    auto blocks = r->ReadBlocks();
    ASSERT_TRUE(blocks.has_value()) << blocks.error().ToString();
    EXPECT_GT(blocks->size(), 1u);
    int i = 0;
    for (const auto& b : *blocks) {
      Decoder d(AsBytes(b.data));
      for (int64_t j = 0; j < b.count; ++j, ++i) EXPECT_EQ(DecodeValue(*schema, d), SampleEntry(i));
      EXPECT_EQ(d.remaining(), 0u);
    }
    EXPECT_EQ(i, 50);
  }
}

// Builds a one-block container by hand with a compressed block, as another writer would.
std::string HandMadeFile(const std::string& codec, const std::string& block_payload,
                         int64_t count) {
  Encoder e;
  e.WriteFixed(std::string_view("Obj\x01", 4));
  e.WriteLong(2);
  e.WriteBytes("avro.schema");
  e.WriteBytes(R"("long")");
  e.WriteBytes("avro.codec");
  e.WriteBytes(codec);
  e.WriteLong(0);
  std::string sync(16, 'S');
  e.WriteFixed(sync);
  e.WriteLong(count);
  e.WriteLong(static_cast<int64_t>(block_payload.size()));
  e.WriteFixed(block_payload);
  e.WriteFixed(sync);
  return e.bytes();
}

std::string LongsPayload(int n) {
  Encoder e;
  for (int i = 0; i < n; ++i) e.WriteLong(i * 1000);
  return e.bytes();
}

TEST(AvroContainer, ReadsSnappyAndZstandardBlocks) {
  std::string raw = LongsPayload(100);
  // snappy: compressed bytes followed by the big-endian CRC-32 of the uncompressed block.
  size_t cap = snappy_max_compressed_length(raw.size());
  std::string snap(cap, '\0');
  ASSERT_EQ(snappy_compress(raw.data(), raw.size(), snap.data(), &cap), SNAPPY_OK);
  snap.resize(cap);
  uint32_t crc =
      static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(raw.data()), raw.size()));
  for (int s = 24; s >= 0; s -= 8) snap.push_back(static_cast<char>(crc >> s));
  std::string zst(ZSTD_compressBound(raw.size()), '\0');
  zst.resize(ZSTD_compress(zst.data(), zst.size(), raw.data(), raw.size(), 3));

  for (auto [codec, payload] :
       {std::pair{std::string("snappy"), snap}, std::pair{std::string("zstandard"), zst}}) {
    auto r = ContainerReader::Open(Buffer::FromString(HandMadeFile(codec, payload, 100)), "x.avro");
    ASSERT_TRUE(r.has_value()) << r.error().ToString();
    auto values = r->ReadAll();
    ASSERT_TRUE(values.has_value()) << codec << ": " << values.error().ToString();
    ASSERT_EQ(values->size(), 100u);
    EXPECT_EQ((*values)[99], Value(int64_t{99000}));
  }
  snap[snap.size() - 1] ^= 1;  // break the CRC
  auto r = ContainerReader::Open(Buffer::FromString(HandMadeFile("snappy", snap, 100)), "x.avro");
  EXPECT_EQ(r->ReadAll().error().ToString(),
            "corrupt: avro file 'x.avro': snappy block 0 fails its CRC");
}

TEST(AvroContainer, CorruptFilesNameTheFile) {
  EXPECT_EQ(ContainerReader::Open(Buffer::FromString("PAR1...."), "a.avro").error().ToString(),
            "corrupt: 'a.avro' is not an avro file (bad magic)");
  std::string good = HandMadeFile("null", LongsPayload(3), 3);
  // Every truncation fails cleanly, except the one right after the header: a valid empty file.
  size_t header_end = good.size() - (2 + LongsPayload(3).size() + 16);
  for (size_t n = 0; n < good.size(); ++n) {
    auto r = ContainerReader::Open(Buffer::FromString(good.substr(0, n)), "t.avro");
    if (n < header_end) {
      EXPECT_FALSE(r.has_value()) << "truncated at " << n;
    } else if (n == header_end) {
      EXPECT_EQ(r->ReadAll()->size(), 0u);
    } else {
      EXPECT_FALSE(r->ReadAll().has_value()) << "truncated at " << n;
    }
  }
  std::string bad_sync = good;
  bad_sync[bad_sync.size() - 1] ^= 1;
  EXPECT_EQ(
      ContainerReader::Open(Buffer::FromString(bad_sync), "s.avro")->ReadAll().error().ToString(),
      "corrupt: avro file 's.avro': block 0 is not followed by the sync marker");
  auto unknown = ContainerReader::Open(Buffer::FromString(HandMadeFile("bzip2", "", 0)), "b.avro");
  EXPECT_EQ(unknown.error().ToString(), "unsupported: avro file 'b.avro': codec 'bzip2'");
}

TEST(AvroBinary, EncodingChecksValuesAgainstTheSchema) {
  auto schema = ParseSchema(kManifestLikeSchema).value();
  Value v = SampleEntry(1);
  v.as<RecordValue>().fields[2].as<RecordValue>().fields[0] = Value(int64_t{5});  // file_path
  Encoder e;
  auto s = EncodeValue(*schema, v, e);
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().ToString(),
            "invalid input: value does not match avro type string (in field 'file_path') (in field "
            "'data_file')");
}

}  // namespace
}  // namespace floe::avro
