#include "floe/exec/spill_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

namespace floe::exec {

namespace {

constexpr uint32_t kBatchMagic = 0x464c5350;  // "FLSP"

}  // namespace

SpillDirectory::SpillDirectory(std::string configured) : configured_(std::move(configured)) {}

SpillDirectory::~SpillDirectory() {
  if (path_.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);  // best effort: its files are already unlinked
}

Result<std::FILE*> SpillDirectory::Open(std::string_view what, std::string* path) {
  std::lock_guard lock(mu_);
  if (path_.empty()) {
    std::string parent = configured_;
    if (parent.empty()) {
      const char* tmp = std::getenv("TMPDIR");
      parent = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
    } else {
      std::error_code ec;
      std::filesystem::create_directories(parent, ec);
      if (ec) {
        return IOError("temp_directory '{}': cannot create it: {}", parent, ec.message());
      }
    }
    std::string templ = parent + "/floe-spill-XXXXXX";
    if (mkdtemp(templ.data()) == nullptr) {
      return IOError("temp_directory '{}': cannot make a spill directory in it: {}", parent,
                     std::strerror(errno));
    }
    path_ = templ;
  }
  *path = fmt::format("{}/{}-{}.spill", path_, what, next_++);
  std::FILE* f = std::fopen(path->c_str(), "w+b");
  if (f == nullptr) {
    return IOError("spill file '{}': cannot create it: {}", *path, std::strerror(errno));
  }
  // Gone from the directory at once: the open file lives until it is closed, whatever happens.
  ::unlink(path->c_str());
  ++files;
  return f;
}

Result<std::unique_ptr<SpillFile>> SpillFile::Create(SpillDirectory& dir, std::string_view what) {
  std::string path;
  FLOE_ASSIGN_OR_RETURN(std::FILE * f, dir.Open(what, &path));
  return std::unique_ptr<SpillFile>(new SpillFile(&dir, f, std::move(path)));
}

SpillFile::~SpillFile() {
  if (f_ != nullptr) std::fclose(f_);
}

Status SpillFile::Put(const void* data, size_t n) {
  if (n == 0) return {};
  if (std::fwrite(data, 1, n, f_) != n) {
    const int err = errno;
    return IOError("spill file '{}': write failed: {}", path_,
                   err != 0 ? std::strerror(err) : "short write");
  }
  bytes_ += static_cast<int64_t>(n);
  dir_->bytes_written += static_cast<int64_t>(n);
  return {};
}

Status SpillFile::Get(void* data, size_t n) {
  if (n == 0) return {};
  if (std::fread(data, 1, n, f_) != n) {
    return IOError("spill file '{}': read failed: {}", path_,
                   std::ferror(f_) ? std::strerror(errno) : "unexpected end of file");
  }
  return {};
}

Status SpillFile::PutColumn(const columnar::Column& c) {
  const int64_t head[2] = {c.length, c.null_count};
  FLOE_RETURN_IF_ERROR(Put(head, sizeof(head)));
  for (const Buffer* b : {&c.validity, &c.values, &c.offsets}) {
    const uint64_t n = b->size();
    FLOE_RETURN_IF_ERROR(Put(&n, sizeof(n)));
    FLOE_RETURN_IF_ERROR(Put(b->data(), b->size()));
  }
  const auto children = static_cast<uint32_t>(c.children.size());
  FLOE_RETURN_IF_ERROR(Put(&children, sizeof(children)));
  for (const auto& child : c.children) FLOE_RETURN_IF_ERROR(PutColumn(*child));
  return {};
}

Status SpillFile::Append(const columnar::RecordBatch& batch) {
  if (reading_) return Internal("spill file '{}': appended to after reading", path_);
  const uint32_t magic = kBatchMagic;
  const auto ncols = static_cast<uint32_t>(batch.columns.size());
  FLOE_RETURN_IF_ERROR(Put(&magic, sizeof(magic)));
  FLOE_RETURN_IF_ERROR(Put(&batch.num_rows, sizeof(batch.num_rows)));
  FLOE_RETURN_IF_ERROR(Put(&ncols, sizeof(ncols)));
  for (const auto& c : batch.columns) {
    const uint8_t present = c ? 1 : 0;
    FLOE_RETURN_IF_ERROR(Put(&present, 1));
    if (c) FLOE_RETURN_IF_ERROR(PutColumn(*c));
  }
  rows_ += batch.num_rows;
  return {};
}

Status SpillFile::Rewind() {
  if (std::fflush(f_) != 0) {
    return IOError("spill file '{}': write failed: {}", path_, std::strerror(errno));
  }
  if (std::fseek(f_, 0, SEEK_SET) != 0) {
    return IOError("spill file '{}': seek failed: {}", path_, std::strerror(errno));
  }
  reading_ = true;
  return {};
}

Result<columnar::ColumnPtr> SpillFile::GetColumn(const columnar::DataType& type) {
  auto c = std::make_shared<columnar::Column>();
  c->type = type;
  int64_t head[2];
  FLOE_RETURN_IF_ERROR(Get(head, sizeof(head)));
  c->length = head[0];
  c->null_count = head[1];
  for (Buffer* b : {&c->validity, &c->values, &c->offsets}) {
    uint64_t n = 0;
    FLOE_RETURN_IF_ERROR(Get(&n, sizeof(n)));
    if (n > (uint64_t{1} << 40)) return Corrupt("spill file '{}': a buffer of {} bytes", path_, n);
    ByteVector bytes(n);
    FLOE_RETURN_IF_ERROR(Get(bytes.data(), n));
    *b = Buffer(std::move(bytes));
  }
  uint32_t children = 0;
  FLOE_RETURN_IF_ERROR(Get(&children, sizeof(children)));
  for (uint32_t i = 0; i < children; ++i) {
    // A list's or map's child is its one field; a struct's, its i-th.
    const columnar::DataType& t =
        i < type.children.size() ? type.children[i].type : type.children.at(0).type;
    FLOE_ASSIGN_OR_RETURN(columnar::ColumnPtr child, GetColumn(t));
    c->children.push_back(std::move(child));
  }
  return columnar::ColumnPtr(std::move(c));
}

Result<std::optional<columnar::RecordBatch>> SpillFile::Next(
    const std::vector<columnar::DataType>& types) {
  if (!reading_) FLOE_RETURN_IF_ERROR(Rewind());
  uint32_t magic = 0;
  const size_t got = std::fread(&magic, 1, sizeof(magic), f_);
  if (got == 0 && std::feof(f_)) return std::optional<columnar::RecordBatch>();
  if (got != sizeof(magic) || magic != kBatchMagic) {
    return Corrupt("spill file '{}': not a batch where one should start", path_);
  }
  columnar::RecordBatch b;
  uint32_t ncols = 0;
  FLOE_RETURN_IF_ERROR(Get(&b.num_rows, sizeof(b.num_rows)));
  FLOE_RETURN_IF_ERROR(Get(&ncols, sizeof(ncols)));
  if (ncols != types.size()) {
    return Internal("spill file '{}': a batch of {} columns read as {}", path_, ncols,
                    types.size());
  }
  b.columns.resize(ncols);
  for (uint32_t i = 0; i < ncols; ++i) {
    uint8_t present = 0;
    FLOE_RETURN_IF_ERROR(Get(&present, 1));
    if (present != 0) {
      FLOE_ASSIGN_OR_RETURN(b.columns[i], GetColumn(types[i]));
    }
  }
  return std::optional<columnar::RecordBatch>(std::move(b));
}

}  // namespace floe::exec
