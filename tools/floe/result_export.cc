#include "result_export.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "floe/columnar/arrow_ipc.h"
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
  std::unique_ptr<OutputFile> out;  // null: standard output
  std::unique_ptr<FileSink> sink;
  std::unique_ptr<parquet::ParquetWriter> writer;
  std::unique_ptr<columnar::ArrowIpcWriter> arrow;
};

ResultExport::ResultExport(std::string path, std::string format)
    : path_(std::move(path)), format_(std::move(format)) {}

ResultExport::~ResultExport() = default;

Status ResultExport::Begin(const columnar::SchemaPtr& schema) {
  if (state_) return {};
  auto s = std::make_unique<State>();
  if (!path_.empty()) {
    FLOE_ASSIGN_OR_RETURN(s->out, OutputFile::Open(path_));
  }
  state_ = std::move(s);
  const std::string where = path_.empty() ? "standard output" : "--output '" + path_ + "'";
  auto failed = [&where](const Error& e) {
    return std::unexpected(Error{e.kind, where + ": " + e.message});
  };
  if (format_ == "arrow") {
    std::FILE* file = state_->out ? state_->out->file() : stdout;
    auto sink = [file, path = path_](ByteView bytes) -> Status {
      if (std::fwrite(bytes.data(), 1, bytes.size(), file) != bytes.size()) {
        if (path.empty()) {
          return IOError("writing the rows to standard output failed: {}", std::strerror(errno));
        }
        return IOError("--output '{}': write failed: {}", path, std::strerror(errno));
      }
      return {};
    };
    auto writer = columnar::ArrowIpcWriter::Open(
        schema, path_.empty() ? columnar::IpcFormat::kStream : columnar::IpcFormat::kFile, sink);
    if (!writer) return failed(writer.error());
    state_->arrow = std::move(*writer);
    return {};
  }
  state_->sink = std::make_unique<FileSink>(state_->out.get());
  auto writer = parquet::ParquetWriter::Open(schema, state_->sink.get());
  if (!writer) return failed(writer.error());
  state_->writer = std::move(*writer);
  return {};
}

Status ResultExport::Add(const columnar::RecordBatch& batch) {
  if (batch.num_rows == 0) return {};
  FLOE_RETURN_IF_ERROR(Begin(batch.schema));
  if (state_->arrow) return state_->arrow->Write(batch);
  return state_->writer->Write(batch);
}

Result<ExportedFile> ResultExport::Finish(const std::vector<columnar::Field>& fields) {
  if (!state_) {
    auto schema = std::make_shared<columnar::Schema>();
    schema->fields = fields;
    FLOE_RETURN_IF_ERROR(Begin(schema));
  }
  ExportedFile exported;
  if (state_->arrow) {
    FLOE_RETURN_IF_ERROR(state_->arrow->Close());
    exported = ExportedFile{state_->arrow->rows_written(), state_->arrow->bytes_written()};
  } else {
    FLOE_ASSIGN_OR_RETURN(parquet::WrittenFile written, state_->writer->Close());
    exported = ExportedFile{written.num_rows, written.file_size};
  }
  if (!state_->out) {
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
      return IOError("writing the rows to standard output failed: {}", std::strerror(errno));
    }
    return exported;
  }
  FLOE_RETURN_IF_ERROR(state_->out->Commit());
  return exported;
}

}  // namespace floe::cli
