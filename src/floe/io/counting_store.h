// CountingStore: a decorator that counts every request passed to the store beneath it, exactly.
// These counts are what floe reports as a query's "requests" and "bytes". Thread-safe: counters
// are updated under one mutex per request, so a Snapshot() is always a consistent cut.
// A multipart Put counts as its real requests: 2 POST (initiate, complete) + N PUT (parts).
// A request that fails is still counted (a 404 GET is a billed request), and also in `failed`; a
// call the store rejects before sending anything (invalid key, length-0 range, bad max_keys) is
// not a request and is not counted. Bytes count only payloads that moved: successful GETs/PUTs.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>

#include "floe/io/object_store.h"

namespace floe::io {

struct ObjectCounts {
  uint64_t gets = 0;  // GET requests, failed ones included
  uint64_t heads = 0;
  uint64_t bytes_read = 0;
  friend bool operator==(const ObjectCounts&, const ObjectCounts&) = default;
};

struct RequestCounts {
  uint64_t head = 0;
  uint64_t get = 0;
  uint64_t put = 0;   // single PUTs and multipart UploadPart requests
  uint64_t post = 0;  // multipart initiate + complete
  uint64_t list = 0;
  uint64_t del = 0;
  uint64_t multipart_parts = 0;  // of `put`, how many were UploadPart
  uint64_t failed = 0;           // requests that returned an error (counted in their kind too)
  uint64_t bytes_read = 0;       // payload bytes returned by GETs
  uint64_t bytes_written = 0;    // payload bytes sent by PUTs
  uint64_t objects_read = 0;     // distinct keys with at least one successful GET

  uint64_t total() const { return head + get + put + post + list + del; }
  // Adds another store's counts (objects of two stores are distinct objects).
  RequestCounts& operator+=(const RequestCounts& o);
  // What happened between two snapshots of one store's counts (`this` the later): requests and
  // bytes; objects_read, which is not additive, is the later count's.
  RequestCounts Since(const RequestCounts& earlier) const;
  friend bool operator==(const RequestCounts&, const RequestCounts&) = default;
  // {"GET": 1, "HEAD": 0, ...} as docs/cli.md's stats print it.
  std::string ToJson() const;
};

class CountingStore final : public ObjectStore {
 public:
  // `per_object` keeps a per-key breakdown (costs a map insert per request).
  explicit CountingStore(StorePtr inner, bool per_object = false);

  Result<ObjectInfo> Head(std::string_view key) override;
  Result<Buffer> Get(std::string_view key, Range range = Range::Whole()) override;
  Result<PutInfo> Put(std::string_view key, ByteView data) override;
  Result<PutInfo> PutIfAbsent(std::string_view key, ByteView data) override;
  Result<ListPage> List(std::string_view prefix, std::string_view continuation_token = {},
                        int max_keys = 1000) override;
  Status Delete(std::string_view key) override;
  std::unique_ptr<PendingReads> SubmitReads(std::vector<ReadRequest> requests, ReadCallback on_done,
                                            BatchOptions options = {}) override;
  std::string Uri() const override { return inner_->Uri(); }
  Result<std::vector<ObjectInfo>> ListAbandonedWrites(std::string_view prefix) override {
    return inner_->ListAbandonedWrites(prefix);
  }
  Status DeleteAbandonedWrite(std::string_view key) override {
    return inner_->DeleteAbandonedWrite(key);
  }

  RequestCounts Snapshot() const;
  // Per-key detail; empty unless constructed with per_object = true.
  std::map<std::string, ObjectCounts> PerObject() const;
  void Reset();
  const StorePtr& inner() const { return inner_; }

 private:
  StorePtr inner_;
  bool per_object_;
  void RecordGet(std::string_view key, const Result<Buffer>& result);
  void RecordHead(std::string_view key, bool ok);

  mutable std::mutex mu_;
  RequestCounts counts_;
  std::map<std::string, ObjectCounts> objects_;   // per_object_ only
  std::set<std::string, std::less<>> read_keys_;  // keys with a successful GET
};

}  // namespace floe::io
