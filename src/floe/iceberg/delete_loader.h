// DeleteLoader: the delete files of one scan, each fetched once however many of its tasks need it
// (keyed by path and length), made into what the read applies:
//   - a data file's row mask: the positions its position delete files (Parquet: file_path, pos)
//     and its deletion vector (a blob of a Puffin file, fetched by its exact offset and length,
//     with the scan's other DVs of that Puffin file in the same requests) delete, as sorted row
//     ranges for the Parquet reader's row selection -- pages whose rows are all deleted are neither
//     fetched nor decoded;
//   - equality deletes: per delete file, the set of its rows' values of its equality columns,
//     which a data file's rows are probed against (values conformed to the table schema's types;
//     NULL equals NULL, NaN equals NaN, -0.0 is not 0.0, as Iceberg's Java readers compare).
// What the delete files cost goes to the scan's metrics (delete files opened, their requests and
// bytes, within the totals too). Thread safe: tasks read concurrently ask at once.
#pragma once

#include <cstdint>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "floe/base/result.h"
#include "floe/base/scan_metrics.h"
#include "floe/columnar/column.h"
#include "floe/iceberg/file_io.h"
#include "floe/iceberg/scan.h"
#include "floe/iceberg/schema.h"
#include "floe/parquet/read_file.h"
#include "floe/parquet/read_plan.h"

namespace floe::iceberg {

// The rows of one equality delete file: keys over its equality columns.
class EqualityDeleteSet {
 public:
  EqualityDeleteSet(std::vector<int32_t> ids, Schema columns);
  // The equality columns (top-level fields of the table schema, in equality_ids order).
  const std::vector<int32_t>& ids() const { return ids_; }
  const Schema& columns() const { return columns_; }
  // Adds every row of `batch` (conformed to columns()).
  Status AddRows(const columnar::RecordBatch& batch);
  // One byte per row of `batch` (conformed to columns()): 1 where the row is deleted.
  Result<std::vector<uint8_t>> Deleted(const columnar::RecordBatch& batch) const;
  size_t size() const { return keys_.size(); }

 private:
  std::vector<int32_t> ids_;
  Schema columns_;
  std::unordered_set<std::string> keys_;
};

class DeleteLoader {
 public:
  // `tasks` are the scan's (their deletion vectors are fetched together per Puffin file);
  // `table_schema` types the equality columns. Both must outlive the loader.
  DeleteLoader(const FileIO& io, const std::vector<FileScanTask>& tasks, const Schema& table_schema,
               ScanMetrics* metrics);

  // The positions of `task`'s data file that its position deletes and deletion vector delete:
  // sorted, disjoint row ranges within the file's rows.
  Result<std::vector<parquet::RowRange>> PositionMask(const FileScanTask& task);
  // `task`'s equality delete files, loaded.
  Result<std::vector<std::shared_ptr<const EqualityDeleteSet>>> EqualityDeletes(
      const FileScanTask& task);

  // Every (data file path, position) of one of the scan's position delete files or deletion
  // vectors, ordered by path and position (the position_deletes metadata table).
  Result<std::vector<std::pair<std::string, int64_t>>> AllPositions(const DataFile& d);

  // Loads delete file `d` (of one of the scan's tasks; a deletion vector: every vector of its
  // Puffin file) ahead of the tasks that need it, so a scan can start its delete files with its
  // data files rather than after them. What it loads is what PositionMask, EqualityDeletes and
  // AllPositions then take from the cache; an error is theirs to report.
  void Prefetch(const DataFile& d);

  // Whether `task` has deletes of each kind.
  static bool HasPositionDeletes(const FileScanTask& task);
  static bool HasEqualityDeletes(const FileScanTask& task);

 private:
  using Positions = std::unordered_map<std::string, std::vector<int64_t>>;  // data file -> sorted
  template <typename T>
  using Shared = std::shared_future<Result<std::shared_ptr<const T>>>;

  // Loads once per key: the first caller runs `load`, the others wait for it.
  template <typename T, typename Load>
  Result<std::shared_ptr<const T>> Once(std::map<std::string, Shared<T>>* cache,
                                        const std::string& key, Load load);

  Result<std::shared_ptr<const Positions>> LoadPositionFile(const DataFile& f);
  // A Parquet delete file read whole with `o`, counted; errors name it as `what`.
  Result<parquet::FileContents> ReadDeleteFile(const DataFile& f, const parquet::ReadFileOptions& o,
                                               std::string_view what);
  // Every deletion vector of the scan in `puffin_path`, by the data file each references.
  Result<std::shared_ptr<const Positions>> LoadPuffin(const std::string& puffin_path);
  Result<std::shared_ptr<const EqualityDeleteSet>> LoadEqualityFile(const DataFile& f);
  void Count(int64_t requests, int64_t heads, int64_t bytes);

  const FileIO& io_;
  const Schema& table_schema_;
  ScanMetrics* metrics_;
  // The scan's deletion vectors by Puffin file.
  std::map<std::string, std::vector<const DataFile*>> dvs_by_puffin_;
  std::mutex mu_;
  std::map<std::string, Shared<Positions>> position_files_;
  std::map<std::string, Shared<Positions>> puffins_;
  std::map<std::string, Shared<EqualityDeleteSet>> equality_files_;
};

}  // namespace floe::iceberg
