// Test helper for tests/parquet/writer_interop.py: writes Parquet fixtures with floe's writer from
// formulas (and a seeded generator) that the Python side mirrors, so pyarrow and DuckDB can be
// checked against values computed independently; also probes Bloom filters of any file.
//
//   floe_parquet_write_fixture write <dir> [--seeds N]   fixtures + roundtrip_<seed>.parquet,
//                                                          each with <name>.metrics.json
//   floe_parquet_write_fixture probe-bloom <file> <column> <rg> <type> <value>...
//                                                          prints one 0/1 per value
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "floe/columnar/column_builder.h"
#include "floe/parquet/bloom_filter.h"
#include "floe/parquet/footer.h"
#include "floe/parquet/writer.h"

namespace {

using namespace floe;
using namespace floe::columnar;
using floe::parquet::CompressionCodec;
using floe::parquet::WriterOptions;

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "floe_parquet_write_fixture: %s\n", what.c_str());
  std::exit(1);
}

template <typename T>
T Check(Result<T> r, const std::string& what) {
  if (!r) Die(what + ": " + r.error().ToString());
  return std::move(*r);
}
void Check(Status s, const std::string& what) {
  if (!s) Die(what + ": " + s.error().ToString());
}

// ---- column construction --------------------------------------------------------------------

// A column of n rows whose row i is null when null(i), else make(i).
template <typename T>
ColumnPtr Fixed(DataType type, int64_t n, auto null, auto make) {
  FixedWidthBuilder<T> b(type);
  for (int64_t i = 0; i < n; ++i) {
    if (null(i)) {
      b.AppendNull();
    } else {
      b.Append(static_cast<T>(make(i)));
    }
  }
  return b.Finish();
}

ColumnPtr Bools(int64_t n, auto null, auto make) {
  BoolBuilder b;
  for (int64_t i = 0; i < n; ++i) {
    if (null(i)) {
      b.AppendNull();
    } else {
      b.Append(make(i));
    }
  }
  return b.Finish();
}

ColumnPtr Bytes(DataType type, int64_t n, auto null, auto make) {
  BinaryBuilder b(type);
  for (int64_t i = 0; i < n; ++i) {
    if (null(i)) {
      b.AppendNull();
    } else {
      Check(b.Append(make(i)), "append");
    }
  }
  return b.Finish();
}

// decimal128 from a signed 128-bit unscaled value.
ColumnPtr Decimals(DataType type, int64_t n, auto null, auto make) {
  BinaryBuilder b(FixedSizeBinary(16));
  for (int64_t i = 0; i < n; ++i) {
    if (null(i)) {
      b.AppendNull();
    } else {
      __int128 v = make(i);
      char bytes[16];
      std::memcpy(bytes, &v, 16);
      Check(b.Append(std::string_view(bytes, 16)), "append");
    }
  }
  ColumnPtr c = b.Finish();
  auto out = std::make_shared<Column>(*c);
  out->type = type;
  return out;
}

std::string U8(const char* s) { return s; }

std::string Repeat(const std::string& s, int64_t k) {
  std::string out;
  for (int64_t i = 0; i < k; ++i) out += s;
  return out;
}

std::shared_ptr<Schema> MakeSchema(std::vector<Field> fields) {
  auto s = std::make_shared<Schema>();
  s->fields = std::move(fields);
  return s;
}

RecordBatch Slice(const std::vector<ColumnPtr>& cols, SchemaPtr schema, int64_t n) {
  RecordBatch b;
  b.schema = std::move(schema);
  b.columns = cols;
  b.num_rows = n;
  return b;
}

// ---- writing --------------------------------------------------------------------------------

nlohmann::json MetricsJson(const parquet::WrittenFile& f) {
  auto hex = [](const std::optional<std::string>& s) -> nlohmann::json {
    if (!s) return nullptr;
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (unsigned char c : *s) {
      out += digits[c >> 4];
      out += digits[c & 15];
    }
    return out;
  };
  nlohmann::json j;
  j["file_size"] = f.file_size;
  j["num_rows"] = f.num_rows;
  j["split_offsets"] = f.split_offsets;
  j["row_group_rows"] = f.row_group_rows;
  j["columns"] = nlohmann::json::array();
  for (const auto& c : f.columns) {
    nlohmann::json k;
    k["path"] = c.path;
    k["field_id"] = c.field_id;
    k["compressed_size"] = c.compressed_size;
    k["num_values"] = c.num_values;
    k["null_count"] = c.null_count;
    k["nan_count"] = c.nan_count ? nlohmann::json(*c.nan_count) : nlohmann::json(nullptr);
    k["min"] = hex(c.min);
    k["max"] = hex(c.max);
    k["min_truncated"] = hex(c.min_truncated);
    k["max_truncated"] = hex(c.max_truncated);
    j["columns"].push_back(k);
  }
  return j;
}

