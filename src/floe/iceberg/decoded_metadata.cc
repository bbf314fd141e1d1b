#include "floe/iceberg/decoded_metadata.h"

#include <fmt/format.h>

#include "floe/base/lru_cache.h"
#include "floe/iceberg/metadata_cache.h"
#include "floe/parquet/compression.h"

namespace floe::iceberg {
namespace {

// Decoded values by key, each valid for the buffer it came from.
template <typename T>
class DecodedCache {
 public:
  // Decoded objects take several times their files' bytes: 128 MiB against MetadataCache's 32.
  static constexpr int64_t kCapacityBytes = int64_t{128} << 20;

  std::shared_ptr<const T> Find(const std::string& key, const Buffer& bytes) {
    auto hit = lru_.Find(key);
    if (!hit || hit->bytes.data() != bytes.data() || hit->bytes.size() != bytes.size()) {
      return nullptr;
    }
    return hit->value;
  }

  void Insert(const std::string& key, const Buffer& bytes, std::shared_ptr<const T> value) {
    lru_.Insert(key, Entry{bytes, std::move(value)}, static_cast<int64_t>(bytes.size()) * 8 + 256);
  }

  void Clear() { lru_.Clear(); }

 private:
  struct Entry {
    Buffer bytes;  // held, so its address cannot be reused by another buffer
    std::shared_ptr<const T> value;
  };
  LruCache<std::string, Entry> lru_{kCapacityBytes};
};

// Looks `key` up for `bytes`, else decodes and keeps the result.
template <typename T, typename DecodeFn>
Result<std::shared_ptr<const T>> Cached(DecodedCache<T>* cache, bool keep, const std::string& key,
                                        const Buffer& bytes, DecodeFn decode) {
  if (auto hit = cache->Find(key, bytes)) return hit;
  FLOE_ASSIGN_OR_RETURN(T value, decode());
  auto shared = std::make_shared<const T>(std::move(value));
  if (keep) cache->Insert(key, bytes, shared);
  return shared;
}

// Table metadata written with write.metadata.compression-codec=gzip ("*.gz.metadata.json"): known
// by gzip's magic rather than the name, since a JSON document never starts with byte 0x1f.
bool IsGzip(const Buffer& bytes) {
  return bytes.size() >= 2 && bytes.data()[0] == 0x1f && bytes.data()[1] == 0x8b;
}

// A gzip file's size is in its last four bytes (ISIZE, modulo 2^32). Deflate expands at most
// 1032:1, which bounds what a corrupt ISIZE can make us allocate.
Result<std::vector<uint8_t>> Gunzip(const Buffer& bytes, const std::string& location) {
  if (bytes.size() < 18) return Corrupt("gzip table metadata '{}' is truncated", location);
  const uint8_t* t = bytes.data() + bytes.size() - 4;
  const uint64_t size =
      uint64_t{t[0]} | uint64_t{t[1]} << 8 | uint64_t{t[2]} << 16 | uint64_t{t[3]} << 24;
  if (size > uint64_t{1032} * bytes.size()) {
    return Corrupt("gzip table metadata '{}' claims {} bytes, more than {} compressed bytes hold",
                   location, size, bytes.size());
  }
  FLOE_ASSIGN_OR_RETURN(auto codec, parquet::MakeCodec(parquet::CompressionCodec::kGzip));
  std::vector<uint8_t> out(size);
  if (auto st = codec->Decompress(ByteView(bytes.data(), bytes.size()), out); !st) {
    return Corrupt("gzip table metadata '{}': {}", location, st.error().message);
  }
  return out;
}

}  // namespace

struct DecodedMetadataCache::Caches {
  DecodedCache<ManifestIndex> manifest_indexes;
  DecodedCache<std::vector<ManifestFile>> manifest_lists;
  DecodedCache<TableMetadata> table_metadata;
  const MetadataCache* bytes_cache = nullptr;
};

DecodedMetadataCache::DecodedMetadataCache(const MetadataCache* bytes_cache)
    : caches_(std::make_unique<Caches>()) {
  caches_->bytes_cache = bytes_cache;
}

DecodedMetadataCache::~DecodedMetadataCache() = default;

Result<std::shared_ptr<const ManifestIndex>> DecodedMetadataCache::DecodeManifestIndex(
    const Buffer& bytes, const ManifestFile& list_entry, const Type& partition_type) {
  const std::string key =
      fmt::format("{}|{}|{}|{}", list_entry.manifest_path, list_entry.sequence_number,
                  list_entry.added_snapshot_id, partition_type.ToString());
  return Cached(&caches_->manifest_indexes, caches_->bytes_cache->enabled(), key, bytes, [&] {
    return IndexManifest(bytes, list_entry.manifest_path, list_entry, partition_type);
  });
}

Result<std::shared_ptr<const std::vector<ManifestFile>>> DecodedMetadataCache::DecodeManifestList(
    const Buffer& bytes, const std::string& location) {
  return Cached(&caches_->manifest_lists, caches_->bytes_cache->enabled(), location, bytes,
                [&] { return ReadManifestList(bytes, location); });
}

Result<std::shared_ptr<const TableMetadata>> DecodedMetadataCache::DecodeTableMetadata(
    const Buffer& bytes, const std::string& location) {
  return Cached(&caches_->table_metadata, caches_->bytes_cache->enabled(), location, bytes,
                [&]() -> Result<TableMetadata> {
                  if (!IsGzip(bytes)) return TableMetadata::Parse(bytes.string_view(), location);
                  FLOE_ASSIGN_OR_RETURN(std::vector<uint8_t> json, Gunzip(bytes, location));
                  return TableMetadata::Parse(
                      std::string_view(reinterpret_cast<const char*>(json.data()), json.size()),
                      location);
                });
}

void DecodedMetadataCache::Clear() {
  caches_->manifest_indexes.Clear();
  caches_->manifest_lists.Clear();
  caches_->table_metadata.Clear();
}

}  // namespace floe::iceberg
