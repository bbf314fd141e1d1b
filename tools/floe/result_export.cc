#include "result_export.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "floe/parquet/output_sink.h"
#include "floe/parquet/writer.h"

namespace floe::cli {
namespace {

// The Parquet writer's bytes, straight into the output file.
class FileSink final : public parquet::OutputSink {
 public:
  explicit FileSink(OutputFile* out) : out_(out) {}
  Status Write(ByteView bytes) override {
    if (std::fwrite(bytes.data(), 1, bytes.size(), out_->file()) != bytes.size()) {
      return IOError("--output '{}': write failed: {}", out_->path(), std::strerror(errno));
    }
    position_ += static_cast<int64_t>(bytes.size());
    return {};
  }
  int64_t position() const override { return position_; }

 private:
  OutputFile* out_;
  int64_t position_ = 0;
};

}  // namespace

Result<std::unique_ptr<OutputFile>> OutputFile::Open(const std::string& path) {
  std::unique_ptr<OutputFile> f(new OutputFile());
  f->path_ = path;
  struct stat st {};
  const bool in_place = ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
  if (!in_place) f->temp_ = path + ".floe-tmp-" + std::to_string(getpid());
  f->file_ = std::fopen(in_place ? path.c_str() : f->temp_.c_str(), "wb");
  if (f->file_ == nullptr) {
    return IOError("--output '{}' cannot be written: {}", path, std::strerror(errno));
  }
  return f;
}

OutputFile::~OutputFile() {
  if (file_ == nullptr) return;
  std::fclose(file_);
  if (!temp_.empty()) std::remove(temp_.c_str());
}

Status OutputFile::Commit() {
  std::FILE* f = file_;
  file_ = nullptr;
  if (f == nullptr) return {};
  const bool written = std::fflush(f) == 0 && !std::ferror(f);
  const int err = errno;
  const bool closed = std::fclose(f) == 0;
  if (!written || !closed) {
    if (!temp_.empty()) std::remove(temp_.c_str());
    return IOError("--output '{}': write failed: {}", path_, std::strerror(written ? errno : err));
  }
  if (!temp_.empty() && std::rename(temp_.c_str(), path_.c_str()) != 0) {
    const int rename_err = errno;
    std::remove(temp_.c_str());
    return IOError("--output '{}' cannot be written: {}", path_, std::strerror(rename_err));
  }
  return {};
}

struct ResultExport::State {
  std::unique_ptr<OutputFile> out;
  std::unique_ptr<FileSink> sink;
  std::unique_ptr<parquet::ParquetWriter> writer;
};

ResultExport::ResultExport(std::string path) : path_(std::move(path)) {}

ResultExport::~ResultExport() = default;

Status ResultExport::Begin(const columnar::SchemaPtr& schema) {
  if (state_) return {};
  auto s = std::make_unique<State>();
  FLOE_ASSIGN_OR_RETURN(s->out, OutputFile::Open(path_));
  s->sink = std::make_unique<FileSink>(s->out.get());
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
  FLOE_RETURN_IF_ERROR(state_->out->Commit());
  return ExportedFile{written.num_rows, written.file_size};
}

}  // namespace floe::cli