// Writes `batches` (the columns of each) as <dir>/<name>.parquet plus its metrics.
void WriteFile(const std::filesystem::path& dir, const std::string& name, SchemaPtr schema,
               const std::vector<std::vector<ColumnPtr>>& batches, WriterOptions options) {
  parquet::MemorySink sink;
  auto writer = Check(parquet::ParquetWriter::Open(schema, &sink, std::move(options)), name);
  for (const auto& cols : batches) {
    const int64_t n = cols.empty() ? 0 : cols[0]->length;
    Check(writer->Write(Slice(cols, schema, n)), name + ": write");
  }
  parquet::WrittenFile written = Check(writer->Close(), name + ": close");
  const auto& bytes = sink.bytes();
  std::ofstream(dir / (name + ".parquet"), std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  std::ofstream(dir / (name + ".metrics.json")) << MetricsJson(written).dump(1);
}

// Splits n rows into batches of the given sizes (the last takes the rest).
std::vector<std::vector<ColumnPtr>> Batches(int64_t n, std::vector<int64_t> sizes, auto build) {
  std::vector<std::vector<ColumnPtr>> out;
  int64_t start = 0;
  for (size_t k = 0; start < n || (n == 0 && out.empty()); ++k) {
    int64_t len = k < sizes.size() ? std::min(sizes[k], n - start) : n - start;
    out.push_back(build(start, len));
    start += len;
    if (n == 0) break;
  }
  return out;
}

// ---- fixtures (writer_interop.py holds the same formulas) -----------------------------------

constexpr int32_t kUuidFieldId = 23;

std::vector<Field> AllTypesFields() {
  int32_t id = 1;
  auto f = [&](std::string name, DataType t, bool nullable = true) {
    return Field{std::move(name), std::move(t), nullable, id++};
  };
  return {f("b", Bool()),
          f("i8", Int8()),
          f("i16", Int16()),
          f("i32", Int32()),
          f("i64", Int64()),
          f("u8", UInt8()),
          f("u16", UInt16()),
          f("u32", UInt32()),
          f("u64", UInt64()),
          f("f32", Float32()),
          f("f64", Float64()),
          f("dec9", Decimal128(9, 2)),
          f("dec18", Decimal128(18, 4)),
          f("dec38", Decimal128(38, 10)),
          f("date", Date32()),
          f("time_us", Time64(TimeUnit::kMicro)),
          f("time_ns", Time64(TimeUnit::kNano)),
          f("ts_us", Timestamp(TimeUnit::kMicro)),
          f("ts_us_utc", Timestamp(TimeUnit::kMicro, "UTC")),
          f("ts_ns", Timestamp(TimeUnit::kNano)),
          f("ts_ms_utc", Timestamp(TimeUnit::kMilli, "UTC")),
          f("str", String()),
          f("uuid", FixedSizeBinary(16)),  // id 23 = kUuidFieldId
          f("bin", Binary()),
          f("fixed", FixedSizeBinary(5)),
          f("req_i64", Int64(), false),
          f("req_str", String(), false)};
}

// Row i of column c (by index) is null when (i + c) % 7 == 3 (nullable columns only).
std::vector<ColumnPtr> AllTypesColumns(int64_t start, int64_t n) {
  std::vector<ColumnPtr> cols;
  int c = 0;
  auto null_of = [&](int col) {
    return [col, start](int64_t i) { return (start + i + col) % 7 == 3; };
  };
  auto never = [](int64_t) { return false; };
  auto at = [start](auto fn) { return [fn, start](int64_t i) { return fn(start + i); }; };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  cols.push_back(Bools(n, null_of(c++), at([](int64_t i) { return i % 3 == 0; })));
  cols.push_back(
      Fixed<int8_t>(Int8(), n, null_of(c++), at([](int64_t i) { return i % 256 - 128; })));
  cols.push_back(Fixed<int16_t>(Int16(), n, null_of(c++),
                                at([](int64_t i) { return (i * 7) % 65536 - 32768; })));
  cols.push_back(Fixed<int32_t>(
      Int32(), n, null_of(c++), at([](int64_t i) {
        return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(i) * 2654435761u));
      })));
  cols.push_back(Fixed<int64_t>(Int64(), n, null_of(c++),
                                at([](int64_t i) { return i * 1000000007 - 2500000000000; })));
  cols.push_back(Fixed<uint8_t>(UInt8(), n, null_of(c++), at([](int64_t i) { return i % 256; })));
  cols.push_back(
      Fixed<uint16_t>(UInt16(), n, null_of(c++), at([](int64_t i) { return (i * 31) % 65536; })));
  cols.push_back(Fixed<uint32_t>(
      UInt32(), n, null_of(c++),
      at([](int64_t i) { return static_cast<uint32_t>(static_cast<uint64_t>(i) * 2654435761u); })));
  cols.push_back(Fixed<uint64_t>(UInt64(), n, null_of(c++), at([](int64_t i) {
                                   return static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ull;
                                 })));
  cols.push_back(Fixed<float>(Float32(), n, null_of(c++), at([nan](int64_t i) {
                                return i % 50 == 7 ? static_cast<float>(nan)
                                                   : static_cast<float>(i % 100) * 0.25f - 10.0f;
                              })));
  cols.push_back(Fixed<double>(Float64(), n, null_of(c++), at([nan](int64_t i) {
                                 if (i == 10) return -0.0;
                                 if (i == 11) return 0.0;
                                 if (i % 97 == 5) return nan;
                                 return static_cast<double>(i) * 1.5 - 1000.0;
                               })));
  cols.push_back(Decimals(Decimal128(9, 2), n, null_of(c++), at([](int64_t i) -> __int128 {
                            return (i * 12345) % 1000000000 - 500000000;
                          })));
  cols.push_back(Decimals(Decimal128(18, 4), n, null_of(c++), at([](int64_t i) -> __int128 {
                            return static_cast<__int128>(i) * 123456789012 - 100000000000000000;
                          })));
  cols.push_back(Decimals(Decimal128(38, 10), n, null_of(c++), at([](int64_t i) -> __int128 {
                            __int128 p = 1;
                            for (int k = 0; k < 25; ++k) p *= 10;
                            __int128 v = static_cast<__int128>(i) * p + 12345;
                            return i % 2 == 1 ? -v : v;
                          })));
  cols.push_back(Fixed<int32_t>(Date32(), n, null_of(c++), at([](int64_t i) { return i - 2500; })));
  cols.push_back(Fixed<int64_t>(Time64(TimeUnit::kMicro), n, null_of(c++),
                                at([](int64_t i) { return (i * 1000003) % 86400000000; })));
  cols.push_back(Fixed<int64_t>(Time64(TimeUnit::kNano), n, null_of(c++),
                                at([](int64_t i) { return (i * 1000000007) % 86400000000000; })));
  cols.push_back(Fixed<int64_t>(Timestamp(TimeUnit::kMicro), n, null_of(c++),
                                at([](int64_t i) { return 1600000000000000 + i * 1000003; })));
  cols.push_back(Fixed<int64_t>(Timestamp(TimeUnit::kMicro, "UTC"), n, null_of(c++),
                                at([](int64_t i) { return 1600000000000000 + i * 1000003 + 7; })));
  cols.push_back(Fixed<int64_t>(Timestamp(TimeUnit::kNano), n, null_of(c++),
                                at([](int64_t i) { return 1600000000000000000 + i * 999999937; })));
  cols.push_back(Fixed<int64_t>(Timestamp(TimeUnit::kMilli, "UTC"), n, null_of(c++),
                                at([](int64_t i) { return 1600000000000 + i * 1000; })));
  cols.push_back(Bytes(String(), n, null_of(c++), at([](int64_t i) {
                         return "s" + std::to_string(i % 97) + "-" +
                                (i % 5 == 0 ? U8("\xc3\xa9") : "");
                       })));
  cols.push_back(Bytes(FixedSizeBinary(16), n, null_of(c++), at([](int64_t i) {
                         std::string s(16, '\0');
                         for (int k = 0; k < 16; ++k)
                           s[k] = static_cast<char>((i * 31 + k * 17) % 256);
                         return s;
                       })));
  cols.push_back(Bytes(Binary(), n, null_of(c++), at([](int64_t i) {
                         std::string s(static_cast<size_t>(i % 9), '\0');
                         for (size_t k = 0; k < s.size(); ++k) {
                           s[k] = static_cast<char>((i * static_cast<int64_t>(k)) % 256);
                         }
                         return s;
                       })));
  cols.push_back(Bytes(FixedSizeBinary(5), n, null_of(c++), at([](int64_t i) {
                         std::string s(5, '\0');
                         for (int k = 0; k < 5; ++k) s[k] = static_cast<char>((i + k) % 256);
                         return s;
                       })));
  cols.push_back(Fixed<int64_t>(Int64(), n, never, at([](int64_t i) { return i; })));
  cols.push_back(
      Bytes(String(), n, never, at([](int64_t i) { return "r" + std::to_string(i % 13); })));
  return cols;
}

