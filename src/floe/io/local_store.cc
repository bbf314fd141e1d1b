#include "floe/io/local_store.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <filesystem>
#include <limits>
#include <random>
#include <system_error>
#include <vector>

namespace floe::io {
namespace {

std::string ErrnoText(int err) { return std::error_code(err, std::generic_category()).message(); }

// Closes a file descriptor on scope exit.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  // Closes now and reports close()'s error (a failed close can mean lost data).
  int Close() {
    int rc = ::close(fd_);
    fd_ = -1;
    return rc;
  }

 private:
  int fd_;
};

int64_t MtimeMs(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
}

ObjectInfo InfoFromStat(std::string key, const struct stat& st) {
  ObjectInfo info;
  info.key = std::move(key);
  info.size = static_cast<uint64_t>(st.st_size);
  info.mtime_ms = MtimeMs(st);
  // The inode changes on every Put (rename of a new file), size and nanosecond mtime on any
  // rewrite in place by another program: together they identify a version well enough.
  uint64_t mtime_ns = static_cast<uint64_t>(st.st_mtim.tv_sec) * 1000000000ull +
                      static_cast<uint64_t>(st.st_mtim.tv_nsec);
  info.etag = fmt::format("{:x}-{:x}-{:x}", static_cast<uint64_t>(st.st_ino), info.size, mtime_ns);
  return info;
}

// A temp-file name unique across threads (counter) and processes (pid, random salt).
std::string TempName() {
  static std::atomic<uint64_t> counter{0};
  static const uint64_t salt = std::random_device{}();
  return fmt::format("{}{}-{:x}-{}", LocalStore::kTempPrefix, ::getpid(), salt & 0xffffffff,
                     counter.fetch_add(1));
}

Status WriteAll(int fd, ByteView data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return std::unexpected(Error{ErrorKind::kIO, ErrnoText(errno)});
    }
    done += static_cast<size_t>(n);
  }
  return {};
}

