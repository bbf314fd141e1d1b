#include "floe/parquet/footer_cache.h"

namespace floe::parquet {

FooterCache& FooterCache::Default() {
  static FooterCache* cache = new FooterCache();  // never destroyed: used until exit
  return *cache;
}

void FooterCache::Insert(std::string_view path, uint64_t file_length, const FileReader& reader,
                         int64_t tail_offset, ByteView tail) {
  // The parsed footer costs roughly what its serialised form does; charge both.
  const int64_t footer_bytes = static_cast<int64_t>(file_length) - tail_offset;
  const int64_t charge = static_cast<int64_t>(tail.size()) + footer_bytes + 256;
  lru_.Insert(Key(std::string(path), file_length), Entry{reader, tail_offset, Buffer::Copy(tail)},
              charge);
}

}  // namespace floe::parquet
