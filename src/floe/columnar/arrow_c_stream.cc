#include "floe/columnar/arrow_c_stream.h"

#include <cerrno>
#include <string>

namespace floe::columnar {
namespace {

struct ExportedStream {
  SchemaPtr schema;
  BatchSource next;
  std::string last_error;
};

ExportedStream* Private(ArrowArrayStream* s) {
  return static_cast<ExportedStream*>(s->private_data);
}

int GetSchema(ArrowArrayStream* s, ArrowSchema* out) {
  ExportedStream* p = Private(s);
  if (auto st = ExportSchema(*p->schema, out); !st) {
    p->last_error = st.error().message;
    return EINVAL;
  }
  return 0;
}

int GetNext(ArrowArrayStream* s, ArrowArray* out) {
  ExportedStream* p = Private(s);
  Result<std::optional<RecordBatch>> batch = p->next ? p->next() : std::optional<RecordBatch>();
  if (!batch) {
    p->last_error = batch.error().message;
    p->next = nullptr;
    return EIO;
  }
  if (!*batch) {  // the end: a released array
    *out = ArrowArray{};
    out->release = nullptr;
    return 0;
  }
  if (auto st = ExportBatch(**batch, out); !st) {
    p->last_error = st.error().message;
    return EIO;
  }
  return 0;
}

const char* GetLastError(ArrowArrayStream* s) {
  ExportedStream* p = Private(s);
  return p->last_error.empty() ? nullptr : p->last_error.c_str();
}

void Release(ArrowArrayStream* s) {
  if (s == nullptr || s->release == nullptr) return;
  delete Private(s);
  s->release = nullptr;
}

}  // namespace

Status ExportStream(SchemaPtr schema, BatchSource next, ArrowArrayStream* out) {
  *out = ArrowArrayStream{};
  out->get_schema = GetSchema;
  out->get_next = GetNext;
  out->get_last_error = GetLastError;
  out->release = Release;
  out->private_data = new ExportedStream{std::move(schema), std::move(next), {}};
  return {};
}

struct ImportedStream::State {
  ArrowArrayStream stream{};
  ArrowSchema arrow_schema{};
  SchemaPtr schema;
  State() = default;
  State(const State&) = delete;
  State& operator=(const State&) = delete;
  ~State() {
    if (arrow_schema.release != nullptr) arrow_schema.release(&arrow_schema);
    if (stream.release != nullptr) stream.release(&stream);
  }
  // The producer's message, on one line: its first, without what pyarrow appends after
  // ". Detail:" (a Python traceback).
  std::string ProducerError(int code) {
    const char* m = stream.get_last_error != nullptr ? stream.get_last_error(&stream) : nullptr;
    if (m == nullptr) return fmt::format("error code {}", code);
    std::string text(m);
    text = text.substr(0, text.find('\n'));
    if (size_t detail = text.find(". Detail:"); detail != std::string::npos) {
      text = text.substr(0, detail);
    }
    return text;
  }
};

Result<ImportedStream> ImportedStream::Take(ArrowArrayStream* stream) {
  auto state = std::make_shared<State>();
  state->stream = *stream;
  stream->release = nullptr;
  if (state->stream.release == nullptr) {
    return InvalidInput("the Arrow stream was already released");
  }
  if (int rc = state->stream.get_schema(&state->stream, &state->arrow_schema); rc != 0) {
    state->arrow_schema.release = nullptr;
    return InvalidInput("the Arrow stream gives no schema: {}", state->ProducerError(rc));
  }
  FLOE_ASSIGN_OR_RETURN(Schema schema, ImportSchema(state->arrow_schema));
  state->schema = std::make_shared<const Schema>(std::move(schema));
  return ImportedStream(std::move(state));
}

const SchemaPtr& ImportedStream::schema() const { return state_->schema; }

Result<std::optional<RecordBatch>> ImportedStream::Next() {
  ArrowArray array{};
  if (int rc = state_->stream.get_next(&state_->stream, &array); rc != 0) {
    return InvalidInput("reading the Arrow stream: {}", state_->ProducerError(rc));
  }
  if (array.release == nullptr) return std::optional<RecordBatch>();
  FLOE_ASSIGN_OR_RETURN(RecordBatch batch,
                        ImportBatch(&array, state_->arrow_schema, state_->schema));
  return std::optional<RecordBatch>(std::move(batch));
}

}  // namespace floe::columnar
