// Placeholder until the curl-based implementation lands.
#include "floe/io/s3_store.h"

namespace floe::io {

class S3Store::Impl {};

void S3Options::ApplyEnvironment() {}

Result<std::shared_ptr<S3Store>> S3Store::Open(std::string bucket, std::string prefix,
                                               S3Options options) {
  return Unsupported("s3 store is not built yet (bucket '{}')", bucket);
}

S3Store::~S3Store() = default;

}  // namespace floe::io
