// Streams of record batches through the Arrow C Stream Interface, both ways: a floe result handed
// to pyarrow, Polars or DuckDB as an ArrowArrayStream (each batch exported without a copy when the
// consumer asks for it), and a producer's stream (a pyarrow Table or RecordBatchReader, a Polars
// or pandas DataFrame) read as floe batches. The struct is the interface's own (ABI-stable).
#pragma once

#include <functional>
#include <memory>
#include <optional>

#include "floe/base/result.h"
#include "floe/columnar/arrow_c_data.h"
#include "floe/columnar/column.h"

extern "C" {
#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE

struct ArrowArrayStream {
  int (*get_schema)(struct ArrowArrayStream*, struct ArrowSchema* out);
  int (*get_next)(struct ArrowArrayStream*, struct ArrowArray* out);
  const char* (*get_last_error)(struct ArrowArrayStream*);
  void (*release)(struct ArrowArrayStream*);
  void* private_data;
};

#endif  // ARROW_C_STREAM_INTERFACE
}

namespace floe::columnar {

// The next batch of a stream, or nullopt at its end. Called by the consumer's thread, one call at
// a time; an error ends the stream (the consumer sees EIO and the error's message).
using BatchSource = std::function<Result<std::optional<RecordBatch>>()>;

// Fills `out` with a stream of `schema`'s batches drawn from `next` as the consumer asks. `next`
// is destroyed when the consumer releases the stream.
Status ExportStream(SchemaPtr schema, BatchSource next, ArrowArrayStream* out);

// A producer's stream, taken over (released when this goes).
class ImportedStream {
 public:
  static Result<ImportedStream> Take(ArrowArrayStream* stream);
  const SchemaPtr& schema() const;
  // The next batch, or nullopt at the end. An error names the producer's message.
  Result<std::optional<RecordBatch>> Next();

 private:
  struct State;
  explicit ImportedStream(std::shared_ptr<State> state) : state_(std::move(state)) {}
  std::shared_ptr<State> state_;
};

}  // namespace floe::columnar
