// SpillDirectory and SpillFile: where operators over their memory budget (memory_budget.h) put
// rows -- SET temp_directory, or a fresh directory under $TMPDIR (else /tmp) -- and the files
// they write there: record batches in floe's own columnar layout (each buffer as it is in
// memory, no Value per row), read back in order, any number of times. A file is unlinked as soon
// as it is created, so it vanishes when closed, on error and on a crash; the directory is made on
// the first file and removed with the SpillDirectory. Write failures (a full disk, a directory
// that cannot be written) are errors naming the path. A SpillDirectory is thread-safe; a
// SpillFile is not.
#pragma once

#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/result.h"
#include "floe/base/scan_metrics.h"
#include "floe/columnar/column.h"

namespace floe::exec {

class SpillDirectory {
 public:
  // `configured` empty: a fresh directory under $TMPDIR, else /tmp.
  explicit SpillDirectory(std::string configured = {});
  ~SpillDirectory();
  SpillDirectory(const SpillDirectory&) = delete;
  SpillDirectory& operator=(const SpillDirectory&) = delete;

  // Opens a new file for `what` ("join-build", "sort-run", ...), making the directory first.
  Result<std::FILE*> Open(std::string_view what, std::string* path);

  // What was spilled: bytes written and files made.
  MetricCounter bytes_written;
  MetricCounter files;

 private:
  std::mutex mu_;
  std::string configured_;
  std::string path_;  // made on the first Open
  int64_t next_ = 0;
};

class SpillFile {
 public:
  static Result<std::unique_ptr<SpillFile>> Create(SpillDirectory& dir, std::string_view what);
  ~SpillFile();
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  // Appends a batch; a null column (a join's absent slot) stays null. Not after Rewind.
  Status Append(const columnar::RecordBatch& batch);
  // Reading starts over from the first batch.
  Status Rewind();
  // The next batch, its columns of `types` (the schema is left null); nullopt at the end.
  Result<std::optional<columnar::RecordBatch>> Next(const std::vector<columnar::DataType>& types);

  int64_t bytes() const { return bytes_; }
  int64_t rows() const { return rows_; }
  const std::string& path() const { return path_; }

 private:
  SpillFile(SpillDirectory* dir, std::FILE* f, std::string path)
      : dir_(dir), f_(f), path_(std::move(path)) {}
  Status Put(const void* data, size_t n);
  Status Get(void* data, size_t n);
  Status PutColumn(const columnar::Column& c);
  Result<columnar::ColumnPtr> GetColumn(const columnar::DataType& type);

  SpillDirectory* dir_;
  std::FILE* f_;
  std::string path_;
  int64_t bytes_ = 0;
  int64_t rows_ = 0;
  bool reading_ = false;
};

}  // namespace floe::exec