WriterOptions Options(CompressionCodec codec = CompressionCodec::kZstd) {
  WriterOptions o;
  o.codec = codec;
  return o;
}

void WriteAllTypes(const std::filesystem::path& dir) {
  auto schema = MakeSchema(AllTypesFields());
  const int64_t n = 5000;
  auto batches = Batches(n, {1000, 2500}, AllTypesColumns);
  WriterOptions o = Options();
  o.page_row_limit = 700;
  o.uuid_field_ids = {kUuidFieldId};
  o.key_value_metadata = {{"floe.test", "all_types"}, {"floe.empty", std::nullopt}};
  WriteFile(dir, "all_types", schema, batches, o);

  o.data_page_version = parquet::DataPageVersion::kV2;
  o.codec = CompressionCodec::kSnappy;
  WriteFile(dir, "all_types_v2", schema, batches, o);

  o.data_page_version = parquet::DataPageVersion::kV1;
  o.codec = CompressionCodec::kUncompressed;
  o.enable_dictionary = false;
  o.write_page_checksums = true;
  o.write_page_header_statistics = true;
  WriteFile(dir, "all_types_plain", schema, batches, o);

  o = Options(CompressionCodec::kGzip);
  o.row_group_row_limit = 1200;
  o.page_row_limit = 100;
  o.uuid_field_ids = {kUuidFieldId};
  o.key_value_metadata = {{"floe.test", "all_types"}};
  WriteFile(dir, "all_types_small_groups", schema, batches, o);
}

