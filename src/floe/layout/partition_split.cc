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

// One key of a fixed width up to 8 bytes (what bucket, identity on integers and dates, and the
// time transforms give): the key's bits compared as an integer, NULL a group of its own. Partition
// keys are few, so the distinct ones are searched in a short list first; a map once they are many.
std::vector<RowGroupOfKey> SplitByFixedKey(const c::Column& k, int width, int64_t n) {
  std::vector<RowGroupOfKey> groups;
  std::vector<uint64_t> seen;  // seen[i]: the key of groups[i] (unused for the NULL group)
  size_t null_group = SIZE_MAX;
  std::unordered_map<uint64_t, size_t> many;
  constexpr size_t kShortList = 16;
  const uint8_t* values = k.values.data();
  size_t last = SIZE_MAX;
  uint64_t last_key = 0;
  for (int64_t r = 0; r < n; ++r) {
    size_t g = SIZE_MAX;
    if (k.IsNull(r)) {
      if (null_group == SIZE_MAX) {
        null_group = groups.size();
        groups.push_back(RowGroupOfKey{r, {}});
        seen.push_back(0);
      }
      g = null_group;
    } else {
      uint64_t key = 0;
      std::memcpy(&key, values + r * width, static_cast<size_t>(width));
      if (last != SIZE_MAX && key == last_key) {
        g = last;
      } else if (groups.size() <= kShortList) {
        for (size_t i = 0; i < groups.size(); ++i) {
          if (i != null_group && seen[i] == key) {
            g = i;
            break;
          }
        }
      } else if (auto it = many.find(key); it != many.end()) {
        g = it->second;
      }
      if (g == SIZE_MAX) {
        g = groups.size();
        groups.push_back(RowGroupOfKey{r, {}});
        seen.push_back(key);
      }
      if (groups.size() > kShortList && many.empty()) {
        for (size_t i = 0; i < groups.size(); ++i) {
          if (i != null_group) many.emplace(seen[i], i);
        }
      } else if (!many.empty()) {
        many.emplace(key, g);
      }
      last = g;
      last_key = key;
    }
    groups[g].rows.push_back(r);
  }
  return groups;
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
  if (keys.size() == 1) {
    const c::Column& k = *keys[0];
    const int width = k.type.FixedWidth();
    if (width > 0 && width <= 8 && k.type.id != c::TypeId::kBool && !k.type.IsNested() &&
        k.type.id != c::TypeId::kFixedSizeBinary) {
      return SplitByFixedKey(k, width, n);
    }
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
