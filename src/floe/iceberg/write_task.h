// Write tasks and their commit: the second and third steps of a planned write (write_plan.h).
// RunWriteTask turns rows into data files of the plan's table -- laid out by its spec, sort order
// and layout, with the full metrics a manifest records -- anywhere that reaches the table's store,
// and says what it wrote as a WriteTaskResult: bytes that cross processes (Serialize), holding the
// files as manifest entries (Iceberg's own Avro encoding of a data file) and what a manifest has no
// field for (an OTree file's cubes). CommitWrite, on the driver, adds every task's files in one
// append; a write that cannot commit removes the files its tasks wrote.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/result.h"
#include "floe/catalog/catalog.h"
#include "floe/columnar/arrow_c_stream.h"
#include "floe/iceberg/file_io.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/table.h"
#include "floe/iceberg/write_plan.h"

namespace floe::iceberg {

struct WriteTaskResult {
  std::string write_id;
  int64_t task = 0;
  int64_t rows = 0;
  std::vector<DataFile> files;

  std::string Serialize(const WritePlan& plan) const;
  // Bytes of any shape give a result of this plan's write or an invalid-input error naming what
  // is wrong (another write's result, a file outside the table, ...).
  static Result<WriteTaskResult> Deserialize(const WritePlan& plan, std::string_view bytes);
};

// Writes the rows `next` yields (any schema that conforms to the plan's) as task `task` of the
// plan's write: files named "<task:05d>-<n:05d>-<write id>.parquet", so tasks never collide. An
// OTree plan must have its layout fixed (FixPlanLayout). A task that fails removes what it wrote.
Result<WriteTaskResult> RunWriteTask(const FileIO& io, const WritePlan& plan, int64_t task,
                                     const columnar::BatchSource& next);

struct CommittedWrite {
  Table table;
  int64_t rows = 0;
  int64_t data_files = 0;
  int64_t bytes = 0;
};

// Adds every task's files to the table in one append (a snapshot with the summary key
// floe.write-tasks). Refused, with the files removed: results of another write or one task twice;
// a table whose schema or partition spec changed since the plan (its files would not fit); an
// OTree plan that made a new revision when another write has made one since. Appends committed
// since the plan do not conflict. No results, or results of no rows: nothing is committed.
Result<CommittedWrite> CommitWrite(catalog::Catalog& catalog, const FileIO& io,
                                   const WritePlan& plan,
                                   const std::vector<WriteTaskResult>& results);

// Removes the files of a write that will not be committed (each error after the first is
// ignored; the first is returned once all were tried).
Status AbortWrite(const FileIO& io, const std::vector<WriteTaskResult>& results);

}  // namespace floe::iceberg
