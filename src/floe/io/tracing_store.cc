#include "floe/io/tracing_store.h"

#include <utility>

#include <fmt/format.h>

namespace floe::io {

namespace {

template <typename T>
void Finish(RequestTrace& trace, TracedRequest r, const Result<T>& result) {
  r.end_ms = trace.NowMs();
  if (!result) r.error = result.error().ToString();
  trace.Add(std::move(r));
}

}  // namespace

TracingStore::TracingStore(StorePtr inner, std::shared_ptr<TraceSwitch> to)
    : inner_(std::move(inner)), to_(std::move(to)) {}

TracedRequest TracingStore::Begin(const RequestTrace& trace, std::string_view kind,
                                  std::string_view key) const {
  TracedRequest r;
  r.kind = kind;
  r.object = JoinKey(inner_->Uri(), key);
  r.purpose = RequestPurpose::CurrentPurpose();
  r.detail = RequestPurpose::CurrentDetail();
  if (r.purpose.empty()) r.purpose = PurposeFromName(kind, key);
  r.start_ms = trace.NowMs();
  return r;
}

Result<ObjectInfo> TracingStore::Head(std::string_view key) {
  auto trace = to_->Current();
  if (!trace) return inner_->Head(key);
  TracedRequest r = Begin(*trace, "HEAD", key);
  auto result = inner_->Head(key);
  Finish(*trace, std::move(r), result);
  return result;
}

Result<Buffer> TracingStore::Get(std::string_view key, Range range) {
  auto trace = to_->Current();
  if (!trace) return inner_->Get(key, range);
  TracedRequest r = Begin(*trace, "GET", key);
  r.range = range;
  auto result = inner_->Get(key, range);
  if (result) r.bytes = result->size();
  Finish(*trace, std::move(r), result);
  return result;
}

Result<PutInfo> TracingStore::Put(std::string_view key, ByteView data) {
  auto trace = to_->Current();
  if (!trace) return inner_->Put(key, data);
  TracedRequest r = Begin(*trace, "PUT", key);
  r.bytes = data.size();
  auto result = inner_->Put(key, data);
  if (result && result->multipart_parts > 0) {
    r.detail +=
        fmt::format("{}multipart: {} parts", r.detail.empty() ? "" : "; ", result->multipart_parts);
  }
  Finish(*trace, std::move(r), result);
  return result;
}

Result<PutInfo> TracingStore::PutIfAbsent(std::string_view key, ByteView data) {
  auto trace = to_->Current();
  if (!trace) return inner_->PutIfAbsent(key, data);
  TracedRequest r = Begin(*trace, "PUT", key);
  r.bytes = data.size();
  r.detail += r.detail.empty() ? "if absent" : "; if absent";
  auto result = inner_->PutIfAbsent(key, data);
  Finish(*trace, std::move(r), result);
  return result;
}

Result<ListPage> TracingStore::List(std::string_view prefix, std::string_view continuation_token,
                                    int max_keys) {
  auto trace = to_->Current();
  if (!trace) return inner_->List(prefix, continuation_token, max_keys);
  TracedRequest r = Begin(*trace, "LIST", prefix);
  auto result = inner_->List(prefix, continuation_token, max_keys);
  if (result) {
    r.detail += fmt::format("{}{} keys", r.detail.empty() ? "" : "; ", result->objects.size());
  }
  Finish(*trace, std::move(r), result);
  return result;
}

Status TracingStore::Delete(std::string_view key) {
  auto trace = to_->Current();
  if (!trace) return inner_->Delete(key);
  TracedRequest r = Begin(*trace, "DELETE", key);
  Status result = inner_->Delete(key);
  r.end_ms = trace->NowMs();
  if (!result) r.error = result.error().ToString();
  trace->Add(std::move(r));
  return result;
}

std::unique_ptr<PendingReads> TracingStore::SubmitReads(std::vector<ReadRequest> requests,
                                                        ReadCallback on_done,
                                                        BatchOptions options) {
  auto trace = to_->Current();
  if (!trace) return inner_->SubmitReads(std::move(requests), std::move(on_done), options);
  // One record per request, begun now, finished by its callback (before the caller sees it).
  auto records = std::make_shared<std::vector<TracedRequest>>();
  records->reserve(requests.size());
  for (const ReadRequest& q : requests) {
    TracedRequest r = Begin(*trace, "GET", q.key);
    r.range = q.range;
    if (!q.purpose.empty()) {
      r.purpose = q.purpose;
      r.detail = q.detail;
    }
    records->push_back(std::move(r));
  }
  ReadCallback wrapped = [trace, records, on_done = std::move(on_done)](size_t index,
                                                                        Result<Buffer> result) {
    TracedRequest r = (*records)[index];
    if (result) r.bytes = result->size();
    Finish(*trace, std::move(r), result);
    on_done(index, std::move(result));
  };
  return inner_->SubmitReads(std::move(requests), std::move(wrapped), options);
}

}  // namespace floe::io
