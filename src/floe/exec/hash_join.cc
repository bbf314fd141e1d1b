#include "floe/exec/hash_join.h"

#include <algorithm>

#include "floe/exec/value.h"

namespace floe::exec {

namespace {

using columnar::TypeId;

bool IsInt64Like(const columnar::DataType& t) {
  return t.id == TypeId::kInt64 || t.id == TypeId::kTimestamp || t.id == TypeId::kTime64;
}

}  // namespace

Status JoinHashTable::CheckTypes(const std::vector<columnar::ColumnPtr>& keys, int64_t rows) const {
  if (keys.size() != types_.size()) {
    return Internal("join: {} key columns probe a table of {}", keys.size(), types_.size());
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i]->type != types_[i] && keys[i]->type.id != TypeId::kNull &&
        types_[i].id != TypeId::kNull) {
      return Internal("join key {}: a {} column probes a table of {}", i, keys[i]->type.ToString(),
                      types_[i].ToString());
    }
    if (keys[i]->length != rows) {
      return Internal("join key {} has {} rows, not {}", i, keys[i]->length, rows);
    }
  }
  return {};
}

bool JoinHashTable::IntKey(const std::vector<columnar::ColumnPtr>& keys, int64_t r,
                           int64_t* key) const {
  const columnar::Column& c = *keys[0];
  if (c.type.id == TypeId::kNull || c.IsNull(r)) return false;
  *key = kind_ == Kind::kInt64 ? c.Value<int64_t>(r) : c.Value<int32_t>(r);
  return true;
}

Result<bool> JoinHashTable::BytesKey(const std::vector<columnar::ColumnPtr>& keys, int64_t r,
                                     std::string* key) const {
  key->clear();
  for (const columnar::ColumnPtr& c : keys) {
    if (c->type.id == TypeId::kNull || c->IsNull(r)) return false;
    if (c->type.id == TypeId::kString || c->type.id == TypeId::kBinary) {
      // A string's bytes, length first, without a Value.
      const std::string_view v = c->BytesAt(r);
      const auto n = static_cast<uint32_t>(v.size());
      key->push_back('s');
      key->append(reinterpret_cast<const char*>(&n), 4);
      key->append(v);
      continue;
    }
    FLOE_ASSIGN_OR_RETURN(Value v, ValueAt(*c, r));
    AppendKeyBytes(v, key);
  }
  return true;
}

Result<JoinHashTable> JoinHashTable::Build(std::vector<columnar::ColumnPtr> keys, int64_t rows) {
  JoinHashTable t;
  if (keys.empty()) return InvalidInput("a join needs at least one key");
  for (const auto& k : keys) t.types_.push_back(k->type);
  FLOE_RETURN_IF_ERROR(t.CheckTypes(keys, rows));
  if (keys.size() == 1 && IsInt64Like(keys[0]->type)) {
    t.kind_ = Kind::kInt64;
  } else if (keys.size() == 1 && keys[0]->type.id == TypeId::kDate32) {
    t.kind_ = Kind::kInt32;
  }
  t.next_.assign(static_cast<size_t>(rows), -1);
  std::string bytes;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t* last = nullptr;
    if (t.kind_ != Kind::kBytes) {
      int64_t key = 0;
      if (!t.IntKey(keys, r, &key)) continue;
      last = &t.ints_.try_emplace(key, -1).first->second;
    } else {
      FLOE_ASSIGN_OR_RETURN(bool valid, t.BytesKey(keys, r, &bytes));
      if (!valid) continue;
      last = &t.bytes_.try_emplace(bytes, -1).first->second;
    }
    t.next_[static_cast<size_t>(r)] = *last;
    *last = r;
  }
  return t;
}

Status JoinHashTable::Probe(const std::vector<columnar::ColumnPtr>& keys, int64_t rows,
                            std::vector<int64_t>* probe_rows,
                            std::vector<int64_t>* build_rows) const {
  FLOE_RETURN_IF_ERROR(CheckTypes(keys, rows));
  std::string bytes;
  std::vector<int64_t> chain;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t last = -1;
    if (kind_ != Kind::kBytes) {
      int64_t key = 0;
      if (!IntKey(keys, r, &key)) continue;
      auto it = ints_.find(key);
      if (it == ints_.end()) continue;
      last = it->second;
    } else {
      FLOE_ASSIGN_OR_RETURN(bool valid, BytesKey(keys, r, &bytes));
      if (!valid) continue;
      auto it = bytes_.find(bytes);
      if (it == bytes_.end()) continue;
      last = it->second;
    }
    // The chain runs from the last build row back; pairs go out in build order.
    chain.clear();
    for (int64_t b = last; b >= 0; b = next_[static_cast<size_t>(b)]) chain.push_back(b);
    std::reverse(chain.begin(), chain.end());
    for (int64_t b : chain) {
      probe_rows->push_back(r);
      build_rows->push_back(b);
    }
  }
  return {};
}

}  // namespace floe::exec
