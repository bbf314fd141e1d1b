#include "floe/parquet/footer_cache.h"

namespace floe::parquet {

void FooterCache::Insert(std::string_view path, uint64_t file_length, const FileReader& reader,
                         std::vector<std::pair<int64_t, Buffer>> tail) {
  // The parsed footer costs roughly what its serialised form does: charge the bytes twice.
  int64_t bytes = 0;
  for (const auto& [offset, b] : tail) bytes += static_cast<int64_t>(b.size());
  LruCache::Insert({std::string(path), file_length}, Entry{reader, std::move(tail)},
                   2 * bytes + 256);
}

}  // namespace floe::parquet
