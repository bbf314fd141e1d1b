// Placeholder until the curl-based implementation lands: every call is "unsupported".
#include "floe/io/s3_store.h"

namespace floe::io {

class S3Store::Impl {};

void S3Options::ApplyEnvironment() {}

Result<std::shared_ptr<S3Store>> S3Store::Open(std::string bucket, std::string prefix,
                                               S3Options options) {
  return Unsupported("s3 store is not built yet (bucket '{}')", bucket);
}

S3Store::S3Store(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
S3Store::~S3Store() = default;
Result<ObjectInfo> S3Store::Head(std::string_view) { return Unsupported("s3"); }
Result<Buffer> S3Store::Get(std::string_view, Range) { return Unsupported("s3"); }
Result<PutInfo> S3Store::Put(std::string_view, ByteView) { return Unsupported("s3"); }
Result<PutInfo> S3Store::PutIfAbsent(std::string_view, ByteView) { return Unsupported("s3"); }
Result<ListPage> S3Store::List(std::string_view, std::string_view, int) { return Unsupported("s3"); }
Status S3Store::Delete(std::string_view) { return Unsupported("s3"); }
std::unique_ptr<PendingReads> S3Store::SubmitReads(std::vector<ReadRequest> requests,
                                                   ReadCallback on_done, BatchOptions options) {
  return ObjectStore::SubmitReads(std::move(requests), std::move(on_done), options);
}
std::string S3Store::Uri() const { return "s3://"; }
Status S3Store::CreateBucket() { return Unsupported("s3"); }
S3Stats S3Store::stats() const { return {}; }

}  // namespace floe::io
