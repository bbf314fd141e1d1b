// Shared by the maintenance and metadata-table tests: a local warehouse with a catalog, and a
// "dimension" table (an id plus a dozen mixed columns) written in batches whose ids each span the
// whole table, as the book chapter's customer dimension was.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "floe/catalog/sql_catalog.h"
#include "floe/columnar/column_builder.h"
#include "floe/iceberg/commit.h"
#include "floe/iceberg/data_writer.h"
#include "floe/iceberg/metadata_tables.h"
#include "floe/iceberg/scan.h"
#include "floe/iceberg/table.h"
#include "floe/iceberg/table_reader.h"
#include "floe/io/local_store.h"
#include "support/temp_dir.h"

namespace floe::iceberg::testing_support {

namespace c = floe::columnar;

struct Warehouse {
  floe::testing::TempDir dir;
  io::StorePtr store;
  std::shared_ptr<catalog::SqlCatalog> cat;
  std::unique_ptr<FileIO> io;

  Warehouse() {
    store = io::LocalStore::Open(dir.str()).value();
    cat = catalog::SqlCatalog::Open(dir.str() + "/catalog.db").value();
    io = std::make_unique<FileIO>(store, "file://" + dir.str());
  }

  Table Load(const catalog::TableIdentifier& id) const { return LoadTable(*cat, *io, id).value(); }