// Makes a new directory entry durable (after fsync of the file itself).
void SyncParent(const std::string& path) {
  std::string dir = path.substr(0, std::max<size_t>(1, path.rfind('/')));
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

Status CheckMaxKeys(int max_keys) {
  if (max_keys < 1 || max_keys > 1000) {
    return InvalidInput("max_keys {} is out of range (1..1000)", max_keys);
  }
  return {};
}

struct DirEntry {
  std::string sort_name;  // the name, with '/' appended for a directory
  bool is_dir = false;
};

// The entries of `dir` that can hold objects (or, `temps`, temp files), sorted so that a
// depth-first walk yields keys in byte order: a directory sorts as "name/", which is where its
// keys fall among its siblings'.
std::vector<DirEntry> ReadDirSorted(const std::string& dir, bool temps) {
  std::vector<DirEntry> out;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return out;  // removed meanwhile (a concurrent Delete): nothing here
  while (struct dirent* e = ::readdir(d)) {
    std::string_view name = e->d_name;
    if (name == "." || name == "..") continue;
    unsigned char type = e->d_type;
    if (type == DT_UNKNOWN) {
      struct stat st {};
      if (::fstatat(::dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
      type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
    }
    const bool temp = name.starts_with(LocalStore::kTempPrefix);
    if (type == DT_DIR && !temp) {
      out.push_back({std::string(name) + "/", true});
    } else if (type == DT_REG && temp == temps) {
      out.push_back({std::string(name), false});
    }
  }
  ::closedir(d);
  std::sort(out.begin(), out.end(),
            [](const DirEntry& a, const DirEntry& b) { return a.sort_name < b.sort_name; });
  return out;
}

// Depth-first walk collecting up to `limit` keys that start with `prefix` and sort after `after`.
class Lister {
 public:
  // `temps`: collect the temp files instead of the objects.
  Lister(std::string root, std::string_view prefix, std::string_view after, size_t limit,
         bool temps = false)
      : root_(std::move(root)), prefix_(prefix), after_(after), limit_(limit), temps_(temps) {}

  std::vector<ObjectInfo> Run() {
    Walk("");
    return std::move(out_);
  }

 private:
  // `rel` is the directory's key prefix: "" or "a/b/".
  void Walk(const std::string& rel) {
    std::string dir = rel.empty() ? root_ : root_ + "/" + rel.substr(0, rel.size() - 1);
    for (const DirEntry& e : ReadDirSorted(dir, temps_)) {
      if (out_.size() >= limit_) return;
      std::string key = rel + e.sort_name;
      if (e.is_dir) {
        // Keys below start with `key`: descend only if some could match the prefix and could
        // sort after the token.
        if (!key.starts_with(prefix_) && !prefix_.starts_with(key)) continue;
        if (!after_.empty() && key < after_ && !after_.starts_with(key)) continue;
        Walk(key);
      } else {
        if (!key.starts_with(prefix_)) continue;
        if (!after_.empty() && key <= after_) continue;
        struct stat st {};
        std::string path = dir + "/" + std::string(e.sort_name);
        if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;  // deleted meanwhile
        out_.push_back(InfoFromStat(std::move(key), st));
      }
    }
  }

  std::string root_;
  std::string_view prefix_;
  std::string_view after_;
  size_t limit_;
  bool temps_;
  std::vector<ObjectInfo> out_;
};

}  // namespace

Result<std::shared_ptr<LocalStore>> LocalStore::Open(std::string_view root,
                                                     LocalStoreOptions options) {
  if (root.empty()) return InvalidInput("empty local store root");
  if (root.find('\0') != std::string_view::npos) {
    return InvalidInput("local store root contains a NUL byte");
  }
  std::error_code ec;
  std::filesystem::path path = std::filesystem::absolute(std::filesystem::path(root), ec);
  if (ec) return IOError("cannot resolve local store root '{}': {}", root, ec.message());
  std::string abs = path.lexically_normal().string();
  while (abs.size() > 1 && abs.back() == '/') abs.pop_back();
  std::filesystem::create_directories(abs, ec);
  if (ec && !std::filesystem::is_directory(abs)) {
    if (std::filesystem::exists(abs)) {
      return InvalidInput("local store root '{}' exists and is not a directory", abs);
    }
    return IOError("cannot create local store root '{}': {}", abs, ec.message());
  }
  if (!std::filesystem::is_directory(abs, ec)) {
    return InvalidInput("local store root '{}' exists and is not a directory", abs);
  }
  return std::shared_ptr<LocalStore>(new LocalStore(std::move(abs), options));
}

LocalStore::LocalStore(std::string root, LocalStoreOptions options)
    : root_(std::move(root)), options_(options) {}

std::string LocalStore::Uri() const { return "file://" + root_; }

Error LocalStore::InStore(Error error) const {
  error.message = fmt::format("{} in {}", error.message, Uri());
  return error;
}

std::string LocalStore::PathOf(std::string_view key) const {
  if (root_ == "/") return fmt::format("/{}", key);
  return fmt::format("{}/{}", root_, key);
}

Status LocalStore::CheckKey(std::string_view key) const {
  if (auto st = ValidateKey(key); !st) return std::unexpected(InStore(st.error()));
  size_t start = 0;
  while (start < key.size()) {
    size_t end = std::min(key.find('/', start), key.size());
    if (key.substr(start, end - start).starts_with(kTempPrefix)) {
      return std::unexpected(InStore(
          Error{ErrorKind::kInvalidInput,
                fmt::format("object key '{}' has a segment starting with the reserved prefix '{}'",
                            key, kTempPrefix)}));
    }
    start = end + 1;
  }
  return {};
}

Status LocalStore::MakeParents(std::string_view key) {
  for (int attempt = 0;; ++attempt) {
    int err = 0;
    size_t failed_at = 0;
    for (size_t slash = key.find('/'); slash != std::string_view::npos;
         slash = key.find('/', slash + 1)) {
      std::string dir = PathOf(key.substr(0, slash));
      if (::mkdir(dir.c_str(), 0777) == 0) continue;
      err = errno;
      if (err == EEXIST) {
        struct stat st {};
        if (::stat(dir.c_str(), &st) != 0) {
          err = errno;  // ENOENT: removed again since mkdir looked; retried below
        } else if (S_ISDIR(st.st_mode)) {
          err = 0;
          continue;
        }
      }
      failed_at = slash;
      break;
    }
    if (err == 0) return {};
    // A concurrent Delete removed a parent we had just made (it was empty): start again.
    if (err == ENOENT && attempt < 64) continue;
    if (err == EEXIST || err == ENOTDIR) {
      return std::unexpected(InStore(Error{
          ErrorKind::kUnsupported,
          fmt::format("cannot store object '{}': '{}' is an object, and a directory cannot hold "
                      "a key that is also a prefix of another key",
                      key, key.substr(0, failed_at))}));
    }
    return std::unexpected(
        InStore(Error{ErrorKind::kIO, fmt::format("cannot create directory for object '{}': {}",
                                                  key, ErrnoText(err))}));
  }
}

Result<std::string> LocalStore::WriteTemp(std::string_view key, ByteView data) {
  std::string path = PathOf(key);
  // Beside the target: rename() and link() need both names in one file system.
  std::string dir_slash = path.substr(0, path.rfind('/') + 1);
  // A concurrent Delete may remove a directory we just created (it was empty): retry.
  for (int attempt = 0;; ++attempt) {
    std::string temp = dir_slash + TempName();
    int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) {
      int err = errno;
      if ((err == ENOENT || err == ENOTDIR) && attempt < 100) {
        FLOE_RETURN_IF_ERROR(MakeParents(key));
        continue;
      }
      if (err == EEXIST && attempt < 100) continue;
      return std::unexpected(InStore(
          Error{ErrorKind::kIO, fmt::format("cannot write object '{}': {}", key, ErrnoText(err))}));
    }
    Fd file(fd);
    Status written = WriteAll(fd, data);
    if (written && options_.fsync && ::fsync(fd) != 0) {
      written = std::unexpected(Error{ErrorKind::kIO, ErrnoText(errno)});
    }
    if (written && file.Close() != 0) {
      written = std::unexpected(Error{ErrorKind::kIO, ErrnoText(errno)});
    }
    if (!written) {
      ::unlink(temp.c_str());
      return std::unexpected(
          InStore(Error{ErrorKind::kIO, fmt::format("cannot write object '{}': {}", key,
                                                    written.error().message)}));
    }
    return temp;
  }
}

Result<ObjectInfo> LocalStore::Head(std::string_view key) {
  FLOE_RETURN_IF_ERROR(CheckKey(key));
  struct stat st {};
  std::string path = PathOf(key);
  if (::stat(path.c_str(), &st) != 0) {
    int err = errno;
    if (err == ENOENT || err == ENOTDIR) return NotFound("object '{}' not found in {}", key, Uri());
    return IOError("cannot stat object '{}' in {}: {}", key, Uri(), ErrnoText(err));
  }
  if (!S_ISREG(st.st_mode)) return NotFound("object '{}' not found in {}", key, Uri());
  return InfoFromStat(std::string(key), st);
}

Result<Buffer> LocalStore::Get(std::string_view key, Range range) {
  FLOE_RETURN_IF_ERROR(CheckKey(key));
  if (auto st = range.Validate(key); !st) return std::unexpected(InStore(st.error()));
  std::string path = PathOf(key);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    if (err == ENOENT || err == ENOTDIR) return NotFound("object '{}' not found in {}", key, Uri());
    return IOError("cannot open object '{}' in {}: {}", key, Uri(), ErrnoText(err));
  }
  // The descriptor pins one version: a concurrent Put renames a new file over the name and
  // leaves this inode intact, so the read never mixes versions.
  Fd file(fd);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    return IOError("cannot stat object '{}' in {}: {}", key, Uri(), ErrnoText(errno));
  }
  if (!S_ISREG(st.st_mode)) return NotFound("object '{}' not found in {}", key, Uri());
  auto span = range.Resolve(key, static_cast<uint64_t>(st.st_size));
  if (!span) return std::unexpected(InStore(span.error()));
  auto [begin, end] = *span;
  if (options_.map_reads && end - begin >= kMapBytes) {
    // Mapped, not copied: the reader touches only the pages it decodes, so a whole-file read of
    // which a query needs a few columns costs no copy of the rest (a quarter of a warm local
    // query that reads four 2.5 MB files whole). Put renames a new file into place and never
    // writes an existing one, so the mapping holds one version, as the descriptor does; only a
    // program truncating the file in place while it is mapped could fault the reader, which is
    // why stores of files floe does not own turn map_reads off. Below
    // kMapBytes a copy is cheaper than mapping and unmapping. If mmap fails, pread below.
    static const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
    const uint64_t start = begin / page * page;
    const size_t length = end - start;
    void* at = ::mmap(nullptr, length, PROT_READ, MAP_PRIVATE, fd, static_cast<off_t>(start));
    if (at != MAP_FAILED) {
      std::shared_ptr<const void> mapping(
          at, [length](const void* p) { ::munmap(const_cast<void*>(p), length); });
      return Buffer::Wrap(static_cast<const uint8_t*>(at) + (begin - start), end - begin,
                          std::move(mapping));
    }
  }
  ByteVector bytes(end - begin);  // not zero-filled: pread writes every byte or this fails
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n =
        ::pread(fd, bytes.data() + done, bytes.size() - done, static_cast<off_t>(begin + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return IOError("cannot read object '{}' in {}: {}", key, Uri(), ErrnoText(errno));
    }
    if (n == 0) {
      return IOError("object '{}' in {} was truncated while being read ({} of {} bytes)", key,
                     Uri(), done, bytes.size());
    }
    done += static_cast<size_t>(n);
  }
  return Buffer(std::move(bytes));
}