void WriteCodecs(const std::filesystem::path& dir) {
  auto schema =
      MakeSchema({{"id", Int64(), false, 1}, {"s", String(), true, 2}, {"d", Float64(), true, 3}});
  const int64_t n = 20000;
  auto build = [&](int64_t start, int64_t len) {
    auto at = [start](auto fn) { return [fn, start](int64_t i) { return fn(start + i); }; };
    auto never = [](int64_t) { return false; };
    return std::vector<ColumnPtr>{
        Fixed<int64_t>(Int64(), len, never, at([](int64_t i) { return i; })),
        Bytes(String(), len, at([](int64_t i) { return i % 11 == 0; }),
              at([](int64_t i) { return "name-" + std::to_string(i % 101); })),
        Fixed<double>(Float64(), len, never,
                      at([](int64_t i) { return static_cast<double>(i) * 0.5; }))};
  };
  auto batches = Batches(n, {7000}, build);
  const std::pair<const char*, CompressionCodec> codecs[] = {
      {"uncompressed", CompressionCodec::kUncompressed},
      {"snappy", CompressionCodec::kSnappy},
      {"gzip", CompressionCodec::kGzip},
      {"zstd", CompressionCodec::kZstd},
      {"lz4_raw", CompressionCodec::kLz4Raw},
      {"brotli", CompressionCodec::kBrotli}};
  for (const auto& [name, codec] : codecs) {
    WriteFile(dir, std::string("codec_") + name, schema, batches, Options(codec));
  }
  WriterOptions o = Options(CompressionCodec::kZstd);
  o.compression_level = 19;
  WriteFile(dir, "codec_zstd19", schema, batches, o);
}

void WriteDictFallback(const std::filesystem::path& dir) {
  auto schema = MakeSchema(
      {{"hc", String(), true, 1}, {"lc", String(), true, 2}, {"hc_int", Int64(), true, 3}});
  const int64_t n = 50000;
  auto build = [&](int64_t start, int64_t len) {
    auto at = [start](auto fn) { return [fn, start](int64_t i) { return fn(start + i); }; };
    auto never = [](int64_t) { return false; };
    return std::vector<ColumnPtr>{
        Bytes(String(), len, never, at([](int64_t i) {
                char buf[32];
                std::snprintf(buf, sizeof buf, "user-%08lld", static_cast<long long>(i / 2));
                return std::string(buf);
              })),
        Bytes(String(), len, never, at([](int64_t i) { return "c" + std::to_string(i % 10); })),
        Fixed<int64_t>(Int64(), len, never,
                       at([](int64_t i) { return (i / 2) * 7919 % 1000003; }))};
  };
  WriterOptions o = Options();
  o.page_row_limit = 1000;
  o.dictionary_size_limit = 16 << 10;
  WriteFile(dir, "dict_fallback", schema, Batches(n, {12345}, build), o);
}

void WriteDeltaInts(const std::filesystem::path& dir) {
  auto schema = MakeSchema({{"ts", Int64(), false, 1}, {"seq", Int32(), true, 2}});
  const int64_t n = 100000;
  auto build = [&](int64_t start, int64_t len) {
    auto at = [start](auto fn) { return [fn, start](int64_t i) { return fn(start + i); }; };
    return std::vector<ColumnPtr>{
        Fixed<int64_t>(
            Int64(), len, [](int64_t) { return false; },
            at([](int64_t i) { return 1700000000000000 + i * 1000 + i % 7; })),
        Fixed<int32_t>(Int32(), len, at([](int64_t i) { return i % 1000 == 999; }),
                       at([](int64_t i) { return static_cast<int32_t>(i); }))};
  };
  WriteFile(dir, "delta_ints", schema, Batches(n, {}, build), Options());
}

void WritePageIndex(const std::filesystem::path& dir) {
  auto schema = MakeSchema({{"k", Int64(), false, 1},
                            {"d", Int64(), false, 2},
                            {"u", Int32(), false, 3},
                            {"s", String(), false, 4},
                            {"n", Int32(), true, 5},
                            {"nanpage", Float64(), true, 6},
                            {"long", String(), true, 7}});
  const int64_t n = 20000;
  auto build = [&](int64_t start, int64_t len) {
    auto at = [start](auto fn) { return [fn, start](int64_t i) { return fn(start + i); }; };
    auto never = [](int64_t) { return false; };
    return std::vector<ColumnPtr>{
        Fixed<int64_t>(Int64(), len, never, at([](int64_t i) { return i; })),
        Fixed<int64_t>(Int64(), len, never, at([](int64_t i) { return -i; })),
        Fixed<int32_t>(Int32(), len, never, at([](int64_t i) { return (i * 7919) % 1000; })),
        Bytes(String(), len, never, at([](int64_t i) {
                char buf[32];
                std::snprintf(buf, sizeof buf, "key-%06lld", static_cast<long long>(i));
                return std::string(buf);
              })),
        Fixed<int32_t>(Int32(), len, at([](int64_t i) { return (i / 500) % 3 == 1; }),
                       at([](int64_t i) { return static_cast<int32_t>(i % 1000); })),
        Fixed<double>(Float64(), len, never, at([](int64_t i) {
                        return i >= 500 && i < 1000 ? std::numeric_limits<double>::quiet_NaN()
                                                    : static_cast<double>(i);
                      })),
        Bytes(String(), len, at([](int64_t i) { return i % 3 == 0; }),
              at([](int64_t i) { return Repeat("p", 70) + std::to_string(i / 500); }))};
  };
  WriterOptions o = Options();
  o.page_row_limit = 500;
  o.row_group_row_limit = 10000;
  WriteFile(dir, "page_index", schema, Batches(n, {}, build), o);
  // The same rows in small row groups with k and s co-located behind them.
  o.row_group_row_limit = 1500;
  o.colocated_columns = {"k", "s"};
  WriteFile(dir, "colocated", schema, Batches(n, {}, build), o);
}

