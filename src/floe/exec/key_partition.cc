#include "floe/exec/key_partition.h"

#include <functional>
#include <string>
#include <string_view>

#include "floe/columnar/take.h"

namespace floe::exec {

namespace {

uint64_t Mix(uint64_t x) {  // splitmix64's finaliser
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

uint32_t PartOf(const std::string& bytes, uint64_t seed, uint32_t parts) {
  const uint64_t h = Mix(std::hash<std::string_view>{}(bytes) ^ Mix(seed + 0x9e3779b97f4a7c15ULL));
  return static_cast<uint32_t>(h % parts);
}

}  // namespace

Result<std::vector<uint32_t>> PartitionRows(const std::vector<columnar::ColumnPtr>& keys,
                                            int64_t rows, uint64_t seed, uint32_t parts) {
  std::vector<uint32_t> out(static_cast<size_t>(rows), 0);
  if (parts <= 1) return out;
  std::string bytes;
  for (int64_t r = 0; r < rows; ++r) {
    bytes.clear();
    for (const auto& k : keys) {
      const columnar::Column& c = *k;
      // The bytes AppendKeyBytes gives the row's Value (PartitionOfKey's), without the Value for
      // the common key types.
      if (c.type.id == columnar::TypeId::kNull || c.IsNull(r)) {
        bytes.push_back(0);  // monostate
      } else if (c.type.id == columnar::TypeId::kInt64 || c.type.id == columnar::TypeId::kInt32 ||
                 c.type.id == columnar::TypeId::kDate32) {
        const int64_t x =
            c.type.id == columnar::TypeId::kInt64 ? c.Value<int64_t>(r) : c.Value<int32_t>(r);
        bytes.push_back(2);  // int64_t
        bytes.append(reinterpret_cast<const char*>(&x), 8);
      } else if (c.type.id == columnar::TypeId::kString || c.type.id == columnar::TypeId::kBinary) {
        const std::string_view v = c.BytesAt(r);
        const auto n = static_cast<uint32_t>(v.size());
        bytes.push_back(4);  // std::string
        bytes.append(reinterpret_cast<const char*>(&n), 4);
        bytes.append(v);
      } else {
        FLOE_ASSIGN_OR_RETURN(Value v, ValueAt(c, r));
        AppendKeyBytes(v, &bytes);
      }
    }
    out[static_cast<size_t>(r)] = PartOf(bytes, seed, parts);
  }
  return out;
}

uint32_t PartitionOfKey(const std::vector<Value>& key, uint64_t seed, uint32_t parts) {
  if (parts <= 1) return 0;
  std::string bytes;
  for (const auto& v : key) AppendKeyBytes(v, &bytes);
  return PartOf(bytes, seed, parts);
}

Result<std::vector<columnar::RecordBatch>> SplitRows(const columnar::RecordBatch& batch,
                                                     const std::vector<uint32_t>& part_of_row,
                                                     uint32_t parts) {
  std::vector<std::vector<int64_t>> rows(parts);
  for (size_t r = 0; r < part_of_row.size(); ++r) {
    rows[part_of_row[r]].push_back(static_cast<int64_t>(r));
  }
  std::vector<columnar::RecordBatch> out(parts);
  for (uint32_t p = 0; p < parts; ++p) {
    columnar::RecordBatch& b = out[p];
    b.schema = batch.schema;
    b.num_rows = static_cast<int64_t>(rows[p].size());
    b.columns.resize(batch.columns.size());
    if (rows[p].empty()) continue;
    for (size_t c = 0; c < batch.columns.size(); ++c) {
      if (batch.columns[c]) {
        FLOE_ASSIGN_OR_RETURN(b.columns[c], columnar::Take(*batch.columns[c], rows[p]));
      }
    }
  }
  return out;
}

}  // namespace floe::exec