Result<PutInfo> LocalStore::Put(std::string_view key, ByteView data) {
  FLOE_RETURN_IF_ERROR(CheckKey(key));
  FLOE_ASSIGN_OR_RETURN(std::string temp, WriteTemp(key, data));
  std::string path = PathOf(key);
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(temp.c_str());
    if (err == EISDIR || err == ENOTEMPTY || err == EEXIST) {
      return Unsupported(
          "cannot store object '{}' in {}: it is a prefix of other keys, and a directory cannot "
          "hold a key that is also a prefix of another key",
          key, Uri());
    }
    return IOError("cannot write object '{}' in {}: {}", key, Uri(), ErrnoText(err));
  }
  if (options_.fsync) SyncParent(path);
  return PutInfo{};
}

Result<PutInfo> LocalStore::PutIfAbsent(std::string_view key, ByteView data) {
  FLOE_RETURN_IF_ERROR(CheckKey(key));
  FLOE_ASSIGN_OR_RETURN(std::string temp, WriteTemp(key, data));
  std::string path = PathOf(key);
  // link() fails with EEXIST if anything has the name: of concurrent callers, in this process
  // or another, exactly one creates it, and the object appears complete.
  int rc = ::link(temp.c_str(), path.c_str());
  int err = errno;
  ::unlink(temp.c_str());
  if (rc != 0) {
    struct stat st {};
    if (err == EEXIST && ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      return Unsupported(
          "cannot store object '{}' in {}: it is a prefix of other keys, and a directory cannot "
          "hold a key that is also a prefix of another key",
          key, Uri());
    }
    if (err == EEXIST) return Conflict("object '{}' already exists in {}", key, Uri());
    return IOError("cannot create object '{}' in {}: {}", key, Uri(), ErrnoText(err));
  }
  if (options_.fsync) SyncParent(path);
  return PutInfo{};
}

