#include "floe/iceberg/metadata_cache.h"

namespace floe::iceberg {

MetadataCache& MetadataCache::Default() {
  static MetadataCache* cache = new MetadataCache();  // never destroyed: used until exit
  return *cache;
}

}  // namespace floe::iceberg
