// Metadata tables: a table's own metadata as rows with Iceberg's column names (files, data_files,
// delete_files, entries, snapshots, manifests, partitions, history, refs, position_deletes), read
// from the current snapshot's manifest list and manifests (position_deletes: from its position
// delete files and deletion vectors). Bounds are rendered readably (per column, as text).
#pragma once

#include <string_view>
#include <vector>

#include "floe/base/result.h"
#include "floe/columnar/column.h"
#include "floe/iceberg/file_io.h"
#include "floe/iceberg/table.h"

namespace floe::iceberg {

bool IsMetadataTableName(std::string_view name);
// Every name IsMetadataTableName accepts (Iceberg's, plus all_data_files, all_files and
// all_manifests, which cover every snapshot rather than the current one).
std::vector<std::string_view> MetadataTableNames();

// Not-found error naming the table and the known names when `name` is not one.
Result<columnar::RecordBatch> ReadMetadataTable(const Table& table, const FileIO& io,
                                                std::string_view name);

// Column layout (all flat, so SQL and the CLI can print them):
// - files, data_files, delete_files, all_*files: content, file_path, file_format, spec_id,
//   partition ("{day=2024-01-03}"), record_count, file_size_in_bytes, column_sizes, value_counts,
//   null_value_counts, nan_value_counts, lower_bounds, upper_bounds (text maps by field id),
//   key_metadata, split_offsets, equality_ids, sort_order_id, referenced_data_file,
//   content_offset, content_size_in_bytes (delete files), then Iceberg's readable_metrics
//   flattened per top-level primitive column: "readable_metrics.<col>.column_size", value_count,
//   null_value_count, nan_value_count, lower_bound, upper_bound (bounds typed as the column).
// - entries: status, snapshot_id, sequence_number, file_sequence_number, data_file.<field>...,
//   manifest_path; deleted entries of the current snapshot's manifests included.
// - snapshots: committed_at, snapshot_id, parent_id, operation, manifest_list, summary,
//   sequence_number. history: made_current_at, snapshot_id, parent_id, is_current_ancestor.
// - manifests (all_manifests adds reference_snapshot_id), partitions, refs: Iceberg's columns.
// - position_deletes: file_path, pos, partition, spec_id, delete_file_path -- one row per deleted
//   position (the deprecated `row` column is not kept).

}  // namespace floe::iceberg
