// ObjectStore: the one interface through which floe moves bytes to and from storage.
// Keys are relative to the store's root (a directory, a bucket prefix, a memory namespace) and use
// '/' separators. Every implementation is thread-safe. Range semantics follow S3's GET exactly so a
// test passes the same way against LocalStore and a real S3 server:
//   - Bounded(offset, length): bytes [offset, min(offset + length, size)); offset >= size is an
//     invalid-input error ("range not satisfiable"); length 0 is rejected before any request.
//   - Suffix(n): the last min(n, size) bytes; n == 0 is rejected before any request.
//   - Whole(): the object, including an empty one.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/base/result.h"
#include "floe/base/thread_pool.h"

namespace floe::io {

struct Range {
  enum class Kind { kWhole, kBounded, kSuffix };
  Kind kind = Kind::kWhole;
  uint64_t offset = 0;  // kBounded only
  uint64_t length = 0;  // kBounded: bytes wanted; kSuffix: bytes from the end

  static Range Whole() { return {}; }
  static Range Bounded(uint64_t offset, uint64_t length) {
    return {Kind::kBounded, offset, length};
  }
  static Range Suffix(uint64_t length) { return {Kind::kSuffix, 0, length}; }

  // The HTTP Range header value ("bytes=0-99", "bytes=-8"); empty for kWhole.
  std::string HttpHeader() const;
  // "bytes 0-99 of 'key'", for messages.
  std::string Describe() const;
  // Rejects length-0 ranges.
  Status Validate(std::string_view key) const;
  // The byte span [begin, end) this range selects in an object of `size` bytes, or the
  // not-satisfiable error S3 would give.
  Result<std::pair<uint64_t, uint64_t>> Resolve(std::string_view key, uint64_t size) const;

  friend bool operator==(const Range&, const Range&) = default;
};

struct ObjectInfo {
  std::string key;
  uint64_t size = 0;
  int64_t mtime_ms = 0;  // last modified, Unix milliseconds
  std::string etag;      // may be empty for stores without one
};

struct ListPage {
  std::vector<ObjectInfo> objects;  // in key order
  std::string next_token;           // empty when this is the last page
};

// What a successful put did: how many UploadPart requests a multipart upload took (0 = one PUT).
struct PutInfo {
  uint32_t multipart_parts = 0;
};

struct ReadRequest {
  std::string key;
  Range range;
  // What the request is for (a trace's record: request_trace.h); decorators pass them on.
  std::string purpose;
  std::string detail;
};

// Called once per request of a batch, with the request's index, from any thread (possibly several
// at once). Callbacks must return quickly and must not wait for the same store's batch to finish;
// submitting further reads from a callback is fine.
using ReadCallback = std::function<void(size_t index, Result<Buffer> result)>;

struct BatchOptions {
  int max_in_flight = 64;  // requests outstanding at once for this batch
};

// A batch of reads in flight. Wait() returns once every callback has returned. The destructor
// waits.
class PendingReads {
 public:
  virtual ~PendingReads() = default;
  virtual void Wait() = 0;
};

class ObjectStore {
 public:
  virtual ~ObjectStore() = default;

  virtual Result<ObjectInfo> Head(std::string_view key) = 0;
  virtual Result<Buffer> Get(std::string_view key, Range range = Range::Whole()) = 0;
  virtual Result<PutInfo> Put(std::string_view key, ByteView data) = 0;
  // Creates the object only if no object has `key`; otherwise a kConflict error and no change.
  // Atomic across threads and processes: of concurrent callers exactly one succeeds.
  virtual Result<PutInfo> PutIfAbsent(std::string_view key, ByteView data) = 0;
  // One page of keys starting with `prefix`, in key order, at most `max_keys` (<= 1000).
  virtual Result<ListPage> List(std::string_view prefix, std::string_view continuation_token = {},
                                int max_keys = 1000) = 0;
  // Removes the object; removing a missing key succeeds, as on S3.
  virtual Status Delete(std::string_view key) = 0;

  // Starts every read of `requests` (at most `options.max_in_flight` at once) and returns without
  // waiting. The default runs blocking Gets on the store's own IO threads (64, started on first
  // use, joined when the store goes); stores with native concurrency (S3) and decorators override
  // it.
  virtual std::unique_ptr<PendingReads> SubmitReads(std::vector<ReadRequest> requests,
                                                    ReadCallback on_done,
                                                    BatchOptions options = {});

  // A URI naming this store's root ("file:///data/w", "s3://bucket/prefix", "mem://t").
  virtual std::string Uri() const = 0;

  // The debris of writes that never finished, under `prefix`: a LocalStore's temp files, which a
  // process killed between writing one and renaming it into place leaves behind. List never shows
  // them and no other call takes their keys; DeleteAbandonedWrite removes one. Stores whose writes
  // leave nothing behind have none (the default). These are the store's own bookkeeping, not
  // object requests: CountingStore does not count them, and decorators pass them through.
  virtual Result<std::vector<ObjectInfo>> ListAbandonedWrites(std::string_view prefix);
  virtual Status DeleteAbandonedWrite(std::string_view key);

  // Convenience over SubmitReads: every result, in request order.
  std::vector<Result<Buffer>> ReadAll(std::vector<ReadRequest> requests, BatchOptions options = {});
  // Every object under `prefix`, following continuation tokens.
  Result<std::vector<ObjectInfo>> ListAll(std::string_view prefix);

 private:
  ThreadPool& IoPool();

  std::once_flag io_pool_once_;
  std::unique_ptr<ThreadPool> io_pool_;
};

using StorePtr = std::shared_ptr<ObjectStore>;

// Checks a key: non-empty, relative, no "." or ".." segments, no empty segments, no NUL bytes.
// Every store applies it so that no key can escape the store's root.
Status ValidateKey(std::string_view key);

// Joins a root prefix and a key with exactly one '/'.
std::string JoinKey(std::string_view prefix, std::string_view key);

}  // namespace floe::io
