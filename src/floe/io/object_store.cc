#include "floe/io/object_store.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>

#include "floe/base/thread_pool.h"

namespace floe::io {

std::string Range::HttpHeader() const {
  switch (kind) {
    case Kind::kWhole:
      return "";
    case Kind::kBounded:
      return fmt::format("bytes={}-{}", offset, offset + length - 1);
    case Kind::kSuffix:
      return fmt::format("bytes=-{}", length);
  }
  return "";
}

std::string Range::Describe() const {
  switch (kind) {
    case Kind::kWhole:
      return "whole object";
    case Kind::kBounded:
      return fmt::format("bytes {}-{}", offset, offset + length - 1);
    case Kind::kSuffix:
      return fmt::format("last {} bytes", length);
  }
  return "";
}

Status Range::Validate(std::string_view key) const {
  if (kind != Kind::kWhole && length == 0) {
    return InvalidInput("empty byte range ({}) requested of '{}'",
                        kind == Kind::kSuffix ? "suffix of 0 bytes" : "length 0", key);
  }
  return {};
}

Result<std::pair<uint64_t, uint64_t>> Range::Resolve(std::string_view key, uint64_t size) const {
  FLOE_RETURN_IF_ERROR(Validate(key));
  switch (kind) {
    case Kind::kWhole:
      return std::pair<uint64_t, uint64_t>{0, size};
    case Kind::kBounded:
      if (offset >= size) {
        return InvalidInput("range not satisfiable: {} of '{}' ({} bytes)", Describe(), key, size);
      }
      return std::pair<uint64_t, uint64_t>{offset, std::min(size, offset + length)};
    case Kind::kSuffix:
      if (size == 0) {
        return InvalidInput("range not satisfiable: {} of '{}' (0 bytes)", Describe(), key);
      }
      return std::pair<uint64_t, uint64_t>{size - std::min(size, length), size};
  }
  return Internal("bad range kind");
}

namespace {

// The key as a message can show it: a NUL byte would cut the line short, so it prints as "\0".
std::string PrintableKey(std::string_view key) {
  std::string out;
  out.reserve(key.size() + 2);
  for (char c : key) {
    if (c == '\0') {
      out += "\\0";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

Status ValidateKey(std::string_view key) {
  if (key.empty()) return InvalidInput("empty object key");
  if (key.find('\0') != std::string_view::npos) {
    return InvalidInput("object key '{}' contains a NUL byte", PrintableKey(key));
  }
  if (key.front() == '/') return InvalidInput("object key '{}' is absolute", key);
  size_t start = 0;
  while (start <= key.size()) {
    size_t end = key.find('/', start);
    if (end == std::string_view::npos) end = key.size();
    std::string_view seg = key.substr(start, end - start);
    if (seg.empty()) return InvalidInput("object key '{}' has an empty path segment", key);
    if (seg == "." || seg == "..") {
      return InvalidInput("object key '{}' contains a '{}' segment", key, seg);
    }
    start = end + 1;
  }
  return {};
}

std::string JoinKey(std::string_view prefix, std::string_view key) {
  while (!prefix.empty() && prefix.back() == '/') prefix.remove_suffix(1);
  while (!key.empty() && key.front() == '/') key.remove_prefix(1);
  if (prefix.empty()) return std::string(key);
  if (key.empty()) return std::string(prefix);
  return fmt::format("{}/{}", prefix, key);
}

namespace {

// Runs a batch as `lanes` loops on `pool`, each taking the next unstarted request.
class PooledReads final : public PendingReads {
 public:
  PooledReads(ObjectStore* store, std::vector<ReadRequest> requests, ReadCallback on_done)
      : store_(store), requests_(std::move(requests)), on_done_(std::move(on_done)) {}

  void Start(ThreadPool& pool, int max_in_flight) {
    size_t lanes = std::min<size_t>(requests_.size(), std::max(1, max_in_flight));
    if (requests_.empty()) return;
    lanes_left_ = lanes;
    for (size_t i = 0; i < lanes; ++i) pool.Post([this] { Lane(); });
  }

  void Wait() override {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [this] { return lanes_left_ == 0; });
  }

  ~PooledReads() override { Wait(); }

 private:
  void Lane() {
    for (;;) {
      size_t i = next_.fetch_add(1);
      if (i >= requests_.size()) break;
      on_done_(i, store_->Get(requests_[i].key, requests_[i].range));
    }
    std::lock_guard lock(mu_);
    if (--lanes_left_ == 0) cv_.notify_all();
  }

  ObjectStore* store_;
  std::vector<ReadRequest> requests_;
  ReadCallback on_done_;
  std::atomic<size_t> next_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  size_t lanes_left_ = 0;
};

}  // namespace

std::unique_ptr<PendingReads> ObjectStore::SubmitReads(std::vector<ReadRequest> requests,
                                                       ReadCallback on_done, BatchOptions options) {
  auto pending = std::make_unique<PooledReads>(this, std::move(requests), std::move(on_done));
  pending->Start(IoPool(), options.max_in_flight);
  return pending;
}

// Blocking reads run here; sized for IO wait, not CPU.
ThreadPool& ObjectStore::IoPool() {
  std::call_once(io_pool_once_, [this] { io_pool_ = std::make_unique<ThreadPool>(64); });
  return *io_pool_;
}

std::vector<Result<Buffer>> ObjectStore::ReadAll(std::vector<ReadRequest> requests,
                                                 BatchOptions options) {
  std::vector<Result<Buffer>> results(requests.size(), Result<Buffer>(Buffer()));
  std::mutex mu;
  auto pending = SubmitReads(
      std::move(requests),
      [&](size_t i, Result<Buffer> r) {
        std::lock_guard lock(mu);
        results[i] = std::move(r);
      },
      options);
  pending->Wait();
  return results;
}

Result<std::vector<ObjectInfo>> ObjectStore::ListAbandonedWrites(std::string_view) {
  return std::vector<ObjectInfo>{};
}

Status ObjectStore::DeleteAbandonedWrite(std::string_view key) {
  return NotFound("no abandoned write '{}' in {}", key, Uri());
}

Result<std::vector<ObjectInfo>> ObjectStore::ListAll(std::string_view prefix) {
  std::vector<ObjectInfo> all;
  std::string token;
  do {
    FLOE_ASSIGN_OR_RETURN(ListPage page, List(prefix, token, 1000));
    for (auto& o : page.objects) all.push_back(std::move(o));
    token = std::move(page.next_token);
  } while (!token.empty());
  return all;
}

}  // namespace floe::io