  // Store keys under a table's location, e.g. Keys(id, "data/").
  std::set<std::string> Keys(const catalog::TableIdentifier& id, const std::string& sub) const {
    std::string prefix = KeyOf(Load(id).metadata.location) + "/" + sub;
    std::set<std::string> out;
    std::vector<io::ObjectInfo> objects = store->ListAll(prefix).value();
    for (const auto& o : objects) out.insert(o.key);
    return out;
  }
  std::string KeyOf(const std::string& location) const { return io->KeyOf(location).value(); }
};

// splitmix64's finaliser: cheap, well-mixed values derived from a row's id.
inline uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// id, then 11 columns of strings, doubles, ints and a category.
inline Schema DimensionSchema() {
  std::vector<NestedField> f;
  f.push_back({1, "id", true, Primitive(TypeId::kLong)});
  f.push_back({2, "category", false, Primitive(TypeId::kString)});
  int32_t next = 3;
  for (int i = 0; i < 3; ++i)
    f.push_back({next++, "name" + std::to_string(i), false, Primitive(TypeId::kString)});
  for (int i = 0; i < 4; ++i)
    f.push_back({next++, "score" + std::to_string(i), false, Primitive(TypeId::kDouble)});
  for (int i = 0; i < 3; ++i)
    f.push_back({next++, "count" + std::to_string(i), false, Primitive(TypeId::kLong)});
  return Schema(0, std::move(f));
}

// Rows for the given ids (values derived from the id, so a reader can check them).
inline c::RecordBatch DimensionBatch(const std::vector<int64_t>& ids, int categories = 4) {
  const Schema schema = DimensionSchema();
  std::vector<c::ColumnPtr> cols;
  c::FixedWidthBuilder<int64_t> id(c::Int64());
  for (int64_t v : ids) id.Append(v);
  cols.push_back(id.Finish());
  c::BinaryBuilder cat;
  for (int64_t v : ids) (void)cat.Append("c" + std::to_string(v % categories));
  cols.push_back(cat.Finish());
  for (int i = 0; i < 3; ++i) {
    c::BinaryBuilder b;
    for (int64_t v : ids) {
      uint64_t h = Mix(static_cast<uint64_t>(v * 31 + i));
      std::string s(12 + h % 8, 'a');
      for (char& ch : s) {
        h = Mix(h);
        ch = static_cast<char>('a' + h % 26);
      }
      (void)b.Append(s);
    }
    cols.push_back(b.Finish());
  }
  for (int i = 0; i < 4; ++i) {
    c::FixedWidthBuilder<double> b(c::Float64());
    for (int64_t v : ids) {
      b.Append(static_cast<double>(Mix(static_cast<uint64_t>(v * 17 + i)) % 1000000007) / 7.0);
    }
    cols.push_back(b.Finish());
  }
  for (int i = 0; i < 3; ++i) {
    c::FixedWidthBuilder<int64_t> b(c::Int64());
    for (int64_t v : ids) b.Append(v * (i + 2) + 7);
    cols.push_back(b.Finish());
  }
  c::RecordBatch batch;
  auto s = std::make_shared<c::Schema>();
  for (const auto& f : schema.fields()) {
    c::DataType t = f.type->id == TypeId::kString   ? c::String()
                    : f.type->id == TypeId::kDouble ? c::Float64()
                                                    : c::Int64();
    s->fields.push_back(c::Field{f.name, t, !f.required, -1});
  }
  batch.schema = s;
  batch.columns = std::move(cols);
  batch.num_rows = static_cast<int64_t>(ids.size());
  return batch;
}

// `rows` ids shuffled with a fixed seed and cut into `batches` parts: every part spans the range.
inline std::vector<std::vector<int64_t>> ShuffledIdBatches(int64_t rows, int batches,
                                                           uint64_t seed = 7) {
  std::vector<int64_t> ids(rows);
  std::iota(ids.begin(), ids.end(), 0);
  std::mt19937_64 rng(seed);
  std::shuffle(ids.begin(), ids.end(), rng);
  std::vector<std::vector<int64_t>> out(batches);
  for (int64_t i = 0; i < rows; ++i) out[i % batches].push_back(ids[i]);
  return out;
}

// Writes one batch as its own append commit.
inline Table AppendBatch(Warehouse& w, const catalog::TableIdentifier& id,
                         const c::RecordBatch& batch) {
  TableDataWriter writer(w.Load(id), *w.io);
  EXPECT_TRUE(writer.Write(batch).has_value());
  auto files = writer.Finish();
  EXPECT_TRUE(files.has_value()) << files.error().ToString();
  auto t = AppendFiles(*w.cat, *w.io, id, *files);
  EXPECT_TRUE(t.has_value()) << t.error().ToString();
  return *t;
}

inline Table CreateDimension(Warehouse& w, const catalog::TableIdentifier& id,
                             const std::string& sort_by, const std::string& partition_by = "",
                             std::map<std::string, std::string> props = {}) {
  Schema s = DimensionSchema();
  SortOrder order;
  if (!sort_by.empty()) order = SortOrder::Parse(sort_by, s).value();
  CreateTableOptions o{s, PartitionSpec::Parse(partition_by, s).value(), order, std::move(props),
                       ""};
  return CreateTable(*w.cat, *w.io, id, std::move(o)).value();
}

// The rows of column `name` of a metadata table (int or long), as int64 (or -1 for null).
inline int ColumnIndex(const c::RecordBatch& b, const std::string& name) {
  auto i = b.schema->IndexOf(name);
  EXPECT_TRUE(i.has_value()) << "no column " << name;
  return i.value_or(0);
}
inline std::vector<int64_t> LongColumn(const c::RecordBatch& b, const std::string& name) {
  const c::Column& col = *b.columns[ColumnIndex(b, name)];
  std::vector<int64_t> out;
  const bool narrow = col.type.id == c::TypeId::kInt32;
  for (int64_t r = 0; r < b.num_rows; ++r) {
    if (col.IsNull(r)) {
      out.push_back(-1);
    } else {
      out.push_back(narrow ? col.Value<int32_t>(r) : col.Value<int64_t>(r));
    }
  }
  return out;
}
inline std::vector<std::string> StringColumn(const c::RecordBatch& b, const std::string& name) {
  const c::Column& col = *b.columns[ColumnIndex(b, name)];
  std::vector<std::string> out;
  for (int64_t r = 0; r < b.num_rows; ++r) out.emplace_back(col.IsNull(r) ? "" : col.BytesAt(r));
  return out;
}

// Every id in the table, read through scan planning and the reader, sorted.
inline std::vector<int64_t> AllIds(const Warehouse& w, const catalog::TableIdentifier& id) {
  Table t = w.Load(id);
  auto plan = PlanFiles(t, *w.io, {});
  EXPECT_TRUE(plan.has_value()) << plan.error().ToString();
  std::vector<int64_t> ids;
  for (const auto& task : plan->tasks) {
    auto batches = ReadTask(task, t.metadata.CurrentSchema(), *w.io);
    EXPECT_TRUE(batches.has_value()) << batches.error().ToString();
    for (const auto& b : *batches) {
      for (int64_t r = 0; r < b.num_rows; ++r) ids.push_back(b.columns[0]->Value<int64_t>(r));
    }
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

}  // namespace floe::iceberg::testing_support
