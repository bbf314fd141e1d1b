#include "floe/layout/partition_split.h"

#include <cstring>
#include <string>
#include <unordered_map>

namespace floe::layout {
namespace {

namespace c = floe::columnar;

// Appends row `r`'s value of `col` to `key`, self-delimiting (a tag, then a fixed width or a
// length), so different tuples never make the same bytes.
Status AppendKey(const c::Column& col, int64_t r, std::string* key) {
  if (col.IsNull(r)) {
    key->push_back('\0');
    return {};
  }
  key->push_back('\1');
  if (col.type.id == c::TypeId::kBool) {
    key->push_back(col.BoolAt(r) ? '\1' : '\0');
  } else if (col.type.IsBinaryLike() || col.type.id == c::TypeId::kFixedSizeBinary) {
    std::string_view v = col.BytesAt(r);
    const uint64_t len = v.size();
    key->append(reinterpret_cast<const char*>(&len), sizeof len);
    key->append(v);
  } else if (const int w = col.type.FixedWidth(); w > 0 && !col.type.IsNested()) {
    key->append(reinterpret_cast<const char*>(col.values.data()) + r * w, static_cast<size_t>(w));
  } else {
    return Unsupported("partitioning by a {} column", col.type.ToString());
  }
  return {};
}

}  // namespace

Result<std::vector<RowGroupOfKey>> SplitByKeys(const std::vector<const c::Column*>& keys,
                                               int64_t n) {
  std::vector<RowGroupOfKey> groups;
  if (keys.empty()) {
    RowGroupOfKey all;
    all.rows.resize(static_cast<size_t>(n));
    for (int64_t r = 0; r < n; ++r) all.rows[r] = r;
    if (n > 0) groups.push_back(std::move(all));
    return groups;
  }
  for (const c::Column* k : keys) {
    if (k->length != n) return Internal("a partition key of {} rows for {} rows", k->length, n);
  }
  std::unordered_map<std::string, size_t> index;
  std::string key;
  for (int64_t r = 0; r < n; ++r) {
    key.clear();
    for (const c::Column* k : keys) FLOE_RETURN_IF_ERROR(AppendKey(*k, r, &key));
    auto [it, fresh] = index.emplace(key, groups.size());
    if (fresh) groups.push_back(RowGroupOfKey{r, {}});
    groups[it->second].rows.push_back(r);
  }
  return groups;
}

}  // namespace floe::layout
