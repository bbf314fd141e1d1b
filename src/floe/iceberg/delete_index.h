// DeleteIndex: which of a snapshot's delete files apply to each data file, by the spec's rules
// ("Scan Planning"):
//   - a position delete file: the data file's data sequence number <= the delete's, the same spec
//     and partition, the data file's path equal to the delete's referenced_data_file when set (or
//     within its file_path bounds), and no deletion vector for the data file;
//   - a deletion vector: its referenced_data_file, data sequence number <= the DV's, the same spec
//     and partition; it replaces the position delete files of that data file;
//   - an equality delete file: the data file's data sequence number < the delete's, and the same
//     spec and partition, or any data file when the delete's spec is unpartitioned (global).
// Delete files are found by partition (and by referenced file for file-scoped ones), then by
// sequence number, not by a pass over all of them per data file.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "floe/iceberg/manifest.h"

namespace floe::iceberg {

// The field ids of a position delete file's columns.
inline constexpr int32_t kDeleteFilePathFieldId = 2147483546;
inline constexpr int32_t kDeletePosFieldId = 2147483545;

class DeleteIndex {
 public:
  // A live delete file (content 1 or 2) with its data sequence number as its manifest gives it.
  void Add(const ManifestEntry& entry);
  // Called once every delete file is added, before For.
  void Finish();
  // The delete files that apply to the live data file `data`: deletion vectors first, then
  // position delete files, then equality delete files, each in sequence-number order.
  std::vector<DataFile> For(const ManifestEntry& data) const;
  // Every delete file added.
  std::vector<DataFile> All() const;
  bool empty() const { return count_ == 0; }
  size_t size() const { return count_; }

 private:
  struct Indexed {
    int64_t sequence_number = 0;
    DataFile file;
  };
  using Bucket = std::vector<Indexed>;  // ascending sequence numbers once finished

  // Position delete files of a partition whose file_path bounds span several data files.
  std::unordered_map<std::string, Bucket> position_by_partition_;
  // File-scoped position delete files (referenced_data_file set, or equal path bounds) and DVs,
  // by the data file they reference (partition key prefixed).
  std::unordered_map<std::string, Bucket> position_by_file_;
  std::unordered_map<std::string, Bucket> dv_by_file_;
  std::unordered_map<std::string, Bucket> equality_by_partition_;
  Bucket equality_global_;
  size_t count_ = 0;
};

}  // namespace floe::iceberg
