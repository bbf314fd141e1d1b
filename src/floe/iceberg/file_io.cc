#include "floe/iceberg/file_io.h"

#include "floe/iceberg/metadata_cache.h"

namespace floe::iceberg {
namespace {

// "file:///a/b" and "/a/b" name the same local file; compare them in one form.
std::string Normalize(std::string_view location) {
  if (location.starts_with("file://")) location.remove_prefix(7);
  while (location.size() > 1 && location.back() == '/') location.remove_suffix(1);
  return std::string(location);
}

}  // namespace

FileIO::FileIO(io::StorePtr store, std::string root_uri)
    : store_(std::move(store)), root_uri_(std::move(root_uri)) {
  while (root_uri_.size() > 1 && root_uri_.back() == '/') root_uri_.pop_back();
}

Result<std::string> FileIO::KeyOf(std::string_view location) const {
  std::string root = Normalize(root_uri_);
  std::string loc = Normalize(location);
  if (loc.size() > root.size() + 1 && loc.starts_with(root) && loc[root.size()] == '/') {
    return loc.substr(root.size() + 1);
  }
  return InvalidInput("location '{}' is outside the warehouse '{}'", location, root_uri_);
}

std::string FileIO::LocationOf(std::string_view key) const {
  return root_uri_ + "/" + std::string(key);
}

Result<Buffer> FileIO::Read(std::string_view location) const {
  FLOE_ASSIGN_OR_RETURN(std::string key, KeyOf(location));
  return store_->Get(key, io::Range::Whole());
}

Result<Buffer> FileIO::ReadMetadata(std::string_view location) const {
  MetadataCache& cache = MetadataCache::Default();
  if (auto hit = cache.Find(location)) return *hit;
  FLOE_ASSIGN_OR_RETURN(Buffer bytes, Read(location));
  cache.Insert(location, bytes);
  return bytes;
}

std::vector<Result<Buffer>> FileIO::ReadMetadataAll(const std::vector<std::string>& locations,
                                                    int concurrency) const {
  MetadataCache& cache = MetadataCache::Default();
  std::vector<Result<Buffer>> out(locations.size(), Buffer());
  std::vector<io::ReadRequest> requests;
  std::vector<size_t> fetched;  // index in `out` of each request
  for (size_t i = 0; i < locations.size(); ++i) {
    if (auto hit = cache.Find(locations[i])) {
      out[i] = *hit;
      continue;
    }
    auto key = KeyOf(locations[i]);
    if (!key) {
      out[i] = std::unexpected(key.error());
      continue;
    }
    requests.push_back({std::move(*key), io::Range::Whole()});
    fetched.push_back(i);
  }
  if (requests.empty()) return out;
  auto bodies = store_->ReadAll(std::move(requests), {concurrency});
  for (size_t j = 0; j < fetched.size(); ++j) {
    if (bodies[j]) cache.Insert(locations[fetched[j]], *bodies[j]);
    out[fetched[j]] = std::move(bodies[j]);
  }
  return out;
}

Status FileIO::Write(std::string_view location, ByteView data) const {
  FLOE_ASSIGN_OR_RETURN(std::string key, KeyOf(location));
  FLOE_RETURN_IF_ERROR(store_->Put(key, data));
  return {};
}

Status FileIO::WriteIfAbsent(std::string_view location, ByteView data) const {
  FLOE_ASSIGN_OR_RETURN(std::string key, KeyOf(location));
  FLOE_RETURN_IF_ERROR(store_->PutIfAbsent(key, data));
  return {};
}

Status FileIO::Delete(std::string_view location) const {
  FLOE_ASSIGN_OR_RETURN(std::string key, KeyOf(location));
  MetadataCache::Default().Erase(location);
  return store_->Delete(key);
}

}  // namespace floe::iceberg
