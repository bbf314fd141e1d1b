#include "floe/iceberg/delete_index.h"

#include <algorithm>

namespace floe::iceberg {
namespace {

// The spec id and partition values of a file as one string: files are in the same partition when
// their keys are equal (types, nulls and values exactly).
std::string PartitionKey(const DataFile& f) {
  std::string key = std::to_string(f.spec_id);
  for (const Literal& v : f.partition) {
    key += '|';
    key += std::to_string(static_cast<int>(v.type()));
    if (v.is_null()) {
      key += 'n';
      continue;
    }
    const std::string bytes = SerializeBound(v);
    key += std::to_string(bytes.size());
    key += ':';
    key += bytes;
  }
  return key;
}

// The one data file a position delete file without referenced_data_file holds deletes for, when
// its file_path bounds are equal (as Iceberg's writers infer it); empty otherwise.
std::string SingleReferencedFile(const DataFile& f) {
  if (f.referenced_data_file) return *f.referenced_data_file;
  auto lo = f.lower_bounds.find(kDeleteFilePathFieldId);
  auto hi = f.upper_bounds.find(kDeleteFilePathFieldId);
  if (lo != f.lower_bounds.end() && hi != f.upper_bounds.end() && lo->second == hi->second) {
    return lo->second;
  }
  return {};
}

// Whether `path` may lie within the delete file's file_path bounds (a truncated lower bound is a
// prefix, below the value; a truncated upper bound was rounded up: both stay bounds).
bool PathWithinBounds(const DataFile& f, const std::string& path) {
  auto lo = f.lower_bounds.find(kDeleteFilePathFieldId);
  if (lo != f.lower_bounds.end() && path < lo->second) return false;
  auto hi = f.upper_bounds.find(kDeleteFilePathFieldId);
  if (hi != f.upper_bounds.end() && path > hi->second) return false;
  return true;
}

}  // namespace

void DeleteIndex::Add(const ManifestEntry& entry) {
  const DataFile& f = entry.file;
  Indexed d{entry.sequence_number.value_or(0), f};
  ++count_;
  if (f.content == FileContent::kEqualityDeletes) {
    if (f.partition.empty()) {
      equality_global_.push_back(std::move(d));
    } else {
      equality_by_partition_[PartitionKey(f)].push_back(std::move(d));
    }
    return;
  }
  if (f.content != FileContent::kPositionDeletes) {
    --count_;
    return;
  }
  const std::string key = PartitionKey(f);
  if (IsDeletionVector(f)) {
    dv_by_file_[key + '#' + f.referenced_data_file.value_or("")].push_back(std::move(d));
    return;
  }
  const std::string single = SingleReferencedFile(f);
  if (!single.empty()) {
    position_by_file_[key + '#' + single].push_back(std::move(d));
  } else {
    position_by_partition_[key].push_back(std::move(d));
  }
}

void DeleteIndex::Finish() {
  auto sort = [](Bucket* b) {
    std::stable_sort(b->begin(), b->end(), [](const Indexed& x, const Indexed& y) {
      return x.sequence_number < y.sequence_number;
    });
  };
  for (auto* m :
       {&position_by_partition_, &position_by_file_, &dv_by_file_, &equality_by_partition_}) {
    for (auto& [k, b] : *m) sort(&b);
  }
  sort(&equality_global_);
}

std::vector<DataFile> DeleteIndex::All() const {
  std::vector<DataFile> out;
  for (const auto* m :
       {&position_by_partition_, &position_by_file_, &dv_by_file_, &equality_by_partition_}) {
    for (const auto& [k, b] : *m) {
      for (const Indexed& d : b) out.push_back(d.file);
    }
  }
  for (const Indexed& d : equality_global_) out.push_back(d.file);
  return out;
}

std::vector<DataFile> DeleteIndex::For(const ManifestEntry& data) const {
  std::vector<DataFile> out;
  if (count_ == 0) return out;
  const int64_t seq = data.sequence_number.value_or(0);
  const std::string key = PartitionKey(data.file);
  const std::string file_key = key + '#' + data.file.file_path;
  // The files of `bucket` with sequence number >= `from`, passing `keep`.
  auto take = [&](const std::unordered_map<std::string, Bucket>& m, const std::string& k,
                  int64_t from, auto keep) {
    auto it = m.find(k);
    if (it == m.end()) return;
    const Bucket& b = it->second;
    auto first = std::lower_bound(b.begin(), b.end(), from, [](const Indexed& d, int64_t s) {
      return d.sequence_number < s;
    });
    for (; first != b.end(); ++first) {
      if (keep(first->file)) out.push_back(first->file);
    }
  };
  auto all = [](const DataFile&) { return true; };
  take(dv_by_file_, file_key, seq, all);
  if (out.empty()) {
    take(position_by_file_, file_key, seq, all);
    take(position_by_partition_, key, seq,
         [&](const DataFile& f) { return PathWithinBounds(f, data.file.file_path); });
  }
  take(equality_by_partition_, key, seq + 1, all);
  auto first = std::lower_bound(equality_global_.begin(), equality_global_.end(), seq + 1,
                                [](const Indexed& d, int64_t s) { return d.sequence_number < s; });
  for (; first != equality_global_.end(); ++first) out.push_back(first->file);
  return out;
}

}  // namespace floe::iceberg
