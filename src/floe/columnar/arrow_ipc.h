// ArrowIpcWriter: record batches as Arrow IPC -- the file format (`ARROW1`, the messages, a footer
// indexing them; pyarrow.ipc.open_file, polars.read_ipc, DuckDB's read_arrow) or the stream format
// (the messages alone, for a pipe). Columns are written as they are laid out in memory, 8-byte
// aligned, uncompressed, without dictionaries; types map as the C Data Interface's
// (arrow_c_data.h). Bytes go to a sink as they are produced: a batch costs its own metadata, never
// a copy of its buffers. Not thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "floe/base/buffer.h"
#include "floe/base/result.h"
#include "floe/columnar/column.h"

namespace floe::columnar {

enum class IpcFormat { kFile, kStream };

class ArrowIpcWriter {
 public:
  using Sink = std::function<Status(ByteView)>;

  // Checks that every field has an Arrow IPC type. Nothing is written until the first Write or
  // Close, which begin with the file's magic (kFile) and the Schema message; the fields' names
  // and nullability are the schema's.
  static Result<std::unique_ptr<ArrowIpcWriter>> Open(SchemaPtr schema, IpcFormat format,
                                                      Sink sink);
  ~ArrowIpcWriter();

  // One RecordBatch message; the batch's columns must have the schema's types.
  Status Write(const RecordBatch& batch);
  // The end-of-stream marker and, for kFile, the footer and the closing magic. Once.
  Status Close();

  int64_t bytes_written() const { return position_; }
  int64_t rows_written() const { return rows_; }

 private:
  struct Block {  // where a record batch's message sits in the file, for the footer
    int64_t offset;
    int32_t metadata_length;
    int64_t body_length;
  };
  ArrowIpcWriter(SchemaPtr schema, IpcFormat format, Sink sink);
  Status Start();  // the magic and the Schema message, once
  Status Put(ByteView bytes);
  // The 0xFFFFFFFF marker, the metadata's padded length and the flatbuffer.
  Status PutMessage(const std::vector<uint8_t>& flatbuffer);

  SchemaPtr schema_;
  IpcFormat format_;
  Sink sink_;
  int64_t position_ = 0;
  int64_t rows_ = 0;
  std::vector<Block> blocks_;
  bool started_ = false;
  bool closed_ = false;
};

}  // namespace floe::columnar
