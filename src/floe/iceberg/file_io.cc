#include "floe/iceberg/file_io.h"

#include <map>

#include "floe/iceberg/runtime.h"
#include "floe/io/store_uri.h"

namespace floe::iceberg {

std::string StoreObject::LocationOf(std::string_view other_key) const {
  if (root.ends_with('/')) return root + std::string(other_key);
  return root + "/" + std::string(other_key);
}

FileIO::FileIO(io::StorePtr store, std::string root_uri, StoreOpener open_store,
               std::shared_ptr<Runtime> runtime)
    : store_(std::move(store)),
      root_uri_(std::move(root_uri)),
      open_store_(std::move(open_store)),
      runtime_(runtime ? std::move(runtime) : Runtime::Make()) {
  while (root_uri_.size() > 1 && root_uri_.back() == '/') root_uri_.pop_back();
  if (auto parsed = Location::Parse(root_uri_)) root_ = std::move(*parsed);
  if (!open_store_) {
    open_store_ = [](const std::string& uri) { return io::OpenStore(uri); };
  }
}

Result<StoreObject> FileIO::Resolve(std::string_view location) const {
  FLOE_ASSIGN_OR_RETURN(Location loc, Location::Parse(location));
  if (!root_.root.empty() && root_.Contains(loc)) {
    std::string key = root_.path.empty() ? loc.path : loc.path.substr(root_.path.size() + 1);
    return StoreObject{store_, std::move(key), root_.ToString()};
  }
  if (loc.path.empty()) {
    return InvalidInput("location '{}' names the root of a store, not an object in it", location);
  }
  std::lock_guard lock(mu_);
  auto it = others_.find(loc.root);
  if (it == others_.end()) {
    auto opened = open_store_(loc.root);
    if (!opened) {
      Error e = opened.error();
      e.message = fmt::format("cannot reach location '{}': {}", location, e.message);
      return std::unexpected(std::move(e));
    }
    it = others_.emplace(loc.root, std::move(*opened)).first;
  }
  return StoreObject{it->second, std::move(loc.path), loc.root};
}

Result<std::string> FileIO::KeyOf(std::string_view location) const {
  auto loc = Location::Parse(location);
  if (loc && !root_.root.empty() && root_.Contains(*loc)) {
    return root_.path.empty() ? loc->path : loc->path.substr(root_.path.size() + 1);
  }
  return InvalidInput("location '{}' is outside the warehouse '{}'", location, root_uri_);
}

std::string FileIO::LocationOf(std::string_view key) const {
  return root_uri_ + "/" + std::string(key);
}

Result<Buffer> FileIO::Read(std::string_view location) const {
  FLOE_ASSIGN_OR_RETURN(StoreObject o, Resolve(location));
  return o.store->Get(o.key, io::Range::Whole());
}

Result<Buffer> FileIO::ReadMetadata(std::string_view location) const {
  MetadataCache& cache = runtime_->metadata_cache();
  const std::string canonical = CanonicalLocation(location);
  if (auto hit = cache.Find(canonical)) return *hit;
  FLOE_ASSIGN_OR_RETURN(Buffer bytes, Read(location));
  cache.Insert(canonical, bytes);
  return bytes;
}

std::vector<Result<Buffer>> FileIO::ReadMetadataAll(const std::vector<std::string>& locations,
                                                    int concurrency) const {
  MetadataCache& cache = runtime_->metadata_cache();
  std::vector<Result<Buffer>> out(locations.size(), Buffer());
  // The missing ones, batched by store: the warehouse's, and any other root's.
  struct Batch {
    io::StorePtr store;
    std::vector<io::ReadRequest> requests;
    std::vector<size_t> index;  // in `out`, per request
  };
  std::map<const io::ObjectStore*, Batch> batches;
  std::vector<std::string> canonical(locations.size());
  for (size_t i = 0; i < locations.size(); ++i) {
    canonical[i] = CanonicalLocation(locations[i]);
    if (auto hit = cache.Find(canonical[i])) {
      out[i] = *hit;
      continue;
    }
    auto o = Resolve(locations[i]);
    if (!o) {
      out[i] = std::unexpected(o.error());
      continue;
    }
    Batch& b = batches[o->store.get()];
    b.store = o->store;
    b.requests.push_back({std::move(o->key), io::Range::Whole()});
    b.index.push_back(i);
  }
  for (auto& [_, b] : batches) {
    auto bodies = b.store->ReadAll(std::move(b.requests), {concurrency});
    for (size_t j = 0; j < b.index.size(); ++j) {
      if (bodies[j]) cache.Insert(canonical[b.index[j]], *bodies[j]);
      out[b.index[j]] = std::move(bodies[j]);
    }
  }
  return out;
}

Status FileIO::Write(std::string_view location, ByteView data) const {
  FLOE_ASSIGN_OR_RETURN(StoreObject o, Resolve(location));
  FLOE_RETURN_IF_ERROR(o.store->Put(o.key, data));
  return {};
}

Status FileIO::WriteIfAbsent(std::string_view location, ByteView data) const {
  FLOE_ASSIGN_OR_RETURN(StoreObject o, Resolve(location));
  FLOE_RETURN_IF_ERROR(o.store->PutIfAbsent(o.key, data));
  return {};
}

Status FileIO::Delete(std::string_view location) const {
  FLOE_ASSIGN_OR_RETURN(StoreObject o, Resolve(location));
  runtime_->metadata_cache().Erase(CanonicalLocation(location));
  return o.store->Delete(o.key);
}

}  // namespace floe::iceberg
