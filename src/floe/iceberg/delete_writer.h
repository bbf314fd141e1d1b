// Writing delete files: position delete files (Parquet: file_path 2147483546, pos 2147483545,
// sorted by both), deletion vectors (one deletion-vector-v1 blob per data file, in one Puffin
// file) and equality delete files (Parquet: the equality columns of the deleted rows). Each is
// written at the location given and returned as the DataFile a row-delta commit lists
// (commit.h: SnapshotUpdate::added_deletes), with the metrics readers prune by.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "floe/base/result.h"
#include "floe/columnar/column.h"
#include "floe/iceberg/file_io.h"
#include "floe/iceberg/literal.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/schema.h"

namespace floe::iceberg {

// (data file path, row position) pairs in any order; duplicates are written once. The file's
// referenced_data_file is set when every pair names one data file.
Result<DataFile> WritePositionDeleteFile(const FileIO& io, const std::string& location,
                                         std::vector<std::pair<std::string, int64_t>> deletes,
                                         std::vector<Literal> partition);

// One deletion vector per data file (its path -> positions), in one Puffin file at `location`;
// `partitions` gives each data file's partition (the DV's own).
Result<std::vector<DataFile>> WriteDeletionVectors(
    const FileIO& io, const std::string& location,
    const std::map<std::string, std::vector<int64_t>>& positions,
    const std::map<std::string, std::vector<Literal>>& partitions);

// An equality delete file of `rows` (columns in `equality_ids` order, matched to the table
// schema's fields of those ids).
Result<DataFile> WriteEqualityDeleteFile(const FileIO& io, const std::string& location,
                                         const Schema& table_schema,
                                         const std::vector<int32_t>& equality_ids,
                                         const columnar::RecordBatch& rows,
                                         std::vector<Literal> partition);

}  // namespace floe::iceberg