Result<ListPage> LocalStore::List(std::string_view prefix, std::string_view continuation_token,
                                  int max_keys) {
  if (auto st = CheckMaxKeys(max_keys); !st) return std::unexpected(InStore(st.error()));
  // The walk follows only entries it reads from disk, so no prefix can lead it out of the root.
  Lister lister(root_, prefix, continuation_token, static_cast<size_t>(max_keys) + 1);
  ListPage page;
  page.objects = lister.Run();
  if (page.objects.size() > static_cast<size_t>(max_keys)) {
    page.objects.pop_back();
    page.next_token = page.objects.back().key;
  }
  return page;
}

Status LocalStore::Delete(std::string_view key) {
  FLOE_RETURN_IF_ERROR(CheckKey(key));
  std::string path = PathOf(key);
  if (::unlink(path.c_str()) != 0) {
    int err = errno;
    // Missing, or a directory (a prefix of other keys, not an object): nothing to delete.
    if (err == ENOENT || err == ENOTDIR || err == EISDIR) return {};
    return IOError("cannot delete object '{}' in {}: {}", key, Uri(), ErrnoText(err));
  }
  RemoveEmptyParents(key);
  return {};
}

Result<std::vector<ObjectInfo>> LocalStore::ListAbandonedWrites(std::string_view prefix) {
  Lister lister(root_, prefix, "", std::numeric_limits<size_t>::max(), /*temps=*/true);
  return lister.Run();
}

Status LocalStore::DeleteAbandonedWrite(std::string_view key) {
  if (auto st = ValidateKey(key); !st) return std::unexpected(InStore(st.error()));
  const size_t slash = key.rfind('/');
  std::string_view name = slash == std::string_view::npos ? key : key.substr(slash + 1);
  std::string_view dir = slash == std::string_view::npos ? "" : key.substr(0, slash);
  if (!name.starts_with(kTempPrefix) || (!dir.empty() && !CheckKey(dir))) {
    return InvalidInput("'{}' in {} is not a temp file of an unfinished write", key, Uri());
  }
  std::string path = PathOf(key);
  if (::unlink(path.c_str()) != 0) {
    int err = errno;
    if (err == ENOENT || err == ENOTDIR) return {};
    return IOError("cannot delete temp file '{}' in {}: {}", key, Uri(), ErrnoText(err));
  }
  RemoveEmptyParents(key);
  return {};
}

void LocalStore::RemoveEmptyParents(std::string_view key) {
  // rmdir only succeeds on an empty directory; a concurrent Put whose temp file is already there
  // keeps it, and one that is about to create its directory retries (see WriteTemp).
  for (size_t slash = key.rfind('/'); slash != std::string_view::npos && slash > 0;
       slash = key.rfind('/', slash - 1)) {
    std::string dir = PathOf(key.substr(0, slash));
    if (::rmdir(dir.c_str()) != 0) break;
  }
}

}  // namespace floe::io
