#include "floe/iceberg/file_io.h"

#include <algorithm>
#include <chrono>
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
    open_store_ = [](const std::string& uri,
                     const std::map<std::string, std::string>& props) -> Result<io::StorePtr> {
      io::S3Options s3;
      FLOE_RETURN_IF_ERROR(s3.ApplyProperties(props));
      return io::OpenStore(uri, s3);
    };
  }
}

size_t FileIO::Vended::Reach(const Location& loc) const {
  if (prefix.root.empty()) {
    return loc.root.starts_with(scheme + "://") ? scheme.size() : 0;
  }
  if (prefix == loc || prefix.Contains(loc)) return prefix.root.size() + 1 + prefix.path.size();
  return 0;
}

void FileIO::UseCredentials(const std::vector<catalog::StorageCredential>& credentials,
                            const catalog::CredentialRefresher& refresh) const {
  std::lock_guard lock(mu_);
  for (const auto& c : credentials) {
    Vended v;
    v.text = c.prefix;
    v.config = c.config;
    v.expires_at_ms = c.ExpiresAtMs();
    v.refresh = refresh;
    std::string_view p = c.prefix;
    while (p.size() > 1 && p.back() == '/') p.remove_suffix(1);
    if (p.find(':') == std::string_view::npos && p.find('/') == std::string_view::npos) {
      // A bare scheme ("s3"): every location of that scheme, in its one spelling.
      v.scheme = p == "s3a" || p == "s3n" ? "s3" : std::string(p);
    } else {
      auto parsed = Location::Parse(p);
      if (!parsed) continue;  // a prefix floe cannot place reaches nothing floe reads
      v.prefix = std::move(*parsed);
    }
    auto same = std::ranges::find_if(
        vended_, [&](const Vended& o) { return o.prefix == v.prefix && o.scheme == v.scheme; });
    if (same != vended_.end()) {
      *same = std::move(v);
    } else {
      vended_.push_back(std::move(v));
    }
  }
}

Result<std::optional<std::map<std::string, std::string>>> FileIO::CredentialFor(
    const Location& loc) const {
  // Renewed a minute before the end, so a request signed now is not refused on arrival.
  constexpr int64_t kMarginMs = 60'000;
  auto find = [&]() -> std::optional<Vended> {
    const Vended* best = nullptr;
    size_t best_reach = 0;
    for (const auto& v : vended_) {
      if (size_t r = v.Reach(loc); r > best_reach) best = &v, best_reach = r;
    }
    return best ? std::optional<Vended>(*best) : std::nullopt;
  };
  std::optional<Vended> v;
  {
    std::lock_guard lock(mu_);
    if (vended_.empty()) return std::nullopt;
    v = find();
  }
  if (!v) return std::nullopt;
  auto expiring = [&](const Vended& c) {
    const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    return c.expires_at_ms != 0 && now + kMarginMs >= c.expires_at_ms;
  };
  if (!expiring(*v) || !v->refresh) return v->config;
  std::lock_guard renewing(refresh_mu_);
  {
    std::lock_guard lock(mu_);
    v = find();  // another thread may have renewed it meanwhile
  }
  if (v && expiring(*v)) {
    auto renewed = v->refresh();
    if (!renewed) {
      Error e = renewed.error();
      e.message =
          fmt::format("cannot renew the storage credentials for '{}': {}", v->text, e.message);
      return std::unexpected(std::move(e));
    }
    UseCredentials(*renewed, v->refresh);
    std::lock_guard lock(mu_);
    v = find();
  }
  if (!v) return std::nullopt;
  return v->config;
}

Result<StoreObject> FileIO::Resolve(std::string_view location) const {
  FLOE_ASSIGN_OR_RETURN(Location loc, Location::Parse(location));
  FLOE_ASSIGN_OR_RETURN(auto credential, CredentialFor(loc));
  if (credential) {
    if (loc.path.empty()) {
      return InvalidInput("location '{}' names the root of a store, not an object in it", location);
    }
    std::lock_guard lock(mu_);
    auto key = std::make_pair(loc.root, std::move(*credential));
    auto it = credentialed_.find(key);
    if (it == credentialed_.end()) {
      auto opened = open_store_(loc.root, key.second);
      if (!opened) {
        Error e = opened.error();
        e.message = fmt::format(
            "cannot reach location '{}' with the credentials its catalog "
            "vended: {}",
            location, e.message);
        return std::unexpected(std::move(e));
      }
      it = credentialed_.emplace(std::move(key), std::move(*opened)).first;
    }
    return StoreObject{it->second, std::move(loc.path), loc.root};
  }
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
    auto opened = open_store_(loc.root, {});
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
