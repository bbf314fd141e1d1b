// TracingStore: a decorator that records every request passed to the store beneath it in a
// RequestTrace (request_trace.h) while one is attached, and passes requests through untouched
// when none is. Each record carries what the request was for: the ReadRequest's purpose and
// detail in a batch, this thread's RequestPurpose scope for a single call, or, when neither says,
// the object's name (PurposeFromName). A batch's requests are all stamped with the time the batch
// was submitted (some may wait for a free slot of max_in_flight) and end when each one's callback
// runs. A multipart upload is one PUT record (its parts in the detail). Thread-safe.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <string_view>

#include "floe/io/object_store.h"
#include "floe/io/request_trace.h"

namespace floe::io {

// Where a session's tracing stores send their records: one switch shared by every store the
// session opens, so one Attach covers the stores a statement opens as it runs.
class TraceSwitch {
 public:
  void Attach(std::shared_ptr<RequestTrace> trace) {
    const bool on = trace != nullptr;
    const bool was = trace_.exchange(std::move(trace)) != nullptr;
    if (on != was) CountAttachedTraces(on ? 1 : -1);
  }
  void Detach() { Attach(nullptr); }
  ~TraceSwitch() { Detach(); }
  std::shared_ptr<RequestTrace> Current() const { return trace_.load(); }

 private:
  std::atomic<std::shared_ptr<RequestTrace>> trace_;
};

class TracingStore final : public ObjectStore {
 public:
  TracingStore(StorePtr inner, std::shared_ptr<TraceSwitch> to);

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

 private:
  // A record of one call begun now on this thread (purpose from its scope or the key's name).
  TracedRequest Begin(const RequestTrace& trace, std::string_view kind, std::string_view key) const;

  StorePtr inner_;
  std::shared_ptr<TraceSwitch> to_;
};

}  // namespace floe::io