void WriteBloom(const std::filesystem::path& dir) {
  auto schema = MakeSchema({{"id64", Int64(), false, 1},
                            {"id32", Int32(), false, 2},
                            {"s", String(), true, 3},
                            {"fx", FixedSizeBinary(8), false, 4},
                            {"d", Float64(), false, 5},
                            {"f", Float32(), false, 6},
                            {"lowcard", String(), false, 7},
                            {"nobloom", Int64(), false, 8}});
  const int64_t n = 30000;
  auto build = [&](int64_t start, int64_t len) {
    auto at = [start](auto fn) { return [fn, start](int64_t i) { return fn(start + i); }; };
    auto never = [](int64_t) { return false; };
    return std::vector<ColumnPtr>{
        Fixed<int64_t>(Int64(), len, never, at([](int64_t i) { return i * 7 + 3; })),
        Fixed<int32_t>(Int32(), len, never,
                       at([](int64_t i) { return static_cast<int32_t>(i * 13); })),
        Bytes(String(), len, at([](int64_t i) { return i % 10 == 9; }),
              at([](int64_t i) { return "bloom-" + std::to_string(i); })),
        Bytes(FixedSizeBinary(8), len, never, at([](int64_t i) {
                std::string s(8, '\0');
                const uint64_t v = static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ull;
                std::memcpy(s.data(), &v, 8);
                return s;
              })),
        Fixed<double>(Float64(), len, never,
                      at([](int64_t i) { return static_cast<double>(i) * 0.25; })),
        Fixed<float>(Float32(), len, never,
                     at([](int64_t i) { return static_cast<float>(i) + 0.5f; })),
        Bytes(String(), len, never, at([](int64_t i) { return "v" + std::to_string(i % 5); })),
        Fixed<int64_t>(Int64(), len, never, at([](int64_t i) { return i; }))};
  };
  WriterOptions o = Options();
  o.row_group_row_limit = 10000;
  for (const char* c : {"id64", "id32", "s", "fx", "d", "f", "lowcard"}) {
    o.bloom_filter_columns.push_back({c, 0.01, std::nullopt});
  }
  WriteFile(dir, "bloom", schema, Batches(n, {4096}, build), o);
  // A fixed NDV sizes every filter alike; no dictionary means hashing every value.
  o.bloom_filter_columns = {{"id64", 0.01, 100000}, {"s", 0.05, std::nullopt}};
  o.enable_dictionary = false;
  WriteFile(dir, "bloom_ndv", schema, Batches(n, {}, build), o);
}

void WriteManyRowGroups(const std::filesystem::path& dir) {
  auto schema = MakeSchema({{"id", Int64(), false, 1}, {"s", String(), true, 2}});
  auto build = [&](int64_t start, int64_t len) {
    auto at = [start](auto fn) { return [fn, start](int64_t i) { return fn(start + i); }; };
    return std::vector<ColumnPtr>{
        Fixed<int64_t>(
            Int64(), len, [](int64_t) { return false; }, at([](int64_t i) { return i; })),
        Bytes(String(), len, at([](int64_t i) { return i % 4 == 1; }),
              at([](int64_t i) { return "row-" + std::to_string(i * 7 % 1000); }))};
  };
  WriterOptions o = Options();
  o.row_group_row_limit = 1000;
  WriteFile(dir, "many_row_groups", schema, Batches(25000, {999, 1, 3000}, build), o);

  // Hash-like values that do not compress: 256 KiB row groups by bytes.
  auto noisy = [&](int64_t start, int64_t len) {
    auto at = [start](auto fn) { return [fn, start](int64_t i) { return fn(start + i); }; };
    auto h = [](int64_t i) { return static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ull; };
    return std::vector<ColumnPtr>{
        Fixed<int64_t>(
            Int64(), len, [](int64_t) { return false; },
            at([h](int64_t i) { return static_cast<int64_t>(h(i)); })),
        Bytes(String(), len, at([](int64_t i) { return i % 4 == 1; }), at([h](int64_t i) {
                char buf[32];
                std::snprintf(buf, sizeof buf, "%016llx",
                              static_cast<unsigned long long>(h(i) >> 3));
                return std::string(buf);
              }))};
  };
  WriterOptions b = Options();
  b.row_group_size_bytes = 256 << 10;
  b.page_size_bytes = 16 << 10;
  WriteFile(dir, "row_group_bytes", schema, Batches(200000, {100000}, noisy), b);
}

