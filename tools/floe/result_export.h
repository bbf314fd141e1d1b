// ResultExport: `--output FILE --format parquet` -- a statement's rows written to a local Parquet
// file as they arrive (floe's writer, zstd, page index), instead of printed. The file appears only
// when the answer is complete: rows go to a temporary file beside it, renamed over FILE at the
// end, so a statement that fails leaves an earlier FILE as it was. One export per statement; not
// thread-safe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "floe/base/result.h"
#include "floe/columnar/column.h"

namespace floe::cli {

struct ExportedFile {
  int64_t rows = 0;
  int64_t bytes = 0;
};

class ResultExport {
 public:
  explicit ResultExport(std::string path);
  ~ResultExport();  // removes the temporary file of an unfinished export

  // Rows of the answer, in order; every batch has the output's columns.
  Status Add(const columnar::RecordBatch& batch);
  // Writes the footer and puts the file in place; `fields` name the columns when no batch came.
  Result<ExportedFile> Finish(const std::vector<columnar::Field>& fields);

 private:
  struct State;
  Status Begin(const columnar::SchemaPtr& schema);

  std::string path_;
  std::unique_ptr<State> state_;
};

}  // namespace floe::cli
