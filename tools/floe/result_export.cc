#include "result_export.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "floe/parquet/output_sink.h"
#include "floe/parquet/writer.h"

namespace floe::cli {
namespace {

// The Parquet writer's bytes, straight into a local file.
class FileSink final : public parquet::OutputSink {
 public:
  FileSink(std::FILE* f, std::string path) : f_(f), path_(std::move(path)) {}
  Status Write(ByteView bytes) override {
    if (std::fwrite(bytes.data(), 1, bytes.size(), f_) != bytes.size()) {
      return IOError("--output '{}': write failed: {}", path_, std::strerror(errno));
    }
    position_ += static_cast<int64_t>(bytes.size());
    return {};
  }
  int64_t position() const override { return position_; }

 private:
  std::FILE* f_;
  std::string path_;
  int64_t position_ = 0;
};

}  // namespace

struct ResultExport::State {
  std::string temp;
  std::FILE* file = nullptr;
  std::unique_ptr<FileSink> sink;
  std::unique_ptr<parquet::ParquetWriter> writer;
};

ResultExport::ResultExport(std::string path) : path_(std::move(path)) {}

ResultExport::~ResultExport() {
  if (state_ && state_->file != nullptr) {
    std::fclose(state_->file);
    std::remove(state_->temp.c_str());
  }
}

Status ResultExport::Begin(const columnar::SchemaPtr& schema) {
  if (state_) return {};
  auto s = std::make_unique<State>();
  s->temp = path_ + ".floe-tmp-" + std::to_string(getpid());
  s->file = std::fopen(s->temp.c_str(), "wb");
  if (s->file == nullptr) {
    return IOError("--output '{}' cannot be written: {}", path_, std::strerror(errno));
  }
  s->sink = std::make_unique<FileSink>(s->file, path_);
  state_ = std::move(s);
  auto writer = parquet::ParquetWriter::Open(schema, state_->sink.get());
  if (!writer) {
    return std::unexpected(
        Error{writer.error().kind, "--output '" + path_ + "': " + writer.error().message});
  }
  state_->writer = std::move(*writer);
  return {};
}

Status ResultExport::Add(const columnar::RecordBatch& batch) {
  if (batch.num_rows == 0) return {};
  FLOE_RETURN_IF_ERROR(Begin(batch.schema));
  return state_->writer->Write(batch);
}

Result<ExportedFile> ResultExport::Finish(const std::vector<columnar::Field>& fields) {
  if (!state_) {
    auto schema = std::make_shared<columnar::Schema>();
    schema->fields = fields;
    FLOE_RETURN_IF_ERROR(Begin(schema));
  }
  FLOE_ASSIGN_OR_RETURN(parquet::WrittenFile written, state_->writer->Close());
  std::FILE* f = state_->file;
  state_->file = nullptr;
  if (std::fflush(f) != 0 || fsync(fileno(f)) != 0) {
    const int err = errno;
    std::fclose(f);
    std::remove(state_->temp.c_str());
    return IOError("--output '{}': write failed: {}", path_, std::strerror(err));
  }
  std::fclose(f);
  if (std::rename(state_->temp.c_str(), path_.c_str()) != 0) {
    const int err = errno;
    std::remove(state_->temp.c_str());
    return IOError("--output '{}' cannot be written: {}", path_, std::strerror(err));
  }
  return ExportedFile{written.num_rows, written.file_size};
}

}  // namespace floe::cli