void WriteStatsEdges(const std::filesystem::path& dir) {
  auto schema = MakeSchema({{"fz", Float64(), false, 1},
                            {"fz2", Float64(), false, 2},
                            {"fnan", Float64(), false, 3},
                            {"fallnan", Float32(), false, 4},
                            {"allnull", String(), true, 5},
                            {"lbin", Binary(), false, 6},
                            {"lff", Binary(), false, 7},
                            {"utf8long", String(), false, 8},
                            {"u64", UInt64(), false, 9},
                            {"dec38", Decimal128(38, 2), false, 10},
                            {"i32", Int32(), false, 11},
                            {"emoji", String(), false, 12}});
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto never = [](int64_t) { return false; };
  const int64_t n = 3;
  std::vector<ColumnPtr> cols{
      Fixed<double>(Float64(), n, never,
                    [](int64_t i) {
                      return std::vector{-0.0, 0.0, 1.0}[i];
                    }),
      Fixed<double>(Float64(), n, never,
                    [](int64_t i) {
                      return std::vector{0.0, -0.0, -1.0}[i];
                    }),
      Fixed<double>(Float64(), n, never,
                    [nan](int64_t i) {
                      return std::vector{nan, 2.0, -3.5}[i];
                    }),
      Fixed<float>(Float32(), n, never, [nan](int64_t) { return static_cast<float>(nan); }),
      Bytes(
          String(), n, [](int64_t) { return true; }, [](int64_t) { return std::string(); }),
      Bytes(Binary(), n, never,
            [](int64_t i) {
              return std::vector{std::string(20, '\x01'), "\x02" + std::string(30, '\xff'),
                                 std::string("\x01\x02", 2)}[i];
            }),
      Bytes(Binary(), n, never, [](int64_t i) { return std::string(20 + i, '\xff'); }),
      Bytes(String(), n, never,
            [](int64_t i) {
              return std::vector{"ab" + Repeat("\xc3\xa9", 20), "ab" + Repeat("\xc3\xa9", 5),
                                 std::string("a")}[i];
            }),
      Fixed<uint64_t>(UInt64(), n, never,
                      [](int64_t i) {
                        return std::vector<uint64_t>{1, (1ull << 63) + 5, 7}[i];
                      }),
      Decimals(Decimal128(38, 2), n, never,
               [](int64_t i) -> __int128 {
                 return std::vector<__int128>{-5, 3, -100}[i];
               }),
      Fixed<int32_t>(Int32(), n, never,
                     [](int64_t i) {
                       return std::vector{-5, 10, -20}[i];
                     }),
      // U+10FFFF can never be incremented: the truncated max falls back to the previous char.
      Bytes(String(), n, never, [](int64_t i) {
        return std::vector{"x" + Repeat("\xf4\x8f\xbf\xbf", 5), std::string("w"),
                           "a" + Repeat("z", 20)}[i];
      })};
  WriteFile(dir, "stats_edges", schema, {cols}, Options());
}

void WriteEmpty(const std::filesystem::path& dir) {
  auto schema = MakeSchema({{"id", Int64(), false, 1}, {"s", String(), true, 2}});
  WriteFile(dir, "empty", schema, {}, Options());
}

// ---- the seeded round trip (writer_interop.py: class Rng, roundtrip_case) --------------------

