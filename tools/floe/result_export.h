// Where `--output FILE` puts rows. OutputFile: FILE written whole or not at all -- the bytes go to
// a temporary file beside it, renamed over FILE when committed, so a statement that fails leaves
// an earlier FILE as it was; a FILE that is not a regular file (a device, a pipe, /dev/stdout) is
// written in place instead, never replaced. ResultExport: `--format parquet|arrow` -- a
// statement's rows written as they arrive, to a Parquet file (floe's writer: zstd, page index) or
// an Arrow IPC file; `arrow` without a FILE writes the IPC stream format to standard output.
// Not thread-safe.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "floe/base/result.h"
#include "floe/columnar/column.h"

namespace floe::cli {

class OutputFile {
 public:
  static Result<std::unique_ptr<OutputFile>> Open(const std::string& path);
  ~OutputFile();  // uncommitted: the temporary file is removed, FILE left as it was

  std::FILE* file() { return file_; }
  const std::string& path() const { return path_; }
  // Flushes, closes and puts the bytes in place; a write error is reported here (and FILE kept).
  Status Commit();

 private:
  OutputFile() = default;
  std::string path_;
  std::string temp_;  // empty: written in place
  std::FILE* file_ = nullptr;
};

struct ExportedFile {
  int64_t rows = 0;
  int64_t bytes = 0;
};

class ResultExport {
 public:
  // `format`: "parquet" or "arrow"; `path` empty: standard output (arrow only).
  ResultExport(std::string path, std::string format);
  ~ResultExport();

  // Rows of the answer, in order; every batch has the output's columns.
  Status Add(const columnar::RecordBatch& batch);
  // Writes the footer and puts the file in place; `fields` name the columns when no batch came.
  Result<ExportedFile> Finish(const std::vector<columnar::Field>& fields);

 private:
  struct State;
  Status Begin(const columnar::SchemaPtr& schema);

  std::string path_;
  std::string format_;
  std::unique_ptr<State> state_;
};

}  // namespace floe::cli
