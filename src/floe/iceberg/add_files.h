// add_files: registers Parquet files that already exist -- written by any engine, anywhere the
// warehouse's FileIO reaches -- as data files of a table without rewriting or moving them, as
// Iceberg's add_files procedure does. Each file costs one footer GET (its length comes from the
// listing, never a HEAD); its DataFile carries the footer's counts, sizes, split offsets and
// bounds cut to the table's metrics mode. Every file is checked (schema, partition, duplicates)
// before anything is written; then one append commits them all, or nothing changes.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "floe/base/result.h"
#include "floe/catalog/catalog.h"
#include "floe/iceberg/file_io.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/table.h"
#include "floe/parquet/file_reader.h"

namespace floe::iceberg {

// The table property Iceberg readers use to match the columns of files without field ids.
inline constexpr std::string_view kNameMappingProperty = "schema.name-mapping.default";

struct AddFilesOptions {
  // Only files whose partition has these values are added: a partition field (by its name or its
  // source column's) -> the value as text ("eu", "2024-01-03", "42"). Empty: every file.
  std::vector<std::pair<std::string, std::string>> partition_filter;
  // A file the table's current snapshot already holds, or one listed twice, is an error.
  bool check_duplicate_files = true;
};

struct AddFilesResult {
  Table table;                  // after the commit (as loaded when nothing was committed)
  std::vector<DataFile> files;  // what was added, in location order
  int64_t rows = 0;
  int64_t bytes = 0;
  int64_t changed_partitions = 0;  // distinct partition tuples among the added files
  std::optional<int64_t> snapshot_id;
  bool name_mapping_set = false;  // this commit set schema.name-mapping.default
  // Requests spent reading footers (the commit's own are not counted).
  int64_t footer_requests = 0;
};

// Adds the Parquet files at `locations` ("/abs/path", "file:///...", "s3://bucket/key"; a folder
// means every .parquet file under it, recursively, hidden ones -- a segment starting with '.' or
// '_' -- left out) to table `id` in one append. Errors, each naming the file and leaving the table
// as it was: a location that does not exist or holds no .parquet file; a file that is not Parquet
// or cannot be read; a column the table lacks, a required table column the file lacks, a type that
// is neither the table's nor one it may be promoted from; on a partitioned table, a file whose
// partition value neither a `col=value` directory of its path nor its column bounds tell; a
// duplicate (unless allowed). When some file carries no field ids and the table has no name
// mapping, the same commit sets one (Spark's add_files does too) so other engines read them.
Result<AddFilesResult> AddFiles(catalog::Catalog& catalog, const FileIO& io,
                                const catalog::TableIdentifier& id,
                                const std::vector<std::string>& locations,
                                const AddFilesOptions& options = {});

// The DataFile of one Parquet file of `file_length` bytes at `location` whose footer `reader`
// holds, checked against and matched to table metadata `m` (current schema, default spec,
// metrics mode). `has_field_ids` says whether the file matched by ids (else by names).
struct FooterDataFile {
  DataFile file;
  bool has_field_ids = false;
  // What the footer says of each column outside lists and maps (by table field id), before the
  // metrics mode cuts it: how a partition value is told from the file's values.
  struct Values {
    std::optional<Literal> lower, upper;  // both absent when a chunk gave none
    bool exact = false;                   // neither bound was truncated
    std::optional<int64_t> nulls, nans;   // nullopt: some chunk did not say
  };
  std::map<int32_t, Values> values;
};
Result<FooterDataFile> DataFileFromFooter(const TableMetadata& m, const std::string& table_name,
                                          const std::string& location, uint64_t file_length,
                                          const parquet::FileReader& reader);

// Iceberg's name-mapping JSON of a schema: every field's id and name, nested ones included
// (list elements as "element", map parts as "key" and "value").
std::string NameMappingJson(const Schema& schema);

}  // namespace floe::iceberg