struct Rng {
  uint64_t state;
  uint64_t Next() {
    state += 0x9E3779B97F4A7C15ull;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  int64_t Below(int64_t n) { return static_cast<int64_t>(Next() % static_cast<uint64_t>(n)); }
};

enum Kind { kBoolK, kI32K, kI64K, kF32K, kF64K, kStrK, kBinK, kDateK, kTsK, kDecK, kNumKinds };

DataType KindType(int kind) {
  switch (kind) {
    case kBoolK:
      return Bool();
    case kI32K:
      return Int32();
    case kI64K:
      return Int64();
    case kF32K:
      return Float32();
    case kF64K:
      return Float64();
    case kStrK:
      return String();
    case kBinK:
      return Binary();
    case kDateK:
      return Date32();
    case kTsK:
      return Timestamp(TimeUnit::kMicro, "UTC");
    default:
      return Decimal128(12, 3);
  }
}

void WriteRoundTrip(const std::filesystem::path& dir, int seed) {
  Rng rng{static_cast<uint64_t>(seed) * 1000003 + 17};
  const int ncols = 1 + static_cast<int>(rng.Below(6));
  struct Col {
    int kind;
    bool nullable;
    int64_t null_per_mille;
    int64_t card;
  };
  std::vector<Col> spec;
  std::vector<Field> fields;
  for (int c = 0; c < ncols; ++c) {
    Col col;
    col.kind = static_cast<int>(rng.Below(kNumKinds));
    col.nullable = rng.Below(2) == 1;
    col.null_per_mille = col.nullable ? rng.Below(300) : 0;
    col.card = std::vector<int64_t>{2, 50, 1000, 100000}[rng.Below(4)];
    spec.push_back(col);
    fields.push_back({"c" + std::to_string(c), KindType(col.kind), col.nullable, c + 1});
  }
  const int64_t nrows = rng.Below(20000);
  WriterOptions o;
  o.page_row_limit = std::vector<int64_t>{20000, 1000, 37}[rng.Below(3)];
  o.page_size_bytes = std::vector<int64_t>{1 << 20, 4096}[rng.Below(2)];
  o.dictionary_size_limit = std::vector<int64_t>{2 << 20, 1024}[rng.Below(2)];
  if (int64_t r = std::vector<int64_t>{0, 5000, 777}[rng.Below(3)]; r > 0)
    o.row_group_row_limit = r;
  o.codec = std::vector<CompressionCodec>{
      CompressionCodec::kZstd, CompressionCodec::kSnappy, CompressionCodec::kUncompressed,
      CompressionCodec::kGzip, CompressionCodec::kLz4Raw, CompressionCodec::kBrotli}[rng.Below(6)];
  o.data_page_version =
      rng.Below(2) == 1 ? parquet::DataPageVersion::kV2 : parquet::DataPageVersion::kV1;
  o.enable_dictionary = rng.Below(4) != 0;
  const int64_t batch = std::vector<int64_t>{std::max<int64_t>(nrows, 1), 1000, 333}[rng.Below(3)];

  // Values row by row, column by column: the draw order writer_interop.py repeats.
  std::vector<std::vector<std::optional<int64_t>>> draws(static_cast<size_t>(ncols));
  for (int64_t i = 0; i < nrows; ++i) {
    for (int c = 0; c < ncols; ++c) {
      const Col& col = spec[static_cast<size_t>(c)];
      if (col.nullable && rng.Below(1000) < col.null_per_mille) {
        draws[static_cast<size_t>(c)].push_back(std::nullopt);
      } else {
        draws[static_cast<size_t>(c)].push_back(rng.Below(col.card));
      }
    }
  }
  auto schema = MakeSchema(fields);
  auto build = [&](int64_t start, int64_t len) {
    std::vector<ColumnPtr> cols;
    for (int c = 0; c < ncols; ++c) {
      const auto& d = draws[static_cast<size_t>(c)];
      const Col& col = spec[static_cast<size_t>(c)];
      auto null = [&](int64_t i) { return !d[static_cast<size_t>(start + i)].has_value(); };
      auto v = [&](int64_t i) { return d[static_cast<size_t>(start + i)].value_or(0); };
      const int64_t half = col.card / 2;
      switch (col.kind) {
        case kBoolK:
          cols.push_back(Bools(len, null, [&](int64_t i) { return v(i) % 2 == 1; }));
          break;
        case kI32K:
          cols.push_back(
              Fixed<int32_t>(Int32(), len, null, [&](int64_t i) { return v(i) - half; }));
          break;
        case kI64K:
          cols.push_back(Fixed<int64_t>(Int64(), len, null, [&](int64_t i) {
            return v(i) * 1000000007 - col.card * 500000000;
          }));
          break;
        case kF32K:
          cols.push_back(Fixed<float>(Float32(), len, null, [&](int64_t i) {
            return v(i) == 3 ? std::numeric_limits<float>::quiet_NaN()
                             : static_cast<float>(v(i) - half) / 4.0f;
          }));
          break;
        case kF64K:
          cols.push_back(Fixed<double>(Float64(), len, null, [&](int64_t i) {
            return static_cast<double>(v(i) - half) / 8.0;
          }));
          break;
        case kStrK:
          cols.push_back(Bytes(String(), len, null, [&](int64_t i) {
            return "v" + std::to_string(v(i)) + Repeat("\xc3\xbc", v(i) % 3);
          }));
          break;
        case kBinK:
          cols.push_back(Bytes(Binary(), len, null, [&](int64_t i) {
            return std::string{static_cast<char>(v(i) % 256), static_cast<char>((v(i) >> 8) % 256),
                               '\xff'};
          }));
          break;
        case kDateK:
          cols.push_back(
              Fixed<int32_t>(Date32(), len, null, [&](int64_t i) { return v(i) - 1000; }));
          break;
        case kTsK:
          cols.push_back(
              Fixed<int64_t>(Timestamp(TimeUnit::kMicro, "UTC"), len, null,
                             [&](int64_t i) { return 1700000000000000 + v(i) * 1000000; }));
          break;
        default:
          cols.push_back(Decimals(Decimal128(12, 3), len, null, [&](int64_t i) -> __int128 {
            return v(i) * 1001 - col.card * 500;
          }));
          break;
      }
    }
    return cols;
  };
  std::vector<std::vector<ColumnPtr>> batches;
  for (int64_t start = 0; start < nrows; start += batch) {
    batches.push_back(build(start, std::min(batch, nrows - start)));
  }
  WriteFile(dir, "roundtrip_" + std::to_string(seed), schema, batches, o);
}

// ---- Bloom filter probing -------------------------------------------------------------------

// ---- nested columns (writer_interop.py's check_nested has the same formulas) -------------------

ColumnPtr NestedOf(DataType type, const std::vector<bool>& valid, std::vector<int32_t> offsets,
                   std::vector<ColumnPtr> children) {
  auto c = std::make_shared<Column>();
  c->type = std::move(type);
  c->length = static_cast<int64_t>(valid.size());
  ValidityBuilder v;
  for (bool ok : valid) {
    ok ? v.AppendValid() : v.AppendNull();
    c->null_count += !ok;
  }
  if (c->null_count > 0) c->validity = v.Finish();
  if (!offsets.empty()) c->offsets = Buffer::Adopt(std::move(offsets));
  c->children = std::move(children);
  return c;
}

void WriteNested(const std::filesystem::path& dir) {
  const Field l{"l", List({"element", Int64(), true, 2}), true, 1};
  const Field s{
      "s", Struct({{"a", Int32(), true, 4}, {"t", List({"element", String(), true, 6}), true, 5}}),
      true, 3};
  const Field m{"m", Map({"key", String(), false, 8}, {"value", Int64(), true, 9}), true, 7};
  auto schema = MakeSchema({{"id", Int64(), false, 10}, l, s, m});
  const int64_t n = 5000;
  auto build = [&](int64_t start, int64_t len) {
    std::vector<bool> lv, sv, tv, mv, entries_valid;
    std::vector<int32_t> lo{0}, to{0}, mo{0};
    FixedWidthBuilder<int64_t> ids(Int64()), le(Int64()), mvals(Int64());
    FixedWidthBuilder<int32_t> sa(Int32());
    BinaryBuilder te, keys;
    for (int64_t i = start; i < start + len; ++i) {
      ids.Append(i);
      lv.push_back(i % 7 != 3);
      if (lv.back()) {
        for (int64_t k = 0; k < i % 4; ++k) {
          (i + k) % 5 == 0 ? le.AppendNull() : le.Append(i * 10 + k);
        }
      }
      lo.push_back(static_cast<int32_t>(le.length()));
      sv.push_back(i % 9 != 4);
      i % 3 == 0 ? sa.AppendNull() : sa.Append(static_cast<int32_t>(i));
      tv.push_back(i % 4 != 1);
      if (tv.back() && sv.back()) {
        for (int64_t k = 0; k < i % 3; ++k) Check(te.Append("t" + std::to_string(i % 6)), "t");
      }
      to.push_back(static_cast<int32_t>(te.length()));
      mv.push_back(i % 11 != 0);
      if (mv.back()) {
        for (int64_t j = 0; j < i % 3; ++j) {
          Check(keys.Append("k" + std::to_string(j)), "key");
          (i + j) % 4 == 0 ? mvals.AppendNull() : mvals.Append(i * j);
          entries_valid.push_back(true);
        }
      }
      mo.push_back(static_cast<int32_t>(keys.length()));
    }
    auto t = NestedOf(s.type.children[1].type, tv, std::move(to), {te.Finish()});
    auto entries =
        NestedOf(m.type.children[0].type, entries_valid, {}, {keys.Finish(), mvals.Finish()});
    return std::vector<ColumnPtr>{ids.Finish(), NestedOf(l.type, lv, std::move(lo), {le.Finish()}),
                                  NestedOf(s.type, sv, {}, {sa.Finish(), std::move(t)}),
                                  NestedOf(m.type, mv, std::move(mo), {std::move(entries)})};
  };
  WriterOptions o = Options();
  o.row_group_row_limit = 2000;
  o.page_row_limit = 50;
  o.bloom_filter_columns = {{"l.list.element", 0.01, std::nullopt},
                            {"s.t.list.element", 0.01, std::nullopt}};
  WriteFile(dir, "nested", schema, Batches(n, {1000, 777}, build), o);
  o.data_page_version = parquet::DataPageVersion::kV2;
  WriteFile(dir, "nested_v2", schema, Batches(n, {1000, 777}, build), o);
  o.enable_dictionary = false;
  o.codec = CompressionCodec::kUncompressed;
  WriteFile(dir, "nested_v2_plain", schema, Batches(n, {}, build), o);
}

int ProbeBloom(int argc, char** argv) {
  if (argc < 7) Die("usage: probe-bloom <file> <column> <row group> <type> <value>...");
  const std::string path = argv[2], column = argv[3], type = argv[5];
  const size_t rg = static_cast<size_t>(std::stoul(argv[4]));
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
  auto tail = Check(parquet::ParseFooter(path, bytes.size(), bytes), "footer");
  if (!tail.metadata) Die("footer not in file");
  const auto& meta = *tail.metadata;
  if (rg >= meta.row_groups.size()) Die("no row group " + std::to_string(rg));
  const parquet::ColumnMetaData* md = nullptr;
  for (const auto& chunk : meta.row_groups[rg].columns) {
    if (chunk.meta_data && chunk.meta_data->path_in_schema.size() == 1 &&
        chunk.meta_data->path_in_schema[0] == column) {
      md = &*chunk.meta_data;
    }
  }
  if (md == nullptr) Die("no column " + column);
  if (!md->bloom_filter_offset) Die("column " + column + " has no Bloom filter");
  const size_t offset = static_cast<size_t>(*md->bloom_filter_offset);
  const size_t length = md->bloom_filter_length ? static_cast<size_t>(*md->bloom_filter_length)
                                                : bytes.size() - offset;
  auto filter =
      Check(parquet::BloomFilter::Parse(ByteView(bytes).subspan(offset, length)), "bloom");
  for (int k = 6; k < argc; ++k) {
    const std::string v = argv[k];
    uint64_t h;
    if (type == "int64") {
      h = parquet::BloomFilter::Hash(static_cast<int64_t>(std::stoll(v)));
    } else if (type == "int32") {
      h = parquet::BloomFilter::Hash(static_cast<int32_t>(std::stol(v)));
    } else if (type == "double") {
      h = parquet::BloomFilter::Hash(std::stod(v));
    } else if (type == "float") {
      h = parquet::BloomFilter::Hash(std::stof(v));
    } else if (type == "hex") {
      std::string raw;
      for (size_t i = 0; i + 1 < v.size(); i += 2) {
        raw.push_back(static_cast<char>(std::stoi(v.substr(i, 2), nullptr, 16)));
      }
      h = parquet::BloomFilter::Hash(raw);
    } else {
      h = parquet::BloomFilter::Hash(std::string_view(v));
    }
    std::printf("%d\n", filter.MightContain(h) ? 1 : 0);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "probe-bloom") return ProbeBloom(argc, argv);
  if (argc < 3 || std::string(argv[1]) != "write") {
    Die("usage: write <dir> [--seeds N] | probe-bloom <file> <column> <rg> <type> <value>...");
  }
  const std::filesystem::path dir = argv[2];
  int seeds = 50;
  for (int i = 3; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--seeds") seeds = std::stoi(argv[i + 1]);
  }
  std::filesystem::create_directories(dir);
  WriteAllTypes(dir);
  WriteCodecs(dir);
  WriteDictFallback(dir);
  WriteDeltaInts(dir);
  WritePageIndex(dir);
  WriteBloom(dir);
  WriteManyRowGroups(dir);
  WriteStatsEdges(dir);
  WriteEmpty(dir);
  WriteNested(dir);
  for (int s = 0; s < seeds; ++s) WriteRoundTrip(dir, s);
  std::printf("wrote fixtures and %d round-trip files to %s\n", seeds, dir.c_str());
  return 0;
}
