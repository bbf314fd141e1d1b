#include "floe/io/counting_store.h"

#include <memory>

namespace floe::io {

RequestCounts& RequestCounts::operator+=(const RequestCounts& o) {
  head += o.head;
  get += o.get;
  put += o.put;
  post += o.post;
  list += o.list;
  del += o.del;
  multipart_parts += o.multipart_parts;
  failed += o.failed;
  bytes_read += o.bytes_read;
  bytes_written += o.bytes_written;
  objects_read += o.objects_read;
  return *this;
}

RequestCounts RequestCounts::Since(const RequestCounts& e) const {
  RequestCounts d = *this;
  d.head -= e.head;
  d.get -= e.get;
  d.put -= e.put;
  d.post -= e.post;
  d.list -= e.list;
  d.del -= e.del;
  d.multipart_parts -= e.multipart_parts;
  d.failed -= e.failed;
  d.bytes_read -= e.bytes_read;
  d.bytes_written -= e.bytes_written;
  return d;
}

std::string RequestCounts::ToJson() const {
  return fmt::format(
      R"({{"GET": {}, "HEAD": {}, "PUT": {}, "POST": {}, "LIST": {}, "DELETE": {}}})", get, head,
      put, post, list, del);
}

CountingStore::CountingStore(StorePtr inner, bool per_object)
    : inner_(std::move(inner)), per_object_(per_object) {}

void CountingStore::RecordGet(std::string_view key, const Result<Buffer>& result) {
  uint64_t bytes = result ? result->size() : 0;
  std::lock_guard lock(mu_);
  ++counts_.get;
  if (!result) ++counts_.failed;
  counts_.bytes_read += bytes;
  if (result && read_keys_.find(key) == read_keys_.end()) {
    read_keys_.emplace(key);
    ++counts_.objects_read;
  }
  if (per_object_) {
    ObjectCounts& c = objects_[std::string(key)];
    ++c.gets;
    c.bytes_read += bytes;
  }
}

void CountingStore::RecordHead(std::string_view key, bool ok) {
  std::lock_guard lock(mu_);
  ++counts_.head;
  if (!ok) ++counts_.failed;
  if (per_object_) {
    ++objects_[std::string(key)].heads;
  }
}

Result<ObjectInfo> CountingStore::Head(std::string_view key) {
  if (!ValidateKey(key)) return inner_->Head(key);  // rejected before any request
  auto result = inner_->Head(key);
  RecordHead(key, result.has_value());
  return result;
}

Result<Buffer> CountingStore::Get(std::string_view key, Range range) {
  if (!ValidateKey(key) || !range.Validate(key)) return inner_->Get(key, range);
  auto result = inner_->Get(key, range);
  RecordGet(key, result);
  return result;
}

Result<PutInfo> CountingStore::Put(std::string_view key, ByteView data) {
  if (!ValidateKey(key)) return inner_->Put(key, data);
  auto result = inner_->Put(key, data);
  std::lock_guard lock(mu_);
  if (!result) {
    ++counts_.put;
    ++counts_.failed;
  } else if (result->multipart_parts == 0) {
    ++counts_.put;
    counts_.bytes_written += data.size();
  } else {
    counts_.post += 2;  // initiate + complete
    counts_.put += result->multipart_parts;
    counts_.multipart_parts += result->multipart_parts;
    counts_.bytes_written += data.size();
  }
  return result;
}

Result<PutInfo> CountingStore::PutIfAbsent(std::string_view key, ByteView data) {
  if (!ValidateKey(key)) return inner_->PutIfAbsent(key, data);
  auto result = inner_->PutIfAbsent(key, data);
  std::lock_guard lock(mu_);
  ++counts_.put;  // a conditional PUT (If-None-Match: *)
  if (result) {
    counts_.bytes_written += data.size();
  } else {
    ++counts_.failed;
  }
  return result;
}

Result<ListPage> CountingStore::List(std::string_view prefix, std::string_view continuation_token,
                                     int max_keys) {
  if (max_keys < 1 || max_keys > 1000) return inner_->List(prefix, continuation_token, max_keys);
  auto result = inner_->List(prefix, continuation_token, max_keys);
  std::lock_guard lock(mu_);
  ++counts_.list;
  if (!result) ++counts_.failed;
  return result;
}

Status CountingStore::Delete(std::string_view key) {
  if (!ValidateKey(key)) return inner_->Delete(key);
  auto result = inner_->Delete(key);
  std::lock_guard lock(mu_);
  ++counts_.del;
  if (!result) ++counts_.failed;
  return result;
}

std::unique_ptr<PendingReads> CountingStore::SubmitReads(std::vector<ReadRequest> requests,
                                                         ReadCallback on_done,
                                                         BatchOptions options) {
  // Which requests the inner store will actually send (the rest it rejects up front), and their
  // keys, kept aside because the requests move into the inner batch.
  auto keys = std::make_shared<std::vector<std::string>>();
  auto counted = std::make_shared<std::vector<bool>>();
  keys->reserve(requests.size());
  counted->reserve(requests.size());
  for (const auto& r : requests) {
    keys->push_back(r.key);
    counted->push_back(ValidateKey(r.key) && r.range.Validate(r.key));
  }
  ReadCallback wrapped = [this, keys, counted, on_done = std::move(on_done)](
                             size_t index, Result<Buffer> result) {
    // Counted before the caller sees the result, so counts are complete once Wait() returns.
    if ((*counted)[index]) RecordGet((*keys)[index], result);
    on_done(index, std::move(result));
  };
  return inner_->SubmitReads(std::move(requests), std::move(wrapped), options);
}

RequestCounts CountingStore::Snapshot() const {
  std::lock_guard lock(mu_);
  return counts_;
}

std::map<std::string, ObjectCounts> CountingStore::PerObject() const {
  std::lock_guard lock(mu_);
  return objects_;
}

void CountingStore::Reset() {
  std::lock_guard lock(mu_);
  counts_ = RequestCounts{};
  objects_.clear();
  read_keys_.clear();
}

}  // namespace floe::io
